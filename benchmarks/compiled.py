"""The engine compiled to C with mypyc, for long benchmark runs: the same code, about twice
as fast.

A strength table of thousands of games spends nearly all its time in the engine's playouts.
mypyc (it ships with mypy, a development dependency) compiles the engine's type-checked
modules to C extensions; the decisions stay exactly the same (the budget is counted in
moves, never in seconds), so a table played compiled pools with one played plain, and
``ai_bench.py --replay`` can check any recorded game either way. Only the decision times
differ: a game recorded compiled says so (``"engine": "compiled"``), and ``--report`` prints
its times apart, since the levels' time goals are those of the plain engine the bot runs.

The build is a copy of ``engine/`` in ``.cache/compiled-engine/<key>/``, where the key
hashes the engine's sources, mypy's version and the Python it runs on: an edited engine is
built again, never run stale. Nothing in the source tree changes. Usage::

    python benchmarks/compiled.py            # build (about a minute) and check it
    python benchmarks/ai_bench.py --compiled ...   # benchmarks that take the flag

The modules left plain (``actions``, ``rules``, ``views``...) build their values with
tricks a compiled class refuses (``object.__setattr__`` on frozen instances) and run once per
decision, not once per simulated move.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "compiled-engine"

#: The modules a playout runs through, compiled; the rest of the engine stays plain Python.
MODULES = (
    "engine/cards.py",
    "engine/phase.py",
    "engine/data.py",
    "engine/legality.py",
    "engine/requisition.py",
    "engine/state.py",
    "engine/determinize.py",
    "engine/ai/heuristic.py",
    "engine/ai/search.py",
    "engine/ai/value.py",
    "engine/ai/model.py",
    "engine/ai/infer.py",
)


def key() -> str:
    """What the build depends on: every engine source and data file, mypy's version and the
    interpreter (an extension module is built for one Python)."""
    import mypy.version

    h = hashlib.sha256()
    for path in sorted((ROOT / "engine").rglob("*")):
        if path.is_file() and path.suffix in (".py", ".json"):
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(path.read_bytes())
    h.update(mypy.version.__version__.encode())
    h.update(sys.version.encode())
    h.update(str(sysconfig.get_config_var("EXT_SUFFIX")).encode())
    return h.hexdigest()[:16]


def build(quiet: bool = True) -> Path:
    """The directory holding the compiled ``engine`` package, built first if needed.
    Raises :class:`RuntimeError` if mypyc fails (its output is in the message)."""
    target = CACHE / key()
    if (target / "engine").is_dir():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "engine", work / "engine",
                        ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        # No project configuration: the sources are checked as they are, for the build only.
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *MODULES], cwd=work, capture_output=True,
            text=True, env={**os.environ, "MYPYC_OPT_LEVEL": "3"},
        )
        if done.returncode != 0:
            raise RuntimeError(f"mypyc failed:\n{done.stdout}\n{done.stderr}")
        if not quiet:
            print(done.stdout[-2000:])
        built = work / "built"
        built.mkdir()
        shutil.move(work / "engine", built / "engine")
        for lib in work.glob("*.so"):  # mypyc's shared runtime module for the group
            shutil.move(lib, built / lib.name)
        try:
            built.rename(target)
        except OSError:  # another process built the same key meanwhile
            if not (target / "engine").is_dir():
                raise
    return target


def activate() -> Path:
    """Build if needed and put the compiled engine first on ``sys.path``; call it before
    anything imports ``engine``. Raises :class:`RuntimeError` if it is imported already."""
    if "engine" in sys.modules:
        raise RuntimeError("the engine is imported already: activate the compiled one first")
    path = build()
    sys.path.insert(0, str(path))
    import engine.state

    if not engine.state.__file__ or not engine.state.__file__.endswith(
            str(sysconfig.get_config_var("EXT_SUFFIX"))):
        raise RuntimeError(f"engine.state came from {engine.state.__file__}, not the build")
    return path


def is_compiled() -> bool:
    """Whether the imported engine is the compiled one."""
    state = sys.modules.get("engine.state")
    return bool(state and state.__file__ and not state.__file__.endswith(".py"))


def _check(positions: int) -> int:
    """Build, then compare the decisions of ``strong`` and ``hard`` on ``positions``
    positions of every preset, compiled and plain (in two processes); 0 if all agree."""
    import json

    path = build(quiet=False)
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
