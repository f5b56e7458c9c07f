"""Settling the outbox: one :meth:`~kolkhoz_tg.service.GameService.settle_notifications`
call per delivery attempt, with what the attempt did (:class:`Outcome`).

The notifications whose steps went out (or cannot ever go out: the user blocked the bot)
are delivered; those that met a passing failure go back with a back-off; those not tried
(the claims were lost midway) go back at once. A settle that meets a busy SQLite (another
process holds the write lock) is made again in the background a moment later, before the
game's next delivery (:meth:`Settler.settled_first`): what went out must be recorded, or it
goes out again once its claims lapse.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from kolkhoz_tg.bot.steps import GroupPost
from kolkhoz_tg.service import Busy

if TYPE_CHECKING:
    from kolkhoz_tg.bot.delivery.deliverer import Deliverer

log = logging.getLogger(__name__)

#: Pauses between the background tries of a settle that met a busy SQLite (seconds; with
#: SQLite's own busy wait on each try, well within an outbox lease).
SETTLE_PAUSES = (0.2, 0.5, 1.0, 2.0, 4.0, 6.0)


@dataclass
class Outcome:
    """What one game's delivery attempt did, for the single settle call at its end."""

    delivered: list[int] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    no_pm: set[int] = field(default_factory=set)
    not_before: datetime | None = None
    #: Players whose game message went out (sent or edited).
    shown: set[int] = field(default_factory=set)
    #: Not tried (the claims were lost midway): back to the outbox at once.
    release: list[int] = field(default_factory=list)
    #: The game's forum topic turned out to be deleted: (chat id, topic id).
    topic_gone: tuple[int, int] | None = None
    #: Records of the game (a year's summary, the final table) that could not go into its
    #: gone topic: posted in "General" once the game has moved (see
    #: :meth:`~kolkhoz_tg.bot.delivery.topic_loss.TopicLoss.after`), their notifications
    #: settled then.
    moved: list[GroupPost] = field(default_factory=list)
    #: The sends that may have reached Telegram, per notification (bits of
    #: :mod:`kolkhoz_tg.bot.once`): as the outbox had them, and as marked since.
    sending: dict[int, int] = field(default_factory=dict)
    #: Sends marked that provably never reached Telegram: their bits are cleared.
    unsent: dict[int, int] = field(default_factory=dict)


class Settler:
    """Settles the deliveries of a :class:`Deliverer` (see the module docstring), and
    remembers the meta values this process stored after them, per game (:attr:`meta`): a
    scene made by a transaction that ran before a delivery's settle misses them."""

    def __init__(self, deliverer: Deliverer) -> None:
        self.deliverer = deliverer
        self.meta: dict[int, dict[str, Any]] = {}
        #: Settles that met a busy SQLite and are being made again in the background, per
        #: game (None: notifications of no game): the game's next delivery waits for it.
        self._settling: dict[int | None, asyncio.Task[None]] = {}

    def stored(self, game_id: int) -> dict[str, Any]:
        """The meta values this process stored for the game (empty: none)."""
        return self.meta.get(game_id, {})

    async def settle(self, game_id: int, out: Outcome) -> None:
        meta = {game_id: out.meta} if out.meta else None
        if out.meta:
            if len(self.meta) > 2000:
                self.meta.clear()
            self.meta.setdefault(game_id, {}).update(out.meta)
        await self.settle_with(game_id, partial(
            self.deliverer.service.settle_notifications, out.delivered, retry=out.retry,
            not_before=out.not_before, meta=meta, no_pm=out.no_pm, owner=self.deliverer.owner,
            release=out.release, unsent=out.unsent))

    async def settle_ids(self, game_id: int | None, delivered: list[int]) -> None:
        settle = self.deliverer.service.settle_notifications
        await self.settle_with(game_id, partial(settle, delivered))

    async def settle_with(self, game_id: int | None, settle: Callable[[], None]) -> None:
        """Make one settle call; when another process holds SQLite's write lock, make it
        again in the background with a short back-off (:data:`SETTLE_PAUSES`): what went
        out must be recorded, or the relay sends it again once the claims lapse, and the
        handler that delivered (a tap, answered already) should not wait for it. The game's
        next delivery waits for it instead (:meth:`settled_first`), so it reads what it
        stored."""
        try:
            await asyncio.to_thread(settle)
        except Busy:
            log.info("game %s: the database is busy; settling the outbox in the background",
                     game_id)
            previous = self._settling.get(game_id)
            task = self.deliverer.spawn(self._again(game_id, settle, previous))
            self._settling[game_id] = task

    async def _again(
        self, game_id: int | None, settle: Callable[[], None],
        previous: asyncio.Task[None] | None,
    ) -> None:
        try:
            if previous is not None:
                with contextlib.suppress(Exception):
                    await previous  # in the order they were made
            for pause in SETTLE_PAUSES:
                await asyncio.sleep(pause)
                try:
                    await asyncio.to_thread(settle)
                    return
                except Busy:
                    continue
            log.error("game %s: the database stayed busy; the outbox could not be settled "
                      "(what went out is sent again once its claims lapse)", game_id)
        finally:
            if self._settling.get(game_id) is asyncio.current_task():
                del self._settling[game_id]

    async def settled_first(self, game_id: int | None) -> bool:
        """Wait for a settle of the game still being made in the background (with the
        game's lock held: nothing of the game goes out meanwhile). Returns whether there was
        one."""
        pending = self._settling.get(game_id)
        if pending is None:
            return False
        with contextlib.suppress(Exception):
            await asyncio.shield(pending)
        return True
