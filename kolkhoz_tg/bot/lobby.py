"""The lobby's buttons and the creator's confirmations.

The lobby message's keyboard opens small menus in place (the five presets under
*Rules ▾*, every option of the rules under *⚙ House rules*, the bot levels under *+ Bot*,
the times per move under *Turn*): a menu is only an
edit of that message's buttons, nothing is stored, and any change to the lobby draws the
full keyboard again. ``/abort``
asks first (*Yes* / *No*, for the creator and the chat's admins); ``/kick`` without a
number shows the seats to tap. A player who joins before ever opening a private chat with
the bot is sent straight to it (the tap's answer opens the deep link), and the lobby names
who the bot cannot write to yet.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from kolkhoz_tg import house_rules, present
from kolkhoz_tg.aiplay import PLAYER_LEVELS
from kolkhoz_tg.bot.again import notify_tap, rematch_tap
from kolkhoz_tg.bot.chat_settings import chat_setting_refusal
from kolkhoz_tg.bot.commands import lobby_op
from kolkhoz_tg.bot.context import (
    Deps,
    answer_quietly,
    call,
    command,
    group_tr,
    is_admin,
    service_error_text,
)
from kolkhoz_tg.bot.delivery import is_not_modified, markup
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.present import manage as say
from kolkhoz_tg.present import notices, taps
from kolkhoz_tg.service import GameInfo, ServiceError

if TYPE_CHECKING:
    from kolkhoz_tg.bot.buttons import Tap

log = logging.getLogger(__name__)

#: A lobby game's seats, an active or paused game's: what ``abort.l`` / ``abort.r`` confirm.
_LOBBY, _RUNNING = "l", "r"


# ---------------------------------------------------------------------- lobby buttons


async def lobby_tap(tap: Tap) -> None:
    """``l``: a lobby button, a confirmation of /abort, or a seat tapped after /kick."""
    op = tap.cb.payload
    if op in ("rules", "preset"):  # "preset": the cycling button of older lobby messages
        await _open_menu(tap, present.lobby_rules_menu, who="creator")
    elif op == "timeout":
        await _open_menu(tap, say.timeout_menu, who="creator",
                         refusal=say.only_creator_timeout(tap.tr))
    elif op.startswith("time."):
        await _choose_timeout(tap, op.removeprefix("time."))
    elif op == "bot":
        await _open_menu(tap, lambda tr, game: present.lobby_level_menu(tr, game, "bot"))
    elif op.startswith("bot."):
        await _add_bot(tap, op.removeprefix("bot."))
    elif op == "standin":
        game = await _game(tap)
        if game is None:
            return
        level = await call(tap.d.service.chat_ai_level, game.chat_id)
        await _open_menu(tap, lambda tr, game: present.lobby_level_menu(
            tr, game, "standin", level), who="admin")
    elif op.startswith("standin."):
        await _set_standin_level(tap, op.removeprefix("standin."))
    elif op.startswith("set."):
        await _choose_preset(tap, op.removeprefix("set."))
    elif op == "house":
        await _open_menu(tap, say.house_menu, who="creator")
    elif op == "years":
        await _open_menu(tap, say.years_menu, who="creator")
    elif op.startswith(("opt.", "yr.")) or op == "preset_as_is":
        await _house_rule(tap, op)
    elif op == "menu":
        await answer_quietly(tap.query)
        await tap.d.deliverer.refresh_board(tap.cb.game_id)
    elif op == "join":
        await _join(tap)
    elif op == "again":
        await rematch_tap(tap)
    elif op == "notify":
        await notify_tap(tap)
    elif op.startswith("abort."):
        await _confirm_abort(tap, op.removeprefix("abort."))
    elif op.startswith("kick."):
        await _kick_tap(tap, op.removeprefix("kick."))
    else:
        error = await lobby_op(tap.update, tap.context, tap.cb.game_id, op, tap.cb.version)
        await answer_quietly(tap.query, error or None, show_alert=bool(error))


async def _game(tap: Tap) -> GameInfo | None:
    """The tapped game, or None after saying there is none."""
    try:
        return await call(tap.d.service.game_info, tap.cb.game_id)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return None


async def _lobby_game(tap: Tap) -> GameInfo | None:
    """The tapped game while it is still a lobby, or None after saying why not."""
    game = await _game(tap)
    if game is None:
        return None
    if game.status != "lobby":
        await answer_quietly(tap.query, say.already_started(tap.tr),
                             show_alert=True)
        return None
    return game


Menu = Callable[[Translator, GameInfo], present.Keyboard]


async def _open_menu(
    tap: Tap, menu: Menu, who: str = "anyone", refusal: str | None = None
) -> None:
    """Show one of the lobby's menus on the tapped message; ``who`` may open it: the
    ``creator`` (``refusal``: what others are told), the creator or an ``admin``, or
    ``anyone`` (the service decides)."""
    game = await _lobby_game(tap)
    if game is None:
        return
    if who == "creator" and game.creator_id != tap.user_id:
        await answer_quietly(tap.query, refusal or say.only_creator_rules(tap.tr),
                             show_alert=True)
        return
    if who == "admin" and not await _creator_or_admin(tap, game):
        return
    keyboard = menu(await _lobby_tr(tap), game)
    await answer_quietly(tap.query)
    await _edit_keyboard(tap, keyboard)


async def _lobby_tr(tap: Tap) -> Translator:
    """The group's language (the lobby message is in it), not the tapper's."""
    return await group_tr(tap.update, tap.d)


async def _edit_keyboard(tap: Tap, keyboard: present.Keyboard) -> None:
    message = tap.message
    if message is None:
        return
    try:
        await tap.context.bot.edit_message_reply_markup(
            message.chat.id, message.message_id, reply_markup=markup(keyboard))
    except BadRequest as e:
        if not is_not_modified(e):
            log.info("could not show a lobby menu: %s", e)


async def _choose_preset(tap: Tap, name: str) -> None:
    if name not in present.PRESET_ORDER:
        await answer_quietly(tap.query, taps.not_my_button(tap.tr),
                             show_alert=True)
        return
    game = await _game(tap)
    if game is None:
        return
    try:
        await call(tap.d.service.configure_lobby, game.id, tap.user_id, preset=name,
                   options={"medals_score": game.rules.medals_score})
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    await tap.d.deliverer.refresh_board(game.id)






def _house_change(op: str, game: GameInfo) -> dict[str, Any] | None:
    """What a tap on the *House rules* screen asks :meth:`configure_lobby` for, or None for
    data no button of this bot carries."""
    if op == "preset_as_is":
        return {"preset": game.preset, "options": {}}
    kind, _dot, choice = op.partition(".")
    number = int(choice) if choice.isdecimal() else -1
    if kind == "yr" and number in house_rules.YEARS:
        return {"options": {"years": number}}
    if kind == "opt" and 0 <= number < len(house_rules.OPTIONS):
        option = house_rules.OPTIONS[number]
        current = game.rules.to_dict().get(option.field)
        return {"options": {option.field: option.next_value(current)}}
    return None


async def _house_rule(tap: Tap, op: str) -> None:
    """An option of the *House rules* screen tapped (``opt.<index>``: its next value;
    ``yr.<n>``: the years; ``preset_as_is``: every option back to the preset's): set while
    the lobby is open (the service lets only the creator), the lobby's text redrawn and the
    screen shown again for the next change. A tap on an older screen is refused (its
    version), so two quick taps never cycle an option twice."""
    game = await _lobby_game(tap)
    if game is None:
        return
    change = _house_change(op, game)
    if change is None:
        await answer_quietly(tap.query, taps.not_my_button(tap.tr),
                             show_alert=True)
        return
    try:
        await call(tap.d.service.configure_lobby, game.id, tap.user_id,
                   version=tap.cb.version, **change)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    await tap.d.deliverer.refresh_board(game.id)
    game = await call(tap.d.service.game_info, game.id)  # as drawn: the newest version
    await _edit_keyboard(tap, say.house_menu(await _lobby_tr(tap), game))




async def _choose_timeout(tap: Tap, choice: str) -> None:
    """A time per move picked in the *Turn* menu: set (by the creator, while the lobby is
    open), and the full lobby keyboard back. Picking the same time twice changes nothing,
    so the choice carries no version."""
    seconds = int(choice) if choice.isdecimal() else 0
    if seconds not in say.TIMEOUT_CHOICES:
        await answer_quietly(tap.query, taps.not_my_button(tap.tr),
                             show_alert=True)
        return
    game = await _lobby_game(tap)
    if game is None:
        return
    try:
        await call(tap.d.service.configure, game.id, tap.user_id, turn_timeout=seconds)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    await tap.d.deliverer.refresh_board(game.id)


async def _creator_or_admin(tap: Tap, game: GameInfo) -> bool:
    """Whether the tapper is the game's creator or an admin of the chat (else says so)."""
    if tap.user_id == game.creator_id or await is_admin(tap.update, tap.context):
        return True
    await answer_quietly(tap.query, present.only_creator_or_admin(tap.tr),
                         show_alert=True)
    return False


async def _add_bot(tap: Tap, level: str) -> None:
    if level not in PLAYER_LEVELS:
        await answer_quietly(tap.query, taps.not_my_button(tap.tr),
                             show_alert=True)
        return
    try:
        await call(tap.d.service.add_ai_player, tap.cb.game_id, tap.user_id, None, level,
                   version=tap.cb.version)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    await tap.d.deliverer.refresh_board(tap.cb.game_id)


async def _set_standin_level(tap: Tap, level: str) -> None:
    """The chat's level for stand-ins and for the bots that fill empty seats at the start:
    a setting of the whole chat, so whoever ``/settings bots`` lets change it
    (:func:`~kolkhoz_tg.bot.chat_settings.chat_setting_refusal`), from a lobby."""
    game = await _game(tap)
    if game is None:
        return
    if level not in PLAYER_LEVELS:
        await answer_quietly(tap.query, taps.not_my_button(tap.tr),
                             show_alert=True)
        return
    if game.status != "lobby":
        await answer_quietly(tap.query, say.already_started(tap.tr),
                             show_alert=True)
        return
    refusal = await chat_setting_refusal(tap.update, tap.context, tap.d, tap.tr, game)
    if refusal is not None:
        await answer_quietly(tap.query, refusal, show_alert=True)
        return
    try:
        await call(tap.d.service.set_chat_ai_level, game.chat_id, level)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    await tap.d.deliverer.refresh_board(game.id)


async def _join(tap: Tap) -> None:
    """Take a seat; a player the bot cannot write to yet is sent to the private chat at
    once (the tap's answer opens the deep link: one more tap on Start there)."""
    error = await lobby_op(tap.update, tap.context, tap.cb.game_id, "join")
    if error:
        await answer_quietly(tap.query, error, show_alert=True)
        return
    if tap.in_private:  # from the notice of a new game: the Join button has done its work
        await answer_quietly(tap.query, notices.joined_from_notice(tap.tr), show_alert=True)
        await _edit_keyboard(tap, [])
        return
    user = await call(tap.d.service.user, tap.user_id)
    if user is not None and user.can_pm:
        await answer_quietly(tap.query)
        return
    url = present.deep_link(tap.context.bot.username, tap.cb.game_id)
    await answer_quietly(tap.query, url=url)


# ---------------------------------------------------------------------- /abort


async def cmd_abort(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/abort``: asks the creator or an admin to confirm; nothing changes until they do."""
    c = await command(update, context, group_language=True)
    game = await c.open_game()
    if game is None:
        return
    tr = c.tr
    if c.user.id != game.creator_id and not await is_admin(update, context):
        await c.reply(present.only_creator_or_admin(tr))
        return
    kind = _LOBBY if game.status == "lobby" else _RUNNING
    question = say.abort_question(tr, game, kind)
    await c.reply(question.text, question.keyboard)


async def _managed_game(tap: Tap) -> GameInfo | None:
    """The tapped button's game when the tapper is its creator or a chat admin; else None,
    with the tap answered (no such game, or not theirs to manage)."""
    game = await _game(tap)
    if game is None:
        return None
    if tap.user_id != game.creator_id and not await is_admin(tap.update, tap.context):
        await answer_quietly(tap.query, present.only_creator_or_admin(tap.tr),
                             show_alert=True)
        return None
    return game


async def _confirm_abort(tap: Tap, answer: str) -> None:
    """A tap on the confirmation. Only the creator and admins count; a confirmation made
    for a lobby that changed since, or for a game that is over or started since, is stale
    and changes nothing."""
    tr = tap.tr
    game = await _managed_game(tap)
    if game is None:
        return
    gtr = await _lobby_tr(tap)
    if answer == "n":
        await answer_quietly(tap.query)
        await _edit_text(tap, say.abort_declined(gtr))
        return
    current = _LOBBY if game.status == "lobby" else _RUNNING
    stale = (game.status not in ("lobby", "active", "paused") or answer != current
             or (current == _LOBBY and game.version != tap.cb.version))
    if stale:
        await answer_quietly(tap.query, say.abort_stale(tr), show_alert=True)
        await _edit_text(tap, say.abort_stale_done(gtr))
        return
    try:
        result = await call(tap.d.service.abort, game.id, tap.user_id, True)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tr, e), show_alert=True)
        return
    await answer_quietly(tap.query)
    await _edit_text(tap, say.aborted(gtr))
    await tap.d.deliverer.deliver(result.notifications)
    await tap.d.deliverer.refresh_board(game.id)


async def _edit_text(tap: Tap, text: str) -> None:
    """Replace the tapped confirmation with what came of it (no buttons left)."""
    message = tap.message
    if message is None:
        return
    with contextlib.suppress(BadRequest):
        await tap.context.bot.edit_message_text(text, chat_id=message.chat.id,
                                                message_id=message.message_id)


# ---------------------------------------------------------------------- /kick


async def cmd_kick(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/kick``: the seats to tap; ``/kick N``: at once. In the lobby the seat is freed;
    in a running game a bot stands in for it (the seat stays its player's). For the creator
    and the chat's admins."""
    c = await command(update, context, group_language=True, remember=False)
    game = await c.open_game()
    if game is None:
        return
    tr, args = c.tr, c.args
    if args and (len(args) != 1 or not args[0].isdecimal()
                 or not 1 <= int(args[0]) <= game.players):
        await c.reply(say.kick_usage(tr, game.players))
        return
    if c.user.id != game.creator_id and not await is_admin(update, context):
        await c.reply(present.only_creator_or_admin(tr))
        return
    if not args:
        keyboard = say.kick_keyboard(tr, game, c.user.id)
        if not keyboard:
            await c.reply(say.nobody_to_kick(tr))
            return
        await c.reply(say.whose_seat(tr), keyboard)
        return
    error = await _kick(c.d, game, c.user.id, int(args[0]) - 1)
    await c.reply(error or say.kicked_text(tr, game, int(args[0]) - 1))








async def _kick(d: Deps, game: GameInfo, by_user: int, seat: int) -> str | None:
    """Free a lobby seat or hand a running game's seat to a bot; an error text (in the
    group's language) or None."""
    try:
        if game.status == "lobby":
            await call(d.service.remove_seat, game.id, game.creator_id or by_user, seat)
        else:
            result = await call(d.service.stand_in, game.id, seat)
            await d.deliverer.deliver(result.notifications)
    except ServiceError as e:
        tr = translator(await call(d.service.locale_for, None, game.chat_id, None))
        return service_error_text(tr, e)
    await d.deliverer.refresh_board(game.id)
    return None


async def _kick_tap(tap: Tap, seat_text: str) -> None:
    """A seat tapped after /kick: by the creator or an admin; in the lobby only while it
    is as it was when the names were shown (someone else may sit there now)."""
    tr = tap.tr
    game = await _managed_game(tap)
    if game is None:
        return
    seat = int(seat_text) if seat_text.isdecimal() else -1
    if not 0 <= seat < game.players or game.status not in ("lobby", "active", "paused") or (
            game.status == "lobby" and game.version != tap.cb.version):
        await answer_quietly(tap.query, say.kick_stale(tr), show_alert=True)
        return
    error = await _kick(tap.d, game, tap.user_id, seat)
    if error:
        await answer_quietly(tap.query, error, show_alert=True)
        return
    await answer_quietly(tap.query)
    await _edit_text(tap, say.kicked_text(await _lobby_tr(tap), game, seat))
