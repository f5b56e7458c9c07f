"""Reusable pytest fixtures. In another suite's ``conftest.py``::

from tests.faketg.fixtures import fake, fake_server, no_real_telegram  # noqa: F401
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from .core import FakeTelegram
from .transport import FakeBotApiServer, forbid_real_telegram


@pytest.fixture(autouse=True)
def no_real_telegram(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Any request to api.telegram.org fails (autouse where imported), and the test fails
    at teardown even if the attempt happened in a background task."""
    attempts = forbid_real_telegram(monkeypatch)
    yield attempts
    assert not attempts, f"the test tried to reach the real Telegram: {attempts}"


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    """A fresh fake Telegram (bot @kolkhoz_test_bot, token ``fake.token``)."""
    tg = FakeTelegram()
    yield tg
    await tg.close()


@pytest.fixture
async def fake_server(fake: FakeTelegram) -> AsyncIterator[FakeBotApiServer]:
    """The fake on HTTP 127.0.0.1: ``fake_server.base_url`` is the Bot API base URL."""
    async with FakeBotApiServer(fake) as srv:
        yield srv
