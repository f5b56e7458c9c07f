"""Deadlines in the group through the real application on the fake Telegram: a clock time
only when every seated player set the same time zone, never one player's clock unlabelled
for all."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

import pytest

from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.faketg import FakeTelegram, FakeUser, StoredMessage

CLOCK_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
#: How the group reads the time left: 24 hours at the start, 12 at the half-time reminder.
IN_HOURS = {"en": ("in 24 hours", "in 12 hours"), "ru": ("через 24 часа", "через 12 часов")}


async def tap_op(user: FakeUser, fake: FakeTelegram, message: StoredMessage, op: str) -> None:
    """Tap the button of ``message`` (as it is now) whose callback data ends in ``:op``."""
    now = fake.message(message.chat_id, message.message_id)
    data = [b.data for row in now.buttons for b in row if b.data and b.data.endswith(":" + op)]
    assert data, f"no {op} button on {now.button_texts}"
    await user.tap(now, data[0])


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_one_players_zone_is_not_the_groups_clock(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    """Anna set Vladivostok (09:00 UTC is 19:00 there), Boris nothing: the board and the
    reminder in the group give the time left, no bare "19:00" that Boris would read as his
    own clock. Once Boris sets Vladivostok too, the board shows the clock time."""
    base = 9100 if lang == "en" else 9200
    anna = fake.user(base, "Anna", language_code=lang)
    boris = fake.user(base + 1, "Boris", language_code=lang)
    group = fake.create_group("Far East", [anna, boris])
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        await boris.start_bot()
        await anna.send(None, "/settings tz Vladivostok")
        answer = anna.last_message()
        assert answer is not None and "Asia/Vladivostok" in (answer.text or "")
        await anna.send(group, "/newgame 3")
        lobby = fake.last_message(group)
        assert lobby is not None
        await tap_op(boris, fake, lobby, "join")
        await tap_op(anna, fake, lobby, "bot")
        await tap_op(anna, fake, lobby, "bot.normal")
        await tap_op(anna, fake, lobby, "start")
        game_id = service.games_in_chat(group.id)[0].id
        info = service.game_info(game_id)
        assert info.status == "active" and info.deadline is not None
        board_id = info.meta["board"]
        seen = len(fake.messages(group))

        def board() -> str:
            return fake.message(group, board_id).text or ""

        start, half = IN_HOURS[lang]
        assert start in board(), board()
        assert not CLOCK_TIME.search(board()), board()
        # Half the time later the reminder goes out: still no clock time in the group.
        clock.advance(timedelta(hours=12, seconds=1))
        notes = (await asyncio.to_thread(service.process_due, game_id)).notifications
        assert any(n.kind.value == "reminder" for n in notes)
        deliverer = app.bot_data[DEPS_KEY].deliverer
        await deliverer.deliver(notes)
        await fake.wait_idle()
        assert half in board(), board()
        for text in [board()] + [m.text or "" for m in fake.messages(group)[seen:]]:
            assert not CLOCK_TIME.search(text), text
        # Both in Vladivostok (07:00 there now): the group may read its clock.
        await boris.send(None, "/settings tz Владивосток")
        await deliverer.refresh_board(game_id)
        await fake.wait_idle()
        assert "19:00" in board() and half in board(), board()
