"""A player's own settings and absences: ``/settings`` in private (time zone, quiet hours)
and ``/away`` (a bot plays for them, its moves not counted as missed turns, until
``/back``, any move of theirs, or the end of the time they gave)."""

from __future__ import annotations

import logging
import re
from datetime import datetime, timedelta
from typing import Any

from telegram import Update
from telegram.ext import Application, ContextTypes, Job, JobQueue

from kolkhoz_tg import present
from kolkhoz_tg.bot import chat_settings
from kolkhoz_tg.bot.context import DEPS_KEY, Deps, call, command, deps, is_group
from kolkhoz_tg.present import people as say
from kolkhoz_tg.scheduler import GAME_JOB_PREFIX
from kolkhoz_tg.service import ActStatus, BadRequest, GameInfo
from kolkhoz_tg.timeutil import parse_duration

log = logging.getLogger(__name__)

#: Game statuses in which a seat can be handed to a bot.
_RUNNING = ("active", "paused")
_GAME_ARG = re.compile(r"g(\d{1,10})", re.IGNORECASE)
#: The longest absence a duration may name (a game's turn limit is at most 14 days).
MAX_AWAY = timedelta(days=60)


def away_key(user_id: int) -> str:
    """The game-meta key holding when the user's absence ends (ISO UTC), if they gave one."""
    return f"away:{user_id}"


def away_job_name(game_id: int, user_id: int) -> str:
    """The id of the job that ends the user's absence from the game."""
    return f"{GAME_JOB_PREFIX}{game_id}:away:{user_id}"


# ---------------------------------------------------------------------- /settings in private


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/settings``: in a group the game's (:func:`chat_settings.cmd_settings`), in private the
    player's own (:func:`settings_in_private`)."""
    if is_group(update):
        await chat_settings.cmd_settings(update, context)
    else:
        await settings_in_private(update, context)






async def settings_in_private(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/settings`` in private: the user's time zone and quiet hours;
    ``/settings tz Europe/Moscow`` (or a city, or ``+3``), ``/settings quiet 23:00-08:00``,
    ``/settings quiet off`` change them. Bad input changes nothing and says why."""
    c = await command(update, context)
    d, tr, user, args = c.d, c.tr, c.user, c.args
    key, value = (args[0].lower(), " ".join(args[1:])) if args else ("", "")
    try:
        if not args:
            pass
        elif key in ("tz", "timezone") and value:
            await call(d.service.set_time_zone, user.id,
                       None if value.lower() == "off" else value)
        elif key == "quiet" and value:
            await call(d.service.set_quiet_window, user.id,
                       None if value.lower() == "off" else value)
        else:
            await c.reply(say.settings_usage(tr))
            return
    except BadRequest as e:
        await c.reply(say.settings_refused(tr, e.code, value))
        return
    info = await call(d.service.user, user.id)
    await c.reply(say.settings_text(tr, info, d.service.clock.now()))


# ---------------------------------------------------------------------- /away


def away_args(args: list[str]) -> tuple[timedelta | None, set[int]]:
    """``/away 3d g12`` → (3 days, {12}). Raises :class:`ValueError` for anything else."""
    duration: timedelta | None = None
    games: set[int] = set()
    for arg in args:
        m = _GAME_ARG.fullmatch(arg)
        if m is not None:
            games.add(int(m.group(1)))
        elif duration is None:
            duration = parse_duration(arg)
            if duration > MAX_AWAY:
                raise ValueError(f"too long an absence: {arg!r}")
        else:
            raise ValueError(f"unexpected {arg!r}")
    return duration, games


async def cmd_away(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/away [3d] [g<id>]``: a bot plays the sender's seats right away — in a group, in
    its game; in private, in all their running games (or game ``g<id>``) — without counting
    missed turns, until ``/back``, any move of theirs, or the time given runs out."""
    c = await command(update, context)
    d, tr, user = c.d, c.tr, c.user
    try:
        duration, wanted = away_args(c.args)
    except ValueError:
        await c.reply(say.away_usage(tr))
        return
    # (A practice game has no clock, so nobody needs to stand in for its player.)
    games = [g for g in await call(d.service.games_of_user, user.id)
             if g.status in _RUNNING and not g.practice]
    if c.in_group:
        games = [g for g in games if c.place.holds(g)]
    if wanted:
        games = [g for g in games if g.id in wanted]
    if not games:
        await c.reply(present.no_game_in_play(tr))
        return
    now = d.service.clock.now()
    until = None if duration is None else now + duration
    meta = {away_key(user.id): None if until is None else until.isoformat()}
    gone = already = 0
    for game in games:
        result = await call(d.service.away, game.id, user.id, meta=meta)
        if result.status is ActStatus.APPLIED:
            gone += 1
            await d.deliverer.deliver(result.notifications, scene=result.scene)
            if until is not None and duration is not None and context.job_queue is not None:
                schedule_away_end(context.job_queue, game.id, user.id, until, duration)
        elif result.status is ActStatus.DUPLICATE:
            already += 1
    if not gone:
        await c.reply(say.away_already(tr) if already else present.no_game_in_play(tr))
        return
    await c.reply(say.away_text(tr, gone, until, now))


def schedule_away_end(
    job_queue: JobQueue[Any], game_id: int, user_id: int, until: datetime, delay: timedelta
) -> None:
    """Give the seat back after ``delay`` unless the absence changed meanwhile (one job per
    game and player: a new ``/away`` replaces it).

    The job is kept under a fixed APScheduler id and replaced by id. PTB's name look-up
    (``get_jobs_by_name``) cannot be used here: it reads every job of the scheduler as one
    of PTB's own, and the deadline jobs (:mod:`kolkhoz_tg.scheduler`) share that scheduler
    as plain APScheduler jobs, so the look-up fails as soon as one exists."""
    name = away_job_name(game_id, user_id)
    job_queue.run_once(end_away, max(delay, timedelta(0)), name=name,
                       data=(game_id, user_id, until.isoformat()),
                       job_kwargs={"id": name, "replace_existing": True})


def away_job(job_queue: JobQueue[Any], game_id: int, user_id: int) -> Job[Any] | None:
    """The job that ends the user's absence in the game, if one is scheduled."""
    aps_job = job_queue.scheduler.get_job(away_job_name(game_id, user_id))
    return None if aps_job is None else Job.from_aps_job(aps_job)


async def end_away(context: ContextTypes.DEFAULT_TYPE) -> None:
    """The job at the end of an absence: the seat goes back to its player, if it is still
    the same absence (not ended by a move or ``/back``, not replaced by another ``/away``)."""
    assert context.job is not None
    data: tuple[int, int, str] = context.job.data  # type: ignore[assignment]
    game_id, user_id, until = data
    d = deps(context)
    info = await call(d.service.game_info, game_id)
    if not still_away(info, user_id, until):
        return
    result = await call(d.service.back, game_id, user_id)
    if result.status is ActStatus.APPLIED:
        await d.deliverer.deliver(result.notifications)


def still_away(info: GameInfo, user_id: int, until: str) -> bool:
    """Whether the user's absence that ends at ``until`` still goes on in this game."""
    seat = info.seat_of(user_id)
    return (info.status in _RUNNING and seat is not None
            and info.meta.get(away_key(user_id)) == until
            and any(s.seat == seat and s.standin for s in info.seats))


async def restore_away_ends(app: Application[Any, Any, Any, Any, Any, Any]) -> int:
    """Schedule again the ends of absences stored in running games (after a restart the
    job queue has forgotten them; the games' meta keeps the times). For start-up; returns
    how many it scheduled."""
    d: Deps = app.bot_data[DEPS_KEY]
    if app.job_queue is None:
        return 0
    now = d.service.clock.now()
    count = 0
    for game_id, user_id, meta in await call(d.service.stood_in):
        until = meta.get(away_key(user_id))
        if not isinstance(until, str):
            continue
        try:
            when = datetime.fromisoformat(until)
            schedule_away_end(app.job_queue, game_id, user_id, when, when - now)
        except Exception:  # one bad entry must never keep the bot from starting
            log.exception("game %s: could not schedule the end of user %s's absence",
                          game_id, user_id)
            continue
        count += 1
    return count
