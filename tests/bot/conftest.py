"""Fixtures for bot tests: the real PTB application on the fake Telegram, a fresh service."""

from __future__ import annotations

from typing import Any

from telegram.ext import Application

from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.service import GameService
from tests.faketg import FakeTelegram, inprocess_builder
from tests.faketg.fixtures import fake, fake_server, no_real_telegram  # noqa: F401


def make_app(
    fake: FakeTelegram, service: GameService, *, rate_limiter: bool = False,  # noqa: F811
    schedule: bool = False, bot_iterations: int | None = 8, bot_workers: int = 0,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The product's application on the in-process fake transport. Deadlines are driven by
    the tests (``service.process_due`` / ``sweep``) unless ``schedule``; PTB's rate limiter
    (Telegram's real pace: 20 messages a minute in a group) is off unless a test is about
    it; a Bot API call that failed is retried without a pause. Search bots think in a
    thread (``bot_workers`` processes if given) with ``bot_iterations`` playouts a
    decision (quick and the same on every machine; None: timed as in production)."""
    return build_application(
        inprocess_builder(fake), service, schedule=schedule, rate_limiter=rate_limiter,
        retry_delays=(0.0, 0.0, 0.0), bot_workers=bot_workers,
        bot_iterations=bot_iterations,
    )


def quick_pace(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Keep the groups' budget (kolkhoz_tg.bot.pace) but over a window of a fraction of a
    second: for tests of flood control that play on, where Telegram's real pace (20 a
    minute) would only make them slow. tests/bot/test_pace.py tests the pace itself."""
    pace = app.bot_data[DEPS_KEY].deliverer.pace
    assert pace is not None
    pace.window = 0.05
