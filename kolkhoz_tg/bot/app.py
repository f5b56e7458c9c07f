"""The Telegram bot: a python-telegram-bot 22 ``Application`` over the play-by-post service.

Handlers turn updates into plain values, call the service (in a worker thread: it is
synchronous SQLAlchemy) and hand the notifications it returns to the :class:`Deliverer`.
No game rule lives here. Deadlines run on PTB's job queue (APScheduler) through
:class:`kolkhoz_tg.scheduler.DeadlineScheduler`, rebuilt from the database at start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar, cast

from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChosenInlineResultHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    filters,
)

from engine import PRESETS, Action, ActionKind
from kolkhoz_tg import texts
from kolkhoz_tg.bot import render
from kolkhoz_tg.bot.callbacks import Callback, action_button
from kolkhoz_tg.bot.delivery import Acting, Deliverer, is_not_modified, markup, pm_key
from kolkhoz_tg.bot.typed import TypedError, parse_typed
from kolkhoz_tg.config import LOCALES, Settings
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.scheduler import DeadlineScheduler
from kolkhoz_tg.service import (
    ActResult,
    ActStatus,
    GameInfo,
    GameService,
    Notification,
    ServiceError,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

TIMEOUT_CHOICES = (3600, 4 * 3600, 12 * 3600, 24 * 3600, 48 * 3600, 72 * 3600)
DEPS_KEY = "kolkhoz"


@dataclass
class Deps:
    service: GameService
    settings: Settings
    deliverer: Deliverer
    schedule: bool = True
    scheduler: DeadlineScheduler | None = None


def deps(context: ContextTypes.DEFAULT_TYPE) -> Deps:
    return cast(Deps, context.application.bot_data[DEPS_KEY])


async def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a (synchronous) service call off the event loop."""
    return await asyncio.to_thread(fn, *args, **kwargs)


def full_name(update: Update) -> str:
    user = update.effective_user
    return user.full_name if user is not None else "?"


async def remember_user(update: Update, d: Deps) -> Translator:
    """Record the user (name, Telegram language) and return their translator."""
    user = update.effective_user
    assert user is not None
    await call(d.service.ensure_user, user.id, user.full_name, user.language_code)
    chat = update.effective_chat
    chat_id = chat.id if chat is not None and chat.type != ChatType.PRIVATE else None
    locale = await call(d.service.locale_for, user.id, chat_id, user.language_code)
    return translator(locale)


async def group_tr(update: Update, d: Deps) -> Translator:
    """The chat's translator (its language, else the caller's, else the default)."""
    chat = update.effective_chat
    user = update.effective_user
    assert chat is not None
    fallback = user.language_code if user else None
    locale = await call(d.service.locale_for, None, chat.id, fallback)
    return translator(locale)


def is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def reply(update: Update, text: str, keyboard: render.Keyboard | None = None) -> None:
    message = update.effective_message
    if message is not None:
        await message.reply_text(text[: render.MAX_TEXT], reply_markup=markup(keyboard or []))


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None or chat.type == ChatType.PRIVATE:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def current_game(update: Update, d: Deps) -> GameInfo | None:
    """The chat's open game (group), or the user's game that waits for them (private)."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if chat.type != ChatType.PRIVATE:
        games = await call(d.service.games_in_chat, chat.id)
        return games[0] if games else None
    games = await call(d.service.games_of_user, user.id)
    for game in games:
        if game.status != "active":
            continue
        sv = await call(d.service.seat_view, game.id, user.id)
        if sv.to_act:
            return game
    return games[0] if games else None


def service_error_text(tr: Translator, error: ServiceError) -> str:
    return texts.error_text(tr, error.code)


# ---------------------------------------------------------------------- acting


async def perform(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, action: str,
    version: int | None, acting: Acting | None = None,
) -> ActResult:
    """Act for the updating user and deliver what followed."""
    d = deps(context)
    user = update.effective_user
    assert user is not None
    if version is None:
        version = (await call(d.service.game_info, game_id)).version
    result = await call(d.service.act, game_id, user.id, action, version)
    if result.status is ActStatus.STALE and action.startswith("swap:"):
        # Swaps are decided independently: another player's swap moved the version on, but
        # this player's choices (their own hand and plot) are exactly what they saw.
        result = await call(d.service.act, game_id, user.id, action, result.version)
    if result.notifications:
        await d.deliverer.deliver(result.notifications, acting)
    elif acting is not None:
        await d.deliverer.refresh_private(game_id, user.id, new=False, acting=acting)
    return result


def result_text(tr: Translator, result: ActResult) -> str:
    _ = tr.gettext
    if result.status is ActStatus.APPLIED:
        return _("Done.")
    if result.status is ActStatus.DUPLICATE:
        return _("Already done.")
    if result.status is ActStatus.STALE:
        return _("The game has moved on; look again.")
    if result.status is ActStatus.NOT_SEATED:
        return _("You are not playing in this game.")
    if result.status is ActStatus.NOT_ACTIVE:
        return _("The game is not running.")
    return texts.reason_text(tr, result.reason)


# ---------------------------------------------------------------------- commands


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await remember_user(update, d)
    user = update.effective_user
    assert user is not None
    if is_group(update):
        await cmd_help(update, context)
        return
    await call(d.service.set_can_pm, user.id, True)
    payload = context.args[0] if context.args else ""
    games = await call(d.service.games_of_user, user.id)
    wanted = [g for g in games if payload == f"g{g.id}"] or games
    if not wanted:
        await reply(update, tr.gettext(
            "Hello! I run slow games of Kolkhoz in group chats. Add me to a group and "
            "send /newgame there. /help lists the commands, /rules explains the game."
        ))
        return
    for game in wanted[:5]:
        if game.status == "lobby":
            await reply(update, tr.gettext("You are in a game that has not started yet."))
            continue
        await d.deliverer.refresh_private(game.id, user.id, new=True)


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await (group_tr(update, d) if is_group(update) else remember_user(update, d))
    _ = tr.gettext
    lines = [
        "🌾 " + _("Kolkhoz: a slow trick-taking game for 3 to 5 players."),
        _("In the group:"),
        "/newgame — " + _("open a new game (optionally: /newgame zone 3)"),
        "/join, /leave, /addbot, /go — " + _("take a seat, leave, add a bot, start"),
        "/board — " + _("show the board again"),
        "/last — " + _("the last trick"),
        "/score — " + _("points in sight"),
        "/settings — " + _("rules, players, time limit"),
        "/pause, /resume, /abort, /kick — " + _("for the creator and admins"),
        _("Anywhere:"),
        "/play 10H, /play 10ч, /assign 10H S, /trump ♠, /swap 9H KC — " + _("typed moves"),
        "/hand — " + _("your cards (in private)"),
        "/back — " + _("take your seat back from the bot"),
        "/lang ru|en — " + _("language"),
        "/rules — " + _("the rules"),
    ]
    await reply(update, "\n".join(lines))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await (group_tr(update, d) if is_group(update) else remember_user(update, d))
    for part in rules_text(tr):
        await reply(update, part)


def rules_text(tr: Translator) -> list[str]:
    _ = tr.gettext
    return [
        "📜 " + _("Kolkhoz in brief") + "\n\n" + _(
            "Five years of the plan. Every year each player gets 5 cards (fewer when the "
            "deck runs low: a lean year, without trump). The Planner names the trump. Tricks "
            "are played as usual: follow suit if you can, the highest trump or else the "
            "highest card of the led suit wins."
        ) + "\n\n" + _(
            "The trick's winner is the Brigadier: they put each card of the trick on a job "
            "(♥ ♦ ♣ ♠). Workers 6-10 give their value in hours, J 11, Q 12, K 13. A job that "
            "reaches the threshold (usually 40 hours) is done, and its reward cards go to the "
            "Brigadier's plot."
        ) + "\n\n" + _(
            "Your last card of the year goes face-down into your plot. For every job that "
            "failed, the Brigadiers (in some rules everyone) show their cards of that suit "
            "and lose the highest to the North. The trump Jack, Queen and King change that: "
            "the Jack is sent north instead, the Queen exposes everyone, the King doubles "
            "the loss."
        ) + "\n\n" + _(
            "At the end, the cards in your plot are your points. The full rules for players "
            "are in the project's docs/RULES.md."
        )
    ]


async def cmd_newgame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    await remember_user(update, d)
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if not is_group(update):
        tr = await remember_user(update, d)
        await reply(update, tr.gettext("Start a game in a group chat: add me there."))
        return
    await call(d.service.ensure_chat, chat.id, chat.title)
    info = await call(d.service.chat, chat.id)
    if info is not None and info.locale is None:
        creator = await call(d.service.locale_for, user.id, None, user.language_code)
        await call(d.service.set_chat_locale, chat.id, creator)
    tr = await group_tr(update, d)
    open_games = await call(d.service.games_in_chat, chat.id)
    if open_games:
        await reply(update, tr.gettext("This chat already has a game: see the board below."))
        await d.deliverer.refresh_board(open_games[0].id, resend=True)
        return
    preset_name: str | None = None
    players = 4
    for arg in context.args or []:
        if arg.lower() in PRESETS:
            preset_name = arg.lower()
        elif arg.isdigit():
            players = int(arg)
    try:
        game = await call(d.service.create_game, chat.id, user.id, creator_name=user.full_name,
                          preset=preset_name, players=players)
    except ServiceError as e:
        await reply(update, service_error_text(tr, e))
        return
    await d.deliverer.refresh_board(game.id, resend=True)


async def lobby_op(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, op: str
) -> str | None:
    """Do a lobby operation for the updating user; returns an error text or None."""
    d = deps(context)
    user = update.effective_user
    assert user is not None
    tr = await group_tr(update, d)
    svc = d.service
    try:
        if op == "join":
            await call(svc.join, game_id, user.id, user.full_name)
        elif op == "leave":
            await call(svc.leave, game_id, user.id)
        elif op == "bot":
            await call(svc.add_bot, game_id, user.id)
        elif op == "start":
            result = await call(svc.start, game_id, user.id, True)
            await d.deliverer.deliver(result.notifications)
            return None
        elif op == "preset":
            info = await call(svc.game_info, game_id)
            names = list(PRESETS)
            nxt = names[(names.index(info.preset) + 1) % len(names)] if info.preset in names \
                else names[0]
            await call(svc.configure_lobby, game_id, user.id, preset=nxt,
                       options={"medals_score": bool(info.rules.get("medals_score"))})
        elif op == "players":
            info = await call(svc.game_info, game_id)
            await call(svc.configure_lobby, game_id, user.id,
                       players=3 + (info.players - 2) % 3)
        elif op == "medals":
            info = await call(svc.game_info, game_id)
            await call(svc.configure_lobby, game_id, user.id,
                       options={"medals_score": not info.rules.get("medals_score")})
        elif op == "timeout":
            info = await call(svc.game_info, game_id)
            later = [t for t in TIMEOUT_CHOICES if t > info.turn_timeout]
            await call(svc.configure, game_id, user.id,
                       turn_timeout=later[0] if later else TIMEOUT_CHOICES[0])
        else:
            return tr.gettext("That button is not mine.")
    except ServiceError as e:
        return service_error_text(tr, e)
    await d.deliverer.refresh_board(game_id)
    return None


async def _group_game_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, op: str
) -> None:
    d = deps(context)
    await remember_user(update, d)
    tr = await group_tr(update, d)
    game = await current_game(update, d) if is_group(update) else None
    if game is None:
        await reply(update, tr.gettext("There is no open game here. Start one with /newgame."))
        return
    error = await lobby_op(update, context, game.id, op)
    if error:
        await reply(update, error)


async def cmd_board(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await remember_user(update, d)
    game = await current_game(update, d)
    if game is None:
        await reply(update, tr.gettext("There is no open game here. Start one with /newgame."))
        return
    if is_group(update):
        await d.deliverer.refresh_board(game.id, resend=True)
    else:
        bv = await call(d.service.board, game.id)
        msg = render.board(tr, bv, d.service.clock.now(), context.bot.username)
        await reply(update, msg.text)


async def cmd_hand(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await remember_user(update, d)
    user = update.effective_user
    assert user is not None
    game = await current_game(update, d)
    if game is None or game.seat_of(user.id) is None or game.status == "lobby":
        await reply(update, tr.gettext("You have no game in play here."))
        return
    sent = await d.deliverer.refresh_private(game.id, user.id, new=True)
    if is_group(update) and sent:
        await reply(update, tr.gettext("I have sent your cards to our private chat."))
    elif is_group(update):
        await reply(update, tr.gettext("Open a private chat with me first:"),
                    [[render.Button("✉️ " + tr.gettext("Open my cards"),
                                    url=render.deep_link(context.bot.username, game.id))]])


async def cmd_last(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await (group_tr(update, d) if is_group(update) else remember_user(update, d))
    game = await current_game(update, d)
    if game is None or game.status == "lobby":
        await reply(update, tr.gettext("You have no game in play here."))
        return
    bv = await call(d.service.board, game.id)
    assert bv.view is not None
    await reply(update, render.last_trick(tr, bv.game, bv.view))


async def cmd_score(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await (group_tr(update, d) if is_group(update) else remember_user(update, d))
    game = await current_game(update, d)
    if game is None or game.status == "lobby":
        await reply(update, tr.gettext("You have no game in play here."))
        return
    bv = await call(d.service.board, game.id)
    assert bv.view is not None
    await reply(update, render.visible_score(tr, bv.game, bv.view))


async def cmd_back(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await remember_user(update, d)
    user = update.effective_user
    assert user is not None
    games = await call(d.service.games_of_user, user.id)
    if is_group(update):
        chat = update.effective_chat
        assert chat is not None
        games = [g for g in games if g.chat_id == chat.id]
    back = False
    for game in games:
        result = await call(d.service.back, game.id, user.id)
        if result.status is ActStatus.APPLIED:
            back = True
            await d.deliverer.deliver(result.notifications)
    await reply(update, tr.gettext("Welcome back: your seat is yours again.") if back
                else tr.gettext("Nobody was playing for you; carry on."))


async def _creator_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, what: str
) -> None:
    d = deps(context)
    await remember_user(update, d)
    tr = await group_tr(update, d) if is_group(update) else await remember_user(update, d)
    user = update.effective_user
    assert user is not None
    game = await current_game(update, d) if is_group(update) else None
    if game is None:
        await reply(update, tr.gettext("There is no open game here. Start one with /newgame."))
        return
    admin = await is_admin(update, context)
    method = {"pause": d.service.pause, "resume": d.service.resume, "abort": d.service.abort}
    try:
        result = await call(method[what], game.id, user.id, admin)
    except ServiceError as e:
        await reply(update, service_error_text(tr, e))
        return
    await d.deliverer.deliver(result.notifications)
    await d.deliverer.refresh_board(game.id)
    done = {
        "pause": tr.gettext("The game is paused; the clock has stopped."),
        "resume": tr.gettext("The game goes on; the clock runs again."),
        "abort": tr.gettext("The game was called off."),
    }
    await reply(update, done[what])


async def cmd_kick(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/kick N``: in the lobby, free seat N; in a running game, a bot stands in for it."""
    d = deps(context)
    tr = await group_tr(update, d) if is_group(update) else await remember_user(update, d)
    user = update.effective_user
    assert user is not None
    game = await current_game(update, d) if is_group(update) else None
    if game is None:
        await reply(update, tr.gettext("There is no open game here. Start one with /newgame."))
        return
    args = context.args or []
    if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= game.players:
        await reply(update, tr.gettext("Usage: /kick N, where N is the seat number (1-{n}).",
                                       n=game.players))
        return
    admin = await is_admin(update, context)
    if user.id != game.creator_id and not admin:
        await reply(update, tr.gettext("Only the game's creator and the chat's admins may "
                                       "do that."))
        return
    seat = int(args[0]) - 1
    try:
        if game.status == "lobby":
            await call(d.service.remove_seat, game.id, game.creator_id or user.id, seat)
        else:
            result = await call(d.service.stand_in, game.id, seat)
            await d.deliverer.deliver(result.notifications)
    except ServiceError as e:
        await reply(update, service_error_text(tr, e))
        return
    await d.deliverer.refresh_board(game.id)
    await reply(update, tr.gettext("Done."))


async def cmd_lang(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    tr = await remember_user(update, d)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    args = context.args or []
    if len(args) != 1 or args[0].lower() not in LOCALES:
        await reply(update, tr.gettext("Usage: /lang ru or /lang en"))
        return
    locale = args[0].lower()
    if is_group(update):
        games = await call(d.service.games_in_chat, chat.id)
        creators = {g.creator_id for g in games}
        if not (await is_admin(update, context) or user.id in creators or not games):
            await reply(update, tr.gettext("Only the chat's admins may change its language."))
            return
        await call(d.service.set_chat_locale, chat.id, locale)
        for game in games:
            await d.deliverer.refresh_board(game.id)
    else:
        await call(d.service.set_user_locale, user.id, locale)
    await reply(update, translator(locale).gettext("Language: English"))


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/settings`` shows the game's settings; ``/settings timeout 12h``,
    ``/settings preset zone``, ``/settings players 3``, ``/settings medals on`` change them."""
    d = deps(context)
    tr = await group_tr(update, d) if is_group(update) else await remember_user(update, d)
    user = update.effective_user
    assert user is not None
    game = await current_game(update, d) if is_group(update) else None
    if game is None:
        await reply(update, tr.gettext("There is no open game here. Start one with /newgame."))
        return
    args = [a.lower() for a in context.args or []]
    if not args:
        await reply(update, render.rules_line(tr, game) + "\n" + tr.gettext(
            "Change with: /settings preset NAME · players 3-5 · timeout 12h · "
            "medals on|off · reminders 50%,1h"
        ))
        return
    key, values = args[0], args[1:]
    try:
        if key == "timeout" and len(values) == 1:
            await call(d.service.configure, game.id, user.id, turn_timeout=values[0])
        elif key == "reminders" and len(values) == 1:
            await call(d.service.configure, game.id, user.id,
                       reminders=[v for v in values[0].split(",") if v])
        elif key == "preset" and len(values) == 1:
            await call(d.service.configure_lobby, game.id, user.id, preset=values[0],
                       options={"medals_score": bool(game.rules.get("medals_score"))})
        elif key == "players" and len(values) == 1 and values[0].isdigit():
            await call(d.service.configure_lobby, game.id, user.id, players=int(values[0]))
        elif key == "medals" and len(values) == 1 and values[0] in ("on", "off"):
            await call(d.service.configure_lobby, game.id, user.id,
                       options={"medals_score": values[0] == "on"})
        else:
            await reply(update, tr.gettext(
                "Change with: /settings preset NAME · players 3-5 · timeout 12h · "
                "medals on|off · reminders 50%,1h"
            ))
            return
    except ServiceError as e:
        await reply(update, service_error_text(tr, e))
        return
    await d.deliverer.refresh_board(game.id)
    info = await call(d.service.game_info, game.id)
    await reply(update, render.rules_line(tr, info))


TYPED = ("play", "assign", "trump", "swap")


async def cmd_typed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/play 10H``, ``/assign 10H S``, ``/trump ♠``, ``/swap 9H KC``."""
    d = deps(context)
    tr = await remember_user(update, d)
    message = update.effective_message
    assert message is not None and message.text is not None
    command = message.text.split()[0].lstrip("/").split("@")[0].lower()
    args = message.text.partition(" ")[2]
    _ = tr.gettext
    if command == "swap" and is_group(update):
        # A swap names a face-down plot card: never in the group.
        await reply(update, _("Swaps are secret: send /swap to me in private."))
        return
    try:
        action = parse_typed(command, args)
    except TypedError as e:
        usage = {
            "play": _("Usage: /play 10H (suits: H D C S, ♥ ♦ ♣ ♠ or ч б т п; ranks J Q K A "
                      "or В Д К Т)"),
            "assign": _("Usage: /assign 10H S (card, then the job's suit)"),
            "trump": _("Usage: /trump ♠ (or S, п, пики)"),
            "swap": _("Usage: /swap 9H KC (hand card, then plot card) or /swap pass"),
        }[command]
        if e.code == "bad_card":
            await reply(update, _("I do not know the card «{text}».", text=e.text) + "\n" + usage)
        elif e.code == "bad_suit":
            await reply(update, _("I do not know the suit «{text}».", text=e.text) + "\n" + usage)
        else:
            await reply(update, usage)
        return
    game = await current_game(update, d)
    user = update.effective_user
    assert user is not None
    if game is None or game.seat_of(user.id) is None:
        await reply(update, _("You have no game in play here."))
        return
    acting = None
    pm = game.meta.get(pm_key(user.id))
    if not is_group(update) and pm:
        # The private game message shows the new state, as after a tap.
        acting = Acting(user.id, user.id, int(pm))
    result = await perform(update, context, game.id, action, None, acting)
    if not result.ok:
        await reply(update, result_text(tr, result))


# ---------------------------------------------------------------------- buttons


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    query = update.callback_query
    assert query is not None
    tr = await remember_user(update, d)
    try:
        cb = Callback.decode(query.data)
    except ValueError:
        await query.answer(tr.gettext("That button is not mine."), show_alert=True)
        return
    if cb.kind == "l":
        tr = await group_tr(update, d)
        error = await lobby_op(update, context, cb.game_id, cb.payload)
        await query.answer(error or "", show_alert=bool(error))
        return
    user = update.effective_user
    assert user is not None
    try:
        info = await call(d.service.game_info, cb.game_id)
    except ServiceError:
        await query.answer(tr.gettext("There is no such game."), show_alert=True)
        return
    if info.seat_of(user.id) is None and cb.kind != "v":
        await query.answer(tr.gettext("You are not playing in this game."), show_alert=True)
        return
    message = query.message
    in_private = message is not None and message.chat.type == ChatType.PRIVATE
    acting = Acting(user.id, message.chat.id, message.message_id) if (
        in_private and message is not None) else None
    if cb.kind == "a":
        result = await perform(update, context, cb.game_id, cb.payload, cb.version, acting)
        if result.status is ActStatus.APPLIED:
            await query.answer()
        else:
            await query.answer(result_text(tr, result),
                               show_alert=result.status in (ActStatus.ILLEGAL, ActStatus.INVALID))
    elif cb.kind == "x":
        try:
            reason = await call(d.service.why_illegal, cb.game_id, user.id, cb.payload)
        except ServiceError as e:
            await query.answer(service_error_text(tr, e), show_alert=True)
            return
        if reason is None:
            await query.answer(tr.gettext("You may play it now."))
            if acting is not None:
                await d.deliverer.refresh_private(cb.game_id, user.id, new=False, acting=acting)
        else:
            view = None
            if reason == "follow_suit":
                view = (await call(d.service.board, cb.game_id)).view
            await query.answer(texts.reason_text(tr, reason, view), show_alert=True)
    else:  # "v"
        bv = await call(d.service.board, cb.game_id)
        if cb.payload == "last" and bv.view is not None:
            text = render.last_trick(tr, bv.game, bv.view)
            await query.answer(text[:200], show_alert=True)
            return
        await query.answer()
        if in_private and message is not None:
            msg = render.board(tr, bv, d.service.clock.now(), context.bot.username)
            await context.bot.send_message(message.chat.id, msg.text)


# ---------------------------------------------------------------------- inline mode


async def on_inline_query(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``@bot`` in a chat: the user's possible moves as personal, uncached results."""
    d = deps(context)
    query = update.inline_query
    assert query is not None
    tr = await remember_user(update, d)
    user = query.from_user
    wanted = query.query.strip().split()[0] if query.query.strip() else ""
    games = await call(d.service.games_of_user, user.id)
    results = []
    for game in games:
        if game.status != "active" or (wanted and wanted != f"g{game.id}"):
            continue
        sv = await call(d.service.seat_view, game.id, user.id)
        chat = await call(d.service.chat, game.chat_id)
        title = chat.title if chat and chat.title else str(game.chat_id)
        for text in sv.legal:
            action = Action.parse(text)
            if action.kind is ActionKind.SWAP:
                continue  # a swap names a face-down card: private chat only
            label = texts.action_label(tr, sv.view, text)
            name = texts.seat_name(tr, game, sv.seat)
            results.append(
                InlineQueryResultArticle(
                    id=action_button(game.id, game.version, text),
                    title=label,
                    description=tr.gettext("Kolkhoz in «{chat}»", chat=title),
                    input_message_content=InputTextMessageContent(
                        f"🃏 {name}: {texts.card_action(text)}"
                    ),
                    reply_markup=InlineKeyboardMarkup(
                        [[InlineKeyboardButton("⏳", callback_data="v:0:0:wait")]]
                    ),
                )
            )
    button = InlineQueryResultsButton(text=tr.gettext("My cards in private"),
                                      start_parameter="hand")
    await query.answer(results[:50], cache_time=0, is_personal=True, button=button)


async def on_chosen_inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The user picked a move from the inline results: play it, and say how it went in
    the message the choice posted."""
    d = deps(context)
    chosen = update.chosen_inline_result
    assert chosen is not None
    tr = await remember_user(update, d)
    try:
        cb = Callback.decode(chosen.result_id)
    except ValueError:
        return
    if cb.kind != "a":
        return
    result = await perform(update, context, cb.game_id, cb.payload, cb.version)
    if chosen.inline_message_id:
        mark = "✅" if result.ok else "✖️ " + result_text(tr, result)
        try:
            info = await call(d.service.game_info, cb.game_id)
            seat = info.seat_of(chosen.from_user.id)
            name = texts.seat_name(tr, info, seat) if seat is not None else ""
            await context.bot.edit_message_text(
                f"🃏 {name}: {texts.card_action(cb.payload)} {mark}",
                inline_message_id=chosen.inline_message_id,
            )
        except BadRequest as e:
            if not is_not_modified(e):
                log.info("could not edit inline message: %s", e)


# ---------------------------------------------------------------------- chat events


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group became a supergroup: its games move with it."""
    message = update.effective_message
    if message is None:
        return
    d = deps(context)
    if message.migrate_to_chat_id:
        await call(d.service.migrate_chat, message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        await call(d.service.migrate_chat, message.migrate_from_chat_id, message.chat.id)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        with contextlib.suppress(TelegramError):
            await update.callback_query.answer()


# ---------------------------------------------------------------------- assembly


COMMANDS: list[tuple[str, Callable[..., Any]]] = [
    ("start", cmd_start), ("help", cmd_help), ("rules", cmd_rules), ("newgame", cmd_newgame),
    ("join", partial(_group_game_command, op="join")),
    ("leave", partial(_group_game_command, op="leave")),
    ("addbot", partial(_group_game_command, op="bot")),
    ("go", partial(_group_game_command, op="start")),
    ("board", cmd_board), ("hand", cmd_hand), ("last", cmd_last), ("score", cmd_score),
    ("back", cmd_back),
    ("pause", partial(_creator_command, what="pause")),
    ("resume", partial(_creator_command, what="resume")),
    ("abort", partial(_creator_command, what="abort")),
    ("kick", cmd_kick), ("lang", cmd_lang), ("settings", cmd_settings),
]

GROUP_MENU = ("newgame", "board", "last", "score", "hand", "back", "settings", "rules", "help")
PRIVATE_MENU = ("hand", "play", "assign", "trump", "swap", "back", "lang", "rules", "help")


def menu_descriptions(tr: Translator) -> dict[str, str]:
    _ = tr.gettext
    return {
        "newgame": _("open a new game"), "board": _("show the board again"),
        "last": _("the last trick"), "score": _("points in sight"),
        "hand": _("your cards"), "back": _("take your seat back from the bot"),
        "settings": _("rules, players, time limit"), "rules": _("the rules"),
        "help": _("all commands"), "play": _("play a card: /play 10H"),
        "assign": _("assign a card: /assign 10H S"), "trump": _("declare trump: /trump ♠"),
        "swap": _("swap with your plot: /swap 9H KC"), "lang": _("language: /lang ru|en"),
    }


async def register_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Command menus for groups and private chats, in Russian and English."""
    for locale in LOCALES:
        tr = translator(locale)
        desc = menu_descriptions(tr)
        for scope, names in ((BotCommandScopeAllGroupChats(), GROUP_MENU),
                             (BotCommandScopeAllPrivateChats(), PRIVATE_MENU)):
            commands = [BotCommand(n, desc[n]) for n in names]
            await app.bot.set_my_commands(commands, scope=scope, language_code=locale)
            if locale == "ru":
                await app.bot.set_my_commands(commands, scope=scope)


async def startup(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Once the bot is connected: command menus, the deadline jobs rebuilt from the
    database, and whatever the outbox still owes (e.g. from before a restart). PTB runs it
    as ``post_init`` under ``run_polling`` / ``run_webhook``; an embedding (or a test) that
    starts the application itself calls it after ``app.start()``."""
    d: Deps = app.bot_data[DEPS_KEY]
    try:
        await register_commands(app)
    except TelegramError as e:
        log.warning("could not register the command menus: %s", e)
    if d.schedule and d.scheduler is None and app.job_queue is not None:
        loop = asyncio.get_running_loop()

        def sink(notes: list[Notification]) -> None:
            asyncio.run_coroutine_threadsafe(d.deliverer.deliver(notes), loop)

        d.scheduler = DeadlineScheduler(d.service, app.job_queue.scheduler, sink,
                                        d.settings.sweep_interval)
        d.scheduler.start()
    await d.deliverer.flush()


async def shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Detach the deadline jobs from the service (PTB stops the job queue itself)."""
    d: Deps = app.bot_data[DEPS_KEY]
    if d.scheduler is not None:
        d.scheduler.detach()
        d.scheduler = None


def build_application(
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any],
    service: GameService,
    settings: Settings | None = None,
    *,
    rate_limiter: bool = True,
    schedule: bool = True,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bot on ``service``; ``builder`` carries the token and the transport (the real
    Bot API, a self-hosted one via ``base_url``, or a test's fake). ``schedule`` starts the
    deadline jobs on PTB's job queue."""
    settings = settings or service.settings
    if rate_limiter:
        builder = builder.rate_limiter(AIORateLimiter(max_retries=3))

    app = builder.post_init(startup).post_shutdown(shutdown).build()
    deliverer = Deliverer(app.bot, service, lambda: app.bot.username)
    app.bot_data[DEPS_KEY] = Deps(service, settings, deliverer, schedule=schedule)
    for name, handler in COMMANDS:
        app.add_handler(CommandHandler(name, handler))
    app.add_handler(CommandHandler(list(TYPED), cmd_typed))
    app.add_handler(CallbackQueryHandler(on_callback))
    app.add_handler(InlineQueryHandler(on_inline_query))
    app.add_handler(ChosenInlineResultHandler(on_chosen_inline))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_error_handler(on_error)
    return app


async def _check_token(token: str, base_url: str) -> None:
    async with Bot(token, base_url=base_url) as bot:
        log.info("connected as @%s", bot.username)


def bot_api_base_url(url: str) -> str:
    """PTB's ``base_url`` for a Bot API server: ``http://host:8081`` and
    ``http://host:8081/bot`` both give ``http://host:8081/bot`` (the token follows)."""
    url = url.rstrip("/")
    return url if url.endswith("/bot") else url + "/bot"


def run(settings: Settings | None = None, webhook_url: str | None = None) -> int:
    """``kolkhoz bot``: long polling, or webhook mode when ``webhook_url`` is given, until
    interrupted. A missing or refused token, or an unreachable Bot API, ends it with a
    one-line reason (exit status 2) instead of a traceback."""
    from kolkhoz_tg.bot.webhook import default_secret, serve
    from kolkhoz_tg.logs import setup_logging
    from kolkhoz_tg.service import open_service

    settings = settings or Settings()
    setup_logging(settings.log_format, settings.log_level)
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        log.error("KOLKHOZ_BOT_TOKEN is not set: get a token from @BotFather")
        return 2
    token = settings.bot_token.get_secret_value().strip()
    base_url = bot_api_base_url(settings.bot_api_url or "https://api.telegram.org")
    try:
        # Ask Telegram who we are before anything else: a bad token or an unreachable Bot API
        # is then one clear line, not PTB's retry loop and its traceback.
        asyncio.run(_check_token(token, base_url))
    except InvalidToken:
        log.error("Telegram refused the token in KOLKHOZ_BOT_TOKEN (check it with @BotFather)")
        return 2
    except NetworkError as e:
        log.error("cannot reach the Telegram Bot API at %s: %s", base_url, e)
        return 2
    service = open_service(settings=settings)
    app = build_application(ApplicationBuilder().token(token).base_url(base_url), service,
                            settings)
    try:
        if webhook_url:
            secret = (settings.webhook_secret.get_secret_value() if settings.webhook_secret
                      else default_secret(token))
            asyncio.run(serve(app, service, webhook_url=webhook_url, secret=secret,
                              listen=settings.webhook_listen, port=settings.webhook_port))
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES)
    except InvalidToken:
        log.error("Telegram refused the token in KOLKHOZ_BOT_TOKEN (check it with @BotFather)")
        return 2
    except NetworkError as e:
        log.error("lost the Telegram Bot API at %s: %s", base_url, e)
        return 2
    finally:
        service.db.dispose()
    return 0
