"""No penalty for our own faults (issue #31): a turn that could not reach its player (sends
failing for ten minutes) or a bot that was down (thirty minutes) costs nobody their time: no
timeout, no stand-in, no missed deadline; the group is told. A player who simply does not
answer a turn that reached them still times out."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any

import pytest
from telegram.ext import Application

from kolkhoz_tg.bot import uptime
from kolkhoz_tg.bot.app import DEPS_KEY, Deps, shutdown, startup
from kolkhoz_tg.bot.uptime import caught_up
from kolkhoz_tg.scheduler import DeadlineScheduler
from kolkhoz_tg.service import GameService, Kind
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, group_texts, open_game, players
from tests.faketg import FakeChat, FakeTelegram, FakeUser

App = Application[Any, Any, Any, Any, Any, Any]
TURN = 300  # seconds: a five-minute turn

NOTE = {
    "en": "The bot could not reach {name}; their time was extended.",
    "ru": "Из-за сбоя бота игроку {name} продлено время на ход.",
}


def waiting(service: GameService, game_id: int, users: list[FakeUser]) -> list[FakeUser]:
    return [u for u in users if service.seat_view(game_id, u.id).to_act]


def timeouts(service: GameService, game_id: int) -> list[int]:
    """The seats the clock played for, in the order it did."""
    return [a["seat"] for a in service.action_log(game_id) if a["actor"] == "timeout"]


def missed(service: GameService, chat_id: int, user: FakeUser) -> int:
    """The deadlines the chat's statistics count against ``user``."""
    return next((p.timeouts for p in service.chat_stats(chat_id) if p.user_id == user.id), 0)


async def sweep(app: App, service: GameService) -> None:
    """What the scheduler does at a deadline: the service's sweep, delivered."""
    d: Deps = app.bot_data[DEPS_KEY]
    result = await asyncio.to_thread(service.sweep)
    await d.deliverer.deliver(result.notifications, scenes=result.scenes)


async def a_game(
    fake: FakeTelegram, service: GameService, users: list[FakeUser], group: FakeChat,
    lang: str = "en",
) -> int:
    """A game of five-minute turns, started, and a first move made by button: someone
    else must decide now."""
    service.ensure_chat(group.id, group.title, lang)
    service.set_chat_defaults(group.id, turn_timeout=TURN)
    game_id = await open_game(fake, users, group)
    await fake.wait_idle()  # the first turn's message as it ends up, not mid-delivery
    mover = next(u for u in users if action_buttons(u.last_message()))
    msg = mover.last_message()
    assert msg is not None
    await mover.tap(msg, action_buttons(msg)[0])
    return game_id


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_ten_minutes_of_failed_sends_extend_the_deadline_and_bring_no_stand_in(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    users = players(fake, lang, base=31_000)
    group = fake.create_group("Storm", users)
    app = make_app(fake, service)
    async with fake.running(app):
        d: Deps = app.bot_data[DEPS_KEY]
        service.ensure_chat(group.id, group.title, lang)
        service.set_chat_defaults(group.id, turn_timeout=TURN)
        game_id = await open_game(fake, users, group)
        await fake.wait_idle()  # the first turn's message as it ends up, not mid-delivery
        # Every private message fails from now on (more often than the transport retries):
        # the next player's turn cannot reach them.
        mover = next(u for u in users if action_buttons(u.last_message()))
        msg = mover.last_message()
        assert msg is not None
        fake.fail("sendMessage", 502, times=100_000)
        await mover.tap(msg, action_buttons(msg)[0])
        (sleeper,) = waiting(service, game_id, users)
        assert sleeper is not mover
        owed = [n for n in service.pending_notifications(1000, game_id=game_id)
                if n.kind is Kind.YOUR_TURN]
        assert [n.user_id for n in owed] == [sleeper.id]
        version = service.game_info(game_id).version
        # Ten minutes of failures: the relay keeps trying, the deadline (five minutes) passes
        # twice, and the clock plays nothing for the player it could not reach.
        for _ in range(10):
            clock.advance(timedelta(minutes=1))
            await d.relay.drain()
            await sweep(app, service)
        assert timeouts(service, game_id) == []
        assert service.game_info(game_id).version == version
        deadline = service.game_info(game_id).deadline
        assert deadline is not None and deadline > clock.now()
        # Telegram works again: the turn goes out with the relay's next try, and counts
        # from then.
        fake.clear_faults()
        for _ in range(10):
            if sleeper.id not in {n.user_id for n in service.pending_notifications(
                    1000, game_id=game_id) if n.kind is Kind.YOUR_TURN}:
                break
            clock.advance(timedelta(minutes=1))
            await d.relay.drain()
            await sweep(app, service)
        await fake.wait_idle()
        delivered = clock.now()
        assert action_buttons(sleeper.last_message())
        info = service.game_info(game_id)
        assert info.deadline == delivered + timedelta(seconds=TURN)
        assert info.version == version and timeouts(service, game_id) == []
        # The group is told, in its language.
        note = NOTE[lang].format(name=sleeper.first_name)
        assert sum(note in t for t in group_texts(fake, group)) == 1
        # The player's message and the board give the five minutes from now.
        left = "in 5 minutes" if lang == "en" else "через 5 минут"
        assert left in (sleeper.last_message().text or "")  # type: ignore[union-attr]
        board = fake.message(group, info.meta["board"])
        assert left in (board.text or "")
        # No stand-in, no missed deadline.
        seat = info.seat_of(sleeper.id)
        assert seat is not None
        assert not info.seats[seat].standin and info.seats[seat].timeouts == 0
        assert missed(service, group.id, sleeper) == 0
        # Four minutes later (the deadline not yet reached) nothing happens; once the five
        # minutes the turn gave are over, a player who does not answer times out as ever.
        clock.advance(timedelta(minutes=4))
        await sweep(app, service)
        assert timeouts(service, game_id) == []
        clock.advance(timedelta(minutes=1, seconds=1))
        await sweep(app, service)
        assert timeouts(service, game_id) == [seat]
        assert missed(service, group.id, sleeper) == 1
        assert sum(note in t for t in group_texts(fake, group)) == 1


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_thirty_minutes_of_downtime_are_added_to_the_deadline(
    fake: FakeTelegram, service: GameService, clock: FakeClock, lang: str
) -> None:
    users = players(fake, lang, base=32_000)
    group = fake.create_group("Blackout", users)
    first = make_app(fake, service)
    async with fake.running(first):
        await startup(first)
        game_id = await a_game(fake, service, users, group, lang)
        (sleeper,) = waiting(service, game_id, users)
        deadline = service.game_info(game_id).deadline
        assert deadline is not None
    await shutdown(first)  # what run_polling does when it stops
    # The bot is down for half an hour: the five-minute deadline passes meanwhile.
    clock.advance(timedelta(minutes=30))
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        await caught_up(app)
        await fake.wait_idle()
        info = service.game_info(game_id)
        assert info.deadline == deadline + timedelta(minutes=30)
        # The deadline jobs, rebuilt at the start, find nothing due: no timeout.
        await sweep(app, service)
        assert timeouts(service, game_id) == []
        note = NOTE[lang].format(name=sleeper.first_name)
        assert sum(note in t for t in group_texts(fake, group)) == 1
        seat = info.seat_of(sleeper.id)
        assert seat is not None
        assert not info.seats[seat].standin and info.seats[seat].timeouts == 0
        assert missed(service, group.id, sleeper) == 0
        # The time left when the bot went down (all five minutes) is the player's still.
        clock.advance(timedelta(minutes=4))
        await sweep(app, service)
        assert timeouts(service, game_id) == []
        clock.advance(timedelta(minutes=1, seconds=1))
        await sweep(app, service)
        assert timeouts(service, game_id) == [seat]
    await shutdown(app)


async def a_downtime(fake: FakeTelegram, service: GameService, clock: FakeClock,
                     base: int) -> tuple[int, list[FakeUser], FakeChat]:
    """A game with a player's turn running, the bot stopped, then down for half an hour:
    the game, its players and its group."""
    users = players(fake, base=base)
    group = fake.create_group("Outage", users)
    first = make_app(fake, service)
    async with fake.running(first):
        await startup(first)
        game_id = await a_game(fake, service, users, group)
    await shutdown(first)
    clock.advance(timedelta(minutes=30))
    return game_id, users, group



def held_catch_up(service: GameService, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The service's catch-up held until the returned event is set."""
    gate = threading.Event()
    make_good = service.make_good

    def held(*args: Any, **kwargs: Any) -> Any:
        assert gate.wait(10)
        return make_good(*args, **kwargs)

    monkeypatch.setattr(service, "make_good", held)
    return gate


async def test_the_bot_answers_while_it_gives_the_downtime_back(
    fake: FakeTelegram, service: GameService, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With thousands of games, giving them their downtime back takes seconds: the start
    does not wait for it. A tap meanwhile is answered, its game keeps the deadline the move
    set; the deadline jobs start only once every game has its time back."""
    game_id, users, group = await a_downtime(fake, service, clock, 34_000)
    gate = held_catch_up(service, monkeypatch)
    app = make_app(fake, service, schedule=True)
    async with fake.running(app):
        await startup(app)  # (returns while the games still wait for their time)
        d: Deps = app.bot_data[DEPS_KEY]
        assert d.scheduler is None and not d.came_up
        (sleeper,) = waiting(service, game_id, users)
        msg = sleeper.last_message()
        assert msg is not None
        await sleeper.tap(msg, action_buttons(msg)[0])
        fresh = service.game_info(game_id).deadline
        assert fresh == clock.now() + timedelta(seconds=TURN)
        gate.set()
        await caught_up(app)
        assert d.scheduler is not None and d.came_up
        assert service.game_info(game_id).deadline == fresh
        assert not any("could not reach" in t for t in group_texts(fake, group))
        assert service.downtime() is None  # (done: the beat is noted)
    await shutdown(app)


async def test_a_catch_up_ending_after_the_job_queue_stopped_starts_no_clock(
    fake: FakeTelegram, service: GameService, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PTB stops its job queue before the application's last tasks end (and before
    ``post_stop`` stops the catch-up): a catch-up that ends in between adds its jobs to the
    stopped queue, which stays stopped."""
    await a_downtime(fake, service, clock, 36_000)
    gate = held_catch_up(service, monkeypatch)
    app = make_app(fake, service, schedule=True)
    async with fake.running(app):
        await startup(app)
        assert app.job_queue is not None
        scheduler = app.job_queue.scheduler
        await app.job_queue.stop()  # (what Application.stop does first)
        gate.set()
        await caught_up(app)
        assert not scheduler.running
    await shutdown(app)


async def test_a_clock_that_cannot_start_is_tried_again_then_stops_the_bot(
    fake: FakeTelegram, service: GameService, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deadline jobs start after the catch-up, in the background: a database error
    there is tried again, and if it lasts, the bot stops (its supervisor starts it again)
    rather than run on with no deadline ever played and no beat."""
    await a_downtime(fake, service, clock, 37_000)
    monkeypatch.setattr(uptime, "RETRY_DELAYS", (0.0, 0.0))
    rebuild = DeadlineScheduler.rebuild
    failures = [RuntimeError("server closed the connection unexpectedly")]

    def flaky(self: DeadlineScheduler) -> int:
        if failures:
            raise failures.pop()
        return rebuild(self)

    monkeypatch.setattr(DeadlineScheduler, "rebuild", flaky)
    app = make_app(fake, service, schedule=True)
    async with fake.running(app):
        await startup(app)
        await caught_up(app)
        d: Deps = app.bot_data[DEPS_KEY]
        assert d.came_up and d.scheduler is not None
        assert app.job_queue is not None
        assert "sweep" in {job.id for job in app.job_queue.scheduler.get_jobs()}
    await shutdown(app)
    # A lasting failure: three tries, then the bot stops itself.
    clock.advance(timedelta(minutes=30))
    failures[:] = [RuntimeError("down")] * 3
    stopped: list[bool] = []
    app = make_app(fake, service, schedule=True)
    monkeypatch.setattr(app, "stop_running", lambda: stopped.append(True))
    async with fake.running(app):
        await startup(app)
        await caught_up(app)
        d = app.bot_data[DEPS_KEY]
        assert stopped == [True] and not d.came_up and d.scheduler is None
    await shutdown(app)


async def test_a_quick_restart_moves_no_deadline(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """A restart of a few seconds (a deploy), or a second process starting beside a running
    one, is not downtime: no deadline moves and the group is not told."""
    users = players(fake, base=33_000)
    group = fake.create_group("Deploy", users)
    first = make_app(fake, service)
    async with fake.running(first):
        await startup(first)
        game_id = await a_game(fake, service, users, group)
        deadline = service.game_info(game_id).deadline
    await shutdown(first)
    clock.advance(timedelta(seconds=20))
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        assert service.game_info(game_id).deadline == deadline
        assert not any("could not reach" in t for t in group_texts(fake, group))
    await shutdown(app)


@pytest.mark.parametrize("group_fails", [False, True], ids=["group-reached", "group-failed"])
async def test_a_player_who_never_opened_the_chat_is_reached_through_the_group(
    fake: FakeTelegram, service: GameService, clock: FakeClock, group_fails: bool
) -> None:
    """The bot cannot write to a player who never opened the private chat: their turn
    reaches them through the group, the message naming them with the link to their cards.
    Once that went out, their silence is theirs (a timeout as ever); while the group too
    cannot be reached, it is the bot's fault."""
    users = players(fake, base=34_000)[:2]
    group = fake.create_group("Strangers", users)
    app = make_app(fake, service)
    async with fake.running(app):
        d: Deps = app.bot_data[DEPS_KEY]
        service.ensure_chat(group.id, group.title, "en")
        service.set_chat_defaults(group.id, turn_timeout=TURN)
        info = service.create_game(group.id, users[0].id, creator_name=users[0].first_name)
        service.join(info.id, users[1].id, users[1].first_name)
        for _ in range(2):
            service.add_ai_player(info.id, users[0].id, level="normal")
        result = service.start(info.id, users[0].id)
        (stranger,) = waiting(service, info.id, users)
        for user in users:
            if user is not stranger:
                await user.start_bot()
        await d.deliverer.refresh_board(info.id, resend=True, pin=True)
        if group_fails:
            fake.fail("sendMessage", 502, times=100_000)
        await d.deliverer.deliver(result.notifications, scene=result.scene)
        seat = service.game_info(info.id).seat_of(stranger.id)
        clock.advance(timedelta(seconds=TURN + 1))
        await sweep(app, service)
        note = NOTE["en"].format(name=stranger.first_name)
        if not group_fails:
            assert any("it is your move" in t and stranger.first_name in t
                       for t in group_texts(fake, group))
            assert timeouts(service, info.id) == [seat]
            assert not any(note in t for t in group_texts(fake, group))
            return
        assert timeouts(service, info.id) == []
        fake.clear_faults()
        for _ in range(5):
            clock.advance(timedelta(minutes=1))
            await d.relay.drain()
        await fake.wait_idle()
        texts = group_texts(fake, group)
        assert any("it is your move" in t and stranger.first_name in t for t in texts)
        assert sum(note in t for t in texts) == 1
        assert timeouts(service, info.id) == [] and missed(service, group.id, stranger) == 0


async def test_a_ten_minute_flood_wait_is_not_the_players_time(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """Telegram's flood control holds the player's chat for ten minutes (429, retry after
    600 s): their five-minute turn waits for it, and counts from when it went out."""
    users = players(fake, base=35_000)
    group = fake.create_group("Flood", users)
    app = make_app(fake, service)
    async with fake.running(app):
        d: Deps = app.bot_data[DEPS_KEY]
        service.ensure_chat(group.id, group.title, "en")
        service.set_chat_defaults(group.id, turn_timeout=TURN)
        game_id = await open_game(fake, users, group)
        mover = next(u for u in users if action_buttons(u.last_message()))
        msg = mover.last_message()
        assert msg is not None
        fake.flood("sendMessage", times=1, retry_after=600)
        await mover.tap(msg, action_buttons(msg)[0])
        (sleeper,) = waiting(service, game_id, users)
        assert not action_buttons(sleeper.last_message())
        for _ in range(11):
            clock.advance(timedelta(minutes=1))
            await d.relay.drain()
            await sweep(app, service)
        await fake.wait_idle()
        assert action_buttons(sleeper.last_message())
        assert timeouts(service, game_id) == []
        deadline = service.game_info(game_id).deadline
        assert deadline is not None and deadline >= clock.now() + timedelta(minutes=4)
        note = NOTE["en"].format(name=sleeper.first_name)
        assert sum(note in t for t in group_texts(fake, group)) == 1
