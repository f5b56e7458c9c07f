"""The year's requisition ("Ищут врагов народа"): for each failed job, who is exposed, what
they reveal and what goes north (RULES.md, "Requisition")."""

from __future__ import annotations

from typing import Final, NamedTuple

from engine import events as ev
from engine.cards import CARDS, HOURS, JACKS, JOBS, KING, QUEEN, SUIT_OF, SUITS, card_id
from engine.data import GameData
from engine.rules import Losers, Requisition, Reveal, Reward

_KINGS: Final = tuple(card_id(KING, s) for s in SUITS)
_QUEENS: Final = tuple(card_id(QUEEN, s) for s in SUITS)


class YearRule(NamedTuple):
    """How this year's requisition works: the options, or the whole mice rule."""

    mice: bool  # the mice fallback replaced the options for this year
    everyone: bool  # every seat is exposed (before any Queen)
    exposed: tuple[int, ...]  # seats the requisition option exposes
    reveal: Reveal
    losers: Losers


def year_rule(g: GameData, all_failed: bool) -> YearRule:
    """The requisition that applies this year. With ``mice_fallback``, when all four jobs
    failed and the ``requisition`` option exposes nobody, the whole mice rule applies
    (seed 001: "Разговоры вели даже с мышами" — everyone, reveal and lose the highest)."""
    rules = g.rules
    everyone = tuple(range(g.n))
    if rules.reward is Reward.NONE or rules.requisition is Requisition.EVERYONE:
        return YearRule(False, True, everyone, rules.reveal, rules.losers)
    if rules.reward is Reward.STACK:
        # seed 001, Колхозик: the Brigadiers are known by the stacks they took.
        base = tuple(s for s in everyone if g.completed_year[s])
    else:
        base = tuple(s for s in everyone if g.brigadier_year[s])
    if not base and rules.mice_fallback and all_failed:
        return YearRule(True, True, everyone, Reveal.HIGHEST, Losers.HIGHEST)
    return YearRule(False, False, base, rules.reveal, rules.losers)


def requisition(g: GameData, out: list[ev.Event]) -> None:
    """Requisition every failed job in suit order, changing ``g`` and reporting to ``out``."""
    completed = g.completed_by
    failed = [j for j in JOBS if completed[j] is None]
    if not failed:
        return
    rule = year_rule(g, len(failed) == 4)
    if rule.mice:
        out.append(ev.MiceRuleApplied(g.year))
    trump = g.trump
    nomenklatura = g.rules.nomenklatura and trump is not None
    face_up = g.face_up
    plots = g.plots
    everyone = tuple(range(g.n))
    # Matching cards: plot workers by seat and suit, highest first (rewards never count).
    matching: list[list[list[int]]] = [[[], [], [], []] for _ in plots]
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
        informer = False
        if nomenklatura:
            assert trump is not None
            jack = JACKS[trump]
            if jack in workers:
                # Пьяница: the Jack goes north instead, and nothing else happens here.
                workers.remove(jack)
                g.north.append(jack)
                out.append(ev.DrunkardSentNorth(job, CARDS[jack]))
                continue
            if _KINGS[trump] in workers:
                count = 2  # Партийный чиновник doubles the loss
            informer = _QUEENS[trump] in workers  # Информатор: everyone is exposed
        exposed = everyone if informer else rule.exposed
        reveal = rule.reveal
        for s in exposed:
            if reveal is Reveal.PLOT:
                new = [c for c in plots[s] if c not in face_up]
            elif reveal is Reveal.HIGHEST and not informer:
                # Only the highest hidden matching card(s); the Queen makes everyone show all.
                new = [c for c in matching[s][j] if c not in face_up][:count]
            else:
                new = [c for c in matching[s][j] if c not in face_up]
            if new:
                face_up.update(new)
                new.sort()
                out.append(ev.CardsRevealed(s, job, tuple(CARDS[c] for c in new)))
        # Only what everyone has now seen can be taken: a card left hidden stays.
        losses: list[tuple[int, int]] = []
        if rule.losers is Losers.EACH:
            for s in exposed:
                seen = [c for c in matching[s][j] if c in face_up]
                losses.extend((s, c) for c in seen[:count])
        else:
            for s in exposed:
                losses.extend((s, c) for c in matching[s][j] if c in face_up)
            losses.sort(key=lambda sc: sc[1], reverse=True)
            del losses[count:]
        if not losses:
            out.append(ev.NothingRequisitioned(job))
        for s, c in losses:
            plots[s].remove(c)
            face_up.discard(c)
            g.north.append(c)
            out.append(ev.CardSentNorth(s, job, CARDS[c]))
