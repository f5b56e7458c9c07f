"""What new players met in their first games (issue: Telegram's pace), through the real
application on the fake Telegram: the pinned board that froze after /board, a forced card
played in silence, the tapper's own message waiting behind the group's budget."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest

from kolkhoz_tg import texts
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.pace import URGENT
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app, quick_pace
from tests.bot.driver import (
    action_buttons,
    open_game,
    players,
    start_with_bots,
    tap_any_action,
    until,
)
from tests.bot.test_rough_edges import every_group_text
from tests.faketg import FakeTelegram


def board_text(fake: FakeTelegram, group: object, service: GameService, game_id: int) -> str:
    board = fake.message(group, service.game_info(game_id).meta["board"])  # type: ignore[arg-type]
    return board.text or ""


async def test_board_sent_anew_while_a_move_is_delivered_stays_the_live_pinned_one(
    fake: FakeTelegram, service: GameService
) -> None:
    """A move's delivery prepared before /board sent the board anew (its scene names the old
    message, now deleted): the move is shown on the new, pinned board, and no third board
    appears."""
    users = players(fake, base=7000)
    group = fake.create_group("Pinned", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        d = app.bot_data[DEPS_KEY]
        actor = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        sv = service.seat_view(game_id, actor.id)
        move = sv.legal[0]
        result = await asyncio.to_thread(service.act, game_id, actor.id, move,
                                         service.game_info(game_id).version)
        assert result.scene is not None
        # Someone sends /board before the move's messages go out.
        await users[1].send(group, "/board")
        new_board = int(service.game_info(game_id).meta["board"])
        assert group.pinned[0] == new_board
        boards_before = [m for m in fake.messages(group) if "📋" in (m.text or "")
                         or "Trick" in (m.text or "")]
        await d.deliverer.deliver(result.notifications, scene=result.scene)
        await fake.wait_idle()
        assert int(service.game_info(game_id).meta["board"]) == new_board
        assert group.pinned[0] == new_board
        boards_after = [m for m in fake.messages(group) if "📋" in (m.text or "")
                        or "Trick" in (m.text or "")]
        assert len(boards_after) == len(boards_before), "a third board was posted"
        assert fake.message(group, new_board).edits
        # And it goes on following the game.
        text = board_text(fake, group, service, game_id)
        assert await tap_any_action(users)
        assert board_text(fake, group, service, game_id) != text


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_forced_card_is_told_to_its_player_and_on_the_board(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    base = 7100 if lang == "en" else 7200
    users = players(fake, lang, base=base)
    group = fake.create_group("Forced", users)
    private = ("was your only possible card" if lang == "en"
               else "ваша единственная возможная карта")
    public = "(played automatically)" if lang == "en" else "(автоматически)"
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        seen = len(service.action_log(game_id))
        for _ in range(400):
            assert await tap_any_action(users)
            log = service.action_log(game_id)
            forced = [m for m in log[seen:] if m["actor"] == "forced"
                      and m["action"].startswith("play:")]
            seen = len(log)
            if forced:
                break
        else:
            pytest.fail("no forced card in 400 moves")
        info = service.game_info(game_id)
        player = next(u for u in users if info.seat_of(u.id) == forced[-1]["seat"])
        assert any(private in (m.text or "") for m in fake.messages(player)), [
            m.text for m in fake.messages(player)][-2:]
        assert public in board_text(fake, group, service, game_id)


async def test_the_tapper_is_answered_before_the_group_budget_is_spent(
    fake: FakeTelegram, service: GameService
) -> None:
    """With Telegram's pace kept and the group's budget spent, a tap still edits the tapper's
    own message at once: the board edit waits for its slot in the background, and shows
    the newest state when it gets one."""
    users = players(fake, base=7300)
    group = fake.create_group("Budget", users)
    app = make_app(fake, service, rate_limiter=True)
    pace = app.bot_data[DEPS_KEY].deliverer.pace
    assert pace is not None
    pace.window = 3.0  # a window of 3 s, not 60 (a quick test)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        while pace.board_wait(group.id) < 1:  # the group's budget is spent
            await pace.slot(group.id, URGENT)
        actor = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        msg = actor.last_message()
        assert msg is not None and action_buttons(msg)
        started = time.monotonic()
        edits = msg.edits
        await actor.tap(msg, action_buttons(msg)[0], wait=False)
        while fake.message(actor.id, msg.message_id).edits == edits:
            await asyncio.sleep(0.005)
            assert time.monotonic() - started < 0.5, "the tapper's message waited"
        await fake.wait_idle()
        assert "Trick 1" in board_text(fake, group, service, game_id)


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_missed_turns_are_told_once_and_truly(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    """The first miss says what was played and how many more bring a bot (not how to take
    back a seat nobody took); the miss that brings the bot is one message that says how to
    take the seat back, once."""
    users = players(fake, lang, base=7400 if lang == "en" else 7500)
    group = fake.create_group("Sleepy", users)
    back = "/back"
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        d = app.bot_data[DEPS_KEY]
        sleeper = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        seat = service.game_info(game_id).seat_of(sleeper.id)
        assert seat is not None
        others = [u for u in users if u is not sleeper]
        told: list[list[str]] = []
        for _ in range(200):
            if service.game_info(game_id).seats[seat].standin:
                break
            if service.seat_view(game_id, sleeper.id).to_act:
                sent = len(fake.messages(sleeper))
                clock.advance(timedelta(days=1, seconds=1))
                swept = await asyncio.to_thread(service.sweep)
                await d.deliverer.deliver(swept.notifications)
                await fake.wait_idle()
                told.append([m.text or "" for m in fake.messages(sleeper)[sent:]])
            else:
                assert await tap_any_action(others)
        else:
            pytest.fail("no stand-in after 200 moves")
        assert len(told) == 2
        first, second = told
        assert len(first) == 1 and back not in first[0], first
        assert ("1 more missed turn" in first[0]) if lang == "en" else ("1" in first[0])
        assert len(second) == 1 and second[0].count(back) == 1, second


async def test_the_board_shows_the_order_of_play_and_a_called_off_game_waits_for_nobody(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, "ru", base=7600)
    group = fake.create_group("Порядок", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        while service.board(game_id).view["phase"] != "play":  # type: ignore[index]
            assert await tap_any_action(users)
        view = service.board(game_id).view
        assert view is not None
        names = ["Anna", "Boris", "Vera", "Gleb"]  # (players() names them in English)
        lead = view["lead"]
        order = " → ".join(names[(lead + i) % 4] for i in range(4))
        assert "🔄 " + order in board_text(fake, group, service, game_id)
        await users[0].send(group, "/abort")
        confirm = fake.last_message(group)
        assert confirm is not None
        await users[0].tap(confirm, confirm.button_texts[0])
        assert service.game_info(game_id).status == "aborted"
        text = board_text(fake, group, service, game_id)
        assert "Игра отменена" in text or "отмен" in text
        assert "ходит" not in text.lower() and "🔄" not in text, text


async def test_a_game_with_two_bots_at_telegrams_pace_shows_every_trick_and_its_end(
    fake: FakeTelegram, service: GameService
) -> None:
    """Two players and two bots, taps only, the group's budget kept (over a short window):
    every trick is shown in the group (on the board, or in its year's summary when the
    board skipped it), the game ends with the final board, the year's summary and the
    table, and no private message offers a card."""
    humans = players(fake, base=7700)[:2]
    group = fake.create_group("Two bots", humans)
    app = make_app(fake, service, rate_limiter=True)
    quick_pace(app)
    async with fake.running(app):
        d = app.bot_data[DEPS_KEY]
        game_id = await start_with_bots(app, service, humans, group)
        for _ in range(400):
            if not await tap_any_action(humans):
                break
        await d.deliverer.boards_painted()
        await fake.wait_idle()
        final = service.game_info(game_id)
        assert final.status == "finished"
        shown = every_group_text(fake, group)
        lines = [line for text in shown for line in text.splitlines()]
        tr = translator("en")
        moves = service.history(game_id)
        tricks = [e for m in moves for e in m["events"] if e["type"] == "TrickWon"]
        assert len(tricks) >= 12
        for trick in tricks:
            cards = [texts.card(tr, c) for c in trick["cards"]]
            assert any(all(c in line for c in cards) for line in lines), cards
        board = fake.message(group, final.meta["board"]).text or ""
        assert "the five-year plan is over" in board
        posts = [m.text or "" for m in fake.messages(group)]
        assert any("the plan's results" in p for p in posts)
        assert any("The five-year plan is complete" in p for p in posts)
        for u in humans:
            offering = [m.text for m in fake.messages(u) if any(
                b.data and b.data[:2] in ("a:", "x:") for row in m.buttons for b in row)]
            assert not offering



@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_end_of_the_game_is_not_held_behind_a_board_waiting_for_its_slot(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    """The group's budget nearly spent as the last trick is played: the board edit of a
    move before waits for a board's slot; the last move's final board, year summary and
    table come at once (the waiting edit now carries the end and takes the reserve), not
    after that wait."""
    users = players(fake, lang, base=7900 if lang == "en" else 7950)
    group = fake.create_group("The end", users)
    app = make_app(fake, service, rate_limiter=True)
    pace = app.bot_data[DEPS_KEY].deliverer.pace
    assert pace is not None
    quick_pace(app)
    async with fake.running(app):
        d = app.bot_data[DEPS_KEY]
        for u in users:
            await u.start_bot()
        info = service.create_game(group.id, users[0].id, creator_name=users[0].first_name,
                                   options={"years": 1}, seed=5)
        for u in users[1:]:
            service.join(info.id, u.id, u.first_name)
        result = service.start(info.id, users[0].id)
        await d.deliverer.refresh_board(info.id, resend=True, pin=True)
        await d.deliverer.deliver(result.notifications, scene=result.scene)

        def near_the_end() -> bool:
            v = service.scene(info.id).board.view
            return (v["tricks_played"] == v["tricks_total"] - 1
                    and (v["phase"] == "assign" or len(v["trick"]) >= 1))

        while not near_the_end():
            assert await tap_any_action(users)
        await d.deliverer.boards_painted()
        await fake.wait_idle()
        pace.window = 10.0  # Telegram's pace, over 10 s: the budget is nearly spent
        while pace.board_wait(group.id) < 5:
            await pace.slot(group.id, URGENT)
        tr = translator(lang)
        over = tr.gettext("The five-year plan is complete")
        while service.game_info(info.id).status == "active":
            brigadier = next(u for u in users if service.seat_view(info.id, u.id).to_act)
            await until(lambda b=brigadier: bool(action_buttons(b.last_message())))
            msg = brigadier.last_message()
            assert msg is not None
            version = service.game_info(info.id).version
            started = time.monotonic()
            await brigadier.tap(msg, action_buttons(msg)[0], wait=False)
            await until(lambda v=version: service.game_info(info.id).version > v)
        while not any(over in (m.text or "") for m in fake.messages(group)):
            await asyncio.sleep(0.01)
            assert time.monotonic() - started < 2, "the end waited for a board's slot"
        await d.deliverer.boards_painted()
        await fake.wait_idle()
        # The board edit that waited shows the end too (never an older state after it).
        board = board_text(fake, group, service, info.id)
        assert tr.gettext("the five-year plan is over") in board
        assert time.monotonic() - started < 2, "the end waited for a board's slot"
