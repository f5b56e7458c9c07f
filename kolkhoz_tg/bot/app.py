"""The Telegram bot: a python-telegram-bot 22 ``Application`` over the play-by-post service.

Handlers turn updates into plain values, call the service (in a worker thread: it is
synchronous SQLAlchemy) and hand the notifications it returns to the :class:`Deliverer`.
No game rule lives here. Deadlines run on PTB's job queue (APScheduler) through
:class:`kolkhoz_tg.scheduler.DeadlineScheduler`, rebuilt from the database at start.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from collections.abc import Callable, Coroutine, Sequence
from functools import partial
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from kolkhoz_tg import metrics
from kolkhoz_tg.bot.again import cmd_notify
from kolkhoz_tg.bot.buttons import on_callback, on_error, on_migrate, on_my_chat_member
from kolkhoz_tg.bot.chat_settings import cmd_lang
from kolkhoz_tg.bot.commands import (
    TYPED,
    cmd_back,
    cmd_board,
    cmd_hand,
    cmd_help,
    cmd_last,
    cmd_newgame,
    cmd_practice,
    cmd_rules,
    cmd_score,
    cmd_start,
    cmd_typed,
    creator_command,
    group_game_command,
)
from kolkhoz_tg.bot.context import DEPS_KEY, Deps, call
from kolkhoz_tg.bot.delivery import Deliverer, Relay, dead_here, relay_name, spawn_task
from kolkhoz_tg.bot.disabled import supported_by
from kolkhoz_tg.bot.history import cmd_log, cmd_stats
from kolkhoz_tg.bot.inline import on_chosen_inline, on_inline_query
from kolkhoz_tg.bot.lobby import cmd_abort, cmd_kick
from kolkhoz_tg.bot.mygames import cmd_mygames, on_topic_named
from kolkhoz_tg.bot.personal import cmd_away, cmd_settings, restore_away_ends
from kolkhoz_tg.bot.premove import cmd_premove
from kolkhoz_tg.bot.retry import DELAYS, RetryingLimiter
from kolkhoz_tg.bot.thinking import install_thinker, start_thinker, stop_thinker
from kolkhoz_tg.bot.topics import on_topic_closed, on_topic_reopened
from kolkhoz_tg.bot.uptime import came_up, going_down, stop_catching_up
from kolkhoz_tg.config import LOCALES, Settings
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import commands as say
from kolkhoz_tg.scheduler import DeadlineScheduler
from kolkhoz_tg.service import (
    GameService,
    SweepResult,
)

log = logging.getLogger(__name__)

RELAY_JOB = "outbox-relay"

# ---------------------------------------------------------------------- assembly


COMMANDS: list[tuple[str, Callable[..., Any]]] = [
    ("start", cmd_start), ("help", cmd_help), ("rules", cmd_rules), ("newgame", cmd_newgame),
    ("join", partial(group_game_command, op="join")),
    ("leave", partial(group_game_command, op="leave")),
    ("addbot", partial(group_game_command, op="bot")),
    ("go", partial(group_game_command, op="start")),
    ("board", cmd_board), ("hand", cmd_hand), ("last", cmd_last), ("score", cmd_score),
    ("back", cmd_back), ("away", cmd_away),
    ("pause", partial(creator_command, what="pause")),
    ("resume", partial(creator_command, what="resume")),
    ("abort", cmd_abort),
    ("kick", cmd_kick), ("lang", cmd_lang), ("settings", cmd_settings),
    ("stats", cmd_stats), ("log", cmd_log), ("practice", cmd_practice),
    ("mygames", cmd_mygames), ("notify", cmd_notify), ("premove", cmd_premove),
]

GROUP_MENU = (
    "newgame", "board", "last", "score", "hand", "back", "away", "settings", "stats", "log",
    "rules", "help", "notify",
)
PRIVATE_MENU = (
    "mygames",
    "practice", "hand", "play", "assign", "trump", "swap", "pass", "back", "away", "stats",
    "lang", "rules", "help",
)




async def register_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Command menus for groups and private chats, in Russian and English."""
    for locale in LOCALES:
        tr = translator(locale)
        desc = say.menu_descriptions(tr)
        for scope, names in ((BotCommandScopeAllGroupChats(), GROUP_MENU),
                             (BotCommandScopeAllPrivateChats(), PRIVATE_MENU)):
            commands = [BotCommand(n, desc[n]) for n in names]
            await app.bot.set_my_commands(commands, scope=scope, language_code=locale)
            if locale == "ru":
                await app.bot.set_my_commands(commands, scope=scope)


async def startup(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Once the bot is connected: command menus, the deadline jobs rebuilt from the
    database, and the outbox relay, which delivers in the background whatever the outbox
    still owes (e.g. from before a restart) while the bot already serves taps. PTB runs it
    as ``post_init`` under ``run_polling`` / ``run_webhook``; an embedding (or a test) that
    starts the application itself calls it after ``app.start()``."""
    d: Deps = app.bot_data[DEPS_KEY]
    try:
        await register_commands(app)
    except TelegramError as e:
        log.warning("could not register the command menus: %s", e)
    # The deadline jobs start once the time the bot was down is given back (in the
    # background: the bot answers meanwhile).
    await came_up(app, start_clock)
    if d.settings.metrics_port is not None:
        metrics.serve(d.settings.metrics_port, d.service.operator_figures)
        d.service.move_listener = count_moves
    # The claims of this host's relay that died (kill -9, a crash) without giving them
    # back are taken over now, not after their lease: what it owed goes out at once.
    for owner in await call(d.service.claim_holders):
        if dead_here(owner, d.relay.owner):
            taken = await call(d.service.release_claims, owner)
            log.info("took over %d outbox claims of %s, which is gone", taken, owner)
    if app.job_queue is not None and d.relay_job is None:
        # (The deadline jobs share the scheduler as plain APScheduler jobs, which PTB's
        # get_jobs_by_name cannot read: the relay's job is kept here instead.)
        d.relay_job = app.job_queue.run_repeating(
            d.relay.tick, interval=d.settings.relay_interval.total_seconds(), first=0,
            name=RELAY_JOB, job_kwargs={"max_instances": 2, "coalesce": True},
        )
        # A job added before the job queue runs (post_init comes before app.start()) first
        # runs one interval later, not at once: what a dead process owed goes out now.
        first = _tick_once(d.relay)
        if app.running:
            app.create_task(first)
        else:
            spawn_task(first)
        # Timed absences (/away 3d) end by a job: put those jobs back after a restart.
        await restore_away_ends(app)
    # Games left waiting for a search bot (a restart, a lost wake-up) think again.
    await start_thinker(app)


async def start_clock(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """The deadline jobs, rebuilt from the database (in a worker thread: the bot may be
    answering already), and the sweep, on PTB's job queue (PTB starts and stops it: a
    clock started late, while the application stops, starts nothing). Raises when the
    database cannot be read; nothing is left half made then."""
    d: Deps = app.bot_data[DEPS_KEY]
    if d.schedule and d.scheduler is None and app.job_queue is not None:
        loop = asyncio.get_running_loop()

        def sink(due: SweepResult) -> None:
            # From the scheduler's thread: deliver on the loop, each game shown as the clock's
            # transaction left it (as a tap's), log a failure (what did not go out stays in
            # the outbox for the relay), and let shutdown wait for it.
            future = asyncio.run_coroutine_threadsafe(
                d.deliverer.deliver(due.notifications, scenes=due.scenes), loop)
            d.deliveries.add(future)
            future.add_done_callback(_delivered(d))

        scheduler = DeadlineScheduler(d.service, app.job_queue.scheduler, sink,
                                      d.settings.sweep_interval)
        try:
            await call(scheduler.start, start_scheduler=False)
        except BaseException:
            scheduler.detach()
            raise
        d.scheduler = scheduler


def count_moves(actors: list[str]) -> None:
    """The service's moves, counted for the operator's metrics by who made them."""
    for actor in actors:
        metrics.count_move(actor)


async def stopped(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Once no update is handled any more (PTB's ``post_stop``, the bot still connected):
    detach the deadline jobs from the service and let the deliveries they started finish,
    or time out, before :func:`shutdown` gives their claims back."""
    d: Deps = app.bot_data[DEPS_KEY]
    stop_thinker(app)
    await stop_catching_up(app)  # (before it would start the deadline jobs)
    if d.scheduler is not None:
        d.scheduler.detach()
        d.scheduler = None
    if d.deliveries:
        pending = [asyncio.wrap_future(f) for f in d.deliveries]
        _, late = await asyncio.wait(pending, timeout=SHUTDOWN_WAIT)
        if late:
            log.warning("%d deliveries after deadlines still running at shutdown", len(late))


async def shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Stop the relay (PTB stops the job queue itself) and give back this process's outbox
    claims, so the next process delivers them at once."""
    await stopped(app)  # done already under run_polling and run_webhook; not by every embedding
    d: Deps = app.bot_data[DEPS_KEY]
    await going_down(app)
    if d.settings.metrics_port is not None:
        metrics.stop()
    if d.relay_job is not None:
        with contextlib.suppress(Exception):  # the job queue may have stopped already
            d.relay_job.schedule_removal()
        d.relay_job = None
    if d.service.outbox_owner == d.relay.owner:
        d.service.outbox_owner = None
    try:
        await asyncio.to_thread(d.service.release_claims, d.relay.owner)
    except Exception:  # the database may be gone already: the leases lapse by themselves
        log.exception("could not release the outbox claims of %s", d.relay.owner)


#: Updates handled at the same time (PTB's default pool for concurrent updates is 256).
CONCURRENT_UPDATES = 64

#: How long shutdown waits for the sweep's deliveries still under way (seconds).
SHUTDOWN_WAIT = 10.0


def _delivered(d: Deps) -> Callable[[concurrent.futures.Future[Any]], None]:
    def done(future: concurrent.futures.Future[Any]) -> None:
        d.deliveries.discard(future)
        if not future.cancelled() and future.exception() is not None:
            log.error("a delivery after a deadline failed; the outbox keeps what did not go "
                      "out", exc_info=future.exception())
    return done


def build_application(
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any],
    service: GameService,
    settings: Settings | None = None,
    *,
    rate_limiter: bool = True,
    schedule: bool = True,
    retry_delays: Sequence[float] = DELAYS,
    bot_workers: int | None = None,
    bot_iterations: int | None = None,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot on ``service``; ``builder`` carries the token and the transport (the real
    Bot API, a self-hosted one via ``base_url``, or a test's fake). ``rate_limiter`` keeps
    to Telegram's pace (calls that meet a 5xx or a timeout are retried either way, after
    ``retry_delays``); ``schedule`` starts the deadline jobs on PTB's job queue. The
    service's notifications are from now on claimed by this application's outbox relay,
    and its search bots think in this application's workers (``bot_workers`` processes,
    0 for a thread; ``bot_iterations`` fixes the playouts of a decision, for tests: see
    :mod:`kolkhoz_tg.bot.thinking`)."""
    settings = settings or service.settings
    limiter = RetryingLimiter(throttle=rate_limiter, delays=retry_delays)
    limiter.buttons.supported = supported_by(settings.bot_api_version)
    builder = builder.rate_limiter(limiter)
    # Updates are handled concurrently: a tap in one chat never waits for the Bot API calls
    # of another chat's move. Games keep their order on their own (versions in the service,
    # one delivery at a time per game in the deliverer).
    builder = builder.concurrent_updates(CONCURRENT_UPDATES)
    app = builder.post_init(startup).post_stop(stopped).post_shutdown(shutdown).build()
    deliverer = Deliverer(app.bot, service, lambda: app.bot.username)
    deliverer.pace = limiter.pace
    limiter.on_change = deliverer.shown.forget

    def spawn(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        # The application's tasks are awaited when it stops (and by a test's idle wait).
        return app.create_task(coro) if app.running else spawn_task(coro)

    deliverer.spawn = spawn
    relay = Relay(deliverer, relay_name())
    service.outbox_owner = relay.owner
    app.bot_data[DEPS_KEY] = Deps(service, settings, deliverer, relay, schedule=schedule)
    install_thinker(app, service, deliverer, settings, workers=bot_workers,
                    iterations=bot_iterations)
    # Taps first: PTB tries the handlers in order, and a tap is the hot path.
    app.add_handler(CallbackQueryHandler(on_callback))
    # New messages only: editing an old "/play 10H" or "/addbot" must not act again now
    # (PTB's default would take edited messages too).
    new = filters.UpdateType.MESSAGE
    for name, handler in COMMANDS:
        app.add_handler(CommandHandler(name, handler, filters=new))
    app.add_handler(CommandHandler(list(TYPED), cmd_typed, filters=new))
    app.add_handler(InlineQueryHandler(on_inline_query))
    app.add_handler(ChosenInlineResultHandler(on_chosen_inline))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(MessageHandler(filters.StatusUpdate.FORUM_TOPIC_CLOSED, on_topic_closed))
    app.add_handler(MessageHandler(filters.StatusUpdate.FORUM_TOPIC_CREATED
                                   | filters.StatusUpdate.FORUM_TOPIC_EDITED, on_topic_named))
    app.add_handler(MessageHandler(filters.StatusUpdate.FORUM_TOPIC_REOPENED,
                                   on_topic_reopened))
    app.add_handler(ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
    return app


async def _tick_once(relay: Relay) -> None:
    """One pass of the outbox relay (its figure is the relay's own business)."""
    await relay.tick()
