"""Explanations: every level names a reason for a legal move, the heuristic's reason comes
with exactly the move :func:`default_action` plays, and advice is as deterministic as the
choice it explains."""

from __future__ import annotations

import pytest

from engine import PRESETS, Game, preset
from engine.ai import LEVELS, Advice, AIPlayer, Reason, advise, default_action
from engine.ai.heuristic import decide, describe
from engine.cards import SUIT_OF
from engine.phase import Phase

PRESET_NAMES = sorted(PRESETS)


def _ai(level: str, seed: int = 0) -> AIPlayer:
    return AIPlayer(level, seed=seed, iterations=6 if level in ("strong", "hard") else None)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_every_level_gives_a_legal_move_with_a_reason(name: str) -> None:
    g = Game.new(preset(name), 4, seed=11)
    ais = [_ai(LEVELS[s % len(LEVELS)], seed=s) for s in range(4)]
    reasons: dict[str, set[Reason]] = {level: set() for level in LEVELS}
    steps = 0
    while not g.is_over and steps < 80:
        seat = g.to_act[0]
        ai = ais[seat]
        view = g.view(seat)
        advice = ai.advise(view)
        assert isinstance(advice, Advice) and isinstance(advice.reason, Reason)
        assert advice.action in g.legal_actions(seat)
        assert advice.action == ai.choose(view)  # the same choice, explained
        level = ai.level.name
        reasons[level].add(advice.reason)
        if level in ("strong", "hard") and advice.reason is not Reason.ONLY_MOVE:
            assert advice.value is not None and 0.0 <= advice.value <= 1.0
            assert advice.runner_up is not None and advice.runner_up != advice.action
            assert advice.runner_up in g.legal_actions(seat)
            assert advice.worlds > 0
        if level == "random" and advice.reason is not Reason.ONLY_MOVE:
            assert advice.reason is Reason.RANDOM
        g.apply(seat, advice.action)
        steps += 1
    assert reasons["normal"] - {Reason.ONLY_MOVE}


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_the_heuristic_with_its_reason_is_default_action(name: str) -> None:
    """decide() is default_action() with the branch named, on every decision of whole
    games; and describe() of the heuristic's own choice is its reason."""
    seen: set[Reason] = set()
    for seed in range(3):
        g = Game.new(preset(name), 3 + seed, seed=seed)
        while not g.is_over:
            seat = g.to_act[0]
            action, reason = decide(g, seat)
            assert action == default_action(g, seat)
            assert describe(g, seat, action) is reason
            seen.add(reason)
            for other in g.legal_actions(seat)[:4]:
                assert isinstance(describe(g, seat, other), Reason)
            g.apply(seat, action)
    assert len(seen) >= 5, seen


@pytest.mark.parametrize("level", LEVELS)
def test_advice_is_deterministic(level: str) -> None:
    g = Game.new(preset("classic"), 4, seed=5)
    for _ in range(12):  # into the first trick, past the trump
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    seat = g.to_act[0]
    view = g.view(seat)
    iterations = 6 if level in ("strong", "hard") else None
    first = advise(view, level, seed="s", iterations=iterations)
    again = advise(g.view(seat), level, seed="s", iterations=iterations)
    assert first == again
    assert first.action == AIPlayer(level, seed="s", iterations=iterations).choose(view)


def test_normal_advice_names_the_branch_that_fired() -> None:
    """The ``normal`` level's reason is the heuristic's, never a search figure."""
    g = Game.new(preset("classic"), 4, seed=2)
    while not g.is_over:
        seat = g.to_act[0]
        advice = advise(g.view(seat), "normal")
        assert advice.value is None and advice.runner_up is None
        assert advice.action == default_action(g, seat)
        g.apply(seat, advice.action)


@pytest.mark.parametrize(("name", "expected"), [("original", Reason.GIVE),
                                                ("classic", Reason.TAKE)])
def test_a_trump_on_a_side_lead_takes_the_trick_only_where_trump_wins(
    name: str, expected: Reason
) -> None:
    """The hint's words follow the rules: under seed 000 (``original``, no ``trump_wins``) a
    trump played on another suit's lead cannot take the trick, so it is described as giving
    it; where trump wins (``classic``) it takes it."""
    found = 0
    for seed in range(6):
        g = Game.new(preset(name), 4, seed=seed)
        while not g.is_over and found < 5:
            seat = g.to_act[0]
            chosen = default_action(g, seat)
            if (g.phase is Phase.PLAY and g.trick and g.trump is not None
                    and all(SUIT_OF[c] != g.trump for _, c in g.trick)):
                for other in g.legal_actions(seat):
                    if other != chosen and SUIT_OF[other.card_id] == g.trump:
                        assert describe(g, seat, other) is expected
                        found += 1
            g.apply(seat, chosen)
    assert found >= 5
