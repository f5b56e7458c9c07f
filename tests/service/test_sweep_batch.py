"""The sweep handles due games in batches, one transaction per batch: the same outcome as one
game per transaction, far fewer statements, and still safe with two sweepers at once."""

from __future__ import annotations

import logging
import math
import shutil
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from kolkhoz_tg.service import GameService, Kind, SweepResult
from kolkhoz_tg.service.clock import SWEEP_BATCH
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.storage.models import ActionRow, GameRow, NotificationRow, SeatRow
from kolkhoz_tg.timeutil import FakeClock
from tests.conftest import make_settings
from tests.service.helpers import new_game, random_chooser, step

TABLES = (GameRow, SeatRow, ActionRow, NotificationRow)


def _mixed_games(service: GameService, count: int) -> list[int]:
    """Games whose clocks fall due differently: time limits of 1, 2 and 4 hours (after an
    hour and a second: a timeout, a reminder, nothing), stand-ins after one or two
    timeouts, a few moves made in some, one game paused and one with bots only around a
    single human."""
    ids: list[int] = []
    for i in range(count):
        game, _ = new_game(
            service, seed=i, chat_id=-1000 - i, humans=1 if i % 9 == 4 else 4,
            turn_timeout=("1h", "2h", "4h")[i % 3], standin_after=1 + i % 2,
        )
        ids.append(game.id)
        chooser = random_chooser(i)
        for _ in range(i % 4):
            step(service, game.id, chooser)
    service.pause(ids[5], 1)
    return ids


def _dump(service: GameService) -> dict[str, list[dict[str, Any]]]:
    """Every row the sweep may write, in key order."""
    out: dict[str, list[dict[str, Any]]] = {}
    with service.db.engine.connect() as conn:
        for model in TABLES:
            t = model.__table__  # type: ignore[attr-defined]
            rows = conn.execute(sa.select(t).order_by(*t.primary_key.columns)).mappings()
            out[t.name] = [dict(r) for r in rows]
    return out


def _records(result: SweepResult) -> list[tuple[Any, ...]]:
    return [(n.id, n.kind, n.game_id, n.user_id, n.seat, n.version, n.payload)
            for n in result.notifications]


@pytest.fixture
def twin(sqlite_url: str, tmp_path: Path) -> Iterator[tuple[GameService, GameService]]:
    """Two services on two copies of the same empty database, each with its own clock."""
    other = tmp_path / "twin.sqlite3"
    shutil.copy(sqlite_url.removeprefix("sqlite:///"), other)
    dbs = [Database(sqlite_url, run_migrations=False),
           Database(f"sqlite:///{other}", run_migrations=False)]
    services = [GameService(db, clock=FakeClock(), settings=make_settings()) for db in dbs]
    yield services[0], services[1]
    for db in dbs:
        db.dispose()


def test_batches_change_nothing_but_the_transactions(
    twin: tuple[GameService, GameService],
) -> None:
    """The same games swept one per transaction (what the sweep did before batches) and in
    batches of 20 and of 7 end with the same rows everywhere (games, seats, action log,
    outbox) and the same notifications, round after round of timeouts, reminders and
    stand-ins until the games end."""
    alone, batched = twin
    ids = _mixed_games(alone, 45)
    assert _mixed_games(batched, 45) == ids
    assert _dump(alone) == _dump(batched)
    rounds = 0
    open_games = set(ids) - {ids[5]}  # the paused one stays
    while open_games:
        rounds += 1
        assert rounds < 100
        for service in twin:
            service.clock.advance(timedelta(hours=1, seconds=1))  # type: ignore[attr-defined]
        one = alone.sweep(batch=1)
        many = batched.sweep(batch=20 if rounds % 2 else 7)
        assert (one.checked, one.processed) == (many.checked, many.processed)
        assert _records(one) == _records(many)
        assert _dump(alone) == _dump(batched), rounds
        open_games = {i for i in open_games if alone.game_info(i).status != "finished"}
    assert alone.game_info(ids[5]).status == "paused"


def test_a_game_that_fails_does_not_hold_up_the_rest_of_its_batch(
    service: GameService, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """An error in one game's timeout rolls back its batch, which is then done one game per
    transaction: the games before it and after it are handled, and the error is logged
    (raised, it would stop every sweep at the same most overdue game)."""
    ids = [new_game(service, seed=s, chat_id=-s - 1)[0].id for s in range(5)]
    with service.db.write() as s:
        row = s.get(GameRow, ids[2])
        assert row is not None
        row.state = {"format": "not a game"}
        for i, game_id in enumerate(ids):  # the sweep's order: most overdue first
            game = s.get(GameRow, game_id)
            assert game is not None and game.next_due is not None
            game.next_due -= timedelta(minutes=10 - i)
    service.kernel.engine_cache.clear()
    clock.advance(timedelta(days=1, seconds=1))
    with caplog.at_level(logging.ERROR, logger="kolkhoz_tg.service.clock"):
        service.sweep()
    assert any(f"game {ids[2]} failed" in r.getMessage() and r.exc_info
               and "not a Kolkhoz game snapshot" in str(r.exc_info[1])
               for r in caplog.records)
    others = [i for i in ids if i != ids[2]]
    timed = {e["actor"] for i in others for e in service.action_log(i)[-1:]}
    assert timed == {"timeout"}
    assert all(e["actor"] != "timeout" for e in service.action_log(ids[2]))


def test_a_lost_race_in_a_batch_loses_only_that_game(
    service: GameService, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A version race lost on one game (another writer behind the locks) costs that game
    alone its timeout, as before: the rest of the batch is handled."""
    ids = [new_game(service, seed=s, chat_id=-s - 1)[0].id for s in range(6)]
    clock.advance(timedelta(days=1, seconds=1))
    original = Kernel.open_tx

    def sneaky(self: Kernel, s: Any, row: GameRow, seats: Any = None) -> Any:
        if row.id == ids[3]:
            s.execute(sa.update(GameRow).where(GameRow.id == row.id)  # type: ignore[arg-type]
                      .values(version=row.version + 1)
                      .execution_options(synchronize_session=False))
        return original(self, s, row, seats)

    monkeypatch.setattr(Kernel, "open_tx", sneaky)
    result = service.sweep()
    monkeypatch.undo()
    timed = sorted(n.game_id for n in result.notifications if n.kind is Kind.TIMED_OUT)
    assert result.checked == 6 and result.processed == 5
    assert timed == sorted(set(ids) - {ids[3]})
    # Nothing of the lost game was kept; it is still due and the next sweep handles it.
    assert all(e["actor"] != "timeout" for e in service.action_log(ids[3]))
    again = service.sweep()
    assert [n.game_id for n in again.notifications if n.kind is Kind.TIMED_OUT] == [ids[3]]


def test_one_transaction_and_a_few_statements_per_batch(
    service: GameService, clock: FakeClock
) -> None:
    games = 2 * SWEEP_BATCH + 5
    for s in range(games):
        new_game(service, seed=s, chat_id=-s - 1)
    clock.advance(timedelta(days=1, seconds=1))
    statements, commits = [0], [0]

    def count(*_args: Any) -> None:
        statements[0] += 1

    def commit(*_args: Any) -> None:
        commits[0] += 1

    engine = service.db.engine
    sa.event.listen(engine, "before_cursor_execute", count)
    sa.event.listen(engine, "commit", commit)
    try:
        result = service.sweep()
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)
        sa.event.remove(engine, "commit", commit)
    assert result.checked == result.processed == games
    # The read of the due ids, then one write transaction per batch.
    assert commits[0] == 1 + math.ceil(games / SWEEP_BATCH)
    # One game per transaction took 12 statements per game on SQLite; now about 6.
    assert statements[0] <= 8 * games, statements[0] / games


def _two_sweepers(services: list[GameService], clock: FakeClock, games: int) -> None:
    ids = [new_game(services[0], seed=s, chat_id=-s - 1)[0].id for s in range(games)]
    clock.advance(timedelta(days=1, seconds=1))
    results: list[SweepResult] = []
    barrier = threading.Barrier(2)

    def run(service: GameService, batch: int) -> None:
        barrier.wait()
        results.append(service.sweep(batch=batch))

    threads = [threading.Thread(target=run, args=(services[0], 7)),
               threading.Thread(target=run, args=(services[1], 5))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    timed = [n for r in results for n in r.notifications if n.kind is Kind.TIMED_OUT]
    assert sorted(n.game_id for n in timed) == sorted(ids)
    assert sum(r.processed for r in results) == games
    for game_id in ids:
        log = services[0].action_log(game_id)
        assert sum(e["actor"] == "timeout" for e in log) == 1
        assert [e["seq"] for e in log] == list(range(len(log)))


@pytest.mark.parametrize("url_fixture", ["sqlite_url", "pg_url"])
def test_two_sweepers_in_batches(
    url_fixture: str, request: pytest.FixtureRequest, clock: FakeClock
) -> None:
    url = request.getfixturevalue(url_fixture)  # pg_url skips where PostgreSQL is absent
    Database(url).dispose()  # the schema, once
    dbs = [Database(url, run_migrations=False) for _ in range(2)]
    services = [GameService(db, clock=clock, settings=make_settings()) for db in dbs]
    try:
        _two_sweepers(services, clock, 40)
    finally:
        for db in dbs:
            db.dispose()


def test_restored_snapshots_number_the_moves_on(service: GameService, clock: FakeClock) -> None:
    """Snapshots no longer list the moves: a game loaded from its snapshot (no cached
    state) still numbers its next moves after the ones in the action log."""
    game, _ = new_game(service, seed=6)
    chooser = random_chooser(6)
    for _ in range(30):
        service.kernel.engine_cache.clear()
        if not step(service, game.id, chooser):
            break
        if _ % 7 == 3:
            service.kernel.engine_cache.clear()
            clock.advance(timedelta(days=1, seconds=1))
            service.sweep()
    log = service.action_log(game.id)
    assert [e["seq"] for e in log] == list(range(len(log))) and len(log) > 30
    snapshot = service.snapshot(game.id)
    assert snapshot is not None and len(snapshot.log) == len(log)
    assert service.replay(game.id) == snapshot
