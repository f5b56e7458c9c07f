"""Helpers for the replicas test: bot processes in webhook mode, a load-balancing proxy in
front of them, and players who tap buttons and wait for the answers.

The bot runs in subprocesses, so :meth:`FakeTelegram.wait_idle` cannot see its work (a
webhook POST is answered as soon as the update is queued). Every wait here is therefore an
explicit poll of what a real user would see: the callback query answered, a message with
fresh buttons; or of the shared database (the game's version).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import tornado.httpserver
import tornado.netutil
import tornado.web
from sqlmodel import select

from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.bot.webhook import HEALTH_PATH, SECRET_HEADER
from kolkhoz_tg.service import GameInfo, GameService
from kolkhoz_tg.storage.models import NotificationRow
from tests.bot.driver import action_buttons
from tests.faketg import CallbackQueryRecord, FakeChat, FakeTelegram, FakeUser, StoredMessage
from tests.faketg import free_port as free_port
from tests.helpers import until

T = TypeVar("T")

#: How long one step (a tap answered, fresh buttons shown) may take before the test fails.
STEP_TIMEOUT = 90.0
POLL = 0.01


# ---------------------------------------------------------------------- bot processes


class Replica:
    """``python -m kolkhoz_tg.cli bot --webhook URL`` in a fresh directory (no ``.env``)."""

    def __init__(self, name: str, workdir: Path, webhook_url: str, env: dict[str, str]) -> None:
        self.name = name
        self.port = free_port()
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / "bot.log"
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")},
            **env,
            "KOLKHOZ_WEBHOOK_LISTEN": "127.0.0.1",
            "KOLKHOZ_WEBHOOK_PORT": str(self.port),
        }
        self.webhook_url = webhook_url
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "kolkhoz_tg.cli", "bot", "--webhook", self.webhook_url],
                cwd=self.workdir, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            )

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    async def wait_healthy(self, timeout: float = 60.0) -> None:
        assert self.proc is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        async with httpx.AsyncClient(timeout=2) as client:
            while True:
                if self.proc.poll() is not None:
                    raise AssertionError(
                        f"{self.name} exited with {self.proc.returncode}:\n{self.log_text()}")
                try:
                    r = await client.get(self.url + HEALTH_PATH)
                    if r.status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if loop.time() > deadline:
                    raise AssertionError(f"{self.name} not healthy:\n{self.log_text()[-3000:]}")
                await asyncio.sleep(0.1)

    async def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM (a graceful stop) and the exit status."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.proc.poll() is None:
            if loop.time() > deadline:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"{self.name} did not stop within {timeout}s after SIGTERM")
            await asyncio.sleep(0.05)
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------- the proxy


class _Forward(tornado.web.RequestHandler):
    def initialize(self, balancer: LoadBalancer) -> None:
        self.balancer = balancer

    async def post(self) -> None:
        status, body = await self.balancer.forward(self.request.uri or "/", self.request.body,
                                                   dict(self.request.headers))
        self.set_status(status)
        if body:
            self.write(body)

    def check_xsrf_cookie(self) -> None:
        return


class LoadBalancer:
    """Forwards each POST to a replica chosen at random and relays its status (502 if the
    replica cannot be reached: the fake Telegram then delivers the update again)."""

    def __init__(self, seed: int = 0) -> None:
        self.port = free_port()
        self.backends: list[str] = []
        self.rng = random.Random(seed)
        self.statuses: list[Counter[int]] = []
        #: which replica got each callback query (by query id)
        self.callback_routes: dict[str, int] = {}
        self._server = tornado.httpserver.HTTPServer(
            tornado.web.Application([(r"/.*", _Forward, {"balancer": self})]))
        self._client = httpx.AsyncClient(timeout=10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def add(self, backend: str) -> None:
        self.backends.append(backend)
        self.statuses.append(Counter())

    def start(self) -> None:
        self._server.add_sockets(tornado.netutil.bind_sockets(self.port, "127.0.0.1"))

    async def stop(self) -> None:
        self._server.stop()
        await self._server.close_all_connections()
        await self._client.aclose()

    async def forward(self, uri: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        i = self.rng.randrange(len(self.backends))
        keep = {k: v for k, v in headers.items() if k.lower() in (
            SECRET_HEADER.lower(), "content-type")}
        try:
            r = await self._client.post(self.backends[i] + uri, content=body, headers=keep)
            status, out = r.status_code, r.content
        except httpx.HTTPError:
            status, out = 502, b""
        self.statuses[i][status] += 1
        if status == 200:
            query = json.loads(body).get("callback_query")
            if query is not None:
                self.callback_routes[query["id"]] = i
        return status, out


# ---------------------------------------------------------------------- players


@dataclass
class Silence:
    """A seat that stopped tapping until its deadline passed."""

    user_id: int
    seat: int
    version: int  # the game's version when it went silent
    waited: float = 0.0


@dataclass
class Table:
    """One group with its game: two people and two bots."""

    index: int
    group: FakeChat
    humans: list[FakeUser]
    silent: bool = False
    game_id: int = 0
    accepted: Counter[int] = field(default_factory=Counter)  # user id -> applied taps
    double_taps: list[tuple[str, str]] = field(default_factory=list)  # query id pairs
    silences: list[Silence] = field(default_factory=list)


class Driver:
    """Plays the tables by tapping, one step at a time per table, all tables at once."""

    def __init__(self, fake: FakeTelegram, service: GameService, seed: int = 0) -> None:
        self.fake = fake
        self.service = service
        self.seed = seed
        self.taps = 0
        self.slowest = 0.0  # the longest wait for an answer, in seconds
        self.refusals: Counter[str] = Counter()  # what the refused taps were told

    async def db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)

    async def info(self, game_id: int) -> GameInfo:
        return await self.db(self.service.game_info, game_id)

    async def tap(self, user: FakeUser, msg: StoredMessage, data: str, *,
                  times: int = 1) -> list[CallbackQueryRecord]:
        """Tap a button ``times`` times in a row (a double tap: two queries, same data) and
        wait until the bot answered each one."""
        records = []
        for _ in range(times):
            await user.tap(msg, data, wait=False)  # pushes the update, nothing awaited
            record = next(reversed(self.fake.callback_queries.values()))
            assert record.user_id == user.id and record.data == data
            records.append(record)
        self.taps += times
        began = time.monotonic()
        await until(lambda: all(r.answered for r in records),
                    f"{user!r}'s tap on {data!r} to be answered", timeout=STEP_TIMEOUT, poll=POLL)
        self.slowest = max(self.slowest, time.monotonic() - began)
        return records

    # ------------------------------------------------------------------ lobby

    async def open(self, t: Table) -> None:
        """Both people open the private chat; the first opens a game, the second joins, the
        first adds two bots and starts it."""
        fake = self.fake
        creator, other = t.humans
        for u in t.humans:
            await u.start_bot(wait=False)
        await until(lambda: all(fake.bot_messages(u.id) for u in t.humans),
                    f"table {t.index}: the replies to /start", timeout=STEP_TIMEOUT, poll=POLL)
        await creator.send(t.group, "/newgame", wait=False)

        def lobby() -> StoredMessage | None:
            for m in fake.bot_messages(t.group):
                if "Join" in m.button_texts:
                    return m
            return None

        await until(lambda: lobby() is not None, f"table {t.index}: the lobby",
                    timeout=STEP_TIMEOUT, poll=POLL)
        msg = lobby()
        assert msg is not None
        for user, button in ((other, "Join"), (creator, "+ Bot"), (creator, "Normal"),
                             (creator, "+ Bot"), (creator, "Normal")):
            # A tap is answered before its lobby edit goes out: wait for the button.
            await until(lambda b=button, m=msg.message_id: any(
                x.text == b for row in fake.message(t.group, m).buttons for x in row),
                f"table {t.index}: the lobby button {button!r}", timeout=STEP_TIMEOUT, poll=POLL)
            msg = fake.message(t.group, msg.message_id)
            [record] = await self.tap(user, msg, msg.find_button(button).data or "")
            assert record.answer and not record.answer["text"], (t.index, button, record.answer)
        await until(lambda m=msg.message_id: any(
            x.text == "Start ▶" for row in fake.message(t.group, m).buttons for x in row),
            f"table {t.index}: the lobby with both bots", timeout=STEP_TIMEOUT, poll=POLL)
        msg = fake.message(t.group, msg.message_id)
        start = msg.find_button("Start ▶").data
        assert start is not None
        t.game_id = Callback.decode(start).game_id
        [record] = await self.tap(creator, msg, start)
        assert record.answer and not record.answer["text"], (t.index, record.answer)
        info = await self.info(t.game_id)
        assert info.status == "active", (t.index, info.status)
        assert sorted(s.user_id or 0 for s in info.seats) == sorted(
            [0, 0, creator.id, other.id])

    # ------------------------------------------------------------------ game

    def fresh_buttons(self, t: Table, version: int) -> tuple[FakeUser, StoredMessage] | None:
        """A person's newest private message with action buttons for ``version``."""
        for user in t.humans:
            for m in reversed(self.fake.bot_messages(user.id)):
                buttons = [Callback.decode(d) for d in action_buttons(m)]
                if buttons and all(b.version == version and b.game_id == t.game_id
                                   for b in buttons):
                    return user, m
        return None

    async def play(self, t: Table, *, silent_after: float = 0.0) -> None:
        """Tap until the game is over. A silent table's second person, on their first
        trick-play turn, stops tapping until the deadline passed and a timeout played for
        them, then carries on."""
        rng = random.Random(f"{self.seed}:{t.index}")
        silent_pending = t.silent
        info = await self.info(t.game_id)
        steps = 0
        while info.status == "active":
            steps += 1
            assert steps < 400, f"table {t.index}: no end in sight"
            version = info.version
            found: tuple[FakeUser, StoredMessage] | None = None

            def ready(v: int = version) -> bool:
                nonlocal found
                found = self.fresh_buttons(t, v)
                return found is not None

            try:
                await until(ready, f"table {t.index}: buttons for version {version}",
                            timeout=STEP_TIMEOUT, poll=POLL)
            except AssertionError as e:
                raise AssertionError(f"{e}\n{await self.db(self.describe, t)}") from None
            assert found is not None
            user, msg = found
            buttons = [Callback.decode(d) for d in action_buttons(msg)]
            if (silent_pending and user is t.humans[1]
                    and all(b.payload.startswith("play:") for b in buttons)):
                silent_pending = False
                await self.go_silent(t, user, version, silent_after)
                info = await self.info(t.game_id)
                continue
            choice = rng.choice(buttons).encode()
            double = not t.silent and rng.random() < 0.1
            before = len(await self.db(self.service.action_log, t.game_id))
            records = await self.tap(user, msg, choice, times=2 if double else 1)
            self.refusals.update(str(r.answer["text"]) for r in records
                                 if r.answer and r.answer["text"])
            if double:
                t.double_taps.append((records[0].id, records[1].id))
            # A tap the replica foresaw is answered before its move is stored: the move is
            # judged by the log, where it must appear once.
            await until(lambda v=version: self.service.game_info(t.game_id).version > v,
                        f"table {t.index}: the move of version {version} to be stored",
                        timeout=STEP_TIMEOUT, poll=POLL)
            log = await self.db(self.service.action_log, t.game_id)
            mine = [e for e in log[before:] if e["actor"] == "player"
                    and e["user_id"] == user.id and e["version"] == version]
            t.accepted[user.id] += len(mine)
            info = await self.info(t.game_id)
            assert len(mine) == 1, (t.index, choice, [r.answer for r in records], mine)

    def describe(self, t: Table) -> str:
        """What the people of a table see and what the database says (for failures)."""
        info = self.service.game_info(t.game_id)
        lines = [f"game {t.game_id}: {info.status} version {info.version} "
                 f"deadline {info.deadline}"]
        for user in t.humans:
            sv = self.service.seat_view(t.game_id, user.id)
            lines.append(f"{user!r}: to_act {sv.to_act} legal {sv.legal}")
            for m in self.fake.messages(user.id, include_deleted=True)[-4:]:
                lines.append(f"  msg {m.message_id} deleted={m.deleted} edits={m.edits} "
                             f"{(m.text or '')[:60]!r} {m.callback_data[:3]}")
        for e in self.service.action_log(t.game_id)[-6:]:
            lines.append(f"  log {e}")
        with self.service.db.read() as s:
            rows = s.exec(select(NotificationRow).where(
                NotificationRow.game_id == t.game_id).order_by(NotificationRow.id)).all()
            for n in rows[-12:]:
                lines.append(f"  note {n.id} {n.kind} user={n.user_id} v={n.version} "
                             f"delivered={n.delivered_at} superseded={n.superseded}")
        return "\n".join(lines)

    async def go_silent(self, t: Table, user: FakeUser, version: int, at_least: float) -> None:
        info = await self.info(t.game_id)
        seat = info.seat_of(user.id)
        assert seat is not None
        silence = Silence(user.id, seat, version)
        t.silences.append(silence)
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60 + 45
        while (await self.info(t.game_id)).version == version:
            assert loop.time() < deadline, f"table {t.index}: no timeout for seat {seat}"
            await asyncio.sleep(0.5)
        silence.waited = time.monotonic() - started
        # A few more seconds of silence: a second (duplicate) timeout would show up now.
        await asyncio.sleep(max(0.0, at_least - silence.waited))
