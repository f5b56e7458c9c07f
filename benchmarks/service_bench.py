"""Service benchmark: act() latency (p50/p99) and the cost of one sweep among 10,000 games.

    python benchmarks/service_bench.py                      # SQLite file in a temp dir
    python benchmarks/service_bench.py --postgres URL       # also PostgreSQL
    (KOLKHOZ_TEST_POSTGRES_URL is used when --postgres is not given)

act() is timed alone (the view reads a front end does around it are not), on games of four
humans playing the first legal action. The sweep is timed with 10,000 active games in the
table of which 0, 10 and 100 are due: its cost should follow the due games, not all games.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database, normalize_url
from kolkhoz_tg.storage.models import GameRow, SeatRow
from kolkhoz_tg.timeutil import FakeClock


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


def bench_act(service: GameService, n: int) -> list[float]:
    samples: list[float] = []
    seed = 1000
    game_id = _new_game(service, seed)
    while len(samples) < n:
        board = service.board(game_id)
        if board.game.status != "active" or board.view is None:
            seed += 1
            game_id = _new_game(service, seed)
            continue
        seat = board.view["to_act"][0]
        user = next(s.user_id for s in board.game.seats if s.seat == seat)
        assert user is not None
        view = service.seat_view(game_id, user)
        t = time.perf_counter()
        result = service.act(game_id, user, view.legal[0], view.game.version)
        samples.append((time.perf_counter() - t) * 1000)
        assert result.ok, result
    return samples


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
    table = GameRow.__table__
    with service.db.engine.begin() as conn:
        conn.execute(
            sa.update(table).where(table.c.id.in_(ids[:count]))
            .values(deadline=past, next_due=past)
        )


def bench_sweep(
    service: GameService, clock: FakeClock, sizes: tuple[int, ...]
) -> list[tuple[int, int, float]]:
    """(active games, due games, ms per sweep) for growing tables."""
    table = GameRow.__table__  # type: ignore[attr-defined]
    out: list[tuple[int, int, float]] = []
    ids: list[int] = []
    for size in sizes:
        ids += fill_games(service, clock, size - len(ids))
        # Nothing else due (the template games' own clocks are moved out of the way too).
        later = clock.now() + timedelta(hours=2)
        with service.db.engine.begin() as conn:
            conn.execute(sa.update(table).where(table.c.next_due < later).values(
                next_due=later, deadline=later, next_reminder=None))
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
            out.append((len(ids), due, statistics.median(runs)))
    return out


def run(label: str, url: str, acts: int, games: int) -> None:
    clock = FakeClock()
    service = _service(url, clock)
    samples = bench_act(service, acts)
    print(f"{label}: act() over {len(samples)} calls: p50 {_pct(samples, 0.5):.2f} ms, "
          f"p99 {_pct(samples, 0.99):.2f} ms, mean {statistics.fmean(samples):.2f} ms")
    sizes = tuple(sorted({min(1000, games), games}))
    for active, due, ms in bench_sweep(service, clock, sizes):
        print(f"{label}: sweep with {active:>6} active games, {due:>3} due: {ms:8.2f} ms")
    service.db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--acts", type=int, default=2000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--postgres", default=os.environ.get("KOLKHOZ_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run("sqlite", f"sqlite:///{Path(tmp) / 'bench.sqlite3'}", args.acts, args.games)
    if args.postgres:
        schema = f"bench_{uuid.uuid4().hex[:10]}"
        admin = sa.create_engine(normalize_url(args.postgres))
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        sep = "&" if "?" in args.postgres else "?"
        try:
            run("postgres", f"{normalize_url(args.postgres)}{sep}options=-csearch_path%3D{schema}",
                args.acts, args.games)
        finally:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            admin.dispose()
    else:
        print("postgres: skipped (give --postgres URL or set KOLKHOZ_TEST_POSTGRES_URL)")


if __name__ == "__main__":
    main()
