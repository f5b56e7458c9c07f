"""The outbox, for a relay that delivers it: claim what is due, settle what was tried.

A notification is written in the transaction of the change it reports (see
:meth:`~kolkhoz_tg.service.kernel.Kernel.store_notes`). A front end's relay then
*claims* due notifications (a lease: ``claimed_by`` and ``claimed_until``; on PostgreSQL the
claim skips rows another relay is claiming right now, on SQLite the write lock serializes
claims), delivers them, and *settles* them: delivered, or back in the outbox with a back-off
that grows with each failed attempt. A claim that lapses (the process died mid-delivery) is
free for any relay again, so every notification is delivered once a relay lives. A relay
*holds* its claims right before and while it sends (:meth:`OutboxService.hold_notifications`
renews the lease and says which are still its own), so one that was too slow (its lease
lapsed and another relay took the messages over) sends nothing more: two relays never
deliver the same one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.exc import OperationalError
from sqlmodel import select

from engine import Game
from kolkhoz_tg.service.common import notification_record
from kolkhoz_tg.service.errors import NotFound
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.records import Notification, Scene
from kolkhoz_tg.storage.models import NotificationRow, UserRow

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Waits after the 1st, 2nd, … failed attempt; the last one repeats.
BACKOFF = (2, 5, 15, 30, 60, 120, 300, 600)
#: A notification still failing this long after it was written is dropped (logged).
GIVE_UP_AFTER = timedelta(days=2)


def backoff(attempts: int) -> timedelta:
    """How long to wait before the next try of a message that failed ``attempts`` times."""
    return timedelta(seconds=BACKOFF[min(max(attempts, 1), len(BACKOFF)) - 1])


class OutboxService:
    """The outbox for a relay: claim, hold and settle notifications (see the module
    docstring)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def claim_notifications(
        self, owner: str, limit: int = 100, *, skip_chats: Iterable[int] = (),
    ) -> list[Notification]:
        """Claim up to ``limit`` due notifications for ``owner`` (oldest first) for
        :attr:`outbox_lease`: undelivered, not claimed by a live lease, not waiting for a
        back-off, and not for a chat in ``skip_chats`` (the relay's per-chat back-off)."""
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        now = self.kernel.clock.now()
        due = (
            sa.select(t.c.id)
            .where(
                t.c.delivered_at.is_(None),
                sa.or_(t.c.claimed_until.is_(None), t.c.claimed_until < now),
                sa.or_(t.c.next_attempt_at.is_(None), t.c.next_attempt_at <= now),
            )
            .order_by(t.c.id)
            .limit(limit)
        )
        skip = list(skip_chats)
        if skip:
            due = due.where(sa.or_(t.c.chat_id.is_(None), t.c.chat_id.not_in(skip)))
        if self.kernel.db.is_postgres:
            due = due.with_for_update(skip_locked=True)
        with self.kernel.write() as s:
            ids = list(s.execute(due).scalars())
            if not ids:
                return []
            s.execute(
                sa.update(t).where(t.c.id.in_(ids))
                .values(claimed_by=owner[:64], claimed_until=now + self.kernel.outbox_lease)
            )
            rows = s.exec(
                select(NotificationRow)
                .where(NotificationRow.id.in_(ids))  # type: ignore[union-attr]
                .order_by(NotificationRow.id)  # type: ignore[arg-type]
            ).all()
            return [notification_record(r) for r in rows]

    def hold_notifications(self, owner: str, ids: Iterable[int]) -> set[int]:
        """Renew ``owner``'s claim on ``ids`` for another :attr:`outbox_lease`, right before
        (and while) they are sent; returns the ids ``owner`` holds now, the only ones it may
        send. Held: undelivered and claimed by ``owner`` (even if its lease lapsed meanwhile,
        as long as no other relay took them), or free again (released, or lapsed) and not
        waiting for a back-off. Not held: delivered (or superseded), or claimed by another
        relay since (this one was too slow: that relay sends them)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return set()
        t = NotificationRow.__table__  # type: ignore[attr-defined]

        def hold() -> set[int]:
            now = self.kernel.clock.now()
            free = sa.and_(
                sa.or_(t.c.claimed_until.is_(None), t.c.claimed_until < now),
                sa.or_(t.c.next_attempt_at.is_(None), t.c.next_attempt_at <= now),
            )
            with self.kernel.write() as s:
                # (On PostgreSQL a row another relay is claiming right now is waited for,
                # and the WHERE re-checked on what it committed.)
                result = s.execute(
                    sa.update(t)
                    .where(t.c.id.in_(wanted), t.c.delivered_at.is_(None),
                           sa.or_(t.c.claimed_by == owner[:64], free))
                    .values(claimed_by=owner[:64], claimed_until=now + self.kernel.outbox_lease)
                    .returning(t.c.id)
                )
                return set(result.scalars())

        return _again_if_aborted(hold, "holding notifications")

    def mark_sending(self, ids: Iterable[int], bit: int) -> None:
        """Record, right before a message that must not go out twice is sent, that this
        send of the notifications ``ids`` may reach Telegram from now on (``bit`` says which
        send: see :mod:`kolkhoz_tg.bot.once`). A process that takes them over after a crash,
        or finds the reply lost, settles them without sending them again; a send that
        provably failed is cleared again when it is settled (``unsent``)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return
        t = NotificationRow.__table__  # type: ignore[attr-defined]

        def mark() -> None:
            with self.kernel.write() as s:
                s.execute(sa.update(t).where(t.c.id.in_(wanted), t.c.delivered_at.is_(None))
                          .values(sending=t.c.sending.op("|")(bit)))

        _again_if_aborted(mark, "marking a send")

    def settle_notifications(
        self,
        delivered: Iterable[int] = (),
        *,
        retry: Iterable[int] = (),
        not_before: datetime | None = None,
        meta: Mapping[int, Mapping[str, Any]] | None = None,
        no_pm: Iterable[int] = (),
        owner: str | None = None,
        release: Iterable[int] = (),
        unsent: Mapping[int, int] | None = None,
    ) -> None:
        """After a delivery attempt, in one transaction: mark ``delivered``; put ``retry``
        back with a back-off (at least until ``not_before``, e.g. a flood wait), dropping
        those that kept failing for :data:`GIVE_UP_AFTER`; store the front end's ``meta``
        values per game (a None value removes the key); remember the users the bot can no
        longer write to (``no_pm``); give back ``release`` (not tried: due again at once);
        clear the sends ``unsent`` names (id: bits of :meth:`mark_sending`) that provably
        never reached Telegram.

        With ``owner``, ``retry`` and ``release`` apply only to what ``owner`` still holds:
        a relay that lost a claim (it was too slow) must not free or delay a message another
        relay is sending now."""
        done, again, mute, free = list(delivered), list(retry), list(no_pm), list(release)
        cleared = dict(unsent or {})
        if not (done or again or meta or mute or free or cleared):
            return
        # What was sent must be recorded, or a relay sends it again once the claims lapse:
        # a transaction PostgreSQL aborted (a deadlock with a batched sweep, a
        # serialization failure) is simply made again.
        _again_if_aborted(
            lambda: self._settle(done, again, not_before, meta, mute, owner, free, cleared),
            "settling the outbox")

    def _settle(
        self, done: list[int], again: list[int], not_before: datetime | None,
        meta: Mapping[int, Mapping[str, Any]] | None, mute: list[int],
        owner: str | None = None, free: list[int] | None = None,
        cleared: dict[int, int] | None = None,
    ) -> None:
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        now = self.kernel.clock.now()
        held = sa.true() if owner is None else t.c.claimed_by == owner[:64]
        with self.kernel.write() as s:
            # The game rows first, as act() locks them (before the notifications it
            # supersedes): the same order everywhere, so no deadlock on PostgreSQL.
            for game_id, values in (meta or {}).items():
                row = self.kernel.load_game(s, game_id)
                if row is not None and values:
                    merged = {**row.meta, **values}
                    row.meta = {k: v for k, v in merged.items() if v is not None}
            for bits in set((cleared or {}).values()):
                ids = [n for n, b in (cleared or {}).items() if b == bits]
                s.execute(sa.update(t).where(t.c.id.in_(ids), t.c.delivered_at.is_(None))
                          .values(sending=t.c.sending.op("&")(~bits)))
            if done:
                s.execute(
                    sa.update(t).where(t.c.id.in_(done), t.c.delivered_at.is_(None))
                    .values(delivered_at=now, claimed_by=None, claimed_until=None)
                )
            if again:
                rows = s.execute(
                    sa.select(t.c.id, t.c.attempts, t.c.created_at)
                    .where(t.c.id.in_(again), t.c.delivered_at.is_(None), held)
                ).all()
                dropped = [r.id for r in rows if now - _aware(r.created_at) > GIVE_UP_AFTER]
                if dropped:
                    log.warning("giving up on notifications %s after %s", dropped,
                                GIVE_UP_AFTER)
                    s.execute(sa.update(t).where(t.c.id.in_(dropped)).values(
                        delivered_at=now, claimed_by=None, claimed_until=None))
                for r in rows:
                    if r.id in dropped:
                        continue
                    at = now + backoff(r.attempts + 1)
                    if not_before is not None and not_before > at:
                        at = not_before
                    s.execute(sa.update(t).where(t.c.id == r.id).values(
                        attempts=r.attempts + 1, next_attempt_at=at, claimed_by=None,
                        claimed_until=None))
            if free:
                s.execute(sa.update(t).where(t.c.id.in_(free), t.c.delivered_at.is_(None), held)
                          .values(claimed_by=None, claimed_until=None))
            if mute:
                s.execute(sa.update(UserRow).where(
                    UserRow.id.in_(mute)).values(can_pm=False))  # type: ignore[attr-defined]

    def claim_holders(self) -> list[str]:
        """The relays that hold a claim on an undelivered notification now (their leases
        not yet lapsed), by name."""
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        now = self.kernel.clock.now()
        with self.kernel.db.read() as s:
            return sorted(s.execute(
                sa.select(t.c.claimed_by).distinct().where(
                    t.c.delivered_at.is_(None), t.c.claimed_by.is_not(None),
                    t.c.claimed_until >= now)
            ).scalars())

    def release_claims(self, owner: str) -> int:
        """Give back what ``owner`` holds (a relay shutting down, or one found dead by the
        process that replaced it): due again at once."""
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        with self.kernel.write() as s:
            result = s.execute(
                sa.update(t).where(t.c.claimed_by == owner[:64], t.c.delivered_at.is_(None))
                .values(claimed_by=None, claimed_until=None)
            )
            return int(result.rowcount)  # type: ignore[attr-defined]

    def scene(self, game_id: int) -> Scene:
        """The game as its readers see it now (for notifications a relay picked up; an
        ``act()`` returns its scene itself). Raises :class:`NotFound`."""
        with self.kernel.db.read() as s:
            row, seats = self.kernel.load_with_seats(s, game_id, lock=False)
            if row is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            game = None if row.state is None else Game.from_json(row.state)
            return self.kernel.scene(s, row, game, seats)

    def outbox_backlog(self) -> int:
        """How many notifications are still undelivered (for health checks and tests)."""
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        with self.kernel.db.read() as s:
            return int(s.execute(
                sa.select(sa.func.count()).select_from(t).where(t.c.delivered_at.is_(None))
            ).scalar_one())


def _again_if_aborted(fn: Callable[[], T], what: str) -> T:
    """``fn()`` (one write transaction), made again (up to three times in all) when
    PostgreSQL aborted it (a deadlock, e.g. with a batched sweep; a serialization failure)
    or the connection broke under it (the transaction did not happen; a new one is used)."""
    for attempt in range(3):
        try:
            return fn()
        except OperationalError as e:
            code = getattr(e.orig, "sqlstate", None) or getattr(e.orig, "pgcode", None)
            lost = bool(getattr(e, "connection_invalidated", False))
            if (code not in ("40P01", "40001") and not lost) or attempt == 2:
                raise
            code = code or "connection lost"
            log.info("%s was aborted (%s); trying again", what, code)
    raise AssertionError("unreachable")  # pragma: no cover


def _aware(value: datetime) -> datetime:
    from datetime import UTC

    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


__all__ = ["BACKOFF", "GIVE_UP_AFTER", "OutboxService", "backoff"]
