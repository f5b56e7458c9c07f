"""Every rule lives in engine/: the front ends hold no rule arithmetic or hand-built actions,
and Telegram stays out of the engine and the service layer."""

from __future__ import annotations

import ast
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
        for folder in ("engine", "kolkhoz_tg/service", "kolkhoz_tg/storage", "kolkhoz_tg/present")
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


def test_the_rules_never_import_the_ai_players() -> None:
    """engine/ai/ (the AI players) sits beside the rules: it imports them, never the other
    way round, not even lazily or for type checking."""
    pattern = re.compile(r"^\s*(?:from\s+engine\.ai\b|import\s+engine\.ai\b"
                         r"|from\s+engine\s+import\s+[^\n]*\bai\b)", re.M)
    found = [
        str(p.relative_to(ROOT))
        for p in _sources("engine")
        if "ai" not in p.relative_to(ROOT / "engine").parts[:-1]
        and pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert not found


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that module ``name`` (at ``path``) imports, at the top or
    inside a function (a lazy import closes a cycle all the same), but not under
    ``if TYPE_CHECKING:``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from package import module`` imports that module, ``from module import name``
            # the module itself.
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                         for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


def import_cycles(root: Path, package: str) -> list[list[str]]:
    """The groups of modules of ``package`` (a folder under ``root``) that import one another
    in a circle: the strongly connected components of its import graph with more than one
    module, each sorted."""
    paths = {_module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}
    graph = {name: _imported(path, name, set(paths)) for name, path in paths.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while (member := stack.pop()) != node:
                group.append(member)
            if group:
                cycles.append(sorted([node, *group]))

    for name in sorted(graph):
        if name not in index:
            connect(name)
    return cycles


def test_no_module_of_kolkhoz_tg_imports_one_that_imports_it_back() -> None:
    assert import_cycles(ROOT, "kolkhoz_tg") == []


def test_the_cycle_check_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for name, text in {
        "__init__.py": "",
        "sub/__init__.py": "",
        "sub/app.py": "from pkg.sub.hooks import x\n",
        "sub/hooks.py": "def serve():\n    from .app import y\n",  # lazy and relative
        "sub/typed.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                        "    from pkg import alone\n",
        "alone.py": "from pkg.sub import typed\n",  # back only under TYPE_CHECKING
        "a.py": "import pkg.b\n",
        "b.py": "from pkg import c\n",
        "c.py": "from pkg.a import f\n",
    }.items():
        (pkg / name).write_text(text, encoding="utf-8")
    assert import_cycles(tmp_path, "pkg") == [
        ["pkg.a", "pkg.b", "pkg.c"], ["pkg.sub.app", "pkg.sub.hooks"]]
