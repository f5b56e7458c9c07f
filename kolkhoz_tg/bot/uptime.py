"""The time the bot is down is nobody's (docs/bot.md, *No penalty for our own faults*).

While it runs, the bot notes every minute that it is alive (``service.clock_beat``), and once
more at a clean stop. At its start, before the deadline jobs are rebuilt from the database,
the service adds the time since the last note, when it was downtime, to every running game's
deadline and reminders; the notes it writes for the groups go out in the background.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram.ext import Application, ContextTypes

from kolkhoz_tg.bot.context import DEPS_KEY, Deps, call
from kolkhoz_tg.service import BEAT_EVERY

log = logging.getLogger(__name__)
#: Where the beat's job is kept in ``bot_data`` (the deadline jobs share the scheduler as
#: plain APScheduler jobs, which PTB's ``get_jobs_by_name`` cannot read).
BEAT_JOB_KEY = "uptime:job"

App = Application[Any, Any, Any, Any, Any, Any]


async def came_up(app: App) -> None:
    """At the start: make good the time the bot was down, then beat every
    :data:`~kolkhoz_tg.service.BEAT_EVERY`."""
    d: Deps = app.bot_data[DEPS_KEY]
    try:
        made_good = await call(d.service.clock_beat, True)
    except Exception:  # (the deadlines stay as they are; the bot still starts)
        log.exception("could not give the running games back the time the bot was down")
    else:
        if made_good.notifications:
            d.deliverer.spawn(d.deliverer.deliver(made_good.notifications,
                                                  scenes=made_good.scenes))
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
    good then)."""
    job = app.bot_data.pop(BEAT_JOB_KEY, None)
    if job is not None:
        try:
            job.schedule_removal()
        except Exception:  # the job queue may have stopped already
            log.debug("the beat's job was gone already")
    d: Deps = app.bot_data[DEPS_KEY]
    try:
        await call(d.service.clock_beat)
    except Exception:  # the database may be gone already: the last beat stands
        log.exception("could not note the bot's stop")
