"""What every handler needs: the service and deliverer behind the application, the reader's
translator, which game an update is about, and acting through the service."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from sqlalchemy.exc import DBAPIError
from telegram import CallbackQuery, Chat, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes, Job

from kolkhoz_tg import present
from kolkhoz_tg.bot.delivery import Acting, Deliverer, Relay, markup, topic_gone
from kolkhoz_tg.config import Settings
from kolkhoz_tg.i18n import Translator, reader_locale, translator
from kolkhoz_tg.scheduler import DeadlineScheduler
from kolkhoz_tg.service import (
    ActResult,
    ActStatus,
    Busy,
    GameInfo,
    GameService,
    SeatView,
    ServiceError,
)
from kolkhoz_tg.service.takeback import TAKEBACK

log = logging.getLogger(__name__)
T = TypeVar("T")

DEPS_KEY = "kolkhoz"


@dataclass
class Deps:
    service: GameService
    settings: Settings
    deliverer: Deliverer
    relay: Relay
    schedule: bool = True
    scheduler: DeadlineScheduler | None = None
    relay_job: Job[Any] | None = None
    #: The sweep's deliveries under way (futures on the event loop, from its thread).
    deliveries: set[concurrent.futures.Future[Any]] = field(default_factory=set)
    #: At a start after downtime: the running games getting that time back (see
    #: :mod:`kolkhoz_tg.bot.uptime`); ``came_up`` once done (or nothing was owed).
    catching_up: asyncio.Task[None] | None = None
    came_up: bool = False
    #: Set at a stop: the catch-up's worker thread ends after its current chunk.
    stop_catching_up: threading.Event = field(default_factory=threading.Event)


def deps(context: ContextTypes.DEFAULT_TYPE) -> Deps:
    return cast(Deps, context.application.bot_data[DEPS_KEY])


async def call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a (synchronous) service call off the event loop; once more, on a fresh
    connection, when the database dropped the one it was using (PostgreSQL restarted, the
    connection killed): the player need not tap again. Every service call may be repeated:
    a move carries the version it was made at (a second one is a duplicate), a lobby's
    place takes one game."""
    try:
        return await asyncio.to_thread(fn, *args, **kwargs)
    except DBAPIError as e:
        if not e.connection_invalidated:
            raise
        log.warning("the database dropped a connection (%s): trying %s once more",
                    str(e.orig).splitlines()[0] if e.orig else type(e).__name__,
                    getattr(fn, "__name__", "the call"))
    return await asyncio.to_thread(fn, *args, **kwargs)


def full_name(update: Update) -> str:
    user = update.effective_user
    return user.full_name if user is not None else "?"


async def remember_user(update: Update, d: Deps) -> Translator:
    """Record the user (name, Telegram language) and return their translator. A Telegram
    language the bot has no catalog for reads as English, or Russian for the languages of
    :data:`~kolkhoz_tg.i18n.RUSSIAN_READERS` (:func:`~kolkhoz_tg.i18n.reader_locale`): a
    German is not greeted in Russian because that is the chats' default."""
    user = update.effective_user
    assert user is not None
    own = reader_locale(user.language_code)
    # When another process holds the database, the name and language wait for next time.
    with contextlib.suppress(Busy):
        await call(d.service.ensure_user, user.id, user.full_name, own)
    chat = update.effective_chat
    chat_id = chat.id if chat is not None and chat.type != ChatType.PRIVATE else None
    locale = await call(d.service.locale_for, user.id, chat_id, own)
    return translator(locale)


async def group_tr(update: Update, d: Deps) -> Translator:
    """The chat's translator (its language, else the caller's when the bot speaks it, else
    the configured default: a group that chose nothing is not addressed in the English
    guessed for a German caller)."""
    chat = update.effective_chat
    user = update.effective_user
    assert chat is not None
    fallback = user.language_code if user else None
    locale = await call(d.service.locale_for, None, chat.id, fallback)
    return translator(locale)


async def reader_tr(update: Update, d: Deps) -> Translator:
    """The translator for a reply: the chat's language in a group, else the user's own."""
    return await (group_tr(update, d) if is_group(update) else remember_user(update, d))


@dataclass(frozen=True, slots=True)
class Place:
    """Where in Telegram a group update happened, as the service addresses games: the chat
    and its forum topic (None: a chat without topics, or a forum's "General")."""

    chat_id: int
    topic_id: int | None

    def holds(self, game: GameInfo) -> bool:
        """Whether ``game`` lives here."""
        return game.chat_id == self.chat_id and game.topic_id == self.topic_id


def topic_of(message: object) -> int | None:
    """The forum topic a message is in: its ``message_thread_id`` when it is a topic
    message; None in "General" and outside forums (where a thread id only names the first
    message of a chain of replies). ``message`` may be inaccessible (an old button)."""
    if message is None or not getattr(message, "is_topic_message", False):
        return None
    thread = getattr(message, "message_thread_id", None)
    return int(thread) if thread is not None else None


def place_of(update: Update) -> Place | None:
    """The chat and forum topic of an update (a message, a command, a tap on a message),
    the one way handlers turn an update into where it happened; None without a chat."""
    chat = update.effective_chat
    if chat is None:
        return None
    return Place(chat.id, topic_of(update.effective_message))


def is_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


async def reply(update: Update, text: str, keyboard: present.Keyboard | None = None) -> None:
    message = update.effective_message
    if message is None:
        return
    try:
        await message.reply_text(text[: present.MAX_TEXT], reply_markup=markup(keyboard or []))
    except BadRequest as e:
        # (The reply goes into the command's forum topic: one closed to the bot, or deleted
        # meanwhile, takes nothing; a game there moves out when its own messages fail.)
        if not topic_gone(e):
            raise
        log.info("could not reply in a topic of chat %s: %s", message.chat_id, e)


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
    """The open game where the update happened (a group's, in a forum its topic's), or the
    user's game that waits for them (private)."""
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if chat.type != ChatType.PRIVATE:
        place = place_of(update)
        assert place is not None
        games = await call(d.service.games_in_chat, place.chat_id, place.topic_id)
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
    return present.error_text(tr, error.code)


# ---------------------------------------------------------------------- acting


async def perform(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, action: str,
    version: int | None, acting: Acting | None = None,
) -> ActResult:
    """Act for the updating user and deliver what followed."""
    result = await act_for(update, context, game_id, action, version)
    await deliver_result(context, result, game_id, acting)
    return result


async def act_for(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, action: str,
    version: int | None,
) -> ActResult:
    """Act for the updating user; nothing is sent yet (a tap is answered first, then the
    messages go out with :func:`deliver_result`)."""
    d = deps(context)
    user = update.effective_user
    assert user is not None
    if version is None:
        version = (await call(d.service.game_info, game_id)).version
    who = {"name": user.full_name, "locale": reader_locale(user.language_code)}
    # (A swap made while others swapped since the button's version is not stale: the
    # service knows. See GameService.act.)
    if action == TAKEBACK:  # "↩ Take back": one service call of its own
        return await call(d.service.take_back, game_id, user.id, version, **who)
    return await call(d.service.act, game_id, user.id, action, version, **who)


#: Pauses between background tries of a move the database was too busy to store.
LATER = (1.0, 2.0, 4.0, 8.0, 15.0, 15.0, 15.0, 30.0)


async def act_later(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, action: str,
    version: int | None, acting: Acting | None,
) -> None:
    """Make a move the database was too busy to store (another process held SQLite's write
    lock), in the background, with growing pauses; then show its outcome as usual. Making
    it again is safe: it carries the version it was chosen at (a move already made is a
    duplicate, one the game has moved past is stale and the player sees the game now)."""
    try:
        result = await again_when_free(
            lambda: act_for(update, context, game_id, action, version))
    except Busy:
        log.warning("game %s: gave up a move the database stayed too busy to store", game_id)
        return
    except ServiceError:
        return
    await deliver_result(context, result, game_id, acting)


async def again_when_free(attempt: Callable[[], Awaitable[T]]) -> T:
    """``attempt()`` made again after each of the growing pauses of :data:`LATER` while the
    database stays busy (another process holds SQLite's write lock); returns its result.
    Raises :class:`~kolkhoz_tg.service.Busy` when it stayed busy all along, and whatever
    else ``attempt`` raises."""
    for pause in LATER:
        await asyncio.sleep(pause)
        try:
            return await attempt()
        except Busy:
            continue
    raise Busy("the database stayed busy")


async def deliver_result(
    context: ContextTypes.DEFAULT_TYPE, result: ActResult, game_id: int,
    acting: Acting | None,
) -> None:
    """Send what an act produced, with the scene it returned; when it changed nothing but
    the player acted on an old message, show them the game as it is now."""
    d = deps(context)
    if result.notifications:
        await d.deliverer.deliver(result.notifications, acting, result.scene)
    elif acting is None or result.status in (
        ActStatus.ILLEGAL, ActStatus.DUPLICATE, ActStatus.NOT_SEATED, ActStatus.INVALID
    ):
        return  # nothing changed that their message does not already show
    elif result.scene is not None:
        await d.deliverer.show_private(result.scene, acting)
    else:
        await d.deliverer.refresh_private(game_id, acting.user_id, new=False, acting=acting)


async def answer_quietly(
    query: CallbackQuery, text: str | None = None, show_alert: bool = False, *,
    url: str | None = None,
) -> None:
    """Answer a button tap once (``url``: a deep link the client opens). A failed answer
    (the query expired while Telegram or the network was slow, the connection broke) is
    logged and never made again here: a query may be answered only once (the transport
    repeats it only when it provably never arrived), and what the tap did is done either
    way."""
    try:
        await query.answer(text, show_alert=show_alert, url=url)
    except TelegramError as exc:
        log.info("a button tap could not be answered: %s", exc)




# ---------------------------------------------------------------------- commands

#: A game's statuses while it is open (a lobby, or a game in play).
OPEN_STATUSES = frozenset({"lobby", "active", "paused"})


@dataclass(frozen=True, slots=True)
class Cmd:
    """A command being handled: the application's dependencies, the translator to answer
    in, who sent it and where; what every command starts from (see :func:`command`)."""

    update: Update
    context: ContextTypes.DEFAULT_TYPE
    d: Deps
    tr: Translator
    user: User
    chat: Chat

    @property
    def in_group(self) -> bool:
        return is_group(self.update)

    @property
    def args(self) -> list[str]:
        return self.context.args or []

    @property
    def place(self) -> Place:
        """The chat and forum topic the command was sent in."""
        place = place_of(self.update)
        assert place is not None
        return place

    async def reply(self, text: str, keyboard: present.Keyboard | None = None) -> None:
        await reply(self.update, text, keyboard)

    async def open_game(self, *, group_only: bool = True) -> GameInfo | None:
        """The open game here — the group's; with ``group_only`` off, in private the user's
        game that waits for them — or None after saying there is none."""
        game = (await current_game(self.update, self.d)
                if self.in_group or not group_only else None)
        if game is None:
            await self.reply(present.no_open_game(self.tr))
        return game

    async def game_in_play(
        self, *, seated: bool, started: bool = True, finished: bool = False
    ) -> GameInfo | None:
        """The game here (:func:`~kolkhoz_tg.bot.context.current_game`) if it has
        ``started`` and, when asked, the sender has a seat in it (with ``finished``, in a
        group with none in play, the chat's last finished game); else None after saying
        they have no game in play here."""
        game = await current_game(self.update, self.d)
        if finished and self.in_group and (game is None or game.status == "lobby"):
            place = self.place
            done = [g for g in await call(self.d.service.games_in_chat, place.chat_id,
                                          place.topic_id, False)
                    if g.status == "finished"]
            game = done[0] if done else game
        if (game is None or (started and game.status == "lobby")
                or (seated and game.seat_of(self.user.id) is None)):
            await self.reply(present.no_game_in_play(self.tr))
            return None
        return game


    async def running_seats(self) -> list[tuple[GameInfo, SeatView]]:
        """The sender's running games, each with what their seat sees (a game that ended,
        or that they left, just now is left out)."""
        out = []
        for game in await call(self.d.service.games_of_user, self.user.id):
            if game.status != "active":
                continue
            try:
                out.append((game, await call(self.d.service.seat_view, game.id, self.user.id)))
            except ServiceError:
                continue
        return out


async def command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, *, group_language: bool = False,
    remember: bool = True,
) -> Cmd:
    """Start handling a command. The answer is in the sender's language, recorded with
    their name first (:func:`~kolkhoz_tg.bot.context.remember_user`); with
    ``group_language``, in a group, in the chat's language instead, and the sender is
    recorded only if ``remember``."""
    d = deps(context)
    if group_language and is_group(update):
        if remember:
            await remember_user(update, d)
        tr = await group_tr(update, d)
    else:
        tr = await remember_user(update, d)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    return Cmd(update, context, d, tr, user, chat)
