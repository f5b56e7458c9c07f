"""Forum topics: a game lives in a chat and, in a supergroup with topics, in one topic.

Every message of a game goes into its topic (the :class:`~kolkhoz_tg.bot.plan.Board` and
:class:`~kolkhoz_tg.bot.plan.GroupPost` steps carry it; replies to commands follow the
command into its topic), and a command addresses the game of the topic it was sent in
(:func:`~kolkhoz_tg.bot.context.place_of`). ``/newgame`` in a forum's "General" opens a topic
for the new game when the bot may manage topics (else the game stays in "General"), and the
bot closes the topics it opened when their game is over. A deleted topic is noticed when a
message into it fails: the game moves to "General" and pauses (see
:meth:`~kolkhoz_tg.bot.delivery.topic_loss.TopicLoss.topic_lost`), and ``/resume`` continues
it where it is sent. A place holds one open game at most (the service refuses a second): a
game whose topic is lost while "General" has one stays out of it until ``/resume`` in
another topic, and ``/newgame`` in such a "General" opens the new game's topic before it
makes the game.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable

from telegram import Chat, Update
from telegram.constants import ChatAction, ChatMemberStatus
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from kolkhoz_tg.bot.context import Deps, Place, call, deps, place_of
from kolkhoz_tg.bot.delivery import topic_gone
from kolkhoz_tg.bot.steps import BOARD_KEY, TOPIC_LOST_KEY, TOPIC_OWN_KEY
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present import topics as say
from kolkhoz_tg.service import GameInfo, ServiceError

log = logging.getLogger(__name__)

#: ``/newgame here`` (or ``тут``, ``здесь``) in a forum's "General": no topic of its own.
HERE = frozenset({"here", "тут", "здесь"})


async def may_open_topics(context: ContextTypes.DEFAULT_TYPE, chat: Chat) -> bool:
    """Whether the bot may open topics in ``chat``: a forum where it is the owner, or an
    administrator with the right to manage topics (Telegram asked; False if it cannot
    say)."""
    if not chat.is_forum:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, context.bot.id)
    except TelegramError:
        return False
    if member.status == ChatMemberStatus.OWNER:
        return True
    return member.status == ChatMemberStatus.ADMINISTRATOR and bool(
        getattr(member, "can_manage_topics", False))




async def open_topic(
    context: ContextTypes.DEFAULT_TYPE, d: Deps, tr: Translator, game: GameInfo
) -> GameInfo:
    """Open a forum topic for a new game and move the game there (the bot closes it when
    the game is over). When Telegram refuses, the game stays where it is."""
    try:
        topic = await context.bot.create_forum_topic(game.chat_id, say.topic_name(tr, game))
    except TelegramError as e:
        log.info("could not open a topic for game %s in chat %s: %s", game.id, game.chat_id, e)
        return game
    return await call(d.service.move_game, game.id, topic.message_thread_id,
                      meta={TOPIC_OWN_KEY: True})


async def game_in_new_topic(
    context: ContextTypes.DEFAULT_TYPE, tr: Translator, chat_id: int,
    create: Callable[[int], Awaitable[GameInfo]],
) -> GameInfo | None:
    """A new game for a forum whose "General" holds a game already: its topic is opened
    first (under a name without the number, which is not known yet), the game is made
    there (``create(topic_id)``) and the topic renamed after it. None when Telegram
    refuses the topic; when the game cannot be made, the topic is deleted again and the
    :class:`~kolkhoz_tg.service.ServiceError` raised."""
    try:
        topic = await context.bot.create_forum_topic(
            chat_id, say.new_topic_name(tr))
    except TelegramError as e:
        log.info("could not open a topic for a new game in chat %s: %s", chat_id, e)
        return None
    thread = topic.message_thread_id
    try:
        game = await create(thread)
    except ServiceError:
        with contextlib.suppress(TelegramError):
            await context.bot.delete_forum_topic(chat_id, thread)
        raise
    game = await call(deps(context).service.move_game, game.id, thread,
                      meta={TOPIC_OWN_KEY: True})
    with contextlib.suppress(TelegramError):  # the name only lacks the game's number
        await context.bot.edit_forum_topic(chat_id, thread, name=say.topic_name(tr, game))
    return game


def topic_link(chat_id: int, topic_id: int) -> str | None:
    """A link that opens a topic of a supergroup (None for other chats)."""
    digits = str(chat_id)
    if not digits.startswith("-100"):
        return None
    return f"https://t.me/c/{digits[4:]}/{topic_id}"


async def game_to_resume(d: Deps, place: Place, user_id: int) -> GameInfo | None:
    """The game ``/resume`` sent at ``place`` by ``user_id`` is about: the paused game
    there (else the open one), or else a game of the chat that lost its topic (it goes on
    here; the sender's own first)."""
    games = await call(d.service.games_in_chat, place.chat_id, place.topic_id)
    paused = [g for g in games if g.status == "paused"]
    if paused or games:
        return (paused or games)[0]
    chat_games = await call(d.service.games_in_chat, place.chat_id, all_topics=True)
    lost = [g for g in chat_games if g.meta.get(TOPIC_LOST_KEY)]
    if lost:
        return next((g for g in lost if g.creator_id == user_id), lost[0])
    # A paused game sends nothing, so the deletion of its topic went unnoticed: ask.
    for game in chat_games:
        if (game.status == "paused" and game.topic_id is not None
                and not await topic_alive(d, game.chat_id, game.topic_id)):
            return game
    return None


async def topic_alive(d: Deps, chat_id: int, topic_id: int) -> bool:
    """Whether a forum topic still takes messages (Telegram tells bots nothing of a
    deletion: a chat action sent there says it). True when Telegram cannot say."""
    try:
        await d.deliverer.bot.send_chat_action(chat_id, ChatAction.TYPING,
                                               message_thread_id=topic_id)
    except BadRequest as e:
        return not topic_gone(e)
    except TelegramError:
        return True
    return True


async def bring_here(d: Deps, game: GameInfo, place: Place) -> bool:
    """Move a game to ``place`` (its board is sent there anew, the old one deleted).
    Returns whether it moved. Raises :class:`~kolkhoz_tg.service.NotAllowed`
    (``place_taken``) when another open game is there."""
    if place.holds(game):
        return False
    await call(d.service.move_game, game.id, place.topic_id,
               meta={TOPIC_LOST_KEY: None, TOPIC_OWN_KEY: None, BOARD_KEY: None})
    old = game.meta.get(BOARD_KEY)
    if old:
        with contextlib.suppress(TelegramError):
            await d.deliverer.bot.delete_message(game.chat_id, int(old))
    return True


#: In a game's meta while it is paused because an admin closed its topic.
TOPIC_CLOSED_KEY = "paused:topic_closed"


async def on_topic_closed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Someone closed a forum topic (the ``forum_topic_closed`` service message): a game
    running there pauses, so that no deadline plays it out while its players cannot write,
    with a note in the topic; it goes on when the topic is reopened. A topic the bot closed
    itself (its game is over) holds no running game."""
    d, place = deps(context), place_of(update)
    if place is None or place.topic_id is None:
        return
    games = await call(d.service.games_in_chat, place.chat_id, place.topic_id)
    user = update.effective_user
    for game in games:
        if game.status != "active":
            continue
        try:
            result = await call(d.service.pause, game.id, user.id if user else 0, True,
                                meta={TOPIC_CLOSED_KEY: True})
        except ServiceError:
            continue  # it ended or paused meanwhile
        log.info("topic %s of chat %s closed: game %s paused", place.topic_id, place.chat_id,
                 game.id)
        tr = await call(d.deliverer.tr_chat, place.chat_id)
        await d.deliverer.say_in_group(place.chat_id, say.topic_closed(tr),
                                       place.topic_id)
        await d.deliverer.deliver(result.notifications)


async def on_topic_reopened(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The topic is open again: a game paused because it was closed goes on."""
    d, place = deps(context), place_of(update)
    if place is None or place.topic_id is None:
        return
    games = await call(d.service.games_in_chat, place.chat_id, place.topic_id)
    user = update.effective_user
    for game in games:
        if game.status != "paused" or not game.meta.get(TOPIC_CLOSED_KEY):
            continue
        try:
            result = await call(d.service.resume, game.id, user.id if user else 0, True,
                                meta={TOPIC_CLOSED_KEY: None})
        except ServiceError:
            continue  # someone resumed or ended it meanwhile
        tr = await call(d.deliverer.tr_chat, place.chat_id)
        await d.deliverer.say_in_group(place.chat_id, say.topic_reopened(tr),
                                       place.topic_id)
        await d.deliverer.deliver(result.notifications)
        await d.deliverer.refresh_board(game.id, resend=True)
