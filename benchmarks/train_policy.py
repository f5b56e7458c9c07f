"""Learns the player model of engine/ai/model.py from the search's own decisions.

Three steps, each its own flag, all reproducible (every game is seeded, the fit is
deterministic):

``--collect FILE``
    plays ``--games`` games a preset with the level ``--level`` (default ``strong``) in every
    seat, 3, 4 and 5 players in turn, and appends every decision the model covers (a lead, a
    follow, a placement with two or more choices) to FILE as a JSON line: its group, each
    legal move's features and the move the search chose.
``--fit FILE [FILE ...]``
    fits the conditional logit to the decisions (games whose seed is divisible by 5 are
    held out), prints how often the model's likeliest move is the search's, next to how
    often the heuristics' are, and the held-out log-loss, and writes the weights to ``--out``
    (default engine/ai/policy.json).
``--play N``
    one seat of the model's likeliest move against three ``default_action`` players, N games
    a preset (the way docs/ai-lab.md measured the refined heuristic): its win share with a
    95% interval, next to one seat of ``default_action`` itself (0.25 by symmetry) and of
    ``refined_action``.

The shipped weights come from::

    python benchmarks/train_policy.py --collect /tmp/policy.jsonl.gz --games 40 --workers 2
    python benchmarks/train_policy.py --fit /tmp/policy.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import multiprocessing
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PRESETS, Game, preset
from engine.ai import AIPlayer, default_action, refined_action
from engine.ai.model import ASSIGN_FEATURES, GROUPS, PLAY_FEATURES, POLICY_FILE, PolicyModel
from engine.ai.model import features as model_features

Task = tuple[str, str, int, int]  # level, preset, players, seed


def collect_one(task: Task) -> list[dict[str, Any]]:
    level, name, players, seed = task
    g = Game.new(preset(name), players, seed=seed)
    ais = [AIPlayer(level, seed=f"train/{seed}/{s}") for s in range(players)]
    rows = []
    while not g.is_over:
        seat = g.to_act[0]
        action = ais[seat].choose(g.view(seat))
        legal = g.legal_actions(seat)
        if len(legal) > 1:
            found = model_features(g, seat, legal)
            if found is not None:
                group, feats = found
                rows.append({"preset": name, "players": players, "seed": seed,
                             "group": group, "x": [[round(v, 4) for v in r] for r in feats],
                             "y": legal.index(action)})
        g.apply(seat, action)
    return rows


def collect(path: str, level: str, games: int, first: int, workers: int) -> None:
    tasks = [(level, name, 3 + (seed % 3), seed) for seed in range(first, first + games)
             for name in PRESETS]
    start = time.monotonic()
    n = 0
    with gzip.open(path, "at", encoding="utf-8") as out, \
            multiprocessing.Pool(workers) as pool:
        for i, rows in enumerate(pool.imap_unordered(collect_one, tasks), 1):
            for r in rows:
                out.write(json.dumps(r, separators=(",", ":")) + "\n")
            n += len(rows)
            if i % 10 == 0:
                print(f"{i}/{len(tasks)} games, {n} decisions, "
                      f"{time.monotonic() - start:.0f} s", flush=True)
    print(f"{len(tasks)} games, {n} decisions in {time.monotonic() - start:.0f} s")


def read(paths: list[str]) -> list[dict[str, Any]]:
    rows = []
    for p in paths:
        with gzip.open(p, "rt", encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f)
    return rows


def _scores(w: list[float], x: list[list[float]]) -> list[float]:
    return [sum([a * b for a, b in zip(w, r, strict=True)]) for r in x]


def probs(w: list[float], x: list[list[float]]) -> list[float]:
    s = _scores(w, x)
    top = max(s)
    e = [math.exp(v - top) for v in s]
    t = sum(e)
    return [v / t for v in e]


def fit_group(rows: list[dict[str, Any]], dim: int, epochs: int = 40,
              l2: float = 1e-3) -> list[float]:
    """Maximum likelihood with an L2 penalty, by Adam on mini-batches (seeded order)."""
    w = [0.0] * dim
    m = [0.0] * dim
    v = [0.0] * dim
    rng = random.Random(0)
    order = list(range(len(rows)))
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    step = 0
    batch = 64
    for epoch in range(epochs):
        rng.shuffle(order)
        if epoch == epochs // 2:
            lr /= 5
        for start in range(0, len(order), batch):
            grad = [l2 * wi for wi in w]
            chunk = order[start:start + batch]
            for i in chunk:
                x, y = rows[i]["x"], rows[i]["y"]
                p = probs(w, x)
                for k, row in enumerate(x):
                    c = p[k] - (1.0 if k == y else 0.0)
                    if c:
                        for d in range(dim):
                            grad[d] += c * row[d] / len(chunk)
            step += 1
            for d in range(dim):
                m[d] = b1 * m[d] + (1 - b1) * grad[d]
                v[d] = b2 * v[d] + (1 - b2) * grad[d] ** 2
                mh = m[d] / (1 - b1**step)
                vh = v[d] / (1 - b2**step)
                w[d] -= lr * mh / (math.sqrt(vh) + eps)
    return w


def evaluate(w: list[float], rows: list[dict[str, Any]]) -> tuple[float, float, float, float]:
    """Top-1 agreement of the model, of default_action, of refined_action; mean log-loss."""
    hit = heur = ref = 0
    loss = 0.0
    for r in rows:
        x, y = r["x"], r["y"]
        p = probs(w, x)
        hit += max(range(len(p)), key=lambda k: (p[k], -k)) == y
        heur += x[y][0] == 1.0
        ref += x[y][1] == 1.0
        loss -= math.log(max(p[y], 1e-12))
    n = max(1, len(rows))
    return hit / n, heur / n, ref / n, loss / n


def fit(paths: list[str], out: str) -> None:
    rows = read(paths)
    weights: dict[str, list[float]] = {}
    print(f"{len(rows)} decisions from {', '.join(paths)}")
    print("group     train  test   model  default  refined  log-loss (uniform)")
    for group in GROUPS:
        dim = len(ASSIGN_FEATURES if group == "assign" else PLAY_FEATURES)
        mine = [r for r in rows if r["group"] == group]
        train = [r for r in mine if r["seed"] % 5]
        test = [r for r in mine if not r["seed"] % 5]
        w = fit_group(train, dim)
        weights[group] = [round(x, 4) for x in w]
        model, heur, ref, loss = evaluate(w, test)
        uniform = sum(math.log(len(r["x"])) for r in test) / max(1, len(test))
        print(f"{group:8} {len(train):6} {len(test):5}  {model:.3f}  {heur:.3f}    "
              f"{ref:.3f}    {loss:.3f} ({uniform:.3f})")
    names = {"lead": list(PLAY_FEATURES), "follow": list(PLAY_FEATURES),
             "assign": list(ASSIGN_FEATURES)}
    Path(out).write_text(json.dumps({"features": names, "weights": weights}, indent=1) + "\n",
                         encoding="utf-8")
    print(f"weights written to {out}")


def play_one(task: tuple[str, str, int, int]) -> float:
    who, name, players, seed = task
    g = Game.new(preset(name), players, seed=seed)
    hero = seed % players
    model = PolicyModel.from_json(json.loads(POLICY_FILE.read_text(encoding="utf-8")))
    policy = {"model": model.action, "default": default_action, "refined": refined_action}[who]
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, policy(g, seat) if seat == hero else default_action(g, seat))
    winners = g.winners()
    return 1 / len(winners) if hero in winners else 0.0


def play(games: int, first: int, workers: int) -> None:
    with multiprocessing.Pool(workers) as pool:
        for who in ("model", "refined", "default"):
            tasks = [(who, name, 4, seed) for name in PRESETS
                     for seed in range(first, first + games)]
            wins = pool.map(play_one, tasks, chunksize=20)
            p = sum(wins) / len(wins)
            half = 1.96 * math.sqrt(p * (1 - p) / len(wins))
            print(f"one seat of {who:8} against three default_action: "
                  f"{p:.3f} ± {half:.3f} ({len(wins)} games, 4 players)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collect")
    ap.add_argument("--fit", nargs="+")
    ap.add_argument("--play", type=int)
    ap.add_argument("--level", default="strong")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(POLICY_FILE))
    a = ap.parse_args()
    if a.collect:
        collect(a.collect, a.level, a.games, a.first, a.workers)
    if a.fit:
        fit(a.fit, a.out)
    if a.play:
        play(a.play, a.first, a.workers)


if __name__ == "__main__":
    main()
