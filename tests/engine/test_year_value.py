"""The fitted value of a year's end (engine.ai.value): shipped weights for every preset and
horizon, shares that are a distribution over the seats and grow with a seat's points, and a
search scored by it that still plays every preset legally and learns nothing the seat
cannot see. benchmarks/fit_value.py, which makes the weights, runs end to end on a few
games."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from engine import PRESETS, Game, preset
from engine.ai.search import SearchParams
from engine.ai.value import FEATURES, VALUE_FILE, table_features, year_value
from tests.engine.scripted import decision_states, twin_searches

ROOT = Path(__file__).resolve().parents[2]
PRESET_NAMES = sorted(PRESETS)


def year_start(name: str, players: int, seed: int, year: int) -> Game:
    """A game of ``name`` played by the heuristic to the start of ``year``."""
    from engine.ai import default_action

    g = Game.new(preset(name), players, seed=seed)
    while g.year < year and not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, g.forced_action(seat) or default_action(g, seat))
    assert not g.is_over
    return g


def test_the_shipped_weights_cover_every_preset_and_horizon() -> None:
    data = json.loads(VALUE_FILE.read_text(encoding="utf-8"))
    assert data["features"] == list(FEATURES)
    for name in PRESET_NAMES:
        by_left = data["weights"][name]
        assert sorted(map(int, by_left)) == list(range(1, preset(name).years))
        for w in by_left.values():
            assert len(w) == len(FEATURES)
            assert max(abs(v) for v in w) > 0.2  # learned, not zeros


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_shares_are_a_distribution_over_the_seats(name: str, players: int) -> None:
    value = year_value()
    for year in (2, 3):  # (a short deck may end a game of five before its last year)
        g = year_start(name, players, seed=players + year, year=year)
        shares = [value.win_share(g, s) for s in range(players)]
        assert all(s is not None and 0.0 < s < 1.0 for s in shares)
        assert math.isclose(sum(shares), 1.0)  # type: ignore[arg-type]


def test_more_safe_points_mean_a_better_chance() -> None:
    """The fit agrees with the game: a reward card more in a seat's plot raises its share."""
    g = year_start("classic", 4, seed=7, year=3)
    before = year_value().win_share(g, 0)
    reward = next(c for c in range(52) if c % 13 < 5 and all(c not in p for p in g.plots)
                  and all(c not in h for h in g.hands))
    g.plots[0].append(reward)
    after = year_value().win_share(g, 0)
    assert before is not None and after is not None and after > before
    assert table_features(g)[0][FEATURES.index("safe")] > 0


def test_rules_that_are_no_preset_take_the_nearest_weights() -> None:
    from dataclasses import replace

    g = year_start("classic", 4, seed=1, year=2)
    g.rules = replace(g.rules, threshold=g.rules.threshold + 1)
    assert year_value().win_share(g, 0) is not None


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_search_scored_by_the_fit_learns_nothing_the_seat_cannot_see(name: str) -> None:
    params = SearchParams(playouts=10, value_fit=True, refined=True)
    checked = 0
    for g, seat in decision_states(name, 4, seed=5, every=17):
        first, second, _ = twin_searches(g, seat, params, 3, checked)
        assert first == second and 0 <= first.best < len(g.legal_actions(seat))
        checked += 1
    assert checked >= 3


def test_fit_value_collects_and_fits(tmp_path: Path) -> None:
    data, out = tmp_path / "ends.jsonl.gz", tmp_path / "value.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fit_value.py"), "--collect", str(data),
         "--games", "6", "--workers", "1", "--fit", str(data), "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "ends of years written" in run.stdout and "weights written" in run.stdout
    with gzip.open(data, "rt", encoding="utf-8") as f:
        first = json.loads(f.readline())
    assert set(first) == {"p", "n", "seed", "left", "x", "y"}
    assert len(first["x"]) == first["n"] and 0 <= first["y"] < first["n"]
    fitted = json.loads(out.read_text(encoding="utf-8"))
    assert set(fitted["weights"]) == set(PRESET_NAMES)


def test_hard_scores_by_the_fit_only_in_the_chosen_presets() -> None:
    """``hard`` (value_fit_chosen) uses the fit in the presets value.json chose, where it
    measured stronger, and plays every other preset exactly as before."""
    import dataclasses
    import random

    from engine.ai import AIPlayer
    from engine.ai.search import PlayoutGame, ranked_search
    from engine.determinize import Determinizer

    value = year_value()
    assert value.chosen and set(value.chosen) <= set(PRESET_NAMES)
    hard = AIPlayer("hard").level.search
    assert hard is not None and hard.value_fit_chosen and not hard.value_fit
    before = dataclasses.replace(hard, moves=2_000, value_fit_chosen=False)
    now = dataclasses.replace(before, value_fit_chosen=True)
    for name in PRESET_NAMES:
        g = year_start(name, 4, seed=2, year=2)
        assert (value.win_share(g, 0, chosen_only=True) is not None) == (name in value.chosen)
        if name in value.chosen:
            continue
        for state, seat in decision_states(name, 4, seed=6, every=23):
            legal = state.legal_actions(seat)
            det = Determinizer(PlayoutGame, state.view(seat))
            assert (ranked_search(det, legal, random.Random(1), before)
                    == ranked_search(det, legal, random.Random(1), now))
