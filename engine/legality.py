"""What a seat may do now, and why not: the one legality path.

:func:`compute_legal` lists the legal actions of a seat (``Game.legal_actions`` caches the
list and ``Game.apply`` accepts only its members); :func:`explain` says why an action is not
among them, with a short reason code a front end can translate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.actions import (
    ASSIGNS,
    PASSES,
    PLAYS,
    SWAP_PASS,
    TRUMPS,
    Action,
    ActionKind,
    IllegalAction,
)
from engine.cards import JOBS, SUIT_OF, Suit
from engine.data import GameData
from engine.phase import ASSIGN, OVER, PASS, PLAY, SWAP, TRUMP
from engine.rules import Assignment

# The shared actions as this module's constants: in the compiled engine a name imported from
# a module that is not compiled (engine.actions) is looked up in the globals at every use.
_PLAYS: Final = PLAYS
_PASSES: Final = PASSES
_TRUMPS: Final = TRUMPS
_SWAP_PASS: Final = SWAP_PASS
#: Jobs a card may go to with ``assignment = present``, by the bit set of suits in the trick.
_PRESENT_JOBS: Final = tuple(tuple(j for j in JOBS if mask >> j & 1) for mask in range(16))
_OWN_JOB: Final = tuple((SUIT_OF[c],) for c in range(52))
#: The assignments of card ``c`` to the jobs in a bit set ``mask``, as ``_ASSIGN_TO[mask][c]``:
#: the same actions, in the same order, as ASSIGNS[c * 4 + j] for each job j of jobs_for.
_ASSIGN_TO: Final = tuple(
    tuple(tuple(ASSIGNS[c * 4 + j] for j in jobs) for c in range(52)) for jobs in _PRESENT_JOBS
)
_ANY_JOB: Final = _ASSIGN_TO[15]
_OWN_ASSIGN: Final = tuple(ASSIGNS[c * 4 + SUIT_OF[c]] for c in range(52))
_BY_SUIT: Final = Assignment.SUIT


def compute_legal(g: GameData, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, as the shared :class:`Action` instances."""
    phase = g.phase
    if phase is PLAY:
        if seat != g.turn:
            return []
        hand = g.hands[seat]
        trick = g.trick
        if trick:
            led = SUIT_OF[trick[0][1]]
            follow = [_PLAYS[c] for c in hand if SUIT_OF[c] == led]
            return follow or [_PLAYS[c] for c in hand]
        trump = g.trump
        if g.rules.trump_lead_restricted and trump is not None and not g.trump_played:
            # seed 002: no trump lead until trump has been played, unless only trumps left.
            others = [_PLAYS[c] for c in hand if SUIT_OF[c] != trump]
            if others:
                return others
        return [_PLAYS[c] for c in hand]
    if phase is ASSIGN:
        if seat != g.brigadier:
            return []
        # jobs_for, unrolled: the trick (and so each card's jobs) is fixed while it is placed.
        pending = g.pending
        if g.rules.assignment is _BY_SUIT:
            if g.lean:
                return [a for c in pending for a in _ANY_JOB[c]]
            trump = g.trump
            out: list[Action] = []
            for c in pending:
                if SUIT_OF[c] == trump:
                    out.extend(_ANY_JOB[c])
                else:
                    out.append(_OWN_ASSIGN[c])
            return out
        mask = 0
        for _, x in g.trick:
            mask |= 1 << SUIT_OF[x]
        rows = _ASSIGN_TO[mask]
        return [a for c in pending for a in rows[c]]
    if phase is TRUMP:
        if seat != g.planner:
            return []
        return list(_TRUMPS)
    if phase is SWAP:
        if seat not in g.swap_pending:
            return []
        hidden = g.hidden_plot(seat)
        out = [Action.swap(h, p) for h in g.hands[seat] for p in hidden]
        out.append(_SWAP_PASS)
        return out
    if phase is PASS:
        if seat not in g.pass_pending:
            return []
        return [_PASSES[c] for c in g.hands[seat]]
    return []


def forced_among(legal: Sequence[Action], assigning: bool) -> Action | None:
    """The action a seat has no choice about: its only legal action, or while it assigns a
    trick, the first card that can go to one job only (the order of assignment changes
    nothing: jobs complete only after the last card). None when every choice is real."""
    if len(legal) == 1:
        return legal[0]
    if assigning and legal:
        count: dict[int, int] = {}
        for a in legal:
            count[a.card_id] = count.get(a.card_id, 0) + 1
        for a in legal:
            if count[a.card_id] == 1:
                return a
    return None


def jobs_for(g: GameData, c: int) -> Sequence[int]:
    """The jobs the Brigadier may put card ``c`` on (RULES.md "Assignment")."""
    if g.rules.assignment is _BY_SUIT:
        if g.lean or SUIT_OF[c] == g.trump:
            # A trump goes anywhere; in a lean year (no trump) any worker goes to any job
            # (seed 000's supply disruption, applied to every lean year).
            return JOBS
        return _OWN_JOB[c]
    # seed 001: any job whose suit is present among this trick's cards, lean years included.
    mask = 0
    for _, x in g.trick:
        mask |= 1 << SUIT_OF[x]
    return _PRESENT_JOBS[mask]


def explain(g: GameData, seat: int, a: Action) -> IllegalAction:
    """Why ``a`` is not legal for ``seat`` now (the caller knows it is not)."""
    if not isinstance(seat, int) or not 0 <= seat < g.n:
        return IllegalAction(f"{a}: there is no seat {seat!r}", "no_seat")
    phase = g.phase
    if phase is OVER:
        return IllegalAction(f"{a}: the game is over", "game_over")
    if phase is PASS and seat not in g.pass_pending and g.pass_sent(seat) is not None:
        return IllegalAction(
            f"{a}: seat {seat} has already chosen the card it passes this year",
            "already_chosen",
        )
    if seat not in g.to_act:
        return IllegalAction(
            f"{a}: seat {seat} may not act now ({phase.value} phase, waiting for "
            f"{', '.join(map(str, g.to_act))})",
            "not_your_turn",
        )
    if a.kind.value != phase.value:
        return IllegalAction(
            f"{a}: this is the {phase.value} phase, not {a.kind.value}", "wrong_phase"
        )
    assert a.card is not None or a.kind in (ActionKind.TRUMP, ActionKind.SWAP)
    if a.kind is ActionKind.PASS:
        assert a.card is not None
        return IllegalAction(f"{a}: {a.card} is not in seat {seat}'s hand", "not_in_hand")
    if a.kind is ActionKind.PLAY:
        assert a.card is not None
        c = a.card.id
        hand = g.hands[seat]
        if c not in hand:
            return IllegalAction(f"{a}: {a.card} is not in seat {seat}'s hand", "not_in_hand")
        if g.trick:
            led = SUIT_OF[g.trick[0][1]]
            return IllegalAction(
                f"{a}: must follow the led suit {Suit(led).symbol}", "follow_suit"
            )
        return IllegalAction(
            f"{a}: trump may not be led until a trump has been played this year",
            "trump_lead",
        )
    if a.kind is ActionKind.ASSIGN:
        assert a.card is not None
        if a.card.id not in g.pending:
            return IllegalAction(
                f"{a}: {a.card} is not a card of the trick still to assign", "not_in_trick"
            )
        return IllegalAction(f"{a}: {a.card} may not go to that job", "wrong_job")
    if a.kind is ActionKind.SWAP:
        assert a.card is not None and a.target is not None
        if a.card.id not in g.hands[seat]:
            return IllegalAction(f"{a}: {a.card} is not in seat {seat}'s hand", "not_in_hand")
        return IllegalAction(
            f"{a}: {a.target} is not a face-down card of seat {seat}'s plot", "not_in_plot"
        )
    return IllegalAction(f"{a}: not allowed now", "illegal")  # pragma: no cover
