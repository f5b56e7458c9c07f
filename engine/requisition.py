"""The year's requisition ("Ищут врагов народа"): for each failed job, who is exposed, what
they reveal and what goes north (RULES.md, "Requisition")."""

from __future__ import annotations

from operator import itemgetter
from typing import Final, NamedTuple

from engine import events as ev
from engine.cards import CARDS, JACKS, JOBS, KING, QUEEN, SUITS, WORKER_RANKS, Suit, card_id
from engine.data import GameData
from engine.rules import Drunkard, Losers, Requisition, Reveal, Reward

_KINGS: Final = tuple(card_id(KING, s) for s in SUITS)
_QUEENS: Final = tuple(card_id(QUEEN, s) for s in SUITS)
_SEATS: Final = tuple(tuple(range(n)) for n in range(6))
#: The ids of each suit's worker cards (6 to King) form one range, lo <= id < hi.
_WORKER_IDS: Final = tuple((card_id(WORKER_RANKS[0], s), card_id(KING, s) + 1) for s in SUITS)
_CARD_OF_LOSS: Final = itemgetter(1)
_NO_REWARD: Final = Reward.NONE
_STACK: Final = Reward.STACK
_EVERYONE: Final = Requisition.EVERYONE
# Enum members as module constants (a lookup on the class costs ~70 ns on Python 3.11).
_HIGHEST: Final = Reveal.HIGHEST
_PLOT: Final = Reveal.PLOT
_EACH: Final = Losers.EACH
_REPLACES: Final = Drunkard.REPLACES
# Events are built with ``tuple.__new__``, skipping the named tuples' Python-level __new__.
_tuple = tuple.__new__


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
    everyone = _SEATS[g.n]
    reward = rules.reward
    if reward is _NO_REWARD or rules.requisition is _EVERYONE:
        return _tuple(YearRule, (False, True, everyone, rules.reveal, rules.losers))
    # seed 001, Колхозик: the Brigadiers are known by the stacks they took.
    known = g.completed_year if reward is _STACK else g.brigadier_year
    base = tuple([s for s in everyone if known[s]])
    if not base and rules.mice_fallback and all_failed:
        return _tuple(YearRule, (True, True, everyone, Reveal.HIGHEST, Losers.HIGHEST))
    return _tuple(YearRule, (False, False, base, rules.reveal, rules.losers))


def year_hero(g: GameData) -> int | None:
    """``hero`` (house rule, with Brigadiers searched and reward cards): the seat that won
    every trick of this year, at least one, if any."""
    if not g.rules.hero_applies:
        return None
    winners = {seat for _trick, seat in g.tricks}
    return winners.pop() if len(winners) == 1 else None


#: A job without the nomenklatura's effects: one card shown and lost (by each or in all), no
#: Drunkard, no Informer.
_PLAIN: Final = (1, -1, False)


def _nomenklatura(
    workers: list[int], trump: int, job: Suit, north: list[int], out: list[ev.Event] | None,
    replaces: bool,
) -> tuple[int, int, bool] | None:
    """The trump court cards on a failed job (``nomenklatura``): Пьяница (the trump Jack)
    goes north at once; None when that is all that happens to the job (``cancels``). Else
    ``(count, lose, informer)``: the cards shown (reveal = highest) and lost, two with
    Партийный чиновник (the King); the cards lost when the Jack took one's place (-1: he did
    not); whether Информатор (the Queen) exposes everyone."""
    jack = JACKS[trump]
    drunk = jack in workers
    if drunk:
        # With ``cancels`` nothing else happens here; with ``replaces`` the search goes on and
        # he goes instead of one card.
        workers.remove(jack)
        north.append(jack)
        if out is not None:
            out.append(_tuple(ev.DrunkardSentNorth, (job, CARDS[jack])))
        if not replaces:
            return None
    count = 2 if _KINGS[trump] in workers else 1  # Партийный чиновник doubles the loss
    lose = count - 1 if drunk else -1  # the Jack counts as one of the cards that go
    return count, lose, _QUEENS[trump] in workers  # Информатор: everyone is exposed


def requisition(g: GameData, out: list[ev.Event] | None) -> None:
    """Requisition every failed job in suit order, changing ``g`` and reporting to ``out``
    (None: nobody reads the events, as in a search's playouts)."""
    completed = g.completed_by
    failed = [j for j in JOBS if completed[j] is None]
    if not failed:
        return
    hero = year_hero(g)
    if hero is not None:
        # The Hero: searched for nothing, everyone else searched, each losing their own.
        if out is not None:
            out.append(_tuple(ev.HeroNamed, (g.year, hero)))
        others = tuple([s for s in _SEATS[g.n] if s != hero])
        rule = _tuple(YearRule, (False, False, others, g.rules.reveal, _EACH))
    else:
        rule = year_rule(g, len(failed) == 4)
    if rule.mice and out is not None:
        out.append(ev.MiceRuleApplied(g.year))
    trump = g.trump
    nomenklatura = g.rules.nomenklatura and trump is not None
    face_up = g.face_up
    plots = g.plots
    north = g.north
    hours = g.hours
    everyone = _SEATS[g.n]
    reveal = rule.reveal
    highest = reveal is _HIGHEST
    each = rule.losers is _EACH
    replaces = g.rules.drunkard is _REPLACES
    for j in failed:
        job = SUITS[j]
        if out is not None:
            out.append(_tuple(ev.JobFailed, (job, hours[j])))
        if nomenklatura:
            assert trump is not None
            effect = _nomenklatura(g.workers[j], trump, job, north, out, replaces)
            if effect is None:
                continue
            count, lose, informer = effect
        else:
            count, lose, informer = _PLAIN
        # The Queen makes everyone show all their matching cards.
        seats = everyone if informer and hero is None else rule.exposed
        losses = _reveal(g, j, seats, count, lose, reveal, highest and not informer, each, out)
        if not each:
            losses.sort(key=_CARD_OF_LOSS, reverse=True)
            del losses[count if lose < 0 else lose:]
        if not losses and lose != 0 and out is not None:
            # (lose 0: the Drunkard went instead of the one card)
            out.append(_tuple(ev.NothingRequisitioned, (job,)))
        for s, c in losses:
            plots[s].remove(c)
            face_up.discard(c)
            north.append(c)
            if out is not None:
                out.append(_tuple(ev.CardSentNorth, (s, job, CARDS[c])))


def _reveal(
    g: GameData, j: int, seats: tuple[int, ...], count: int, lose: int, reveal: Reveal,
    only_highest: bool, each: bool, out: list[ev.Event] | None,
) -> list[tuple[int, int]]:
    """What the ``seats`` searched for failed job ``j`` reveal (reported to ``out``) and
    which of their cards can go north, as (seat, card), highest first by seat: with ``each``
    already cut to each seat's share, else all of them (the caller keeps the highest)."""
    job = SUITS[j]
    plots = g.plots
    face_up = g.face_up
    whole_plot = reveal is _PLOT
    lo, hi = _WORKER_IDS[j]
    losses: list[tuple[int, int]] = []
    for s in seats:
        plot = plots[s]
        # The seat's matching cards: plot workers of the job's suit, highest first
        # (rewards never count). Only this job's suit leaves the plots here, so reading
        # them job by job sees what reading them all before the first job would.
        mine = [c for c in plot if lo <= c < hi]
        if whole_plot:
            new = [c for c in plot if c not in face_up]
        elif not mine:
            continue
        else:
            mine.sort(reverse=True)
            new = [c for c in mine if c not in face_up]
            if only_highest:
                del new[count:]
        if new:
            face_up.update(new)
            if out is not None:
                new.sort()
                out.append(_tuple(ev.CardsRevealed, (s, job, tuple([CARDS[c] for c in new]))))
        if not mine:
            continue
        if whole_plot:
            mine.sort(reverse=True)
        # Only what everyone has now seen can be taken: a card left hidden stays. The
        # losses are told after every reveal of the job.
        seen = [(s, c) for c in mine if c in face_up]
        if each:
            del seen[count if lose < 0 else lose:]
        losses.extend(seen)
    return losses
