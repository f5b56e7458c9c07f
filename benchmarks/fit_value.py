"""Fits the search's value of a position at the end of a year (engine/ai/value.py) to how
games really end.

A playout stops at the end of the current year, and the search scores that position
(``search._value``): until now a hand-set formula, each seat's plot points with the workers
still at risk discounted by ``worker_keep`` a requisition, compared to the best other
seat's. This learns instead, for every preset and number of requisitions still to come, the
chance that each seat wins from there: a conditional logit over the seats (the winner is
the seat whose utility, a weighted sum of its features, is highest, plus noise) with the
features of :func:`engine.ai.value.table_features`. The games are played by the playouts'
own policy (``refined_action`` with the playouts' share of random moves), 3, 4 and 5
players in turn; every one is seeded, the fit is deterministic.

``--collect FILE``
    plays ``--games`` games a preset and number of players and writes one JSON line per
    year's end: the preset, the requisitions to come, every seat's features and the seat
    that won (a tie: one of the tied, by the game's seed).
``--fit FILE``
    fits one weight vector per preset and requisitions to come (games whose seed is
    divisible by 5 held out), prints for the held-out ends how often the likeliest winner
    is the real one and the mean log-loss, next to the hand-set formula's, and writes the
    weights to ``--out`` (default engine/ai/value.json), keeping its ``chosen`` presets (where
    ``hard`` uses the fit: a choice measured with ai_bench.py, docs/ai-lab.md).

The shipped weights come from::

    python benchmarks/fit_value.py --collect /tmp/value.jsonl.gz --games 4000 --workers 2
    python benchmarks/fit_value.py --fit /tmp/value.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import multiprocessing
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from train_policy import fit_group, probs  # noqa: E402

from engine.ai.heuristic import refined_action  # noqa: E402
from engine.ai.model import softmax  # noqa: E402
from engine.ai.search import SearchParams  # noqa: E402
from engine.ai.value import FEATURES, VALUE_FILE, table_features  # noqa: E402
from engine.rules import PRESETS, preset  # noqa: E402
from engine.state import Game  # noqa: E402

#: The playouts' styles of opponent (search.SearchParams.opponent_noise) and own noise.
STYLES = (0.02, 0.05, 0.15, 0.35)

Task = tuple[str, int, int]

#: The hand-set score's settings (SearchParams' defaults), for the comparison the fit prints.
HAND_SET = SearchParams()
_SAFE, _AT_RISK, _MEDALS, _RANK = (
    FEATURES.index(f) for f in ("safe", "at_risk", "medals", "rank_value"))


def collect_one(task: Task) -> list[dict[str, Any]]:
    """The ends of every year of one game, each with the game's winner."""
    name, players, seed = task
    rules = preset(name)
    g = Game.new(rules, players, seed=seed)
    rng = random.Random(f"value/{name}/{players}/{seed}")
    noise = [rng.choice(STYLES) for _ in range(players)]
    ends: list[dict[str, Any]] = []
    year = g.year
    while not g.is_over:
        seat = g.to_act[0]
        action = g.forced_action(seat)
        if action is None:
            legal = g.legal_actions(seat)
            if rng.random() < noise[seat]:
                action = legal[int(rng.random() * len(legal))]
            else:
                action = refined_action(g, seat)
        g.apply(seat, action)
        if g.year != year and not g.is_over:
            year = g.year
            ends.append({"p": name, "n": players, "seed": seed,
                         "left": rules.years - g.year + 1,
                         "x": table_features(g)})
    scores = g.scores()
    top = max(scores)
    winners = [s for s, v in enumerate(scores) if v == top]
    y = winners[seed % len(winners)]
    for e in ends:
        e["y"] = y
    return ends


def collect(path: str, games: int, first: int, workers: int) -> None:
    tasks = [(name, players, seed) for name in PRESETS for players in (3, 4, 5)
             for seed in range(first, first + games)]
    with multiprocessing.Pool(workers) as pool, gzip.open(path, "wt", encoding="utf-8") as out:
        rows = 0
        for ends in pool.imap_unordered(collect_one, tasks, chunksize=64):
            for e in ends:
                out.write(json.dumps(e) + "\n")
                rows += 1
    print(f"{len(tasks)} games, {rows} ends of years written to {path}")


def read(path: str) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def formula_utility(x: list[float], left: int, zone: bool) -> float:
    """The hand-set value's utility of a seat (search._value without the fit), in the
    features' units: safe points, workers kept at ``worker_keep`` a requisition, medals; in
    zone-like rules the rank-aware value."""
    if zone:
        return x[_RANK]
    return x[_SAFE] + HAND_SET.worker_keep**left * x[_AT_RISK] + x[_MEDALS]


def fit(path: str, out: str) -> None:
    rows = read(path)
    groups: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    # In a fixed order (the collection's workers write in the order they finish), so that
    # the same games always give the same weights.
    rows.sort(key=lambda r: (r["p"], r["n"], r["seed"], r["left"]))
    for r in rows:
        groups[(r["p"], r["left"])].append(r)
    weights: dict[str, dict[str, list[float]]] = defaultdict(dict)
    print(f"{'preset':11} left  ends  fitted: hit  log-loss   formula: hit  log-loss")
    for (name, left), group in sorted(groups.items()):
        train = [r for r in group if r["seed"] % 5]
        held = [r for r in group if not r["seed"] % 5]
        w = fit_group(train, len(FEATURES), epochs=20)
        weights[name][str(left)] = [round(v, 4) for v in w]
        zone = name == "zone"
        hit = loss = f_hit = f_loss = 0.0
        for r in held:
            p = probs(w, r["x"])
            hit += max(range(len(p)), key=lambda k: p[k]) == r["y"]
            loss -= math.log(max(p[r["y"]], 1e-12))
            u = [formula_utility(x, left, zone) for x in r["x"]]
            f_hit += max(range(len(u)), key=lambda k: u[k]) == r["y"]
            # The formula's chance of a win: a softmax of its utility at the search's scale
            # (the features are points / 10).
            f_p = softmax([v * 10 / HAND_SET.scale for v in u])
            f_loss -= math.log(max(f_p[r["y"]], 1e-12))
        k = max(1, len(held))
        print(f"{name:11} {left:4} {len(group):5}  {hit / k:11.3f} {loss / k:9.3f}"
              f"   {f_hit / k:12.3f} {f_loss / k:9.3f}")
    # "chosen" (the presets where hard uses the fit) is a measured choice, not the fit's:
    # kept from the file it replaces.
    try:
        chosen = json.loads(Path(out).read_text(encoding="utf-8")).get("chosen", [])
    except (OSError, ValueError):
        chosen = []
    Path(out).write_text(json.dumps({"features": list(FEATURES), "weights": weights,
                                     "chosen": chosen}, indent=1, sort_keys=True) + "\n",
                         encoding="utf-8")
    print(f"weights written to {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collect", metavar="FILE")
    ap.add_argument("--fit", metavar="FILE")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(VALUE_FILE))
    args = ap.parse_args()
    if args.collect:
        collect(args.collect, args.games, args.first, args.workers)
    if args.fit:
        fit(args.fit, args.out)
    if not (args.collect or args.fit):
        ap.error("nothing to do: --collect FILE and/or --fit FILE")


if __name__ == "__main__":
    main()
