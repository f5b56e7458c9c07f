"""The engine compiled to C with mypyc, for long benchmark runs: the same code, about twice
as fast (:mod:`kolkhoz_tg.compiled_engine` builds it; the bot uses the same build).

A strength table of thousands of games spends nearly all its time in the engine's playouts.
The decisions stay exactly the same (the budget is counted in moves, never in seconds), so a
table played compiled pools with one played plain, and ``ai_bench.py --replay`` can check any
recorded game either way. Only the decision times differ: a game recorded compiled says so
(``"engine": "compiled"``), and ``--report`` prints its times apart from the plain engine's.
Usage::

    python benchmarks/compiled.py            # build (about a minute) and check it
    python benchmarks/ai_bench.py --compiled ...   # benchmarks that take the flag
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kolkhoz_tg import compiled_engine
from kolkhoz_tg.compiled_engine import is_compiled

ROOT = Path(__file__).resolve().parent.parent


def activate() -> Path:
    """Build if needed and put the compiled engine first on ``sys.path``; call it before
    anything imports ``engine``. Raises :class:`RuntimeError` if it is imported already,
    :class:`~kolkhoz_tg.compiled_engine.Unavailable` if it cannot be built here."""
    path = compiled_engine.build()
    compiled_engine.activate("compiled")
    return path


def _check(positions: int) -> int:
    """Build, then compare the decisions of ``strong`` and ``hard`` on ``positions``
    positions of every preset, compiled and plain (in two processes); 0 if all agree."""
    import json

    path = compiled_engine.build(quiet=False)
    print(f"built: {path}")
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]) if sys.argv[1] else None\n"
            "from benchmarks.compiled import _decisions\n"
            "print(json.dumps(_decisions(int(sys.argv[2]))))")
    runs = {}
    for label, extra in (("plain", ""), ("compiled", str(path))):
        out = subprocess.run([sys.executable, "-c", code, extra, str(positions)], cwd=ROOT,
                             capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        if out.returncode != 0:
            print(f"the {label} run failed:\n{out.stderr}")
            return 1
        result = json.loads(out.stdout.strip().splitlines()[-1])
        runs[label] = result
        print(f"{label:9} ({result['engine']}): {len(result['actions'])} decisions, "
              f"{result['seconds']:.1f} s of CPU in the searches")
    same = runs["plain"]["actions"] == runs["compiled"]["actions"]
    print("the same decisions" if same else "DECISIONS DIFFER")
    ratio = runs["plain"]["seconds"] / max(runs["compiled"]["seconds"], 1e-9)
    print(f"compiled is {ratio:.2f} times as fast")
    return 0 if same else 1


def _decisions(per_preset: int) -> dict[str, object]:
    """Positions from games of the heuristic, and what ``strong`` and ``hard`` choose on each
    (the engine imported is whichever ``sys.path`` gives)."""
    import random
    import time

    from engine import PRESETS, Game
    from engine.ai import AIPlayer, default_action

    rng = random.Random(7)
    actions: list[str] = []
    seconds = 0.0
    for name, rules in PRESETS.items():
        for i in range(per_preset):
            g = Game.new(rules, 3 + i % 3, seed=f"compiled/{name}/{i}")
            stop = rng.randrange(4, 30)
            while not g.is_over and stop:
                seat = g.to_act[0]
                g.apply(seat, default_action(g, seat))
                stop -= 1
            if g.is_over:
                continue
            seat = g.to_act[0]
            for level in ("strong", "hard"):
                start = time.process_time()
                actions.append(str(AIPlayer(level, seed=i).choose(g.view(seat))))
                seconds += time.process_time() - start
    return {"actions": actions, "seconds": seconds,
            "engine": "compiled" if is_compiled() else "plain"}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=6,
                        help="positions a preset for the check (default 6)")
    sys.exit(_check(parser.parse_args().positions))
