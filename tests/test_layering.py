"""Every rule lives in engine/: the front ends hold no rule arithmetic or hand-built actions,
and Telegram stays out of the engine and the service layer."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What a front end must ask the engine for instead of working it out.
RULE_PATTERNS = {
    "suit letters spelled out": re.compile(r"[\"']HDCS[\"']"),
    "an action built from a string": re.compile(r"f[\"'](play|assign|trump|swap):"),
    "an action recognised by its text": re.compile(
        r"startswith\([\"'](play|assign|trump|swap):|[\"']swap:pass[\"']"),
    "card arithmetic (rank or points from an id)": re.compile(r"%\s*13\b|//\s*13\b"),
}


def _sources(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


def test_no_rule_logic_above_the_engine() -> None:
    found = []
    for path in _sources("kolkhoz_tg"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for what, pattern in RULE_PATTERNS.items():
                if pattern.search(code):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()}")
    assert not found, "\n".join(found)


def test_telegram_stays_in_the_bot() -> None:
    pattern = re.compile(r"^\s*(from|import)\s+telegram\b", re.M)
    leaking = [
        str(p.relative_to(ROOT))
        for folder in ("engine", "kolkhoz_tg/service", "kolkhoz_tg/storage")
        for p in _sources(folder)
        if pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert not leaking


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    pattern = re.compile(r"^\s*(?:from|import)\s+([a-zA-Z_][\w]*)", re.M)
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    found = {
        (str(p.relative_to(ROOT)), m)
        for p in _sources("engine")
        for m in pattern.findall(p.read_text(encoding="utf-8"))
        if m not in allowed
    }
    assert not found
