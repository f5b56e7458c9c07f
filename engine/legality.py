"""What a seat may do now, and why not: the one legality path.

:func:`compute_legal` lists the legal action codes of a seat (``Game.legal_actions`` caches
them and ``Game.apply`` accepts only those); :func:`explain` says why an action is not among
them, with a short reason code a front end can translate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.actions import (
    _ASSIGN_BASE,
    _PLAY_BASE,
    _SWAP_BASE,
    _TRUMP_BASE,
    SWAP_PASS_CODE,
    Action,
    ActionKind,
    IllegalAction,
)
from engine.cards import JOBS, SUIT_OF, Suit
from engine.phase import ASSIGN, OVER, PLAY, SWAP, TRUMP
from engine.rules import Assignment

if TYPE_CHECKING:
    from engine.state import Game


def compute_legal(g: Game, seat: int) -> list[int]:
    phase = g.phase
    if phase is PLAY:
        if seat != g.turn:
            return []
        hand = g.hands[seat]
        trick = g.trick
        if trick:
            led = SUIT_OF[trick[0][1]]
            follow = [c for c in hand if SUIT_OF[c] == led]
            return [_PLAY_BASE + c for c in (follow or hand)]
        trump = g.trump
        if g.rules.trump_lead_restricted and trump is not None and not g.trump_played:
            # seed 002: no trump lead until trump has been played, unless only trumps left.
            others = [c for c in hand if SUIT_OF[c] != trump]
            if others:
                return [_PLAY_BASE + c for c in others]
        return [_PLAY_BASE + c for c in hand]
    if phase is ASSIGN:
        if seat != g.brigadier:
            return []
        out: list[int] = []
        for c in g.pending:
            for j in jobs_for(g, c):
                out.append(_ASSIGN_BASE + c * 4 + j)
        return out
    if phase is TRUMP:
        if seat != g.planner:
            return []
        return [_TRUMP_BASE + s for s in JOBS]
    if phase is SWAP:
        if seat not in g.swap_pending:
            return []
        hidden = g.hidden_plot(seat)
        out = [_SWAP_BASE + h * 52 + p for h in g.hands[seat] for p in hidden]
        out.append(SWAP_PASS_CODE)
        return out
    return []

def jobs_for(g: Game, c: int) -> Sequence[int]:
    if g.lean:
        return JOBS  # a lean year has no trump: any worker to any job
    if g.rules.assignment is Assignment.SUIT:
        if SUIT_OF[c] == g.trump:
            return JOBS
        return (SUIT_OF[c],)
    # seed 001: any job whose suit is present among this trick's cards.
    present = {SUIT_OF[x] for _, x in g.trick}
    return tuple(j for j in JOBS if j in present)

def explain(g: Game, seat: int, a: Action) -> IllegalAction:
    if not isinstance(seat, int) or not 0 <= seat < g.n:
        return IllegalAction(f"{a}: there is no seat {seat!r}", "no_seat")
    phase = g.phase
    if phase is OVER:
        return IllegalAction(f"{a}: the game is over", "game_over")
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
