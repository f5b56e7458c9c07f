"""Fixtures for the fake Telegram's own tests (other suites may copy them)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from telegram import Bot
from telegram.ext import Application

from tests.faketg import (
    FakeBotApiServer,
    FakeRequest,
    FakeTelegram,
    forbid_real_telegram,
    inprocess_builder,
)

AppFactory = Callable[[], Application[Any, Any, Any, Any, Any, Any]]


@pytest.fixture(autouse=True)
def _no_real_telegram(monkeypatch: pytest.MonkeyPatch) -> None:
    forbid_real_telegram(monkeypatch)


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    tg = FakeTelegram()
    yield tg
    await tg.close()


@pytest.fixture
async def server(fake: FakeTelegram) -> AsyncIterator[FakeBotApiServer]:
    async with FakeBotApiServer(fake) as srv:
        yield srv


@pytest.fixture(params=["inprocess", "http"])
async def app_factory(
    request: pytest.FixtureRequest, fake: FakeTelegram
) -> AsyncIterator[AppFactory]:
    """Builds a bare Application wired to the fake through one of the two transports."""
    if request.param == "inprocess":
        yield lambda: inprocess_builder(fake).build()
        return
    async with FakeBotApiServer(fake) as srv:
        yield lambda: srv.builder().build()


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    """A plain PTB ``Bot`` on the in-process transport, for calling the API directly."""
    async with Bot(
        fake.token, request=FakeRequest(fake), get_updates_request=FakeRequest(fake)
    ) as b:
        yield b
