"""The Docker files, checked without a Docker engine: compose.yaml's structure (the default
polling bot, the ``webhook`` profile's two replicas behind Caddy, log rotation everywhere),
the Caddyfile, the Dockerfile's instructions (base image, health check, no anonymous
volume), .dockerignore, and docker/entrypoint.sh run for real (SQLite, and PostgreSQL when
``KOLKHOZ_TEST_POSTGRES_URL`` is set) with a harmless final command and operator commands.

PyYAML is not a dependency of this project, so compose.yaml is read by :func:`load_yaml`, a
parser for the small block-style subset the file is written in; when PyYAML happens to be
installed, the two parsers must agree.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from kolkhoz_tg.bot.webhook import HEALTH_PATH
from kolkhoz_tg.config import Settings
from tests.conftest import POSTGRES_ENV

REPO = Path(__file__).resolve().parents[2]
DOCKER = REPO / "docker"
ENTRYPOINT = DOCKER / "entrypoint.sh"
BOT_SERVICES = ("bot", "webhook-1", "webhook-2")
WEBHOOK_REPLICAS = ("webhook-1", "webhook-2")


# ---------------------------------------------------------------------- a YAML subset


def _scalar(text: str) -> Any:
    text = text.strip()
    if text == "":
        return None
    if text[0] in "[{\"":
        return json.loads(text)  # flow collections and strings written as JSON
    if text[0] == "'":
        return text[1:-1].replace("''", "'")
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~"):
        return None
    return text


def load_yaml(text: str) -> Any:
    """Block mappings, block lists of scalars, plain / JSON-style scalars; full-line
    comments only. Enough for docker/compose.yaml, and strict about anything else."""
    lines: list[tuple[int, str]] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        assert "\t" not in raw, f"tab in {raw!r}"
        assert " #" not in stripped or stripped[0] in "[\"", f"inline comment in {raw!r}"
        lines.append((len(raw) - len(raw.lstrip(" ")), stripped))

    def block(i: int, indent: int) -> tuple[Any, int]:
        if lines[i][1].startswith("- "):
            items: list[Any] = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                items.append(_scalar(lines[i][1][2:]))
                i += 1
            return items, i
        mapping: dict[str, Any] = {}
        while i < len(lines) and lines[i][0] == indent:
            content = lines[i][1]
            key, sep, rest = content.partition(":")
            assert sep and (rest == "" or rest.startswith(" ")), f"not a key: {content!r}"
            assert key not in mapping, f"duplicate key {key!r}"
            i += 1
            if rest.strip():
                mapping[key] = _scalar(rest)
            elif i < len(lines) and lines[i][0] > indent:
                mapping[key], i = block(i, lines[i][0])
            else:
                mapping[key] = None
        return mapping, i

    value, end = block(0, lines[0][0])
    assert end == len(lines), f"unexpected indentation at {lines[end][1]!r}"
    return value


def test_yaml_subset_parser() -> None:
    doc = 'a:\n  # note\n  b: 5s\n  c: ["X", "y z"]\n  d:\n    - ../.env\n    - v:/p\ne:\n'
    assert load_yaml(doc) == {"a": {"b": "5s", "c": ["X", "y z"], "d": ["../.env", "v:/p"]},
                              "e": None}


# ---------------------------------------------------------------------- compose.yaml


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    text = (DOCKER / "compose.yaml").read_text(encoding="utf-8")
    data = load_yaml(text)
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:
        pass
    else:
        assert yaml.safe_load(text) == data
    assert isinstance(data, dict)
    return data


def test_compose_database_service(compose: dict[str, Any]) -> None:
    db = compose["services"]["db"]
    assert db["image"] == "postgres:16"
    volume, _, target = db["volumes"][0].partition(":")
    assert target == "/var/lib/postgresql/data"
    assert volume in compose["volumes"], "the data volume must be a named volume"
    check = db["healthcheck"]
    assert check["test"][0] == "CMD-SHELL" and check["test"][1].startswith("pg_isready")
    user, name = db["environment"]["POSTGRES_USER"], db["environment"]["POSTGRES_DB"]
    assert f"-U {user}" in check["test"][1] and f"-d {name}" in check["test"][1]
    assert {"interval", "timeout", "retries"} <= set(check)
    assert db["restart"] == "unless-stopped"
    assert "ports" not in db, "the database needs no published port"


@pytest.mark.parametrize("name", BOT_SERVICES)
def test_compose_bot_services(compose: dict[str, Any], name: str) -> None:
    """The polling bot and both webhook replicas: the image from docker/Dockerfile, the
    repository's .env (token, webhook URL and secret), the compose database."""
    bot = compose["services"][name]
    assert bot["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}
    assert (DOCKER / bot["build"]["context"] / bot["build"]["dockerfile"]).resolve() == (
        DOCKER / "Dockerfile"
    )
    assert bot["env_file"] == ["../.env"]
    assert bot["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert bot["restart"] == "unless-stopped"
    assert "volumes" not in bot, "the bots keep nothing in /data with PostgreSQL"
    db_env = compose["services"]["db"]["environment"]
    url = sa.engine.make_url(bot["environment"]["KOLKHOZ_DATABASE_URL"])
    assert url.get_backend_name() == "postgresql"
    assert (url.host, url.port) == ("db", 5432)
    assert url.username == db_env["POSTGRES_USER"] and url.database == db_env["POSTGRES_DB"]
    assert url.password == db_env["POSTGRES_PASSWORD"]


def test_compose_default_profile_is_polling(compose: dict[str, Any]) -> None:
    """``docker compose up`` starts the database and the polling bot, nothing else."""
    default = {name for name, svc in compose["services"].items() if "profiles" not in svc}
    assert default == {"db", "bot"}
    assert "command" not in compose["services"]["bot"]  # the entrypoint's default: polling
    assert "ports" not in compose["services"]["bot"]


def test_compose_webhook_profile(compose: dict[str, Any]) -> None:
    """Two webhook replicas and a Caddy proxy (an official image) in the ``webhook``
    profile; the replicas take their URL and secret from .env (``--webhook`` alone) and
    listen on the image's webhook port, which only the proxy publishes."""
    services = compose["services"]
    webhook = {name for name, svc in services.items() if "webhook" in svc.get("profiles", [])}
    assert webhook == {*WEBHOOK_REPLICAS, "proxy"}
    for name in WEBHOOK_REPLICAS:
        replica = services[name]
        assert replica["profiles"] == ["webhook"]
        assert replica["command"] == ["--webhook"]
        assert "ports" not in replica, "Telegram reaches the replicas through the proxy"
    proxy = services["proxy"]
    assert proxy["image"] == "caddy:2"
    assert proxy["restart"] == "unless-stopped"
    assert set(proxy["depends_on"]) == set(WEBHOOK_REPLICAS)
    assert "env_file" not in proxy, "the proxy has no business with the bot's token"
    assert {p.split(":")[-1] for p in proxy["ports"]} == {"80", "443"}
    mounts = dict(v.split(":", 1) for v in proxy["volumes"])
    assert mounts["./Caddyfile"] == "/etc/caddy/Caddyfile:ro"
    assert (DOCKER / "Caddyfile").is_file()
    assert mounts["caddy-data"] == "/data" and "caddy-data" in compose["volumes"]
    site = proxy["environment"]["KOLKHOZ_PROXY_SITE"]
    assert site.startswith("${KOLKHOZ_PROXY_SITE:-") and site.endswith(":80}")


def caddy_directives(text: str) -> list[tuple[int, list[str]]]:
    """(depth, words) of each Caddyfile line, comments dropped (braces count depth)."""
    result = []
    depth = 0
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line == "}":
            depth -= 1
            continue
        words = line.removesuffix("{").split()
        result.append((depth, words))
        if line.endswith("{"):
            depth += 1
    assert depth == 0, "unbalanced braces"
    return result


def test_caddyfile_routes_to_both_replicas_and_checks_their_health(
    compose: dict[str, Any],
) -> None:
    lines = caddy_directives((DOCKER / "Caddyfile").read_text(encoding="utf-8"))
    sites = [words for depth, words in lines if depth == 0]
    assert sites == [["{$KOLKHOZ_PROXY_SITE}"]], "one site, named by compose.yaml"
    proxies = [words for _, words in lines if words[0] == "reverse_proxy"]
    assert len(proxies) == 1
    port = Settings(_env_file=None).webhook_port  # type: ignore[call-arg]
    upstreams = proxies[0][1:]
    assert sorted(upstreams) == sorted(f"{name}:{port}" for name in WEBHOOK_REPLICAS)
    options = {words[0]: words[1:] for depth, words in lines if depth == 2}
    assert options["health_uri"] == [HEALTH_PATH]
    assert options["lb_policy"] == ["round_robin"]
    assert "health_interval" in options


@pytest.mark.parametrize("name", ["db", *BOT_SERVICES, "proxy"])
def test_compose_rotates_every_log(compose: dict[str, Any], name: str) -> None:
    logging_ = compose["services"][name]["logging"]
    assert logging_["driver"] == "json-file"
    assert re.fullmatch(r"\d+[km]", logging_["options"]["max-size"])
    assert int(logging_["options"]["max-file"]) >= 2


def test_compose_named_volumes_only(compose: dict[str, Any]) -> None:
    """Every volume a service mounts is declared (no anonymous volume), or a bind mount."""
    for name, svc in compose["services"].items():
        for volume in svc.get("volumes", []):
            source = volume.split(":", 1)[0]
            assert source.startswith(".") or source in compose["volumes"], (name, volume)


# ---------------------------------------------------------------------- Dockerfile


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    result: list[tuple[str, str]] = []
    pending = ""
    for raw in (DOCKER / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, args = line.partition(" ")
        result.append((word.upper(), args.strip()))
    assert not pending
    return result


def dockerfile_stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's instructions, one list a stage (each from its FROM on)."""
    stages: list[list[tuple[str, str]]] = []
    for step in dockerfile_instructions():
        if step[0] == "FROM":
            stages.append([])
        assert stages, "an instruction before the first FROM"
        stages[-1].append(step)
    return stages


def test_the_engine_is_compiled_in_a_stage_of_its_own() -> None:
    """Stage 0 builds the compiled engine with a C compiler and mypy from the lock; the image
    gets only the build, checks it matches its own sources, and refuses to run without it."""
    build, image = dockerfile_stages()
    assert build[0] == ("FROM", "python:3.11-slim-bookworm AS engine")
    runs = [a for k, a in build if k == "RUN"]
    assert any("apt-get install -y --no-install-recommends gcc libc6-dev" in r for r in runs)
    installs = [c.strip() for r in runs for c in r.split("&&") if "pip install" in c]
    assert installs == ["pip install --require-hashes -r requirements/tools.txt",
                        "pip install --require-hashes -r requirements/compile-lock.txt"]
    assert runs[-1] == "python -m kolkhoz_tg.compiled_engine"
    # The engine and its builder alone: a change to the bot's code keeps the layer cached.
    copied = [a for k, a in build if k == "COPY"]
    assert copied == ["requirements/tools.txt requirements/compile-lock.txt requirements/",
                      "engine engine",
                      "kolkhoz_tg/__init__.py kolkhoz_tg/compiled_engine.py kolkhoz_tg/"]
    builder = (REPO / "kolkhoz_tg" / "compiled_engine.py").read_text(encoding="utf-8")
    assert not re.findall(r"^(?:from|import) kolkhoz_tg\b", builder, re.M)
    assert image[0] == ("FROM", "python:3.11-slim-bookworm")  # the same Python
    assert ("COPY", "--from=engine /app/.cache/compiled-engine /app/.cache/compiled-engine") \
        in image
    after = " ".join(a for k, a in image if k == "RUN")
    assert "python -m kolkhoz_tg.cli engine status" in after
    env = " ".join(a for k, a in image if k == "ENV")
    assert "KOLKHOZ_ENGINE=compiled" in env


def test_dockerfile_instructions() -> None:
    steps = dockerfile_stages()[-1]
    kinds = [k for k, _ in steps]
    # A Debian release, not whatever "slim" means on the day of the build.
    assert steps[0] == ("FROM", "python:3.11-slim-bookworm")
    assert ("WORKDIR", "/app") in steps
    # The dependency layer: the lock files alone, then pip install from them, before the source.
    copies = [i for i, (k, a) in enumerate(steps) if k == "COPY" and "--from" not in a]
    dep_copy, source_copy = copies[0], copies[-1]
    assert steps[dep_copy][1].split() == ["requirements/tools.txt", "requirements/lock.txt",
                                          "requirements/"]
    assert steps[source_copy][1].split() == [".", "."]
    dep_install = next(i for i, (k, a) in enumerate(steps)
                       if k == "RUN" and "pip install" in a)
    assert dep_copy < dep_install < source_copy
    assert [part.strip() for part in steps[dep_install][1].split("&&")] == [
        "pip install --require-hashes -r requirements/tools.txt",
        "pip install --require-hashes -r requirements/lock.txt",
    ]
    after = " ".join(a for k, a in steps[source_copy:] if k == "RUN")
    assert "pip install --no-deps --no-build-isolation -e ." in after
    assert "pip check" in after
    assert "python -m kolkhoz_tg.i18n_compile" in after
    # Runs as a non-root user, from the last USER on.
    users = [a for k, a in steps if k == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert kinds.index("USER") > source_copy
    assert "useradd" in after and users[-1] in after
    entry = [a for k, a in steps if k == "ENTRYPOINT"]
    assert len(entry) == 1 and json.loads(entry[0]) == ["docker/entrypoint.sh"]
    assert "CMD" not in kinds


def test_dockerfile_health_check_and_no_anonymous_volume() -> None:
    steps = dockerfile_instructions()
    # No VOLUME: every container (each `docker compose run` too) would leave one behind.
    assert "VOLUME" not in [k for k, _ in steps]
    checks = [a for k, a in steps if k == "HEALTHCHECK"]
    assert len(checks) == 1
    options, _, command = checks[0].partition(" CMD ")
    assert json.loads(command) == ["python", "-m", "kolkhoz_tg.cli", "health"]
    flags = dict(o.lstrip("-").split("=", 1) for o in options.split())
    assert {"interval", "timeout", "start-period", "retries"} <= set(flags)
    env = " ".join(a for k, a in steps if k == "ENV")
    assert "KOLKHOZ_HEALTH_FILE=/tmp/" in env, "the heartbeat goes where the bot may write"


def test_dockerignore_keeps_secrets_out_and_the_build_inputs_in() -> None:
    patterns = [p.strip() for p in (REPO / ".dockerignore").read_text().splitlines()
                if p.strip() and not p.startswith("#")]

    def ignored(path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        for pattern in patterns:
            bare = pattern.removeprefix("**/")
            if any(fnmatch.fnmatch(p, pattern) for p in prefixes):
                return True
            if pattern.startswith("**/") and any(fnmatch.fnmatch(part, bare) for part in parts):
                return True
        return False

    for secret in (".env", ".venv/bin/python", ".git/config", "kolkhoz.sqlite3",
                   ".cache/compiled-engine/0123456789abcdef/engine/state.py",
                   "kolkhoz.sqlite3-wal", "locales/ru/LC_MESSAGES/messages.mo",
                   "kolkhoz_tg/__pycache__/cli.cpython-311.pyc", "tests/conftest.py"):
        assert ignored(secret), secret
    for needed in ("pyproject.toml", "requirements/tools.txt", "requirements/lock.txt",
                   "README.md", "kolkhoz_tg/cli.py", "engine/state.py",
                   "migrations/env.py", "locales/ru/LC_MESSAGES/messages.po",
                   "docker/entrypoint.sh", "alembic.ini",
                   "kolkhoz_tg/picture/fonts/DejaVuSans.ttf",
                   "kolkhoz_tg/picture/fonts/DejaVuSans-Bold.ttf",
                   "kolkhoz_tg/picture/fonts/LICENSE"):
        assert not ignored(needed), needed
        assert (REPO / needed).exists() or needed.endswith(".po"), needed


def test_entrypoint_is_executable_in_git() -> None:
    assert os.access(ENTRYPOINT, os.X_OK)
    assert ENTRYPOINT.read_text().startswith("#!/bin/sh\n")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    done = subprocess.run(["git", "ls-files", "-s", "docker/entrypoint.sh"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"not a git checkout: {done.stderr.strip()}")
    assert done.stdout.split()[:1] == ["100755"], done.stdout or "not tracked by git"


def test_entrypoint_syntax() -> None:
    subprocess.run(["sh", "-n", str(ENTRYPOINT)], check=True)


# ---------------------------------------------------------------------- the entrypoint, run


def entrypoint_env(url: str, **extra: str) -> dict[str, str]:
    """The environment the container would have: no developer settings, kolkhoz on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
    bin_dir = str(Path(sys.executable).parent)
    assert shutil.which("kolkhoz", path=bin_dir), "kolkhoz is not installed next to python"
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["KOLKHOZ_DATABASE_URL"] = url
    env["KOLKHOZ_LOCALE"] = "en"
    env.update(extra)
    return env


def run_entrypoint(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ENTRYPOINT), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def tables(url: str) -> set[str]:
    engine = sa.create_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_entrypoint_sqlite_migrates_then_runs_the_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    done = run_entrypoint(["sh", "-c", "echo final command: $0 $1", "a", "b"],
                          entrypoint_env(url), tmp_path)
    assert done.returncode == 0, done.stderr
    # The migration's chatter goes to stderr: stdout is the final command's alone.
    assert "Schema upgraded to revision" in done.stderr
    assert done.stdout == "final command: a b\n"
    assert "waiting for PostgreSQL" not in done.stderr
    assert "kolkhoz-entrypoint: applying migrations" in done.stderr
    assert {"games", "alembic_version"} <= tables(url)
    again = run_entrypoint(["true"], entrypoint_env(url), tmp_path)
    assert again.returncode == 0 and "Schema is up to date" in again.stderr
    assert again.stdout == ""


def test_entrypoint_runs_the_bot_by_default(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    done = run_entrypoint([], entrypoint_env(url), tmp_path)  # no token: the bot says so
    assert done.returncode == 2
    assert "starting: kolkhoz bot" in done.stderr
    assert "KOLKHOZ_BOT_TOKEN is not set" in done.stderr
    listed = run_entrypoint(["games", "list"], entrypoint_env(url), tmp_path)
    assert listed.returncode == 0 and listed.stdout == "No games.\n"


def finished_game(url: str) -> int:
    """A finished game in the (migrated) database at ``url``; its id."""
    from kolkhoz_tg.service import GameService
    from kolkhoz_tg.storage.database import Database
    from tests.conftest import make_settings
    from tests.service.helpers import new_game, play_out

    db = Database(url)
    try:
        service = GameService(db, settings=make_settings())
        game, _ = new_game(service, preset="zone", seed=5, humans=2)
        play_out(service, game.id)
        return game.id
    finally:
        db.dispose()


def test_games_export_through_the_entrypoint_is_json(tmp_path: Path) -> None:
    """``docker run … games export ID > game.json`` gives valid JSON: the wait and the
    migrations before the command say what they do on stderr only."""
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    game_id = finished_game(url)
    done = run_entrypoint(["games", "export", str(game_id)], entrypoint_env(url), tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "kolkhoz-game-export" and data["game_id"] == game_id
    assert "applying migrations" in done.stderr and "Schema is up to date" in done.stderr
    # Into a mounted directory (here: any writable one) with -o.
    mounted = tmp_path / "exports"
    mounted.mkdir()
    done = run_entrypoint(["games", "export", str(game_id), "-o", str(mounted / "g.json")],
                          entrypoint_env(url), tmp_path)
    assert done.returncode == 0 and done.stdout == "", done.stderr
    written = json.loads((mounted / "g.json").read_text(encoding="utf-8"))
    assert (written["game_id"], written["log"]) == (game_id, data["log"])


def test_games_export_to_an_unwritable_path_says_so_in_one_line(tmp_path: Path) -> None:
    """The image's /app is read-only: ``-o game.json`` there is one line on stderr and exit
    status 1, no traceback, nothing on stdout. (As root, a read-only directory is simulated
    by one that does not exist.)"""
    url = f"sqlite:///{tmp_path / 'bot.sqlite3'}"
    game_id = finished_game(url)
    readonly = tmp_path / "app"
    readonly.mkdir()
    targets = [tmp_path / "missing" / "game.json", readonly]  # a directory is no file either
    if os.geteuid() != 0:
        readonly.chmod(0o555)
        targets.append(readonly / "game.json")
    try:
        for target in targets:
            done = run_entrypoint(["games", "export", str(game_id), "-o", str(target)],
                                  entrypoint_env(url), tmp_path)
            assert done.returncode == 1, done.stderr
            assert done.stdout == ""
            assert "Traceback" not in done.stderr
            ours = [line for line in done.stderr.splitlines()
                    if line.startswith("kolkhoz:")]
            assert ours == [ours[0]] and ours[0].startswith(f"kolkhoz: cannot write {target}:")
    finally:
        readonly.chmod(0o755)


def test_entrypoint_gives_up_on_an_absent_database(tmp_path: Path) -> None:
    env = entrypoint_env("postgresql://kolkhoz:s3cret@127.0.0.1:1/kolkhoz",
                         KOLKHOZ_DB_WAIT_TRIES="3", KOLKHOZ_DB_WAIT_INTERVAL="0")
    done = run_entrypoint(["sh", "-c", "echo should not run"], env, tmp_path)
    assert done.returncode == 1
    assert "should not run" not in done.stdout
    log = done.stderr
    assert "waiting for PostgreSQL (at most 3 attempts, 0s apart)" in log
    assert "attempt 3/3: Database postgresql://kolkhoz:***@127.0.0.1:1/kolkhoz does not answer" \
        in log
    assert "giving up" in log and "applying migrations" not in log and "s3cret" not in log


@pytest.mark.postgres
def test_entrypoint_waits_for_postgres_then_migrates(tmp_path: Path) -> None:
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"PostgreSQL tests need {POSTGRES_ENV} (e.g. postgresql+psycopg://...)")
    from kolkhoz_tg.storage.database import normalize_url

    admin_url = sa.engine.make_url(normalize_url(base))
    name = f"kolkhoz_ep_{uuid.uuid4().hex[:10]}"
    url = admin_url.set(database=name).render_as_string(hide_password=False)
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except sa.exc.OperationalError as e:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL at {POSTGRES_ENV} is not reachable: {e}")

    # The database appears only after the entrypoint has started waiting for it.
    env = entrypoint_env(url, KOLKHOZ_DB_WAIT_TRIES="60", KOLKHOZ_DB_WAIT_INTERVAL="0.5")
    proc = subprocess.Popen([str(ENTRYPOINT), "sh", "-c", "echo bot would start: $0", "ok"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    stderr_lines: list[str] = []
    first_failure = threading.Event()

    def read_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr_lines.append(line)
            if "attempt 1/60" in line:
                first_failure.set()

    reader = threading.Thread(target=read_stderr)
    reader.start()
    try:
        if not first_failure.wait(60):
            errors.append("the entrypoint never reported a failed attempt")
        time.sleep(0.3)
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        assert proc.stdout is not None
        stdout = proc.stdout.read()
        code = proc.wait(timeout=120)
        reader.join(10)
        log = "".join(stderr_lines)
        assert not errors, errors
        assert code == 0, log
        assert f'database "{name}" does not exist' in log
        assert f"Database {url} answers." in log
        assert "Schema upgraded to revision" in log
        assert stdout == "bot would start: ok\n"
        assert {"games", "seats", "actions", "alembic_version"} <= tables(url)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(10)
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()
