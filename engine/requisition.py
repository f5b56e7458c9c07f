"""The year's requisition ("Ищут врагов народа"): for each failed job, who is exposed, what
they reveal and what goes north (RULES.md, "Requisition")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import events as ev
from engine.cards import CARDS, HOURS, JACKS, JOBS, KING, QUEEN, SUIT_OF, SUITS, card_id
from engine.rules import Losers, Requisition, Reward

if TYPE_CHECKING:
    from engine.state import Game


def exposure(g: Game, job: int, all_failed: bool) -> list[int]:
    """Seats exposed by the requisition of a failed ``job`` this year (before revealing)."""
    trump = g.trump
    if (
        trump is not None
        and g.rules.nomenklatura
        and card_id(QUEEN, trump) in g.workers[job]
    ):
        return list(range(g.n))  # Информатор: everyone reveals
    return base_exposure(g, all_failed)

def base_exposure(g: Game, all_failed: bool) -> list[int]:
    rules = g.rules
    everyone = list(range(g.n))
    if rules.reward is Reward.NONE or rules.requisition is Requisition.EVERYONE:
        return everyone
    if rules.reward is Reward.STACK:
        # seed 001, Колхозик: the Brigadiers are known by the stacks they took.
        base = [s for s in everyone if g.completed_year[s]]
    else:
        base = [s for s in everyone if g.brigadier_year[s]]
    if not base and rules.mice_fallback and all_failed:
        return everyone  # "Разговоры вели даже с мышами" for this year
    return base

def requisition(g: Game, out: list[ev.Event]) -> None:
    failed = [j for j in JOBS if g.completed_by[j] is None]
    if not failed:
        return
    all_failed = len(failed) == 4
    trump = g.trump
    nomenklatura = g.rules.nomenklatura and trump is not None
    each = g.rules.losers is Losers.EACH
    face_up = g.face_up
    plots = g.plots
    # Matching cards: plot workers by seat and suit, highest first (rewards never count).
    matching = [[[], [], [], []] for _ in plots]  # type: list[list[list[int]]]
    for s, plot in enumerate(plots):
        buckets = matching[s]
        for c in sorted(plot, reverse=True):
            if HOURS[c]:
                buckets[SUIT_OF[c]].append(c)
    for j in failed:
        job = SUITS[j]
        out.append(ev.JobFailed(job, g.hours[j]))
        workers = g.workers[j]
        count = 1
        if nomenklatura:
            assert trump is not None
            jack = JACKS[trump]
            if jack in workers:
                # Пьяница: the Jack goes north instead, and nothing else happens here.
                workers.remove(jack)
                g.north.append(jack)
                out.append(ev.DrunkardSentNorth(job, CARDS[jack]))
                continue
            if card_id(KING, trump) in workers:
                count = 2  # Партийный чиновник doubles the loss
        losses: list[tuple[int, int]] = []
        for s in exposure(g, j, all_failed):
            cards = matching[s][j]
            new = [c for c in cards if c not in face_up]
            if new:
                face_up.update(new)
                out.append(ev.CardsRevealed(s, job, tuple(CARDS[c] for c in reversed(new))))
            losses.extend((s, c) for c in (cards[:count] if each else cards))
        if not each:
            losses.sort(key=lambda sc: sc[1], reverse=True)
            del losses[count:]
        if not losses:
            out.append(ev.NothingRequisitioned(job))
        for s, c in losses:
            plots[s].remove(c)
            face_up.discard(c)
            g.north.append(c)
            out.append(ev.CardSentNorth(s, job, CARDS[c]))
