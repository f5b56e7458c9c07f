"""Moves queued ahead (pre-moves): what a player may queue, and what happens to it when their
turn comes, inside the game transaction that brings the turn (:class:`GameTx`).

A seat holds at most one queued move (``seats.premove``, an action text) and a flag
(``seats.auto_assign``: the heuristic places its tricks when it is the Brigadier). When the
automatic moves of a transaction reach a human seat whose decision the queued move answers,
the move is played there and then, logged as the player's own (it is their choice: nothing
in the log, the board or anyone else's view tells it from a tap), or dropped when it is not
allowed then, with the engine's reason for the player's next message. Nothing here writes a
notification: a queued move is told only through the change it is part of.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine import Action, ActionKind, Game, InvalidAction
from engine import events as ev
from engine.ai import default_action
from engine.phase import Phase
from kolkhoz_tg.service.own_moves import note_own_move
from kolkhoz_tg.service.records import Premove
from kolkhoz_tg.storage.models import Actor, SeatRow

if TYPE_CHECKING:
    from kolkhoz_tg.service.gametx import GameTx


@dataclass(slots=True)
class QueueLog:
    """What one transaction did with the seats' queued moves (for their own messages)."""

    played: dict[int, list[str]] = field(default_factory=dict)
    dropped: dict[int, tuple[str, str]] = field(default_factory=dict)

    def premove(self, row: SeatRow, game: Game, active: bool) -> Premove:
        """The seat's :class:`Premove` as its player sees it after the transaction."""
        dropped = self.dropped.get(row.seat)
        return Premove(
            queued=row.premove,
            played=tuple(self.played.get(row.seat, ())),
            dropped=dropped[0] if dropped else None,
            reason=dropped[1] if dropped else None,
            auto_assign=row.auto_assign,
            kind=queueable(game, row.seat, active),
        )


def premove_of(row: SeatRow, game: Game, active: bool) -> Premove:
    """A seat's queue as its player sees it outside a move (a read)."""
    return QueueLog().premove(row, game, active)


def queueable(game: Game, seat: int, active: bool) -> str | None:
    """The kind of action the seat may queue now (see :func:`next_kind`), as its text; None
    when the game does not run, or the seat decides that very kind now."""
    if not active or game.is_over:
        return None
    kind = next_kind(game, seat)
    if kind is None or (seat in game.to_act and kind.value == game.phase.value):
        return None
    return kind.value


def next_kind(game: Game, seat: int) -> ActionKind | None:
    """The kind of decision a seat may queue now: what comes after the phase under way
    (the card to play while a trick, its assignment or the swap goes on; while the Planner
    chooses the trump, the card to pass, the swap or the first trick's card, whichever the
    year has next; the swap, or the card, after passing). None when nothing may be
    queued."""
    phase, rules, later = game.phase, game.rules, game.year >= 2
    if phase in (Phase.PLAY, Phase.ASSIGN, Phase.SWAP):
        return ActionKind.PLAY
    if phase is Phase.TRUMP and rules.pass_cards and later:
        return ActionKind.PASS
    if phase in (Phase.TRUMP, Phase.PASS):
        return ActionKind.SWAP if rules.swap and later else ActionKind.PLAY
    return None


def decides_now(game: Game, seat: int, action: Action) -> bool:
    """Whether ``action`` answers the decision ``seat`` faces now (so it is played, not
    queued)."""
    return seat in game.to_act and action.kind.value == game.phase.value


def queue_refusal(game: Game, seat: int, action: Action) -> str | None:
    """Why ``action`` may not be queued for ``seat`` now (a reason code), or None."""
    if game.is_over:
        return "game_over"
    kind = next_kind(game, seat)
    if kind is None or action.kind is not kind:
        return "cannot_queue"
    if action.card is not None and action.card.id not in game.hands[seat]:
        return "not_in_hand"
    if action.target is not None and action.target.id not in game.hidden_plot(seat):
        return "not_in_plot"
    return None


def parse_queued(text: str | None) -> Action | None:
    if text is None:
        return None
    try:
        return Action.parse(text)
    except InvalidAction:
        return None


def play_queued(tx: GameTx, seat: int) -> bool:
    """Answer a human seat's decision from its queue: its queued move when it answers this
    decision (played, or dropped when not allowed), or the heuristic's assignment for a
    Brigadier who asked for it. True when a move was played."""
    row = tx.seats[seat]
    game = tx.game
    if row.auto_assign and game.phase is Phase.ASSIGN:
        assignment = default_action(game, seat)
        tx.apply(seat, assignment, Actor.PLAYER, row.user_id)
        note_own_move(tx.row, tx.game, seat, assignment, len(tx.game.log))
        return True
    action = parse_queued(row.premove)
    if action is None:
        row.premove = None
        return False
    if not decides_now(game, seat, action):
        if next_kind(game, seat) is not action.kind:
            row.premove = None  # its decision went by (a stand-in swapped for them, say)
        return False  # else it answers a later decision (the next trick's card, say)
    row.premove = None
    illegal = game.why_illegal(seat, action)
    if illegal is not None:
        tx.queue_log.dropped[seat] = (action.text, illegal.reason)
        return False
    tx.apply(seat, action, Actor.PLAYER, row.user_id)
    # (The player's own card, as if tapped: a take-back may reach it, and no earlier one.)
    note_own_move(tx.row, tx.game, seat, action, len(tx.game.log))
    tx.queue_log.played.setdefault(seat, []).append(action.text)
    return True


def forget_at_deal(tx: GameTx, events: list[ev.Event]) -> None:
    """A new deal takes every queued move with it: its cards are gone."""
    if any(isinstance(e, ev.YearStarted) for e in events):
        for row in tx.seats.values():
            row.premove = None
