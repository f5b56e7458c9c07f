"""Fixtures for the fake Telegram's own tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from telegram import Bot
from telegram.ext import Application

from tests.faketg import FakeBotApiServer, FakeRequest, FakeTelegram, inprocess_builder
from tests.faketg.fixtures import fake, fake_server, no_real_telegram

__all__ = ["AppFactory", "fake", "fake_server", "no_real_telegram"]

AppFactory = Callable[[], Application[Any, Any, Any, Any, Any, Any]]


@pytest.fixture
def server(fake_server: FakeBotApiServer) -> FakeBotApiServer:
    return fake_server


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
