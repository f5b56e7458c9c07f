"""The outbox claims: what this process may send, and the relay that claims what is due.

A message is sent only while this process holds its claim (a lease, see
:meth:`~kolkhoz_tg.service.GameService.hold_notifications`): a delivery that starts late (it
waited for the game's lock, the thread pool, the rate limiter) renews the claim first
(:meth:`Claims.keep`), the claims of a game being delivered are renewed in the background
while its calls are in flight (:meth:`Claims.beat`: a slow Bot API, flood control), and a
delivery whose claims another process's relay took over meanwhile (its lease lapsed) stops
before its next message: that relay sends them. So two replicas never both post, say, a
game's final table. :func:`relay_name` names this process on its claims; :func:`dead_here`
tells a dead process of this host, whose claims are taken over at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from datetime import UTC
from typing import TYPE_CHECKING

from kolkhoz_tg.service import Busy, GameService, Notification

if TYPE_CHECKING:
    from kolkhoz_tg.bot.delivery.deliverer import Deliverer

log = logging.getLogger(__name__)


class Claims:
    """The outbox claims one game's delivery holds, and until when (as far as this process
    knows: the lease it last took, counted from before it took it). :meth:`keep` renews them
    when half the lease is gone and tells whether they are all still ours."""

    def __init__(self, service: GameService, owner: str | None, notes: list[Notification]):
        self.service = service
        self.owner = owner
        self.ids = {n.id for n in notes}
        # Born claimed by this process (or claimed by its relay since): held at least until
        # their creation plus a lease.
        lease = service.outbox_lease
        self.until = min((n.created_at for n in notes), default=service.clock.now()) + lease
        if self.until.tzinfo is None:
            self.until = self.until.replace(tzinfo=UTC)
        self.lost: set[int] = set()
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return self.owner is not None and bool(self.ids)

    async def keep(self) -> bool:
        """Whether every claim is still ours, renewing them if half their lease is gone (or
        the process has started giving its claims back)."""
        if not self.active:
            return not self.lost
        service, owner = self.service, self.owner
        assert owner is not None
        async with self._lock:
            if self.lost:
                return False
            lease = service.outbox_lease
            now = service.clock.now()
            if service.outbox_owner == owner and now < self.until - lease / 2:
                return True
            try:
                held = await asyncio.to_thread(service.hold_notifications, owner, self.ids)
            except Busy:
                # Another process holds SQLite's write lock, so nobody can take them over
                # either: ours while the lease we hold runs.
                return now < self.until
            self.lost = self.ids - held
            self.until = now + lease
            if self.lost:
                log.warning("notifications %s were taken over by another relay; not sending "
                            "them here", sorted(self.lost))
            return not self.lost

    async def beat(self, every: float) -> None:
        """Keep the claims while the game's Bot API calls are in flight."""
        while True:
            await asyncio.sleep(every)
            try:
                if not await self.keep():
                    return
            except Exception:  # the next step's keep() tries again
                log.warning("could not renew the outbox claims", exc_info=True)


#: When this process started (seconds): part of its name on the outbox claims, so that a
#: process restarted with the same id (a container's process 1) is not taken for the old.
_STARTED = int(time.time())


def relay_name() -> str:
    """This process's name on the outbox claims: host, process id and start time."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{_STARTED}"


def dead_here(owner: str, me: str | None = None) -> bool:
    """Whether the relay named ``owner`` was a process of this host that is gone: the
    same host (a container restarted keeps its host name) and either this process's own id
    with another start (an earlier life of this process id) or an id no process has now.
    A relay of another host is never judged here: its claims lapse with their lease."""
    me = me or relay_name()
    parts = owner.split(":")  # host:pid:start (host:pid before start times were named)
    if owner == me or len(parts) not in (2, 3) or parts[0] != me.split(":")[0]:
        return False
    if not parts[1].isdecimal():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return True  # our id, another start: the process before us
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # (another user's process: alive)
        return False
    return False


class Relay:
    """Delivers what the outbox owes, continuously: on PTB's job queue every ``interval``,
    in the background (start-up serves taps at once while the relay drains a backlog).
    Claims what it delivers (see :meth:`GameService.claim_notifications`), so replicas
    never send the same message twice, and leaves chats under flood control alone until
    their wait is over."""

    def __init__(self, deliverer: Deliverer, owner: str, batch: int = 50) -> None:
        self.deliverer = deliverer
        self.service = deliverer.service
        self.owner = owner
        self.batch = batch
        self._lock = asyncio.Lock()
        deliverer.owner = owner

    async def tick(self, _context: object = None, *, wait: bool = False) -> int:
        """One pass: claim and deliver due notifications until none are left (or only
        ones for chats that must wait). Returns how many were attempted. A pass that finds
        another one running returns at once, unless ``wait``."""
        if self._lock.locked() and not wait:
            return 0
        total = 0
        async with self._lock:
            while True:
                now = self.deliverer.now()
                waits = self.deliverer.chat_wait
                for chat in [c for c, until in waits.items() if until <= now]:
                    del waits[chat]
                try:
                    notes = await asyncio.to_thread(
                        self.service.claim_notifications, self.owner, self.batch,
                        skip_chats=list(waits))
                except Busy:  # another process holds SQLite's write lock: next tick
                    log.info("the outbox relay found the database busy; it tries again")
                    return total
                if not notes:
                    return total
                total += len(notes)
                try:
                    await self.deliverer.deliver(notes)
                except Exception:
                    log.exception("the outbox relay failed; the claims lapse and it retries")
                    return total
                if len(notes) < self.batch:
                    return total

    async def drain(self, rounds: int = 100) -> None:
        """Deliver until nothing is due now (tests, and a clean shutdown)."""
        for _ in range(rounds):
            if not await self.tick(wait=True):
                break
        await self.deliverer.boards_painted()
