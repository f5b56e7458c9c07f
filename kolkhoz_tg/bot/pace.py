"""Telegram's budget for a group, spent in order of urgency.

Telegram lets a bot post or edit about 20 messages a minute in one group and answers more
with flood control (429). PTB's :class:`~telegram.ext.AIORateLimiter` spaces a group's
calls in the order they were made, so a reply to a command waits behind every board edit
queued before it. :class:`GroupPace` keeps the limit exactly — at most ``per_minute`` calls
to a group in any ``window`` seconds, counted call by call — and serves the calls by
urgency:

- ``URGENT`` (replies to commands, notices, the year's summary and other new messages)
  take any free slot of the window, before anything of lower urgency that waits;
- ``BOARD`` (edits of the board, which a newer edit makes pointless) leave ``reserve``
  slots of the window to urgent calls; in a group with a few calls in its window they
  come one per ``gap`` (the window over the slots boards may use: about 3.6 s), the pace
  at which they alone never fill it, so the calls stay spread over the window and one
  leaves it every few seconds (no minute-long stall behind a full window). A quiet group
  gets its edit at once. The deliverer waits for a board's slot *before* it chooses the
  board to show (:meth:`~kolkhoz_tg.bot.delivery.Deliverer.paint_board`), so the group
  sees the newest state, never a queue of old ones.

Private chats are not limited here (Telegram's overall limit of about 30 calls a second
stays with PTB's limiter).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

#: Urgency of a call to a group (lower is served first).
URGENT = 0
BOARD = 1


@dataclass
class _Chat:
    #: When the calls of the last window went (oldest first).
    sent: deque[float] = field(default_factory=deque)
    last_board: float | None = None
    waiting: list[tuple[int, int]] = field(default_factory=list)
    #: One event per waiting call, set whenever the chat's budget or queue changed.
    events: dict[tuple[int, int], asyncio.Event] = field(default_factory=dict)


class GroupPace:
    """Slots of one group's budget, handed out by urgency (see the module docstring)."""

    def __init__(
        self, per_minute: int = 20, window: float = 60.5, reserve: int = 3, quiet: int = 4,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.window = window
        self.reserve = max(0, min(reserve, per_minute - 1))
        #: Below this many calls in the window a group counts as quiet: its board edits go
        #: at once.
        self.quiet = quiet
        self.clock = clock
        self._chats: dict[int, _Chat] = {}
        self._tickets = itertools.count()

    @property
    def gap(self) -> float:
        """Seconds between two board edits in a busy group."""
        return self.window / (self.per_minute - self.reserve)

    def _wait(self, chat: _Chat, urgency: int, now: float) -> float:
        """Seconds until a call of ``urgency`` may go (0: now)."""
        sent = chat.sent
        while sent and now - sent[0] >= self.window:
            sent.popleft()
        limit = self.per_minute if urgency == URGENT else self.per_minute - self.reserve
        if len(sent) >= limit:
            return sent[len(sent) - limit] + self.window - now
        if urgency == URGENT or len(sent) < self.quiet or chat.last_board is None:
            return 0.0
        # A busy group: one board edit per gap, the pace at which board edits alone would
        # never fill the window (about 3.6 s), so the calls stay spread over it and one
        # leaves the window every few seconds: no minute-long stall behind a full window.
        return max(0.0, chat.last_board + self.gap - now)

    def board_wait(self, chat_id: int) -> float:
        """Seconds a board edit in ``chat_id`` would wait now, were nothing else waiting."""
        chat = self._chats.get(chat_id)
        return 0.0 if chat is None else self._wait(chat, BOARD, self.clock())

    async def slot(
        self, chat_id: int, urgency: int = URGENT, hurry: Callable[[], bool] | None = None
    ) -> None:
        """Wait for, and take, a slot of ``chat_id``'s budget. ``hurry``: asked whenever the
        call wakes (see :meth:`poke`); once it says yes, the call waits as ``URGENT`` (a
        board that now carries the end of the game, a pause: it must not wait as an edit
        a newer one would replace)."""
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = self._chats[chat_id] = _Chat()
            if len(self._chats) > 1024:
                self._forget_idle()
        ticket = (urgency, next(self._tickets))
        heapq.heappush(chat.waiting, ticket)
        changed = chat.events[ticket] = asyncio.Event()
        try:
            while True:
                changed.clear()  # before looking: a change from now on wakes us
                if urgency != URGENT and hurry is not None and hurry():
                    chat.waiting.remove(ticket)
                    chat.events.pop(ticket)
                    urgency, ticket = URGENT, (URGENT, ticket[1])
                    chat.waiting.append(ticket)
                    heapq.heapify(chat.waiting)
                    chat.events[ticket] = changed
                now = self.clock()
                if chat.waiting[0] == ticket:
                    wait = self._wait(chat, urgency, now)
                    if wait <= 0:
                        heapq.heappop(chat.waiting)
                        chat.sent.append(now)
                        if urgency != URGENT:
                            chat.last_board = now
                        self._wake(chat)
                        return
                else:
                    wait = None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), wait)
        except BaseException:
            if ticket in chat.waiting:
                chat.waiting.remove(ticket)
                heapq.heapify(chat.waiting)
                self._wake(chat)
            raise
        finally:
            chat.events.pop(ticket, None)

    def poke(self, chat_id: int) -> None:
        """Wake the calls waiting for ``chat_id``'s budget (their ``hurry`` may say yes
        now)."""
        chat = self._chats.get(chat_id)
        if chat is not None:
            self._wake(chat)

    @staticmethod
    def _wake(chat: _Chat) -> None:
        for event in chat.events.values():
            event.set()

    def _forget_idle(self) -> None:
        now = self.clock()
        for chat_id, chat in list(self._chats.items()):
            if not chat.waiting and (not chat.sent or now - chat.sent[-1] >= self.window):
                del self._chats[chat_id]
