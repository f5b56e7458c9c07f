"""No penalty for the bot's own faults: a player's time runs from when their turn reached
them, and the time the bot was down is nobody's.

The rule (docs/bot.md, *No penalty for our own faults*): a turn *reached* its player when
its ``your_turn`` notification was delivered, that is when their private message with the
buttons went out or, for a player the bot cannot write to privately (they never opened the
chat, or blocked it), when the group message naming them with the link to their cards went
out. A turn the outbox still owes at the deadline is the bot's fault (a failed or delayed
send, flood control, the bot removed from the group or its topic lost): no timeout is played
(so no stand-in comes and ``/stats`` counts no missed deadline), and the deadline moves on.
Once the message goes out, the deadline is at least the time of delivery plus the time the
turn gave, and the group is told. A player who simply does not answer a turn that reached
them times out as always.

The clock runs in a front end that delivers its own outbox (the Telegram bot:
``outbox_owner`` set); without one (the terminal, tests of the service alone) nothing is
ever delivered by a relay and timeouts are played as always.

Downtime: the bot notes it is alive (:meth:`FaultService.clock_beat`, at its start, every
minute and at a clean stop) in ``clock_beats``; at its next start, a gap longer than
:data:`DOWN_AFTER` is added to every running game's deadline and reminders
(:meth:`FaultService.after_downtime`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, select

from kolkhoz_tg.service.common import ACTIVE, notification_record
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.payloads import TimeExtended, YourTurn, decode
from kolkhoz_tg.service.records import PRACTICE_KEY, Kind, Scene, SweepResult
from kolkhoz_tg.storage.models import ClockBeatRow, GameRow, NotificationRow, SeatRow

log = logging.getLogger(__name__)

#: A turn that reached its player this much later than it was written is made good in the
#: open, with a note to the group; less is in the noise of delivery (a few seconds, a
#: group's pace). (A turn still owed at its deadline is held however short the delay.)
FAULT_GRACE = timedelta(minutes=1)
#: How often a running bot notes that it is alive.
BEAT_EVERY = timedelta(minutes=1)
#: A gap between two notes longer than this was downtime (a restart of a few seconds, or a
#: second process starting beside a running one, is not).
DOWN_AFTER = 2 * BEAT_EVERY
#: The name the Telegram bot notes its beats under.
BOT_BEAT = "bot"
#: Games a start gives their downtime back to in one transaction.
CATCH_UP_CHUNK = 200
#: In a game's meta: until when its downtime was made good (ISO), so that a start cut
#: short midway, or a replica starting beside it, gives no game its time twice.
DOWNTIME_KEY = "downtime_to"


@dataclass(frozen=True)
class Downtime:
    """What a start found: the clock (``name``) was down from ``last`` to ``now``; the
    running games' deadlines as they were then (see :meth:`FaultService.make_good`)."""

    name: str
    last: datetime
    now: datetime
    deadlines: dict[int, datetime]


def extend_to(tx: GameTx, until: datetime) -> timedelta:
    """Move the game's deadline to ``until`` if that is later, its reminders with it (each as
    far before the deadline as it was); how far it moved (zero: not at all)."""
    row = tx.row
    if row.deadline is None or until <= row.deadline:
        return timedelta(0)
    by = until - row.deadline
    row.deadline = until
    for seat_row in tx.seats.values():
        if seat_row.remind_at is not None:
            seat_row.reminders = [(datetime.fromisoformat(t) + by).isoformat()
                                  for t in seat_row.reminders]
            seat_row.remind_at = seat_row.remind_at + by
    tx.update_due()
    return by


def waiting_humans(tx: GameTx) -> dict[int, int]:
    """The seats whose player must decide now, by user id."""
    out: dict[int, int] = {}
    for seat in tx.game.to_act:
        row = tx.seats.get(seat)
        if row is not None and row.user_id is not None and tx.waits_for_human(seat):
            out[row.user_id] = seat
    return out


def turn_span(note: NotificationRow) -> timedelta | None:
    """The time a ``your_turn`` gave its player: its deadline less when it was written."""
    payload = decode(Kind.YOUR_TURN, note.data)
    if not isinstance(payload, YourTurn) or payload.deadline is None:
        return None
    return max(payload.deadline - note.created_at, timedelta(0))


def unreached(tx: GameTx, delivering: bool) -> list[NotificationRow]:
    """The ``your_turn`` notifications of the players who must decide now that the outbox
    still owes (none unless ``delivering``: a front end delivers the outbox, see the module
    docstring)."""
    users = waiting_humans(tx)
    if not delivering or not users:
        return []
    t = NotificationRow
    stmt = select(t).where(
        t.game_id == tx.row.id, t.kind == Kind.YOUR_TURN.value,
        t.delivered_at.is_(None),  # type: ignore[union-attr]
        t.user_id.in_(list(users)),  # type: ignore[union-attr]
    )
    return list(tx.session.exec(stmt).all())


def hold_for_unreached(tx: GameTx, delivering: bool) -> bool:
    """At the deadline: when a player who must decide has not been reached yet, play no
    timeout and give them their whole time again from now (made exact once their turn goes
    out: :meth:`FaultService.turn_delivered`). Whether it held the game."""
    owed = unreached(tx, delivering)
    if not owed:
        return False
    spans = [span for n in owed if (span := turn_span(n)) is not None]
    span = max(spans) if spans else timedelta(seconds=tx.row.turn_timeout)
    extend_to(tx, tx.now + span)
    log.info("game %s: the turn of users %s has not reached them; deadline now %s",
             tx.row.id, sorted({n.user_id or 0 for n in owed}), tx.row.deadline)
    return True


class FaultService:
    """Time made good for the bot's own faults (see the module docstring)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def turn_delivered(self, game_id: int, note_ids: Iterable[int]) -> SweepResult:
        """The ``your_turn`` notifications ``note_ids`` of the game went out now, late: each
        player who still must decide gets the time their turn gave them counted from now
        (the deadline moves later, never earlier), and the group a note naming them when
        that made good more than :data:`FAULT_GRACE`. Returns that note and its scene."""
        ids = list(note_ids)
        if not ids:
            return SweepResult(0, 0)
        with self.kernel.write() as s:
            row = self.kernel.load_game(s, game_id)
            if (row is None or row.status != ACTIVE or row.deadline is None
                    or row.meta.get(PRACTICE_KEY)):
                return SweepResult(1, 0)
            stmt = select(NotificationRow).where(
                NotificationRow.id.in_(ids),  # type: ignore[union-attr]
                NotificationRow.game_id == game_id,
                NotificationRow.kind == Kind.YOUR_TURN.value)
            notes = list(s.exec(stmt).all())
            tx = self.kernel.open_tx(s, row)
            waiting = waiting_humans(tx)
            names: list[str] = []
            for note in sorted(notes, key=lambda n: n.seat or 0):
                span = turn_span(note)
                if note.user_id not in waiting or span is None:
                    continue
                extend_to(tx, tx.now + span)
                if tx.now - note.created_at > FAULT_GRACE:
                    names.append(tx.seats[waiting[note.user_id]].name)
            scene = self._tell(tx, names)
        self.kernel.after_commit(tx)
        return self._result(tx, scene)

    def _tell(self, tx: GameTx, names: list[str], scene: bool = True) -> Scene | None:
        """The group's note naming ``names`` (if any), stored (with ``scene``; without, the
        caller stores several games' notes at once); the scene to show it with (none
        without ``scene``: the front end reads it when it delivers the note)."""
        if not names:
            return None
        tx.notify(TimeExtended(tuple(dict.fromkeys(names)), tx.row.deadline),
                  version=tx.base_version)
        if not scene:
            return None
        self.kernel.store_notes(tx.session, tx.notes)
        return self.kernel.scene(tx.session, tx.row, tx.views, tx.seats)

    @staticmethod
    def _result(tx: GameTx, scene: Scene | None) -> SweepResult:
        notes = [notification_record(n) for n in tx.notes]
        scenes = {tx.row.id or 0: scene} if scene is not None else {}
        return SweepResult(1, 1 if notes else 0, notes, scenes)

    def clock_beat(self, start: bool = False, name: str = BOT_BEAT) -> SweepResult:
        """Note that the process running the clock (``name``) is alive now; at its
        ``start``, first make good the time it was down (:meth:`after_downtime`)."""
        if start:
            return self.after_downtime(name)
        with self.kernel.write() as s:
            self._beat(s, name)
        return SweepResult(0, 0)

    def _beat(self, s: Session, name: str) -> datetime | None:
        """Write the beat ``name`` as now; the one it replaces (None: the first)."""
        now = self.kernel.clock.now()
        # Locked (PostgreSQL): a replica starting beside this one reads the beat only once
        # this one has written it, so the downtime is given back once.
        locked = self.kernel.db.is_postgres
        row = s.get(ClockBeatRow, name, with_for_update=locked)
        if row is None:
            # The first beat. A replica starting beside this one may insert it at the same
            # moment (no row to lock yet): the second insert waits for the first to commit
            # and fails; then the first's row is read (and locked) and written as below.
            try:
                with s.begin_nested():
                    s.add(ClockBeatRow(name=name, at=now))
                return None
            except sa.exc.IntegrityError:
                row = s.get(ClockBeatRow, name, with_for_update=locked, populate_existing=True)
                if row is None:
                    raise
        before = row.at
        row.at = max(before, now)
        return before

    def after_downtime(self, name: str = BOT_BEAT) -> SweepResult:
        """At a start: :meth:`downtime`, then :meth:`make_good` (what a front end that need
        not answer meanwhile does in one call)."""
        down = self.downtime(name)
        return SweepResult(0, 0) if down is None else self.make_good(down)

    def downtime(self, name: str = BOT_BEAT) -> Downtime | None:
        """At a start: whether the process running the clock (``name``) was down, that is
        its last beat is older than :data:`DOWN_AFTER`. If so, the running games and their
        deadlines as they are now, for :meth:`make_good` (one query; the beat is noted only
        once their time is given back); if not, the beat is noted and None returned."""
        with self.kernel.db.read() as s:
            beat = s.get(ClockBeatRow, name)
            last = None if beat is None else beat.at
            now = self.kernel.clock.now()
            deadlines: dict[int, datetime] = {}
            if last is not None and now - last > DOWN_AFTER:
                deadlines = {i: at for i, at in s.exec(select(GameRow.id, GameRow.deadline).where(
                    GameRow.status == ACTIVE,
                    GameRow.deadline.is_not(None),  # type: ignore[union-attr]
                )).all() if i is not None and at is not None}
        if last is None or now - last <= DOWN_AFTER:
            with self.kernel.write() as s:
                self._beat(s, name)
            return None
        log.info("the bot was down for %s: %d running games get that time back", now - last,
                 len(deadlines))
        return Downtime(name, last, now, deadlines)

    def make_good(self, down: Downtime, *, chunk: int | None = None, pause: float = 0.0,
                  stop: threading.Event | None = None) -> SweepResult:
        """Add the time the bot was down to every running game's deadline and reminders,
        and tell each group whom it waits for (a player whose turn the outbox still owes is
        told of when it goes out); then note the beat. Returns the notes and their scenes.

        The bot answers meanwhile: a game whose deadline moved since :meth:`downtime` read it
        (a move, or a turn that went out late, set it afresh) keeps it. The games are done
        :data:`CATCH_UP_CHUNK` at a time, each chunk in a transaction of its own, so that
        memory does not grow with the number of games; each game keeps until when its time
        was made good (:data:`DOWNTIME_KEY`), and the beat is noted only at the end. A start
        cut short midway (killed, out of memory, stopped) leaves the games it did as they
        are: the next start gives them only the time since, and the rest all of it; a
        replica starting beside this one does the same (a game is locked while it is done,
        on PostgreSQL). A game whose turn began after the last beat (the bot ran then: a
        move while the bot answered during an earlier catch-up cut short) gets only the
        time since.

        ``chunk`` games a transaction (:data:`CATCH_UP_CHUNK`), ``pause`` seconds between
        two (the taps of a bot that answers meanwhile get the database in between);
        ``stop``, once set, ends it after the current chunk without the beat (a stop: the
        next start does the rest)."""
        ids = sorted(down.deadlines)
        chunk = chunk or CATCH_UP_CHUNK
        keep_scenes = len(ids) <= chunk  # a big catch-up: the front end reads them
        parts = []
        for first in range(0, len(ids), chunk):
            if first and pause:
                time.sleep(pause)
            if stop is not None and stop.is_set():
                log.info("stopped while giving the downtime back: %d of %d games done",
                         first, len(ids))
                break
            parts.append(self._catch_up(ids[first:first + chunk], down, keep_scenes))
        else:
            with self.kernel.write() as s:
                self._beat(s, down.name)
        return SweepResult(sum(p.checked for p in parts), sum(p.processed for p in parts),
                           [n for p in parts for n in p.notifications],
                           {g: sc for p in parts for g, sc in p.scenes.items()})

    def _catch_up(self, ids: list[int], down: Downtime, keep_scenes: bool) -> SweepResult:
        """:meth:`make_good` for the games ``ids``, in one transaction."""
        last, now = down.last, down.now
        notes: list[NotificationRow] = []
        scenes: dict[int, Scene] = {}
        txs: list[GameTx] = []
        delivering = self.kernel.outbox_owner is not None
        with self.kernel.write() as s:
            stmt = select(GameRow).where(
                GameRow.id.in_(ids),  # type: ignore[union-attr]
                GameRow.status == ACTIVE,
                GameRow.deadline.is_not(None),  # type: ignore[union-attr]
            ).order_by(GameRow.id)  # type: ignore[arg-type]
            if self.kernel.db.is_postgres:
                stmt = stmt.with_for_update()
            rows = list(s.exec(stmt).all())
            seats: dict[int, dict[int, SeatRow]] = {row.id or 0: {} for row in rows}
            for seat_row in s.exec(select(SeatRow).where(
                    SeatRow.game_id.in_(list(seats)))).all():  # type: ignore[attr-defined]
                seats[seat_row.game_id][seat_row.seat] = seat_row
            for row in rows:
                done = row.meta.get(DOWNTIME_KEY)
                since = max(last, datetime.fromisoformat(done)) if isinstance(done, str) else last
                if row.turn_started_at is not None:  # (the bot was running then)
                    since = max(since, row.turn_started_at)
                if now - since <= DOWN_AFTER:
                    continue  # made good already (an earlier start cut short, a replica)
                if row.deadline != down.deadlines.get(row.id or 0):
                    # Set afresh since the start (a move, a turn that went out late): it
                    # counts from after the downtime already.
                    row.meta = {**row.meta, DOWNTIME_KEY: now.isoformat()}
                    continue
                tx = self.kernel.open_tx(s, row, seats[row.id or 0])
                assert row.deadline is not None
                extend_to(tx, row.deadline + (now - since))
                row.meta = {**row.meta, DOWNTIME_KEY: now.isoformat()}
                owed = {n.user_id for n in unreached(tx, delivering)}
                names = [tx.seats[seat].name for user, seat in waiting_humans(tx).items()
                         if user not in owed]
                scene = self._tell(tx, names, keep_scenes)
                if scene is not None:
                    scenes[row.id or 0] = scene
                notes.extend(tx.notes)
                txs.append(tx)
            if not keep_scenes:
                self.kernel.store_notes(s, notes)  # the chunk's notes in one go
            records = [notification_record(n) for n in notes]
        for tx in txs:
            self.kernel.after_commit(tx)
        return SweepResult(len(txs), len({n.game_id for n in notes}), records, scenes)


__all__ = ["BEAT_EVERY", "BOT_BEAT", "DOWN_AFTER", "FAULT_GRACE", "Downtime", "FaultService",
           "extend_to", "hold_for_unreached", "turn_span", "unreached", "waiting_humans"]
