"""Moves queued ahead, in the player's own game message: what is queued, what became of it
when their turn came, the ⏭ buttons that queue (tapped again: cancel), and the Brigadier's
⚡ "assign my tricks for me". Only ever in that player's private message."""

from __future__ import annotations

from engine import Action, ActionKind
from engine.phase import Phase
from kolkhoz_tg.bot.callbacks import queue_button
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.errors import reason_text, result_text
from kolkhoz_tg.present.keyboard import Button, Keyboard
from kolkhoz_tg.present.words import card
from kolkhoz_tg.service.records import ActResult, SeatView
from kolkhoz_tg.storage.models import GameStatus

#: The marks of a queue button: not queued, queued (tap again to cancel).
QUEUE, QUEUED = "⏭", "✅"


def move_words(tr: Translator, text: str) -> str:
    """A queued action in a few characters: ``9♥``, ``↪ 9♥`` (passed), ``9♥ ⇄ K♣`` (a swap)
    or "Keep my cards"."""
    a = Action.parse(text)
    if a.kind is ActionKind.SWAP:
        if a.card is None or a.target is None:
            return tr.gettext("Keep my cards")
        return f"{card(tr, a.card)} ⇄ {card(tr, a.target)}"
    if a.kind is ActionKind.PASS:
        return "↪ " + card(tr, a.card)
    return card(tr, a.card)


def premove_lines(tr: Translator, sv: SeatView) -> list[str]:
    """The lines of the player's message about their queue: what the last change made or
    dropped of it (and why), what is queued now, or how to queue."""
    _ = tr.gettext
    p = sv.premove
    lines = [QUEUE + " " + _("Made as you queued it: {move}.", move=move_words(tr, text))
             for text in p.played]
    if p.dropped is not None:
        lines.append(QUEUE + " " + _("Your queued {move} was not made: {reason}",
                                     move=move_words(tr, p.dropped),
                                     reason=reason_text(tr, p.reason, sv.view)))
    if p.queued is not None:
        lines.append(QUEUE + " " + _("Queued for your turn: {move}. It is made as soon as "
                                     "your turn comes, if it is allowed then; tap it again "
                                     "to cancel.", move=move_words(tr, p.queued)))
    elif p.kind is not None and not sv.to_act:
        lines.append(QUEUE + " " + _("Tap below what to do when your turn comes: it is made "
                                     "at once then, and nobody sees it before."))
    return lines


def premove_rows(tr: Translator, sv: SeatView) -> Keyboard:
    """The ⏭ buttons of what the player may queue now (none while they decide it now)."""
    p = sv.premove
    if p.kind is None or sv.to_act:
        return []
    gid, ver = sv.game.id, sv.game.version
    me = sv.view.players[sv.seat]
    hand = me.hand or ()

    def button(text: str) -> Button:
        mark = QUEUED if p.queued == text else QUEUE
        return Button(mark + move_words(tr, text), queue_button(gid, ver, text))

    if p.kind == ActionKind.PLAY.value:
        return [[button(Action.play(c).text) for c in hand]]
    if p.kind == ActionKind.PASS.value:
        passes = [button(Action.pass_card(c).text) for c in hand]
        return [passes[i : i + 4] for i in range(0, len(passes), 4)]
    swaps = [button(Action.swap(c, t).text) for c in hand for t in me.plot_hidden or ()]
    rows = [swaps[i : i + 3] for i in range(0, len(swaps), 3)]
    rows.append([button(Action.swap_pass().text)])
    return rows


def auto_assign_rows(tr: Translator, sv: SeatView) -> Keyboard:
    """The ⚡ button: "assign my tricks for me" for a Brigadier placing a trick, and while it
    is on, in every message of theirs, the button that turns it off."""
    _ = tr.gettext
    if sv.game.status != GameStatus.ACTIVE or sv.view.over:
        return []
    gid, ver = sv.game.id, sv.game.version
    if sv.premove.auto_assign:
        return [[Button("⚡ " + _("My tricks are assigned for me: tap to stop"),
                        queue_button(gid, ver, "auto:0"))]]
    if sv.to_act and sv.view.phase is Phase.ASSIGN:
        return [[Button("⚡ " + _("Assign my tricks for me"),
                        queue_button(gid, ver, "auto:1"))]]
    return []


def refusal_text(tr: Translator, result: ActResult) -> str:
    """Why a move could not be queued (or made now)."""
    if result.reason == "cannot_queue":
        return tr.gettext("That cannot be queued now: your next decision is of another kind.")
    return result_text(tr, result)


def queued_reply(tr: Translator, sv: SeatView) -> str:
    """The answer to ``/premove``: what is queued now."""
    if sv.premove.queued is None:
        return tr.gettext("Nothing is queued.")
    return "\n".join(premove_lines(tr, sv))


def made_now(tr: Translator) -> str:
    """``/premove`` of the very decision the player faces now: it was made."""
    return tr.gettext("It was your turn already: the move is made.")


def cancelled(tr: Translator, games: int) -> str:
    """``/premove off``: in how many games a queued move was cancelled."""
    if not games:
        return tr.gettext("Nothing was queued.")
    return tr.ngettext("Queued move cancelled in {n} game.",
                       "Queued moves cancelled in {n} games.", games)


def premove_usage(tr: Translator) -> str:
    return tr.gettext("Usage: /premove 9H (the card to play, or to pass, when your turn "
                      "comes), /premove swap 9H KC, /premove swap pass, /premove off")


def premove_in_private(tr: Translator) -> str:
    """``/premove`` in a group would show the card to everyone."""
    return tr.gettext("Queued moves are secret: send /premove to me in private.")


def nothing_to_queue(tr: Translator) -> str:
    return tr.gettext("None of your games can take that move now: is the card in your hand, "
                      "and is that your next decision?")


def queue_in_several_games(tr: Translator) -> str:
    return tr.gettext("That move can be queued in more than one of your games: use the ⏭ "
                      "buttons in the message of the game you mean.")
