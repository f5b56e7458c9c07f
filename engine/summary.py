"""What the table is told of a year's end, decided by the engine (hidden information is its
business, not the front ends'):

- :func:`closing_trick`: the year's last trick as the public may see it. The new deal takes
  the trick's record away, so it is read from the public view just before the closing
  assignment: who played what (every card lay face up on the table, so each is named, though
  the new deal may since have put it in a hand), who took it, which job each card went to,
  and the year's earlier tricks as the public view keeps them.
- :func:`requisition_summary` / :func:`fold_requisitions`: each failed job's requisition in
  one typed record (:class:`JobRequisition`: its hours, the Drunkard, the cards sent north
  and whose, the cards shown that stay face up), read from the events :meth:`engine.Game.apply`
  returned, so no screen rebuilds it from the events one by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.cards import CARD_TEXT, Card, Suit
from engine.views import TrickView, View


def _text(card: Card | None) -> str | None:
    return None if card is None else CARD_TEXT[card.id]


@dataclass(frozen=True, slots=True)
class ClosingTrick:
    """The year's last trick as the group may see it (see :func:`closing_trick`)."""

    winner: int | None  # the trick's Brigadier
    cards: tuple[tuple[int, Card], ...]  # (seat, card) in play order
    jobs: tuple[Suit | None, ...]  # the job each card went to, in the same order
    earlier: tuple[TrickView, ...]  # the year's earlier tricks, masked as the public view has them

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"winner", "cards": [[seat, card]], "jobs": [letter or null],
        "earlier": [{"cards": [[seat, card or null]], "winner"}]}``."""
        return {
            "winner": self.winner,
            "cards": [[s, CARD_TEXT[c.id]] for s, c in self.cards],
            "jobs": [None if j is None else j.letter for j in self.jobs],
            "earlier": [
                {"cards": [[s, _text(c)] for s, c in t.cards], "winner": t.winner}
                for t in self.earlier
            ],
        }

    @property
    def where(self) -> dict[Card, Suit]:
        """The job each card of the trick went to (cards that went to none left out)."""
        return {c: j for (_s, c), j in zip(self.cards, self.jobs, strict=True) if j is not None}


def closing_trick(public: View, events: Iterable[ev.Event]) -> ClosingTrick:
    """The trick on the table in ``public`` (the public view just before the assignment that
    closes it, :meth:`engine.Game.typed_view` of None) once ``events`` (what that assignment
    returned) happened: its cards, its Brigadier and the job each card went to (the workers
    on the jobs, and the card placed by the closing move itself)."""
    jobs = {c: job.suit for job in public.jobs for c in job.workers}
    for e in events:
        if isinstance(e, ev.CardAssigned):
            jobs.setdefault(e.card, e.job)
    return ClosingTrick(
        winner=public.brigadier,
        cards=public.trick,
        jobs=tuple(jobs.get(c) for _s, c in public.trick),
        earlier=public.tricks,
    )


@dataclass(frozen=True, slots=True)
class JobRequisition:
    """One failed job's requisition, everything in it public."""

    job: Suit
    hours: int  # the hours the job had when it failed
    drunkard: Card | None = None  # the trump Jack sent north from its workers (nomenklatura)
    north: tuple[tuple[int, Card], ...] = ()  # (seat, card) sent north from the plots, in order
    #: Cards turned face up in the search that stay face up (not sent north), by seat in the
    #: order the seats showed them.
    shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()
    nothing: bool = False  # nobody searched had a card to lose (NothingRequisitioned)
    hero: int | None = None  # the year's Hero (house rule), searched for nothing
    mice: bool = False  # the whole mice rule applied this year

    @property
    def lost(self) -> int:
        """Cards that went north for this job, the Drunkard included."""
        return len(self.north) + (self.drunkard is not None)


#: The events that belong to one failed job's requisition.
_JOB_EVENTS = (ev.JobFailed, ev.DrunkardSentNorth, ev.CardsRevealed, ev.CardSentNorth,
               ev.NothingRequisitioned)
_JobEvent = (ev.JobFailed | ev.DrunkardSentNorth | ev.CardsRevealed | ev.CardSentNorth
             | ev.NothingRequisitioned)


class _Job:
    """A failed job's record as its events are read."""

    def __init__(self, job: Suit, hero: int | None, mice: bool) -> None:
        self.job, self.hero, self.mice = job, hero, mice
        self.hours = 0
        self.drunkard: Card | None = None
        self.north: list[tuple[int, Card]] = []
        self.shown: dict[int, list[Card]] = {}
        self.nothing = False

    def read(self, e: _JobEvent, north: frozenset[Card]) -> None:
        if isinstance(e, ev.JobFailed):
            self.hours = e.hours
        elif isinstance(e, ev.DrunkardSentNorth):
            self.drunkard = e.card
        elif isinstance(e, ev.CardSentNorth):
            self.north.append((e.seat, e.card))
        elif isinstance(e, ev.CardsRevealed):
            stay = [c for c in e.cards if c not in north]
            if stay:
                self.shown.setdefault(e.seat, []).extend(stay)
        else:
            self.nothing = True

    def record(self) -> JobRequisition:
        return JobRequisition(
            self.job, self.hours, self.drunkard, tuple(self.north),
            tuple((s, tuple(cs)) for s, cs in self.shown.items()), self.nothing, self.hero,
            self.mice,
        )


def fold_requisitions(events: Sequence[ev.Event]) -> list[ev.Event | JobRequisition]:
    """``events`` (a year's end, or any list :meth:`engine.Game.apply` returned) with each
    failed job's requisition events folded into one :class:`JobRequisition`, where the
    job's first such event was; every other event stays, in order."""
    north = frozenset(
        e.card for e in events if isinstance(e, ev.CardSentNorth | ev.DrunkardSentNorth))
    hero: int | None = None
    mice = False
    jobs: dict[Suit, _Job] = {}
    out: list[ev.Event | _Job] = []
    for e in events:
        if isinstance(e, ev.HeroNamed):
            hero = e.seat
        elif isinstance(e, ev.MiceRuleApplied):
            mice = True
        elif isinstance(e, ev.YearStarted):
            hero, mice = None, False
        if not isinstance(e, _JOB_EVENTS):
            out.append(e)
            continue
        job = jobs.get(e.job)
        if job is None:
            job = jobs[e.job] = _Job(e.job, hero, mice)
            out.append(job)
        job.read(e, north)
    return [x.record() if isinstance(x, _Job) else x for x in out]


def requisition_summary(events: Sequence[ev.Event]) -> tuple[JobRequisition, ...]:
    """Each failed job's requisition in ``events``, in the order the jobs were searched."""
    return tuple(x for x in fold_requisitions(events) if isinstance(x, JobRequisition))
