"""APScheduler 3 jobs that follow the database's deadlines.

The database is the source of truth: every game with a timeout or reminder due within
:data:`ARM_AHEAD` has one ``date`` job per kind, named ``game:<id>:timeout`` /
``game:<id>:reminder``; the jobs call :meth:`GameService.process_due`, the same path a sweep
uses. Later ones are armed by the ``sweep`` interval job as they come within reach, so the
jobs held (and the work of a start) follow the deadlines of the next hour, not the number of
games. On start the jobs are rebuilt from the database (a restart loses nothing: jobs
already late run at once), and the sweep catches anything missed. Works with
``BackgroundScheduler`` and with ``AsyncIOScheduler`` (sync job functions run in its thread
pool).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from apscheduler.schedulers.base import BaseScheduler  # type: ignore[import-untyped]

from kolkhoz_tg.service import DueJob, GameService, Notification, SweepResult

log = logging.getLogger(__name__)

#: Told about notifications the jobs produced (they are in the outbox either way). Runs in
#: the scheduler's worker thread: an asyncio front end hops to its loop from here.
#: Where the clock's work goes to be shown: its notifications, with each game's scene.
NotificationSink = Callable[[SweepResult], None]
SWEEP_JOB_ID = "sweep"
#: How far ahead of a deadline or reminder its job is armed (the sweep arms the rest).
ARM_AHEAD = timedelta(hours=1)
PURGE_JOB_ID = "purge-outbox"
_KINDS = ("timeout", "reminder")
#: What the id of every job of one game starts with: its deadline jobs
#: (:attr:`~kolkhoz_tg.service.DueJob.job_id`, the one place their ids are spelt) and the
#: bot's end of a player's absence (:func:`kolkhoz_tg.bot.personal.away_job_name`).
GAME_JOB_PREFIX = "game:"
#: Any time: a :class:`DueJob` made only for its name (see :func:`job_id`).
_ANY_TIME = datetime.min.replace(tzinfo=UTC)


def job_id(game_id: int, kind: str) -> str:
    """The id of the game's deadline job of ``kind`` (``timeout`` or ``reminder``): the
    service's :attr:`DueJob.job_id`, where it is spelt."""
    return DueJob(game_id, kind, _ANY_TIME).job_id


class DeadlineScheduler:
    """Keeps one APScheduler in step with a :class:`GameService`'s clock data."""

    def __init__(
        self,
        service: GameService,
        scheduler: BaseScheduler,
        sink: NotificationSink | None = None,
        sweep_interval: timedelta | None = None,
    ) -> None:
        self.service = service
        self.scheduler = scheduler
        self.sink = sink
        self.sweep_interval = sweep_interval or service.settings.sweep_interval
        #: Jobs are armed this long ahead; never less than two sweeps.
        self.ahead = max(ARM_AHEAD, 2 * self.sweep_interval)
        #: When each game's jobs were last moved by a change (monotonic): :meth:`arm_soon`
        #: leaves a game changed after it read the database, whose read is older.
        self._changed: dict[int, float] = {}
        self._changed_lock = threading.Lock()
        service.add_schedule_listener(self.on_change)

    def start(self, paused: bool = False, *, start_scheduler: bool = True) -> None:
        """Rebuild the jobs from the database, add the sweep, start the scheduler (unless
        ``start_scheduler`` is false: a shared scheduler its owner starts and stops, e.g.
        PTB's job queue, whose jobs added meanwhile wait for it). May run in a worker
        thread when the scheduler is not started here (APScheduler's ``add_job`` is
        thread-safe)."""
        self.rebuild()
        self.scheduler.add_job(
            self.sweep,
            "interval",
            seconds=self.sweep_interval.total_seconds(),
            id=SWEEP_JOB_ID,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
        )
        self.scheduler.add_job(
            self.purge,
            "interval",
            hours=24,
            id=PURGE_JOB_ID,
            replace_existing=True,
            coalesce=True,
            max_instances=1,
        )
        if start_scheduler and not self.scheduler.running:
            self.scheduler.start(paused=paused)

    def shutdown(self) -> None:
        """Stop following the service and shut the scheduler down (when it is ours)."""
        self.detach()
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)

    def detach(self) -> None:
        """Stop following the service and drop our jobs, leaving a shared scheduler (e.g.
        PTB's job queue) running."""
        self.service.remove_schedule_listener(self.on_change)
        for job in self.scheduler.get_jobs():
            if job.id.startswith(GAME_JOB_PREFIX) or job.id in (SWEEP_JOB_ID, PURGE_JOB_ID):
                with contextlib.suppress(JobLookupError):
                    job.remove()

    def rebuild(self) -> int:
        """Replace every game job with what the database says is due within
        :attr:`ahead`; returns how many."""
        for job in self.scheduler.get_jobs():
            if job.id.startswith(GAME_JOB_PREFIX):
                job.remove()
        return self.arm_soon()

    def arm_soon(self) -> int:
        """Arm the jobs due within :attr:`ahead` that are not armed yet (one query on an
        indexed column); returns how many are due within it."""
        began = time.monotonic()
        jobs = self.service.scheduled_jobs(until=self.service.clock.now() + self.ahead)
        with self._changed_lock:
            since = {g: t for g, t in self._changed.items() if t >= began}
            self._changed = since  # (older changes are in what was just read)
        for due in jobs:
            if due.game_id in since:
                continue  # moved meanwhile by a move's transaction: its jobs are newer
            job = self.scheduler.get_job(due.job_id)
            if job is None or job.next_run_time != due.at:
                self._put(due)
        return len(jobs)

    def on_change(
        self, game_id: int, deadline: datetime | None, reminder: datetime | None
    ) -> None:
        """Schedule listener: move, add or drop the game's two jobs."""
        with self._changed_lock:
            self._changed[game_id] = time.monotonic()
        reach = self.service.clock.now() + self.ahead
        for kind, at in zip(_KINDS, (deadline, reminder), strict=True):
            if at is None or at > reach:  # (a later one: the sweep arms it in time)
                with contextlib.suppress(JobLookupError):
                    self.scheduler.remove_job(job_id(game_id, kind))
            else:
                self._put(DueJob(game_id, kind, at))

    def _put(self, due: DueJob) -> None:
        self.scheduler.add_job(
            self.fire,
            "date",
            run_date=due.at,
            args=[due.game_id],
            id=due.job_id,
            replace_existing=True,
            misfire_grace_time=None,  # late is better than never: run whenever possible
            coalesce=True,
        )

    def fire(self, game_id: int) -> list[Notification]:
        """What a job does: process whatever is due in that game."""
        try:
            result = self.service.process_due(game_id)
        except Exception:  # a job must not kill the scheduler; the sweep will retry
            log.exception("processing game %s failed", game_id)
            return []
        self._deliver(result)
        return result.notifications

    def sweep(self) -> list[Notification]:
        try:
            result = self.service.sweep()
            self.arm_soon()
        except Exception:
            log.exception("sweep failed")
            return []
        self._deliver(result)
        return result.notifications

    def purge(self) -> int:
        """Daily: drop delivered notifications older than a week."""
        try:
            return self.service.purge_notifications()
        except Exception:
            log.exception("purging the outbox failed")
            return 0

    def _deliver(self, result: SweepResult) -> None:
        if result.notifications and self.sink is not None:
            try:
                self.sink(result)
            except Exception:  # they stay in the outbox; the front end retries
                log.exception("notification sink failed")
