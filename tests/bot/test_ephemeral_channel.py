"""kolkhoz_tg.bot.ephemeral against the fake Bot API: a secret reaches its one reader, and an
older server (which would post the message for everybody) never sees the secret."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from kolkhoz_tg.bot.ephemeral import Ephemeral
from tests.faketg import FakeRequest, FakeTelegram

SECRET = "your hand: 9♥ 7♠"
KEYS = InlineKeyboardMarkup([[InlineKeyboardButton("9♥", callback_data="p:9H")]])


@pytest.fixture
async def setup() -> AsyncIterator[tuple[FakeTelegram, Bot]]:
    fake = FakeTelegram()
    async with Bot(fake.token, request=FakeRequest(fake)) as bot:
        yield fake, bot
    await fake.close()


async def tap_board(fake: FakeTelegram, bot: Bot) -> tuple[int, str]:
    alice = fake.user(101, "Alice")
    group = fake.create_group("Kolkhoz", [alice, fake.user(102, "Bob")], supergroup=True)
    await bot.send_message(group.id, "board", reply_markup=InlineKeyboardMarkup(
        [[InlineKeyboardButton("🃏", callback_data="cards")]]))
    await alice.tap(fake.messages(group)[-1], "🃏", wait=False)
    query = next(iter(fake.callback_queries))
    await bot.answer_callback_query(query)
    return group.id, query


def secret_calls(fake: FakeTelegram, group_id: int) -> list[str]:
    """Every call that put the secret into a message the whole group can read."""
    return [c.method for c in fake.sent_log
            if c.method in ("sendMessage", "editMessageText")
            and str(c.params.get("chat_id")) == str(group_id) and SECRET in str(c.params)
            and "ephemeral_message_parameters" not in c.params]


async def test_the_secret_reaches_its_reader_alone(
    setup: tuple[FakeTelegram, Bot]
) -> None:
    fake, bot = setup
    group_id, query = await tap_board(fake, bot)
    channel = Ephemeral()
    ref = await channel.open(bot, chat_id=group_id, topic_id=None, user_id=101,
                             query_id=query, placeholder="🃏 …", text=SECRET, markup=KEYS,
                             in_place=True)
    assert ref is not None and channel.supported is True
    (shown,) = fake.ephemeral.of(group_id, 101)
    assert shown.text == SECRET and shown.callback_data == ["p:9H"]
    assert fake.ephemeral.of(group_id, 102) == []
    assert [m.text for m in fake.messages(group_id)] == ["board"]
    # the secret went out by edit only, never in the first call
    (first,) = [c for c in fake.sent_log if "ephemeral_message_parameters" in c.params]
    assert SECRET not in str(first.params)
    assert await channel.edit(bot, ref, "played", None)
    assert shown.text == "played" and shown.buttons == []
    assert await channel.delete(bot, ref)
    assert fake.ephemeral.of(group_id, 101) == []


async def test_an_older_server_never_sees_the_secret(setup: tuple[FakeTelegram, Bot]) -> None:
    fake, bot = setup
    fake.bot_api = (10, 0)
    group_id, query = await tap_board(fake, bot)
    channel = Ephemeral()
    ref = await channel.open(bot, chat_id=group_id, topic_id=None, user_id=101,
                             query_id=query, placeholder="🃏 …", text=SECRET, markup=KEYS)
    assert ref is None and channel.supported is False
    assert [m.text for m in fake.messages(group_id)] == ["board"]  # the placeholder is gone
    assert secret_calls(fake, group_id) == []
    assert not any(SECRET in str(c.params) for c in fake.sent_log)
    # and it does not try again in this process
    calls = len(fake.sent_log)
    assert await channel.open(bot, chat_id=group_id, topic_id=None, user_id=101,
                              query_id=query, placeholder="🃏 …", text=SECRET,
                              markup=KEYS) is None
    assert len(fake.sent_log) == calls


async def test_a_late_answer_falls_back_quietly(setup: tuple[FakeTelegram, Bot]) -> None:
    fake, bot = setup
    group_id, query = await tap_board(fake, bot)
    fake.callback_queries[query].created -= 60  # Telegram's 15 s are long gone
    channel = Ephemeral()
    assert await channel.open(bot, chat_id=group_id, topic_id=None, user_id=101,
                              query_id=query, placeholder="🃏 …", text=SECRET,
                              markup=KEYS) is None
    assert channel.supported is None  # nothing learned about the server
    assert fake.ephemeral.of(group_id, 101) == [] and secret_calls(fake, group_id) == []
