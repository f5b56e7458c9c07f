"""Soak: ``kill -9`` the real bot at random moments, mid-send included, and count doubled
messages and how long what was owed waited after each restart (issue #35).

The real ``kolkhoz bot`` runs in polling mode against the fake Bot API served over HTTP.
Games of two players and two ``normal`` computer players are played by taps (the players'
newest move buttons). The fake holds every new message a while, partly before it takes
effect and mostly after (``--hold``), so many kills land while a send is in flight: some
reached Telegram and lost only their reply, some never arrived. The bot is killed
(SIGKILL) ``--kills`` times, half of them the moment a send is in flight, the others at a
random moment, and started again at once. Counted:

- doubles: new messages with the same chat and text sent more than once (each message the
  bot sends names the game's state, so one notification's message sent twice reads the
  same);
- per restart, each notification the outbox owed at the kill: the seconds from the restart
  (the new process's start) to its ``delivered_at``. Target: 0 doubles, every one within
  5 s of the restart.

Baseline: the same run with the bot of another checkout (``--code DIR``, e.g. the code
before the fix), whose bot sends a maybe-arrived message again.

Run: ``python benchmarks/soak_bench.py [--kills 20] [--seed 1] [--postgres URL]
[--code DIR]`` (about two minutes per database).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import inspect
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PARSER = argparse.ArgumentParser(description=__doc__.splitlines()[0])
PARSER.add_argument("--kills", type=int, default=20)
PARSER.add_argument("--seed", type=int, default=1)
PARSER.add_argument("--games", type=int, default=3)
PARSER.add_argument(
    "--hold",
    type=float,
    default=0.4,
    help="seconds the fake holds each new message (a tenth before it takes effect, the rest after)",
)
PARSER.add_argument("--postgres", default=None, help="run on this PostgreSQL (else SQLite)")
PARSER.add_argument(
    "--code", default=None, help="the checkout whose bot (and service) to run (default: this one)"
)
ARGS = PARSER.parse_args() if __name__ == "__main__" else PARSER.parse_args([])
ROOT = Path(ARGS.code).resolve() if ARGS.code else Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402

from kolkhoz_tg.service import GameService  # noqa: E402
from kolkhoz_tg.storage.database import Database, scratch_schema  # noqa: E402
from kolkhoz_tg.storage.models import NotificationRow  # noqa: E402
from tests.conftest import make_settings  # noqa: E402
from tests.faketg import FakeBotApiServer, FakeTelegram, FakeUser  # noqa: E402

#: The longest wait for what a restart owes before the soak goes on (seconds).
OWED_WAIT = 20.0
TARGET = 5.0


@dataclass
class Soak:
    """What the fake saw, and what the soak measured."""

    #: New messages that took effect: (chat, text).
    sent: list[tuple[int, str]] = field(default_factory=list)
    #: Sends being held now: [took effect?].
    in_flight: list[list[bool]] = field(default_factory=list)
    polls: int = 0
    kills_mid_send: int = 0
    kills_arrived: int = 0
    #: Per restart: seconds from the restart to each owed notification's delivery.
    delays: list[list[float]] = field(default_factory=list)
    late: list[str] = field(default_factory=list)
    taps: int = 0
    games: int = 0
    #: How often a player asked for their cards with /hand (no game message reached them).
    asked: int = 0
    #: Per start: seconds from the process's start to its first getUpdates.
    up: list[float] = field(default_factory=list)
    #: Per restart: seconds from the first getUpdates to each owed notification's delivery.
    after_up: list[float] = field(default_factory=list)
    #: Players to move with no message with move buttons, at the end.
    stuck: list[tuple[FakeUser, int]] = field(default_factory=list)


def instrument(fake: FakeTelegram, soak: Soak, hold: float) -> None:
    """Record every new message, hold it ``hold`` seconds (a tenth before it takes effect),
    and note the long polls (the bot is up)."""
    handlers: dict[str, Any] = fake._handlers  # (the fake's table of methods)
    for method in ("sendmessage", "sendphoto", "sendrichmessage"):
        answer = handlers.get(method)
        if answer is None:
            continue

        async def held(params: Any, answer: Any = answer) -> Any:
            state = [False]
            soak.in_flight.append(state)
            try:
                await asyncio.sleep(hold / 10)
                result = answer(params)
                if inspect.isawaitable(result):
                    result = await result
                state[0] = True
                soak.sent.append(
                    (
                        int(result["chat"]["id"]),
                        str(result.get("text") or result.get("caption") or ""),
                    )
                )
                await asyncio.sleep(hold * 0.9)
                return result
            finally:
                soak.in_flight.remove(state)

        handlers[method] = held
    polls = handlers["getupdates"]

    def poll(params: Any) -> Any:
        soak.polls += 1
        return polls(params)

    handlers["getupdates"] = poll


def make_games(
    service: GameService, fake: FakeTelegram, games: int, base: int
) -> dict[int, list[FakeUser]]:
    """``games`` groups of two players, each with a running game (and two ``normal``
    computer players): the players by group."""
    groups: dict[int, list[FakeUser]] = {}
    for g in range(games):
        pair = [fake.user(base + 10 * g + i, f"P{g}{i}", language_code="en") for i in (1, 2)]
        for u in pair:
            u.started = True
        groups[fake.create_group(f"Soak {g}", pair).id] = pair
    new_games(service, groups)
    return groups


def new_games(service: GameService, groups: dict[int, list[FakeUser]]) -> int:
    """A new game in each group whose game is over; how many."""
    made = 0
    for chat, pair in groups.items():
        if service.games_in_chat(chat):
            continue
        info = service.create_game(chat, pair[0].id, creator_name=pair[0].first_name)
        service.join(info.id, pair[1].id, pair[1].first_name)
        for _ in range(2):
            service.add_ai_player(info.id, pair[0].id, level="normal")
        service.start(info.id, pair[0].id)
        made += 1
    return made


async def refill(service: GameService, groups: dict[int, list[FakeUser]], soak: Soak) -> None:
    """Keep a game running in every group (the soak never runs out of moves)."""
    while True:
        await asyncio.sleep(1.0)
        soak.games += await asyncio.to_thread(new_games, service, groups)


async def tapper(humans: list[FakeUser], soak: Soak, rng: random.Random) -> None:
    """Tap the players' newest move buttons, one tap every 0.2-0.5 s: each message once,
    or again when it has not changed for 3 s (a tap the killed bot had fetched and never
    answered is lost, as a player's would be: they tap again)."""
    tapped: dict[tuple[int, int, str], float] = {}
    while True:
        await asyncio.sleep(rng.uniform(0.2, 0.5))
        for user in rng.sample(humans, len(humans)):
            msg = user.last_message()
            buttons = [
                b.data
                for row in (msg.buttons if msg else [])
                for b in row
                if b.data and b.data.startswith("a:")
            ]
            if msg is None or not buttons:
                continue
            key = (user.id, msg.message_id, msg.text or "")
            if time.monotonic() - tapped.get(key, -10.0) < 3.0:
                continue
            tapped[key] = time.monotonic()
            await user.tap(msg, buttons[0], wait=False)
            soak.taps += 1
            break


async def asker(service: GameService, groups: dict[int, list[FakeUser]], soak: Soak) -> None:
    """A player whose move it is (the group's board says so) and who has no message with
    move buttons for 3 s asks for their cards with /hand in the group, as a player would
    (a first game message whose send may have arrived is not sent again: it may not have)."""
    waiting: dict[int, float] = {}
    humans = [u for pair in groups.values() for u in pair]
    while True:
        await asyncio.sleep(1.0)
        blocked = await asyncio.to_thread(stuck, service, humans)
        now = time.monotonic()
        for user, _game in blocked:
            since = waiting.setdefault(user.id, now)
            if now - since >= 3.0:
                chat = next(c for c, pair in groups.items() if user in pair)
                await user.send(chat, "/hand", wait=False)
                soak.asked += 1
                waiting[user.id] = now + 7.0  # (once more after 10 s)
        for gone in set(waiting) - {u.id for u, _g in blocked}:
            del waiting[gone]


def owed(service: GameService) -> dict[int, str]:
    t = NotificationRow.__table__  # type: ignore[attr-defined]
    with service.db.read() as s:
        return {
            int(r.id): str(r.kind)
            for r in s.execute(sa.select(t.c.id, t.c.kind).where(t.c.delivered_at.is_(None)))
        }


def delivered(service: GameService, ids: list[int]) -> dict[int, datetime]:
    t = NotificationRow.__table__  # type: ignore[attr-defined]
    with service.db.read() as s:
        rows = s.execute(
            sa.select(t.c.id, t.c.delivered_at).where(
                t.c.id.in_(ids), t.c.delivered_at.is_not(None)
            )
        ).all()
    return {
        int(r.id): r.delivered_at if r.delivered_at.tzinfo else r.delivered_at.replace(tzinfo=UTC)
        for r in rows
    }


def stuck(service: GameService, humans: list[FakeUser]) -> list[tuple[FakeUser, int]]:
    """Players whose move it is in a running game and who have no message with move
    buttons (the turn did not reach them), with the game."""
    out = []
    for user in humans:
        for game in service.games_of_user(user.id):
            if game.status != "active" or not service.seat_view(game.id, user.id).to_act:
                continue
            if not any(
                b.data and b.data.startswith("a:")
                for m in user.private_messages()
                for row in m.buttons
                for b in row
            ):
                out.append((user, game.id))
    return out


class Bot:
    """The real bot in a process of its own."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> datetime:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kolkhoz_tg.cli", "bot"],
                env=self.env,
                cwd=tempfile.gettempdir(),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        return datetime.now(UTC)

    def kill(self, sig: int = signal.SIGKILL) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        self.proc.wait(30)


async def wait_owed(service: GameService, ids: dict[int, str], since: datetime, soak: Soak) -> None:
    """Wait until every notification in ``ids`` is delivered (at most OWED_WAIT s);
    note the delays from ``since`` (the restart) and from the bot's first getUpdates."""
    ends = time.monotonic() + OWED_WAIT
    done: dict[int, datetime] = {}
    polls = soak.polls
    up: datetime | None = None
    while len(done) < len(ids) and time.monotonic() < ends:
        await asyncio.sleep(0.05)
        if up is None and soak.polls != polls:
            up = datetime.now(UTC)
        done.update(await asyncio.to_thread(delivered, service, list(set(ids) - set(done))))
    delays = [(at - since).total_seconds() for at in done.values()]
    soak.after_up += [max(0.0, (at - (up or since)).total_seconds()) for at in done.values()]
    soak.delays.append(delays)
    for n in set(ids) - set(done):
        soak.late.append(f"notification {n} ({ids[n]}) not delivered in {OWED_WAIT:g} s")
    soak.late += [
        f"notification {n} ({ids[n]}) after {(at - since).total_seconds():.1f} s"
        for n, at in done.items()
        if (at - since).total_seconds() > TARGET
    ]


async def kill_moment(bot: Bot, soak: Soak, rng: random.Random, mid_send: bool) -> None:
    """Kill the bot: the moment a send is in flight (``mid_send``, at most 8 s on), else
    after a random 0.3-3 s."""
    if mid_send:
        ends = time.monotonic() + 8.0
        await asyncio.sleep(rng.uniform(0.0, 0.5))
        while not soak.in_flight and time.monotonic() < ends:
            await asyncio.sleep(0.005)
        await asyncio.sleep(rng.uniform(0.0, 0.3))
    else:
        await asyncio.sleep(rng.uniform(0.3, 3.0))
    flying = [list(s) for s in soak.in_flight]
    bot.kill()
    if flying:
        soak.kills_mid_send += 1
        soak.kills_arrived += any(s[0] for s in flying)


async def soak_run(url: str, label: str, kills: int, seed: int, games: int, hold: float) -> Soak:
    rng = random.Random(seed)
    soak = Soak()
    fake = FakeTelegram()
    instrument(fake, soak, hold)
    service = GameService(Database(url), settings=make_settings(database_url=url))
    groups = make_games(service, fake, games, base=50_000)
    humans = [u for pair in groups.values() for u in pair]
    soak.games = games
    log = Path(tempfile.gettempdir()) / f"soak-{label}-{os.getpid()}.log"
    try:
        async with FakeBotApiServer(fake) as server:
            env = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
            env.update(
                KOLKHOZ_BOT_TOKEN=fake.token,
                KOLKHOZ_BOT_API_URL=server.base_url,
                KOLKHOZ_DATABASE_URL=url,
                KOLKHOZ_LOCALE="en",
                KOLKHOZ_BOT_WORKERS="0",
                KOLKHOZ_BOT_LEVEL="normal",
                PYTHONPATH=str(ROOT),
            )
            bot = Bot(env, log)
            taps = asyncio.create_task(tapper(humans, soak, rng))
            refills = asyncio.create_task(refill(service, groups, soak))
            asks = asyncio.create_task(asker(service, groups, soak))
            polls, begun = soak.polls, time.monotonic()
            started = bot.start()
            for i in range(kills):
                while soak.polls == polls:  # up: polling
                    await asyncio.sleep(0.01)
                soak.up.append(time.monotonic() - begun)
                await kill_moment(bot, soak, rng, mid_send=i % 2 == 0)
                ids = await asyncio.to_thread(owed, service)
                polls, begun = soak.polls, time.monotonic()
                started = bot.start()
                await wait_owed(service, ids, started, soak)
                print(
                    f"  kill {i + 1:2}: {len(ids):2} owed, all delivered within "
                    f"{max(soak.delays[-1], default=0):.2f} s of the restart",
                    flush=True,
                )
            await asyncio.sleep(5.0)  # what the last taps brought goes out
            taps.cancel()
            refills.cancel()
            asks.cancel()
            soak.stuck = await asyncio.to_thread(stuck, service, humans)
            proc = bot.proc
            assert proc is not None
            proc.send_signal(signal.SIGTERM)  # (it says goodbye to the fake: not blocked)
            try:
                await asyncio.to_thread(proc.wait, 30)
            except subprocess.TimeoutExpired:
                bot.kill()
    finally:
        service.db.dispose()
        await fake.close()
    return soak


def doubles(soak: Soak) -> list[tuple[tuple[int, str], int]]:
    counts = collections.Counter(soak.sent)
    return [(key, n) for key, n in counts.items() if n > 1]


def report(label: str, soak: Soak) -> None:
    twice = doubles(soak)
    flat = [d for per in soak.delays for d in per]
    print(
        f"\n{label}: {len(soak.delays)} kills ({soak.kills_mid_send} with a send in flight, "
        f"{soak.kills_arrived} of them after it had reached the fake), {soak.games} games, "
        f"{soak.taps} taps, "
        f"{len(soak.sent)} new messages"
    )
    print(
        f"  doubled messages: {len(twice)} "
        f"({sum(1 for (chat, _t), _n in twice if chat > 0)} private, "
        f"{sum(1 for (chat, _t), _n in twice if chat < 0)} in groups)   target: 0"
    )
    if flat:
        print(
            f"  owed at a kill: {len(flat)} notifications; delay from the restart to "
            f"delivery: median {statistics.median(flat):.2f} s, max {max(flat):.2f} s   "
            f"target: every one ≤ {TARGET:g} s"
        )
    if soak.after_up:
        print(
            f"  … counted from the bot's first getUpdates: median "
            f"{statistics.median(soak.after_up):.2f} s, max {max(soak.after_up):.2f} s"
        )
    print(
        f"  a player asked for their cards with /hand (no game message reached them): "
        f"{soak.asked} times; players to move left without move buttons at the end: "
        f"{len(soak.stuck)}"
    )
    if soak.up:
        print(
            f"  start to the first getUpdates: median {statistics.median(soak.up):.2f} s, "
            f"max {max(soak.up):.2f} s"
        )
    for line in soak.late[:10]:
        print(f"  late: {line}")
    for (chat, text), n in twice[:5]:
        print(f"  doubled ×{n} in {chat}: {text[:70]!r}")


def main() -> None:
    print(f"code: {ROOT}")
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        if ARGS.postgres:
            schema = f"soak_{os.getpid()}_{int(time.time())}"
            url = stack.enter_context(scratch_schema(ARGS.postgres, schema))
            label = "PostgreSQL"
        else:
            url, label = f"sqlite:///{Path(tmp) / 'soak.sqlite3'}", "SQLite"
        soak = asyncio.run(soak_run(url, label, ARGS.kills, ARGS.seed, ARGS.games, ARGS.hold))
    report(label, soak)


if __name__ == "__main__":
    main()
