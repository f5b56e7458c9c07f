"""No penalty for the bot's own faults, in the service: a turn the outbox still owes holds
the timeout, a late turn counts from its delivery, downtime is added to the deadlines."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from kolkhoz_tg.service import GameService, Kind, faults
from kolkhoz_tg.service.payloads import TimeExtended
from kolkhoz_tg.timeutil import FakeClock
from tests.service.helpers import new_game, step

TURN = timedelta(minutes=5)


def owed_turns(service: GameService, game_id: int) -> list[int]:
    return [n.id for n in service.pending_notifications(1000, game_id=game_id)
            if n.kind is Kind.YOUR_TURN]


def timeouts(service: GameService, game_id: int) -> int:
    return sum(a["actor"] == "timeout" for a in service.action_log(game_id))


def test_without_a_front_end_that_delivers_a_deadline_times_out_as_ever(
    service: GameService, clock: FakeClock
) -> None:
    game, _ = new_game(service, turn_timeout=300)
    assert owed_turns(service, game.id)  # nobody delivers here
    clock.advance(TURN + timedelta(seconds=1))
    service.process_due(game.id)
    assert timeouts(service, game.id) == 1


def test_a_turn_the_outbox_owes_holds_the_timeout_until_it_goes_out(
    service: GameService, clock: FakeClock
) -> None:
    service.outbox_owner = "relay"
    game, _ = new_game(service, turn_timeout=300)
    owed = owed_turns(service, game.id)
    assert len(owed) == 1
    version = service.game_info(game.id).version
    clock.advance(TURN + timedelta(seconds=1))
    done = service.process_due(game.id)
    assert timeouts(service, game.id) == 0 and not done.notifications
    info = service.game_info(game.id)
    assert info.version == version and info.deadline == clock.now() + TURN
    assert [j.game_id for j in service.scheduled_jobs(clock.now())] == []
    # Ten minutes later it goes out: the five minutes count from now; the group is told.
    clock.advance(timedelta(minutes=10))
    service.process_due(game.id)  # (held again meanwhile)
    service.mark_delivered(owed)
    told = service.turn_delivered(game.id, owed)
    assert service.game_info(game.id).deadline == clock.now() + TURN
    (note,) = told.notifications
    assert note.kind is Kind.TIME_EXTENDED and note.user_id is None
    assert isinstance(note.payload, TimeExtended)
    seat = service.board(game.id).view.to_act[0]  # type: ignore[union-attr]
    assert note.payload.names == (service.game_info(game.id).seats[seat].name,)
    assert note.payload.deadline == clock.now() + TURN
    assert told.scenes[game.id].board.deadline == clock.now() + TURN
    # Then the player's silence is theirs.
    clock.advance(TURN + timedelta(seconds=1))
    service.process_due(game.id)
    assert timeouts(service, game.id) == 1


def test_a_late_turn_never_shortens_the_time_nor_counts_for_a_seat_that_moved_on(
    service: GameService, clock: FakeClock
) -> None:
    game, _ = new_game(service)  # a day's turn
    owed = owed_turns(service, game.id)
    deadline = service.game_info(game.id).deadline
    assert deadline is not None
    clock.advance(timedelta(seconds=30))  # late, but within the noise: no note
    assert not service.turn_delivered(game.id, owed).notifications
    assert service.game_info(game.id).deadline == deadline + timedelta(seconds=30)
    # The player moved meanwhile: their old turn's late delivery changes nothing.
    seat = service.board(game.id).view.to_act[0]  # type: ignore[union-attr]
    user = service.game_info(game.id).seats[seat].user_id
    assert user is not None
    view = service.seat_view(game.id, user)
    assert service.act(game.id, user, view.legal[0], view.game.version).ok
    after = service.game_info(game.id).deadline
    clock.advance(timedelta(minutes=10))
    assert not service.turn_delivered(game.id, owed).notifications
    assert service.game_info(game.id).deadline == after


def test_downtime_is_added_to_every_running_deadline_and_its_reminders(
    service: GameService, clock: FakeClock
) -> None:
    running, _ = new_game(service, chat_id=-1)
    paused, _ = new_game(service, chat_id=-2)
    service.pause(paused.id, 1)
    assert not service.clock_beat(start=True).notifications  # the first start: no gap known
    before = service.game_info(running.id).deadline
    reminders = [j.at for j in service.scheduled_jobs() if j.kind == "reminder"]
    assert before is not None and reminders
    clock.advance(timedelta(seconds=90))  # a restart, not downtime
    service.clock_beat(start=True)
    assert service.game_info(running.id).deadline == before
    clock.advance(timedelta(minutes=30))
    told = service.clock_beat(start=True)
    assert service.game_info(running.id).deadline == before + timedelta(minutes=30)
    assert [j.at for j in service.scheduled_jobs() if j.kind == "reminder"] == [
        r + timedelta(minutes=30) for r in reminders]
    assert service.game_info(paused.id).deadline is None
    assert service.game_info(paused.id).status == "paused"
    (note,) = told.notifications
    assert note.game_id == running.id and note.kind is Kind.TIME_EXTENDED
    assert told.scenes[running.id].game.version == service.game_info(running.id).version
    # Beats while running keep the next start from counting anything.
    clock.advance(timedelta(minutes=1))
    service.clock_beat()
    clock.advance(timedelta(minutes=1))
    assert not service.clock_beat(start=True).notifications
    assert service.game_info(running.id).deadline == before + timedelta(minutes=30)



@pytest.mark.parametrize("db", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_start_cut_short_midway_gives_no_game_its_downtime_twice(
    db: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The games get their time back a chunk at a time (memory stays flat with 10,000
    games); a start killed after the first chunk leaves that game as it is: at the next
    start it gets only the time since, the other game all of it, and a start right after a
    complete one (a replica beside it, or the beat not yet noted) changes nothing."""
    service: GameService = request.getfixturevalue("service" if db == "sqlite" else "pg_service")
    first, _ = new_game(service, chat_id=-1)
    second, _ = new_game(service, chat_id=-2)
    service.clock_beat(start=True)
    deadline = {g.id: service.game_info(g.id).deadline for g in (first, second)}
    monkeypatch.setattr(faults, "CATCH_UP_CHUNK", 1)
    done = faults.FaultService._catch_up
    calls = []

    def killed_after_one(self: faults.FaultService, *args: object) -> object:
        calls.append(args[0])
        if len(calls) == 2:
            raise MemoryError("killed")
        return done(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(faults.FaultService, "_catch_up", killed_after_one)
    clock.advance(timedelta(minutes=30))
    with pytest.raises(MemoryError):
        service.clock_beat(start=True)
    assert service.game_info(first.id).deadline == deadline[first.id] + timedelta(minutes=30)
    assert service.game_info(second.id).deadline == deadline[second.id]
    monkeypatch.setattr(faults.FaultService, "_catch_up", done)
    clock.advance(timedelta(minutes=10))  # down again before the next start
    told = service.clock_beat(start=True)
    assert service.game_info(first.id).deadline == deadline[first.id] + timedelta(minutes=40)
    assert service.game_info(second.id).deadline == deadline[second.id] + timedelta(minutes=40)
    assert sorted(n.game_id for n in told.notifications) == sorted([first.id, second.id])
    assert told.scenes == {}  # more games than a chunk: the front end reads the scenes
    # The same start again at once (as a replica starting beside it would): nothing more.
    monkeypatch.setattr(faults.FaultService, "_beat", lambda self, s, name: None)
    assert not service.faults.after_downtime().notifications
    assert service.game_info(second.id).deadline == deadline[second.id] + timedelta(minutes=40)


def test_a_game_played_on_while_the_downtime_is_given_back_keeps_its_fresh_deadline(
    service: GameService, clock: FakeClock
) -> None:
    """The bot answers while it gives the games their downtime back: a move made in between
    sets a deadline that counts from after the downtime, which no catch-up moves; the other
    game gets its thirty minutes."""
    moved, _ = new_game(service, chat_id=-1, turn_timeout=300)
    still, _ = new_game(service, chat_id=-2, turn_timeout=300)
    service.clock_beat(start=True)
    before = service.game_info(still.id).deadline
    assert before is not None
    clock.advance(timedelta(minutes=30))
    down = service.downtime()
    assert down is not None and set(down.deadlines) == {moved.id, still.id}
    assert step(service, moved.id)  # a tap while the catch-up runs
    fresh = service.game_info(moved.id).deadline
    assert fresh == clock.now() + TURN
    told = service.make_good(down)
    assert service.game_info(moved.id).deadline == fresh
    assert service.game_info(still.id).deadline == before + timedelta(minutes=30)
    assert [n.game_id for n in told.notifications] == [still.id]
    # Done: the beat is noted, and a start again finds nothing to give back.
    assert service.downtime() is None


def test_a_catch_up_cut_short_gives_games_played_meanwhile_only_the_time_since(
    service: GameService, clock: FakeClock
) -> None:
    """A start killed while it gave the downtime back: at the next start, a game moved
    meanwhile and a game begun meanwhile get only the time since their turn began (the bot
    was running then), not the whole first outage again; an untouched game gets all of
    it."""
    moved, _ = new_game(service, chat_id=-1, turn_timeout=300)
    untouched, _ = new_game(service, chat_id=-2, turn_timeout=300)
    service.clock_beat(start=True)
    before = service.game_info(untouched.id).deadline
    assert before is not None
    clock.advance(timedelta(minutes=30))
    assert service.downtime() is not None  # the first start; its catch-up never ends
    assert step(service, moved.id)
    fresh = service.game_info(moved.id).deadline
    born, _ = new_game(service, chat_id=-3, turn_timeout=300)
    born_deadline = service.game_info(born.id).deadline
    clock.advance(timedelta(minutes=5))  # killed; down five minutes more
    service.clock_beat(start=True)
    assert service.game_info(moved.id).deadline == fresh + timedelta(minutes=5)
    assert service.game_info(born.id).deadline == born_deadline + timedelta(minutes=5)
    assert service.game_info(untouched.id).deadline == before + timedelta(minutes=35)


def test_a_stopped_catch_up_notes_no_beat_and_the_next_start_does_the_rest(
    service: GameService, clock: FakeClock
) -> None:
    first, _ = new_game(service, chat_id=-1, turn_timeout=300)
    second, _ = new_game(service, chat_id=-2, turn_timeout=300)
    service.clock_beat(start=True)
    deadline = {g.id: service.game_info(g.id).deadline for g in (first, second)}
    clock.advance(timedelta(minutes=30))
    down = service.downtime()
    assert down is not None
    stop = threading.Event()
    done = faults.FaultService._catch_up

    def then_stop(self: faults.FaultService, *args: object) -> object:
        stop.set()  # (a stop while the first chunk is done)
        return done(self, *args)  # type: ignore[arg-type]

    faults.FaultService._catch_up = then_stop  # type: ignore[method-assign]
    try:
        service.make_good(down, chunk=1, stop=stop)
    finally:
        faults.FaultService._catch_up = done  # type: ignore[method-assign]
    assert service.game_info(first.id).deadline == deadline[first.id] + timedelta(minutes=30)
    assert service.game_info(second.id).deadline == deadline[second.id]
    clock.advance(timedelta(minutes=1))
    down = service.downtime()  # no beat was noted: still an outage
    assert down is not None
    service.make_good(down)
    # (The first game's minute since is a restart's, not downtime.)
    assert service.game_info(first.id).deadline == deadline[first.id] + timedelta(minutes=30)
    assert service.game_info(second.id).deadline == deadline[second.id] + timedelta(minutes=31)



def test_two_replicas_starting_at_once_on_a_new_database_both_note_the_first_beat(
    pg_url: str, clock: FakeClock
) -> None:
    """The first beat has no row to lock: a replica whose insert meets the other's (still
    uncommitted) one waits, then takes the other's row instead of failing its start."""
    from sqlmodel import Session

    from kolkhoz_tg.storage.database import Database
    from kolkhoz_tg.storage.models import ClockBeatRow
    from tests.conftest import make_settings

    first_db, second_db = Database(pg_url), Database(pg_url, run_migrations=False)
    second = GameService(second_db, clock=clock, settings=make_settings())
    errors: list[BaseException] = []
    result: list[object] = []

    def start() -> None:
        try:
            result.append(second.downtime())
        except BaseException as e:  # (reported below)
            errors.append(e)

    try:
        with Session(first_db.engine) as s:
            s.add(ClockBeatRow(name=faults.BOT_BEAT, at=clock.now()))
            s.flush()  # inserted, not committed: the other replica's insert waits for it
            other = threading.Thread(target=start)
            other.start()
            other.join(1.0)
            assert other.is_alive(), "the second insert did not wait for the first"
            s.commit()
        other.join(30)
        assert not errors, errors
        assert result == [None]  # a beat just noted: no downtime
    finally:
        first_db.dispose()
        second_db.dispose()
