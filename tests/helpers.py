"""Helpers shared by tests of several folders (one definition each)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(cond: Callable[[], bool], what: str = "the awaited event", *,
                timeout: float = 30, poll: float = 0.02) -> None:
    """Poll ``cond`` every ``poll`` seconds until it holds; AssertionError naming ``what``
    after ``timeout`` seconds (a generous bound: a loaded machine is slow, and the order of
    events is what is tested)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            raise AssertionError(f"waited {timeout:.0f}s for {what}")
        await asyncio.sleep(poll)
