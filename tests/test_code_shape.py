"""The shape a newcomer can read (issue #30): modules they can hold, service parts that are
plain classes over one public kernel, and no private name borrowed from another module.

Function size is ruff's job (``C90``, McCabe complexity at most 20: ``pyproject.toml``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "kolkhoz_tg")
#: Lines a module may have: beyond it, split it by subject.
MODULE_LINES = 600
#: What a service class may derive from: data and errors, never another part's behaviour.
DATA_BASES = {"Exception", "StrEnum", "ServiceError", "Payload", "NamedTuple", "Protocol"}


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_no_module_a_reader_cannot_hold() -> None:
    sizes = {_name(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _modules()}
    long = {name: n for name, n in sizes.items() if n > MODULE_LINES}
    assert not long, f"modules over {MODULE_LINES} lines: {long}"


def test_the_service_is_plain_classes_not_mixins() -> None:
    """No mixins in the service: its parts are plain classes built over the public kernel,
    and ``GameService`` derives from nothing, delegating to them."""
    found = []
    for path in sorted((ROOT / "kolkhoz_tg" / "service").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        errors = {c.name for c in classes if c.name.endswith("Error")}
        for node in classes:
            bases = {ast.unparse(b) for b in node.bases}
            mixin = "Mixin" in node.name or (node.name == "GameService" and bool(bases))
            borrows = bool(bases - DATA_BASES - errors) and not node.name.endswith("Error")
            if mixin or borrows:
                found.append(f"{_name(path)}: {node.name}{sorted(bases)}")
    assert not found, "\n".join(found)


def test_no_private_name_imported_from_another_module() -> None:
    borrowed = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            if node.module.split(".")[0] not in PACKAGES:
                continue
            borrowed += [f"{_name(path)}: from {node.module} import {alias.name}"
                         for alias in node.names
                         if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not borrowed, "\n".join(borrowed)
