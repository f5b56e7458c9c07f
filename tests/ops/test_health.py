"""``kolkhoz health`` (the image's HEALTHCHECK) and the heartbeat the bot writes for it.

The command is checked on heartbeat files written by hand (healthy, stale, database
unreachable, no getUpdates, webhook mode asking ``/healthz``), and on the heartbeat of the
real application polling the fake Telegram, through a working database, one that is cut off
(a PostgreSQL server that does not answer), and after Telegram stopped answering.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.server
import io
import itertools
import json
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import Application, ApplicationBuilder

from kolkhoz_tg import cli, health
from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.heartbeat import HEARTBEAT_JOB, BeatingRequest, Heartbeat, ping_database
from kolkhoz_tg.bot.main import local_health_url, make_heartbeat
from kolkhoz_tg.bot.webhook import serve
from kolkhoz_tg.health import Beat, write_beat
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from tests.conftest import make_settings
from tests.faketg import FakeRequest, FakeTelegram, free_port, inprocess_builder
from tests.faketg.fixtures import fake, no_real_telegram  # noqa: F401
from tests.helpers import until
from tests.test_cli_imports import HEAVY, loaded_after

NOW = 1_800_000_000.0


def fresh(**changes: Any) -> Beat:
    """A healthy polling bot's heartbeat at NOW, with ``changes``."""
    values: dict[str, Any] = {"mode": "polling", "pid": 4242, "written": NOW - 5,
                              "database_ok": NOW - 5, "telegram_ok": NOW - 3}
    values.update(changes)
    return Beat(**values)


def check(path: Path, *options: str, now: float = NOW) -> tuple[int, str, str]:
    """``kolkhoz health --file path …`` at ``now``: exit status, stdout, stderr."""
    args = cli.build_parser(with_admin=False).parse_args(["health", "--file", str(path),
                                                         *options])
    out, err = io.StringIO(), io.StringIO()
    code = health.run(args, out, err, now=now)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def no_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither the developer's environment nor a .env file decides here."""
    for key in list(os.environ):
        if key.startswith("KOLKHOZ_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


# ---------------------------------------------------------------------- the command


def test_healthy_polling_bot(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    write_beat(path, fresh())
    code, out, err = check(path)
    assert (code, err) == (0, "")
    assert out == "ok: polling, database 5 s ago, getUpdates 3 s ago\n"


def test_a_stale_heartbeat_is_unhealthy(tmp_path: Path) -> None:
    """The bot stopped writing (killed, or its event loop stuck): whatever the file says."""
    path = tmp_path / "health.json"
    write_beat(path, fresh(written=NOW - 61))
    code, out, err = check(path)
    assert code == 1 and out == ""
    assert err == ("unhealthy (polling): the bot has not written its heartbeat for 61 s "
                   "(pid 4242: stopped or stuck)\n")
    assert check(path, "--max-age", "2m")[0] == 0


def test_an_unreachable_database_is_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    write_beat(path, fresh(database_ok=NOW - 120, database_error="connection refused"))
    code, _, err = check(path)
    assert code == 1
    assert err == ("unhealthy (polling): the database is unreachable (last reached 120 s "
                   "ago): connection refused\n")
    write_beat(path, fresh(database_ok=None, database_error="no answer for 10 s"))
    assert check(path)[2] == ("unhealthy (polling): the database is unreachable (never "
                              "reached): no answer for 10 s\n")


def test_no_recent_getupdates_is_unhealthy(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    write_beat(path, fresh(telegram_ok=NOW - 90))
    code, _, err = check(path)
    assert code == 1 and "no successful getUpdates for 90 s (Telegram unreachable?)" in err
    write_beat(path, fresh(telegram_ok=None))
    assert "no successful getUpdates yet" in check(path)[2]
    # Both at once: both are said, in one line.
    write_beat(path, fresh(telegram_ok=None, database_ok=None, database_error="refused"))
    code, _, err = check(path)
    assert code == 1 and len(err.splitlines()) == 1
    assert "database is unreachable" in err and "getUpdates" in err


def test_missing_garbled_or_unconfigured(tmp_path: Path) -> None:
    code, _, err = check(tmp_path / "absent.json")
    assert code == 1 and err.startswith("unhealthy: no heartbeat at ")
    garbled = tmp_path / "garbled.json"
    garbled.write_text('{"mode": "carrier pigeon"')
    assert "is not readable" in check(garbled)[2]
    garbled.write_text('{"mode": "carrier pigeon", "pid": 1, "written": 0}')
    assert "unknown mode" in check(garbled)[2]
    args = cli.build_parser(with_admin=False).parse_args(["health"])
    err_io = io.StringIO()
    assert health.run(args, io.StringIO(), err_io) == 1
    assert "KOLKHOZ_HEALTH_FILE is not set" in err_io.getvalue()


def test_the_settings_name_the_file_and_the_age(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "from-env.json"
    write_beat(path, fresh(written=NOW - 100, database_ok=NOW - 100, telegram_ok=NOW - 100))
    monkeypatch.setenv("KOLKHOZ_HEALTH_FILE", str(path))
    args = cli.build_parser(with_admin=False).parse_args(["health"])
    assert health.run(args, io.StringIO(), io.StringIO(), now=NOW) == 1
    monkeypatch.setenv("KOLKHOZ_HEALTH_MAX_AGE", "5m")
    assert health.run(args, io.StringIO(), io.StringIO(), now=NOW) == 0


@contextlib.contextmanager
def health_endpoint(status: list[int]) -> Iterator[str]:
    """A local HTTP server whose GET answers ``status[0]``; yields its /healthz URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(status[0])
            self.end_headers()
            self.wfile.write(b'{"status": "..."}')

        def log_message(self, *args: object) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/healthz"
    finally:
        server.shutdown()
        server.server_close()


def test_webhook_mode_asks_the_bots_own_health_endpoint(tmp_path: Path) -> None:
    """A quiet webhook bot gets no calls: it is healthy while its heartbeat is fresh, its
    database answers, and its /healthz (database, not stopping) says 200."""
    path = tmp_path / "health.json"
    status = [200]
    with health_endpoint(status) as url:
        write_beat(path, fresh(mode="webhook", telegram_ok=None, health_url=url))
        code, out, _ = check(path)
        assert code == 0 and out == "ok: webhook, database 5 s ago, last update none yet\n"
        status[0] = 503
        code, _, err = check(path)
        assert code == 1 and err == f"unhealthy (webhook): {url} answered 503\n"
    code, _, err = check(path)  # the server is gone
    assert code == 1 and f"{url} does not answer" in err


def test_local_health_url() -> None:
    assert local_health_url("0.0.0.0", 8080) == "http://127.0.0.1:8080/healthz"
    assert local_health_url("::", 81) == "http://[::1]:81/healthz"
    assert local_health_url("10.0.0.5", 8080) == "http://10.0.0.5:8080/healthz"


def test_kolkhoz_health_in_a_subprocess_is_light(tmp_path: Path) -> None:
    """What the HEALTHCHECK runs every 30 s: no Telegram library, no database library."""
    path = tmp_path / "health.json"
    write_beat(path, fresh(written=time.time(), database_ok=time.time(),
                           telegram_ok=time.time()))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
    done = subprocess.run([sys.executable, "-m", "kolkhoz_tg.cli", "health"], cwd=tmp_path,
                          env={**env, "KOLKHOZ_HEALTH_FILE": str(path)}, capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: polling")
    code = f"from kolkhoz_tg.cli import main\nmain(['health', '--file', {str(path)!r}])"
    assert loaded_after(code) == [], f"the health check imports one of {HEAVY}"


# ---------------------------------------------------------------------- the bot's heartbeat


def beating_app(fake: FakeTelegram, service: GameService,  # noqa: F811
                heartbeat: Heartbeat) -> Application[Any, Any, Any, Any, Any, Any]:
    """The real application on the fake, its getUpdates through a BeatingRequest (as
    ``kolkhoz bot`` builds it), the heartbeat installed."""
    builder = (ApplicationBuilder().token(fake.token).request(FakeRequest(fake))
               .get_updates_request(BeatingRequest(FakeRequest(fake),
                                                   heartbeat.telegram_answered)))
    app = build_application(builder, service, schedule=False, rate_limiter=False)
    heartbeat.install(app)
    return app


def cli_check(path: Path, *options: str) -> tuple[int, str]:
    code, out, err = check(path, *options, now=time.time())
    return code, out + err


async def test_a_polling_bots_heartbeat(
    fake: FakeTelegram, service: GameService, tmp_path: Path,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Healthy once the bot polls; unhealthy while the database check fails (said once in
    the log, not every beat); unhealthy when getUpdates stops succeeding; the file goes
    when the bot stops cleanly."""
    path = tmp_path / "health.json"
    # INFO from the start: on a loaded machine a check may time out and then answer before
    # the outage below, and its "answers again" must be seen with the warning before it.
    caplog.set_level(logging.INFO, "kolkhoz_tg.bot.heartbeat")
    heartbeat = Heartbeat(path, "polling", partial(ping_database, service), interval=0.05)
    app = beating_app(fake, service, heartbeat)
    async with fake.running(app, poll_timeout=0):
        assert app.post_init is not None
        await app.post_init(app)  # what run_polling does; fake.running does not
        assert heartbeat.job is not None and heartbeat.job.name == HEARTBEAT_JOB
        await until(lambda: heartbeat.telegram_ok is not None and path.exists(), "a beat")
        await until(lambda: cli_check(path)[0] == 0, "healthy")
        assert cli_check(path)[1].startswith("ok: polling, database ")

        # The database stops answering.
        def refused() -> None:
            raise OSError("connection refused")

        with caplog.at_level(logging.INFO, "kolkhoz_tg.bot.heartbeat"):
            heartbeat.ping = refused
            await until(lambda: cli_check(path, "--max-age", "0.2s")[0] == 1, "unhealthy")
            beats = heartbeat.beats
            await until(lambda: heartbeat.beats >= beats + 3, "three more beats")
        code, said = cli_check(path, "--max-age", "0.2s")
        assert code == 1 and "the database is unreachable" in said
        # (the refusal, or on a loaded machine the check's own time limit)
        assert "connection refused" in said or "no answer for" in said
        # Once an outage, not every beat: a warning, and another only after the database
        # answered again (a check started before the outage may still end well after
        # the first failure on a loaded machine).
        said_now = [r.getMessage() for r in caplog.records
                    if "unreachable" in r.getMessage() or "answers again" in r.getMessage()]
        assert said_now and "unreachable" in said_now[0]
        assert all("unreachable" not in a or "unreachable" not in b
                   for a, b in itertools.pairwise(said_now))
        assert heartbeat.beats >= beats + 3
        heartbeat.ping = partial(ping_database, service)
        await until(lambda: cli_check(path, "--max-age", "0.2s")[0] == 0, "healthy again")

        # Telegram stops answering getUpdates (here: the bot stops polling).
        assert app.updater is not None
        await app.updater.stop()
        await asyncio.sleep(0.5)
        code, said = cli_check(path, "--max-age", "0.3s")
        assert code == 1 and "no successful getUpdates for" in said
    await until(lambda: not app.running, "the stop")
    heartbeat.clear()  # what kolkhoz bot does at a clean stop
    assert cli_check(path)[0] == 1


async def test_a_webhook_bots_heartbeat(
    fake: FakeTelegram, service: GameService, tmp_path: Path,  # noqa: F811
) -> None:
    """Webhook mode: the heartbeat notes the updates Telegram posts, and ``kolkhoz health``
    asks the bot's own /healthz, which stops answering with the bot."""
    port = free_port()
    path = tmp_path / "health.json"
    heartbeat = Heartbeat(path, "webhook", partial(ping_database, service), interval=0.05,
                          health_url=local_health_url("127.0.0.1", port))
    app = build_application(inprocess_builder(fake), service, schedule=False,
                            rate_limiter=False)
    heartbeat.install(app)
    fake.attach(app)
    stop = asyncio.Event()
    task = asyncio.create_task(serve(
        app, service, webhook_url=f"http://127.0.0.1:{port}", secret="s3cret", port=port,
        listen="127.0.0.1", stop=stop, on_update=heartbeat.telegram_answered))
    try:
        await until(lambda: fake.webhook is not None and path.exists(), "the webhook")
        code, said = await asyncio.to_thread(cli_check, path)
        assert code == 0 and said.startswith("ok: webhook, database "), said
        assert said.endswith("last update none yet\n")
        await fake.user(5000, "Anna", language_code="en").start_bot()
        assert heartbeat.telegram_ok is not None
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)
        fake.detach(app)
    code, said = await asyncio.to_thread(cli_check, path, "--max-age", "1h")
    assert code == 1 and "does not answer" in said


async def test_a_database_that_does_not_answer(tmp_path: Path) -> None:
    """The heartbeat of a bot whose PostgreSQL is gone: refused connections make it
    unhealthy with the reason, and no password shows."""
    url = "postgresql+psycopg://kolkhoz:s3cret-pw@127.0.0.1:1/kolkhoz"
    db = Database(url, run_migrations=False)
    service = GameService(db, settings=make_settings(database_url=url))
    settings = make_settings(database_url=url, health_file=str(tmp_path / "h.json"))
    heartbeat = make_heartbeat(settings, service, "polling", interval=1.0)
    assert heartbeat is not None
    try:
        heartbeat.telegram_answered()
        await heartbeat.beat()
    finally:
        db.dispose()
    code, said = cli_check(tmp_path / "h.json")
    assert code == 1 and "the database is unreachable (never reached)" in said
    assert "s3cret-pw" not in said
    beat = json.loads((tmp_path / "h.json").read_text())
    assert beat["database_ok"] is None and beat["database_error"]


def test_heartbeat_file_is_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "health.json"
    for i in range(5):
        write_beat(path, fresh(pid=i))
    assert Beat.from_json(path.read_text()).pid == 4
    assert [p.name for p in tmp_path.iterdir()] == ["health.json"]  # no temporary left


def test_no_heartbeat_without_a_file(service: GameService) -> None:
    assert make_heartbeat(make_settings(), service, "polling") is None


def parse(argv: list[str]) -> argparse.Namespace:
    return cli.build_parser(with_admin=False).parse_args(argv)


def test_bot_webhook_url_from_the_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``kolkhoz bot --webhook`` alone takes KOLKHOZ_WEBHOOK_URL (the compose replicas)."""
    assert parse(["bot"]).webhook is None
    assert parse(["bot", "--webhook"]).webhook == ""
    assert parse(["bot", "--webhook", "https://x.example"]).webhook == "https://x.example"
    seen: list[str | None] = []
    import kolkhoz_tg.bot.main as bot_main

    monkeypatch.setattr(bot_main, "run", lambda settings, webhook_url=None:
                        seen.append(webhook_url) or 0)
    monkeypatch.setenv("KOLKHOZ_BOT_TOKEN", "123:abc")
    monkeypatch.setenv("KOLKHOZ_WEBHOOK_URL", "https://bot.example.org")
    assert cli.main(["bot", "--webhook"]) == 0
    assert cli.main(["bot"]) == 0
    assert seen == ["https://bot.example.org", None]
    monkeypatch.delenv("KOLKHOZ_WEBHOOK_URL")
    assert cli.main(["bot", "--webhook"]) == 2
