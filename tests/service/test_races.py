"""Two act() calls on the same version, from two "processes": exactly one applies.

300 rounds on SQLite and, when ``KOLKHOZ_TEST_POSTGRES_URL`` is set, on PostgreSQL (a soak
run sets ``KOLKHOZ_RACE_ROUNDS``, e.g. 5000: docs/testing.md). Each service has its own
engine, connection pool and state cache, like separate processes.
"""

from __future__ import annotations

import os
import threading
from collections import Counter

import pytest

from kolkhoz_tg.service import ActResult, ActStatus, GameInfo, GameService, NotAllowed
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.conftest import make_settings
from tests.service.helpers import new_game

ROUNDS = int(os.environ.get("KOLKHOZ_RACE_ROUNDS", "300"))


class _Racer:
    """A worker thread that runs act() when both racers are released together."""

    def __init__(self, service: GameService, start: threading.Barrier,
                 done: threading.Barrier) -> None:
        self.service = service
        self.start_barrier = start
        self.done_barrier = done
        self.request: tuple[int, int, str, int] | None = None
        self.result: ActResult | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            self.start_barrier.wait()
            if self.request is None:
                return
            try:
                self.result = self.service.act(*self.request)
            except BaseException as e:  # reported by the test
                self.error = e
            self.done_barrier.wait()


def race(one: GameService, two: GameService, rounds: int) -> Counter[str]:
    start, done = threading.Barrier(3), threading.Barrier(3)
    racers = [_Racer(one, start, done), _Racer(two, start, done)]
    outcomes: Counter[str] = Counter()
    game_id = 0
    seed = 0
    try:
        for n in range(rounds):
            board = one.board(game_id) if game_id else None
            if board is None or board.game.status != "active":
                seed += 1
                game_id = new_game(one, seed=seed, chat_id=-seed)[0].id
                board = one.board(game_id)
            assert board.view is not None
            seat = board.view.to_act[0]
            user = next(s.user_id for s in board.game.seats if s.seat == seat)
            assert user is not None
            view = one.seat_view(game_id, user)
            version = view.game.version
            log_before = len(one.action_log(game_id))
            # Every fourth round both send the very same request (a double tap).
            same = n % 4 == 0
            actions = [view.legal[0], view.legal[0] if same else view.legal[-1]]
            for racer, action in zip(racers, actions, strict=True):
                racer.request = (game_id, user, action, version)
            start.wait()
            done.wait()
            for racer in racers:
                if racer.error is not None:
                    raise racer.error
            results = [r.result for r in racers]
            assert all(r is not None for r in results)
            statuses = sorted(r.status.value for r in results if r is not None)
            applied = statuses.count(ActStatus.APPLIED.value)
            assert applied == 1, statuses
            loser = next(s for s in statuses if s != ActStatus.APPLIED.value)
            assert loser in (ActStatus.STALE.value, ActStatus.DUPLICATE.value)
            if not same:
                assert loser == ActStatus.STALE.value
            outcomes[loser] += 1
            assert one.game_info(game_id).version == version + 1
            log = one.action_log(game_id)
            mine = [e for e in log[log_before:] if e["actor"] == "player"]
            assert len(mine) == 1 and mine[0]["version"] == version
    finally:
        for racer in racers:
            racer.request = None
        start.wait()
    return outcomes


def _pair(url: str, clock: FakeClock) -> tuple[GameService, GameService, list[Database]]:
    dbs = [Database(url, run_migrations=False), Database(url, run_migrations=False)]
    one, two = (GameService(db, clock=clock, settings=make_settings()) for db in dbs)
    return one, two, dbs


def test_race_sqlite(sqlite_url: str, clock: FakeClock) -> None:
    one, two, dbs = _pair(sqlite_url, clock)
    outcomes = race(one, two, ROUNDS)
    assert sum(outcomes.values()) == ROUNDS
    for db in dbs:
        db.dispose()


@pytest.mark.postgres
def test_race_postgres(pg_url: str, clock: FakeClock) -> None:
    Database(pg_url).dispose()  # migrate the fresh schema
    one, two, dbs = _pair(pg_url, clock)
    outcomes = race(one, two, ROUNDS)
    assert sum(outcomes.values()) == ROUNDS
    for db in dbs:
        db.dispose()


def _put(
    service: GameService, barrier: threading.Barrier, chat: int, user: int,
    moving: GameInfo | None, outcomes: list[object], i: int,
) -> None:
    """Create a game in ``chat``'s "General", or move ``moving`` there, when the other
    racer is ready too; the outcome (the game, a refusal's code, an error) in
    ``outcomes[i]``."""
    barrier.wait()
    try:
        if moving is not None:
            outcomes[i] = service.move_game(moving.id, None)
        else:
            outcomes[i] = service.create_game(chat, user, creator_name=f"U{user}")
    except NotAllowed as e:
        outcomes[i] = e.code
    except BaseException as e:  # reported by the test
        outcomes[i] = e


def place_race(one: GameService, two: GameService, rounds: int) -> None:
    """Two "processes" put a game into the same place of a fresh chat at the same moment
    (both create one, or one creates while the other moves a game there from a topic):
    exactly one gets there, the other is refused with ``place_taken``."""
    for n in range(rounds):
        chat = -50_000 - n
        topic_game = one.create_game(chat, 9, topic_id=5, creator_name="T") if n % 2 else None
        barrier = threading.Barrier(2)
        outcomes: list[object] = [None, None]
        threads = [
            threading.Thread(target=_put, args=(one, barrier, chat, 1, None, outcomes, 0)),
            threading.Thread(target=_put, args=(two, barrier, chat, 2, topic_game, outcomes, 1)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(isinstance(o, GameInfo) for o in outcomes) == [False, True], outcomes
        assert "place_taken" in outcomes, outcomes
        assert len(one.games_in_chat(chat)) == 1


def test_one_open_game_per_place_sqlite(sqlite_url: str, clock: FakeClock) -> None:
    one, two, dbs = _pair(sqlite_url, clock)
    place_race(one, two, 40)
    for db in dbs:
        db.dispose()


@pytest.mark.postgres
def test_one_open_game_per_place_postgres(pg_url: str, clock: FakeClock) -> None:
    Database(pg_url).dispose()  # migrate the fresh schema
    one, two, dbs = _pair(pg_url, clock)
    place_race(one, two, 100)
    for db in dbs:
        db.dispose()
