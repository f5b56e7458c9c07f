"""Learning the game in a private chat: practice games — what ``/practice [rules] [players]``
(:func:`kolkhoz_tg.bot.commands.cmd_practice`) offers, the level buttons, going on with (or
abandoning) an open practice game, and the 💡 hint — and the players' rules read a chapter at
a time (``/rules`` in private: a table of contents as buttons).

A practice game is played with the very messages and buttons of a group game (the board and
the player's own game message, both in the private chat), against bots of the level the
player picks, with no clock; it is not rated (:mod:`kolkhoz_tg.service.practice`). The
buttons of this module are ``p`` callbacks (:mod:`kolkhoz_tg.bot.callbacks`): before a game
exists they carry game 0, as the rules' buttons always do (they belong to no game).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from telegram import CallbackQuery, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from engine import PRESETS
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.bot.context import (
    answer_quietly,
    call,
    deps,
    reply,
    service_error_text,
)
from kolkhoz_tg.bot.delivery import is_not_modified, markup
from kolkhoz_tg.bot.thinking import THINKER_KEY, Thinker
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present import practice as say
from kolkhoz_tg.present import taps
from kolkhoz_tg.present.hints import hint_line
from kolkhoz_tg.rules_doc import rules_chapters
from kolkhoz_tg.service import ServiceError

log = logging.getLogger(__name__)

#: The ``/start`` payload (and deep link) that opens the practice menu in private.
PRACTICE_PAYLOAD = "practice"
DEFAULT_PLAYERS = 4


# ---------------------------------------------------------------------- /practice


def parse_args(args: list[str]) -> tuple[str, int] | str:
    """``[rules] [players]`` in any order: (preset, players), or the word that is neither a
    preset's name nor a number of players (to say so)."""
    preset, players = "classic", DEFAULT_PLAYERS
    for arg in args:
        word = arg.lower()
        if word in PRESETS:
            preset = word
        elif word.isdecimal() and 3 <= int(word) <= 5:
            players = int(word)
        else:
            return arg
    return preset, players




async def offer(
    update: Update, context: ContextTypes.DEFAULT_TYPE, tr: Translator, preset: str,
    players: int, edit: CallbackQuery | None = None,
) -> None:
    """The level buttons for a new practice game, or the open one's choice: go on or start
    afresh. ``edit``: show it in the tapped message instead of a new one."""
    d = deps(context)
    user = update.effective_user
    assert user is not None
    game = await call(d.service.practice_game, user.id)
    msg = (say.open_game_message(tr, game, preset, players) if game is not None
           else say.level_message(tr, preset, players))
    text, keyboard = msg.text, msg.keyboard
    if edit is not None:
        try:
            await edit.edit_message_text(text, reply_markup=markup(keyboard))
            return
        except TelegramError:
            pass  # too old to edit: a new message instead
    await reply(update, text, keyboard)






# ---------------------------------------------------------------------- taps


async def practice_tap(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, cb: Callback,
    tr: Translator,
) -> None:
    """``p`` buttons, in private only: ``menu`` (from /rules), ``lvl.<rules>.<n>.<level>``
    (start), ``go`` (show the open game again), ``new.<rules>.<n>`` (abandon it, then the
    level buttons); ``rules`` (the rules' contents) and ``rules.<chapter>.<page>``."""
    message = query.message
    if message is None or message.chat.type != ChatType.PRIVATE:
        await answer_quietly(query, say.only_in_private(tr), show_alert=True)
        return
    d = deps(context)
    user = query.from_user
    parts = cb.payload.split(".")
    try:
        if parts[0] == "menu":
            await answer_quietly(query)
            await offer(update, context, tr, "classic", DEFAULT_PLAYERS)
        elif parts[0] == say.RULES_OP:
            await _rules_tap(update, query, tr, parts[1:])
        elif parts[0] == "lvl" and len(parts) == 4:
            await _start(update, context, query, tr, parts[1], int(parts[2]), parts[3])
        elif parts[0] == "go":
            game = await call(d.service.practice_game, user.id)
            await answer_quietly(query)
            await _clear_buttons(query)
            if game is None or game.id != cb.game_id:  # over since, or not theirs
                await offer(update, context, tr, "classic", DEFAULT_PLAYERS)
                return
            await show_game(context, game.id, user.id)
        elif parts[0] == "new" and len(parts) == 3:
            game = await call(d.service.practice_game, user.id)
            if game is not None and game.id == cb.game_id:
                result = await call(d.service.abort, game.id, user.id)
                await d.deliverer.deliver(result.notifications)
            await answer_quietly(query)
            await offer(update, context, tr, parts[1], int(parts[2]), edit=query)
        else:
            await answer_quietly(query, taps.not_my_button(tr),
                                 show_alert=True)
    except ServiceError as e:
        await answer_quietly(query, service_error_text(tr, e), show_alert=True)
    except ValueError:
        await answer_quietly(query, taps.not_my_button(tr), show_alert=True)


async def _start(
    update: Update, context: ContextTypes.DEFAULT_TYPE, query: CallbackQuery, tr: Translator,
    preset: str, players: int, level: str,
) -> None:
    d = deps(context)
    user = query.from_user
    if await call(d.service.practice_game, user.id) is not None:
        # A second tap on the level buttons: the game it started is there already.
        await answer_quietly(query)
        await offer(update, context, tr, preset, players, edit=query)
        return
    result = await call(d.service.start_practice, user.id, user.full_name, preset=preset,
                        players=players, level=level, locale=tr.locale)
    await answer_quietly(query)
    with contextlib.suppress(TelegramError):  # the game goes on all the same
        await query.edit_message_text(say.started(tr, preset, players, level))
    await d.deliverer.deliver(result.notifications)


async def _clear_buttons(query: CallbackQuery) -> None:
    with contextlib.suppress(TelegramError):
        await query.edit_message_reply_markup(None)


async def show_game(context: ContextTypes.DEFAULT_TYPE, game_id: int, user_id: int) -> None:
    """The practice game again, at the bottom of the chat: the board sent anew (the old one
    goes) and the player's game message."""
    d = deps(context)
    await d.deliverer.refresh_board(game_id, resend=True)
    await d.deliverer.refresh_private(game_id, user_id, new=True)


# ---------------------------------------------------------------------- the rules












async def _rules_tap(
    update: Update, query: CallbackQuery, tr: Translator, where: list[str]
) -> None:
    """The rules' contents (``where`` empty) or a page of a chapter (``where``: its
    numbers), shown in the tapped message (a new one when it cannot be edited). Raises
    ValueError where the docs are not installed."""
    chapters = rules_chapters(tr.locale)
    if not chapters:
        raise ValueError("the rules are not installed")
    try:
        page = say.rules_page(tr, chapters, int(where[0]), int(where[1]))
    except (ValueError, IndexError):
        # The contents, or a page these rules do not have (the reader changed language).
        page = say.contents(tr, chapters)
    text, keyboard = page.text, page.keyboard
    await answer_quietly(query)
    try:
        await query.edit_message_text(text, reply_markup=markup(keyboard))
    except TelegramError as e:
        if not (isinstance(e, BadRequest) and is_not_modified(e)):
            await reply(update, text, keyboard)  # too old to edit: a new message instead


# ---------------------------------------------------------------------- the hint


#: The most a hint thinks (seconds), whatever the level: the player is waiting.
HINT_SECONDS = 0.3
#: The longest a tap on 💡 waits for its hint (seconds, from the tap's arrival): the hint is
#: worked out by the bots' workers, which the bots of every game may keep busy, and the tap
#: must be answered well within Telegram's 15 s or the answer is lost.
HINT_WAIT = 8.0


async def hint_tap(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, tr: Translator, game_id: int,
    user_id: int,
) -> None:
    """💡: what a bot would play for the player now and why, in an alert (their own view
    only; practice games only, the service refuses a group game's). When the workers are
    too busy to work it out within :data:`HINT_WAIT`, the alert says to ask again: the
    tap never goes unanswered while a hint waits in a queue."""
    d = deps(context)
    started = time.monotonic()
    try:
        turn = await call(d.service.hint_turn, game_id, user_id)
    except ServiceError as e:
        refusal = say.hint_refusal(tr, e.code) or service_error_text(tr, e)
        await answer_quietly(query, refusal, show_alert=True)
        return
    thinker: Thinker | None = context.application.bot_data.get(THINKER_KEY)
    if thinker is None:
        await answer_quietly(query, say.not_possible(tr), show_alert=True)
        return
    left = max(HINT_WAIT - (time.monotonic() - started), 0.1)
    try:
        # (Given up, a hint still waiting for a worker is dropped from its queue.)
        advice = await asyncio.wait_for(
            thinker.advise(turn.level, turn.seed, turn.view, HINT_SECONDS), left)
    except TimeoutError:
        log.info("game %s: the workers were too busy for a hint", game_id)
        await answer_quietly(query, say.hint_busy(tr), show_alert=True)
        return
    except Exception:
        log.exception("game %s: no hint could be worked out", game_id)
        await answer_quietly(query, say.not_possible(tr), show_alert=True)
        return
    await answer_quietly(query, hint_line(tr, advice, turn.view, turn.game), show_alert=True)


