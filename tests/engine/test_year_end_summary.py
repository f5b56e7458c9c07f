"""The engine's account of a year's end: the closing trick as the public may see it
(``engine.summary.closing_trick``, what ``kolkhoz_tg/service/turn.py`` ``_closing_trick``
worked out from the public view) and each failed job's requisition in one record
(``fold_requisitions``, what ``kolkhoz_tg/texts.py`` ``requisition_lines`` rebuilt from event
dicts), checked against copies of that former logic over playouts of every preset and the
requisition options."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine import PRESETS, Game, Phase, Rules, event_to_dict, preset
from engine import events as ev
from engine.ai import default_action
from engine.cards import CARD_TEXT, CARDS, Suit
from engine.rules import Drunkard, Losers, Reveal
from engine.summary import (
    ClosingTrick,
    JobRequisition,
    closing_trick,
    fold_requisitions,
    requisition_summary,
)

# ---------------------------------------------------------------- the former logic, copied

def former_closing_trick(
    public: dict[str, Any] | None, events: list[ev.Event]
) -> dict[str, Any] | None:
    """kolkhoz_tg/service/turn.py ``_closing_trick`` as it was."""
    if public is None:
        return None
    jobs = {c: letter for letter, job in public["jobs"].items() for c in job["workers"]}
    for e in events:
        if isinstance(e, ev.CardAssigned):
            jobs.setdefault(CARD_TEXT[e.card.id], e.job.letter)
    return {
        "winner": public["brigadier"],
        "cards": public["trick"],
        "jobs": [jobs.get(c) for _s, c in public["trick"]],
        "earlier": public.get("tricks", []),
    }


_REQUISITION = frozenset({
    "JobFailed", "DrunkardSentNorth", "CardsRevealed", "CardSentNorth",
    "NothingRequisitioned", "NobodyExposed",
})


def former_requisition(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """kolkhoz_tg/texts.py ``requisition_lines`` as it was, its words left out: ("event", e)
    for another event (CardsToPlot and YearEnded skipped), ("job", record) where a failed job
    is told, the record holding what its sentences said."""
    north = {e["card"] for e in events if e["type"] in ("CardSentNorth", "DrunkardSentNorth")}
    jobs: dict[str, dict[str, Any]] = {}
    order: list[tuple[str, Any]] = []
    for e in events:
        kind = e["type"]
        if kind in ("CardsToPlot", "YearEnded"):
            continue
        if kind not in _REQUISITION:
            order.append(("event", e))
            continue
        if e["job"] not in jobs:
            jobs[e["job"]] = {"hours": None, "north": [], "drunkard": None, "shown": {}}
            order.append(("job", e["job"]))
        job = jobs[e["job"]]
        if kind == "JobFailed":
            job["hours"] = e["hours"]
        elif kind == "DrunkardSentNorth":
            job["drunkard"] = e["card"]
        elif kind == "CardSentNorth":
            job["north"].append((e["seat"], e["card"]))
        elif kind == "CardsRevealed":
            stay = [c for c in e["cards"] if c not in north]
            if stay:
                job["shown"].setdefault(e["seat"], []).extend(stay)
    out: list[tuple[str, Any]] = []
    for what, value in order:
        if what == "event":
            out.append((what, value))
            continue
        job = jobs[value]
        out.append(("job", {
            "job": value,
            "hours": job["hours"] if job["hours"] is not None else 0,
            "drunkard": job["drunkard"],
            "north": job["north"],
            "shown": list(job["shown"].items()),
        }))
    return out


def typed_requisition(events: list[ev.Event]) -> list[tuple[str, Any]]:
    """The same outline from :func:`fold_requisitions`."""
    out: list[tuple[str, Any]] = []
    for x in fold_requisitions(events):
        if isinstance(x, JobRequisition):
            out.append(("job", {
                "job": x.job.letter,
                "hours": x.hours,
                "drunkard": None if x.drunkard is None else str(x.drunkard),
                "north": [(s, str(c)) for s, c in x.north],
                "shown": [(s, [str(c) for c in cs]) for s, cs in x.shown],
            }))
        elif not isinstance(x, ev.CardsToPlot | ev.YearEnded):
            out.append(("event", event_to_dict(x)))
    return out


# ---------------------------------------------------------------- playouts

def _rules() -> Iterator[Rules]:
    for name in sorted(PRESETS):
        yield preset(name)
    base = preset("classic")
    for drunkard, reveal, losers, hero, mice in itertools.product(
        Drunkard, Reveal, Losers, (False, True), (False, True)
    ):
        yield dataclasses.replace(base, drunkard=drunkard, reveal=reveal, losers=losers,
                                  hero=hero, mice_fallback=mice, pass_cards=hero)


RULES = list(_rules())


def _year_ends(rules: Rules, players: int, seed: int) -> Iterator[tuple[Game, Any, list[ev.Event]]]:
    """Every move that ends a year: the game after it, the public views (JSON, typed) just
    before it, and its events."""
    rng = random.Random(seed)
    g = Game.new(rules, players, seed)
    while not g.is_over:
        seat = g.to_act[0]
        before = None
        if g.phase is Phase.ASSIGN and len(g.pending) == 1:
            before = (g.view(None), g.typed_view(None))
        legal = g.legal_actions(seat)
        action = legal[rng.randrange(len(legal))] if rng.random() < 0.3 else default_action(g, seat)
        events = g.apply(seat, action)
        if any(isinstance(e, ev.YearEnded) for e in events):
            yield g, before, events


@pytest.mark.parametrize("index", range(len(RULES)))
def test_the_engine_tells_a_years_end_as_the_service_and_texts_did(index: int) -> None:
    rules = RULES[index]
    kinds: set[type] = set()
    for players, seed in ((3, index), (4, index + 100), (5, index + 200)):
        for _g, before, events in _year_ends(rules, players, seed):
            kinds.update(type(e) for e in events)
            if before is not None:
                public, typed = before
                closing = closing_trick(typed, events)
                assert isinstance(closing, ClosingTrick)
                former = former_closing_trick(json.loads(json.dumps(public)), events)
                assert json.dumps(closing.to_dict()) == json.dumps(former)
                assert {str(c): j.letter for c, j in closing.where.items()} == {
                    c: j for (_s, c), j in zip(former["cards"], former["jobs"], strict=True)
                    if j}
            dicts = [event_to_dict(e) for e in events]
            assert typed_requisition(events) == former_requisition(dicts)
            assert requisition_summary(events) == tuple(
                x for x in fold_requisitions(events) if isinstance(x, JobRequisition))
    assert ev.JobFailed in kinds


def test_a_job_record_holds_the_hero_the_mice_and_what_was_lost() -> None:
    c = CARDS
    events: list[ev.Event] = [
        ev.CardsToPlot(2),
        ev.HeroNamed(2, 1),
        ev.JobFailed(Suit.H, 12),
        ev.DrunkardSentNorth(Suit.H, c[10]),
        ev.CardsRevealed(0, Suit.H, (c[5], c[7])),
        ev.CardsRevealed(2, Suit.H, (c[6],)),
        ev.CardSentNorth(0, Suit.H, c[7]),
        ev.JobFailed(Suit.S, 30),
        ev.NothingRequisitioned(Suit.S),
        ev.StacksReturned(0, 2),
        ev.YearEnded(2),
    ]
    folded = fold_requisitions(events)
    assert [type(x).__name__ for x in folded] == [
        "CardsToPlot", "HeroNamed", "JobRequisition", "JobRequisition", "StacksReturned",
        "YearEnded"]
    hearts, spades = requisition_summary(events)
    assert hearts == JobRequisition(Suit.H, 12, c[10], ((0, c[7]),),
                                    ((0, (c[5],)), (2, (c[6],))), False, 1, False)
    assert hearts.lost == 2
    assert spades == JobRequisition(Suit.S, 30, nothing=True, hero=1)
    assert spades.lost == 0
    mice = requisition_summary([ev.MiceRuleApplied(3), ev.JobFailed(Suit.D, 0)])
    assert mice == (JobRequisition(Suit.D, 0, mice=True),)
