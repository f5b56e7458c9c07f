"""The private game message as a phone shows it: the jobs next to the hand, assignment
buttons that say what they do and fit two a row, the trump Jack, Queen and King marked and
explained, and deadlines on the reader's clock, kept fresh by the reminders."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

import pytest

from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import BUTTON_WIDTH, TRUMP_MARKS
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import NAMES, action_buttons, open_game, players, tap_any_action
from tests.faketg import FakeTelegram

JOBS_LINE = re.compile(r"^♥ (\d+/\d+|✅).* · ♦ .* · ♣ .* · ♠ ", re.M)


async def test_a_whole_game_of_private_messages_phone_sized_and_telling(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(7700 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Phones", users)
    assign_labels: list[str] = []
    rows: list[int] = []
    jobs_lines = hints = marks = 0
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        taps = 0
        while True:
            for u in users:
                msg = u.last_message()
                if msg is None or not action_buttons(msg):
                    continue
                text = msg.text or ""
                jobs_lines += bool(JOBS_LINE.search(text))
                hints += any(line.startswith(tuple(TRUMP_MARKS.values()))
                             for line in text.splitlines())
                labels = [b.text for row in msg.buttons for b in row]
                marks += any(m in label for label in labels for m in TRUMP_MARKS.values())
                if "Where does" in text:
                    moves = [row for row in msg.buttons if any("→" in b.text or "✅" in b.text
                                                               for b in row)]
                    assign_labels += [b.text for row in moves for b in row]
                    rows += [len(row) for row in moves]
            if not await tap_any_action(users):
                break
            taps += 1
            assert taps < 400
        assert service.game_info(game_id).status == "finished"
    assert assign_labels, "no assignment was shown"
    widest = max(assign_labels, key=len)
    assert len(widest) <= BUTTON_WIDTH, widest
    assert max(rows) <= 3
    assert all(re.search(r"\d+→\d+|✅", label) for label in assign_labels)
    # a completing card says so, with the rewards the Brigadier then takes
    assert any(re.search(r"\d+→\d+ ✅\+", label) for label in assign_labels), assign_labels
    assert any(re.match(r"^[♥♦♣♠] \w+ ", label) for label in assign_labels)  # names fit
    assert jobs_lines > 20
    assert marks and hints  # the trump Jack, Queen or King was dealt to someone


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_deadlines_on_the_readers_clock_and_refreshed_by_reminders(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    """Players with a time zone see the deadline on their clock next to the relative time;
    the board does too when every seated player set a zone and all read the same clock
    (Moscow and UTC+3 do). A reminder rewrites both, so "in 24 hours" does not stay on the
    board for a day."""
    tr = translator(lang)
    users = players(fake, lang, base=7800 if lang == "en" else 7850)
    group = fake.create_group("Clocks", users)
    async with fake.running(make_app(fake, service)):
        for u in users:
            service.ensure_user(u.id, u.first_name, lang)
            # 09:00 UTC is 12:00 in Moscow, and at UTC+3 ("/settings tz +3").
            service.set_time_zone(u.id, "Etc/GMT-3" if u is users[3] else "Europe/Moscow")
        game_id = await open_game(fake, users, group)
        board_id = service.game_info(game_id).meta["board"]
        board = fake.message(group, board_id)
        noon = tr.gettext("tomorrow at {time}", time="12:00")
        in_24 = tr.relative(clock.now() + timedelta(hours=24), clock.now())
        ends = tr.gettext("(ends {time}, {left})", time=noon, left=in_24)
        assert ends in (board.text or ""), board.text
        mover = next(u for u in users if action_buttons(u.last_message()))
        private = mover.last_message()
        assert private is not None
        runs_out = tr.gettext("Time runs out {time} ({when}).", time=noon, when=in_24)
        assert runs_out in (private.text or ""), private.text
        # Half the time later the reminder goes out and both say "in 12 hours" (or 11).
        clock.advance(timedelta(hours=12, minutes=1))
        notes = (await asyncio.to_thread(service.process_due, game_id)).notifications
        assert any(n.kind.value == "reminder" for n in notes)
        app_deliverer = fake._apps[0].bot_data["kolkhoz"].deliverer
        await app_deliverer.deliver(notes)
        await fake.wait_idle()
        deadline = service.game_info(game_id).deadline
        assert deadline is not None
        left = tr.relative(deadline, clock.now())
        assert left != in_24
        noon = tr.gettext("at {time}", time="12:00")  # (past midnight in Moscow now)
        board = fake.message(group, board_id)
        assert tr.gettext("(ends {time}, {left})", time=noon, left=left) in (board.text or ""), (
            board.text)
        private = fake.message(mover, private.message_id)
        assert tr.gettext("Time runs out {time} ({when}).", time=noon, when=left) in (
            private.text or ""), private.text
        assert in_24 not in (private.text or "")
        # Another zone at the table: the board keeps to relative times.
        service.set_time_zone(users[2].id, "Asia/Tokyo")
        await app_deliverer.refresh_board(game_id)
        text = fake.message(group, board_id).text or ""
        assert tr.gettext("({left})", left=left) in text and "12:00" not in text, text
