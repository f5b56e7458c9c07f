"""Inline mode: a player's legal moves offered as inline results (``@bot g<id>``, what the
board's *My cards* button types), and the move chosen there played and shown in the chat.
Button taps and chat events: :mod:`.buttons`."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InlineQueryResultsButton,
    InputTextMessageContent,
    Update,
)
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from engine import Action, ActionKind
from kolkhoz_tg import present
from kolkhoz_tg.bot.buttons import WAIT
from kolkhoz_tg.bot.callbacks import Callback, action_button, view_button
from kolkhoz_tg.bot.context import (
    Deps,
    act_for,
    again_when_free,
    call,
    deliver_result,
    deps,
    remember_user,
)
from kolkhoz_tg.bot.delivery import is_not_modified
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present import taps
from kolkhoz_tg.service import (
    ActResult,
    ActStatus,
    Busy,
    GameInfo,
    SeatView,
    ServiceError,
)

log = logging.getLogger(__name__)


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
    button = InlineQueryResultsButton(text=taps.my_cards_in_private(tr),
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
        await _show_chosen(context, posted, None, taps.chosen_not_saved(posted.tr))
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
        return present.result_text(tr, result)
    return taps.chosen_moved_on(tr)
