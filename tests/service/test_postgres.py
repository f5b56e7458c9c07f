"""The same core on PostgreSQL: a whole game, timeouts, and two sweepers (SKIP LOCKED)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from kolkhoz_tg.service import ActStatus, GameService, Kind, NotAllowed, Notification, SweepResult
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.conftest import make_settings
from tests.service.helpers import new_game, play_out, random_chooser

pytestmark = pytest.mark.postgres


def test_whole_game_and_replay(pg_service: GameService) -> None:
    game, _ = new_game(pg_service, preset="kolkhoznik", seed=4)
    play_out(pg_service, game.id, random_chooser(2))
    assert pg_service.game_info(game.id).status == "finished"
    assert pg_service.replay(game.id) == pg_service.snapshot(game.id)
    info = pg_service.game_info(game.id)
    assert info.finished_at is not None and info.finished_at.tzinfo is not None


def test_two_sweepers_never_both_act(pg_url: str, clock: FakeClock) -> None:
    Database(pg_url).dispose()
    dbs = [Database(pg_url, run_migrations=False) for _ in range(2)]
    one, two = (GameService(db, clock=clock, settings=make_settings()) for db in dbs)
    ids = [new_game(one, seed=s, chat_id=-s - 1)[0].id for s in range(16)]
    clock.advance(timedelta(days=1, seconds=1))
    results: list[SweepResult] = []
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
    for db in dbs:
        db.dispose()


def test_first_messages_of_a_new_user_at_once(pg_url: str, clock: FakeClock) -> None:
    Database(pg_url).dispose()
    dbs = [Database(pg_url, run_migrations=False) for _ in range(4)]
    services = [GameService(db, clock=clock, settings=make_settings()) for db in dbs]
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(services))

    def hello(service: GameService) -> None:
        barrier.wait()
        try:
            service.ensure_user(77, "Anna", "ru")
            service.ensure_chat(-77, "Dacha")
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=hello, args=(s,)) for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    user = services[0].user(77)
    assert user is not None and user.name == "Anna" and user.locale == "ru"
    for db in dbs:
        db.dispose()


@pytest.mark.parametrize("durable", [False, True])
def test_commits_wait_for_the_disk_only_when_asked(pg_url: str, durable: bool) -> None:
    """``synchronous_commit`` is off by default (SQLite's WAL/NORMAL durability) and on with
    ``pg_durable_commits``."""
    db = Database(pg_url, durable_commits=durable)
    try:
        with db.write() as s:
            setting = s.connection().exec_driver_sql("SHOW synchronous_commit").scalar()
        assert setting == ("on" if durable else "off")
    finally:
        db.dispose()



def test_the_outbox_and_the_log_match_sqlite_move_for_move(
    pg_service: GameService, service: GameService
) -> None:
    """PostgreSQL stores a move's log, superseding and notifications in one hand-written
    statement, SQLite through the ORM: the same game gives the same rows on both, and the
    ids act() returns are those of the stored rows."""
    lite_id = new_game(service, humans=2, preset="kolkhoz", seed=9)[0].id
    pg_id = new_game(pg_service, humans=2, preset="kolkhoz", seed=9)[0].id
    choose = random_chooser(3)

    def notes(ns: list[Notification]) -> list[tuple[object, ...]]:
        return [(n.kind, n.user_id, n.seat, n.version, n.payload) for n in ns]

    moves = 0
    while (board := service.board(lite_id)).game.status == "active":
        assert board.view is not None
        seat = board.view.to_act[0]
        user = next(x.user_id for x in board.game.seats if x.seat == seat)
        assert user is not None
        view = service.seat_view(lite_id, user)
        action = choose(view)
        lite = service.act(lite_id, user, action, view.game.version)
        pg = pg_service.act(pg_id, user, action, pg_service.seat_view(pg_id, user).game.version)
        assert lite.status is pg.status is ActStatus.APPLIED
        assert notes(lite.notifications) == notes(pg.notifications)
        stored = {n.id: n for n in pg_service.pending_notifications(1000, pg_id)}
        kept = [n for n in pg.notifications if n.id in stored]
        assert kept and all(notes([stored[n.id]]) == notes([n]) for n in kept)
        moves += 1
    assert moves > 40 and pg_service.game_info(pg_id).status == "finished"
    assert notes(service.pending_notifications(1000, lite_id)) == \
        notes(pg_service.pending_notifications(1000, pg_id))
    for entry in (*service.action_log(lite_id), *pg_service.action_log(pg_id)):
        del entry["at"]
    assert service.action_log(lite_id) == pg_service.action_log(pg_id)


@pytest.mark.parametrize("known", [True, False])
def test_two_taps_at_once_start_one_practice_game(
    pg_url: str, clock: FakeClock, known: bool
) -> None:
    """Two quick taps on a practice level, handled at once by two connections: one game
    starts, the other tap is refused (whether or not the player was known before)."""
    Database(pg_url).dispose()
    dbs = [Database(pg_url, run_migrations=False) for _ in range(2)]
    services = [GameService(db, clock=clock, settings=make_settings()) for db in dbs]
    if known:
        services[0].ensure_user(42, "Anna")
    outcomes: list[object] = []
    barrier = threading.Barrier(2)

    def tap(service: GameService) -> None:
        barrier.wait()
        try:
            outcomes.append(service.start_practice(42, "Anna", level="random").status)
        except NotAllowed as e:
            outcomes.append(e.code)

    threads = [threading.Thread(target=tap, args=(s,)) for s in services]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes, key=str) == [ActStatus.APPLIED, "practice_open"]
    assert len([g for g in services[0].games_of_user(42) if g.practice]) == 1
    for db in dbs:
        db.dispose()
