"""Bot API calls that survive passing trouble: PTB's rate limiter with retries on top.

PTB's :class:`~telegram.ext.AIORateLimiter` keeps to Telegram's pace. It is not asked to retry
a call that met flood control (429): its retry halts every request of the process for the
wait, so one busy group would make every chat late. The 429 goes to the caller instead, and
the deliverer makes only that chat wait (the outbox sends its messages once the wait is
over). This limiter retries,
with a growing pause, a call that met passing trouble, when repeating it cannot do anything
twice:

- an edit, a delete, a pin or a read may be repeated after any network error or 5xx: the
  second one changes nothing more;
- a new message, an answer to a button tap, a new forum topic may have been carried out
  before the reply was lost, and doing them again would post a double, answer twice (which
  Telegram refuses) or open a second topic. They are repeated only when the request
  provably never reached the Bot API: the connection could not be made (httpx's
  ``ConnectError``, ``ConnectTimeout``, PTB's pool timeout), or Telegram's front answered
  502 Bad Gateway or 503 Service Unavailable (the Bot API behind it never got the
  request). PTB reports a connection that broke after the request went out (httpx's
  ``ReadError``, ``RemoteProtocolError``, a read timeout) with the same ``NetworkError``
  (or ``TimedOut``) as a refused connection: :func:`never_arrived` reads the httpx error
  behind it. Those, a 500 and a 504 are not repeated here; the outbox relay sends a message
  whose send failed again later on (at most once more);
- an answer to a button tap, whose button spins until it is answered, is also repeated
  when Telegram answered the call with an error status (500, 504: it reports the answer
  as not made), and after flood control (429) when the wait is short enough for the tap
  to still be waiting (:data:`ANSWER_FLOOD_WAIT`). Not after a connection that broke once
  the request went out: then it most likely arrived, and a second answer would be refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import httpx
from telegram.error import BadRequest, NetworkError, RetryAfter, TimedOut
from telegram.ext import AIORateLimiter, BaseRateLimiter

from kolkhoz_tg import metrics
from kolkhoz_tg.bot.disabled import DisabledButtons
from kolkhoz_tg.bot.pace import BOARD, URGENT, GroupPace

log = logging.getLogger(__name__)

JSON = bool | dict[str, Any] | list[dict[str, Any]]

#: Safe to repeat after any passing failure: doing them twice is doing them once.
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
#: The longest flood-control wait after which a button tap is still answered (seconds):
#: Telegram drops a query's answer after about 15 s.
ANSWER_FLOOD_WAIT = 5.0
#: Calls repeated whenever Telegram answered them with an error status (see the module
#: docstring).
REPEATED_ON_STATUS = frozenset({"answerCallbackQuery"})


#: ``rate_limit_args`` of a call to a group whose slot of the group's budget was taken
#: already (:meth:`GroupPace.slot`); :data:`~kolkhoz_tg.bot.pace.BOARD`: an edit of the
#: board, served after anything more urgent; None: urgent.
PREPAID = -1
#: Calls that spend a group's budget: what posts or edits a message there.
_SPENDING = ("send", "edit", "copyMessage", "forwardMessage")


def _group_of(endpoint: str, data: dict[str, Any]) -> int | None:
    """The group a call spends the budget of, if any."""
    if not endpoint.startswith(_SPENDING) or endpoint == "sendChatAction":
        return None
    try:
        chat_id = int(data.get("chat_id"))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return chat_id if chat_id < 0 else None


#: httpx errors raised before a request was sent: the connection was never made.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
#: How PTB words a 502 or a 503 answer (Telegram's JSON description, or the status phrase
#: and code when the body is nginx's HTML page).
_NOT_FORWARDED = ("bad gateway", "(502)", "service unavailable", "(503)")


def never_arrived(error: NetworkError) -> bool:
    """Whether a failed call provably never reached the Bot API, so that making it again
    cannot do anything twice: the connection was never made (the httpx error PTB raised
    it from), or Telegram's front answered 502 or 503. False for a connection that broke
    after the request went out, a read timeout, a 500 or a 504: the call may have been
    carried out."""
    cause: BaseException | None = error.__cause__
    while cause is not None:
        if isinstance(cause, _NOT_SENT):
            return True
        if isinstance(cause, httpx.HTTPError):
            return False  # sent, or partly: it may have arrived
        cause = cause.__cause__
    if isinstance(error, TimedOut):
        return False
    # No httpx error behind it: the Bot API's front answered with a status.
    text = error.message.lower()
    return any(mark in text for mark in _NOT_FORWARDED)


def answered_with_status(error: NetworkError) -> bool:
    """Whether Telegram answered the failed call with an error status (a 5xx), rather than
    the connection failing: then it reports the call as not carried out."""
    cause: BaseException | None = error.__cause__
    while cause is not None:
        if isinstance(cause, httpx.HTTPError):
            return False
        cause = cause.__cause__
    return not isinstance(error, TimedOut)


class FloodControlFilter(logging.Filter):
    """PTB's rate limiter logs a 429 it does not retry (``max_retries=0``) with a traceback
    at ERROR; the caller handles it (that chat waits), so the record becomes one INFO
    line."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and "Rate limit hit" in str(record.msg):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = "flood control: %s (that chat waits)", (
                record.exc_info[1],)
            record.exc_info = None
            record.exc_text = None
        return True


_FLOOD_FILTER = FloodControlFilter()


class RetryingLimiter(BaseRateLimiter[int]):
    """Retries passing failures (see the module docstring); ``throttle``: also keep to
    Telegram's pace with PTB's :class:`AIORateLimiter` (off in tests)."""

    def __init__(self, throttle: bool = True, delays: Sequence[float] = DELAYS) -> None:
        # max_retries=0: a 429 is raised at once (see the module docstring). Each group's
        # budget is kept by GroupPace, by urgency (group_max_rate=0: not by PTB's limiter).
        self._inner = AIORateLimiter(max_retries=0, group_max_rate=0) if throttle else None
        #: The groups' budgets (None: not throttled, as in most tests).
        self.pace: GroupPace | None = GroupPace() if throttle else None
        #: Told of every edit or deletion of a message, (chat id, message id), before it is
        #: made: whoever remembers what a message says forgets it (an edit made elsewhere
        #: must not be taken for one that changes nothing).
        self.on_change: Callable[[int, int], None] | None = None
        if throttle:
            logging.getLogger("telegram.ext.AIORateLimiter").addFilter(_FLOOD_FILTER)
        self.delays = tuple(delays)
        #: Retries made, by method (for logs and tests).
        self.retries: dict[str, int] = {}
        #: The callback queries an answer was sent for (or tried: it may have arrived),
        #: newest last, so that the error handler never answers one again.
        self._answered: OrderedDict[str, None] = OrderedDict()
        #: Whether this server has disabled buttons; a keyboard goes in the form it reads.
        self.buttons = DisabledButtons()

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
        group = _group_of(endpoint, data) if self.pace is not None else None
        callback = self.buttons.wrap(callback, data)
        if self.on_change is not None and endpoint.startswith(("edit", "delete")):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                self.on_change(int(data["chat_id"]), int(data["message_id"]))
        for attempt in range(len(self.delays) + 1):
            try:
                if group is not None and self.pace is not None and not (
                        rate_limit_args == PREPAID and attempt == 0):
                    await self.pace.slot(group, BOARD if rate_limit_args == BOARD else URGENT)
                if self._inner is not None:
                    return await self._inner.process_request(
                        callback, args, kwargs, endpoint, data, None)
                return await callback(*args, **kwargs)
            except BadRequest as e:
                if "not modified" not in e.message:  # (an edit that changed nothing)
                    metrics.send_failed(endpoint, "BadRequest")
                raise
            except RetryAfter as e:
                wait = e.retry_after
                seconds = wait.total_seconds() if not isinstance(wait, int) else float(wait)
                chat = str(data.get("chat_id", "?"))
                metrics.flood_wait(chat, seconds)
                if (endpoint not in REPEATED_ON_STATUS or attempt == len(self.delays)
                        or seconds > ANSWER_FLOOD_WAIT):
                    raise
                self._note(endpoint, f"flood control, {seconds:g} s", attempt)
                await asyncio.sleep(seconds)
                continue
            except NetworkError as e:  # TimedOut too
                if attempt == len(self.delays) or not (
                        endpoint in IDEMPOTENT or never_arrived(e)
                        or (endpoint in REPEATED_ON_STATUS and answered_with_status(e))):
                    metrics.send_failed(endpoint, type(e).__name__)
                    raise
                self._note(endpoint, str(e) or type(e).__name__, attempt)
            await asyncio.sleep(self.delays[attempt])
        raise AssertionError("unreachable")  # pragma: no cover

    def _note_answer(self, query_id: str) -> None:
        self._answered[query_id] = None
        if len(self._answered) > ANSWERS_KEPT:
            self._answered.popitem(last=False)

    def _note(self, endpoint: str, why: str, attempt: int) -> None:
        self.retries[endpoint] = self.retries.get(endpoint, 0) + 1
        log.info("%s failed (%s): retrying in %.1f s", endpoint, why, self.delays[attempt])
