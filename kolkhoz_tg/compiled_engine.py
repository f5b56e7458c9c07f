"""The rules engine compiled to C with mypyc: the same moves, about 2.5 times as fast.

Nearly all of a search bot's thinking is the engine's simulated play, in pure Python. mypyc
(part of mypy) compiles the engine's type-checked modules to C extensions; the decisions stay
exactly the same (a bot's budget is counted in moves), only they come sooner, so a bot
capped by time (the Telegram bot's thinking budget) gets further in it, and ``hard`` stays
within its second.

The build is a copy of ``engine/`` in ``<cache>/<key>/`` (``KOLKHOZ_ENGINE_CACHE``, by
default ``.cache/compiled-engine`` beside ``engine/``), where the key hashes the engine's
sources and data and the Python it is built for: an edited engine is built again, never
run stale, and nothing in the source tree changes. ``kolkhoz engine build`` builds it (a C
compiler, Python's headers and mypy are needed; about a minute of one core),
``scripts/start`` does when it can, and the Docker image does in a build stage of its own.

:func:`activate` puts the build first on ``sys.path`` before anything imports ``engine``
(``kolkhoz play`` and ``kolkhoz bot`` call it first thing; the search workers, started by
``spawn``, inherit the path). ``KOLKHOZ_ENGINE`` says what it does: ``auto`` (the default)
uses a build for these sources when there is one and the plain engine otherwise;
``compiled`` refuses to start without one (the image sets it, so a broken build cannot ship
the slow engine unnoticed); ``plain`` never uses one.

The modules left plain (``actions``, ``rules``, ``views``, ...) build their frozen values
with ``object.__setattr__``, which a compiled class refuses, and run once a decision, not
once a simulated move. This module imports nothing of the engine's.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

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
#: What ``KOLKHOZ_ENGINE`` may be.
MODES = ("auto", "compiled", "plain")


class Unavailable(RuntimeError):
    """The compiled engine cannot be built or used here; the message says why."""


def source() -> Path:
    """The ``engine`` package's directory, found without importing it."""
    spec = importlib.util.find_spec("engine")
    if spec is None or not spec.submodule_search_locations:
        raise Unavailable("the engine package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def cache_dir(configured: str | None = None) -> Path:
    """Where builds are kept: ``configured`` (``KOLKHOZ_ENGINE_CACHE``), else
    ``.cache/compiled-engine`` beside ``engine/`` (the checkout's root, ``/app`` in the
    image)."""
    if configured and configured.strip():
        return Path(configured.strip())
    return source().parent / ".cache" / "compiled-engine"


def key(engine: Path | None = None) -> str:
    """What a build depends on: every source and data file of the engine and the Python it
    runs on (an extension module is built for one interpreter). The compiler's version is
    not part of it: another mypyc builds the same code."""
    root = source() if engine is None else engine
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".json"):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
    h.update(sys.version.encode())
    h.update(str(sysconfig.get_config_var("EXT_SUFFIX")).encode())
    return h.hexdigest()[:16]


def built(cache: str | None = None) -> Path | None:
    """The directory holding a compiled ``engine`` for these sources, if one was built
    (``cache``: as for :func:`cache_dir`)."""
    target = cache_dir(cache) / key()
    return target if (target / "engine" / "__init__.py").is_file() else None


def missing_tools() -> str | None:
    """Why no build can be made here (no C compiler, no Python headers, no mypy), or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").is_file():
        return f"no Python headers (Python.h in {include})"
    if importlib.util.find_spec("mypyc") is None:
        return "mypy (which has mypyc) is not installed"
    return None


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One build at a time in ``folder`` (two test workers, two shells): the second waits
    and then finds the first one's build."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the rename below still keeps builds whole
        yield
        return
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def build(cache: str | None = None, quiet: bool = True) -> Path:
    """The directory holding the compiled ``engine`` package, built first if needed
    (``cache``: as for :func:`cache_dir`). Raises :class:`Unavailable` if it cannot be built
    here or mypyc fails (its output is in the message)."""
    engine = source()
    target = cache_dir(cache) / key(engine)
    if (target / "engine" / "__init__.py").is_file():
        return target
    why = missing_tools()
    if why is not None:
        raise Unavailable(why)
    target.parent.mkdir(parents=True, exist_ok=True)
    with _locked(target.parent):
        if (target / "engine" / "__init__.py").is_file():
            return target
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            work = Path(tmp)
            shutil.copytree(engine, work / "engine",
                            ignore=shutil.ignore_patterns("__pycache__", "*.so"))
            # No project configuration: the sources are checked as they are, for the build.
            done = subprocess.run(
                [sys.executable, "-m", "mypyc", *MODULES], cwd=work, capture_output=True,
                text=True, env={**os.environ, "MYPYC_OPT_LEVEL": "3"},
            )
            if done.returncode != 0:
                raise Unavailable(f"mypyc failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
            if not quiet:
                print(done.stdout[-2000:])
            ready = work / "built"
            ready.mkdir()
            shutil.move(work / "engine", ready / "engine")
            for lib in work.glob("*.so"):  # mypyc's shared runtime module for the group
                shutil.move(lib, ready / lib.name)
            ready.rename(target)
        _prune(target.parent)
    return target


#: Builds kept in a cache (the newest): an upgrade leaves a few older ones, not all of them.
KEEP = 3


def _prune(folder: Path) -> None:
    """Delete all but the :data:`KEEP` newest builds in ``folder`` (a process still running
    an older one keeps its modules: they are loaded already)."""
    builds = sorted((p for p in folder.iterdir() if (p / "engine").is_dir()),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in builds[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)


def is_compiled() -> bool:
    """Whether the imported engine is the compiled one."""
    state = sys.modules.get("engine.state")
    return bool(state and state.__file__ and not state.__file__.endswith(".py"))


#: What :func:`activate` chose, for the log and the metrics (None: it has not run).
status: str | None = None


def activate(mode: str = "auto", cache: str | None = None) -> str:
    """Use the compiled engine as ``mode`` says (see the module docstring), before anything
    imports ``engine`` (``cache``: as for :func:`cache_dir`); returns what was chosen, in a
    phrase for the log. Raises :class:`Unavailable` in ``compiled`` mode without a build for
    these sources, and :class:`RuntimeError` if the engine is imported already."""
    global status
    if mode not in MODES:
        raise ValueError(f"KOLKHOZ_ENGINE must be one of {', '.join(MODES)}, not {mode!r}")
    if "engine" in sys.modules:
        raise RuntimeError("the engine is imported already: activate the compiled one first")
    path = None if mode == "plain" else built(cache)
    if path is None:
        if mode == "compiled":
            raise Unavailable("KOLKHOZ_ENGINE=compiled, but the engine is not compiled for "
                              "these sources: run `kolkhoz engine build`")
        status = ("plain Python (KOLKHOZ_ENGINE=plain)" if mode == "plain" else
                  "plain Python (not compiled for these sources: `kolkhoz engine build`)")
        return status
    sys.path.insert(0, str(path))
    import engine.state

    suffix = str(sysconfig.get_config_var("EXT_SUFFIX"))
    if not (engine.state.__file__ or "").endswith(suffix):
        raise RuntimeError(f"engine.state came from {engine.state.__file__}, not the build")
    status = f"compiled ({path})"
    return status


def main() -> int:
    """``python -m kolkhoz_tg.compiled_engine``: build for these sources (the image's build
    stage, which has the engine and this module only; elsewhere ``kolkhoz engine build``)."""
    try:
        print(f"the compiled engine: {build(os.environ.get('KOLKHOZ_ENGINE_CACHE'))}")
    except Unavailable as e:
        print(f"the engine could not be compiled: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
