"""Webhook mode: Telegram POSTs updates to us, so several bot processes can share the load
behind a proxy (they share one PostgreSQL; the service's version checks and row locks keep
them from acting twice).

A small Tornado server (Tornado comes with PTB's ``webhooks`` extra) with two routes:
``POST /telegram`` takes updates, checking Telegram's secret-token header, and puts them on the
application's update queue; ``GET /healthz`` answers 200 when the database answers, else 503.
PTB's own webhook server has no room for a health route, hence this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import signal
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import tornado.httpserver
import tornado.netutil
import tornado.web
from telegram import Update
from telegram.ext import Application

from kolkhoz_tg.bot.heartbeat import ping_database
from kolkhoz_tg.service import GameService

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DEFAULT_PATH = "/telegram"
HEALTH_PATH = "/healthz"


def default_secret(token: str) -> str:
    """A webhook secret derived from the bot token: the same in every replica, and unknown
    to anyone who does not have the token. Telegram allows A-Z a-z 0-9 _ - (1-256)."""
    return hashlib.sha256(b"kolkhoz-webhook:" + token.encode()).hexdigest()


class _UpdateHandler(tornado.web.RequestHandler):
    def initialize(
        self, app: Application[Any, Any, Any, Any, Any, Any], secret: str,
        on_update: Callable[[], None] | None,
    ) -> None:
        self.app = app
        self.secret = secret
        self.on_update = on_update

    async def post(self) -> None:
        given = self.request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            log.warning("webhook call with a wrong secret token from %s", self.request.remote_ip)
            self.set_status(403)
            return
        try:
            data = json.loads(self.request.body)
            update = Update.de_json(data, self.app.bot)
        except (ValueError, TypeError, KeyError):
            self.set_status(400)
            return
        if update is None:
            self.set_status(400)
            return
        await self.app.update_queue.put(update)
        self.set_status(200)
        if self.on_update is not None:  # the heartbeat: Telegram reaches us
            self.on_update()

    def check_xsrf_cookie(self) -> None:  # Telegram sends no cookies
        return


class _HealthHandler(tornado.web.RequestHandler):
    def initialize(self, service: GameService, server: WebhookServer) -> None:
        self.service = service
        self.server = server

    async def get(self) -> None:
        if self.server.stopping:
            self.set_status(503)
            self.write({"status": "stopping"})
            return
        try:
            await asyncio.to_thread(ping_database, self.service)
        except Exception as e:  # any database trouble means "not healthy"
            log.warning("health check: the database is unreachable: %s", e)
            self.set_status(503)
            self.write({"status": "database unavailable"})
            return
        self.write({"status": "ok"})


class WebhookServer:
    """Receives Telegram's POSTs for ``app`` and answers health checks."""

    def __init__(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        service: GameService,
        secret: str,
        path: str = DEFAULT_PATH,
        on_update: Callable[[], None] | None = None,
    ) -> None:
        self.stopping = False
        routes: list[Any] = [
            (path, _UpdateHandler, {"app": app, "secret": secret, "on_update": on_update}),
            (HEALTH_PATH, _HealthHandler, {"service": service, "server": self}),
        ]
        self._server = tornado.httpserver.HTTPServer(tornado.web.Application(routes))
        self.port: int | None = None

    def start(self, listen: str, port: int) -> int:
        """Listen on ``listen:port`` (port 0: any free one); returns the port."""
        sockets = tornado.netutil.bind_sockets(port, address=listen)
        self._server.add_sockets(sockets)
        self.port = sockets[0].getsockname()[1]
        return self.port

    async def stop(self) -> None:
        """Stop taking updates; the ones already queued are still handled by the app."""
        self.stopping = True
        self._server.stop()
        await self._server.close_all_connections()


def webhook_target(webhook_url: str) -> tuple[str, str]:
    """The URL to give Telegram and the local path to serve: ``https://bot.example.org``
    becomes ``…/telegram``; a URL with a path keeps it (a proxy forwards it unchanged)."""
    path = urlsplit(webhook_url).path.rstrip("/")
    if not path:
        return webhook_url.rstrip("/") + DEFAULT_PATH, DEFAULT_PATH
    return webhook_url, path


async def serve(
    app: Application[Any, Any, Any, Any, Any, Any],
    service: GameService,
    *,
    webhook_url: str,
    secret: str,
    listen: str = "0.0.0.0",
    port: int = 8080,
    stop: asyncio.Event | None = None,
    on_update: Callable[[], None] | None = None,
) -> None:
    """Run the bot in webhook mode until ``stop`` is set (or SIGTERM / SIGINT): register the
    webhook, take updates, then shut down gracefully (no new updates, the queued ones
    handled, jobs detached, connections closed). ``on_update`` is told of every update
    taken (the heartbeat of ``kolkhoz health``).

    The application's own ``post_init``, ``post_stop`` and ``post_shutdown`` hooks (those PTB's
    ``run_polling`` runs) start and stop what the bot needs around the updates, so this
    module knows nothing of how the application is built."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not the main thread
            loop.add_signal_handler(sig, stop.set)
    url, path = webhook_target(webhook_url)
    server = WebhookServer(app, service, secret, path, on_update)
    async with app:
        await app.start()
        if app.post_init is not None:
            await app.post_init(app)
        bound = server.start(listen, port)
        await app.bot.set_webhook(url, secret_token=secret, allowed_updates=Update.ALL_TYPES)
        log.info("webhook mode: listening on %s:%s, health on %s", listen, bound, HEALTH_PATH)
        await stop.wait()
        log.info("shutting down: no new updates, finishing the ones in hand")
        await server.stop()
        # Stop first (handlers finish, the job queue stops), then release the outbox claims:
        # released earlier, another replica's relay would send what is still in flight.
        await app.stop()
        if app.post_stop is not None:
            await app.post_stop(app)
        if app.post_shutdown is not None:
            await app.post_shutdown(app)
    log.info("stopped")
