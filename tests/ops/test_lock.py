"""The dependencies: declared, bounded, locked, and installed from the lock.

- every third-party module the project imports belongs to a distribution declared in
  pyproject.toml (the runtime code's among the runtime dependencies; tests' and benchmarks'
  there or in the ``dev`` extra);
- every declared requirement (runtime, dev, build system, requirements/tools.in) has an upper
  bound;
- the lock files pin every one of them, with hashes, at a version inside its range, and
  lock.txt agrees with dev-lock.txt;
- the compiled engine's lock (the runtime and the ``compile`` extra) agrees with dev-lock.txt
  too;
- scripts/_venv.sh (so scripts/start, scripts/test and .ci/run) and docker/Dockerfile install
  from the lock files, and _venv.sh installs again when one of them changes.

Reads files only (and runs _venv.sh against a stand-in pip): no network.
"""

from __future__ import annotations

import ast
import os
import re
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.ops.test_docker import dockerfile_stages

REPO = Path(__file__).resolve().parents[2]
REQ = REPO / "requirements"
LOCKS = ("tools.txt", "lock.txt", "dev-lock.txt", "compile-lock.txt")
RUNTIME_CODE = ("engine", "kolkhoz_tg", "migrations")
OTHER_CODE = ("tests", "benchmarks", "scripts")
FIRST_PARTY = {"engine", "kolkhoz_tg", "tests", "benchmarks", "migrations"}


def pyproject() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def requirements_of(group: str) -> list[Requirement]:
    data = pyproject()
    project = data["project"]
    assert isinstance(project, dict)
    if group == "runtime":
        lines = project["dependencies"]
    elif group == "build":
        build = data["build-system"]
        assert isinstance(build, dict)
        lines = build["requires"]
    elif group == "tools":
        lines = [line.split("#", 1)[0].strip()
                 for line in (REQ / "tools.in").read_text(encoding="utf-8").splitlines()]
        lines = [line for line in lines if line]
    else:
        lines = project["optional-dependencies"][group]
    return [Requirement(line) for line in lines]


# ---------------------------------------------------------------------- imports


@dataclass(frozen=True)
class Import:
    module: str  # the top-level name
    where: str  # path:line
    optional: bool  # inside `try: ... except ImportError`


def _catches_import_error(node: ast.Try) -> bool:
    for handler in node.handlers:
        names = []
        if isinstance(handler.type, ast.Name):
            names = [handler.type.id]
        elif isinstance(handler.type, ast.Tuple):
            names = [e.id for e in handler.type.elts if isinstance(e, ast.Name)]
        if {"ImportError", "ModuleNotFoundError"} & set(names):
            return True
    return False


def imports_in(path: Path) -> list[Import]:
    rel = path.relative_to(REPO)
    text = path.read_text(encoding="utf-8")
    found: list[Import] = []
    if path.suffix == ".mako":  # a template: read its import lines
        for number, line in enumerate(text.splitlines(), 1):
            match = re.match(r"(?:import|from)\s+([A-Za-z_]\w*)", line)
            if match:
                found.append(Import(match.group(1), f"{rel}:{number}", False))
        return found

    def visit(node: ast.AST, optional: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(alias.name.split(".")[0], f"{rel}:{node.lineno}", optional))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(Import(node.module.split(".")[0], f"{rel}:{node.lineno}", optional))
        if isinstance(node, ast.Try) and _catches_import_error(node):
            for child in node.body:
                visit(child, True)
            for part in (node.handlers, node.orelse, node.finalbody):
                for child in part:
                    visit(child, optional)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, optional)

    visit(ast.parse(text, filename=str(rel)), False)
    return found


def third_party_imports(folders: tuple[str, ...]) -> list[Import]:
    result = []
    for folder in folders:
        base = REPO / folder
        if not base.is_dir():
            continue
        for path in sorted([*base.rglob("*.py"), *base.rglob("*.mako")]):
            if ".venv" in path.parts:
                continue
            local = {p.stem for p in path.parent.glob("*.py")}  # scripts run from their folder
            for imp in imports_in(path):
                if (imp.module in sys.stdlib_module_names or imp.module in FIRST_PARTY
                        or imp.module in local):
                    continue
                result.append(imp)
    return result


def distribution_of(module: str) -> set[str]:
    return {canonicalize_name(d) for d in packages_distributions().get(module, [])}


def test_the_import_scan_sees_what_it_should() -> None:
    modules = {i.module for i in third_party_imports(RUNTIME_CODE)}
    assert {"telegram", "sqlalchemy", "sqlmodel", "alembic", "tornado", "pydantic"} <= modules
    assert "kolkhoz_tg" not in modules and "json" not in modules
    tests = third_party_imports(("tests",))
    assert any(i.module == "pytest" and not i.optional for i in tests)
    assert any(i.module == "yaml" and i.optional for i in tests)  # test_docker's cross-check


@pytest.mark.parametrize(("folders", "groups"), [
    (RUNTIME_CODE, ("runtime",)),
    (OTHER_CODE, ("runtime", "dev")),
])
def test_every_third_party_import_is_declared(
    folders: tuple[str, ...], groups: tuple[str, ...]
) -> None:
    declared = {canonicalize_name(r.name) for g in groups for r in requirements_of(g)}
    missing = []
    for imp in third_party_imports(folders):
        dists = distribution_of(imp.module)
        if imp.optional:
            continue  # used only when present (e.g. PyYAML in tests/ops/test_docker.py)
        if not dists:
            missing.append(f"{imp.where}: {imp.module} is imported but not installed")
        elif not dists & declared:
            missing.append(f"{imp.where}: {imp.module} comes from {', '.join(sorted(dists))},"
                           f" not declared in {' / '.join(groups)} of pyproject.toml")
    assert not missing, "\n".join(missing)


# ---------------------------------------------------------------------- bounds


def has_upper_bound(req: Requirement) -> bool:
    return any(s.operator in ("<", "<=", "~=", "==", "===") for s in req.specifier)


@pytest.mark.parametrize("group", ["runtime", "dev", "compile", "build", "tools"])
def test_every_requirement_has_an_upper_bound(group: str) -> None:
    reqs = requirements_of(group)
    assert reqs
    unbounded = [str(r) for r in reqs if not has_upper_bound(r)]
    assert not unbounded, f"no upper bound ({group}): {unbounded}"


def test_upper_bound_check() -> None:
    assert has_upper_bound(Requirement("a>=1,<2")) and has_upper_bound(Requirement("a~=1.4"))
    assert not has_upper_bound(Requirement("a>=1")) and not has_upper_bound(Requirement("a"))


def test_pyproject_has_no_other_dependency_groups() -> None:
    """A new extra needs its own lock (scripts/lock) and a place in this test."""
    project = pyproject()["project"]
    assert isinstance(project, dict)
    assert set(project["optional-dependencies"]) == {"dev", "compile"}


# ---------------------------------------------------------------------- the lock files


@dataclass(frozen=True)
class Pin:
    version: str
    marker: str
    hashes: tuple[str, ...]


PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*(.*?))?\s*(\\)?$")


def read_lock(name: str) -> dict[str, Pin]:
    lines = (REQ / name).read_text(encoding="utf-8").splitlines()
    pins: dict[str, Pin] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = PIN.match(line)
        assert match, f"{name}: not an exact pin: {line!r}"
        hashes = []
        continued = bool(match.group(4))
        while continued:
            nxt = lines[i].strip()
            i += 1
            continued = nxt.endswith("\\")
            value = nxt.rstrip("\\").strip()
            assert value.startswith("--hash=sha256:"), f"{name}: {value!r}"
            hashes.append(value.removeprefix("--hash=sha256:"))
        key = canonicalize_name(match.group(1))
        assert key not in pins, f"{name}: {key} pinned twice"
        pins[key] = Pin(match.group(2), match.group(3) or "", tuple(hashes))
    return pins


@pytest.mark.parametrize("name", LOCKS)
def test_lock_pins_everything_with_hashes(name: str) -> None:
    text = (REQ / name).read_text(encoding="utf-8")
    assert "#    bash scripts/lock\n" in text, "regenerate with bash scripts/lock"
    pins = read_lock(name)
    assert pins
    for dist, pin in pins.items():
        assert pin.hashes, f"{name}: {dist} has no hash"
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in pin.hashes), dist
        Version(pin.version)
    assert "kolkhoz" not in pins, "the project itself is installed from the checkout"


@pytest.mark.parametrize(("groups", "lock"), [
    (("runtime",), "lock.txt"),
    (("runtime", "dev"), "dev-lock.txt"),
    (("runtime", "compile"), "compile-lock.txt"),
    (("build", "tools"), "tools.txt"),
])
def test_every_declared_requirement_is_pinned_within_its_range(
    groups: tuple[str, ...], lock: str
) -> None:
    pins = read_lock(lock)
    problems = []
    for group in groups:
        for req in requirements_of(group):
            pin = pins.get(canonicalize_name(req.name))
            if pin is None:
                problems.append(f"{req} ({group}) is not in {lock}")
            elif not req.specifier.contains(pin.version, prereleases=True):
                problems.append(f"{req} ({group}): {lock} has {pin.version}")
    assert not problems, "\n".join(problems) + "\nRun bash scripts/lock and commit requirements/."


@pytest.mark.parametrize("name", ["lock.txt", "compile-lock.txt"])
def test_runtime_lock_is_the_dev_lock_without_the_dev_tools(name: str) -> None:
    runtime, dev = read_lock(name), read_lock("dev-lock.txt")
    differ = [f"{dist}: {pin.version} vs {dev[dist].version if dist in dev else 'absent'}"
              for dist, pin in runtime.items() if dist not in dev or dev[dist] != pin]
    assert not differ, f"{name} and dev-lock.txt disagree: " + "; ".join(differ)
    tools = read_lock("tools.txt")
    assert not set(tools) & set(dev), "pip and setuptools belong to tools.txt only"


def test_the_lock_fits_this_python() -> None:
    """What pip would install here from the dev lock is what this environment has."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.markers import Marker

    wrong = []
    for name, pin in read_lock("dev-lock.txt").items():
        if pin.marker and not Marker(pin.marker).evaluate():
            continue
        try:
            installed = version(name)
        except PackageNotFoundError:
            wrong.append(f"{name}=={pin.version} is not installed")
            continue
        if Version(installed) != Version(pin.version):
            wrong.append(f"{name}: {installed} installed, {pin.version} locked")
    if wrong:
        pytest.fail("this environment does not match requirements/dev-lock.txt (scripts/test "
                    "re-syncs .venv when the lock changes):\n" + "\n".join(wrong))


# ---------------------------------------------------------------------- who installs from it


def test_dockerfile_installs_from_the_lock() -> None:
    """The image's own stage (the last; stage 0 compiles the engine,
    tests/ops/test_docker.py)."""
    steps = dockerfile_stages()[-1]
    installs = [a for k, a in steps if k == "RUN" and "pip install" in a]
    commands = [c.strip() for a in installs for c in a.split("&&") if "pip install" in c]
    assert commands[:2] == ["pip install --require-hashes -r requirements/tools.txt",
                            "pip install --require-hashes -r requirements/lock.txt"]
    assert commands[2:] == ["pip install --no-deps --no-build-isolation -e ."]
    copied = next(a for k, a in steps if k == "COPY").split()
    assert copied[:-1] == ["requirements/tools.txt", "requirements/lock.txt"]


def test_scripts_install_through_venv_sh() -> None:
    start = (REPO / "scripts" / "start").read_text(encoding="utf-8")
    test = (REPO / "scripts" / "test").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "source scripts/_venv.sh" in start and re.search(r"^\s*ensure_venv$", start, re.M)
    assert re.search(r"^\s*ensure_venv compile$", start, re.M)  # where it builds the engine
    assert "source scripts/_venv.sh" in test and re.search(r"^ensure_venv dev$", test, re.M)
    assert re.search(r"^exec bash scripts/test\b", ci, re.M)
    for text in (start, test, ci):
        assert "pip install" not in text, "install through scripts/_venv.sh only"
    venv = (REPO / "scripts" / "_venv.sh").read_text(encoding="utf-8")
    installs = [line.strip() for line in venv.replace("\\\n", " ").splitlines()
                if " install " in line and not line.lstrip().startswith("#")]
    installs = [re.sub(r'^PYTHONWARNINGS="[^"]*"\s+', "", line) for line in installs]
    assert installs == [
        '"${pip[@]}" install --quiet --require-hashes -r requirements/tools.txt',
        '"${pip[@]}" install --quiet --require-hashes -r "$lock"',
        '"${pip[@]}" install --quiet --no-deps --no-build-isolation -e .',
    ]


def test_lock_script_is_there() -> None:
    script = REPO / "scripts" / "lock"
    assert script.stat().st_mode & stat.S_IXUSR
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text(encoding="utf-8")
    for name in LOCKS:
        assert f"requirements/{name}" in text
    assert "--generate-hashes" in text and "--universal" in text


FAKE_PYTHON = """#!/bin/sh
# Stands in for .venv/bin/python: records pip's arguments, runs everything else for real.
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
    shift 2
    echo "pip $*" >> "$PIP_LOG"
    exit 0
fi
if [ "$1" = "-m" ] && [ "$2" = "kolkhoz_tg.i18n_compile" ]; then
    exit 0
fi
exec "$REAL_PYTHON" "$@"
"""


def test_venv_sh_installs_from_the_lock_and_again_when_it_changes(tmp_path: Path) -> None:
    """ensure_venv against a ready .venv whose python records the pip commands."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "_venv.sh").write_bytes((REPO / "scripts" / "_venv.sh").read_bytes())
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "requirements").mkdir()
    for name in LOCKS:
        (tmp_path / "requirements" / name).write_text(f"# {name}\n")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    (bin_dir / "activate").write_text(f'PATH="{bin_dir}:$PATH"\n')
    log = tmp_path / "pip.log"
    env = {**os.environ, "PIP_LOG": str(log), "REAL_PYTHON": sys.executable,
           "PYTHON": sys.executable}
    env.pop("VIRTUAL_ENV", None)

    def ensure(*extra: str) -> list[str]:
        log.write_text("")
        done = subprocess.run(["bash", "-c", f"set -euo pipefail; source scripts/_venv.sh; "
                               f"ensure_venv {' '.join(extra)}"],
                              cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        return log.read_text().splitlines()

    first = ensure("dev")
    assert first == [
        "pip --disable-pip-version-check install --quiet --require-hashes -r "
        "requirements/tools.txt",
        "pip --disable-pip-version-check install --quiet --require-hashes -r "
        "requirements/dev-lock.txt",
        "pip --disable-pip-version-check install --quiet --no-deps --no-build-isolation -e .",
        "pip --disable-pip-version-check check",
    ]
    assert ensure("dev") == []  # nothing changed
    base = ensure()
    assert "-r requirements/lock.txt" in base[1] and len(base) == 4
    assert ensure() == [] and ensure("dev") == []
    # A changed lock file (even with an older modification time) installs again.
    lock = tmp_path / "requirements" / "dev-lock.txt"
    stamp_time = (tmp_path / ".venv" / ".installed-dev").stat().st_mtime
    lock.write_text("# dev-lock.txt, refreshed\n")
    os.utime(lock, (stamp_time - 100, stamp_time - 100))
    assert len(ensure("dev")) == 4
    assert ensure() == []  # the runtime lock did not change
    (tmp_path / "requirements" / "tools.txt").write_text("# tools.txt, refreshed\n")
    assert len(ensure()) == 4 and len(ensure("dev")) == 4
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'y'\n")
    assert len(ensure("dev")) == 4
    # A failed install leaves no stamp: the next run tries again.
    python.write_text(FAKE_PYTHON.replace('exit 0\nfi\nif', 'exit 1\nfi\nif', 1))
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'z'\n")
    failed = subprocess.run(["bash", "-c", "set -euo pipefail; source scripts/_venv.sh; "
                             "ensure_venv dev"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert failed.returncode != 0
    assert not (tmp_path / ".venv" / ".installed-dev").exists()
