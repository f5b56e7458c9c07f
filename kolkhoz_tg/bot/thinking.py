"""Search bots think here: in a worker, after the commit, never in a transaction or on the
event loop.

The service leaves a game waiting when a ``strong`` or ``hard`` bot (a bot seat or a
stand-in) must move and its move is not forced (``games.bot_due``, see
:mod:`kolkhoz_tg.service.ai_seats`), and tells :class:`Thinker` after the commit. The thinker
runs one task per waiting game on the application's loop: it reads the seat's view and seed
(:meth:`~kolkhoz_tg.service.GameService.ai_turn`), has a worker choose the move
(:func:`kolkhoz_tg.aiplay.think`, in a process pool: the search is pure Python and would
hold the GIL), plays it at the version it thought about
(:meth:`~kolkhoz_tg.service.GameService.ai_act`; if the game moved on, it thinks again),
delivers what followed, and goes on while a bot still waits. A human's tap is answered and
stored meanwhile as usual, and the deadline sweep never waits for a bot.

**The cap.** All the bots' thinking between two human moves shares a budget
(:data:`THINK_BUDGET`, 3 s): each decision gets at most its level's own time and at most
the budget left divided by the game's search seats, never below :data:`MIN_SECONDS`. So a
table of three ``hard`` bots answers a human within a few seconds, each thinking less. The
budget counts wall time, waiting for a busy worker included: under load bots play faster
rather than keep players waiting.

**Restarts.** At start-up every game still waiting gets its task again, and every sweep
interval so does every game that waited :data:`STUCK_AFTER` with no bot move (a worker that
died, a process that stopped mid-thought, a wake-up lost); a game another replica is
thinking for moves on meanwhile, and is left to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from concurrent.futures.thread import BrokenThreadPool
from datetime import timedelta
from typing import Any

from telegram.ext import Application, Job

from engine.ai import LEVELS, Advice, AIPlayer
from kolkhoz_tg import metrics
from kolkhoz_tg.aiplay import AIPolicy, advise, think
from kolkhoz_tg.bot.delivery import Deliverer
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import ActResult, ActStatus, Busy, GameService, ServiceError

log = logging.getLogger(__name__)

#: Seconds of thinking all bots share between two human moves.
THINK_BUDGET = 3.0
#: The least a search decision gets once the budget is spent (still better than a guess).
MIN_SECONDS = 0.05
#: The nominal time of a decision per search level (``engine.ai``'s; the budget scales
#: with it).
LEVEL_SECONDS = {name: bot.level.seconds for name in LEVELS
                 if (bot := AIPlayer(name)).params is not None}
#: A decision that has not come back this many seconds past its time is given up (a hung
#: worker); the game is tried again, and at its deadline the heuristic plays for the bot.
HUNG_AFTER = 60.0
#: A game that waited this long with no bot move has nobody thinking for it.
STUCK_AFTER = timedelta(seconds=30)
#: Failures in a row (a busy database, a broken worker) one task tries again after, pausing
#: a little longer each time, before it leaves the game to the periodic look.
_RETRIES = 3
_PAUSE = 0.5
#: Bot moves one task plays before it yields to a fresh one (a guard against a loop).
_MAX_MOVES = 1000

BrokenExecutor = (BrokenProcessPool, BrokenThreadPool)
Spawn = Callable[[Coroutine[Any, Any, None]], Any]
Deliver = Callable[[ActResult], Coroutine[Any, Any, None]]
App = Application[Any, Any, Any, Any, Any, Any]


def process_pool(workers: int) -> Executor:
    """A pool of ``workers`` processes started fresh (``spawn``: no copy of the bot's
    threads and sockets); with 0 workers, one thread (tests, tiny machines)."""
    if workers <= 0:
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-think")
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=die_with_parent, initargs=(os.getpid(),))


def die_with_parent(parent: int, every: float = 0.5) -> None:
    """In a search worker: end the process once ``parent`` (the bot) is gone, killed with
    no chance to stop its pool (``kill -9``, the OOM killer), instead of living on as an
    orphan holding its memory. A daemon thread watches the parent's id: a process whose
    parent dies is given another one."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(0)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


class Thinker:
    """Plays the search bots of every game of one service (see the module docstring).

    ``spawn`` starts a task on the application (PTB's ``create_task``, so a test's idle
    wait covers it); ``deliver(result)`` shows what a bot's move caused. ``iterations``
    fixes the playouts of a decision instead of timing it (deterministic tests)."""

    def __init__(
        self,
        service: GameService,
        spawn: Spawn,
        deliver: Deliver,
        executor: Callable[[], Executor],
        *,
        budget: float = THINK_BUDGET,
        iterations: int | None = None,
    ) -> None:
        self.service = service
        self.spawn = spawn
        self.deliver = deliver
        self._make_executor = executor
        self._executor: Executor | None = None
        self.budget = budget
        self.iterations = iterations
        self.loop: asyncio.AbstractEventLoop | None = None
        #: The periodic look on the job queue (set at start-up).
        self.job: Job[Any] | None = None
        self._running: set[int] = set()
        self._again: set[int] = set()
        with_loop = _running_loop()
        if with_loop is not None:
            self.bind(with_loop)
        service.add_ai_listener(self.on_waiting)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop the tasks run on (the application's)."""
        self.loop = loop

    def close(self) -> None:
        """Stop following the service and let the workers go."""
        self.service.remove_ai_listener(self.on_waiting)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # ------------------------------------------------------------------ waking up

    def on_waiting(self, game_id: int) -> None:
        """The service's listener: a game waits for a bot (called in the committing
        thread, possibly not the loop's)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return  # the periodic look finds it
        if _running_loop() is loop:
            self.wake(game_id)
        else:
            loop.call_soon_threadsafe(self.wake, game_id)

    def wake(self, game_id: int) -> None:
        """Think for ``game_id`` now, or once more after the thought in progress."""
        if game_id in self._running:
            self._again.add(game_id)
            return
        self._running.add(game_id)
        if self.spawn(self._run(game_id)) is None:
            self._running.discard(game_id)  # not started (the application has stopped)

    async def look(self, _context: object = None, *, idle_for: timedelta | None = None) -> int:
        """Wake every game that waits for a bot (at start-up), or with ``idle_for`` only
        those where no bot moved for that long (every sweep interval: a game another
        replica is thinking for is left to it); returns how many."""
        ids = await asyncio.to_thread(self.service.games_waiting_for_ai, 200, idle_for)
        for game_id in ids:
            self.wake(game_id)
        return len(ids)

    # ------------------------------------------------------------------ thinking

    async def _run(self, game_id: int) -> None:
        left = self.budget
        failures = 0
        try:
            for _ in range(_MAX_MOVES):
                if failures > _RETRIES:
                    return  # the periodic look tries again later
                if failures:
                    await asyncio.sleep(_PAUSE * failures)
                try:
                    turn = await asyncio.to_thread(self.service.ai_turn, game_id)
                except Exception:
                    log.exception("game %s: could not read the bot's turn", game_id)
                    failures += 1
                    continue
                if turn is None:
                    if game_id in self._again:
                        self._again.discard(game_id)
                        continue
                    # Nothing to think about; a game still marked as waiting (a stand-in
                    # whose level changed to one that plays at once) moves on now.
                    try:
                        settled = await asyncio.to_thread(self.service.settle_ai, game_id)
                    except ServiceError:  # busy, or gone: the periodic look comes back
                        return
                    if settled is not None:
                        await self.deliver(settled)
                    return
                self._again.discard(game_id)
                nominal = LEVEL_SECONDS.get(turn.level, 0.0)
                seconds = max(MIN_SECONDS, min(nominal, left / turn.searchers))
                start = time.monotonic()
                try:
                    action = await self._think(turn.level, turn.seed, turn.view, seconds)
                    metrics.bot_decided(turn.level, time.monotonic() - start)
                except BrokenExecutor:
                    # A worker died (killed, out of memory): a fresh pool for the next try.
                    log.exception("game %s: the bot workers broke down", game_id)
                    self._executor = None
                    failures += 1
                    continue
                except Exception:
                    log.exception("game %s: the bot of seat %s could not think", game_id,
                                  turn.seat)
                    failures += 1
                    continue
                left -= time.monotonic() - start
                try:
                    result = await asyncio.to_thread(self.service.ai_act, game_id,
                                                     turn.seat, action, turn.version)
                except Busy:  # another process holds SQLite's write lock: a moment later
                    failures += 1
                    continue
                except ServiceError:
                    return  # the game is gone
                if result.status is ActStatus.APPLIED:
                    failures = 0
                    await self.deliver(result)
                elif result.status is not ActStatus.STALE:
                    log.warning("game %s: the bot's move %s was refused: %s", game_id,
                                action, result.status)
                    return
            log.error("game %s: the bots made %d moves in a row; stopping", game_id,
                      _MAX_MOVES)
        finally:
            self._running.discard(game_id)

    async def _think(self, level: str, seed: str, view: dict[str, Any], seconds: float) -> str:
        assert level in LEVELS
        if self._executor is None:
            self._executor = self._make_executor()
        loop = asyncio.get_running_loop()
        if self.iterations is not None:
            return await loop.run_in_executor(self._executor, think, level, seed, view, None,
                                              self.iterations)
        work = loop.run_in_executor(self._executor, think, level, seed, view, seconds)
        try:
            return await asyncio.wait_for(work, seconds * 3 + HUNG_AFTER)
        except TimeoutError:
            # A worker that never answers (a hung process) holds its place in the pool:
            # the next thoughts get a fresh pool (the old one's workers end when they can).
            executor, self._executor = self._executor, None
            executor.shutdown(wait=False, cancel_futures=True)
            raise

    async def advise(
        self, level: str, seed: str, view: dict[str, Any], seconds: float
    ) -> Advice:
        """What a bot of ``level`` would play on ``view`` and why
        (:func:`kolkhoz_tg.aiplay.advise`, with what it inferred from the others' plays),
        worked out in a worker like a bot's move, in at most ``seconds`` (or the fixed
        playouts of tests)."""
        assert level in LEVELS
        if self._executor is None:
            self._executor = self._make_executor()
        loop = asyncio.get_running_loop()
        # A hint weighs its worlds by the others' plays, to say what it inferred.
        if self.iterations is not None:
            return await loop.run_in_executor(self._executor, advise, level, seed, view, None,
                                              self.iterations, True)
        # Never longer than the level's own decision (nor, timed, a bigger budget).
        timed = min(seconds, LEVEL_SECONDS[level]) if level in LEVEL_SECONDS else None
        return await loop.run_in_executor(self._executor, advise, level, seed, view, timed,
                                          None, True)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


# ---------------------------------------------------------------------- the application

THINKER_KEY = "kolkhoz.thinker"
LOOK_JOB = "bots-look"


def install_thinker(
    app: App, service: GameService, deliverer: Deliverer, settings: Settings, *,
    workers: int | None = None, iterations: int | None = None,
) -> Thinker:
    """Make ``service`` leave search bots to a :class:`Thinker` of ``app`` (its default bot
    level from ``settings.bot_level``, its workers ``settings.bot_workers`` unless
    ``workers`` is given)."""
    service.ai_policy = AIPolicy(default_level=settings.bot_level, defer=True)
    count = settings.bot_workers if workers is None else workers

    def spawn(coro: Coroutine[Any, Any, None]) -> Any:
        if not app.running:  # a stopped application's thinker: another one takes over
            coro.close()
            return None
        return app.create_task(coro)

    async def deliver(result: ActResult) -> None:
        await deliverer.deliver(result.notifications, None, result.scene)

    thinker = Thinker(service, spawn, deliver, lambda: process_pool(count),
                      budget=settings.bot_thinking, iterations=iterations)
    app.bot_data[THINKER_KEY] = thinker
    return thinker


async def start_thinker(app: App) -> None:
    """At start-up: bind to the running loop, wake the games that wait for a bot, and look
    again every sweep interval."""
    thinker: Thinker | None = app.bot_data.get(THINKER_KEY)
    if thinker is None:
        return
    thinker.bind(asyncio.get_running_loop())
    if app.running or app.job_queue is None:
        await thinker.look()
    else:
        # Under run_polling / run_webhook this runs as post_init, before the application
        # counts as running: a wake-up now would be dropped. The job queue starts with the
        # application, so its first run is the look.
        async def first_look(context: object) -> None:
            await thinker.look(context)

        app.job_queue.run_once(first_look, when=0, name=LOOK_JOB + ":first")
    if app.job_queue is not None and thinker.job is None:
        every = thinker.service.settings.sweep_interval.total_seconds()

        async def look_for_stuck(context: object) -> None:
            await thinker.look(context, idle_for=STUCK_AFTER)

        thinker.job = app.job_queue.run_repeating(look_for_stuck, interval=every,
                                                  first=every, name=LOOK_JOB)


def stop_thinker(app: App) -> None:
    thinker: Thinker | None = app.bot_data.get(THINKER_KEY)
    if thinker is not None:
        if thinker.job is not None:
            with contextlib.suppress(Exception):  # the job queue may have stopped already
                thinker.job.schedule_removal()
            thinker.job = None
        thinker.close()
