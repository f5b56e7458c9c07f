"""Random playouts of every preset for 3, 4 and 5 players, checking invariants on every step.

Like OpenSpiel's random_sim_test: cards are conserved, views never leak, ``legal_actions`` and
``apply`` agree in both directions, JSON snapshots continue identically and the log replays.
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from engine import PRESETS, Action, ActionError, Game, IllegalAction, InvalidAction, preset
from engine import events as ev
from engine.actions import N_CODES
from engine.ai import default_action
from tests.engine.invariants import check_conservation, check_view
from tests.engine.oracle import checked_apply, requisition_snapshots

SEEDS = range(6)
COMBOS = [(name, n) for name in PRESETS for n in (3, 4, 5)]


def _choose(g: Game, seat: int, rng: random.Random, heuristic: bool) -> Action:
    if heuristic:
        return default_action(g, seat)
    legal = g.legal_actions(seat)
    return legal[rng.randrange(len(legal))]


def _check_step(g: Game, rng: random.Random) -> None:
    check_conservation(g)
    for seat in [*range(g.n), None]:
        check_view(g, seat)
    to_act = g.to_act
    for seat in range(g.n):
        legal = g.legal_actions(seat)
        assert bool(legal) == (seat in to_act), (seat, to_act, legal)
        assert len(set(legal)) == len(legal), "duplicate legal actions"
        codes = {a.code for a in legal}
        # Everything offered applies cleanly (on copies, a sample of it).
        for a in rng.sample(legal, min(2, len(legal))):
            assert g.is_legal(seat, a) and g.why_illegal(seat, a) is None
            copy = g.copy()
            copy.apply(seat, a)
            assert copy.log[-1] == (seat, str(a))
        # Everything not offered is refused, and leaves the game exactly as it was.
        before = g.to_json()
        for _ in range(4):
            code = rng.randrange(N_CODES)
            if code in codes:
                continue
            a = Action.from_code(code)
            with pytest.raises(IllegalAction):
                g.apply(seat, a)
            assert not g.is_legal(seat, a)
        assert g.to_json() == before


@pytest.mark.parametrize(("name", "players"), COMBOS)
def test_random_playouts_keep_invariants(name: str, players: int) -> None:
    rules = preset(name)
    for seed in SEEDS:
        rng = random.Random(f"{name}/{players}/{seed}")
        heuristic = seed % 2 == 1
        g = Game.new(rules, players, seed)
        snapshot_at = rng.randrange(40, 120)
        fork: Game | None = None
        steps = 0
        while not g.is_over:
            _check_step(g, rng)
            seat = rng.choice(g.to_act)
            action = _choose(g, seat, rng, heuristic)
            if steps == snapshot_at:
                fork = Game.from_json(json.loads(json.dumps(g.to_json())))
            events = g.apply(seat, action)
            if fork is not None:
                assert fork.apply(seat, action) == events
            steps += 1
        _check_step(g, rng)
        assert g.legal_actions(0) == []
        assert len(g.winners()) >= 1
        assert g.scores() == g.view(None)["scores"]
        replayed = Game.replay(rules, players, seed, g.log, planner=g.planner0)
        assert replayed == g
        if fork is not None:
            assert fork == g


def test_exhaustive_legality_on_sampled_states() -> None:
    """For sampled states of several presets, every one of the action codes is checked:
    offered by legal_actions exactly when apply accepts it."""
    rng = random.Random(5)
    for name in ("classic", "kolkhoz", "kolkhoznik"):
        g = Game.new(preset(name), 4, seed=11)
        step = 0
        while not g.is_over:
            if step % 9 == 0:
                for seat in range(g.n):
                    legal = {a.code for a in g.legal_actions(seat)}
                    for code in range(N_CODES):
                        a = Action.from_code(code)
                        if code in legal:
                            g.copy().apply(seat, a)
                        else:
                            assert g.why_illegal(seat, a) is not None
            seat = g.to_act[0]
            g.apply(seat, _choose(g, seat, rng, heuristic=False))
            step += 1


def test_games_are_deterministic_for_a_seed() -> None:
    a = Game.new(preset("kolkhoz"), 4, seed=99)
    b = Game.new(preset("kolkhoz"), 4, seed=99)
    c = Game.new(preset("kolkhoz"), 4, seed=100)
    assert a == b
    assert a.to_json()["state"]["hands"] != c.to_json()["state"]["hands"]
    while not a.is_over:
        seat = a.to_act[0]
        action = default_action(a, seat)
        assert a.apply(seat, action) == b.apply(seat, action)
    assert a == b


@pytest.mark.parametrize("name", list(PRESETS))
def test_medals_score_combines_with_every_preset(name: str) -> None:
    rules = dataclasses.replace(preset(name), medals_score=True)
    plain = Game.new(preset(name), 4, seed=3)
    scored = Game.new(rules, 4, seed=3)
    while not plain.is_over:
        seat = plain.to_act[0]
        action = default_action(plain, seat)
        plain.apply(seat, action)
        scored.apply(seat, action)
    assert scored.is_over
    assert scored.scores() == [p + m for p, m in zip(plain.scores(), plain.medals, strict=True)]
    assert sum(plain.medals) > 0


def test_errors_are_value_errors_and_leave_the_game_alone() -> None:
    g = Game.new(preset("classic"), 4, seed=1, planner=0)
    before = g.to_json()
    for bad in ("", "play", "play:", "play:1H", "play:10X", "dance:10H", "assign:10H", "swap:9H"):
        with pytest.raises(InvalidAction):
            g.apply(0, bad)
    for seat in (1, 2, 3, 7, -1):
        with pytest.raises(ActionError):
            g.apply(seat, "trump:H")
    assert issubclass(InvalidAction, ValueError) and issubclass(IllegalAction, ValueError)
    assert g.to_json() == before


@pytest.mark.parametrize(("name", "players"), COMBOS)
def test_many_seeds_conserve_cards_and_replay(name: str, players: int) -> None:
    """A wider, lighter sweep: 100 seeds per setup, cards conserved after every action, the
    public view checked every few actions, and every finished game replays from its log."""
    rules = preset(name)
    rng = random.Random(f"wide/{name}/{players}")
    for seed in range(100, 200):
        g = Game.new(rules, players, seed)
        step = 0
        while not g.is_over:
            seat = rng.choice(g.to_act)
            g.apply(seat, _choose(g, seat, rng, heuristic=seed % 3 == 0))
            check_conservation(g)
            if step % 7 == 0:
                check_view(g, None)
                check_view(g, seat)
            step += 1
        assert Game.replay(rules, players, seed, g.log, planner=g.planner0) == g


HOUSE_RULES = [{"hero": True}, {"pass_cards": True}, {"pass_cards": True, "hero": True},
               {"drunkard": "replaces"}, {"drunkard": "cancels"}]


@pytest.mark.parametrize("house", HOUSE_RULES,
                         ids=lambda h: "-".join(f"{k}={v}" for k, v in h.items()))
@pytest.mark.parametrize("name", ["classic", "original", "kolkhoz", "kolkhoznik", "zone"])
def test_house_rules_follow_the_rules_at_every_step(name: str, house: dict[str, object]) -> None:
    """Every preset with each revision-4 house rule on (the pass, the Hero, both, or its
    Drunkard the other way), 4 players, held against the oracle from deal to final score."""
    rules = dataclasses.replace(preset(name), **house)  # type: ignore[arg-type]
    heroes = passes = later_years = 0
    with requisition_snapshots() as snapshots:
        for seed in range(16):
            rng = random.Random(f"house/{name}/{house}/{seed}")
            g = Game.new(rules, 4, seed)
            while not g.is_over:
                seat = rng.choice(g.to_act)
                events = checked_apply(g, seat, _choose(g, seat, rng, heuristic=seed % 2 == 0),
                                       snapshots)
                heroes += sum(isinstance(e, ev.HeroNamed) for e in events)
                passes += sum(isinstance(e, ev.CardsPassed) for e in events)
                later_years += sum(isinstance(e, ev.YearStarted) for e in events)
            assert g.scores() == [sum(c % 13 + 1 for c in plot) for plot in g.plots]
    # The Hero came up (where the rule applies: Brigadiers searched, reward cards).
    assert (heroes > 0) == (house.get("hero") is True and name in ("classic", "original",
                                                                    "kolkhoz"))
    # The pass came every year from the second (the first is dealt before any move).
    assert passes == (later_years if house.get("pass_cards") else 0) and later_years >= 16


@pytest.mark.parametrize("medals", [False, True])
@pytest.mark.parametrize(("name", "players"), COMBOS)
def test_playouts_follow_the_rules_at_every_step(name: str, players: int, medals: bool) -> None:
    """Seeded games of every preset × 3/4/5 players × medals, every step held against an
    independent reading of RULES.md (tests/engine/oracle.py): trick winners, assignment
    choices, hand sizes, and each year's requisition."""
    rules = dataclasses.replace(preset(name), medals_score=medals)
    with requisition_snapshots() as snapshots:
        for seed in range(8):
            rng = random.Random(f"oracle/{name}/{players}/{seed}")
            g = Game.new(rules, players, seed)
            while not g.is_over:
                seat = rng.choice(g.to_act)
                checked_apply(g, seat, _choose(g, seat, rng, heuristic=seed % 2 == 0),
                              snapshots)
            assert g.scores() == [
                sum(c % 13 + 1 for c in plot) + (g.medals[s] if medals else 0)
                for s, plot in enumerate(g.plots)
            ]


@pytest.mark.parametrize("house", [{}, *HOUSE_RULES],
                         ids=lambda h: "-".join(f"{k}={v}" for k, v in h.items()) or "plain")
@pytest.mark.parametrize("name", list(PRESETS))
def test_apply_fast_leaves_the_state_apply_does(name: str, house: dict[str, object]) -> None:
    """The search's ``apply_fast`` builds no events; everything else must be as ``apply``
    leaves it, at every step (a state change hidden among the events would show here),
    for 3 to 5 players, random and heuristic moves."""
    rules = dataclasses.replace(preset(name), **house)  # type: ignore[arg-type]
    for seed in range(6):
        rng = random.Random(f"fast/{name}/{house}/{seed}")
        g = Game.new(rules, 3 + seed % 3, seed)
        fast = g.copy()
        while not g.is_over:
            seat = rng.choice(g.to_act)
            action = _choose(g, seat, rng, heuristic=seed % 2 == 0)
            g.apply(seat, action)
            fast.apply_fast(seat, action)
            state, fast_state = g.to_json(), fast.to_json()
            # The move counter is the log's; apply_fast keeps no log.
            state.pop("moves", None)
            fast_state.pop("moves", None)
            assert fast_state == state
