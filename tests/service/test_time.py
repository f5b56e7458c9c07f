"""Deadlines, reminders, timeouts, stand-ins, quiet hours, pause — all on a fake clock."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from apscheduler.schedulers.background import BackgroundScheduler

from engine import Phase
from kolkhoz_tg.scheduler import DeadlineScheduler, job_id
from kolkhoz_tg.service import ActStatus, GameService, Kind
from kolkhoz_tg.service.deadlines import reminder_offsets, reminder_times
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock, QuietHours, parse_duration
from tests.conftest import make_settings
from tests.service.helpers import new_game, step

DAY = timedelta(hours=24)


def _waiting_user(service: GameService, game_id: int) -> tuple[int, int]:
    board = service.board(game_id)
    assert board.view is not None
    seat = board.view.to_act[0]
    user = next(s.user_id for s in board.game.seats if s.seat == seat)
    assert user is not None
    return seat, user


def _kinds(notes: list) -> list[Kind]:  # type: ignore[type-arg]
    return [n.kind for n in notes]


def test_timeout_plays_the_silent_seat(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, seed=3)
    seat, user = _waiting_user(service, game.id)
    info = service.game_info(game.id)
    assert info.deadline == clock.now() + DAY
    clock.advance(DAY - timedelta(seconds=1))
    assert _kinds(service.sweep().notifications).count(Kind.TIMED_OUT) == 0
    clock.advance(timedelta(seconds=2))
    result = service.sweep()
    assert result.processed == 1
    timed = [n for n in result.notifications if n.kind is Kind.TIMED_OUT]
    assert [(n.user_id, n.seat) for n in timed] == [(user, seat)]
    assert timed[0].payload.timeouts == 1 and timed[0].payload.actions
    log = service.action_log(game.id)
    mine = [e for e in log if e["actor"] == "timeout"]
    assert mine and all(e["seat"] == seat for e in mine)
    after = service.game_info(game.id)
    assert after.version == info.version + 1
    assert after.deadline == clock.now() + DAY
    assert after.seats[seat].timeouts == 1 and not after.seats[seat].standin
    # Nothing more is due: a second sweep does nothing.
    assert service.sweep().processed == 0


def test_standin_takes_over_and_hands_back(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, seed=5, standin_after=2)
    silent = 2
    notes: list = []  # type: ignore[type-arg]
    for _ in range(300):
        _seat, user = _waiting_user(service, game.id)
        if user == silent:
            clock.advance(DAY + timedelta(seconds=1))
            notes += service.sweep().notifications
            if service.game_info(game.id).seats[1].standin:
                break
        else:
            assert step(service, game.id)
    info = service.game_info(game.id)
    assert info.seats[1].standin and info.seats[1].timeouts == 2
    stand_in = [n for n in notes if n.kind is Kind.STAND_IN]
    assert {n.user_id for n in stand_in} == {silent, None}  # the player and the group
    # The stand-in now plays at once: the silent player's seat is never waited for.
    for _ in range(12):
        board = service.board(game.id)
        assert board.view is not None
        assert 1 not in board.view.to_act
        assert step(service, game.id)
    assert any(e["actor"] == "standin" for e in service.action_log(game.id))
    assert service.game_info(game.id).seats[1].user_id == silent  # the seat stays theirs
    back = service.back(game.id, silent)
    assert back.status is ActStatus.APPLIED
    assert Kind.PLAYER_BACK in _kinds(back.notifications)
    info = service.game_info(game.id)
    assert not info.seats[1].standin and info.seats[1].timeouts == 0
    assert service.back(game.id, silent).status is ActStatus.DUPLICATE
    for _ in range(40):
        _seat, user = _waiting_user(service, game.id)
        if user == silent:
            break
        assert step(service, game.id)
    assert _waiting_user(service, game.id)[1] == silent


def test_acting_again_ends_the_standin(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, seed=5, standin_after=1)
    seat, user = _waiting_user(service, game.id)
    clock.advance(DAY + timedelta(seconds=1))
    service.sweep()
    assert service.game_info(game.id).seats[seat].standin
    view = service.seat_view(game.id, user)
    # Any tap brings the player back, even one that is not a legal move now.
    result = service.act(game.id, user, "play:6H", view.game.version)
    assert result.status is ActStatus.ILLEGAL
    assert Kind.PLAYER_BACK in _kinds(result.notifications)
    assert not service.game_info(game.id).seats[seat].standin


def test_reminders_go_out_once_each(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, seed=3)
    _seat, user = _waiting_user(service, game.id)
    start = clock.now()
    clock.advance(timedelta(hours=11))
    assert service.sweep().processed == 0
    clock.advance(timedelta(hours=1))
    first = service.sweep().notifications
    assert [(n.kind, n.user_id) for n in first] == [(Kind.REMINDER, user)]
    assert first[0].payload.last is False
    assert service.sweep().notifications == []
    clock.set(start + timedelta(hours=23))
    second = service.sweep().notifications
    assert [(n.kind, n.payload.last) for n in second] == [(Kind.REMINDER, True)]
    clock.advance(timedelta(minutes=30))
    assert service.sweep().notifications == []
    # Reminders do not change the version: the player's buttons stay valid.
    assert service.game_info(game.id).version == game.version
    clock.set(start + DAY)
    assert Kind.TIMED_OUT in _kinds(service.sweep().notifications)


def test_reminder_at_night_waits_for_the_morning(service: GameService, clock: FakeClock) -> None:
    # 09:00 UTC = 12:00 in Moscow; half time is at 00:00 Moscow time, inside 23:00-08:00.
    service.ensure_user(1, "U1")
    service.set_quiet_hours(1, "Europe/Moscow", "23:00", "08:00")
    game, _ = new_game(service, seed=3)
    for _ in range(50):
        _seat, user = _waiting_user(service, game.id)
        if user == 1:
            break
        assert step(service, game.id)
    turn_start = clock.now()
    planned = [n for n in service.scheduled_jobs() if n.kind == "reminder"]
    assert planned and planned[0].at == datetime(2026, 3, 3, 5, 0, tzinfo=UTC)
    clock.set(turn_start + timedelta(hours=12, minutes=1))
    assert service.sweep().notifications == []
    clock.set(datetime(2026, 3, 3, 5, 0, tzinfo=UTC))
    assert _kinds(service.sweep().notifications) == [Kind.REMINDER]


def test_quiet_hours_rules() -> None:
    quiet = QuietHours("Europe/Moscow", 23 * 60, 8 * 60)
    night = datetime(2026, 3, 2, 21, 0, tzinfo=UTC)  # 00:00 in Moscow
    morning = datetime(2026, 3, 3, 5, 0, tzinfo=UTC)  # 08:00 in Moscow
    assert quiet.adjust(night, night + DAY) == morning
    # The deadline comes before the morning: remind at night rather than too late.
    assert quiet.adjust(night, night + timedelta(hours=3)) == night
    day = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    assert quiet.adjust(day, day + DAY) == day
    early = QuietHours("UTC", 60, 6 * 60)  # 01:00-06:00, not crossing midnight
    assert early.adjust(datetime(2026, 3, 2, 2, 0, tzinfo=UTC), morning + DAY) == datetime(
        2026, 3, 2, 6, 0, tzinfo=UTC
    )
    assert early.morning_after(datetime(2026, 3, 2, 7, 0, tzinfo=UTC)) is None


def test_reminder_schedule() -> None:
    assert reminder_offsets(["50%", "1h"], DAY) == [timedelta(hours=12), timedelta(hours=1)]
    assert reminder_offsets(["50%", "1h"], timedelta(minutes=30)) == [timedelta(minutes=15)]
    now = datetime(2026, 1, 1, tzinfo=UTC)
    times = reminder_times(now + DAY, DAY, ["50%", "1h", "12h"], now)
    assert times == [now + timedelta(hours=12), now + timedelta(hours=23)]
    assert parse_duration("1h30m") == timedelta(minutes=90)
    assert parse_duration("2д") == timedelta(days=2)


@pytest.mark.parametrize("text", ["99999999999d", "1e400s", "0h", "", "2 weeks", "²h"])
def test_durations_out_of_reach_are_value_errors(text: str) -> None:
    """Whatever a player types, a bad duration is a ValueError the commands answer."""
    with pytest.raises(ValueError):
        parse_duration(text)


def test_swap_phase_shares_one_deadline(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, preset="kolkhoz", seed=8)
    for _ in range(400):
        snap = service.snapshot(game.id)
        assert snap is not None
        if snap.phase is Phase.SWAP and len(snap.to_act) >= 3:
            break
        assert step(service, game.id)
    deadline = service.game_info(game.id).deadline
    clock.advance(timedelta(hours=2))
    assert step(service, game.id)  # one seat decides
    info = service.game_info(game.id)
    assert info.deadline == deadline  # the phase deadline does not move
    snap = service.snapshot(game.id)
    assert snap is not None and snap.phase is Phase.SWAP
    undecided = len(snap.to_act)
    clock.set(deadline + timedelta(seconds=1))  # type: ignore[operator]
    notes = service.sweep().notifications
    assert len([n for n in notes if n.kind is Kind.TIMED_OUT]) == undecided >= 2
    snap = service.snapshot(game.id)
    assert snap is not None and snap.phase is not Phase.SWAP


def test_the_pass_shares_one_deadline_and_a_stand_in_passes_for_the_silent(
    service: GameService, clock: FakeClock
) -> None:
    """House rule pass_cards: the choice of the card to pass is one phase of independent
    decisions, like the swap: one deadline for all, and at its end every seat that has not
    chosen gets a card chosen for it, the cards move and the game goes on."""
    game, _ = new_game(service, seed=8, options={"pass_cards": True})
    for _ in range(400):
        snap = service.snapshot(game.id)
        assert snap is not None
        if snap.phase is Phase.PASS:
            break
        assert step(service, game.id)
    assert snap.phase is Phase.PASS and len(snap.to_act) == 4
    deadline = service.game_info(game.id).deadline
    clock.advance(timedelta(hours=2))
    assert step(service, game.id)  # one seat chooses
    assert service.game_info(game.id).deadline == deadline
    clock.set(deadline + timedelta(seconds=1))  # type: ignore[operator]
    notes = service.sweep().notifications
    assert len([n for n in notes if n.kind is Kind.TIMED_OUT]) == 3
    snap = service.snapshot(game.id)
    assert snap is not None and snap.phase is not Phase.PASS
    assert all(snap.pass_received(s) is not None for s in range(4))


def test_pause_stops_the_clock(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, seed=3)
    clock.advance(timedelta(hours=20))
    paused = service.pause(game.id, 1)
    assert _kinds(paused.notifications) == [Kind.PAUSED]
    assert paused.notifications[0].payload.remaining == 4 * 3600
    view = service.seat_view(game.id, _waiting_user(service, game.id)[1])
    assert view.legal == []
    result = service.act(game.id, view.game.seats[view.seat].user_id or 0, "trump:H",
                         view.game.version)
    assert result.status is ActStatus.NOT_ACTIVE
    clock.advance(timedelta(days=3))
    assert service.sweep().processed == 0
    assert service.scheduled_jobs() == []
    resumed = service.resume(game.id, 1)
    assert Kind.RESUMED in _kinds(resumed.notifications)
    assert Kind.YOUR_TURN in _kinds(resumed.notifications)
    assert service.game_info(game.id).deadline == clock.now() + timedelta(hours=4)


def test_two_sweepers_never_both_act(sqlite_url: str, clock: FakeClock) -> None:
    db1, db2 = Database(sqlite_url, run_migrations=False), Database(sqlite_url,
                                                                     run_migrations=False)
    one = GameService(db1, clock=clock, settings=make_settings())
    two = GameService(db2, clock=clock, settings=make_settings())
    ids = [new_game(one, seed=s, chat_id=-s - 1)[0].id for s in range(12)]
    clock.advance(DAY + timedelta(seconds=1))
    results: list = []  # type: ignore[type-arg]
    barrier = threading.Barrier(2)

    def run(service: GameService) -> None:
        barrier.wait()
        results.append(service.sweep())

    threads = [threading.Thread(target=run, args=(s,)) for s in (one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    timed = [n for r in results for n in r.notifications if n.kind is Kind.TIMED_OUT]
    assert sorted(n.game_id for n in timed) == sorted(ids)
    assert sum(r.processed for r in results) == len(ids)
    db1.dispose()
    db2.dispose()


def test_restart_between_scheduling_and_firing(sqlite_url: str, clock: FakeClock) -> None:
    db = Database(sqlite_url, run_migrations=False)
    service = GameService(db, clock=clock, settings=make_settings())
    sched = DeadlineScheduler(service, BackgroundScheduler(timezone=UTC))
    sched.ahead = 2 * DAY  # (armed at once: this test is about the jobs, not their arming)
    sched.start(paused=True)
    game, _ = new_game(service, seed=3)
    job = sched.scheduler.get_job(job_id(game.id, "timeout"))
    assert job is not None and job.next_run_time == service.game_info(game.id).deadline
    assert sched.scheduler.get_job(job_id(game.id, "reminder")) is not None
    sched.shutdown()
    db.dispose()  # the process stops before the deadline

    db = Database(sqlite_url, run_migrations=False)
    service = GameService(db, clock=clock, settings=make_settings())
    got: list = []  # type: ignore[type-arg]
    sched = DeadlineScheduler(service, BackgroundScheduler(timezone=UTC),
                              sink=lambda due: got.extend(due.notifications))
    clock.advance(DAY + timedelta(seconds=1))
    # The fake times lie in the real past, so the rebuilt jobs run at once when started.
    sched.start()
    for _ in range(1000):
        if any(n.kind is Kind.TIMED_OUT for n in got):
            break
        time.sleep(0.01)
    sched.shutdown()
    assert any(n.kind is Kind.TIMED_OUT for n in got)
    assert service.game_info(game.id).seats[0].timeouts + sum(
        s.timeouts for s in service.game_info(game.id).seats[1:]) == 1
    db.dispose()


def test_scheduler_follows_changes(service: GameService, clock: FakeClock) -> None:
    sched = DeadlineScheduler(service, BackgroundScheduler(timezone=UTC))
    sched.ahead = 2 * DAY  # (armed at once: this test is about following the changes)
    sched.start(paused=True)
    game, _ = new_game(service, seed=3)
    first = sched.scheduler.get_job(job_id(game.id, "timeout"))
    assert first is not None
    clock.advance(timedelta(hours=1))
    step(service, game.id)
    moved = sched.scheduler.get_job(job_id(game.id, "timeout"))
    assert moved is not None and moved.next_run_time == clock.now() + DAY
    service.abort(game.id, 1)
    assert sched.scheduler.get_job(job_id(game.id, "timeout")) is None
    assert sched.scheduler.get_job("sweep") is not None
    sched.shutdown()


def test_jobs_are_armed_an_hour_ahead_by_the_sweep_not_for_every_game_at_start(
    service: GameService, clock: FakeClock
) -> None:
    """The jobs held follow the deadlines of the next hour, not the number of games: a
    day's deadline gets its job only once the sweep finds it within reach, in time."""
    sched = DeadlineScheduler(service, BackgroundScheduler(timezone=UTC))
    sched.start(paused=True)
    games = [new_game(service, seed=s, chat_id=-200 - s)[0] for s in range(5)]
    assert sched.scheduler.get_job(job_id(games[0].id, "timeout")) is None
    assert sched.rebuild() == 0  # a restart now arms nothing
    deadline = service.game_info(games[0].id).deadline
    assert deadline is not None
    clock.set(deadline - timedelta(minutes=30))
    sched.sweep()
    for game in games:
        job = sched.scheduler.get_job(job_id(game.id, "timeout"))
        assert job is not None and job.next_run_time == service.game_info(game.id).deadline
    assert sched.rebuild() == len(games)  # and a restart arms them again
    sched.shutdown()


def test_detach_leaves_a_shared_scheduler_running(service: GameService) -> None:
    scheduler = BackgroundScheduler(timezone=UTC)
    scheduler.start(paused=True)
    sched = DeadlineScheduler(service, scheduler)
    sched.ahead = 2 * DAY
    sched.start()
    game, _ = new_game(service, seed=3)
    assert scheduler.get_job(job_id(game.id, "timeout")) is not None
    sched.detach()
    assert scheduler.running
    assert scheduler.get_jobs() == []
    step(service, game.id)  # no longer followed
    assert scheduler.get_jobs() == []
    scheduler.shutdown(wait=False)


async def test_asyncio_scheduler_runs_the_jobs(service: GameService, clock: FakeClock) -> None:
    """PTB's job queue is an AsyncIOScheduler: the sync jobs run in its thread pool."""
    import asyncio

    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    got: list = []  # type: ignore[type-arg]
    game, _ = new_game(service, seed=3)
    clock.advance(DAY + timedelta(seconds=1))
    sched = DeadlineScheduler(service, AsyncIOScheduler(timezone=UTC),
                              sink=lambda due: got.extend(due.notifications))
    sched.start()
    for _ in range(1000):
        if any(n.kind is Kind.TIMED_OUT for n in got):
            break
        await asyncio.sleep(0.01)
    sched.shutdown()
    assert any(n.kind is Kind.TIMED_OUT and n.game_id == game.id for n in got)


def test_the_clock_returns_each_game_as_its_change_left_it(
    service: GameService, clock: FakeClock
) -> None:
    """Like ``act``, the sweep and a deadline job return each game's scene read in the
    transaction that changed it, so delivery never reads the game again; a game with
    nothing to tell has none."""
    game, _ = new_game(service, seed=3)
    quiet, _ = new_game(service, seed=4, chat_id=-77)
    service.pause(quiet.id, quiet.creator_id or 0)
    clock.advance(DAY + timedelta(seconds=1))
    result = service.sweep()
    assert set(result.scenes) == {game.id}
    assert result.scenes[game.id] == service.scene(game.id)
    assert result.scenes[game.id].game.version == service.game_info(game.id).version
    clock.advance(DAY + timedelta(seconds=1))
    due = service.process_due(game.id)
    assert due.notifications and due.scenes == {game.id: service.scene(game.id)}
    assert service.process_due(game.id).scenes == {}


def test_a_move_while_the_jobs_are_armed_keeps_its_newer_job(
    service: GameService, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep (or a start) arms jobs from a read of the database while taps commit in
    other threads: a game moved after that read keeps the job its move set, not the older
    time the read saw."""
    sched = DeadlineScheduler(service, BackgroundScheduler(timezone=UTC))
    sched.start(paused=True)
    game, _ = new_game(service, seed=3, turn_timeout=300)
    read = service.scheduled_jobs

    def read_then_a_move(*args: object, **kwargs: object) -> list:  # type: ignore[type-arg]
        jobs = read(*args, **kwargs)  # type: ignore[arg-type]
        clock.advance(timedelta(minutes=1))
        assert step(service, game.id)  # (commits, and moves the game's jobs)
        return jobs

    monkeypatch.setattr(service, "scheduled_jobs", read_then_a_move)
    sched.rebuild()
    deadline = service.game_info(game.id).deadline
    job = sched.scheduler.get_job(job_id(game.id, "timeout"))
    assert job is not None and job.next_run_time == deadline
    sched.shutdown()
