"""``kolkhoz bot``: the process around the application — logging, the token check, the
service, the heartbeat ``kolkhoz health`` reads, and long polling or webhook mode.

It sits above both :mod:`kolkhoz_tg.bot.app` (the application) and
:mod:`kolkhoz_tg.bot.webhook` (the webhook server), so neither needs the other.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import Any

from telegram import Bot, Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import ApplicationBuilder
from telegram.request import HTTPXRequest

from kolkhoz_tg import compiled_engine
from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.heartbeat import BeatingRequest, Heartbeat, ping_database
from kolkhoz_tg.bot.webhook import HEALTH_PATH, default_secret, serve
from kolkhoz_tg.config import Settings
from kolkhoz_tg.logs import setup_logging
from kolkhoz_tg.service import GameService, open_service

log = logging.getLogger(__name__)


async def _check_token(token: str, base_url: str) -> None:
    # One HTTP client for the one call, not PTB's two (each holds TLS state: ~1 MB).
    request = HTTPXRequest(connection_pool_size=1)
    async with Bot(token, base_url=base_url, request=request, get_updates_request=request) as bot:
        log.info("connected as @%s", bot.username)


def engine_status() -> str:
    """Which engine the bots think with, for the log at start-up."""
    return compiled_engine.status or (
        "compiled" if compiled_engine.is_compiled() else "plain Python")


def bot_api_base_url(url: str) -> str:
    """PTB's ``base_url`` for a Bot API server: ``http://host:8081`` and
    ``http://host:8081/bot`` both give ``http://host:8081/bot`` (the token follows)."""
    url = url.rstrip("/")
    return url if url.endswith("/bot") else url + "/bot"


def log_secrets(settings: Settings) -> list[str]:
    """What the log must never show: the token and the webhook secret (the configured one
    and the one derived from the token)."""
    found: list[str] = []
    if settings.bot_token is not None and settings.bot_token.get_secret_value().strip():
        token = settings.bot_token.get_secret_value().strip()
        found += [token, default_secret(token)]
    if settings.webhook_secret is not None:
        found.append(settings.webhook_secret.get_secret_value())
    return found


def local_health_url(listen: str, port: int) -> str:
    """Where a process in the same container reaches the webhook server's health route."""
    host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(listen, listen)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}{HEALTH_PATH}"


def make_heartbeat(
    settings: Settings, service: GameService, mode: str, **kwargs: Any
) -> Heartbeat | None:
    """The heartbeat for ``kolkhoz health`` (None when ``KOLKHOZ_HEALTH_FILE`` is unset)."""
    if not settings.health_file:
        return None
    health_url = (
        local_health_url(settings.webhook_listen, settings.webhook_port)
        if mode == "webhook"
        else None
    )
    return Heartbeat(
        settings.health_file, mode, partial(ping_database, service), health_url=health_url, **kwargs
    )


def bot_builder(
    token: str, base_url: str, heartbeat: Heartbeat | None = None
) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
    """PTB's builder for ``token`` on ``base_url``; with a heartbeat, every answered
    ``getUpdates`` counts as a sign of life (PTB's own request object for it, wrapped)."""
    builder = ApplicationBuilder().token(token).base_url(base_url)
    if heartbeat is not None:
        inner = HTTPXRequest(connection_pool_size=1)  # what PTB would use for getUpdates
        builder = builder.get_updates_request(BeatingRequest(inner, heartbeat.telegram_answered))
    return builder


def run(settings: Settings | None = None, webhook_url: str | None = None) -> int:
    """``kolkhoz bot``: long polling, or webhook mode when ``webhook_url`` is given, until
    interrupted. A missing or refused token, or an unreachable Bot API, ends it with a
    one-line reason (exit status 2) instead of a traceback."""
    settings = settings or Settings()
    setup_logging(settings.log_format, settings.log_level, secrets=log_secrets(settings))
    log.info("the engine: %s", engine_status())
    if settings.bot_token is None or not settings.bot_token.get_secret_value().strip():
        log.error("KOLKHOZ_BOT_TOKEN is not set: get a token from @BotFather")
        return 2
    token = settings.bot_token.get_secret_value().strip()
    base_url = bot_api_base_url(settings.bot_api_url or "https://api.telegram.org")
    try:
        # Ask Telegram who we are before anything else: a bad token or an unreachable Bot API
        # is then one clear line, not PTB's retry loop and its traceback.
        asyncio.run(_check_token(token, base_url))
    except InvalidToken:
        log.error("Telegram refused the token in KOLKHOZ_BOT_TOKEN (check it with @BotFather)")
        return 2
    except NetworkError as e:
        log.error("cannot reach the Telegram Bot API at %s: %s", base_url, e)
        return 2
    service = open_service(settings=settings)
    heartbeat = make_heartbeat(settings, service, "webhook" if webhook_url else "polling")
    if heartbeat is not None:
        heartbeat.clear()  # a previous process's heartbeat says nothing of this one
    app = build_application(bot_builder(token, base_url, heartbeat), service, settings)
    if heartbeat is not None:
        heartbeat.install(app)
    try:
        if webhook_url:
            secret = (
                settings.webhook_secret.get_secret_value()
                if settings.webhook_secret
                else default_secret(token)
            )
            asyncio.run(
                serve(
                    app,
                    service,
                    webhook_url=webhook_url,
                    secret=secret,
                    listen=settings.webhook_listen,
                    port=settings.webhook_port,
                    on_update=heartbeat.telegram_answered if heartbeat is not None else None,
                )
            )
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES)
    except InvalidToken:
        log.error("Telegram refused the token in KOLKHOZ_BOT_TOKEN (check it with @BotFather)")
        return 2
    except NetworkError as e:
        log.error("lost the Telegram Bot API at %s: %s", base_url, e)
        return 2
    finally:
        if heartbeat is not None:
            heartbeat.clear()
        service.db.dispose()
    return 0
