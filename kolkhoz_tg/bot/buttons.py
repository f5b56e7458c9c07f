"""Button taps and chat events (inline mode: :mod:`.inline`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from sqlalchemy.exc import DBAPIError
from telegram import (
    CallbackQuery,
    ChatMember,
    MaybeInaccessibleMessage,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import RetryAfter, TelegramError
from telegram.ext import ContextTypes

from kolkhoz_tg import metrics, present
from kolkhoz_tg.bot.again import joins_from_notice
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.bot.context import (
    Deps,
    act_for,
    act_later,
    answer_quietly,
    call,
    deliver_result,
    deps,
    remember_user,
    service_error_text,
    topic_of,
)
from kolkhoz_tg.bot.delivery import ABSENT_KEY, PICTURES, Acting, thread_of
from kolkhoz_tg.bot.group_hand import CARDS, cards_tap
from kolkhoz_tg.bot.lobby import lobby_tap
from kolkhoz_tg.bot.mygames import TAPS as MY_GAMES_TAPS
from kolkhoz_tg.bot.mygames import my_games_tap
from kolkhoz_tg.bot.practice import hint_tap, practice_tap, show_game
from kolkhoz_tg.bot.premove import premove_tap
from kolkhoz_tg.bot.retry import RetryingLimiter
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.present import taps
from kolkhoz_tg.service import (
    ActResult,
    ActStatus,
    Busy,
    GameInfo,
    ServiceError,
)
from kolkhoz_tg.service.takeback import TAKEBACK

log = logging.getLogger(__name__)
#: The payload of the placeholder button on a message posted by an inline choice.
WAIT = "wait"
#: What a ``v`` button may show or do (``back``: the player takes their seat back from a
#: bot; ``hand``: their cards as a picture, in private; ``takeback``: they take back the card
#: they have just played; ``cards``: their hand shown in the group, to them alone).
VIEWS = frozenset({"board", "last", "back", "hand", "hint", TAKEBACK, CARDS})

# ---------------------------------------------------------------------- buttons


@dataclass(frozen=True, slots=True)
class Tap:
    """A tap on one of this bot's buttons, read and checked: the callback names a game that
    exists, and the tapper may use the button where they tapped it."""

    update: Update
    context: ContextTypes.DEFAULT_TYPE
    query: CallbackQuery
    d: Deps
    tr: Translator
    cb: Callback
    user_id: int
    message: MaybeInaccessibleMessage | None
    in_private: bool

    @property
    def acting(self) -> Acting | None:
        """The private game message tapped, which the move's outcome edits; None elsewhere."""
        if not self.in_private or self.message is None:
            return None
        return Acting(self.user_id, self.message.chat.id, self.message.message_id)


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Check a tap (this bot's data, a game that exists, the right chat and player), then
    hand it to the handler of its kind: :data:`TAP_HANDLERS` (a move goes straight to
    :func:`_action_tap`). Timed for the operator's metrics."""
    with metrics.tap_timer():
        await _on_callback(update, context)


async def _on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    d = deps(context)
    query = update.callback_query
    assert query is not None
    try:
        cb = Callback.decode(query.data)
    except ValueError:
        cb = None
    if cb is not None and cb.kind == "a":
        # A move: one service call checks the seat, records the user and makes the move
        # in one transaction (no read first: the hot path of the whole bot).
        await _action_tap(update, context, query, cb)
        return
    tr = await remember_user(update, d)
    if cb is not None and cb.payload == WAIT:
        await answer_quietly(query)  # the placeholder on a move chosen inline, until it is played
        return
    if cb is not None and cb.kind == "v" and cb.payload in MY_GAMES_TAPS:
        await my_games_tap(context, query, cb, tr)  # /mygames: the list, a hand anew
        return
    if cb is None or cb.kind not in TAP_HANDLERS or (cb.kind == "v" and cb.payload not in VIEWS):
        await answer_quietly(query, taps.not_my_button(tr), show_alert=True)
        return
    user = update.effective_user
    assert user is not None
    message = query.message
    in_private = message is not None and message.chat.type == ChatType.PRIVATE
    if cb.kind == "p":  # a practice game's setup: there may be no game yet
        await _practice_tap(Tap(update, context, query, d, tr, cb, user.id, message,
                                in_private))
        return
    try:
        info = await call(d.service.game_info, cb.game_id)
    except ServiceError:
        await answer_quietly(query, taps.no_such_game(tr), show_alert=True)
        return
    # An old message (about two days) comes as an InaccessibleMessage: its chat and id,
    # no topic. The callback names the game; only its chat can be checked then.
    refusal = misplaced(tr, cb.kind, info, user.id, message.chat.id if message else None,
                        in_private, topic_of(message),
                        topic_known=message is not None and message.is_accessible)
    if refusal is not None and not await joins_from_notice(d, cb, info, user.id, in_private):
        await answer_quietly(query, refusal, show_alert=True)
        return
    tap = Tap(update, context, query, d, tr, cb, user.id, message, in_private)
    if cb.kind != "l" and (cb.payload == "back" or _stood_in(info, user.id)):
        await _take_seat_back(tap)
        if cb.payload == "back":
            return
    await TAP_HANDLERS[cb.kind](tap)


def _stood_in(info: GameInfo, user_id: int) -> bool:
    seat = info.seat_of(user_id)
    return seat is not None and any(s.seat == seat and s.standin for s in info.seats)


async def _take_seat_back(tap: Tap) -> None:
    """Any tap by a player whose seat a bot is playing gives them the seat back (the
    ``back`` button says only that)."""
    d, tr = tap.d, tap.tr
    try:
        result = await call(d.service.back, tap.cb.game_id, tap.user_id)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tr, e), show_alert=True)
        return
    if result.status is ActStatus.APPLIED:
        await d.deliverer.deliver(result.notifications)
    if tap.cb.payload != "back":
        return
    await answer_quietly(tap.query, taps.back_text(tr, result.status is ActStatus.APPLIED))
    acting = tap.acting
    if acting is not None:
        await d.deliverer.refresh_private(tap.cb.game_id, tap.user_id, new=False,
                                          acting=acting)


async def _lobby_tap(tap: Tap) -> None:
    """``l``: join, leave, add a bot, start, change a lobby setting, confirm /abort, kick
    a seat (:func:`kolkhoz_tg.bot.lobby.lobby_tap`)."""
    await lobby_tap(tap)


async def _action_tap(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback
) -> None:
    """``a``: make the move for the tapper's own seat (the service refuses a tapper with
    none). The tap is answered before the move is stored when this process foresaw it
    (:meth:`~kolkhoz_tg.service.GameService.foresee`), else once it is stored; the board
    and the private messages go out after (:func:`_tell_outcome`)."""
    d = deps(context)
    message = query.message
    acting = None
    if message is not None and message.chat.type == ChatType.PRIVATE:
        acting = Acting(query.from_user.id, message.chat.id, message.message_id)
    early = d.service.foresee(cb.game_id, query.from_user.id, cb.payload, cb.version)
    if early:
        await answer_quietly(query)
    try:
        result = await act_for(update, context, cb.game_id, cb.payload, cb.version)
    except Busy:
        await _move_later(update, context, query, cb, acting, answered=early)
        return
    except ServiceError:
        tr = await remember_user(update, d)
        if not early:
            await answer_quietly(query, taps.no_such_game(tr), show_alert=True)
        return
    await _tell_outcome(d, query, result, early)
    await deliver_result(context, result, cb.game_id, acting)


async def _tell_outcome(d: Deps, query: CallbackQuery, result: ActResult, early: bool) -> None:
    """Answer a move's tap with its outcome (a refusal in an alert); when the tap was
    answered before the move was stored, a refusal goes to the player in private."""
    tr = translator(result.locale or d.settings.locale)
    if result.status is ActStatus.APPLIED:
        if not early:
            await answer_quietly(query)
    elif not early:
        await answer_quietly(query, present.result_text(tr, result), show_alert=result.status in (
            ActStatus.ILLEGAL, ActStatus.INVALID))
    elif result.status is not ActStatus.DUPLICATE:
        await d.deliverer.say_privately(query.from_user.id,
                                        taps.move_not_made(tr, present.result_text(tr, result)),
                                        thread_of(query.message))


async def _move_later(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback,
    acting: Acting | None, *, answered: bool = False,
) -> None:
    """Another process holds the database: say so once (in the answer, or in private when
    the tap was answered already), make the move in the background."""
    d = deps(context)
    tr = translator(query.from_user.language_code or d.settings.locale)
    text = taps.saving_slow(tr)
    if answered:
        await d.deliverer.say_privately(query.from_user.id, text, thread_of(query.message))
    else:
        await answer_quietly(query, text)
    context.application.create_task(
        act_later(update, context, cb.game_id, cb.payload, cb.version, acting), update=update)


async def _explain_tap(tap: Tap) -> None:
    """``x``: why a card shown between dots may not be played now."""
    d, tr, cb = tap.d, tap.tr, tap.cb
    try:
        reason = await call(d.service.why_illegal, cb.game_id, tap.user_id, cb.payload)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tr, e), show_alert=True)
        return
    if reason is None:
        await answer_quietly(tap.query, taps.may_play_now(tr))
        acting = tap.acting
        if acting is not None:
            await d.deliverer.refresh_private(cb.game_id, tap.user_id, new=False, acting=acting)
        return
    view = None
    if reason == "follow_suit":
        view = (await call(d.service.board, cb.game_id)).view
    await answer_quietly(tap.query, present.reason_text(tr, reason, view), show_alert=True)


async def _view_tap(tap: Tap) -> None:
    """``v``: the last trick in an alert, the board in the private chat, or there the
    player's own cards as a picture."""
    d, cb = tap.d, tap.cb
    special = {TAKEBACK: _take_back_tap, "hand": _hand_picture,
               CARDS: cards_tap}.get(cb.payload)  # (CARDS: "🃏 My cards", the hand in the group)
    if special is not None:
        await special(tap)
        return
    if cb.payload == "hint":
        await hint_tap(tap.query, tap.context, tap.tr, cb.game_id, tap.user_id)
        return
    bv = await call(d.service.board, cb.game_id)
    if cb.payload == "last" and bv.view is not None:
        text = present.last_trick(tap.tr, bv.game, bv.view)
        await answer_quietly(tap.query, text[:200], show_alert=True)
        return
    await answer_quietly(tap.query)
    if tap.in_private and bv.game.practice and bv.game.seat_of(tap.user_id) is not None:
        await show_game(tap.context, cb.game_id, tap.user_id)  # the board lives here
        return
    if tap.in_private and tap.message is not None:
        msg = present.board_message(tap.tr, bv, d.service.clock.now(), tap.context.bot.username)
        try:
            await tap.context.bot.send_message(tap.message.chat.id, msg.text,
                                               message_thread_id=thread_of(tap.message))
        except TelegramError as e:  # blocked since, Telegram's trouble: the tap is answered
            log.info("could not send user %s the board: %s", tap.user_id, e)


async def _take_back_tap(tap: Tap) -> None:
    """"↩ Take back": one service call (:meth:`GameService.take_back`) at the button's
    version; done, the player's message shows their turn again and the board says so;
    refused (too late, the trick complete, switched off, an old button), an alert says why
    and nothing changes."""
    d, cb, query = tap.d, tap.cb, tap.query
    try:
        result = await act_for(tap.update, tap.context, cb.game_id, TAKEBACK, cb.version)
    except Busy:
        await _move_later(tap.update, tap.context, query, cb, tap.acting)
        return
    except ServiceError as e:
        await answer_quietly(query, service_error_text(tap.tr, e), show_alert=True)
        return
    tr = translator(result.locale or d.settings.locale)
    if result.status is ActStatus.APPLIED:
        await answer_quietly(query)
    else:
        await answer_quietly(query, present.result_text(tr, result), show_alert=True)
    await deliver_result(tap.context, result, cb.game_id, tap.acting)


def hand_png(*args: Any, **kwargs: Any) -> bytes:
    """:func:`kolkhoz_tg.picture.hand_png`, imported when first wanted (see
    :func:`kolkhoz_tg.bot.delivery.steps.cached_board_png`)."""
    from kolkhoz_tg.picture import hand_png as draw

    return draw(*args, **kwargs)


async def _hand_picture(tap: Tap) -> None:
    """The tapper's own hand and plot as a picture, sent to them in private (only there:
    the picture shows their cards)."""
    if not tap.in_private:
        await answer_quietly(tap.query, taps.cards_only_in_private(tap.tr), show_alert=True)
        return
    try:
        sv = await call(tap.d.service.seat_view, tap.cb.game_id, tap.user_id)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    loop = asyncio.get_running_loop()
    picture = await loop.run_in_executor(
        PICTURES, partial(hand_png, tap.tr, sv.view))
    try:
        await tap.context.bot.send_photo(tap.user_id, picture,
                                         message_thread_id=thread_of(tap.message))
    except TelegramError as e:  # the tap is answered: a word instead of the picture
        log.info("could not send user %s their cards: %s", tap.user_id, e)
        await tap.d.deliverer.say_privately(tap.user_id, taps.cards_not_drawn(tap.tr),
                                            thread_of(tap.message))


async def _practice_tap(tap: Tap) -> None:
    """``p``: set up, go on with or abandon a practice game, in private
    (:func:`kolkhoz_tg.bot.practice.practice_tap`)."""
    await practice_tap(tap.update, tap.context, tap.query, tap.cb, tap.tr)


#: What each kind of button does (the kinds: :mod:`kolkhoz_tg.bot.callbacks`).
TAP_HANDLERS: dict[str, Callable[[Tap], Awaitable[None]]] = {
    "l": _lobby_tap,
    "p": _practice_tap,
    "x": _explain_tap,
    "v": _view_tap,
    "q": premove_tap,
}


def misplaced(
    tr: Translator, kind: str, info: GameInfo, user_id: int, chat_id: int | None,
    in_private: bool, topic_id: int | None = None, *, topic_known: bool = True,
) -> str | None:
    """Why a tap on a button of this game may not act where it came from, or None.

    Callback data can be forged and sent from any chat, so the chat and its forum topic
    (``topic_id``, None for "General" or no topics) count: lobby buttons work only where
    the game lives, views there or for a seated player in private (where the private
    message carries them), moves and explanations only for a seated player (they act on the
    tapper's own seat, wherever that is). Without ``topic_known`` (Telegram sent the
    tapped message as inaccessible, with no topic: it is about two days old) only the
    chat is checked."""
    seated = info.seat_of(user_id) is not None
    home = chat_id == info.chat_id and (not topic_known or topic_id == info.topic_id)
    if kind == "l" and not home:
        return _elsewhere(tr, info, chat_id)
    if kind == "v" and not home and not (in_private and seated):
        if in_private:
            return taps.not_playing(tr)
        return _elsewhere(tr, info, chat_id)
    if kind in ("a", "x") and not seated:
        return taps.not_playing(tr)
    return None


def _elsewhere(tr: Translator, info: GameInfo, chat_id: int | None) -> str:
    return taps.elsewhere(tr, chat_id == info.chat_id)


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


async def on_my_chat_member(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The bot's own membership in a chat changed.

    Removed from a group (left or kicked): its running games pause, so that no deadline
    plays them out unseen, and their players hear why in private. Added back: the games
    paused for that go on, with a note in the group. In a private chat: the user blocked
    the bot or came back."""
    d = deps(context)
    change = update.my_chat_member
    assert change is not None
    chat, by = change.chat, change.from_user
    is_present = in_chat(change.new_chat_member)
    if chat.type == ChatType.PRIVATE:
        await call(d.service.ensure_user, by.id, by.full_name, by.language_code)
        await call(d.service.set_can_pm, by.id, is_present)
        return
    if chat.type not in (ChatType.GROUP, ChatType.SUPERGROUP):
        return
    games = await call(d.service.games_in_chat, chat.id, all_topics=True)
    if is_present:
        await _back_in_group(d, chat.id, chat.title, by.id, games)
        return
    for game in games:
        if game.status != "active":
            continue  # a lobby has no clock; a paused game stays as its creator left it
        try:
            result = await call(d.service.pause, game.id, by.id, True, meta={ABSENT_KEY: True})
        except ServiceError:
            continue  # it ended or paused meanwhile
        log.info("removed from chat %s: game %s paused", chat.id, game.id)
        await d.deliverer.deliver(result.notifications)
        await d.deliverer.tell_players(game.id, taps.removed_from_group)


async def _back_in_group(
    d: Deps, chat_id: int, title: str | None, by_user: int, games: list[GameInfo]
) -> None:
    await call(d.service.ensure_chat, chat_id, title)
    for game in games:
        if game.status != "paused" or not game.meta.get(ABSENT_KEY):
            continue
        try:
            result = await call(d.service.resume, game.id, by_user, True,
                                meta={ABSENT_KEY: None})
        except ServiceError:
            continue  # someone resumed or ended it meanwhile
        log.info("back in chat %s: game %s resumed", chat_id, game.id)
        tr = await call(d.deliverer.tr_chat, chat_id)
        await d.deliverer.say_in_group(chat_id, taps.back_in_group(tr), game.topic_id)
        await d.deliverer.deliver(result.notifications)
        await d.deliverer.refresh_board(game.id, resend=True)


def in_chat(member: ChatMember) -> bool:
    """Whether a chat member's status means they are in the chat."""
    if member.status == ChatMemberStatus.RESTRICTED:
        return bool(getattr(member, "is_member", False))
    return member.status in (
        ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log a handler's error; a tap it left unanswered is answered (blank), so the button
    stops spinning. One already answered is not answered again: Telegram takes one answer,
    and a second one only fails (the rate limiter knows which were sent)."""
    if isinstance(context.error, RetryAfter):
        # Flood control refused a reply or an answer in a busy chat (the limiter does not
        # hold the whole process for it); moves and boards go through the outbox.
        log.warning("flood control while handling an update: %s", context.error)
    elif isinstance(context.error, DBAPIError):
        # An outage of the database, not a fault of this update: one line, no traceback
        # (the health check says when it starts and ends).
        first = str(context.error.orig or context.error).splitlines()[0]
        log.error("the database is unreachable (update not handled): %s", first)
    else:
        log.error("error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        query = update.callback_query
        limiter = getattr(context.bot, "rate_limiter", None)
        if isinstance(limiter, RetryingLimiter) and limiter.answered(query.id):
            return
        with contextlib.suppress(TelegramError):
            await query.answer()


