"""Bot API calls that survive passing trouble: PTB's rate limiter with retries on top.

PTB's :class:`~telegram.ext.AIORateLimiter` keeps to Telegram's pace and retries a call that
met flood control (429). This limiter also retries, with a growing pause, a call that met a
5xx from the Bot API (502 Bad Gateway …) or a connection error, and a call that timed out
when repeating it cannot do anything twice:

- an edit, a delete, a pin or a read may be repeated: the second one changes nothing more;
- a new message or an answer to a button tap may have gone through before the reply was
  lost, so after a *timeout* it is not repeated (a repeated answer fails with "query is too
  old", a repeated message would be a double). A 5xx, a reply from the Bot API, is retried;
  the outbox relay retries a message whose send timed out later on (at most once more).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.ext import AIORateLimiter, BaseRateLimiter

log = logging.getLogger(__name__)

JSON = bool | dict[str, Any] | list[dict[str, Any]]

#: Safe to repeat after a timeout: doing them twice is doing them once.
IDEMPOTENT = frozenset({
    "editMessageText", "editMessageReplyMarkup", "editMessageCaption", "editMessageMedia",
    "deleteMessage", "pinChatMessage", "unpinChatMessage", "getChatMember", "getChat", "getMe",
    "setMyCommands", "deleteMyCommands", "getMyCommands", "setWebhook", "deleteWebhook",
    "getWebhookInfo",
})
#: How many answered callback queries are remembered (far more than can be in flight).
ANSWERS_KEPT = 10_000
#: Pauses before the 1st, 2nd, … retry, in seconds.
DELAYS = (0.5, 1.5, 4.0)


class RetryingLimiter(BaseRateLimiter[int]):
    """Retries passing failures (see the module docstring); ``throttle``: also keep to
    Telegram's pace with PTB's :class:`AIORateLimiter` (off in tests)."""

    def __init__(self, throttle: bool = True, delays: Sequence[float] = DELAYS) -> None:
        self._inner = AIORateLimiter(max_retries=3) if throttle else None
        self.delays = tuple(delays)
        #: Retries made, by method (for logs and tests).
        self.retries: dict[str, int] = {}
        #: The callback queries an answer was sent for (or tried: it may have arrived),
        #: newest last, so that the error handler never answers one again.
        self._answered: OrderedDict[str, None] = OrderedDict()

    def answered(self, query_id: str) -> bool:
        """Whether an answer to the callback query ``query_id`` was sent, or tried."""
        return query_id in self._answered

    async def initialize(self) -> None:
        if self._inner is not None:
            await self._inner.initialize()

    async def shutdown(self) -> None:
        if self._inner is not None:
            await self._inner.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, JSON]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> JSON:
        if endpoint == "answerCallbackQuery":
            self._note_answer(str(data.get("callback_query_id")))
        for attempt in range(len(self.delays) + 1):
            try:
                if self._inner is not None:
                    return await self._inner.process_request(
                        callback, args, kwargs, endpoint, data, rate_limit_args)
                return await callback(*args, **kwargs)
            except BadRequest:
                raise
            except TimedOut:
                if endpoint not in IDEMPOTENT or attempt == len(self.delays):
                    raise
                self._note(endpoint, "timed out", attempt)
            except NetworkError as e:  # a 5xx or the connection: the call did not happen
                if attempt == len(self.delays):
                    raise
                self._note(endpoint, str(e), attempt)
            await asyncio.sleep(self.delays[attempt])
        raise AssertionError("unreachable")  # pragma: no cover

    def _note_answer(self, query_id: str) -> None:
        self._answered[query_id] = None
        if len(self._answered) > ANSWERS_KEPT:
            self._answered.popitem(last=False)

    def _note(self, endpoint: str, why: str, attempt: int) -> None:
        self.retries[endpoint] = self.retries.get(endpoint, 0) + 1
        log.info("%s failed (%s): retrying in %.1f s", endpoint, why, self.delays[attempt])
