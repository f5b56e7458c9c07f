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
from kolkhoz_tg import present
from kolkhoz_tg.bot.callbacks import Callback, practice_button
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
from kolkhoz_tg.present.hints import hint_line
from kolkhoz_tg.rules_doc import Chapter, pages, rules_chapters
from kolkhoz_tg.service import PRACTICE_LEVELS, GameInfo, ServiceError

log = logging.getLogger(__name__)

#: The ``/start`` payload (and deep link) that opens the practice menu in private.
PRACTICE_PAYLOAD = "practice"
DEFAULT_LEVEL = "strong"
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


def bad_args_text(tr: Translator, word: str, command: str = "practice") -> str:
    """What ``/practice`` (or ``/newgame``) says to a word it does not know: to a number, the
    players a game may have; to anything else, the rules it offers."""
    _ = tr.gettext
    if word.isdecimal():
        lines = [_("A game is for 3 to 5 players, not {n}.", n=word)]
    else:
        lines = [_("I do not know the rules «{name}». Choose one of these:", name=word)]
        lines += [f"• {name} — {present.preset_title(tr, name)}" for name in present.PRESET_ORDER]
    if command == "newgame":
        lines.append(_("For example: /newgame zone, or /newgame kolkhoz 3 (3 to 5 players)."))
    else:
        lines.append(_("For example: /practice zone, or /practice kolkhoz 3 (3 to 5 "
                       "players)."))
    return "\n".join(lines)


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
    if game is not None:
        text, keyboard = open_game_message(tr, game, preset, players)
    else:
        text, keyboard = level_message(tr, preset, players)
    if edit is not None:
        try:
            await edit.edit_message_text(text, reply_markup=markup(keyboard))
            return
        except TelegramError:
            pass  # too old to edit: a new message instead
    await reply(update, text, keyboard)


def level_message(tr: Translator, preset: str, players: int) -> tuple[str, present.Keyboard]:
    """A new practice game's message: the rules, what practice is, and the level buttons
    (the default one ticked)."""
    _ = tr.gettext
    lines = [
        "🎓 " + _("Practice game: «{rules}» · {players}",
                  rules=present.preset_title(tr, preset),
                  players=tr.ngettext("{n} player", "{n} players", players)),
        present.preset_description(tr, preset),
        _("You play against bots right here, with no time limit: the same board and buttons "
          "as in a group. The 💡 button on your move shows what a bot would play and why. "
          "Practice games are not rated."),
        _("How strong should the bots be?"),
    ]
    keyboard = [[
        present.Button(("✅ " if level == DEFAULT_LEVEL else "") + present.level_name(tr, level),
                      practice_button(0, 0, f"lvl.{preset}.{players}.{level}"))
        for level in PRACTICE_LEVELS
    ]]
    return "\n".join(line for line in lines if line), keyboard


def open_game_message(
    tr: Translator, game: GameInfo, preset: str, players: int
) -> tuple[str, present.Keyboard]:
    """The choice when a practice game is open: go on with it, or abandon it and start a new
    one (of ``preset`` and ``players``)."""
    _ = tr.gettext
    text = "🎓 " + _("You have a practice game going: «{rules}». Go on with it, or abandon it "
                    "and start a new one?", rules=present.rules_title(tr, game.preset, game.rules))
    keyboard = [[
        present.Button("▶ " + _("Go on"), practice_button(game.id, game.version, "go")),
        present.Button("🆕 " + _("Start anew"),
                      practice_button(game.id, game.version, f"new.{preset}.{players}")),
    ]]
    return text, keyboard


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
        await answer_quietly(query, tr.gettext("Practice games are played in our private "
                                               "chat."), show_alert=True)
        return
    d = deps(context)
    user = query.from_user
    parts = cb.payload.split(".")
    try:
        if parts[0] == "menu":
            await answer_quietly(query)
            await offer(update, context, tr, "classic", DEFAULT_PLAYERS)
        elif parts[0] == RULES_OP:
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
            await answer_quietly(query, tr.gettext("That button is not mine."),
                                 show_alert=True)
    except ServiceError as e:
        await answer_quietly(query, service_error_text(tr, e), show_alert=True)
    except ValueError:
        await answer_quietly(query, tr.gettext("That button is not mine."), show_alert=True)


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
        await query.edit_message_text(
            "🎓 " + tr.gettext("Practice game: «{rules}» · {players} · bots: {level}",
                               rules=present.preset_title(tr, preset),
                               players=tr.ngettext("{n} player", "{n} players", players),
                               level=present.level_name(tr, level).lower()))
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


#: The ``p`` payload of the rules' contents (``rules.<chapter>.<page>``: a page of a chapter).
RULES_OP = "rules"


def rules_contents(tr: Translator) -> tuple[str, present.Keyboard] | None:
    """``/rules`` in private: one short message, the players' rules' chapters as buttons (two
    a row) and the way to a practice game; None where the docs are not installed."""
    chapters = rules_chapters(tr.locale)
    return _contents(tr, chapters) if chapters else None


def _contents(tr: Translator, chapters: list[Chapter]) -> tuple[str, present.Keyboard]:
    _ = tr.gettext
    text = "📜 " + chapters[0].title + "\n" + _(
        "Choose a chapter: it opens here, in this message.")
    buttons = [present.Button(_("About the game") if i == 0 else chapter.title,
                             practice_button(0, 0, _page_op(i, 0)))
               for i, chapter in enumerate(chapters)]
    keyboard = [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
    keyboard.append([present.Button("🎓 " + _("Play a practice game"),
                                   practice_button(0, 0, "menu"))])
    return text, keyboard


def rules_page(
    tr: Translator, chapters: list[Chapter], chapter: int, page: int
) -> tuple[str, present.Keyboard]:
    """A page of a chapter of the rules (most chapters are one page), with the way back to
    the contents and to the page before and after (into the next chapter at its end).
    Raises ValueError for a page the rules do not have."""
    texts_of = [pages(c.text, present.MAX_TEXT) for c in chapters]
    order = [(i, p) for i, parts in enumerate(texts_of) for p in range(len(parts))]
    at = order.index((chapter, page))
    row = []
    if at > 0:
        row.append(present.Button("‹", practice_button(0, 0, _page_op(*order[at - 1]))))
    row.append(present.Button("📜 " + tr.gettext("Contents"), practice_button(0, 0, RULES_OP)))
    if at + 1 < len(order):
        row.append(present.Button("›", practice_button(0, 0, _page_op(*order[at + 1]))))
    return texts_of[chapter][page], [row]


def _page_op(chapter: int, page: int) -> str:
    return f"{RULES_OP}.{chapter}.{page}"


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
        text, keyboard = rules_page(tr, chapters, int(where[0]), int(where[1]))
    except (ValueError, IndexError):
        # The contents, or a page these rules do not have (the reader changed language).
        text, keyboard = _contents(tr, chapters)
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
        await answer_quietly(query, _hint_refusal(tr, e), show_alert=True)
        return
    thinker: Thinker | None = context.application.bot_data.get(THINKER_KEY)
    if thinker is None:
        await answer_quietly(query, tr.gettext("That is not possible now."), show_alert=True)
        return
    left = max(HINT_WAIT - (time.monotonic() - started), 0.1)
    try:
        # (Given up, a hint still waiting for a worker is dropped from its queue.)
        advice = await asyncio.wait_for(
            thinker.advise(turn.level, turn.seed, turn.view, HINT_SECONDS), left)
    except TimeoutError:
        log.info("game %s: the workers were too busy for a hint", game_id)
        await answer_quietly(query, tr.gettext(
            "The bots are busy thinking right now: ask for the hint again in a moment."),
            show_alert=True)
        return
    except Exception:
        log.exception("game %s: no hint could be worked out", game_id)
        await answer_quietly(query, tr.gettext("That is not possible now."), show_alert=True)
        return
    await answer_quietly(query, hint_line(tr, advice, turn.view)[:200], show_alert=True)


def _hint_refusal(tr: Translator, error: ServiceError) -> str:
    if error.code == "not_your_turn":
        return tr.gettext("It is not your move now.")
    return service_error_text(tr, error)
