"""What a real group met on its first games, each fixed and kept fixed: tricks missing from
the board, private messages with buttons the game had moved past, a stand-in that could not
be sent away, buttons broken by someone else's /back or /pause, the end of the game
unreadable, English card letters in Russian."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, open_game, players, tap_any_action
from tests.faketg import FakeChat, FakeTelegram, FakeUser


def every_group_text(fake: FakeTelegram, group: FakeChat) -> list[str]:
    """Every text the group was ever shown: each message and each of its earlier edits."""
    out = []
    for m in fake.messages(group):
        out.extend(text or "" for text, _entities, _markup in m.history)
        out.append(m.text or "")
    return out


def stale_buttons(fake: FakeTelegram, service: GameService, game_id: int,
                  users: list[FakeUser]) -> list[str]:
    """Move buttons in private chats that no longer make a move: made at another version
    of the game, for a player not to act, or in a game that is not running."""
    info = service.game_info(game_id)
    problems = []
    for u in users:
        sv = service.seat_view(game_id, u.id)
        for m in fake.messages(u):
            for data in action_buttons(m):
                cb = Callback.decode(data)
                if cb.game_id != game_id:
                    continue
                if info.status != "active" or not sv.to_act or cb.payload not in sv.legal:
                    problems.append(f"{u.first_name} ({info.status}): {data}")
    return problems


def template_parts(tr: Translator, msgid: str, *fields: str) -> list[str]:
    """A catalog message cut at its fields, in the order given: the words around them
    (``"Last trick ({number}): …"`` → ``["Last trick (", "): ", …]``)."""
    text = tr.gettext(msgid, **{f: "\x00" for f in fields})
    return text.split("\x00")


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_board_shows_every_trick_and_the_final_board_reads_well(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    users = players(fake, lang, base=2000 if lang == "en" else 2050)
    group = fake.create_group("Every trick", users)
    tr = translator(lang)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        taps = 0
        while await tap_any_action(users):
            taps += 1
            assert taps < 500
            assert not stale_buttons(fake, service, game_id, users)
        info = service.game_info(game_id)
        assert info.status == "finished"
        shown = every_group_text(fake, group)
        lines = [line for text in shown for line in text.splitlines()]
        years = 0
        moves = [m.to_json() for m in service.history(game_id)]
        tricks = [e for m in moves for e in m["events"] if e["type"] in ("TrickWon", "YearEnded")]
        year_last, won_by, _end = template_parts(
            tr, "The year's last trick: {cards} — won by {name}", "cards", "name")
        for trick, after in itertools.pairwise(tricks):
            if trick["type"] != "TrickWon":
                continue
            winner = info.names[trick["seat"]]
            cards = [present.card(tr, c) for c in trick["cards"]]
            if after["type"] == "YearEnded":
                # The year's last trick is told in the year's summary, every card named:
                # everyone saw them on the table, though the new deal may have put one in
                # somebody's hand since.
                years += 1
                assert any(line.startswith(year_last) and line.endswith(won_by + winner)
                           and all(c in line for c in cards) and "?" not in line
                           for line in lines), (trick, cards)
                continue
            assert any(all(c in line for c in cards) and winner in line for line in lines), (
                trick, cards)
        assert years >= 4
        # The final board: no planner of a year that never comes, no unknown cards, the
        # winner named; /score and /last still answer.
        board = fake.message(group, info.meta["board"]).text or ""
        assert tr.gettext("Kolkhoz · the five-year plan is over") in board, board
        assert tr.gettext("Planner: {name}", name="") not in board
        assert "? ? ?" not in board and "🏆" in board
        # The last trick still says where each of its cards went (the jobs were cleared).
        last_head = template_parts(tr, "Last trick ({number}): {cards} — won by {name}",
                                   "number", "cards", "name")[0]
        (last_trick,) = [line for line in board.splitlines() if line.startswith(last_head)]
        assert last_trick.count("→") == 4, last_trick
        await users[1].send(group, "/score")
        score = fake.last_message(group)
        assert score is not None and tr.gettext("Final score:") in (score.text or "")
        await users[1].send(group, "/last")
        last_reply = fake.last_message(group)
        assert last_reply is not None
        assert (last_reply.text or "").startswith(
            tr.gettext("Last trick: {cards}", cards="")), last_reply.text
        # Nobody's private message still offers a move, or a card at all: each superseded
        # message lost its buttons when the next one came, the last one at the end.
        assert not stale_buttons(fake, service, game_id, users)
        for u in users:
            offering = [m.text for m in fake.messages(u) if any(
                b.data and b.data[:2] in ("a:", "x:") for row in m.buttons for b in row)]
            assert not offering, (u.first_name, offering)
        # Each player's own message ends with their place, points and rating change.
        scores = info.result.scores  # type: ignore[union-attr]
        over = tr.gettext("The five-year plan is over.")
        rating = template_parts(tr, "Your rating here: {before} → {after} ({change}).",
                                "before", "after", "change")
        for u in users:
            seat = info.seat_of(u.id)
            assert seat is not None
            place = 1 + sum(1 for x in scores if x > scores[seat])
            last = [m.text or "" for m in fake.messages(u) if over in (m.text or "")]
            assert last, [m.text for m in fake.messages(u)][-2:]
            assert "📋 " + tr.ngettext("Your place: {place} of {players}, {n} point.",
                                      "Your place: {place} of {players}, {n} points.",
                                      scores[seat], place=place, players=4) in last[-1]
            assert "📈 " + rating[0] + "1000" + rating[1] in last[-1], last[-1]
        if lang == "en":  # English text never uses «guillemets»
            private = [m.text or "" for u in users for m in fake.messages(u)]
            assert not [t for t in shown + private if "«" in t or "»" in t]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_no_private_message_keeps_buttons_after_a_forced_move_or_a_pause(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    users = players(fake, lang, base=2100 if lang == "en" else 2150)
    group = fake.create_group("No stale", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        for _ in range(5):
            assert await tap_any_action(users)
        # A deadline passes: the move is made for the silent player, whose message had the
        # buttons for it.
        clock.advance(timedelta(days=2))
        result = await asyncio.to_thread(service.sweep)
        await app.bot_data[DEPS_KEY].deliverer.deliver(result.notifications)
        assert not stale_buttons(fake, service, game_id, users)
        # The creator pauses: every private message says so and offers no move.
        await users[0].send(group, "/pause")
        assert service.game_info(game_id).status == "paused"
        assert not stale_buttons(fake, service, game_id, users)
        paused = [u.last_message() for u in users]
        said = translator(lang).gettext("The game is paused; the clock has stopped.")
        assert any(said in (m.text or "") for m in paused if m is not None), paused
        await users[0].send(group, "/resume")
        assert service.game_info(game_id).status == "active"
        assert await tap_any_action(users)
        # Called off: nothing left to tap.
        await users[0].send(group, "/abort")
        confirm = fake.last_message(group)
        if confirm is not None and confirm.buttons:  # a confirmation, when asked for
            await users[0].tap(confirm, confirm.buttons[0][0].text)
        assert service.game_info(game_id).status == "aborted"
        assert not stale_buttons(fake, service, game_id, users)


async def test_someone_elses_back_or_pause_does_not_break_the_current_buttons(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=2200)
    group = fake.create_group("Not stale", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        for _ in range(3):
            assert await tap_any_action(users)
        mover = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        other = next(u for u in users if u is not mover)
        msg = mover.last_message()
        assert msg is not None and action_buttons(msg)
        # The tap is on its way while the others do things that change no one's choices:
        # a kick of another seat (its bot has nothing to play yet), that player's /back,
        # a pause and a resume.
        data = action_buttons(msg)[0]
        before = service.game_info(game_id).version
        seat = service.game_info(game_id).seat_of(other.id)
        assert seat is not None
        result = await asyncio.to_thread(service.stand_in, game_id, seat)
        await app.bot_data[DEPS_KEY].deliverer.deliver(result.notifications)
        await other.send(group, "/back")
        await users[0].send(group, "/pause")
        await users[0].send(group, "/resume")
        assert service.game_info(game_id).version > before
        log = service.action_log(game_id)
        answer = await mover.tap(msg, data, force=True)
        assert answer is not None and not answer.show_alert, answer
        assert len(service.action_log(game_id)) > len(log)
        assert service.action_log(game_id)[len(log)]["user_id"] == mover.id


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_any_tap_takes_the_seat_back_from_a_stand_in(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    users = players(fake, lang, base=2300 if lang == "en" else 2350)
    group = fake.create_group("Stand-in", users)
    tr = translator(lang)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        sleeper = users[2]
        seat = service.game_info(game_id).seat_of(sleeper.id)
        assert seat is not None
        # A kick by the creator, as /kick does.
        result = await asyncio.to_thread(service.stand_in, game_id, seat)
        await app.bot_data[DEPS_KEY].deliverer.deliver(result.notifications)
        assert service.game_info(game_id).seats[seat].standin
        # They are told in the second person, and their game message has the button.
        told = [m.text or "" for m in fake.messages(sleeper)]
        said = tr.gettext("A bot plays for you from now on. To take your seat back, tap any "
                          "button of your game message or send /back.")
        assert any(said in t for t in told), told[-3:]
        game_msgs = [m for m in fake.messages(sleeper) if m.buttons]
        msg = game_msgs[-1]
        assert any(b.data and b.data.endswith(":back") and tr.gettext("I am back") in b.text
                   for row in msg.buttons for b in row), msg.buttons
        # A tap on any button of it gives the seat back.
        board_button = next(b.text for row in msg.buttons for b in row
                            if b.data and b.data.endswith(":board"))
        await sleeper.tap(msg, board_button)
        assert not service.game_info(game_id).seats[seat].standin
