"""Webhook mode, the health endpoint, graceful stop, and clear start-up failures."""

from __future__ import annotations

import asyncio
import os
import sys

import httpx

from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.webhook import SECRET_HEADER, default_secret, serve, webhook_target
from kolkhoz_tg.service import GameService
from tests.bot.driver import NAMES, open_game, tap_any_action
from tests.faketg import FakeTelegram, free_port, inprocess_builder


def test_webhook_target_and_secret() -> None:
    assert webhook_target("https://bot.example.org") == (
        "https://bot.example.org/telegram", "/telegram")
    assert webhook_target("https://example.org/kolkhoz/") == (
        "https://example.org/kolkhoz/", "/kolkhoz")
    secret = default_secret("123:abc")
    assert secret == default_secret("123:abc") != default_secret("123:abd")
    assert secret.isalnum() and len(secret) <= 256


async def test_a_game_in_webhook_mode_with_health_and_graceful_stop(
    fake: FakeTelegram, service: GameService
) -> None:
    app = build_application(inprocess_builder(fake), service, schedule=False, rate_limiter=False)
    fake.attach(app)
    port = free_port()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(
        app, service, webhook_url=f"http://127.0.0.1:{port}", secret="s3cret-token",
        listen="127.0.0.1", port=port, stop=stop,
    ))
    for _ in range(500):
        if fake.webhook is not None:
            break
        await asyncio.sleep(0.01)
    assert fake.webhook is not None
    assert fake.webhook["url"] == f"http://127.0.0.1:{port}/telegram"
    users = [fake.user(2000 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Webhook", users)
    game_id = await open_game(fake, users, group)
    for _ in range(12):
        assert await tap_any_action(users)
    assert service.game_info(game_id).version > 10
    assert fake.webhook_deliveries and all(s == 200 for _, s in fake.webhook_deliveries)
    async with httpx.AsyncClient() as client:
        health = await client.get(f"http://127.0.0.1:{port}/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        forged = await client.post(
            f"http://127.0.0.1:{port}/telegram", json={"update_id": 1},
            headers={SECRET_HEADER: "wrong"},
        )
        assert forged.status_code == 403
        garbage = await client.post(
            f"http://127.0.0.1:{port}/telegram", content=b"not json",
            headers={SECRET_HEADER: "s3cret-token"},
        )
        assert garbage.status_code == 400
    stop.set()
    await asyncio.wait_for(task, 10)
    fake.detach(app)
    async with httpx.AsyncClient() as client:
        try:
            await client.get(f"http://127.0.0.1:{port}/healthz")
            raise AssertionError("the server still answers after the stop")
        except httpx.ConnectError:
            pass
    assert not app.running


async def test_kolkhoz_bot_explains_a_refused_token(fake: FakeTelegram, fake_server) -> None:
    """``kolkhoz bot`` with a wrong token: one clear line and exit status 2, no traceback."""
    env = {
        **os.environ,
        "KOLKHOZ_BOT_TOKEN": "42:wrong-token",
        "KOLKHOZ_BOT_API_URL": fake_server.base_url,
        "KOLKHOZ_DATABASE_URL": "sqlite://",
    }
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "kolkhoz_tg.cli", "bot", env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    text = (out + err).decode()
    assert proc.returncode == 2, text
    assert "refused the token" in text and "Traceback" not in text
