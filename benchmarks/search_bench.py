"""The search's speed: CPU time of ``hard``'s decisions on fixed positions, plain and compiled,
next to another checkout's as the baseline, with a digest that says whether they decide alike.

The positions come from games of the heuristic, every preset with 3, 4 and 5 players (one
non-forced decision in nine, about 200 in all). Each is searched with ``hard``'s settings and
a budget of ``--moves`` simulated moves (5,000 by default: the same work per move as the
level's own budget, in a run of seconds), seeded by the position's number, so two engines
that decide alike print the same digest. Each engine runs in a process of its own: the
compiled one (``kolkhoz_tg.compiled_engine``, built on first use, about a minute) has to be in
place before the engine is imported.

Run::

    python benchmarks/search_bench.py [--moves 5000] [--code ../other-checkout] [--plain-only]

``--code DIR`` runs the same measurement on the checkout in DIR (for instance one made with
``git worktree add /tmp/base <commit>``), engine by engine, and prints this one's time as a
share of that one's: the machine's speed drifts from run to run and from day to day, so
compare within a run. A checkout older than ``kolkhoz_tg.compiled_engine`` is measured plain
only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure(moves: int, compiled: bool) -> dict[str, object]:
    """In this process (the checkout is the first entry of ``sys.path``): the positions, each
    searched once; CPU seconds per decision and a digest of the choices."""
    if compiled:
        from kolkhoz_tg import compiled_engine

        compiled_engine.build()
        compiled_engine.activate("compiled")
    import hashlib
    import random
    import time
    from dataclasses import replace

    import engine.state
    from engine import PRESETS, Game
    from engine.ai import AIPlayer, default_action
    from engine.ai.search import PlayoutGame, ranked_search
    from engine.determinize import Determinizer
    from engine.legality import forced_among
    from engine.phase import ASSIGN

    hard = AIPlayer("hard").params
    assert hard is not None
    params = replace(hard, moves=moves)
    views = []
    for name, rules in PRESETS.items():
        for i in range(4):
            g = Game.new(rules, 3 + i % 3, seed=f"search-bench/{name}/{i}")
            choices = 0
            while not g.is_over:
                seat = g.to_act[0]
                if forced_among(g.legal_actions(seat), g.phase is ASSIGN) is None:
                    if choices % 9 == 0:
                        views.append(g.view(seat))
                    choices += 1
                g.apply(seat, default_action(g, seat))
    digest = hashlib.sha256()
    times = []
    for i, view in enumerate(views):
        start = time.process_time()
        det = Determinizer(PlayoutGame, view)
        rng = random.Random(i)
        legal = det.sample(rng).legal_actions(view["viewer"])
        found = ranked_search(det, legal, rng, params)
        times.append(time.process_time() - start)
        digest.update(f"{found.best}:{found.value:.12f};".encode())
    times.sort()
    return {
        "engine": "compiled" if str(engine.state.__file__).endswith((".so", ".pyd")) else "plain",
        "positions": len(views),
        "mean": sum(times) / len(times),
        "p50": times[len(times) // 2],
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        "digest": digest.hexdigest()[:16],
    }


def run(code: Path, moves: int, compiled: bool) -> dict[str, object] | None:
    """:func:`measure` in a process of its own on the checkout ``code``; None if that
    checkout cannot run it (no compiled engine there, or no C compiler here)."""
    if compiled and not (code / "kolkhoz_tg" / "compiled_engine.py").exists():
        return None
    script = ("import sys, json; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])\n"
              "from search_bench import measure\n"
              "print(json.dumps(measure(int(sys.argv[3]), sys.argv[4] == 'compiled')))")
    done = subprocess.run(
        [sys.executable, "-c", script, str(code), str(ROOT / "benchmarks"), str(moves),
         "compiled" if compiled else "plain"],
        cwd=code, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(code)},
    )
    if done.returncode != 0:
        print(f"  ({code}, {'compiled' if compiled else 'plain'}: failed)\n"
              f"{done.stderr[-1500:]}", file=sys.stderr)
        return None
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=5000, help="simulated moves a decision")
    parser.add_argument("--code", type=Path, help="another checkout, measured as the baseline")
    parser.add_argument("--plain-only", action="store_true", help="skip the compiled engine")
    args = parser.parse_args()
    engines = [False] if args.plain_only else [False, True]
    print(f"Python {sys.version.split()[0]}; hard's search with {args.moves:,} moves a "
          "decision; CPU seconds a decision")
    print(f"{'checkout':<10} {'engine':<9} {'positions':>9} {'mean':>7} {'p50':>7} {'p99':>7}"
          f"  digest")
    for compiled in engines:
        rows = {"this": run(ROOT, args.moves, compiled)}
        if args.code is not None:
            rows["baseline"] = run(args.code.resolve(), args.moves, compiled)
        for label, r in rows.items():
            if r is None:
                continue
            print(f"{label:<10} {r['engine']!s:<9} {r['positions']:>9} {r['mean']:>7.4f} "
                  f"{r['p50']:>7.4f} {r['p99']:>7.4f}  {r['digest']}")
        this, base = rows.get("this"), rows.get("baseline")
        if this is not None and base is not None:
            ratio = float(this["mean"]) / float(base["mean"])  # type: ignore[arg-type]
            same = "the same decisions" if this["digest"] == base["digest"] else (
                "DIFFERENT decisions")
            print(f"  this checkout's time is {ratio:.2f} of the baseline's; {same}")


if __name__ == "__main__":
    main()
