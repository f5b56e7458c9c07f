"""A 90-second turn through the real application on the fake Telegram: the lobby says 90
seconds (not "2 minutes"), and the half-time reminder says 45 seconds are left (not "now")."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons
from tests.bot.test_time_zones import tap_op
from tests.faketg import FakeTelegram

WORDS = {
    "en": {"limit": "turn: 90 seconds", "button": "Turn: 90 seconds",
           "start": "in 90 seconds", "half": "in 45 seconds",
           "wrong": ("2 minutes", "out now", "(now)")},
    "ru": {"limit": "на ход: 90 секунд", "button": "На ход: 90 секунд",
           "start": "через 90 секунд", "half": "через 45 секунд",
           "wrong": ("2 минуты", "истекает сейчас", "(сейчас)")},
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_ninety_second_turn_reads_in_seconds(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    words = WORDS[lang]
    base = 9300 if lang == "en" else 9400
    anna = fake.user(base, "Anna", language_code=lang)
    boris = fake.user(base + 1, "Boris", language_code=lang)
    group = fake.create_group("Blitz", [anna, boris])
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        await boris.start_bot()
        await anna.send(group, "/newgame 3")
        lobby = fake.last_message(group)
        assert lobby is not None
        await anna.send(group, "/settings timeout 90s")
        answer = fake.last_message(group)
        assert answer is not None and words["limit"] in (answer.text or ""), answer.text
        shown = fake.message(group, lobby.message_id)
        assert words["limit"] in (shown.text or ""), shown.text
        assert words["button"] in shown.button_texts, shown.button_texts
        for wrong in words["wrong"]:
            assert wrong not in (shown.text or "")
        await tap_op(boris, fake, lobby, "join")
        await tap_op(anna, fake, lobby, "bot")
        await tap_op(anna, fake, lobby, "bot.normal")
        await tap_op(anna, fake, lobby, "start")
        game_id = service.games_in_chat(group.id)[0].id
        info = service.game_info(game_id)
        assert info.status == "active" and info.turn_timeout == 90
        board_id = info.meta["board"]
        assert words["start"] in (fake.message(group, board_id).text or "")
        mover = next(u for u in (anna, boris) if action_buttons(u.last_message()))
        private = mover.last_message()
        assert private is not None and words["start"] in (private.text or ""), private.text
        seen = len(fake.messages(mover))
        # Half the time later: the reminder says 45 seconds are left, not "now".
        clock.advance(timedelta(seconds=45))
        notes = (await asyncio.to_thread(service.process_due, game_id)).notifications
        assert [n.kind.value for n in notes if n.user_id == mover.id] == ["reminder"]
        await app.bot_data[DEPS_KEY].deliverer.deliver(notes)
        await fake.wait_idle()
        told = [m.text or "" for m in fake.messages(mover)[seen:]]
        told.append(fake.message(mover, private.message_id).text or "")
        told.append(fake.message(group, board_id).text or "")
        assert any(words["half"] in text for text in told), told
        for text in told:
            for wrong in words["wrong"]:
                assert wrong not in text, text
