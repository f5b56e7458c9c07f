"""``event_from_dict`` beside ``event_to_dict``: every event type reads back equal, through
JSON, and anything that is not an event's JSON form is refused."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine import PRESETS, Game, event_from_dict, event_to_dict, preset
from engine import events as ev
from engine.ai import default_action
from engine.cards import CARDS, Suit

C = CARDS
#: One of each event type, with every kind of field (None and empty tuples included).
SAMPLES: list[ev.Event] = [
    ev.YearStarted(2, 1, 5, True, False, (C[4], C[17]), True),
    ev.YearStarted(1, 0, 5, False, False, ()),
    ev.TrumpDeclared(3, Suit.S),
    ev.PassChosen(1),
    ev.CardsPassed(2, True),
    ev.SwapDecided(0, False),
    ev.CardPlayed(2, C[51]),
    ev.TrickWon(1, (C[9], C[10], C[22])),
    ev.CardAssigned(1, C[9], Suit.D, 21),
    ev.JobCompleted(Suit.H, 1, (C[0], C[1]), None, 0),
    ev.JobCompleted(Suit.C, 2, (), C[30], 3),
    ev.CardsToPlot(4),
    ev.HeroNamed(3, 2),
    ev.MiceRuleApplied(5),
    ev.JobFailed(Suit.C, 12),
    ev.DrunkardSentNorth(Suit.D, C[23]),
    ev.CardsRevealed(0, Suit.S, (C[45], C[50])),
    ev.CardSentNorth(3, Suit.H, C[12]),
    ev.NothingRequisitioned(Suit.D),
    ev.StacksReturned(2, 3),
    ev.YearEnded(5),
    ev.GameOver((40, 51, 12), (1,), True),
]


def _through_json(e: ev.Event) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(event_to_dict(e)))
    return out


def test_every_event_type_has_a_sample() -> None:
    assert {type(e) for e in SAMPLES} == set(ev.Event.__args__)


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_every_event_type_reads_back_equal(event: ev.Event) -> None:
    back = event_from_dict(_through_json(event))
    assert back == event and type(back) is type(event)
    assert event_to_dict(back) == event_to_dict(event)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_events_of_playouts_read_back_equal(name: str) -> None:
    rules = dataclasses.replace(preset(name), pass_cards=True, hero=True)
    seen = set()
    for seed in range(3):
        rng = random.Random(seed)
        g = Game.new(rules, 3 + seed % 3, seed)
        while not g.is_over:
            seat = g.to_act[0]
            legal = g.legal_actions(seat)
            action = (legal[rng.randrange(len(legal))] if rng.random() < 0.3
                      else default_action(g, seat))
            for e in g.apply(seat, action):
                seen.add(type(e))
                assert event_from_dict(_through_json(e)) == e
    assert ev.GameOver in seen and ev.CardSentNorth in seen


def test_a_field_with_a_default_may_be_missing() -> None:
    data = _through_json(ev.YearStarted(1, 0, 5, False, False, (), False))
    del data["short"]
    assert event_from_dict(data) == ev.YearStarted(1, 0, 5, False, False, ())


@pytest.mark.parametrize("data", [
    {},
    {"type": "Nothing"},
    {"type": "CardPlayed", "seat": 1},
    {"type": "CardPlayed", "seat": 1, "card": "XX"},
    {"type": "CardPlayed", "seat": "1", "card": "10H"},
    {"type": "CardPlayed", "seat": True, "card": "10H"},
    {"type": "CardPlayed", "seat": 1, "card": "10H", "extra": 0},
    {"type": "TrumpDeclared", "seat": 1, "suit": "Q"},
    {"type": "TrickWon", "seat": 1, "cards": "10H"},
    {"type": "SwapDecided", "seat": 1, "swapped": 1},
    ["CardPlayed"],
])
def test_what_is_not_an_event_is_refused(data: Any) -> None:
    with pytest.raises(ValueError):
        event_from_dict(data)
