"""The fake's rich messages as the rich board meets them: an older server (10.0) ignores
``rich_message`` on ``editMessageText`` (so the edit has no text), and a rich board's edit
keeps its buttons and topic."""

from __future__ import annotations

import json

import pytest
from telegram import Bot
from telegram.error import BadRequest

from tests.faketg import FakeTelegram

pytestmark = pytest.mark.filterwarnings("ignore:Please use 'Bot.editMessageText'")

HTML = ("<h3>🌾 Year 1 of 5</h3><table bordered striped compact><tr><th>Job</th></tr>"
        "<tr><td>♥ Wheat 0/40</td></tr></table>")
KEYS = json.dumps({"inline_keyboard": [[{"text": "🃏 My cards", "callback_data": "v"}]]})


async def test_an_older_server_takes_a_rich_edit_for_an_empty_one(
    fake: FakeTelegram, bot: Bot
) -> None:
    group = fake.create_group("Old", [fake.user(301, "Alice")], supergroup=True)
    await bot.do_api_request("sendRichMessage", api_kwargs={
        "chat_id": group.id, "rich_message": json.dumps({"html": HTML}), "reply_markup": KEYS})
    board = fake.messages(group)[-1]
    assert board.buttons and board.buttons[0][0].text == "🃏 My cards"
    edit = {"chat_id": group.id, "message_id": board.message_id, "reply_markup": KEYS,
            "rich_message": json.dumps({"html": HTML.replace("0/40", "5/40")})}
    await bot.do_api_request("editMessageText", api_kwargs=edit)
    assert "5/40" in (board.text or "") and board.buttons
    fake.bot_api = (10, 0)
    with pytest.raises(BadRequest, match=r"(?i)text must be non-empty"):
        await bot.do_api_request("editMessageText", api_kwargs=edit)
    # What the bot does then: the text board, edited into the same message.
    await bot.edit_message_text("🌾 Year 1 of 5", chat_id=group.id,
                                message_id=board.message_id)
    assert board.text == "🌾 Year 1 of 5" and "rich_message" not in board.extra
