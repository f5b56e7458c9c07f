"""benchmarks/ai_bench.py's variant levels (``--define``): parsed strictly, played as asked."""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmarks import ai_bench
from benchmarks.ai_bench import agreement, make_ai, parse_define, play_one
from engine import Game, preset
from engine.ai.heuristic import default_action, refined_action
from engine.ai.search import SearchParams


def test_a_define_names_a_search_level_and_sets_fields_of_its_params() -> None:
    name, base, changes = parse_define(
        "careful=strong; moves=5000; opponent_noise=(0.0, 0.05, 0.15)")
    assert (name, base) == ("careful", "strong")
    assert dict(changes) == {"moves": 5000, "opponent_noise": (0.0, 0.05, 0.15)}

    ai = make_ai("careful", "1/0", None, ((name, base, changes),))
    assert ai.level.name == "careful"
    assert ai.params == SearchParams(moves=5000, opponent_noise=(0.0, 0.05, 0.15))
    assert make_ai("strong", "1/0", None, ((name, base, changes),)).params == SearchParams(
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
    "two words=strong",
    "x=strong;opponent_noise=0.1",  # a tuple field given a number
    "x=strong;moves=5000.0",  # a whole number given a float
    "x=strong;moves=-5",
    "x=strong;scale=-1.0",
    "x=strong;moves=True",
    "x=strong;refined=1",  # a bool field given a number
])
def test_a_malformed_define_is_refused(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        parse_define(text)


def test_a_defines_fields_win_over_iterations_and_numbers_take_the_fields_type() -> None:
    define = parse_define(" careful = strong; moves=5000; scale=6; opponent_noise=(0, 0.1)")
    assert define[0] == "careful"
    ai = make_ai("careful", "0/0", 2, (define,))
    assert ai.params is not None
    assert (ai.params.moves, ai.params.playouts) == (5000, 2)  # moves set: moves count
    assert ai.params.scale == 6.0 and isinstance(ai.params.scale, float)
    assert ai.params.opponent_noise == (0.0, 0.1)
    assert dict(parse_define("r=hard;refined=True;infer_worlds=4")[2]) == {
        "refined": True, "infer_worlds": 4}


def test_a_name_defined_twice_or_an_unknown_level_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    for argv in (["--define", "a=strong", "--define", "a=hard", "--hero", "a"],
                 ["--hero", "nobody"], ["--agreement", "nobody"]):
        monkeypatch.setattr(sys, "argv", ["ai_bench.py", *argv])
        with pytest.raises(SystemExit):
            ai_bench.main()
    err = capsys.readouterr().err
    assert "more than once" in err and "unknown level 'nobody'" in err


def test_a_variant_plays_a_game_from_its_views() -> None:
    define = parse_define("tiny=strong;moves=0;playouts=2")
    task = ("tiny", "normal", "zone", 3, 3, None, (define,), None)
    assert pickle.loads(pickle.dumps(task)) == task  # tasks go to worker processes
    result = play_one(task)
    assert result["match"] == ("tiny", "normal")
    # What the variant was travels with each game, so a report keeps variants apart.
    assert result["defines"] == {"tiny": {"level": "strong", "moves": 0, "playouts": 2}}
    assert result["times"]  # the hero made decisions that were not forced
    # The same game again: decisions depend on the names, seeds and views only.
    again = play_one(("tiny", "normal", "zone", 3, 3, None, (define,), None))
    assert (again["win"], again["margin"]) == (result["win"], result["margin"])


def test_agreement_counts_the_decisions_that_are_the_heuristics(
    capsys: pytest.CaptureFixture[str],
) -> None:
    agreement("normal", 1, ["classic"], 0, 4, None, ())
    out = capsys.readouterr().out
    # normal is the heuristic: every decision agrees; forced moves are not counted.
    # Beside it, the share that refined_action (hard's playout policy) would have played.
    g, unforced, as_refined = Game.new(preset("classic"), 4, seed=0), 0, 0
    while not g.is_over:
        seat = g.to_act[0]
        if g.forced_action(seat) is None:
            unforced += 1
            as_refined += refined_action(g, seat) == default_action(g, seat)
        g.apply(seat, default_action(g, seat))
    all_line = next(line for line in out.splitlines() if line.strip().startswith("all"))
    k, n = [int(w) for w in all_line.split() if w.isdigit()][:2]
    assert n == unforced > 20 and k == n
    assert all_line.endswith(f"refined_action's: {as_refined / unforced:.2f}")
    assert as_refined < unforced  # the two policies differ somewhere in a whole game
    tricks_line = out.splitlines()[-1]
    k, n = [int(w) for w in tricks_line.split() if w.isdigit()][:2]
    assert "tricks" in tricks_line and k == n > 0

    # A random player places its tricks otherwise, mostly.
    agreement("random", 2, ["original"], 0, 4, None, ())
    k, n = [int(w) for w in capsys.readouterr().out.splitlines()[-1].split() if w.isdigit()][:2]
    assert n > 0 and k < n

    agreement("normal", 0, ["classic"], 0, 4, None, ())
    assert "no decision" in capsys.readouterr().out


def test_a_game_records_its_search_players_settings() -> None:
    hard, strong = make_ai("hard", "1/0", None, ()), make_ai("strong", "1/1", None, ())
    recorded = ai_bench.settings(hard, strong, make_ai("normal", "1/2", None, ()))
    # Only what differs from SearchParams' defaults, by level: a later change to a level
    # shows in its games' records.
    assert recorded == {
        "hard": {"moves": 100_000, "random_tables": 0.0, "refined": True,
                 "value_fit_chosen": True},
        "strong": {"moves": 10_000},
    }


def test_a_report_reads_gzip_files_and_keeps_other_settings_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    def row(seed: int, win: float, moves: int) -> dict[str, Any]:
        return {"match": ["hard", "strong"], "preset": "classic", "seed": seed, "win": win,
                "margin": 1.0, "times": [0.1],
                "settings": {"hard": {"moves": moves}, "strong": {"moves": 10_000}}}

    now = [row(0, 1.0, 25_000), row(1, 0.0, 25_000)]
    before = [row(0, 0.0, 50_000)]
    plain = tmp_path / "a.jsonl"
    plain.write_text("".join(json.dumps(r) + "\n" for r in now))
    packed = tmp_path / "b.jsonl.gz"
    with gzip.open(packed, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in [*now, *before])

    rows = ai_bench.read_results([str(plain), str(packed)])
    assert len(rows) == 3  # a game found in both files counts once
    # ... as the first file listed has it: a deal played again replaces the old one so.
    again = tmp_path / "c.jsonl"
    again.write_text(json.dumps(row(0, 0.5, 25_000)) + "\n")
    assert [r["win"] for r in ai_bench.read_results([str(again), str(plain)])] == [0.5, 0.0]
    assert [r["win"] for r in ai_bench.read_results([str(plain), str(again)])] == [1.0, 0.0]

    ai_bench.report(rows)
    out = capsys.readouterr().out
    # The games of the earlier settings are a table of their own, each table says its settings.
    assert out.count("hard (one seat) against strong (the others)") == 2
    assert "hard: moves=25000" in out and "hard: moves=50000" in out
    pooled = [line.split() for line in out.splitlines() if line.startswith("pooled")]
    assert [(p[1], p[2]) for p in pooled] == [("2", "0.500"), ("1", "0.000")]


def test_a_renamed_variant_pools_with_the_level_only_where_its_settings_are_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    same = {"moves": 25_000, "refined": True}

    def row(hero: str, seed: int, win: float, hero_settings: dict[str, Any]) -> str:
        return json.dumps({
            "match": [hero, "strong"], "preset": "zone", "seed": seed, "win": win,
            "margin": 0.0, "times": [0.1],
            **({"defines": {hero: {"level": "hard", **hero_settings}}} if hero != "hard" else {}),
            "settings": {hero: hero_settings, "strong": {"moves": 10_000}}}) + "\n"

    path = tmp_path / "runs.jsonl"
    path.write_text(row("h25", 0, 1.0, same) + row("hard", 1, 0.0, same)
                    + row("other", 2, 1.0, {"moves": 1}))
    rows = ai_bench.read_results([str(path)], {"h25": "hard", "other": "hard"})
    assert {r["match"] for r in rows} == {("hard", "strong")}
    assert all("defines" not in r for r in rows)
    ai_bench.report(rows)
    pooled = [line.split() for line in capsys.readouterr().out.splitlines()
              if line.startswith("pooled")]
    # h25's game pools with hard's; the one of other settings keeps a table of its own.
    assert [(p[1], p[2]) for p in pooled] == [("2", "0.500"), ("1", "1.000")]
    with pytest.raises(argparse.ArgumentTypeError):
        ai_bench.parse_rename("h25")


def test_a_recorded_game_replays_to_the_same_moves(tmp_path: Path) -> None:
    """``--replay``: a game of an ``--out`` file played again from its record (match-up,
    preset, seed, table size, budget, variants) has the same moves, win and margin."""
    define = parse_define("careful=strong; opponent_noise=(0.0, 0.05, 0.15)")
    tasks = [("careful", "normal", "zone", 3, 3, 2, (define,), None),
             ("random", "normal", "classic", 1, 4, None, (), None),
             ("random", "normal", "classic", 1, 4, None, (), 2)]  # a duplicate run's game
    out = tmp_path / "games.jsonl"
    out.write_text("".join(json.dumps(play_one(t)) + "\n" for t in tasks), encoding="utf-8")
    rows = ai_bench.read_results([str(out)])
    assert [ai_bench.replay_task(r) for r in rows] == tasks
    assert ai_bench.replay([str(out)]) == 0
    changed = dict(rows[1], moves="0" * 32)
    out.write_text(json.dumps(rows[0]) + "\n" + json.dumps(changed) + "\n", encoding="utf-8")
    assert ai_bench.replay([str(out)]) == 1


def test_duplicate_deals_count_complete_deals_only(capsys: pytest.CaptureFixture[str]) -> None:
    """``--duplicate``: a deal counts once it was played from every seat; its games' mean
    is one sample of the table."""
    tasks = [("random", "normal", "zone", 5, 3, None, (), seat) for seat in range(3)]
    tasks.append(("random", "normal", "zone", 6, 3, None, (), 0))  # a deal not complete
    rows = [play_one(t) for t in tasks]
    assert [r["hero_seat"] for r in rows] == [0, 1, 2, 0]
    complete, partial = ai_bench.deals(rows)
    assert partial == 1 and len(complete) == 1
    assert complete[0][0] == pytest.approx(sum(r["win"] for r in rows[:3]) / 3)
    ai_bench.report(rows)
    out = capsys.readouterr().out
    assert "deals" in out and "+1 games of deals not complete" in out


def test_two_heroes_are_compared_deal_by_deal_on_the_deals_both_played(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--report with duplicate runs of two heroes against the same opponents prints their
    difference per deal: only deals both completed count (a deal of one alone, or one not
    played from every seat, is left out)."""

    def game(hero: str, preset_name: str, seed: int, seat: int, win: float) -> dict[str, Any]:
        return {"match": (hero, "strong"), "preset": preset_name, "seed": seed,
                "hero_seat": seat, "players": 4, "win": win, "margin": 4 * win,
                "times": [0.1]}

    rows = [game("a", "classic", seed, seat, 0.5 if seed == 0 else 0.25)
            for seed in (0, 1, 2) for seat in range(4)]
    rows += [game("b", "classic", seed, seat, 0.25) for seed in (0, 1) for seat in range(4)]
    rows += [game("b", "classic", 2, seat, 1.0) for seat in range(3)]  # not complete
    ai_bench.report(rows)
    out = capsys.readouterr().out
    paired = out[out.index("a minus b"):]
    classic = next(line for line in paired.splitlines() if line.startswith("classic"))
    assert classic.split()[1:3] == ["2", "+0.125"]  # deals 0 and 1: (+0.25 + 0) / 2


def test_a_report_keeps_the_compiled_engines_times_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Games played with ``--compiled`` pool with plain ones (the same decisions), but the
    time columns are the compiled engine's, the one the bot thinks with and the levels' time
    goals are about; a table of plain games only shows their times and says whose they are."""

    def row(seed: int, time: float, engine: str | None) -> dict[str, Any]:
        return {"match": ("hard", "strong"), "preset": "zone", "seed": seed, "win": 0.0,
                "margin": 0.0, "times": [time], **({"engine": engine} if engine else {})}

    def pooled(out: str) -> tuple[str, list[str]]:
        line = next(line for line in out.splitlines() if line.startswith("pooled"))
        return line.split()[1], line.split("±")[1].split()[1:4]  # games; p50, p99, max

    ai_bench.report([row(0, 0.4, None), row(1, 0.1, "compiled")])
    out = capsys.readouterr().out
    assert pooled(out) == ("2", ["0.100", "0.100", "0.100"])
    assert "times of the compiled engine only; 1 of the games ran plain" in out

    ai_bench.report([row(0, 0.4, None)])
    out = capsys.readouterr().out
    assert pooled(out) == ("1", ["0.400", "0.400", "0.400"])
    assert "(times of the plain engine)" in out

    ai_bench.report([row(1, 0.1, "compiled")])
    out = capsys.readouterr().out
    assert pooled(out) == ("1", ["0.100", "0.100", "0.100"])
    assert "(times of the compiled engine)" in out
