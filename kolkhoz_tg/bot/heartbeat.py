"""The bot's side of ``kolkhoz health``: a heartbeat file written every few seconds.

:class:`Heartbeat` checks the database (``SELECT 1`` in a worker thread, one at a time) and
writes :class:`kolkhoz_tg.health.Beat` to ``KOLKHOZ_HEALTH_FILE`` from a job on the
application's job queue: a fresh file means the event loop is alive. It learns of Telegram
from :class:`BeatingRequest`, which wraps the request object ``getUpdates`` goes through
(polling), and from the webhook server's successful calls (webhook mode).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import ODVInput
from telegram.ext import Application, Job
from telegram.request import BaseRequest, RequestData

from kolkhoz_tg.health import BEAT_INTERVAL, Beat, write_beat
from kolkhoz_tg.service import GameService

log = logging.getLogger(__name__)
HEARTBEAT_JOB = "health-heartbeat"


def ping_database(service: GameService) -> None:
    """One ``SELECT 1`` on a pooled connection; raises when the database does not answer."""
    with service.db.engine.connect() as conn:
        conn.execute(sa.text("SELECT 1"))


def _reason(error: BaseException) -> str:
    lines = str(getattr(error, "orig", None) or error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


class BeatingRequest(BaseRequest):
    """``inner``, telling ``on_success`` of every call Telegram answered with a 2xx status.

    For the request object of ``getUpdates`` (``ApplicationBuilder.get_updates_request``):
    each answered long poll, with or without updates, is a sign of life."""

    def __init__(self, inner: BaseRequest, on_success: Callable[[], None]) -> None:
        self.inner = inner
        self.on_success = on_success

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        code, payload = await self.inner.do_request(
            url, method, request_data, read_timeout=read_timeout, write_timeout=write_timeout,
            connect_timeout=connect_timeout, pool_timeout=pool_timeout,
        )
        if 200 <= code < 300:
            self.on_success()
        return code, payload


class Heartbeat:
    """Writes the heartbeat of a bot in ``mode`` (``polling`` or ``webhook``) to ``path``
    every ``interval`` seconds once :meth:`install`-ed on an application."""

    def __init__(
        self,
        path: str | Path,
        mode: str,
        ping: Callable[[], None],
        *,
        interval: float = BEAT_INTERVAL,
        timeout: float | None = None,
        health_url: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = Path(path)
        self.mode = mode
        self.ping = ping
        self.interval = interval
        self.health_url = health_url
        self.clock = clock
        self.telegram_ok: float | None = None
        self.database_ok: float | None = None
        self.database_error: str | None = None
        #: How long one database check may take before it counts as failed (a beat must
        #: end before the next one is due, or APScheduler warns that it skipped one).
        self.timeout = min(10.0, interval / 2) if timeout is None else timeout
        self.beats = 0
        self.job: Job[Any] | None = None
        self._ping: asyncio.Future[None] | None = None
        self._ping_started = 0.0
        self._write_failed = False

    def telegram_answered(self) -> None:
        """Telegram answered a ``getUpdates`` (polling) or delivered an update (webhook).
        The first time, the heartbeat is written at once: healthy as soon as it is."""
        first = self.telegram_ok is None
        self.telegram_ok = self.clock()
        if first and self.beats:
            self.write()

    async def check_database(self) -> None:
        """One database check, given up after ``timeout``; a check still hanging from
        before is waited for, not doubled (a dead server must not eat the thread pool)."""
        if self._ping is None or self._ping.done():
            self._ping = asyncio.ensure_future(asyncio.to_thread(self.ping))
            # A check that outlives its beat is awaited by the next one, or by nobody (at a
            # stop): its error must not be reported as "never retrieved".
            self._ping.add_done_callback(lambda f: f.cancelled() or f.exception())
            self._ping_started = self.clock()
        try:
            await asyncio.wait_for(asyncio.shield(self._ping), timeout=self.timeout)
        except TimeoutError:
            self._failed(f"no answer for {self.clock() - self._ping_started:.0f} s")
        except Exception as e:  # any database trouble means "unreachable"
            self._failed(_reason(e))
        else:
            if self.database_error is not None:
                log.info("health check: the database answers again")
            self.database_ok = self.clock()
            self.database_error = None

    def _failed(self, reason: str) -> None:
        if self.database_error is None:  # once an outage, not every beat
            log.warning("health check: the database is unreachable: %s", reason)
        self.database_error = reason

    def beat_record(self) -> Beat:
        return Beat(mode=self.mode, pid=os.getpid(), written=self.clock(),
                    database_ok=self.database_ok, database_error=self.database_error,
                    telegram_ok=self.telegram_ok, health_url=self.health_url)

    def write(self) -> None:
        """Write the heartbeat now (a few hundred bytes, replaced at once)."""
        try:
            write_beat(self.path, self.beat_record())
        except OSError as e:
            if not self._write_failed:  # once, not every beat
                log.warning("cannot write the heartbeat %s: %s", self.path, e.strerror or e)
            self._write_failed = True
        else:
            self._write_failed = False

    async def beat(self, _context: object = None) -> None:
        """Check the database, then write the heartbeat."""
        await self.check_database()
        await asyncio.to_thread(self.write)
        self.beats += 1

    def install(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Beat once ``app`` has started (after its own ``post_init``, in polling and
        webhook mode alike): at once, then from its job queue."""
        original = app.post_init

        async def post_init(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
            if original is not None:
                await original(application)
            await self.beat()  # the job's first run is one interval away
            self.start(application)

        app.post_init = post_init

    def start(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if app.job_queue is None:  # pragma: no cover - the job-queue extra is a dependency
            raise RuntimeError("the heartbeat needs PTB's job queue (APScheduler)")
        # Kept here: the deadline jobs share the scheduler as plain APScheduler jobs, which
        # PTB's get_jobs_by_name cannot read.
        self.job = app.job_queue.run_repeating(
            self.beat, interval=self.interval, first=0, name=HEARTBEAT_JOB,
            job_kwargs={"max_instances": 1, "coalesce": True},
        )

    def clear(self) -> None:
        """Remove the heartbeat (at start, of a previous process; at a clean stop)."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
