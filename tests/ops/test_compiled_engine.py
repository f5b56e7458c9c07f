"""The compiled engine (kolkhoz_tg/compiled_engine.py): it decides exactly as the plain one,
is built once per engine version, and is what ``kolkhoz play`` / ``kolkhoz bot`` and their
search workers think with when it is there.

The build takes about a minute of one core the first time (it is cached by the engine's
sources in ``.cache/``, and the tests that need it share one: a second test worker waits for
the first one's build instead of building again); a machine without a C compiler skips them,
saying why. What needs no build runs everywhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kolkhoz_tg import compiled_engine

ROOT = Path(__file__).resolve().parents[2]
MISSING = compiled_engine.missing_tools()
needs_build = pytest.mark.skipif(
    MISSING is not None, reason=f"the engine cannot be compiled here: {MISSING}")
GAME = ["play", "--humans", "0", "--preset", "classic", "--seed", "3", "--level", "normal"]


@pytest.fixture(scope="module")
def built() -> Path:
    return compiled_engine.build()


def run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter at the checkout's root, no KOLKHOZ_* setting but
    ``env``'s."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**clean, **env})


def play(db: Path, **env: str) -> tuple[str, bool]:
    """A bots-only terminal game through ``kolkhoz``'s entry point: its output, and whether
    it ran on the compiled engine."""
    code = ("import json, sys\n"
            "from kolkhoz_tg import cli, compiled_engine\n"
            f"assert cli.main({[*GAME, '--db', str(db)]!r}) == 0\n"
            "print(json.dumps(compiled_engine.is_compiled()))\n")
    done = run(code, **env)
    assert done.returncode == 0, done.stderr
    *table, last = done.stdout.strip().splitlines()
    return "\n".join(table), json.loads(last)


@needs_build
def test_the_compiled_engine_makes_the_same_decisions(built: Path) -> None:
    done = subprocess.run([sys.executable, "benchmarks/compiled.py", "--positions", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plain     (plain)" in done.stdout and "compiled  (compiled)" in done.stdout
    assert "the same decisions" in done.stdout


@needs_build
def test_a_game_plays_the_same_on_either_engine(built: Path, tmp_path: Path) -> None:
    compiled, on_compiled = play(tmp_path / "a.sqlite3")  # auto: the build is there
    plain, on_plain = play(tmp_path / "b.sqlite3", KOLKHOZ_ENGINE="plain")
    assert on_compiled and not on_plain
    assert compiled == plain and "🏆" in compiled


@needs_build
def test_the_search_workers_think_with_the_compiled_engine(built: Path) -> None:
    """The bot's search workers start by ``spawn``: they inherit the path to the build."""
    code = ("from kolkhoz_tg import compiled_engine\n"
            "print(compiled_engine.activate('compiled'))\n"
            "from kolkhoz_tg.bot.thinking import process_pool\n"
            "pool = process_pool(1)\n"
            "print(pool.submit(eval, \"__import__('engine.state').state.__file__\").result())\n"
            "pool.shutdown()\n")
    done = run(code)
    assert done.returncode == 0, done.stderr
    status, worker_file = done.stdout.strip().splitlines()[-2:]
    assert status == f"compiled ({built})"
    assert worker_file.startswith(str(built)) and worker_file.endswith(".so")


@needs_build
def test_engine_status_and_build_say_what_is_there(built: Path) -> None:
    status = subprocess.run([sys.executable, "-m", "kolkhoz_tg.cli", "engine", "status"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert status.returncode == 0 and str(built) in status.stdout
    again = subprocess.run([sys.executable, "-m", "kolkhoz_tg.cli", "engine", "build"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and str(built) in again.stdout  # built already: no rebuild
    # The image's build stage, which has only the engine and the builder module.
    module = subprocess.run([sys.executable, "-m", "kolkhoz_tg.compiled_engine"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert module.returncode == 0 and module.stdout.strip() == f"the compiled engine: {built}"


def test_without_a_build_compiled_mode_refuses_to_start(tmp_path: Path) -> None:
    """``KOLKHOZ_ENGINE=compiled`` (the image's) with no build for these sources: one line,
    exit status 2, nothing played; ``auto`` plays on the plain engine."""
    empty = str(tmp_path / "cache")
    code = (f"from kolkhoz_tg import cli\nraise SystemExit(cli.main({GAME!r} + "
            f"['--db', {str(tmp_path / 'g.sqlite3')!r}]))\n")
    refused = run(code, KOLKHOZ_ENGINE="compiled", KOLKHOZ_ENGINE_CACHE=empty)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "kolkhoz: KOLKHOZ_ENGINE=compiled, but the engine is not compiled for these sources: "
        "run `kolkhoz engine build`"]
    assert not (tmp_path / "g.sqlite3").exists()
    table, compiled = play(tmp_path / "h.sqlite3", KOLKHOZ_ENGINE_CACHE=empty)
    assert not compiled and "🏆" in table
    status = run("from kolkhoz_tg import cli\nraise SystemExit(cli.main(['engine', 'status']))",
                 KOLKHOZ_ENGINE_CACHE=empty)
    assert status.returncode == 1 and status.stdout.startswith("not compiled")


def test_an_unknown_engine_setting_is_refused(tmp_path: Path) -> None:
    done = run("from kolkhoz_tg import cli\nraise SystemExit(cli.main(['bot']))",
               KOLKHOZ_ENGINE="fast", KOLKHOZ_BOT_TOKEN="1:x",
               KOLKHOZ_BOT_API_URL="http://127.0.0.1:9/bot")  # never Telegram's
    assert done.returncode != 0 and "engine" in done.stderr


def test_the_build_is_keyed_by_the_engines_sources(tmp_path: Path) -> None:
    """An edited engine gets a build of its own, never a stale one."""
    engine = tmp_path / "engine"
    shutil.copytree(ROOT / "engine", engine, ignore=shutil.ignore_patterns("__pycache__"))
    before = compiled_engine.key(engine)
    assert compiled_engine.key(engine) == before == compiled_engine.key()
    (engine / "state.py").write_text((engine / "state.py").read_text() + "\n# edited\n")
    edited = compiled_engine.key(engine)
    assert edited != before
    (engine / "state.py").write_text((ROOT / "engine" / "state.py").read_text())
    assert compiled_engine.key(engine) == before
    (engine / "ai" / "value.json").write_text("{}")  # data the compiled copy reads too
    assert compiled_engine.key(engine) != before


def test_the_compiled_engine_is_refused_once_the_plain_one_is_imported() -> None:
    import engine  # noqa: F401  (the test process has it already)

    with pytest.raises(RuntimeError, match="imported already"):
        compiled_engine.activate()
    assert not compiled_engine.is_compiled()


def test_where_it_cannot_be_built_it_says_why(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setattr(compiled_engine.shutil, "which", lambda name: None)
    assert compiled_engine.missing_tools() is not None
    assert "C compiler" in (compiled_engine.missing_tools() or "")
    with pytest.raises(compiled_engine.Unavailable, match="C compiler"):
        compiled_engine.build(str(tmp_path))
    assert not any(tmp_path.iterdir())


FAKE_KOLKHOZ = """#!/bin/sh
# Stands in for .venv/bin/kolkhoz: records its arguments; the engine is not built yet.
echo "kolkhoz $*" >> "$PIP_LOG"
if [ "$1 $2" = "engine status" ]; then exit 1; fi
exit 0
"""


@pytest.mark.parametrize(("token", "engine", "compiles"), [
    ("1:x", "auto", True), ("1:x", "plain", False), ("", "auto", False)])
def test_the_start_script_compiles_the_engine_for_the_bot(
        tmp_path: Path, token: str, engine: str, compiles: bool) -> None:
    """With a token and a C compiler, ``scripts/start`` installs mypy from its lock and
    builds the engine before the bot starts; the terminal game (no token) and
    ``KOLKHOZ_ENGINE=plain`` skip both. (A stand-in ``.venv`` records what it is asked.)"""
    from tests.ops.test_lock import FAKE_PYTHON

    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: the start script would not compile")
    (tmp_path / "scripts").mkdir()
    for name in ("_venv.sh", "start"):
        (tmp_path / "scripts" / name).write_bytes((ROOT / "scripts" / name).read_bytes())
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "requirements").mkdir()
    for name in ("tools.txt", "lock.txt", "compile-lock.txt"):
        (tmp_path / "requirements" / name).write_text(f"# {name}\n")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, text in (("python", FAKE_PYTHON), ("kolkhoz", FAKE_KOLKHOZ)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (bin_dir / "activate").write_text(f'PATH="{bin_dir}:$PATH"\n')
    log = tmp_path / "calls.log"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KOLKHOZ_") and k != "VIRTUAL_ENV"}
    env.update(PIP_LOG=str(log), REAL_PYTHON=sys.executable, PYTHON=sys.executable,
               KOLKHOZ_ENGINE=engine, KOLKHOZ_BOT_TOKEN=token)
    done = subprocess.run(["bash", "scripts/start"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    installed = [c.rsplit(" ", 1)[-1] for c in calls if "--require-hashes" in c]
    engine_calls = [c for c in calls if c.startswith("kolkhoz engine")]
    if compiles:
        assert installed == ["requirements/tools.txt", "requirements/compile-lock.txt"]
        assert engine_calls == ["kolkhoz engine status", "kolkhoz engine build --if-possible"]
        assert "Compiling the engine" in done.stdout
    else:
        assert installed == ["requirements/tools.txt", "requirements/lock.txt"]
        assert engine_calls == []
    assert calls[-1] == ("kolkhoz bot" if token else "kolkhoz play")


def test_a_cache_keeps_the_newest_builds(tmp_path: Path) -> None:
    """An upgrade builds again; the cache keeps the newest few builds, not every one."""
    import time

    for i in range(compiled_engine.KEEP + 2):
        (tmp_path / f"build{i}" / "engine").mkdir(parents=True)
        stamp = time.time() - 100 + i
        os.utime(tmp_path / f"build{i}", (stamp, stamp))
    (tmp_path / ".lock").write_text("")
    compiled_engine._prune(tmp_path)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == [".lock", *(f"build{i}" for i in range(2, compiled_engine.KEEP + 2))]
