"""RULES.md "Options at a glance" and "Presets": every field, every preset's values, and every
preset playable from start to finish with 3, 4 and 5 players; saving and replaying games."""

from __future__ import annotations

import random
from dataclasses import fields, replace

import pytest

from engine import PRESETS, Game, Rules, preset, preset_name
from engine.ai import RandomPlayer, default_action
from tests.engine.invariants import check_conservation

NAMES = ["classic", "original", "kolkhoz", "kolkhoznik", "zone"]

# The presets table of RULES.md, column by column.
TABLE = {
    "classic": dict(deck=52, threshold=40, first_lead="left_of_planner",
                    trump_lead_restricted=True, assignment="suit", reward="brigadier",
                    accumulate_rewards=False, requisition="brigadiers", losers="each",
                    mice_fallback=False, nomenklatura=True, famine=False, swap=False,
                    medals_score=False),
    "original": dict(deck=52, threshold=36, first_lead="left_of_planner",
                     trump_lead_restricted=False, assignment="suit", reward="brigadier",
                     accumulate_rewards=False, requisition="brigadiers", losers="highest",
                     mice_fallback=False, nomenklatura=True, famine=False, swap=False,
                     medals_score=False),
    "kolkhoz": dict(deck=52, threshold=40, first_lead="planner", trump_lead_restricted=False,
                    assignment="present", reward="brigadier", accumulate_rewards=True,
                    requisition="brigadiers", losers="each", mice_fallback=True,
                    nomenklatura=True, famine=True, swap=True, medals_score=False),
    "kolkhoznik": dict(deck=36, threshold=40, first_lead="planner",
                       trump_lead_restricted=False, assignment="present", reward="stack",
                       requisition="brigadiers", losers="each", mice_fallback=True,
                       nomenklatura=True, famine=False, swap=True, medals_score=False),
    "zone": dict(deck=36, threshold=40, first_lead="planner", trump_lead_restricted=False,
                 assignment="present", reward="none", requisition="everyone",
                 losers="highest", nomenklatura=True, famine=False, swap=True,
                 medals_score=False),
}


@pytest.mark.parametrize("name", NAMES)
def test_preset_matches_rules_table(name: str) -> None:
    rules = preset(name)
    for key, value in TABLE[name].items():
        assert getattr(rules, key) == value, f"{name}.{key}"
    assert rules.years == 5


def test_preset_themes() -> None:
    """theme jobs for seeds 000/002, fields for seed 001."""
    assert preset("classic").theme == "jobs" and preset("original").theme == "jobs"
    for name in ("kolkhoz", "kolkhoznik", "zone"):
        assert preset(name).theme == "fields"


def test_rules_has_every_option_of_the_table() -> None:
    names = {f.name for f in fields(Rules)}
    assert {"deck", "theme", "years", "threshold", "first_lead", "trump_lead_restricted",
            "assignment", "reward", "accumulate_rewards", "requisition", "losers",
            "nomenklatura", "famine", "mice_fallback", "swap", "medals_score"} <= names


def test_preset_names() -> None:
    assert set(PRESETS) == set(NAMES)
    for name in NAMES:
        assert preset_name(preset(name)) == name
        assert preset_name(replace(preset(name), medals_score=True)) == name
    assert preset_name(replace(preset("classic"), threshold=41)) is None
    with pytest.raises(ValueError):
        preset("nope")


@pytest.mark.parametrize(
    "bad",
    [dict(deck=40), dict(threshold=0), dict(years=0), dict(first_lead="dealer"),
     dict(assignment="any"), dict(reward="gold"), dict(requisition="some"),
     dict(losers="all"), dict(swap="yes"), dict(theme="farm")],
)
def test_rules_reject_bad_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        Rules(**bad)


def test_rules_round_trip_through_dict() -> None:
    for name in NAMES:
        r = replace(preset(name), medals_score=True)
        assert Rules.from_dict(r.to_dict()) == r
    with pytest.raises(ValueError):
        Rules.from_dict({"bogus": 1})


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("name", NAMES)
def test_every_preset_plays_to_the_end(name: str, players: int, seed: int) -> None:
    """Every preset MUST be playable from start to finish, with 3, 4 and 5 players."""
    g = Game.new(preset(name), players=players, seed=seed)
    rnd = RandomPlayer(seed)
    steps = 0
    while not g.is_over:
        seat = g.to_act[0]
        action = default_action(g, seat) if seed % 2 else rnd(g, seat)
        g.apply(seat, action)
        steps += 1
        if steps % 7 == 0:
            check_conservation(g)
        assert steps < 2000
    check_conservation(g)
    assert 1 <= g.year <= 5
    assert g.year == 5 or g.ended_early
    assert len(g.scores()) == players and g.winners()


def test_game_rejects_bad_player_counts() -> None:
    for n in (2, 6):
        with pytest.raises(ValueError):
            Game.new(preset("classic"), players=n, seed=1)
    with pytest.raises(ValueError):
        Game.new(preset("classic"), players=4, seed=1, planner=4)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_game_and_replay(name: str) -> None:
    """Deterministic from the seed; Game.replay(rules, players, seed, log) rebuilds it."""
    rules = preset(name)
    g = Game.new(rules, players=4, seed="replay")
    rng = random.Random(1)
    while not g.is_over:
        seat = rng.choice(g.to_act)
        g.apply(seat, rng.choice(g.legal_actions(seat)))
    again = Game.replay(rules, 4, "replay", g.log)
    assert again.to_json() == g.to_json()
    assert again.scores() == g.scores()


@pytest.mark.parametrize("name", NAMES)
def test_snapshot_mid_game_continues_identically(name: str) -> None:
    """to_json / from_json: a restored game continues exactly like the original."""
    g = Game.new(preset(name), players=4, seed=33)
    for _ in range(23):
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    h = Game.from_json(g.to_json())
    assert h.to_json() == g.to_json()
    while not g.is_over:
        seat = g.to_act[0]
        a = default_action(g, seat)
        assert h.to_act == g.to_act
        assert h.legal_actions(seat) == g.legal_actions(seat)
        g.apply(seat, a)
        h.apply(seat, a)
    assert h.to_json() == g.to_json()
