"""``kolkhoz bot``: the process around the application — logging, the token check, the
service, and long polling or webhook mode.

It sits above both :mod:`kolkhoz_tg.bot.app` (the application) and
:mod:`kolkhoz_tg.bot.webhook` (the webhook server), so neither needs the other.
"""

from __future__ import annotations

import asyncio
import logging

from telegram import Bot, Update
from telegram.error import InvalidToken, NetworkError
from telegram.ext import ApplicationBuilder

from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.webhook import default_secret, serve
from kolkhoz_tg.config import Settings
from kolkhoz_tg.logs import setup_logging
from kolkhoz_tg.service import open_service

log = logging.getLogger(__name__)


async def _check_token(token: str, base_url: str) -> None:
    async with Bot(token, base_url=base_url) as bot:
        log.info("connected as @%s", bot.username)


def bot_api_base_url(url: str) -> str:
    """PTB's ``base_url`` for a Bot API server: ``http://host:8081`` and
    ``http://host:8081/bot`` both give ``http://host:8081/bot`` (the token follows)."""
    url = url.rstrip("/")
    return url if url.endswith("/bot") else url + "/bot"


def run(settings: Settings | None = None, webhook_url: str | None = None) -> int:
    """``kolkhoz bot``: long polling, or webhook mode when ``webhook_url`` is given, until
    interrupted. A missing or refused token, or an unreachable Bot API, ends it with a
    one-line reason (exit status 2) instead of a traceback."""
    settings = settings or Settings()
    setup_logging(settings.log_format, settings.log_level)
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
    app = build_application(ApplicationBuilder().token(token).base_url(base_url), service,
                            settings)
    try:
        if webhook_url:
            secret = (settings.webhook_secret.get_secret_value() if settings.webhook_secret
                      else default_secret(token))
            asyncio.run(serve(app, service, webhook_url=webhook_url, secret=secret,
                              listen=settings.webhook_listen, port=settings.webhook_port))
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES)
    except InvalidToken:
        log.error("Telegram refused the token in KOLKHOZ_BOT_TOKEN (check it with @BotFather)")
        return 2
    except NetworkError as e:
        log.error("lost the Telegram Bot API at %s: %s", base_url, e)
        return 2
    finally:
        service.db.dispose()
    return 0
