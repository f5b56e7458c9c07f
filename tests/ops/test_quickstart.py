"""The README's Quick start, followed literally on a fresh clone of the committed HEAD.

``bash scripts/start --humans 0 --preset classic --seed 3`` with no token, no ``.env``, a
fresh HOME and no virtual environment active must create ``.venv``, install the project
(from the package index: this takes a minute or two) and print the final table of a bots-only
game, the same table this checkout prints for that seed. Runs in CI; skipped only without git.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kolkhoz_tg import terminal

HERE = Path(__file__).resolve().parent
TIMEOUT = 15 * 60
COMMAND = ["bash", "scripts/start", "--humans", "0", "--preset", "classic", "--seed", "3"]


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout.strip()


def clean_env(home: Path) -> dict[str, str]:
    """A newcomer's shell: no KOLKHOZ_* settings, no active virtualenv, a fresh HOME."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("KOLKHOZ_")
           and k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    venv_bin = Path(sys.prefix) / "bin"
    path = [p for p in env.get("PATH", "").split(os.pathsep)
            if p and Path(p).resolve() != venv_bin.resolve()]
    # The interpreter this venv was made from comes first: `python3` must be 3.11 or newer.
    env["PATH"] = os.pathsep.join([str(Path(sys.base_prefix) / "bin"), *path])
    env["HOME"] = str(home)
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"),
                     ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state")):
        env[var] = str(home / sub)
    return env


def expected_table(tmp_path: Path) -> list[str]:
    """What this checkout prints for the same game (the language prompt gets end of input,
    as the clone's run does, so both are in the default language)."""
    parser = argparse.ArgumentParser()
    terminal.add_arguments(parser)
    args = parser.parse_args([*COMMAND[2:], "--db", str(tmp_path / "expected.sqlite3")])
    lines: list[str] = []

    def no_input(prompt: str) -> str:
        raise EOFError

    assert terminal.run(args, input_fn=no_input, output=lines.append) == 0
    return "\n".join(lines).splitlines()


def test_quick_start_from_a_fresh_clone(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the quick start begins with a clone")
    top = Path(git("rev-parse", "--show-toplevel", cwd=HERE))
    head = git("rev-parse", "HEAD", cwd=top)
    clone = tmp_path / "kolkhoz"
    git("clone", "--quiet", "--no-hardlinks", str(top), str(clone), cwd=tmp_path)
    git("checkout", "--quiet", "--detach", head, cwd=clone)
    assert not (clone / ".venv").exists() and not (clone / ".env").exists()
    home = tmp_path / "home"
    home.mkdir()
    env = clean_env(home)

    done = subprocess.run(COMMAND, cwd=clone, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"scripts/start failed ({done.returncode}):\n{output[-4000:]}"
    assert "Creating a virtual environment in .venv" in done.stdout
    assert "Installing dependencies" in done.stdout
    # Why a terminal game, in the default language (the language prompt got end of input).
    assert "Токен Telegram-бота (KOLKHOZ_BOT_TOKEN) не задан" in done.stdout
    assert (clone / ".venv" / "bin" / "kolkhoz").exists()
    assert (clone / ".venv" / ".installed-base").exists()
    assert list((clone / "locales").glob("*/LC_MESSAGES/*.mo")), "catalogs not compiled"

    table = expected_table(tmp_path)
    # the heading, a row per player, the winner line
    assert table[-6].startswith("🏁") and table[-1].startswith("🏆")
    assert all(re.match(r"\d\. ", line) for line in table[-5:-1])
    assert done.stdout.rstrip("\n").splitlines()[-6:] == table[-6:], done.stdout[-2000:]
