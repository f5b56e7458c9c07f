"""The log an operator reads: quiet when nothing happens, and no secret at any level.

- Ten quiet minutes of the real application (polling the fake Telegram over real HTTP, the
  deadline scheduler, the outbox relay, the search bots' look-out and the heartbeat all
  running) are simulated with short intervals: at INFO they write fewer than ten lines.
- ``kolkhoz bot`` itself, at ``KOLKHOZ_LOG_LEVEL=DEBUG``, opens a game of four in a group
  (every hand goes out in private): its log carries neither the token nor a card of a hand,
  while ``kolkhoz health`` finds it healthy.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import partial
from pathlib import Path

import pytest
from apscheduler.events import EVENT_JOB_EXECUTED, JobExecutionEvent  # type: ignore[import-untyped]

from kolkhoz_tg import logs
from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.heartbeat import HEARTBEAT_JOB, Heartbeat, ping_database
from kolkhoz_tg.bot.main import bot_builder
from kolkhoz_tg.logs import setup_logging
from kolkhoz_tg.scheduler import SWEEP_JOB_ID
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from tests.bot.driver import NAMES, action_buttons, shown
from tests.conftest import make_settings
from tests.faketg import FakeBotApiServer, FakeTelegram
from tests.faketg.fixtures import fake, no_real_telegram  # noqa: F401
from tests.helpers import until

#: What a token from @BotFather looks like (the fake accepts any).
REAL_LOOKING_TOKEN = "7081234567:AAF1abcDEFghiJKLmnoPQRstuVWXyz0123-_A"


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """setup_logging changes process-wide state: put it back for the next test."""
    root = logging.getLogger()
    names = (*logs.CHATTY_LOGGERS, *logs.QUIET_LOGGERS)
    saved = root.handlers[:], root.level, {n: logging.getLogger(n).level for n in names}
    yield
    root.handlers[:], level, levels = saved
    root.setLevel(level)
    for name, value in levels.items():
        logging.getLogger(name).setLevel(value)


#: APScheduler's warning that a job was still running when it was due again. Ten minutes of
#: 2-second ticks squeezed into seconds make it likely on a busy machine (a tick of 40 ms is
#: late here, at 2 s it would have to take 4 s): an overload signal of the test's compressed
#: clock, not a line a quiet bot writes.
SQUEEZED = "skipped: maximum number of running instances reached"


async def test_ten_quiet_minutes_log_fewer_than_ten_lines(
    fake: FakeTelegram, service: GameService, tmp_path: Path,  # noqa: F811
    restore_logging: None,
) -> None:
    """What ten minutes without a move do, at the default INFO level: 300 relay ticks
    (every 2 s), 10 sweeps (every minute), 40 heartbeats (every 15 s) and 60 long polls
    (10 s each), here in a few seconds. Before, APScheduler wrote two lines per job run
    (600 for the relay alone) and would write one per getUpdates if httpx were let through."""
    stream = io.StringIO()
    setup_logging("text", "INFO", stream=stream)
    settings = make_settings(relay_interval=timedelta(milliseconds=25),
                             sweep_interval=timedelta(milliseconds=100))
    heartbeat = Heartbeat(tmp_path / "health.json", "polling",
                          partial(ping_database, service), interval=0.1, timeout=5.0)
    async with FakeBotApiServer(fake) as server:
        # As `kolkhoz bot` builds it: PTB's HTTPX requests (httpx logs each at INFO).
        builder = bot_builder(fake.token, server.base_url, heartbeat)
        app = build_application(builder, service, settings, schedule=True, rate_limiter=False)
        heartbeat.install(app)
        runs: Counter[str] = Counter()

        def count(event: JobExecutionEvent) -> None:
            runs[event.job_id] += 1

        fake.attach(app)
        async with app:
            await app.start()
            assert app.post_init is not None and app.job_queue is not None
            await app.post_init(app)  # what run_polling does first
            assert app.updater is not None
            # Short polls a little apart: 60 of them without a busy loop.
            await app.updater.start_polling(poll_interval=0.02, timeout=0)
            app.job_queue.scheduler.add_listener(count, EVENT_JOB_EXECUTED)
            relay = app.bot_data[DEPS_KEY].relay_job.job.id
            assert heartbeat.job is not None and heartbeat.job.name == HEARTBEAT_JOB
            beat = heartbeat.job.job.id
            await asyncio.sleep(0.2)  # start-up lines are not the quiet minutes'
            mark = len(stream.getvalue())
            polls = sum(c.method == "getUpdates" for c in fake.sent_log)
            start = Counter(runs)

            def ten_minutes() -> bool:
                return (runs[relay] - start[relay] >= 300
                        and runs[SWEEP_JOB_ID] - start[SWEEP_JOB_ID] >= 10
                        and runs[beat] - start[beat] >= 40
                        and sum(c.method == "getUpdates" for c in fake.sent_log) >= polls + 60)

            await until(ten_minutes, "ten minutes' worth of jobs and polls", timeout=60)
            quiet = stream.getvalue()[mark:].splitlines()
            await app.updater.stop()
            await app.stop()
        fake.detach(app)
    assert all(c.transport == "http" for c in fake.sent_log)
    squeezed = [line for line in quiet if SQUEEZED in line]
    assert all(" WARNING apscheduler.scheduler: " in line for line in squeezed)
    lines = [line for line in quiet if SQUEEZED not in line]
    assert len(lines) < 10, "\n".join(lines[:20])
    assert not [line for line in lines if " INFO " in line], lines


# ---------------------------------------------------------------------- kolkhoz bot at DEBUG


def bot_env(tmp_path: Path, server: FakeBotApiServer, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KOLKHOZ_")}
    env.update({
        "KOLKHOZ_BOT_TOKEN": server.fake.token,
        "KOLKHOZ_BOT_API_URL": server.base_url,
        "KOLKHOZ_DATABASE_URL": f"sqlite:///{tmp_path / 'bot.sqlite3'}",
        "KOLKHOZ_HEALTH_FILE": str(tmp_path / "health.json"),
        "KOLKHOZ_LOCALE": "en",
        "KOLKHOZ_BOT_WORKERS": "0",
        "KOLKHOZ_BOT_LEVEL": "random",
    })
    env.update(extra)
    return env


async def test_kolkhoz_bot_at_debug_logs_no_token_and_no_hand(tmp_path: Path) -> None:
    fake = FakeTelegram(token=REAL_LOOKING_TOKEN)  # noqa: F811
    async with FakeBotApiServer(fake) as server:
        env = bot_env(tmp_path, server, KOLKHOZ_LOG_LEVEL="DEBUG")
        log_path = tmp_path / "bot.log"
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen([sys.executable, "-m", "kolkhoz_tg.cli", "bot"],
                                    cwd=tmp_path, env=env, stdout=log_file,
                                    stderr=subprocess.STDOUT)
        try:
            hands, private_texts = await play_the_opening(fake, proc, log_path, tmp_path)
            # The running bot is healthy, as the image's HEALTHCHECK asks.
            check = subprocess.run([sys.executable, "-m", "kolkhoz_tg.cli", "health"],
                                   cwd=tmp_path, env=env, capture_output=True, text=True,
                                   timeout=60, check=False)
            assert check.returncode == 0, check.stderr
            assert check.stdout.startswith("ok: polling, database ")
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=60) == 0, log_path.read_text()[-3000:]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        await fake.close()
    log = log_path.read_text(encoding="utf-8", errors="replace")
    assert not (tmp_path / "health.json").exists(), "a clean stop removes the heartbeat"
    # DEBUG was on, and the Bot API calls are there, without their bodies.
    assert " DEBUG telegram.ext.ExtBot: Calling Bot API endpoint `sendMessage` (chat_id=" in log
    assert "finished (return value not logged)" in log
    assert "Processing update " in log and "/bot<token>/getUpdates" in log
    # Neither the token nor its secret half, anywhere.
    assert REAL_LOOKING_TOKEN not in log
    assert REAL_LOOKING_TOKEN.split(":", 1)[1] not in log
    # No card of a private hand, no private message.
    leaked = sorted(card for card in hands if card in log)
    assert not leaked, f"cards of private hands in the log: {leaked}"
    for text in private_texts:
        for line in text.splitlines():
            if len(line) > 30:
                assert line not in log, f"a private message in the log: {line!r}"


async def play_the_opening(
    fake: FakeTelegram, proc: subprocess.Popen[bytes], log_path: Path, tmp_path: Path,  # noqa: F811
) -> tuple[set[str], list[str]]:
    """Four players open a game by buttons and make its first move; the cards of their
    hands as messages show them, and the texts the bot sent them in private."""

    async def wait(cond: Callable[[], bool], what: str) -> None:
        def alive_and(cond: Callable[[], bool] = cond) -> bool:
            assert proc.poll() is None, log_path.read_text()[-3000:]
            return cond()

        await until(alive_and, what, timeout=60)

    users = [fake.user(3000 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Debug", users)
    for u in users:
        await u.start_bot(wait=False)
    await wait(lambda: all(u.last_message() is not None for u in users), "the welcomes")
    await users[0].send(group, "/newgame", wait=False)
    await wait(lambda: bool((m := fake.last_message(group)) and m.buttons), "the lobby")
    lobby = fake.last_message(group)
    assert lobby is not None
    join = lobby.buttons[0][0].text
    for u in users[1:]:
        await u.tap(fake.message(group, lobby.message_id), join, wait=False)

    def everyone_joined() -> bool:
        text = fake.message(group, lobby.message_id).text or ""
        return all(u.first_name in text for u in users)

    await wait(everyone_joined, "everyone in the lobby")
    lobby = fake.message(group, lobby.message_id)
    start = [b for row in lobby.buttons for b in row if b.data and b.data.endswith(":start")]
    await users[0].tap(lobby, start[0].text, wait=False)
    db = Database(f"sqlite:///{tmp_path / 'bot.sqlite3'}", run_migrations=False)
    try:
        service = GameService(db, settings=make_settings())
        game_id = int(start[0].data.split(":")[1], 36)  # type: ignore[union-attr]

        def started() -> bool:
            return service.game_info(game_id).status == "active"

        await wait(started, "the game to start")
        game = service.snapshot(game_id)
        assert game is not None
        hands = {card for hand in game.hands for card in shown(set(hand))}
        # Every player got their cards in private (as the buttons to play them).
        await wait(lambda: any(action_buttons(u.last_message()) for u in users), "a turn")
        version = service.game_info(game_id).version
        mover = next(u for u in users if action_buttons(u.last_message()))
        message = mover.last_message()
        assert message is not None
        await mover.tap(message, action_buttons(message)[0], wait=False)
        await wait(lambda: service.game_info(game_id).version > version, "the first move")
        await asyncio.sleep(0.5)  # its messages go out
    finally:
        db.dispose()
    private = [m.text or "" for u in users for m in u.private_messages()]
    assert any(card in text for text in private for card in hands), "no hand was sent"
    return hands, private


def test_bot_token_shapes_are_redacted_without_being_told() -> None:
    """A token nobody passed to the filter (another bot's, or one in an exception text)."""
    f = logs.RedactingFilter()
    assert f.redact(f"x {REAL_LOOKING_TOKEN} y") == "x <token> y"
    assert f.redact(
        "GET https://api.telegram.org/bot42:short/getMe") == (
        "GET https://api.telegram.org/bot<token>/getMe")
