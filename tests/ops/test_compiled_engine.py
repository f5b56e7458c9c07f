"""benchmarks/compiled.py: the engine compiled with mypyc decides exactly as the plain one.

The build takes about a minute of one core the first time (it is cached by the engine's
sources in ``.cache/``); a machine without a C compiler skips it, saying why.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from benchmarks import compiled

ROOT = Path(__file__).resolve().parents[2]
_CC = (sysconfig.get_config_var("CC") or "cc").split()[0]

pytestmark = pytest.mark.skipif(
    shutil.which(_CC) is None, reason=f"no C compiler ({_CC}) to build the compiled engine")


def test_the_compiled_engine_makes_the_same_decisions() -> None:
    done = subprocess.run([sys.executable, "benchmarks/compiled.py", "--positions", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "plain     (plain)" in done.stdout and "compiled  (compiled)" in done.stdout
    assert "the same decisions" in done.stdout


def test_the_build_is_keyed_by_the_engines_sources(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """An edited engine gets a build of its own, never a stale one."""
    engine = tmp_path / "engine"
    shutil.copytree(ROOT / "engine", engine, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(compiled, "ROOT", tmp_path)
    before = compiled.key()
    assert compiled.key() == before
    (engine / "state.py").write_text((engine / "state.py").read_text() + "\n# edited\n")
    edited = compiled.key()
    assert edited != before
    (engine / "ai" / "value.json").write_text("{}")  # data the compiled copy reads too
    assert compiled.key() not in (before, edited)


def test_the_compiled_engine_is_refused_once_the_plain_one_is_imported() -> None:
    import engine  # noqa: F401  (the test process has it already)

    with pytest.raises(RuntimeError, match="imported already"):
        compiled.activate()
    assert not compiled.is_compiled()
