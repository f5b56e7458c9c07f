"""The time the bot is down is nobody's (docs/bot.md, *No penalty for our own faults*).

While it runs, the bot notes every minute that it is alive (``service.clock_beat``), and once
more at a clean stop. At its start, when the time since the last note was downtime, the
service adds it to every running game's deadline and reminders, in the background while the
bot already answers; the deadline jobs start once that is done, and the notes it writes for
the groups go out in the background too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram.ext import Application, ContextTypes

from kolkhoz_tg.bot.context import DEPS_KEY, Deps, call
from kolkhoz_tg.bot.delivery import spawn_task
from kolkhoz_tg.service import BEAT_EVERY, Downtime

log = logging.getLogger(__name__)
#: Where the beat's job is kept in ``bot_data`` (the deadline jobs share the scheduler as
#: plain APScheduler jobs, which PTB's ``get_jobs_by_name`` cannot read).
BEAT_JOB_KEY = "uptime:job"

App = Application[Any, Any, Any, Any, Any, Any]
#: Games given their downtime back in one transaction when the bot answers meanwhile, and
#: the pause between two (seconds): a tap waits for at most one chunk.
BACKGROUND_CHUNK = 50
BACKGROUND_PAUSE = 0.02
#: Seconds before each new try of the catch-up, and of starting the clock.
RETRY_DELAYS = (1.0, 4.0, 15.0)


async def came_up(app: App, then: Callable[[App], Awaitable[None]]) -> None:
    """At the start: when the bot was down, give the running games that time back in the
    background (the bot answers meanwhile: with 10,000 games it takes some seconds), and
    only then start the deadline jobs (``then``) and the beat every
    :data:`~kolkhoz_tg.service.BEAT_EVERY`; when it was not, both at once."""
    d: Deps = app.bot_data[DEPS_KEY]
    try:
        down = await call(d.service.downtime)
    except Exception:  # (the deadlines stay as they are; the bot still starts)
        log.exception("could not tell whether the bot was down")
        down = None
    if down is None:
        await _running(app, then)
    else:
        d.catching_up = spawn_task(_make_good(app, down, then))


async def caught_up(app: App) -> None:
    """Wait until the running games have the time the bot was down back (at once when
    there is nothing to give back)."""
    task = app.bot_data[DEPS_KEY].catching_up
    if task is not None:
        await asyncio.shield(task)


async def stop_catching_up(app: App) -> None:
    """At a stop: leave the giving back of the downtime where it is (each game done keeps
    it; the next start does the rest, as no beat is noted), so that no deadline job starts
    after the stop."""
    d: Deps = app.bot_data[DEPS_KEY]
    task, d.catching_up = d.catching_up, None
    d.stop_catching_up.set()  # (the worker thread ends after its chunk)
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _make_good(app: App, down: Downtime, then: Callable[[App], Awaitable[None]]) -> None:
    """In the background: the downtime given back (tried again after a failure: a game done
    is not done twice), then the clock (tried again too; if it cannot start, the process
    stops so that its supervisor starts it again, rather than run with no deadlines)."""
    d: Deps = app.bot_data[DEPS_KEY]
    for attempt, delay in enumerate((*RETRY_DELAYS, None)):
        try:
            made_good = await call(d.service.make_good, down, chunk=BACKGROUND_CHUNK,
                                   pause=BACKGROUND_PAUSE, stop=d.stop_catching_up)
        except Exception:
            log.exception("could not give the running games back the time the bot was down "
                          "(try %d)", attempt + 1)
            if delay is None:
                break  # (the deadlines stay as they are; the clock still starts)
            await asyncio.sleep(delay)
        else:
            if made_good.notifications:
                d.deliverer.spawn(d.deliverer.deliver(made_good.notifications,
                                                      scenes=made_good.scenes))
            break
    for attempt, delay in enumerate((*RETRY_DELAYS, None)):
        try:
            await _running(app, then)
            return
        except Exception:
            log.exception("could not start the deadline jobs (try %d)", attempt + 1)
            if delay is None:
                break
            await asyncio.sleep(delay)
    log.critical("the deadline jobs could not be started: the bot stops, to be started again")
    app.stop_running()


async def _running(app: App, then: Callable[[App], Awaitable[None]]) -> None:
    """The deadline jobs, and the beat: the time since now is no longer downtime."""
    d: Deps = app.bot_data[DEPS_KEY]
    await then(app)
    d.came_up = True
    if app.job_queue is not None and app.bot_data.get(BEAT_JOB_KEY) is None:
        app.bot_data[BEAT_JOB_KEY] = app.job_queue.run_repeating(
            beat, interval=BEAT_EVERY.total_seconds(), first=BEAT_EVERY.total_seconds(),
            name="clock-beat", job_kwargs={"max_instances": 1, "coalesce": True})


async def beat(context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot is alive now (a failure is logged: the next beat comes a minute later)."""
    d: Deps = context.application.bot_data[DEPS_KEY]
    try:
        await call(d.service.clock_beat)
    except Exception:
        log.warning("could not note that the bot is alive", exc_info=True)


async def going_down(app: App) -> None:
    """At a clean stop: the last beat (the time from now until the next start is made
    good then). A stop before the time the bot was down was all given back notes no beat:
    the next start gives the rest of the games theirs."""
    d: Deps = app.bot_data[DEPS_KEY]
    await stop_catching_up(app)
    job = app.bot_data.pop(BEAT_JOB_KEY, None)
    if job is not None:
        try:
            job.schedule_removal()
        except Exception:  # the job queue may have stopped already
            log.debug("the beat's job was gone already")
    if not d.came_up:
        return
    try:
        await call(d.service.clock_beat)
    except Exception:  # the database may be gone already: the last beat stands
        log.exception("could not note the bot's stop")
