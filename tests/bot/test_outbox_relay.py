"""The way out of a move: every message exactly once, as soon as it can be sent, whatever
Telegram or the network does (the fake Bot API injects 5xx, timeouts, 429 and 403)."""

from __future__ import annotations

import asyncio
import collections
import time
from datetime import timedelta
from typing import Any

import pytest
from telegram.ext import Application

from kolkhoz_tg.bot.app import DEPS_KEY, Deps, shutdown, startup
from kolkhoz_tg.bot.callbacks import Callback, to_base36
from kolkhoz_tg.bot.delivery import Relay
from kolkhoz_tg.service import GameService, Kind
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import (
    action_buttons,
    move_without_the_bot,
    open_game,
    players,
    tap_any_action,
)
from tests.conftest import make_settings
from tests.faketg import FakeTelegram, FakeUser
from tests.helpers import until

App = Application[Any, Any, Any, Any, Any, Any]


def relay(app: App) -> Relay:
    deps: Deps = app.bot_data[DEPS_KEY]
    return deps.relay


async def opened_then_stopped(
    fake: FakeTelegram, service: GameService, users: list[FakeUser], titles: list[str]
) -> list[int]:
    """A game in a new group per title, opened with a bot that then stops."""
    first = make_app(fake, service)
    async with fake.running(first):
        games = [await open_game(fake, users, fake.create_group(t, users)) for t in titles]
    await shutdown(first)  # what run_polling does when it stops
    return games


def buttons_now(service: GameService, game_id: int, users: list[FakeUser]) -> bool:
    """Whether the player whose move it is has move buttons for the game's current version
    in their newest private message."""
    info = service.game_info(game_id)
    waiting = [u for u in users if service.seat_view(game_id, u.id).to_act]
    for user in waiting:
        msg = user.last_message()
        if msg is None:
            return False
        taps = [Callback.decode(b.data) for row in msg.buttons for b in row
                if b.data and b.data.startswith("a:")]
        if not taps or any(t.version != info.version for t in taps):
            return False
    return bool(waiting)


def tapper(users: list[FakeUser]) -> FakeUser | None:
    for user in users:
        if action_buttons(user.last_message()):
            return user
    return None


async def test_a_your_turn_that_failed_is_sent_again_not_marked_delivered(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = players(fake, base=7000)
    group = fake.create_group("Lost turn", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        # Play until the next move belongs to someone else than the tapper, then make
        # every send fail (more often than the transport retries).
        for _ in range(40):
            mover = tapper(users)
            assert mover is not None
            fake.fail("sendMessage", 502, times=50)
            await tap_any_action(users)
            fake.clear_faults()
            pending = service.pending_notifications(1000, game_id=game_id)
            if any(n.kind is Kind.YOUR_TURN for n in pending):
                break
        else:
            pytest.fail("no failed 'your turn' in 40 moves")
        assert not buttons_now(service, game_id, users)
        # The relay leaves it alone until its back-off is over, then sends it.
        await relay(app).drain()
        assert service.pending_notifications(1000, game_id=game_id)
        clock.advance(timedelta(seconds=3))
        await relay(app).drain()
        assert not service.pending_notifications(1000, game_id=game_id)
        assert buttons_now(service, game_id, users)
    fake.assert_all_callbacks_answered()


async def test_fresh_hands_that_failed_are_sent_again(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """The start deals everyone a hand; every private message fails (more often than the
    transport retries). Not only the first to act: each player gets their hand from the
    relay once the back-off is over."""
    users = players(fake, base=7700)
    group = fake.create_group("Lost hands", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(
            fake, users, group, before_start=lambda: fake.fail("sendMessage", 502, times=200))
        fake.clear_faults()
        owed = service.pending_notifications(1000, game_id=game_id)
        assert {n.user_id for n in owed if n.kind is Kind.NEW_HAND}
        clock.advance(timedelta(seconds=3))
        await relay(app).drain()
        assert not service.pending_notifications(1000, game_id=game_id)
        for user in users:
            last = user.last_message()
            assert last is not None and last.text is not None
            assert '"Lost hands"' in last.text and "Your cards:" in last.text, last.text
    fake.assert_all_callbacks_answered()


async def test_5xx_and_timeouts_everywhere_lose_no_turn_and_answer_each_tap_once(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = players(fake, base=7100)
    group = fake.create_group("Stormy", users)
    app = make_app(fake, service)
    checks = without = 0
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        # (Timeouts after the call took effect only: the answer to a tap is then never
        # made again, since Telegram refuses a second one.)
        fake.fault_rate(0.08, kinds=("502", "503", "timeout_after"), seed=3)
        for _ in range(120):
            if not await tap_any_action(users):
                # Nobody has a button: only the relay can help (after the back-off).
                clock.advance(timedelta(minutes=15))
                await relay(app).drain()
                if not await tap_any_action(users):
                    break
            checks += 1
            clock.advance(timedelta(seconds=20))
            await relay(app).drain()
            without += not buttons_now(service, game_id, users)
        fake.fault_rate(0)
        clock.advance(timedelta(minutes=15))
        await relay(app).drain()
        assert buttons_now(service, game_id, users) or (
            service.game_info(game_id).status == "finished")
    assert fake.faults(), "the run injected no fault"
    assert checks > 50
    # A send that timed out after taking effect is the one case where the relay may leave
    # the player a message without fresh buttons until the next move; nothing else may.
    assert without <= checks * 0.05, (without, checks)
    assert not service.pending_notifications(1000)
    fake.assert_all_callbacks_answered()
    fake.assert_no_app_errors()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_two_relays_never_send_the_same_message_twice(
    fake: FakeTelegram, clock: FakeClock, backend: str, request: pytest.FixtureRequest,
    tmp_path: Any,
) -> None:
    url = (request.getfixturevalue("pg_url") if backend == "postgres"
           else f"sqlite:///{tmp_path / 'two.sqlite3'}")
    db = Database(url)
    service = GameService(db, clock=clock, settings=make_settings(database_url=url))
    users = players(fake, base=7200)
    games = await opened_then_stopped(fake, service, users, ["Twin 1", "Twin 2", "Twin 3"])
    for game_id in games:
        move_without_the_bot(service, game_id, users, moves=3)
    backlog = service.pending_notifications(1000)
    assert len(backlog) >= 9
    before = len(fake.calls("sendMessage", ok=True))
    a, b = make_app(fake, service), make_app(fake, service)
    try:
        async with fake.running(a), fake.running(b):
            await asyncio.gather(relay(a).drain(), relay(b).drain())
    finally:
        await shutdown(a)
        await shutdown(b)
    assert not service.pending_notifications(1000)
    sends = fake.calls("sendMessage", ok=True)[before:]
    per_text = collections.Counter((c.params["chat_id"], c.params["text"]) for c in sends)
    assert sends and max(per_text.values()) == 1, per_text.most_common(3)
    db.dispose()


async def test_start_up_serves_a_tap_at_once_and_drains_the_backlog_behind(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=7300)
    games = await opened_then_stopped(fake, service, users, [f"Backlog {i}" for i in range(4)])
    for game_id in games[1:]:
        move_without_the_bot(service, game_id, users)
    owed = service.outbox_backlog()
    assert owed > 0
    app = make_app(fake, service)
    async with fake.running(app):
        began = time.perf_counter()
        await startup(app)
        # start-up did not deliver the backlog itself: the relay does, in the background
        assert service.outbox_backlog() > 0 or time.perf_counter() - began < 1
        mover = next(u for u in users if service.seat_view(games[0], u.id).to_act)
        msg = next(m for m in reversed(fake.bot_messages(mover.id))
                   if any(b.data and b.data.startswith(f"a:{to_base36(games[0])}:")
                          for row in m.buttons for b in row))
        await mover.tap(msg, action_buttons(msg)[0])
        assert fake.callback_queries and all(q.answered for q in fake.callback_queries.values())
        await relay(app).drain()
        assert service.outbox_backlog() == 0
    await shutdown(app)


async def test_a_card_costs_one_group_call_and_four_private_ones(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=7400)
    group = fake.create_group("Thrifty", users)
    app = make_app(fake, service)
    costs: list[collections.Counter[str]] = []
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        for _ in range(60):
            mover = tapper(users)
            if mover is None:
                break
            view = service.seat_view(game_id, mover.id).view.to_dict()
            before = len(fake.sent_log)
            moves = len(service.action_log(game_id))
            year_before = view["year"]
            await tap_any_action(users)
            after = service.board(game_id).view.to_dict()
            assert after is not None
            made = service.action_log(game_id)[moves:]
            calls = [c for c in fake.sent_log[before:] if c.method != "getUpdates"]
            # a normal turn: a card into a trick that goes on, in the same year, and no card
            # played for someone as their only one (their message says so: one edit more)
            if (view["phase"] == "play" and after["phase"] == "play" and after["trick"]
                    and after["year"] == year_before and len(made) == 1):
                costs.append(calls)
    assert len(costs) >= 10
    worst = max(costs, key=len)
    # The answer to the tap, the tapper's message, the next player's new message and the
    # buttons taken off their old one: all private; and one edit of the board.
    assert len(worst) <= 5, collections.Counter(c.method for c in worst)
    for calls in costs:
        methods = collections.Counter(c.method for c in calls)
        in_group = [c for c in calls if str(c.params.get("chat_id")) == str(group.id)]
        assert len(in_group) <= 1 and methods["sendMessage"] <= 1, methods
        assert not methods["deleteMessage"], methods


@pytest.mark.parametrize("how", ["tap", "typed"])
async def test_a_database_locked_by_another_process_holds_no_move(
    fake: FakeTelegram, service: GameService, sqlite_url: str, how: str
) -> None:
    """A move (a tap, or ``/play`` typed) while another process holds SQLite's write lock
    (say, an operator's backup): the tap is answered at once, the player is told once that
    the move waits (after SQLite's short busy timeout, not after the lock is gone), and the
    move is made once the lock is gone; no "try again"."""
    import sqlite3

    from kolkhoz_tg.bot import context as bot_context

    users = players(fake, base=7500 if how == "tap" else 7600)
    group = fake.create_group("Locked", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        version = service.game_info(game_id).version
        mover = tapper(users)
        assert mover is not None
        msg = mover.last_message()
        assert msg is not None

        def told() -> list[str]:
            return [m.text or "" for m in mover.private_messages() if "moment" in (m.text or "")]

        other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        saved = bot_context.LATER
        bot_context.LATER = (0.2,) * 40
        try:
            before = len(fake.calls())
            if how == "tap":
                await mover.tap(msg, action_buttons(msg)[0], wait=False)
                await until(lambda: list(fake.callback_queries.values())[-1].answered)
                assert list(fake.callback_queries.values())[-1].answered
            else:
                action = service.seat_view(game_id, mover.id).legal[0]
                typed = "/" + action.replace(":", " ").replace(">", " ").replace("<", " ")
                await mover.send(mover, typed, wait=False)
            # Told while the lock is still held: after the busy timeout, not once it is gone.
            await until(lambda: bool(told()))
            assert service.game_info(game_id).version == version
            if how == "tap":
                # ... and the tap was answered before that, not after the busy timeout.
                calls = [(c.method.lower(), str(c.params)) for c in fake.calls()[before:]]
                told_at = next(i for i, (method, params) in enumerate(calls)
                               if method == "sendmessage" and "moment" in params)
                assert "answercallbackquery" in [method for method, _ in calls[:told_at]]
            other.execute("ROLLBACK")
            await until(lambda: service.game_info(game_id).version > version)
            await fake.wait_idle()
        finally:
            bot_context.LATER = saved
            other.close()
        assert len(told()) == 1
        assert service.game_info(game_id).version > version
        assert buttons_now(service, game_id, users)
        assert not any("again" in (m.text or "") for m in mover.private_messages())
    fake.assert_all_callbacks_answered()


async def test_a_database_locked_while_a_move_is_delivered_sends_nothing_twice(
    fake: FakeTelegram, service: GameService, sqlite_url: str, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The move is stored, its messages go out, and only then does another process take
    SQLite's write lock (a backup, an operator's command): recording what went out meets a
    busy database. It is recorded a moment later in the background: the tap is answered
    once (the error handler never answers it again), and nothing is sent twice when the
    claims would have lapsed."""
    import sqlite3
    import threading

    users = players(fake, base=7700)
    group = fake.create_group("Locked later", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        version = service.game_info(game_id).version
        mover = tapper(users)
        assert mover is not None
        msg = mover.last_message()
        assert msg is not None
        other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None,
                                check_same_thread=False)
        settle = service.settle_notifications
        busy: list[bool] = []

        def settle_when_locked(*args: Any, **kwargs: Any) -> None:
            if not busy:  # the first settle after the move: the database is taken now
                busy.append(True)
                other.execute("BEGIN IMMEDIATE")
                threading.Timer(2.5, lambda: other.execute("ROLLBACK")).start()
            settle(*args, **kwargs)

        monkeypatch.setattr(service, "settle_notifications", settle_when_locked)
        try:
            await mover.tap(msg, action_buttons(msg)[0])
            await fake.wait_idle()
        finally:
            await asyncio.sleep(3)  # (the timer has let go)
            other.close()
        assert busy and service.game_info(game_id).version > version
        assert service.outbox_backlog() == 0
        sent = [(c.method, str(c.params.get("chat_id"))) for c in fake.sent_log
                if c.method in ("sendMessage", "sendPhoto") and c.ok]
        # Long after any claim would have lapsed, the relay finds nothing to send again.
        clock.advance(timedelta(minutes=10))
        await relay(app).drain()
        await fake.wait_idle()
        again = [(c.method, str(c.params.get("chat_id"))) for c in fake.sent_log
                 if c.method in ("sendMessage", "sendPhoto") and c.ok]
        assert again == sent
        assert buttons_now(service, game_id, users)
    fake.assert_all_callbacks_answered()


async def test_a_hand_picture_that_cannot_be_sent_answers_the_tap_once(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=7800)
    group = fake.create_group("No picture", users)
    async with fake.running(make_app(fake, service)):
        await open_game(fake, users, group)
        user = users[0]
        msg = user.last_message()
        assert msg is not None
        picture = next(b.data for row in msg.buttons for b in row
                       if b.data and b.data.endswith(":hand"))
        assert picture is not None
        fake.fail("sendPhoto", status=400, description="Bad Request: IMAGE_PROCESS_FAILED")
        await user.tap(msg, picture)
        assert "could not be drawn" in (user.last_message().text or "")  # type: ignore[union-attr]
        assert list(fake.answers_per_callback().values())[-1] == 1
    fake.assert_all_callbacks_answered()


async def test_a_handler_that_fails_after_answering_a_tap_does_not_answer_it_again(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The error handler answers a tap a failing handler left unanswered, and only such a
    tap: Telegram takes one answer."""
    users = players(fake, base=7900)
    group = fake.create_group("Failing", users)
    app = make_app(fake, service)
    async with fake.running(app, expected_errors=(RuntimeError,)):
        await open_game(fake, users, group)
        mover = tapper(users)
        assert mover is not None
        msg = mover.last_message()
        assert msg is not None
        deliverer = app.bot_data[DEPS_KEY].deliverer

        async def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("a bug after the answer")

        monkeypatch.setattr(deliverer, "deliver", broken)
        await mover.tap(msg, action_buttons(msg)[0])  # answered early, then the bug
        assert len(fake.app_errors) == 1
        # A bug before any answer: the error handler answers the tap.
        lobby_group = fake.create_group("Failing lobby", users)
        await users[0].send(lobby_group, "/newgame")
        lobby = fake.last_message(lobby_group)
        assert lobby is not None
        monkeypatch.setattr(service, "join", lambda *a, **k: (_ for _ in ()).throw(
            RuntimeError("a bug before the answer")))
        answer = await users[1].tap(lobby, "Join")
        assert answer is not None and answer.text is None
        assert len(fake.app_errors) == 2
        fake.app_errors.clear()
    assert set(fake.answers_per_callback().values()) == {1}
    fake.assert_all_callbacks_answered()


async def test_a_game_whose_messages_always_fail_holds_up_no_other(
    fake: FakeTelegram, service: GameService, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    """A bug that one game's messages meet every time (here: they cannot be planned) is
    logged; they go back to the outbox with its back-off, while the other games of the same
    batch are delivered; once they have failed long enough they are given up."""
    from kolkhoz_tg.bot import plan as planning
    from kolkhoz_tg.service.outbox import GIVE_UP_AFTER

    users = players(fake, base=7600)
    broken, fine = await opened_then_stopped(fake, service, users, ["Broken", "Fine"])
    for game_id in (broken, fine):
        move_without_the_bot(service, game_id, users, moves=2)
    plan = planning.plan

    def failing(notes: list[Any], scene: Any, *args: Any, **kwargs: Any) -> Any:
        if scene.game.id == broken:
            raise KeyError("theme")  # say, data written by another version
        return plan(notes, scene, *args, **kwargs)

    monkeypatch.setattr(planning, "plan", failing)
    app = make_app(fake, service)
    try:
        async with fake.running(app):
            await relay(app).drain()
            owed = {n.game_id for n in service.pending_notifications(1000)}
            assert owed == {broken}  # back with a back-off, not due now
            assert any("could not be delivered" in r.getMessage() for r in caplog.records)
            clock.advance(GIVE_UP_AFTER + timedelta(minutes=10))
            await relay(app).drain()
            assert not service.pending_notifications(1000)
    finally:
        await shutdown(app)
