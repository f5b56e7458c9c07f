"""RULES.md "Options at a glance": every option is a field of Rules and every combination must
play; famine in year 1; option-specific behaviour not covered by the per-step files."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import Game, Phase, Rules, preset
from engine import events as ev
from engine.ai import RandomPlayer
from tests.engine.invariants import check_conservation
from tests.engine.scripted import act, events_of

CHOICES = {
    "deck": [52, 36],
    "theme": ["jobs", "fields"],
    "years": [1, 3, 5, 7],
    "threshold": [20, 36, 40, 60],
    "first_lead": ["left_of_planner", "planner"],
    "trump_lead_restricted": [False, True],
    "assignment": ["suit", "present"],
    "reward": ["brigadier", "none", "stack"],
    "accumulate_rewards": [False, True],
    "requisition": ["brigadiers", "everyone"],
    "losers": ["each", "highest"],
    "nomenklatura": [False, True],
    "famine": [False, True],
    "mice_fallback": [False, True],
    "swap": [False, True],
    "medals_score": [False, True],
}


@pytest.mark.parametrize("k", range(40))
def test_random_option_combinations_play_to_the_end(k: int) -> None:
    """Any combination of options gives a game that runs to its end with cards conserved."""
    rng = random.Random(f"combo{k}")
    rules = Rules(**{name: rng.choice(values) for name, values in CHOICES.items()})
    players = rng.choice([3, 4, 5])
    g = Game.new(rules, players=players, seed=k)
    player = RandomPlayer(k)
    years_started = 1
    steps = 0
    while not g.is_over:
        seat = rng.choice(g.to_act)
        events = act(g, (seat, str(player(g, seat))), check=False)
        years_started += len(events_of(events, ev.YearStarted))
        steps += 1
        if steps % 5 == 0:
            check_conservation(g)
    check_conservation(g)
    assert years_started == g.year
    assert g.year == rules.years or g.ended_early
    if not rules.medals_score:
        assert g.scores() == [sum(x % 13 + 1 for x in p) for p in g.plots]


def test_famine_can_strike_in_year_one() -> None:
    """The Ace of Clubs revealed at the very first plan makes year 1 a famine year: 4 cards,
    lean, no trump phase (kolkhoz: no swap in year 1, so play starts with the Planner)."""
    found = 0
    for seed in range(200):
        g = Game.new(preset("kolkhoz"), players=4, seed=seed, planner=1)
        if any(x == 2 * 13 for x in g.rewards[2]):  # AC visible
            found += 1
            assert g.famine and g.lean and g.hand_size == 4 and g.trump is None
            assert g.phase is Phase.PLAY and g.to_act == [1]
        else:
            assert not g.famine and g.hand_size == 5 and g.phase is Phase.TRUMP
    assert found > 0


def test_ace_of_clubs_in_year_one_without_famine_option() -> None:
    for seed in range(200):
        g = Game.new(replace(preset("kolkhoz"), famine=False), players=4, seed=seed)
        assert not g.famine and g.hand_size == 5


def test_year_one_reveals_one_reward_per_job() -> None:
    """52-card deck: year 1's plan shows one reward card on each job; 4 left per pile."""
    g = Game.new(preset("classic"), players=4, seed=6)
    assert [len(r) for r in g.rewards] == [1, 1, 1, 1]
    assert [len(p) for p in g.reward_piles] == [4, 4, 4, 4]
    for j in range(4):
        (card,) = g.rewards[j]
        assert card // 13 == j and card % 13 < 5  # the job's own suit, A-5


def test_reward_piles_shuffled_separately_per_seed() -> None:
    tops = {tuple(tuple(Game.new(preset("classic"), 4, seed=s).rewards[j]) for j in range(4))
            for s in range(30)}
    assert len(tops) > 10
