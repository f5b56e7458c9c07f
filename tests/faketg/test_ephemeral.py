"""The fake's Bot API 10.3: ephemeral messages, disabled buttons and styles, older servers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, TelegramError

from tests.faketg import FakeTelegram

#: What PTB 22.8 (Bot API 10.0) sends for the new fields: api_kwargs, which to_dict keeps.
KEYS = InlineKeyboardMarkup([[
    InlineKeyboardButton("9♥", callback_data="play:9H"),
    InlineKeyboardButton("7♠", api_kwargs={"disabled": {}, "style": "danger"}),
]])


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


async def ephemeral(bot: Bot, chat_id: int, user_id: int, text: str, **params: Any) -> Any:
    """``sendMessage`` with ephemeral_message_parameters, through PTB's own method; the
    answer's new fields as PTB keeps them (message_id, and api_kwargs for the rest)."""
    sent = await bot.send_message(chat_id, text, reply_markup=KEYS, api_kwargs={
        "ephemeral_message_parameters": json.dumps({"receiver_user_id": user_id, **params})})
    return {"message_id": sent.message_id, **sent.api_kwargs}


async def tapped(fake: FakeTelegram, bot: Bot) -> tuple[Any, Any, str]:
    alice, bob = fake.user(101, "Alice"), fake.user(102, "Bob")
    group = fake.create_group("Kolkhoz", [alice, bob], supergroup=True)
    await bot.send_message(group.id, "board", reply_markup=InlineKeyboardMarkup(
        [[InlineKeyboardButton("🃏 My cards", callback_data="cards")]]))
    board = fake.messages(group)[-1]
    await alice.tap(board, "🃏 My cards", wait=False)
    (query_id,) = fake.callback_queries
    return group, board, query_id


async def test_an_ephemeral_reply_is_seen_by_its_receiver_only(
    fake: FakeTelegram, bot: Bot
) -> None:
    group, board, query = await tapped(fake, bot)
    alice, bob = fake.users[101], fake.users[102]
    sent = await ephemeral(bot, group.id, alice.id, "your hand", callback_query_id=query,
                           replace_callback_query_message=True)
    assert sent["message_id"] == 0 and sent["ephemeral_message_id"] == 1
    assert sent["receiver_user"]["id"] == alice.id
    await bot.answer_callback_query(query)
    # the group sees nothing new; Alice sees it, in place of the board
    assert [m.text for m in fake.messages(group)] == ["board"]
    (mine,) = fake.ephemeral.of(group.id, alice.id)
    assert mine.text == "your hand" and mine.replaces == board.message_id
    assert fake.ephemeral.of(group.id, bob.id) == []
    # a disabled button does nothing; a live one reaches the bot from message 0
    with pytest.raises(LookupError, match="not a callback button"):
        await alice.tap(mine, "7♠", wait=False)
    with pytest.raises(LookupError, match="only by its receiver"):
        await bob.tap(mine, "9♥", wait=False)
    await alice.tap(mine, "9♥", wait=False)
    record = list(fake.callback_queries.values())[-1]
    assert record.ephemeral_id == 1 and record.message_id == 0
    await bot.answer_callback_query(record.id)
    # edited and deleted with the ephemeral methods
    ids = {"chat_id": group.id, "receiver_user_id": alice.id, "ephemeral_message_id": 1}
    assert await bot.do_api_request("editEphemeralMessageText",
                                    api_kwargs={**ids, "text": "played"}) is True
    assert mine.text == "played" and mine.edits == 1
    assert await bot.do_api_request("deleteEphemeralMessage", api_kwargs=ids) is True
    assert fake.ephemeral.of(group.id, alice.id) == []
    with pytest.raises(BadRequest, match=r"(?i)not found"):
        await bot.do_api_request("deleteEphemeralMessage", api_kwargs=ids)


async def test_who_may_be_told_and_when() -> None:
    clock = Clock()
    fake = FakeTelegram(clock=clock)
    from tests.faketg import FakeRequest
    async with Bot(fake.token, request=FakeRequest(fake)) as bot:
        group, _board, query = await tapped(fake, bot)
        await bot.answer_callback_query(query)
        alice, bob = fake.users[101], fake.users[102]
        with pytest.raises(BadRequest, match=r"(?i)callback query not found"):
            await ephemeral(bot, group.id, bob.id, "x", callback_query_id=query)
        with pytest.raises(BadRequest, match=r"(?i)trigger required"):
            await ephemeral(bot, group.id, alice.id, "x")
        await alice.start_bot(wait=False)
        with pytest.raises(BadRequest, match=r"(?i)only to group"):
            await ephemeral(bot, alice.id, alice.id, "x", callback_query_id=query)
        clock.t += 16
        with pytest.raises(BadRequest, match=r"(?i)trigger expired"):
            await ephemeral(bot, group.id, alice.id, "x", callback_query_id=query)
        group.members[fake.bot_id] = "administrator"  # an admin may write at any time
        sent = await ephemeral(bot, group.id, bob.id, "x")
        assert sent["receiver_user"]["id"] == bob.id
    await fake.close()


async def test_an_older_server_ignores_what_it_does_not_know(fake: FakeTelegram, bot: Bot) -> None:
    fake.bot_api = (10, 0)
    group, _board, query = await tapped(fake, bot)
    await bot.answer_callback_query(query)
    alice = fake.users[101]
    # a button that is only "disabled" is a text button to it, which it refuses
    with pytest.raises(BadRequest, match=r"(?i)text buttons are unallowed"):
        await ephemeral(bot, group.id, alice.id, "x", callback_query_id=query)
    # without one, the "ephemeral" message is posted for everybody: the leak a bot must avoid
    sent = await bot.send_message(group.id, "hand", api_kwargs={
        "ephemeral_message_parameters": json.dumps({"receiver_user_id": alice.id})})
    assert sent.message_id > 0 and "ephemeral_message_id" not in sent.api_kwargs
    assert fake.messages(group)[-1].text == "hand"
    with pytest.raises(TelegramError, match=r"(?i)not found"):
        await bot.do_api_request("deleteEphemeralMessage", api_kwargs={
            "chat_id": group.id, "receiver_user_id": alice.id, "ephemeral_message_id": 1})


async def test_button_styles(fake: FakeTelegram, bot: Bot) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot(wait=False)
    ok = {"inline_keyboard": [[{"text": "go", "callback_data": "x", "style": "Success"}]]}
    await bot.send_message(alice.id, "t", api_kwargs={"reply_markup": json.dumps(ok)})
    bad = {"inline_keyboard": [[{"text": "go", "callback_data": "x", "style": "rainbow"}]]}
    with pytest.raises(BadRequest, match=r"(?i)invalid button style"):
        await bot.send_message(alice.id, "t", api_kwargs={"reply_markup": json.dumps(bad)})
    both = {"inline_keyboard": [[{"text": "go", "callback_data": "x", "disabled": {}}]]}
    with pytest.raises(BadRequest, match=r"(?i)disabled button"):
        await bot.send_message(alice.id, "t", api_kwargs={"reply_markup": json.dumps(both)})


BOARD = ("<h3>Year 1 of 5</h3><table bordered compact><tr><th>Job</th><th>Hours</th></tr>"
         "<tr><td>♥ Wheat</td><td>12/40</td></tr></table>"
         "<details><summary>Log</summary><p>Anna led 9♥</p></details>")


@pytest.mark.filterwarnings("ignore:Please use 'Bot.editMessageText'")
async def test_rich_messages(fake: FakeTelegram, bot: Bot) -> None:
    group = fake.create_group("Kolkhoz", [fake.user(101, "Alice")], supergroup=True)
    sent = await bot.do_api_request("sendRichMessage", api_kwargs={
        "chat_id": group.id, "rich_message": json.dumps({"html": BOARD})})
    board = fake.messages(group)[-1]
    assert "rich_message" in sent and "text" not in sent
    assert board.text == "Year 1 of 5\nJob | Hours\n♥ Wheat | 12/40\nLog\nAnna led 9♥"
    again = {"chat_id": group.id, "message_id": board.message_id,
             "rich_message": json.dumps({"html": BOARD.replace("12/40", "19/40")})}
    await bot.do_api_request("editMessageText", api_kwargs=again)
    assert "19/40" in (board.text or "") and board.edits == 1
    with pytest.raises(BadRequest, match="not modified"):
        await bot.do_api_request("editMessageText", api_kwargs=again)
    for bad, why in [("<h3>x</h2>", "unmatched end tag"), ("<blink>x</blink>", "unsupported"),
                     ("<p>x", "end tag"), ("<table><tr>" + "<td>1</td>" * 21 + "</tr></table>",
                                           "columns")]:
        with pytest.raises(BadRequest, match=why):
            await bot.do_api_request("sendRichMessage", api_kwargs={
                "chat_id": group.id, "rich_message": json.dumps({"html": bad})})
    fake.bot_api = (10, 0)
    with pytest.raises(TelegramError, match=r"(?i)not found"):
        await bot.do_api_request("sendRichMessage", api_kwargs={
            "chat_id": group.id, "rich_message": json.dumps({"html": BOARD})})
