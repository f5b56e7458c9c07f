"""The worlds a search deals (engine.determinize), checked over many positions.

At every position of heuristic games with a share of random moves (every preset with 3, 4
and 5 players unless narrowed), from every seat: the voids the seat reads from its view hold
in the real game, and each world dealt from the view

- looks to the seat like the real game (its view from the seat is the view it was dealt from),
- keeps every card in one place and the cards the seat cannot see the same set,
- honours those voids (a dealt hand may break one only when 20 shuffles failed).

tests/engine/test_determinize_worlds.py checks a few hundred positions; this the thousands:
``python benchmarks/worlds_check.py --games 20 --worlds 3`` (175,000 positions and 520,000
worlds, about 2 minutes). Exits 1 if any check fails, listing the first positions that did.
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
from engine.cards import SUIT_OF
from engine.determinize import Determinizer
from tests.engine.invariants import check_conservation, secret_cards


def check(name: str, players: int, seed: int, worlds: int, share: float,
          failures: list[str], counts: dict[str, int]) -> None:
    rng = random.Random(seed)
    g = Game.new(preset(name), players, seed)
    while not g.is_over:
        for seat in range(players):
            where = f"{name} {players}p seed {seed} year {g.year} trick {g.tricks_done + 1} " \
                    f"({len(g.trick)} played) {g.phase.value}, seat {seat}"
            view = g.view(seat)
            det = Determinizer(Game, view)
            counts["positions"] += 1
            counts["positions with 2+ stacks to fill"] += len(det.stack_fills) > 1
            counts["positions with a trump-lead void"] += any(len(v) == 3 for v in det.voids)
            others = [s for s in range(players) if s != seat]
            if any(SUIT_OF[c] in det.voids[s] for s in others for c in g.hands[s]):
                failures.append(f"{where}: a void read from the view is false")
            for _ in range(worlds):
                world = det.sample(rng)
                counts["worlds"] += 1
                try:
                    check_conservation(world)
                except AssertionError as exc:
                    failures.append(f"{where}: {exc}")
                if world.view(seat) != view:
                    failures.append(f"{where}: the world's view differs")
                if secret_cards(world, seat) != secret_cards(g, seat):
                    failures.append(f"{where}: other cards out of sight")
                if any(SUIT_OF[c] in det.voids[s] for s in others for c in world.hands[s]):
                    counts["worlds dealt without the voids"] += 1
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[rng.randrange(len(legal))] if rng.random() < share
                else default_action(g, seat))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20, help="games per preset and count")
    parser.add_argument("--worlds", type=int, default=3, help="worlds per position and seat")
    parser.add_argument("--random-share", type=float, default=0.3,
                        help="share of uniformly random moves in the games")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed")
    parser.add_argument("--players", type=int, action="append", choices=(3, 4, 5))
    parser.add_argument("--preset", choices=list(PRESETS), action="append")
    args = parser.parse_args()
    failures: list[str] = []
    counts = dict.fromkeys(("positions", "worlds", "positions with 2+ stacks to fill",
                            "positions with a trump-lead void",
                            "worlds dealt without the voids"), 0)
    start = time.perf_counter()
    for name in args.preset or sorted(PRESETS):
        for players in args.players or (3, 4, 5):
            for seed in range(args.seed, args.seed + args.games):
                check(name, players, seed, args.worlds, args.random_share, failures, counts)
    for key, value in counts.items():
        print(f"{key}: {value}")
    print(f"{len(failures)} failures in {time.perf_counter() - start:.0f} s")
    for line in failures[:20]:
        print("  " + line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
