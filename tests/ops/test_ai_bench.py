"""benchmarks/ai_bench.py's variant levels (``--define``): parsed strictly, played as asked."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.ai_bench import agreement, make_bot, parse_define, play_one
from engine.search import SearchParams


def test_a_define_names_a_search_level_and_sets_fields_of_its_params() -> None:
    name, base, changes = parse_define(
        "careful=strong; moves=5000; opponent_noise=(0.0, 0.05, 0.15)")
    assert (name, base) == ("careful", "strong")
    assert dict(changes) == {"moves": 5000, "opponent_noise": (0.0, 0.05, 0.15)}

    bot = make_bot("careful", "1/0", None, ((name, base, changes),))
    assert bot.level.name == "careful"
    assert bot.params == SearchParams(moves=5000, opponent_noise=(0.0, 0.05, 0.15))
    assert make_bot("strong", "1/0", None, ((name, base, changes),)).params == SearchParams(
        moves=10_000)


@pytest.mark.parametrize("text", [
    "strong=strong",  # a level's own name
    "x=normal",  # not a search level
    "x=nobody",
    "x=strong;bogus=1",  # not a field of SearchParams
    "x=strong;moves",  # no value
    "x=strong;moves=five",  # not a literal
    "=strong",
    "careful",
])
def test_a_malformed_define_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        parse_define(text)


def test_a_variant_plays_a_game_from_its_views() -> None:
    define = parse_define("tiny=strong;moves=0;playouts=2")
    result = play_one(("tiny", "normal", "zone", 3, 3, None, (define,)))
    assert result["match"] == ("tiny", "normal")
    assert result["times"]  # the hero made decisions that were not forced
    # The same game again: decisions depend on the names, seeds and views only.
    again = play_one(("tiny", "normal", "zone", 3, 3, None, (define,)))
    assert (again["win"], again["margin"]) == (result["win"], result["margin"])


def test_agreement_counts_the_decisions_that_are_the_heuristics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    agreement("normal", 1, ["classic"], 0, 4, None, ())
    out = capsys.readouterr().out
    # normal is the heuristic: every decision agrees.
    all_line = next(line for line in out.splitlines() if line.strip().startswith("all"))
    k, n = [int(w) for w in all_line.split() if w.isdigit()][:2]
    assert n > 20 and k == n
