"""Service benchmark: act() latency, the sweep's cost per due game, a snapshot's size and cost.

    python benchmarks/service_bench.py                      # SQLite file in a temp dir
    python benchmarks/service_bench.py --postgres URL       # also PostgreSQL
    (KOLKHOZ_TEST_POSTGRES_URL is used when --postgres is not given; without either, a
    PostgreSQL at 127.0.0.1:5432, database ``test``, is tried and skipped if not reachable)

- act() is timed alone (the view reads a front end does around it are not), on ``--live``
  (200) running games of four humans, one move per game in turn, each playing the first legal
  action. The PostgreSQL / SQLite ratio is printed at the end.
- The sweep is timed with 10, 100 and 1,000 games due among ``--games`` (10,000) active ones
  (copies of one real game, so each due game is a real timeout: a move, the automatic moves
  after it, a new clock, notifications): the cost per due game (wall time, and the CPU time
  of this process, steadier on a busy machine), and the SQL statements and transactions per
  due game. Then one sweep with 0, 1, 10 and 100 due among them: its cost should follow the
  due games, not all games.
- The engine snapshot (``Game.to_json()``) of mid-game states: bytes as stored, and the time
  of ``to_json`` and ``Game.from_json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PRESETS, Game
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database, normalize_url, scratch_schema
from kolkhoz_tg.storage.models import GameRow, SeatRow
from kolkhoz_tg.timeutil import FakeClock

LOCAL_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def _service(url: str, clock: FakeClock) -> GameService:
    settings = Settings(_env_file=None, database_url=url, locale="en")  # type: ignore[call-arg]
    return GameService(Database(url), clock=clock, settings=settings)


def _new_game(service: GameService, seed: int) -> int:
    game = service.create_game(-seed, 1, creator_name="A", seed=seed)
    for uid in (2, 3, 4):
        service.join(game.id, uid, f"U{uid}")
    service.start(game.id, 1)
    return game.id


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class _Counter:
    """SQL statements and committed transactions on an engine, while counting."""

    def __init__(self, engine: sa.Engine) -> None:
        self.statements = 0
        self.commits = 0
        self.on = False
        sa.event.listen(engine, "before_cursor_execute", self._statement)
        sa.event.listen(engine, "commit", self._commit)

    def _statement(self, *_args: Any) -> None:
        if self.on:
            self.statements += 1

    def _commit(self, *_args: Any) -> None:
        if self.on:
            self.commits += 1

    @contextmanager
    def counting(self) -> Iterator[None]:
        self.statements = self.commits = 0
        self.on = True
        try:
            yield
        finally:
            self.on = False


# ---------------------------------------------------------------------- act()


class Mover:
    """Makes one timed act() at a time, round-robin over ``live`` running games (a game
    that ends is replaced by a new one)."""

    def __init__(self, service: GameService, live: int, seed: int = 1000) -> None:
        self.service = service
        self.seed = seed + live
        self.games = [_new_game(service, seed + i) for i in range(live)]
        self.i = 0

    def one(self) -> float:
        """One act() on the next game; its latency in ms."""
        service = self.service
        while True:
            slot = self.i % len(self.games)
            self.i += 1
            game_id = self.games[slot]
            board = service.board(game_id)
            if board.game.status != "active" or board.view is None:
                self.games[slot] = _new_game(service, self.seed)
                self.seed += 1
                continue
            seat = board.view.to_act[0]
            user = next(s.user_id for s in board.game.seats if s.seat == seat)
            assert user is not None
            view = service.seat_view(game_id, user)
            t = time.perf_counter()
            result = service.act(game_id, user, view.legal[0], view.game.version)
            elapsed = (time.perf_counter() - t) * 1000
            assert result.ok, result
            return elapsed


def bench_act(service: GameService, n: int, live: int) -> list[float]:
    """act() latencies (ms) over ``n`` calls, round-robin over ``live`` running games."""
    mover = Mover(service, live)
    return [mover.one() for _ in range(n)]


def paired_act(a: GameService, b: GameService, n: int, live: int) -> tuple[
        list[float], list[float]]:
    """act() on ``a`` and on ``b`` in turn, ``n`` of each, so that both meet the same load
    on a noisy machine: the fair ratio of the two."""
    ma, mb = Mover(a, live), Mover(b, live)
    sa: list[float] = []
    sb: list[float] = []
    for _ in range(n):
        sa.append(ma.one())
        sb.append(mb.one())
    return sa, sb


# ---------------------------------------------------------------------- the sweep


def fill_games(service: GameService, clock: FakeClock, total: int) -> list[int]:
    """``total`` active games (copies of one real game), deadlines spread over a day ahead."""
    template_id = _new_game(service, 1)
    engine = service.db.engine
    with engine.begin() as conn:
        game = conn.execute(sa.select(GameRow.__table__).where(
            GameRow.__table__.c.id == template_id)).mappings().one()
        seats = conn.execute(sa.select(SeatRow.__table__).where(
            SeatRow.__table__.c.game_id == template_id)).mappings().all()
        base = dict(game)
        base.pop("id")
        now = clock.now()
        rows = []
        for i in range(total - 1):
            due = now + timedelta(hours=1) + timedelta(seconds=80_000 * i / total)
            rows.append({**base, "deadline": due, "next_due": due, "next_reminder": None})
        ids: list[int] = []
        chunk = 1000
        for start in range(0, len(rows), chunk):
            part = rows[start:start + chunk]
            result = conn.execute(
                sa.insert(GameRow.__table__).returning(GameRow.__table__.c.id), part
            )
            ids.extend(r[0] for r in result)
        seat_rows = [
            {**dict(s), "game_id": gid, "remind_at": None, "reminders": []}
            for gid in ids
            for s in seats
        ]
        for start in range(0, len(seat_rows), 4000):
            conn.execute(sa.insert(SeatRow.__table__), seat_rows[start:start + 4000])
    return [template_id, *ids]


def make_due(service: GameService, ids: list[int], count: int, clock: FakeClock) -> None:
    past = clock.now() - timedelta(seconds=1)
    table = GameRow.__table__  # type: ignore[attr-defined]
    with service.db.engine.begin() as conn:
        for start in range(0, count, 1000):
            conn.execute(
                sa.update(table).where(table.c.id.in_(ids[start:min(count, start + 1000)]))
                .values(deadline=past, next_due=past)
            )


def _nothing_due(service: GameService, clock: FakeClock) -> None:
    """Move every clock (the template games' own too) out of the way."""
    table = GameRow.__table__  # type: ignore[attr-defined]
    later = clock.now() + timedelta(hours=2)
    with service.db.engine.begin() as conn:
        conn.execute(sa.update(table).where(table.c.next_due < later).values(
            next_due=later, deadline=later, next_reminder=None))


def _sweep_all(service: GameService, batch: int | None = None) -> int:
    """Sweep until nothing is due (a sweep takes at most 500 games); the games checked."""
    checked = 0
    while True:
        result = service.sweep() if batch is None else service.sweep(batch=batch)
        checked += result.checked
        if result.checked == 0:
            return checked


def bench_sweep_per_game(
    service: GameService, clock: FakeClock, counter: _Counter, ids: list[int],
    dues: tuple[int, ...], batch: int | None = None,
) -> tuple[list[tuple[int, float, float, float, float]], list[int]]:
    """(due games, ms per due game, of it ms of this process's CPU, statements and commits
    per due game) for each count in ``dues``; returns the ids not used."""
    out = []
    fresh = list(ids)
    # Untimed: the first sweep in a process compiles its statements (tens of ms, once).
    make_due(service, fresh, 3, clock)
    fresh = fresh[3:]
    _sweep_all(service, batch)
    for due in dues:
        make_due(service, fresh, due, clock)
        fresh = fresh[due:]
        gc.collect()  # no collection owed by what ran before lands in this sweep
        with counter.counting():
            t, cpu = time.perf_counter(), time.process_time()
            checked = _sweep_all(service, batch)
            ms = (time.perf_counter() - t) * 1000
            cpu_ms = (time.process_time() - cpu) * 1000
        assert checked == due, (checked, due)
        out.append((due, ms / due, cpu_ms / due, counter.statements / due,
                    counter.commits / due))
    return out, fresh


def bench_sweep_scaling(
    service: GameService, clock: FakeClock, ids: list[int]
) -> tuple[list[tuple[int, float]], list[int]]:
    """(due games, ms per sweep) for 0, 1, 10 and 100 due; returns the ids not used."""
    out: list[tuple[int, float]] = []
    fresh = list(ids)
    for due in (0, 1, 10, 100):
        runs = []
        for _ in range(5 if due == 0 else 1):
            make_due(service, fresh, due, clock)
            fresh = fresh[due:]
            t = time.perf_counter()
            result = service.sweep()
            runs.append((time.perf_counter() - t) * 1000)
            assert result.checked == due, (result.checked, due)
        out.append((due, statistics.median(runs)))
    return out, fresh


# ---------------------------------------------------------------------- the snapshot


def bench_snapshot() -> tuple[float, float, float, int]:
    """(mean bytes as stored, µs per to_json, µs per from_json, states) over mid-game
    states: every preset, 3-5 players, 10 seeded random games each, the middle half."""
    states: list[Game] = []
    for rules in PRESETS.values():
        for players in (3, 4, 5):
            for seed in range(10):
                g = Game.new(rules, players, seed)
                rng = random.Random(seed)
                seen = []
                while not g.is_over:
                    seat = g.to_act[0]
                    g.apply(seat, rng.choice(g.legal_actions(seat)))
                    seen.append(g.copy())
                states.extend(seen[len(seen) // 4 : 3 * len(seen) // 4 : 5])
    blobs = [g.to_json() for g in states]
    size = statistics.fmean(len(json.dumps(b)) for b in blobs)  # as the JSON column stores it

    def best(fn: Any, items: list[Any]) -> float:
        times = []
        for _ in range(5):
            t = time.perf_counter()
            for x in items:
                fn(x)
            times.append(time.perf_counter() - t)
        return min(times) / len(items) * 1e6

    return size, best(Game.to_json, states), best(Game.from_json, blobs), len(states)


# ---------------------------------------------------------------------- main


def run(label: str, url: str, acts: int, live: int, games: int,
        batch: int | None = None) -> float:
    """Print the figures for one database; returns act()'s mean (ms)."""
    clock = FakeClock()
    service = _service(url, clock)
    counter = _Counter(service.db.engine)
    samples = bench_act(service, acts, live)
    print(f"{label}: act() over {len(samples)} calls on {live} live games: "
          f"p50 {_pct(samples, 0.5):.2f} ms, p99 {_pct(samples, 0.99):.2f} ms, "
          f"mean {statistics.fmean(samples):.2f} ms", flush=True)
    ids = fill_games(service, clock, games)
    _nothing_due(service, clock)
    per_game, ids = bench_sweep_per_game(service, clock, counter, ids, (10, 100, 1000), batch)
    for due, ms, cpu, statements, commits in per_game:
        print(f"{label}: sweep of {due:>4} due games among {games} active: "
              f"{ms:6.2f} ms per due game ({cpu:.2f} ms CPU here, {statements:.1f} statements, "
              f"{commits:.2f} transactions)", flush=True)
    _nothing_due(service, clock)
    scaling, _ = bench_sweep_scaling(service, clock, ids)
    for due, ms in scaling:
        print(f"{label}: sweep with {games:>6} active games, {due:>3} due: {ms:8.2f} ms",
              flush=True)
    service.db.dispose()
    return statistics.fmean(samples)


def _postgres_reachable(url: str) -> bool:
    try:
        engine = sa.create_engine(normalize_url(url))
        with engine.connect():
            pass
        engine.dispose()
        return True
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acts", type=int, default=2000)
    parser.add_argument("--live", type=int, default=200, help="running games act() moves in")
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--postgres", default=os.environ.get("KOLKHOZ_TEST_POSTGRES_URL"))
    parser.add_argument("--sqlite-only", action="store_true")
    parser.add_argument("--act-only", action="store_true",
                        help="only act() on SQLite and PostgreSQL in turn (about a minute)")
    parser.add_argument("--batch", type=int, default=None,
                        help="games per sweep transaction (default: the service's)")
    args = parser.parse_args()
    if args.games < 1300:
        parser.error("--games: at least 1300 (1,224 of them become due)")
    if args.act_only:
        paired(args.postgres or LOCAL_POSTGRES, args.acts, args.live)
        return
    size, enc, dec, count = bench_snapshot()
    print(f"snapshot: {size:.0f} bytes mean over {count} mid-game states; "
          f"to_json {enc:.1f} µs, from_json {dec:.1f} µs", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_mean = run("sqlite", f"sqlite:///{Path(tmp) / 'bench.sqlite3'}",
                          args.acts, args.live, args.games, args.batch)
    url = args.postgres or LOCAL_POSTGRES
    if args.sqlite_only or not _postgres_reachable(url):
        print("postgres: skipped (give --postgres URL or set KOLKHOZ_TEST_POSTGRES_URL)")
        return
    with scratch_schema(url, f"bench_{uuid.uuid4().hex[:10]}") as pg_url:
        pg_mean = run("postgres", pg_url, args.acts, args.live, args.games, args.batch)
    print(f"act() mean, PostgreSQL / SQLite, one after the other: "
          f"{pg_mean / sqlite_mean:.2f}")
    paired(url, args.acts, args.live)


def paired(url: str, acts: int, live: int) -> None:
    """act() on a SQLite file and on PostgreSQL in turn; prints both and the ratio."""
    with scratch_schema(url, f"bench_{uuid.uuid4().hex[:10]}") as pg_url, \
            tempfile.TemporaryDirectory() as tmp:
        lite = _service(f"sqlite:///{Path(tmp) / 'paired.sqlite3'}", FakeClock())
        pg = _service(pg_url, FakeClock())
        on_lite, on_pg = paired_act(lite, pg, acts, live)
        lite.db.dispose()
        pg.db.dispose()
    print(f"act() in turn on both, {acts} calls each on {live} live games: "
          f"SQLite p50 {_pct(on_lite, 0.5):.2f} ms, mean {statistics.fmean(on_lite):.2f} ms; "
          f"PostgreSQL p50 {_pct(on_pg, 0.5):.2f} ms, mean {statistics.fmean(on_pg):.2f} ms; "
          f"PostgreSQL / SQLite: {statistics.fmean(on_pg) / statistics.fmean(on_lite):.2f} "
          f"(means), {_pct(on_pg, 0.5) / _pct(on_lite, 0.5):.2f} (p50)")


if __name__ == "__main__":
    main()
