"""The bot under load: Bot API calls per card played, and tap-to-board-edit latency.

Runs the real PTB application on the in-process fake Telegram (tests/faketg) over a SQLite
file with many games in play (4 players each, all human), then taps cards in random games and
measures, for each tap, the time until the bot has answered the tap and edited the board
(upper bound: until the bot is idle again), and which Bot API calls it made.

Run: ``python benchmarks/bot_bench.py [--games 200] [--taps 400]``. PTB's rate limiter is off:
it would measure Telegram's pacing (20 messages a minute per group), not this code.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kolkhoz_tg.bot.app import DEPS_KEY, Deps, build_application
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from tests.faketg import FakeTelegram, FakeUser, inprocess_builder


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(games: int, taps: int, seed: int) -> None:
    tmp = Path(tempfile.mkdtemp())
    db = Database(f"sqlite:///{tmp / 'bench.sqlite3'}")
    settings = Settings(_env_file=None, database_url=str(db.url), locale="en")  # type: ignore[call-arg]
    service = GameService(db, settings=settings)
    fake = FakeTelegram()
    app = build_application(inprocess_builder(fake), service, schedule=False, rate_limiter=False)
    rng = random.Random(seed)
    players: dict[int, list[FakeUser]] = {}
    print(f"setting up {games} games of 4 players on SQLite ...", flush=True)
    started = time.perf_counter()
    async with fake.running(app):
        d: Deps = app.bot_data[DEPS_KEY]
        for g in range(games):
            users = [fake.user(10_000 + g * 4 + i, f"P{g}-{i}", language_code="en")
                     for i in range(4)]
            group = fake.create_group(f"Group {g}", users)
            for u in users:
                await u.start_bot(wait=False)
            await fake.wait_idle()
            info = service.create_game(group.id, users[0].id, creator_name=users[0].first_name)
            for u in users[1:]:
                service.join(info.id, u.id, u.first_name)
            result = service.start(info.id, users[0].id)
            await d.deliverer.refresh_board(info.id, resend=True)
            await d.deliverer.deliver(result.notifications)
            players[info.id] = users
        print(f"  ready in {time.perf_counter() - started:.1f} s", flush=True)
        latencies: list[float] = []
        per_kind: dict[str, list[collections.Counter[str]]] = collections.defaultdict(list)
        game_ids = list(players)
        done = 0
        while done < taps:
            game_id = rng.choice(game_ids)
            view = service.board(game_id).view
            if view is None or view["phase"] == "over":
                continue
            actor = next(u for u in players[game_id] if service.seat_view(game_id, u.id).to_act)
            msg = actor.last_message()
            buttons = [b.data for row in msg.buttons for b in row
                       if b.data and b.data.startswith("a:")] if msg else []
            if not buttons:
                continue
            data = rng.choice(buttons)
            trick_len = len(view["trick"])
            before = len(fake.sent_log)
            t0 = time.perf_counter()
            await actor.tap(msg, data)
            latencies.append(time.perf_counter() - t0)
            calls = collections.Counter(c.method for c in fake.sent_log[before:])
            kind = data.split(":")[3]
            if kind == "play" and trick_len < 3 and view["phase"] == "play":
                per_kind["card played, trick goes on"].append(calls)
            else:
                per_kind[kind].append(calls)
            done += 1
    print(f"\n{taps} taps across {games} games (SQLite file, in-process fake Telegram):")
    print(f"  tap-to-board-edit latency: p50 {statistics.median(latencies) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms")
    print("\nBot API calls per tap (mean):")
    for kind, counters in sorted(per_kind.items()):
        total: collections.Counter[str] = collections.Counter()
        for c in counters:
            total.update(c)
        mean = ", ".join(f"{m} {n / len(counters):.2f}" for m, n in sorted(total.items()))
        print(f"  {kind:<28} ({len(counters):>3} taps): {mean}")
    await fake.close()
    db.dispose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--taps", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(main(args.games, args.taps, args.seed))
