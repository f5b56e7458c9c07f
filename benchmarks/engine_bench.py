"""Engine throughput on one core: the figures a search AI depends on.

1. Random full games for every preset with 3, 4 and 5 players: every step asks
   ``legal_actions`` of the seat to act and ``apply``-s a random one of them, the way a simulator
   or an AI player would (games and actions per second).
2. ``engine.ai.default_action``: the mean time of one call (µs per move) on the states of games
   the heuristic plays against itself, and those games per second.
3. ``Game.copy()``: µs per copy of states sampled from the middle of random games.
4. Playouts: ``copy()`` a mid-game state, then play random moves to the end with
   ``apply_fast`` (playouts per second), the inner loop of a Monte Carlo search.

Run: ``python benchmarks/engine_bench.py [--seconds 1] [--players 4] [--preset classic]``.
``--seconds`` is the CPU time spent on each figure; the default run takes about 30 seconds. The
clock is the process's CPU time, so other work on the machine counts less; still pin it to one
core (``taskset -c 0``) and run it twice: the figures move by a few per cent.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
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


def timed(seconds: float, batch: Callable[[], int]) -> tuple[float, int]:
    """Run ``batch`` (returning how many things it did) until ``seconds`` of this process's CPU
    time pass; returns the CPU time taken and the count. CPU time rather than wall time, so
    other work on the same core does not count against the engine."""
    clock = time.process_time
    done = 0
    start = clock()
    deadline = start + seconds
    while clock() < deadline:
        done += batch()
    return clock() - start, done


def random_games(name: str, players: int, seconds: float) -> tuple[float, float]:
    """Games and actions per second."""
    rng = random.Random(1)
    games = 0

    def batch() -> int:
        nonlocal games
        actions = 0
        for _ in range(10):
            actions += play_random(name, players, games, rng)
            games += 1
        return actions

    elapsed, actions = timed(seconds, batch)
    return games / elapsed, actions / elapsed


def default_action_us(name: str, players: int, seconds: float) -> tuple[float, float]:
    """Mean µs per ``default_action`` call, and heuristic games per second (whole games).

    The calls are timed in bulk on copies of the states of heuristic games (a fresh copy has
    no legal actions cached, like a state a bot is asked about), not one clock reading each.
    """
    states: list[tuple[Game, int]] = []
    games = 0

    def batch() -> int:
        nonlocal games
        g = Game.new(preset(name), players, games)
        while not g.is_over:
            seat = g.to_act[0]
            if len(states) < 1000:
                states.append((g.copy(), seat))
            g.apply(seat, default_action(g, seat))
        games += 1
        return 1

    elapsed, _ = timed(seconds / 2, batch)
    spent = 0.0

    def moves() -> int:
        nonlocal spent
        copies = [(g.copy(), seat) for g, seat in states]
        start = time.process_time()
        for g, seat in copies:
            default_action(g, seat)
        spent += time.process_time() - start
        return len(copies)

    _, calls = timed(seconds / 2, moves)
    return spent / calls * 1e6, games / elapsed


def mid_game_states(name: str, players: int, count: int) -> list[Game]:
    """States a random number of moves into random games (none of them over)."""
    rng = random.Random(2)
    states: list[Game] = []
    seed = 0
    while len(states) < count:
        g = Game.new(preset(name), players, seed)
        seed += 1
        stop = rng.randrange(20, 120)
        for _ in range(stop):
            if g.is_over:
                break
            seat = g.to_act[0]
            legal = g.legal_actions(seat)
            g.apply(seat, legal[rng.randrange(len(legal))])
        if not g.is_over:
            states.append(g)
    return states


def copy_us(states: list[Game], seconds: float) -> float:
    def batch() -> int:
        for g in states:
            g.copy()
        return len(states)

    elapsed, copies = timed(seconds, batch)
    return elapsed / copies * 1e6


def playouts(states: list[Game], seconds: float) -> tuple[float, float]:
    """Random playouts per second from ``states`` (copy + ``apply_fast`` to the end), and the
    actions per second inside them."""
    rng = random.Random(3)
    rand = rng.random
    actions = 0

    def batch() -> int:
        nonlocal actions
        for root in states:
            g = root.copy()
            while not g.is_over:
                seat = g.to_act[0]
                legal = g.legal_actions(seat)
                g.apply_fast(seat, legal[int(rand() * len(legal))])
                actions += 1
        return len(states)

    elapsed, done = timed(seconds, batch)
    return done / elapsed, actions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per figure")
    parser.add_argument("--players", type=int, action="append", choices=(3, 4, 5))
    parser.add_argument("--preset", choices=list(PRESETS), action="append")
    args = parser.parse_args()
    names = args.preset or list(PRESETS)
    counts = args.players or [3, 4, 5]
    seconds = args.seconds
    print(f"Python {sys.version.split()[0]}, one core, {seconds:g} s per figure")

    print("\nRandom full games (legal_actions + apply every step)")
    head = "".join(f"  {f'{p}p games/s':>12} {'actions/s':>10}" for p in counts)
    print(f"{'preset':<11}{head}")
    for name in names:
        cells = ""
        for players in counts:
            games, acts = random_games(name, players, seconds)
            cells += f"  {games:>12,.0f} {acts:>10,.0f}"
        print(f"{name:<11}{cells}")

    players = 4 if 4 in counts else counts[0]
    print(f"\n{players} players: default_action, copy() and apply_fast playouts from mid-game")
    print(
        f"{'preset':<11} {'default µs/move':>15} {'heuristic games/s':>17} "
        f"{'copy() µs':>9} {'playouts/s':>10} {'actions/s':>10}"
    )
    for name in names:
        per_move, hgames = default_action_us(name, players, seconds)
        states = mid_game_states(name, players, 200)
        copy = copy_us(states, seconds / 4)
        outs, acts = playouts(states, seconds)
        print(
            f"{name:<11} {per_move:>15.2f} {hgames:>17,.0f} {copy:>9.2f} {outs:>10,.0f} "
            f"{acts:>10,.0f}"
        )


if __name__ == "__main__":
    main()
