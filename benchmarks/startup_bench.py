"""Start-up and memory of ``kolkhoz bot`` as the number of games grows.

For each count of active games (four humans each, their deadlines a day away, in a SQLite
file made once and reused), starts the real ``kolkhoz bot`` in polling mode against the fake
Bot API over HTTP and measures the time from the process's start to its first
``getUpdates``, and its resident memory (VmRSS) a second later. The baseline, in the same
run: a bare python-telegram-bot application that only polls. Goals (issue: run it like a
service): start-up ≤ 2 s whatever the number of games; memory ≤ 1.5 × the bare bot + 2 kB
a game. ``--postgres URL`` runs the same on PostgreSQL (a schema of its own, dropped after).
``--downtime MINUTES`` also starts the bot again on the same data as if it had been down that
long since its previous run (it then gives every running game its time back).

Run: ``python benchmarks/startup_bench.py [--games 0 1000 10000] [--postgres URL]
[--downtime 10]``
(making 10,000 games takes a few minutes the first time; the files are kept in
``benchmarks/results/startup-games-N.sqlite3``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kolkhoz_tg.service import GameService  # noqa: E402
from kolkhoz_tg.storage.database import Database, scratch_schema  # noqa: E402
from tests.conftest import make_settings  # noqa: E402
from tests.faketg import FakeBotApiServer, FakeTelegram  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
BARE = """
import os
from telegram.ext import Application
app = (Application.builder().token(os.environ["KOLKHOZ_BOT_TOKEN"])
       .base_url(os.environ["KOLKHOZ_BOT_API_URL"] + "/bot")
       .base_file_url(os.environ["KOLKHOZ_BOT_API_URL"] + "/file/bot").build())
app.run_polling(poll_interval=0.5, timeout=1)
"""


def make_games(url: str, games: int) -> None:
    """``games`` running games of four humans (the users shared), made through the service,
    their messages settled as delivered."""
    service = GameService(Database(url), settings=make_settings(database_url=url))
    try:
        for i in range(games):
            chat = -1_000_000 - i
            info = service.create_game(chat, 1, creator_name="P1", seed=i)
            for user in (2, 3, 4):
                service.join(info.id, user, f"P{user}")
            service.start(info.id, 1)
            if i % 100 == 99 or i == games - 1:
                # Delivered, as in a bot that ran: the start-up is measured, not a backlog.
                while pending := service.pending_notifications(1000):
                    service.settle_notifications([n.id for n in pending])
            if i % 1000 == 999:
                print(f"    {i + 1} games made", flush=True)
    finally:
        service.db.dispose()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def measure(
    command: list[str], env: dict[str, str], fake: FakeTelegram, cwd: Path
) -> tuple[float, int]:
    """Seconds to the first getUpdates, and the RSS (kB) a second later."""
    polls = len(ARRIVALS)
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        while len(ARRIVALS) == polls:
            if proc.poll() is not None:
                raise RuntimeError(
                    proc.stderr.read().decode()[-2000:]  # type: ignore[union-attr]
                    if proc.stderr
                    else "the bot exited"
                )
            if time.perf_counter() - started > 300:
                raise RuntimeError("no getUpdates in 300 s")
            await asyncio.sleep(0.01)
        seconds = ARRIVALS[polls] - started
        await asyncio.sleep(1.0)
        return seconds, rss_kb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        await asyncio.sleep(2.0)  # its last long poll ends before the next one starts


#: When each getUpdates reached the fake (the fake logs a long poll only once it ends).
ARRIVALS: list[float] = []


def note_arrivals(fake: FakeTelegram) -> None:
    handlers: dict[str, Any] = fake._handlers  # (the fake's table of methods)
    answer = handlers["getupdates"]

    def noted(params: Any) -> Any:
        ARRIVALS.append(time.perf_counter())
        return answer(params)

    handlers["getupdates"] = noted


def beat_back(url: str, minutes: int) -> None:
    """Set the bot's last beat ``minutes`` before now, as if it had been down since."""
    import sqlalchemy as sa

    from kolkhoz_tg.service.faults import BOT_BEAT
    from kolkhoz_tg.storage.models import ClockBeatRow

    db = Database(url)
    try:
        with db.engine.begin() as conn:
            t = ClockBeatRow.__table__  # type: ignore[attr-defined]
            at = datetime.now(UTC) - timedelta(minutes=minutes)
            conn.execute(sa.update(t).where(t.c.name == BOT_BEAT).values(at=at))
    finally:
        db.dispose()


async def main(counts: list[int], postgres: str | None, downtime: int = 0) -> None:
    RESULTS.mkdir(exist_ok=True)
    fake = FakeTelegram()
    note_arrivals(fake)
    rows: list[tuple[str, float, int]] = []
    async with FakeBotApiServer(fake) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
        env.update(
            KOLKHOZ_BOT_TOKEN=fake.token,
            KOLKHOZ_BOT_API_URL=server.base_url,
            KOLKHOZ_LOCALE="en",
            KOLKHOZ_BOT_WORKERS="1",
            PYTHONPATH=str(ROOT),
        )
        with tempfile.TemporaryDirectory() as tmp:
            bare = await measure([sys.executable, "-c", BARE], env, fake, Path(tmp))
            print(
                f"bare PTB bot: {bare[0]:.2f} s to the first getUpdates, {bare[1] / 1024:.0f} MB",
                flush=True,
            )
            for n in counts:
                for db in ("sqlite", "postgres") if postgres else ("sqlite",):
                    schema = contextlib.ExitStack()  # the PostgreSQL schema, dropped at the end
                    if db == "sqlite":
                        path = RESULTS / f"startup-games-{n}.sqlite3"
                        if not path.exists():
                            print(f"  making {n} games in {path.name} ...", flush=True)
                            make_games(f"sqlite:///{path}", n)
                        # The bot runs on a copy: a bot that ran on the file leaves its beat,
                        # and the next start minutes later would find it "down" and give every
                        # game its time back (another benchmark than a plain start).
                        run_copy = Path(tmp) / path.name
                        shutil.copyfile(path, run_copy)
                        url = f"sqlite:///{run_copy}"
                    else:
                        url = schema.enter_context(
                            scratch_schema(postgres or "", f"startup_{n}_{int(time.time())}"))
                        print(f"  making {n} games on PostgreSQL ...", flush=True)
                        make_games(url, n)
                    run_env = dict(env, KOLKHOZ_DATABASE_URL=url)
                    seconds, kb = await measure(
                        [sys.executable, "-m", "kolkhoz_tg.cli", "bot"], run_env, fake, Path(tmp)
                    )
                    rows.append((f"{n} games ({db})", seconds, kb))
                    print(f"  {rows[-1][0]}: {seconds:.2f} s, {kb / 1024:.0f} MB", flush=True)
                    if downtime:
                        # The same data again, the bot's last beat ``downtime`` minutes ago:
                        # a restart after an outage (every game gets that time back).
                        beat_back(url, downtime)
                        seconds, kb = await measure(
                            [sys.executable, "-m", "kolkhoz_tg.cli", "bot"],
                            run_env,
                            fake,
                            Path(tmp),
                        )
                        rows.append((f"{n} games ({db}), {downtime} min down", seconds, kb))
                        print(f"  {rows[-1][0]}: {seconds:.2f} s, {kb / 1024:.0f} MB", flush=True)
                    schema.close()
    await fake.close()
    print()
    print(f"{'':40} {'start-up':>10} {'×bare':>6} {'memory':>8} {'goal (MB)':>10}")
    print(f"{'bare PTB bot':40} {bare[0]:>9.2f}s {1:>6.1f} {bare[1] / 1024:>7.0f}M")
    for name, seconds, kb in rows:
        n = int(name.split()[0])
        goal = (1.5 * bare[1] + 2 * n) / 1024
        print(
            f"{name:40} {seconds:>9.2f}s {seconds / bare[0]:>6.1f} {kb / 1024:>7.0f}M "
            f"{goal:>9.0f}M   goal: ≤ 2 s, memory ≤ 1.5 × bare + 2 kB a game"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[0, 1000])
    parser.add_argument("--postgres", default=None, help="also on this PostgreSQL URL")
    parser.add_argument(
        "--downtime",
        type=int,
        default=0,
        metavar="MINUTES",
        help="also start each again as after MINUTES of outage",
    )
    args = parser.parse_args()
    asyncio.run(main(args.games, args.postgres, args.downtime))
