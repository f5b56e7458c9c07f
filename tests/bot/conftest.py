"""Fixtures for bot tests: the real PTB application on a fake Telegram and a fresh service."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram.ext import Application

from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.service import GameService
from tests.faketg import FakeTelegram, forbid_real_telegram, inprocess_builder


@pytest.fixture(autouse=True)
def _no_real_telegram(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_real_telegram(monkeypatch)


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    tg = FakeTelegram()
    yield tg
    await tg.close()


def make_app(
    fake: FakeTelegram, service: GameService, *, rate_limiter: bool = False
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The product's application on the in-process fake transport. Deadlines are driven by
    the tests (``service.process_due``), so no scheduler runs; PTB's rate limiter (Telegram's
    real pace: 20 messages a minute in a group) is off unless a test is about it."""
    return build_application(
        inprocess_builder(fake), service, schedule=False, rate_limiter=rate_limiter
    )
