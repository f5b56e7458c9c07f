"""Moves queued ahead: the ⏭ and ⚡ buttons of a player's game message (``q`` callbacks) and
``/premove 9H``, ``/premove off`` in private. One service call each (``premove`` or
``set_auto_assign``); a queue changes nothing anyone else sees, so only the player's own
message is edited."""

from __future__ import annotations

from typing import TYPE_CHECKING

from telegram import Update
from telegram.ext import ContextTypes

from engine import Action, ActionKind
from kolkhoz_tg.bot.context import (
    Cmd,
    answer_quietly,
    call,
    command,
    deliver_result,
    service_error_text,
)
from kolkhoz_tg.bot.delivery import Acting
from kolkhoz_tg.bot.steps import pm_key
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.moves import TypedError, parse_typed
from kolkhoz_tg.present import premoves as say
from kolkhoz_tg.present import taps
from kolkhoz_tg.service import ActResult, ActStatus, GameInfo, ServiceError

if TYPE_CHECKING:
    from kolkhoz_tg.bot.buttons import Tap

#: What turns "assign my tricks for me" on and off (the ``q`` payloads).
AUTO = {"auto:1": True, "auto:0": False}
#: The words of ``/premove off``.
OFF_WORDS = frozenset({"off", "cancel", "none", "-", "выкл", "отмена", "нет", "сброс"})


async def premove_tap(tap: Tap) -> None:
    """``q``: queue the tapped move for the player's turn (tapped again: cancel), or switch
    the Brigadier's "assign for me" (``auto:1`` / ``auto:0``). Only in private: the
    buttons show the player's cards."""
    d, cb = tap.d, tap.cb
    if not tap.in_private:
        await answer_quietly(tap.query, taps.cards_only_in_private(tap.tr), show_alert=True)
        return
    try:
        if cb.payload in AUTO:
            result = await call(d.service.set_auto_assign, cb.game_id, tap.user_id,
                                AUTO[cb.payload])
        else:
            result = await call(d.service.premove, cb.game_id, tap.user_id, cb.payload,
                                toggle=True)
    except ServiceError as e:
        await answer_quietly(tap.query, service_error_text(tap.tr, e), show_alert=True)
        return
    tr = translator(result.locale) if result.locale else tap.tr
    if result.ok:
        await answer_quietly(tap.query)
    else:
        await answer_quietly(tap.query, say.refusal_text(tr, result), show_alert=True)
    await deliver_result(tap.context, result, cb.game_id, tap.acting)


async def cmd_premove(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """``/premove 9H`` (a card to play, or to pass, when the turn comes), ``/premove swap 9H
    KC``, ``/premove swap pass``, ``/premove off``; in private only (it names a card)."""
    c = await command(update, context)
    if c.in_group:
        await c.reply(say.premove_in_private(c.tr))
        return
    args = c.args
    if not args:
        await c.reply(say.premove_usage(c.tr))
        return
    if args[0].lower() in OFF_WORDS:
        await _cancel_all(c)
        return
    name = args[0].lower() if args[0].lower() in ("swap", "pass") else "play"
    rest = " ".join(args[1:] if name != "play" else args)
    try:
        action = parse_typed(name, rest)
    except TypedError:
        await c.reply(say.premove_usage(c.tr))
        return
    fits = await _games_for(c, action)
    if not fits:
        await c.reply(say.nothing_to_queue(c.tr))
        return
    if len(fits) > 1:
        await c.reply(say.queue_in_several_games(c.tr))
        return
    game, text = fits[0]
    try:
        result = await call(c.d.service.premove, game.id, c.user.id, text)
    except ServiceError as e:
        await c.reply(service_error_text(c.tr, e))
        return
    await _show(c, game, result)


async def _games_for(c: Cmd, text: str) -> list[tuple[GameInfo, str]]:
    """The sender's running games where the action ``text`` may be queued now (a card to
    play reads as the card to pass where a pass is next) or made now, with the action for
    each."""
    fits = []
    for game, sv in await c.running_seats():
        action = Action.parse(text)
        if sv.premove.kind == ActionKind.PASS.value and action.kind is ActionKind.PLAY:
            assert action.card is not None
            action = Action.pass_card(action.card)
        held = set(sv.view.players[sv.seat].hand or ())
        if action.text in sv.legal or (action.kind.value == sv.premove.kind
                                       and (action.card is None or action.card in held)):
            fits.append((game, action.text))
    return fits


async def _cancel_all(c: Cmd) -> None:
    """``/premove off``: nothing stays queued in any of the sender's games."""
    cancelled = 0
    for game in await call(c.d.service.games_of_user, c.user.id):
        if game.status != "active":
            continue
        try:
            result = await call(c.d.service.premove, game.id, c.user.id, None)
            # ⚡ too: nothing is decided for them any more.
            auto = await call(c.d.service.set_auto_assign, game.id, c.user.id, False)
        except ServiceError:
            continue
        if ActStatus.APPLIED in (result.status, auto.status):
            cancelled += 1
            await _edit_game_message(c, game, auto if auto.status is ActStatus.APPLIED
                                     else result)
    await c.reply(say.cancelled(c.tr, cancelled))


async def _show(c: Cmd, game: GameInfo, result: ActResult) -> None:
    """The outcome of a typed queue: the reply, and the game message brought up to date."""
    if not result.ok:
        await c.reply(say.refusal_text(c.tr, result))
        return
    scene = result.scene
    sv = scene.seats.get(c.user.id) if scene is not None else None
    await c.reply(say.queued_reply(c.tr, sv) if sv is not None and not result.notifications
                  else say.made_now(c.tr))
    await _edit_game_message(c, game, result)


async def _edit_game_message(c: Cmd, game: GameInfo, result: ActResult) -> None:
    pm = game.meta.get(pm_key(c.user.id))
    acting = Acting(c.user.id, c.user.id, int(pm)) if pm else None
    await deliver_result(c.context, result, game.id, acting)
