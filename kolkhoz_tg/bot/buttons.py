"""Button taps, inline mode and chat events."""

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
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    MaybeInaccessibleMessage,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.ext import ContextTypes

from engine import Action, ActionKind
from kolkhoz_tg import metrics, present
from kolkhoz_tg.bot.callbacks import Callback, action_button, view_button
from kolkhoz_tg.bot.context import (
    Deps,
    act_for,
    act_later,
    again_when_free,
    answer_quietly,
    call,
    deliver_result,
    deps,
    remember_user,
    result_text,
    service_error_text,
    topic_of,
)
from kolkhoz_tg.bot.delivery import ABSENT_KEY, PICTURES, Acting, is_not_modified
from kolkhoz_tg.bot.lobby import lobby_tap
from kolkhoz_tg.bot.practice import hint_tap, practice_tap, show_game
from kolkhoz_tg.bot.retry import RetryingLimiter
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.service import (
    ActResult,
    ActStatus,
    Busy,
    GameInfo,
    SeatView,
    ServiceError,
)

log = logging.getLogger(__name__)
#: The payload of the placeholder button on a message posted by an inline choice.
WAIT = "wait"
#: What a ``v`` button may show (``back``: the player takes their seat back from a bot;
#: ``hand``: their cards as a picture, in private).
VIEWS = frozenset({"board", "last", "back", "hand", "hint"})

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
    with metrics.TAPS.time():
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
    if cb is None or cb.kind not in TAP_HANDLERS or (cb.kind == "v" and cb.payload not in VIEWS):
        await answer_quietly(query, tr.gettext("That button is not mine."), show_alert=True)
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
        await answer_quietly(query, tr.gettext("There is no such game."), show_alert=True)
        return
    # An old message (about two days) comes as an InaccessibleMessage: its chat and id,
    # no topic. The callback names the game; only its chat can be checked then.
    refusal = misplaced(tr, cb.kind, info, user.id, message.chat.id if message else None,
                        in_private, topic_of(message),
                        topic_known=message is not None and message.is_accessible)
    if refusal is not None:
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
    await answer_quietly(tap.query, tr.gettext("Welcome back: your seat is yours again.")
                         if result.status is ActStatus.APPLIED
                         else tr.gettext("Nobody was playing for you; carry on."))
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
            await answer_quietly(query, tr.gettext("There is no such game."), show_alert=True)
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
        await answer_quietly(query, result_text(tr, result), show_alert=result.status in (
            ActStatus.ILLEGAL, ActStatus.INVALID))
    elif result.status is not ActStatus.DUPLICATE:
        await d.deliverer.say_privately(query.from_user.id, tr.gettext(
            "Your last move was not made. {reason}", reason=result_text(tr, result)))


async def _move_later(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback,
    acting: Acting | None, *, answered: bool = False,
) -> None:
    """Another process holds the database: say so once (in the answer, or in private when
    the tap was answered already), make the move in the background."""
    d = deps(context)
    tr = translator(query.from_user.language_code or d.settings.locale)
    text = tr.gettext("Saving is slow right now: your move will be made in a moment.")
    if answered:
        await d.deliverer.say_privately(query.from_user.id, text)
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
        await answer_quietly(tap.query, tr.gettext("You may play it now."))
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
    if cb.payload == "hand":
        await _hand_picture(tap)
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
        msg = present.board(tap.tr, bv, d.service.clock.now(), tap.context.bot.username)
        try:
            await tap.context.bot.send_message(tap.message.chat.id, msg.text)
        except TelegramError as e:  # blocked since, Telegram's trouble: the tap is answered
            log.info("could not send user %s the board: %s", tap.user_id, e)


def hand_png(*args: Any, **kwargs: Any) -> bytes:
    """:func:`kolkhoz_tg.picture.hand_png`, imported when first wanted (see
    :func:`kolkhoz_tg.bot.delivery.cached_board_png`)."""
    from kolkhoz_tg.picture import hand_png as draw

    return draw(*args, **kwargs)


async def _hand_picture(tap: Tap) -> None:
    """The tapper's own hand and plot as a picture, sent to them in private (only there:
    the picture shows their cards)."""
    if not tap.in_private:
        await answer_quietly(tap.query, tap.tr.gettext("Your cards are shown only in private."),
                               show_alert=True)
        return
    try:
        sv = await call(tap.d.service.seat_view, tap.cb.game_id, tap.user_id)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    loop = asyncio.get_running_loop()
    picture = await loop.run_in_executor(
        PICTURES, partial(hand_png, tap.tr, sv.view, sv.legal))
    try:
        await tap.context.bot.send_photo(tap.user_id, picture)
    except TelegramError as e:  # the tap is answered: a word instead of the picture
        log.info("could not send user %s their cards: %s", tap.user_id, e)
        await tap.d.deliverer.say_privately(tap.user_id, tap.tr.gettext(
            "Your cards could not be drawn just now; please try again."))


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
            return tr.gettext("You are not playing in this game.")
        return _elsewhere(tr, info, chat_id)
    if kind in ("a", "x") and not seated:
        return tr.gettext("You are not playing in this game.")
    return None


def _elsewhere(tr: Translator, info: GameInfo, chat_id: int | None) -> str:
    if chat_id == info.chat_id:
        return tr.gettext("That button belongs to another topic.")
    return tr.gettext("That button belongs to another chat.")


# ---------------------------------------------------------------------- inline mode


async def on_inline_query(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``@bot g<id>`` (what the board's *My cards* button types): the user's moves in that
    one game that are legal now, as personal, uncached results. A query that names no game
    of theirs gets none (Telegram does not say which chat it comes from, and a card chosen
    here is posted there), only the button to their cards in private."""
    d = deps(context)
    query = update.inline_query
    assert query is not None
    tr = await remember_user(update, d)
    results: list[InlineQueryResultArticle] = []
    game = await _queried_game(d, query.from_user.id, query.query)
    if game is not None:
        with contextlib.suppress(ServiceError):  # it ended, or they left, just now
            sv = await call(d.service.seat_view, game.id, query.from_user.id)
            chat = await call(d.service.chat, game.chat_id)
            title = chat.title if chat and chat.title else str(game.chat_id)
            results = inline_results(tr, sv, title)
    button = InlineQueryResultsButton(text=tr.gettext("My cards in private"),
                                      start_parameter="hand")
    await query.answer(results[:50], cache_time=0, is_personal=True, button=button)


async def _queried_game(d: Deps, user_id: int, text: str) -> GameInfo | None:
    """The running game of the user that an inline query names (``g<id>``), or None."""
    words = text.split()
    if not words:
        return None
    games = await call(d.service.games_of_user, user_id)
    return next((g for g in games if g.status == "active" and words[0] == f"g{g.id}"), None)


#: Moves never made through inline mode: what Telegram posts for one would show the chat a
#: card only its player (and, for a pass, its receiver) may know.
_SECRET_KINDS = frozenset({ActionKind.SWAP, ActionKind.PASS})


def inline_results(tr: Translator, sv: SeatView, chat_title: str) -> list[InlineQueryResultArticle]:
    """One result per move the seat may make now, each carrying the version it was legal at.
    No swaps and no passes: they name a face-down card or the card passed (the sender's
    and the receiver's secret), for the private chat only. What Telegram posts
    for a result names no card ("🃏 Anna: ⏳"): a card shown to the chat must have been
    played, and the move may yet be refused. Each has a keyboard (a placeholder button) so
    that Telegram gives the posted message an id the bot can edit once the move is played
    (the card then shows), or found unplayable."""
    game = sv.game
    name = present.seat_name(tr, game, sv.seat)
    results = []
    for text in sv.legal:
        if Action.parse(text).kind in _SECRET_KINDS:
            continue
        results.append(InlineQueryResultArticle(
            id=action_button(game.id, game.version, text),
            title=present.action_label(tr, sv.view, text),
            description=present.where(tr, game, chat_title),
            input_message_content=InputTextMessageContent(f"🃏 {name}: ⏳"),
            reply_markup=InlineKeyboardMarkup(
                [[InlineKeyboardButton("⏳", callback_data=view_button(0, 0, WAIT))]]),
        ))
    return results


async def on_chosen_inline(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The user picked a move from the inline results, and Telegram has already posted
    "🃏 Anna: ⏳" in the chat before telling the bot. The move is played at the version it
    was offered for or, when the game has moved on since, at the current one as long as it
    is still legal for them (the card is the card: what they chose). The posted message then
    shows the card with a ✅, or, when the move cannot be played any more, says so without
    naming the card. A result this bot could not have offered (a game that does not exist,
    no move, a swap, no seat) is ignored: Telegram expects no answer."""
    d = deps(context)
    chosen = update.chosen_inline_result
    assert chosen is not None
    tr = await remember_user(update, d)
    try:
        cb = Callback.decode(chosen.result_id)
        action = Action.parse(cb.payload)
    except ValueError:  # InvalidAction is one
        return
    if cb.kind != "a" or action.kind in _SECRET_KINDS:
        return
    try:
        info = await call(d.service.game_info, cb.game_id)
    except ServiceError:
        return
    seat = info.seat_of(chosen.from_user.id)
    if seat is None:
        return
    posted = _Posted(tr, info, seat, action.text, chosen.inline_message_id)

    async def play() -> ActResult:
        return await _play_chosen(update, context, cb.game_id, action.text, cb.version)

    try:
        result = await play()
    except Busy:
        # Another process holds SQLite's write lock: the move is played in the background
        # as soon as the database is free (the posted message then says how it went),
        # never left waiting without a word.
        context.application.create_task(_play_chosen_later(context, posted, play),
                                        update=update)
        return
    except ServiceError:  # the game is gone
        await _show_chosen(context, posted, None)
        return
    await deliver_result(context, result, cb.game_id, None)
    await _show_chosen(context, posted, result)


@dataclass(frozen=True, slots=True)
class _Posted:
    """A move chosen inline, which Telegram posted as "🃏 Anna: ⏳": its game, the
    chooser's seat, the move, and the posted message's id (None: it cannot be edited)."""

    tr: Translator
    info: GameInfo
    seat: int
    action: str
    inline_message_id: str | None


async def _play_chosen_later(
    context: ContextTypes.DEFAULT_TYPE, posted: _Posted, play: Callable[[], Awaitable[ActResult]]
) -> None:
    """Play a move chosen inline that the busy database could not store at once, with the
    pauses of :func:`~kolkhoz_tg.bot.context.again_when_free`; then deliver what followed
    and edit the posted message (a ✅, or why it was not played)."""
    try:
        result = await again_when_free(play)
    except Busy:
        log.warning("game %s: gave up a move chosen inline, the database stayed busy",
                    posted.info.id)
        await _show_chosen(context, posted, None, posted.tr.gettext(
            "This move was not played: it could not be saved. Choose it again."))
        return
    except ServiceError:
        await _show_chosen(context, posted, None)
        return
    await deliver_result(context, result, posted.info.id, None)
    await _show_chosen(context, posted, result)


async def _show_chosen(
    context: ContextTypes.DEFAULT_TYPE, posted: _Posted, result: ActResult | None,
    why: str | None = None,
) -> None:
    """Edit the posted message of a move chosen inline: the card and a ✅ when it was
    played, else why not (``why``, or from ``result``; None: the game is gone) without
    naming the card."""
    if not posted.inline_message_id:
        return
    tr = posted.tr
    name = present.seat_name(tr, posted.info, posted.seat)
    if result is not None and result.ok:
        text = f"🃏 {name}: {present.card_action(tr, posted.action)} ✅"
    else:
        text = f"🃏 {name}: ✖️ {why or _not_played(tr, result)}"
    try:
        await context.bot.edit_message_text(text, inline_message_id=posted.inline_message_id)
    except BadRequest as e:
        if not is_not_modified(e):
            log.info("could not edit inline message: %s", e)
    except TelegramError as e:
        log.info("could not edit inline message: %s", e)


#: How often a chosen move is tried again at the newest version when others keep moving
#: the game on between the look and the try.
CHOSEN_TRIES = 3


async def _play_chosen(
    update: Update, context: ContextTypes.DEFAULT_TYPE, game_id: int, action: str,
    version: int,
) -> ActResult:
    """Play a move chosen inline at ``version``, else at the current version while it is
    legal there for the chooser (a stale result when it is not)."""
    d = deps(context)
    user = update.effective_user
    assert user is not None
    result = await act_for(update, context, game_id, action, version)
    for _ in range(CHOSEN_TRIES):
        if result.status is not ActStatus.STALE:
            return result
        try:
            sv = await call(d.service.seat_view, game_id, user.id)
        except ServiceError:
            return result
        if action not in sv.legal:
            return result
        result = await act_for(update, context, game_id, action, sv.game.version)
    return result


def _not_played(tr: Translator, result: ActResult | None) -> str:
    """Why a move chosen inline was not played, for everyone in the chat: no card, and no
    reason that would tell what else is in the hand (as "you must follow suit" would).
    ``result`` None: the game is gone."""
    if result is not None and result.status is ActStatus.NOT_ACTIVE:
        return result_text(tr, result)
    return tr.gettext("This move was not played: the game had moved on.")


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
        await d.deliverer.tell_players(game.id, lambda tr, title: tr.gettext(
            "I was removed from «{chat}», so our game there is paused and nobody's time "
            "runs. It goes on when someone adds me back to the group.", chat=title))


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
        await d.deliverer.say_in_group(chat_id, tr.gettext(
            "I am back, and so is our game: the clock runs again."), game.topic_id)
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


