"""Engine throughput: random full games per second and actions per second, on one core.

Every step asks ``legal_actions`` of the seat to act and applies a random one of them, the way a
simulator or a bot would. Run: ``python benchmarks/engine_bench.py [--seconds 3] [--players 4]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import PRESETS, Game, preset
from engine.ai import default_action


def play_random(name: str, players: int, seed: int, rng: random.Random) -> int:
    g = Game.new(preset(name), players, seed)
    actions = 0
    while not g.is_over:
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[int(rng.random() * len(legal))])
        actions += 1
    return actions


def play_default(name: str, players: int, seed: int) -> int:
    g = Game.new(preset(name), players, seed)
    actions = 0
    while not g.is_over:
        seat = g.to_act[0]
        g.legal_actions(seat)
        g.apply(seat, default_action(g, seat))
        actions += 1
    return actions


def measure(name: str, players: int, seconds: float, heuristic: bool) -> tuple[float, float]:
    rng = random.Random(1)
    games = actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        for _ in range(20):
            if heuristic:
                actions += play_default(name, players, games)
            else:
                actions += play_random(name, players, games, rng)
            games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, actions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--preset", choices=list(PRESETS), action="append")
    args = parser.parse_args()
    names = args.preset or list(PRESETS)
    print(f"Python {sys.version.split()[0]}, {args.players} players, one core")
    print(f"{'preset':<12} {'random games/s':>15} {'actions/s':>11} {'heuristic games/s':>18}")
    for name in names:
        games, acts = measure(name, args.players, args.seconds, heuristic=False)
        hgames, _ = measure(name, args.players, args.seconds / 2, heuristic=True)
        print(f"{name:<12} {games:>15.0f} {acts:>11.0f} {hgames:>18.0f}")


if __name__ == "__main__":
    main()
