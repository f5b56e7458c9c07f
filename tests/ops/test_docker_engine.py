"""The Docker recipe on a real Docker engine: the image built from a fresh clone of the
committed HEAD, run with ``docker/compose.yaml`` against the fake Bot API served on the host.

- polling (the default profile: PostgreSQL and the bot): both containers healthy by
  ``docker inspect``, a game opened by the fake's users through the container, ``games
  export`` valid JSON (it replays) to stdout and with ``-o`` into a mounted directory, and a
  directory uid 10001 cannot write is one line on stderr and exit status 1;
- webhook (the ``webhook`` profile: two replicas behind Caddy): both replicas healthy, the
  webhook registered by both, ``/healthz`` 200 through the proxy, a wrong secret 403, and the
  updates shared between the replicas.

Runs only where a Docker engine answers ``docker info``; skipped with the reason elsewhere
(CI has no engine). Without compose (neither ``docker compose`` nor ``docker-compose``) the
polling check runs the image alone with ``docker run`` (SQLite in a volume) and the webhook
check is skipped. ``KOLKHOZ_TEST_COMPOSE`` picks the compose command (``docker compose``,
``docker-compose``, or ``none`` for the ``docker run`` path). Each run builds the image from
scratch and removes everything it made (containers, volumes, network, image), failing or not.
A few minutes: marked ``docker`` and ``slow`` (``-m "not docker"`` leaves it out).
See docs/deploy.md.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import shlex
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from kolkhoz_tg.admin import replay_export
from tests.bot.driver import NAMES, action_buttons
from tests.faketg import FakeBotApiServer, FakeTelegram
from tests.helpers import until

pytestmark = [pytest.mark.docker, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
BUILD_TIMEOUT = 20 * 60
HEALTHY_TIMEOUT = 240  # the image's first health check runs 30 s after the start
STEP = 60  # seconds for the bot to answer a step of the game
UID = 10001  # the image's user


def run(cmd: list[str], *, cwd: Path | None = None, timeout: float = 300,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False, stdin=subprocess.DEVNULL)
    if check:
        assert done.returncode == 0, (
            f"{shlex.join(cmd)} failed ({done.returncode}):\n{done.stdout[-3000:]}\n"
            f"{done.stderr[-3000:]}")
    return done


async def arun(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``run`` in a thread, so that the fake Bot API (this event loop) keeps answering."""
    return await asyncio.to_thread(run, cmd, **kwargs)


def engine_or_skip() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed: the image is built from a fresh clone")
    if shutil.which("docker") is None:
        pytest.skip("no `docker` command: this test needs a Docker engine")
    done = run(["docker", "info", "--format", "{{.ServerVersion}}"], timeout=60, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        why = (done.stderr.strip().splitlines() or ["no answer"])[-1]
        pytest.skip(f"no Docker engine answers `docker info` ({why}); this test runs only "
                    "where one does")


def compose_command(clone: Path) -> tuple[list[str] | None, str]:
    """``docker compose`` (v2) or ``docker-compose``, the first that reads the compose file
    (Compose v1, Debian's 1.29, refuses its top-level ``name``); else None and why."""
    forced = os.environ.get("KOLKHOZ_TEST_COMPOSE", "").strip()
    if forced == "none":
        return None, "KOLKHOZ_TEST_COMPOSE=none"
    candidates = [shlex.split(forced)] if forced else [["docker", "compose"], ["docker-compose"]]
    why = []
    for cmd in candidates:
        if shutil.which(cmd[0]) is None or run([*cmd, "version"], timeout=60,
                                               check=False).returncode != 0:
            why.append(f"no `{shlex.join(cmd)}`")
            continue
        done = run([*cmd, "-f", "docker/compose.yaml", "config", "-q"], cwd=clone, timeout=60,
                   check=False)
        if done.returncode == 0:
            return cmd, ""
        said = (done.stderr.strip().splitlines() or ["?"])
        why.append(f"`{shlex.join(cmd)}` cannot read docker/compose.yaml ({' '.join(said[:2])})")
    return None, "; ".join(why)


def host_address() -> str:
    """The host as the containers reach it: the gateway of Docker's default bridge (when
    IPAM does not name it, the subnet's first address, which Docker gives the bridge)."""
    done = run(["docker", "network", "inspect", "bridge", "--format",
                "{{range .IPAM.Config}}{{.Gateway}},{{.Subnet}} {{end}}"], timeout=60)
    for entry in done.stdout.split():
        gateway, _, subnet = entry.partition(",")
        if gateway:
            return gateway
        if subnet and ipaddress.ip_network(subnet).version == 4:
            return str(ipaddress.ip_network(subnet).network_address + 1)
    pytest.skip("Docker's default bridge network has no address to reach the host by")


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("0.0.0.0", port))
        except OSError:
            return False
    return True


def fresh_clone(tmp_path: Path) -> Path:
    top = Path(run(["git", "rev-parse", "--show-toplevel"], cwd=HERE).stdout.strip())
    head = run(["git", "rev-parse", "HEAD"], cwd=top).stdout.strip()
    clone = tmp_path / "kolkhoz"
    run(["git", "clone", "--quiet", "--no-hardlinks", str(top), str(clone)])
    run(["git", "checkout", "--quiet", "--detach", head], cwd=clone)
    return clone


def write_env(clone: Path, fake: FakeTelegram, api_url: str, **extra: str) -> None:
    settings = {"KOLKHOZ_BOT_TOKEN": fake.token, "KOLKHOZ_BOT_API_URL": api_url,
                "KOLKHOZ_LOCALE": "en", **extra}
    (clone / ".env").write_text("".join(f"{k}={v}\n" for k, v in settings.items()))


def export_dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A directory uid 10001 may write to, and one it may not (owned by us, mode 0755)."""
    writable, locked = tmp_path / "exports", tmp_path / "locked"
    writable.mkdir()
    locked.mkdir(mode=0o755)
    if os.geteuid() == 0:
        os.chown(writable, UID, UID)
    else:
        writable.chmod(0o777)
    return writable, locked


class Compose:
    """``docker compose -f docker/compose.yaml -p <a project of its own>`` in the clone."""

    def __init__(self, command: list[str], clone: Path, *profiles: str) -> None:
        self.base = [*command, "-f", "docker/compose.yaml",
                     "-p", f"kolkhoz-test-{uuid.uuid4().hex[:8]}",
                     *(arg for p in profiles for arg in ("--profile", p))]
        self.clone = clone

    async def __call__(self, *args: str, timeout: float = 300,
                       check: bool = True) -> subprocess.CompletedProcess[str]:
        return await arun([*self.base, *args], cwd=self.clone, timeout=timeout, check=check)

    async def container(self, service: str) -> str:
        ids = (await self("ps", "-q", service)).stdout.split()
        assert len(ids) == 1, (service, ids)
        return ids[0]

    async def down(self) -> None:
        """Containers, network, volumes and the built images: all of it, whatever happened."""
        await self("down", "--volumes", "--remove-orphans",
                   "--rmi", "local", "--timeout", "20", timeout=600, check=False)


def health(container: str) -> dict[str, Any]:
    out = run(["docker", "inspect", "--format", "{{json .State}}", container]).stdout
    state: dict[str, Any] = json.loads(out)
    return state


async def wait_healthy(containers: dict[str, str], logs: Callable[[], str]) -> None:
    """Every container's Docker health status ``healthy`` (not merely running)."""
    deadline = time.monotonic() + HEALTHY_TIMEOUT
    while True:
        states = {name: await asyncio.to_thread(health, c) for name, c in containers.items()}
        status = {name: (s.get("Health") or {}).get("Status", "no health check")
                  for name, s in states.items()}
        if all(v == "healthy" for v in status.values()):
            return
        stopped = [name for name, s in states.items() if not s.get("Running")]
        if stopped or "unhealthy" in status.values() or time.monotonic() > deadline:
            raise AssertionError(
                f"not healthy: {status}, stopped: {stopped}\n"
                + "\n".join(f"{n}: {json.dumps((s.get('Health') or {}).get('Log', [])[-2:])}"
                            for n, s in states.items())
                + "\n" + logs()[-4000:])
        await asyncio.sleep(2)


async def open_game(fake: FakeTelegram) -> int:
    """Four of the fake's users start the bot and open a game in a group; once it is dealt
    (their hands arrive as buttons), its id."""
    users = [fake.user(3000 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Docker", users)
    for u in users:
        await u.start_bot(wait=False)
    await until(lambda: all(u.last_message() is not None for u in users), "the welcomes",
                timeout=STEP)
    await users[0].send(group, "/newgame", wait=False)
    await until(lambda: bool((m := fake.last_message(group)) and m.buttons), "the lobby",
                timeout=STEP)
    lobby = fake.last_message(group)
    assert lobby is not None
    join = lobby.buttons[0][0].text
    lobby_id = lobby.message_id
    for u in users[1:]:
        await u.tap(fake.message(group, lobby_id), join, wait=False)

    def everyone_joined() -> bool:
        text = fake.message(group, lobby_id).text or ""
        return all(u.first_name in text for u in users)

    await until(everyone_joined, "everyone in the lobby", timeout=STEP)
    lobby = fake.message(group, lobby_id)
    start = [b for row in lobby.buttons for b in row if b.data and b.data.endswith(":start")]
    assert start and start[0].data is not None
    await users[0].tap(lobby, start[0].text, wait=False)
    await until(lambda: any(action_buttons(u.last_message()) for u in users), "the deal",
                timeout=STEP)
    return int(start[0].data.split(":")[1], 36)


def check_export(text: str, game_id: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text)
    assert data["game_id"] == game_id and data["status"] == "active", data
    game = replay_export(data)  # what the export is for: the game rebuilt
    assert len(game.hands) == 4
    return data


def same_export(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "exported_at": None} == {**b, "exported_at": None}


@pytest.fixture
async def fake_api() -> AsyncIterator[tuple[FakeTelegram, str]]:
    """The fake Bot API on the host's address on Docker's bridge (on every address if that
    one is not the host's), and its URL as the containers see it."""
    engine_or_skip()
    host = await asyncio.to_thread(host_address)
    fake = FakeTelegram()
    server = FakeBotApiServer(fake, host=host)
    try:
        await server.start()
    except OSError:
        server = FakeBotApiServer(fake, host="0.0.0.0")
        await server.start()
    try:
        yield fake, f"http://{host}:{server.port}/bot"
    finally:
        await server.stop()
        await fake.close()


async def test_polling_image_health_and_export(
    fake_api: tuple[FakeTelegram, str], tmp_path: Path
) -> None:
    fake, api_url = fake_api
    clone = fresh_clone(tmp_path)
    write_env(clone, fake, api_url)
    command, _ = compose_command(clone)
    writable, locked = export_dirs(tmp_path)
    if command is None:
        await polling_with_docker_run(fake, clone, writable, locked)
        return
    compose = Compose(command, clone)
    try:
        await compose("build", "bot", timeout=BUILD_TIMEOUT)
        await compose("up", "-d", timeout=BUILD_TIMEOUT)
        db, bot = await compose.container("db"), await compose.container("bot")
        config = json.loads(run(["docker", "inspect", "--format", "{{json .Config}}",
                                 bot]).stdout)
        assert config["User"] == "kolkhoz", config["User"]
        assert config["Healthcheck"]["Test"][-3:] == ["-m", "kolkhoz_tg.cli", "health"]

        def logs() -> str:
            return run([*compose.base, "logs", "--no-color"], cwd=clone, check=False).stdout

        await wait_healthy({"db": db, "bot": bot}, logs)
        last = health(bot)["Health"]["Log"][-1]
        assert last["ExitCode"] == 0 and last["Output"].startswith("ok: polling"), last
        game_id = await open_game(fake)

        # To standard output: only the JSON (-T: no terminal, the entry point's lines on
        # stderr).
        done = await compose("run", "--rm", "-T", "bot", "games", "export", str(game_id))
        data = check_export(done.stdout, game_id)
        assert "kolkhoz-entrypoint:" in done.stderr
        # -o into a mounted directory uid 10001 may write to.
        await compose("run", "--rm", "-T", "-v", f"{writable}:/exports", "bot", "games",
                      "export", str(game_id), "-o", "/exports/game.json")
        assert same_export(check_export((writable / "game.json").read_text(), game_id), data)
        # A directory it may not write to: one clear line, exit status 1.
        done = await compose("run", "--rm", "-T", "-v", f"{locked}:/exports", "bot", "games",
                             "export", str(game_id), "-o", "/exports/game.json", check=False)
        assert done.returncode == 1, (done.stdout, done.stderr)
        # (Before it: compose's and the entry point's lines, the warning that the game is
        # still in play.)
        said = [line for line in done.stderr.splitlines() if line.startswith("kolkhoz:")]
        assert len(said) == 1 and said[0].startswith(
            "kolkhoz: cannot write /exports/game.json: Permission denied"), done.stderr
        assert done.stderr.strip().splitlines()[-1] == said[0], done.stderr
        assert not list(locked.iterdir())
    finally:
        await compose.down()
    assert not (await compose("ps", "-q", "--all", check=False)).stdout.strip()


async def polling_with_docker_run(
    fake: FakeTelegram, clone: Path, writable: Path, locked: Path
) -> None:
    """Without compose: the image alone, SQLite in a named volume."""
    name = f"kolkhoz-test-{uuid.uuid4().hex[:8]}"
    common = ["--env-file", str(clone / ".env"), "-v", f"{name}:/data"]
    try:
        await arun(["docker", "build", "-f", "docker/Dockerfile", "-t", name, "."], cwd=clone,
                   timeout=BUILD_TIMEOUT)
        config = json.loads(run(["docker", "image", "inspect", "--format", "{{json .Config}}",
                                 name]).stdout)
        assert config["User"] == "kolkhoz" and config["Healthcheck"]["Test"][-1] == "health"
        await arun(["docker", "run", "-d", "--name", name, *common, name])
        await wait_healthy({"bot": name}, lambda: run(["docker", "logs", name],
                                                      check=False).stderr)
        game_id = await open_game(fake)
        one_off = ["docker", "run", "--rm", *common]
        done = await arun([*one_off, name, "games", "export", str(game_id)])
        data = check_export(done.stdout, game_id)
        await arun([*one_off, "-v", f"{writable}:/exports", name, "games", "export",
                    str(game_id), "-o", "/exports/game.json"])
        assert same_export(check_export((writable / "game.json").read_text(), game_id), data)
        done = await arun([*one_off, "-v", f"{locked}:/exports", name, "games", "export",
                           str(game_id), "-o", "/exports/game.json"], check=False)
        assert done.returncode == 1
        assert "kolkhoz: cannot write /exports/game.json: Permission denied" in done.stderr
    finally:
        await arun(["docker", "rm", "-f", "-v", name], check=False)
        await arun(["docker", "volume", "rm", "-f", name], check=False)
        await arun(["docker", "rmi", "-f", name], check=False)


async def test_webhook_replicas_behind_the_proxy(
    fake_api: tuple[FakeTelegram, str], tmp_path: Path
) -> None:
    fake, api_url = fake_api
    busy = [p for p in (80, 443) if not port_free(p)]
    if busy:
        pytest.skip(f"port(s) {busy} taken on this host: the webhook profile's proxy "
                    "publishes 80 and 443")
    host = api_url.split("//", 1)[1].split(":", 1)[0]
    clone = fresh_clone(tmp_path)
    # DEBUG: each replica logs the updates it processes.
    write_env(clone, fake, api_url, KOLKHOZ_WEBHOOK_URL=f"http://{host}",
              KOLKHOZ_LOG_LEVEL="DEBUG")
    command, why = compose_command(clone)
    if command is None:
        pytest.skip(f"no Docker Compose that reads docker/compose.yaml ({why}): the webhook "
                    "profile needs one")
    compose = Compose(command, clone, "webhook")
    try:
        await compose("build", "webhook-1", "webhook-2", timeout=BUILD_TIMEOUT)
        await compose("up", "-d", "--scale", "bot=0",
                      timeout=BUILD_TIMEOUT)
        assert not (await compose("ps", "-q", "bot")).stdout.strip(), "bot=0: no polling bot"
        replicas = {s: await compose.container(s) for s in ("webhook-1", "webhook-2")}
        await compose.container("proxy")

        def logs() -> str:
            return run([*compose.base, "logs", "--no-color"],
                       cwd=clone, check=False).stdout

        await wait_healthy({"db": await compose.container("db"), **replicas}, logs)
        for c in replicas.values():
            last = health(c)["Health"]["Log"][-1]
            assert last["ExitCode"] == 0 and last["Output"].startswith("ok: webhook"), last
        await until(lambda: sum(w["action"] == "set" for w in fake.webhook_log) >= 2,
                    "both replicas to register the webhook", timeout=STEP)
        assert fake.webhook is not None and fake.webhook["url"] == f"http://{host}/telegram"

        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.get("http://127.0.0.1/healthz")
            assert answer.status_code == 200, answer.text
            for secret in ("wrong", None):
                headers = {} if secret is None else {"X-Telegram-Bot-Api-Secret-Token": secret}
                refused = await client.post("http://127.0.0.1/telegram", headers=headers,
                                            json={"update_id": 1})
                assert refused.status_code == 403, (secret, refused.status_code)

        game_id = await open_game(fake)
        assert fake.webhook_deliveries and all(s == 200 for _, s in fake.webhook_deliveries)
        handled = {}
        for service in replicas:
            text = (await compose("logs", "--no-color", service)).stdout
            handled[service] = text.count("Processing update")
        # Caddy's round robin: each replica took a share of the updates.
        assert all(n >= 3 for n in handled.values()), handled
        done = await compose("run", "--rm", "-T", "webhook-1", "games", "export", str(game_id))
        check_export(done.stdout, game_id)
    finally:
        await compose.down()
