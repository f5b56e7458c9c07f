"""The clock: reminders and timeouts that are due, the sweep, the jobs a scheduler needs."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from kolkhoz_tg.service.common import (
    ACTIVE,
    Conflict,
    notification_record,
    possible_id,
)
from kolkhoz_tg.service.errors import Busy
from kolkhoz_tg.service.faults import hold_for_unreached
from kolkhoz_tg.service.gametx import GameTx
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.payloads import Reminder, StandIn, TimedOut
from kolkhoz_tg.service.records import (
    DueJob,
    Notification,
    Scene,
    SweepResult,
)
from kolkhoz_tg.storage.models import (
    GameRow,
    SeatRow,
    UserRow,
)

log = logging.getLogger(__name__)

#: Due games the sweep handles in one write transaction. Larger batches share more of the
#: fixed cost (transaction, lookups, commit) but hold the locks longer: the SQLite write
#: lock, or on PostgreSQL the rows of the batch's games, which an ``act()`` on one of them
#: waits for (a batch takes a few ms per game).
SWEEP_BATCH = 20


@dataclass(frozen=True, slots=True)
class Due:
    """One due game handled: its notifications and the scene to show them with."""

    game_id: int
    notes: list[Notification]
    scene: Scene | None


class ClockService:
    """The clock's work: reminders and timeouts that are due, the sweep, the jobs a
    scheduler needs."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def process_due(self, game_id: int) -> SweepResult:
        """Send the reminders and play the timeouts of one game that are due by now.

        Safe to call at any time and from several processes at once: the work is done under
        the game's row lock (PostgreSQL: SKIP LOCKED, so a busy game is simply left to the
        process holding it) and re-checked against the clock inside the transaction."""
        return self._result(self._process_due_batch([game_id]), checked=1)

    @staticmethod
    def _result(done: list[Due], checked: int) -> SweepResult:
        notes = [n for due in done for n in due.notes]
        scenes = {due.game_id: due.scene for due in done if due.notes and due.scene is not None}
        return SweepResult(checked, sum(1 for due in done if due.notes), notes, scenes)

    def _process_due_batch(self, game_ids: list[int]) -> list[Due]:
        """:meth:`process_due` for several games in one transaction: the due games among
        ``game_ids`` locked in one statement (PostgreSQL: SKIP LOCKED), their seats and
        users read in one statement each, each game then handled exactly as alone. Returns
        each game handled, with its notifications and scene, in the order given.

        If the transaction fails (a lost version race, an error in one game, a deadlock),
        nothing of it is kept and each game is tried again in a transaction of its own, so
        one game never holds up the others and errors surface exactly as one at a time."""
        ids = [i for i in dict.fromkeys(game_ids) if possible_id(i)]
        if not ids:
            return []
        try:
            done = self._due_transaction(ids)
        except Conflict:
            if len(ids) == 1:
                return []
            return self._one_by_one(ids)
        except Exception:
            if len(ids) == 1:
                raise
            log.info("sweep: a batch of %d games failed; one game per transaction",
                     len(ids), exc_info=True)
            return self._one_by_one(ids)
        for tx, _scene in done:
            self.kernel.after_commit(tx)
        return [Due(tx.row.id or 0, [notification_record(n) for n in tx.notes], scene)
                for tx, scene in done]

    def _one_by_one(self, ids: list[int]) -> list[Due]:
        """Each game in a transaction of its own; one that fails (a bug it meets every
        time) is logged and the others go on: the first due would otherwise stop every
        sweep. A database another process holds is for the caller (the next sweep)."""
        out: list[Due] = []
        for game_id in ids:
            try:
                out.extend(self._process_due_batch([game_id]))
            except Busy:
                raise
            except Exception:
                log.exception("sweep: game %s failed; the other games go on", game_id)
        return out

    def _due_transaction(self, ids: list[int]) -> list[tuple[GameTx, Scene | None]]:
        """One write transaction over the games of ``ids`` that are due now; the
        transactions committed (in the order of ``ids``), each with its game's scene when it
        has something to tell."""
        with self.kernel.write() as s:
            now = self.kernel.clock.now()
            stmt = select(GameRow).where(
                GameRow.id.in_(ids),  # type: ignore[union-attr]
                GameRow.status == ACTIVE,
                GameRow.next_due <= now,  # type: ignore[operator]
            )
            if self.kernel.db.is_postgres:
                # Rows another process holds (its act() or its sweep) are left to it; the
                # WHERE is re-checked on rows committed meanwhile, so a game it has just
                # handled is no longer due here.
                stmt = stmt.with_for_update(skip_locked=True)
            position = {game_id: i for i, game_id in enumerate(ids)}
            rows = sorted(s.exec(stmt).all(), key=lambda r: position[r.id or 0])
            if not rows:
                return []
            seats, users = self._seats_of_games(s, [r.id for r in rows if r.id is not None])
            # First every game's moves (timeouts, then the automatic moves after them) or
            # reminders; the moves and seat counters of the whole batch are then written in
            # a few statements, instead of a few per game.
            txs: list[tuple[GameTx, bool]] = []
            for row in rows:
                assert row.id is not None
                tx = self.kernel.open_tx(s, row, seats.get(row.id, {}))
                tx.now = now
                timeout = row.deadline is not None and row.deadline <= now
                if timeout and hold_for_unreached(tx, self.kernel.outbox_owner is not None):
                    timeout = False  # the bot's fault: no timeout, the time runs anew
                elif timeout:
                    self._timeout(tx)
                else:
                    self._remind(tx)
                txs.append((tx, timeout))
            s.flush()
            # Then each game's clock, snapshot and version, as one at a time, and the
            # notifications of the whole batch in one go.
            for tx, timeout in txs:
                if timeout:
                    self.kernel.finish_tx(tx, moved=True, store=False)
            self.kernel.store_log(s, [a for tx, _ in txs for a in tx.actions],
                                  [n for tx, _ in txs for n in tx.notes])
            # The scenes while the session holds the rows and users: what delivery shows.
            out = [(tx, self.kernel.scene(s, tx.row, tx.views, tx.seats) if tx.notes else None)
                   for tx, _ in txs]
            del users  # held until here: the session keeps only weak references
            return out

    def _seats_of_games(
        self, s: Session, game_ids: list[int]
    ) -> tuple[dict[int, dict[int, SeatRow]], list[UserRow]]:
        """The seats of several games in one statement, and their users in another. The users
        go into the session, where the reminder planning looks them up by id without a
        query of its own, as long as the caller holds the list returned."""
        seats: dict[int, dict[int, SeatRow]] = {game_id: {} for game_id in game_ids}
        user_ids: set[int] = set()
        stmt = select(SeatRow).where(SeatRow.game_id.in_(game_ids))  # type: ignore[attr-defined]
        for r in s.exec(stmt).all():
            seats[r.game_id][r.seat] = r
            if r.user_id is not None:
                user_ids.add(r.user_id)
        if not user_ids:
            return seats, []
        users = select(UserRow).where(UserRow.id.in_(user_ids))  # type: ignore[attr-defined]
        return seats, list(s.exec(users).all())

    def _timeout(self, tx: GameTx) -> None:
        for seat in list(tx.game.to_act):
            if not tx.waits_for_human(seat):
                continue
            seat_row = tx.seats[seat]
            played = tx.play_timeout(seat)
            if not played:
                continue
            seat_row.timeouts += 1
            seat_row.auto_moves += len(played)
            tx.notify(
                TimedOut(tuple(m.action for m in played), seat_row.timeouts,
                         tx.row.standin_after),
                user_id=seat_row.user_id,
                seat=seat,
            )
            if seat_row.timeouts >= tx.row.standin_after:
                seat_row.standin = True
                payload = StandIn(seat_row.timeouts, seat_row.name)
                tx.notify(payload, user_id=seat_row.user_id, seat=seat)
                tx.notify(payload, seat=seat)
        # A search bot (or stand-in) that no worker played for in a whole turn's time (its
        # workers keep failing, or none runs): the heuristic plays for it, so the game never
        # waits for ever behind a deadline that keeps moving on.
        for seat in tx.thinking_seats():
            log.warning("game %s: no worker played the bot of seat %s by the deadline; "
                        "the heuristic plays for it", tx.row.id, seat)
            tx.play_cheap(seat)
        tx.run_automatic()

    def _remind(self, tx: GameTx) -> None:
        now = tx.now
        deadline = tx.row.deadline
        for seat, seat_row in tx.seats.items():
            if seat_row.remind_at is None or seat_row.remind_at > now:
                continue
            left = [t for t in seat_row.reminders if datetime.fromisoformat(t) > now]
            seat_row.reminders = left
            seat_row.remind_at = datetime.fromisoformat(left[0]) if left else None
            user = tx.session.get(UserRow, seat_row.user_id) if seat_row.user_id else None
            tx.notify(
                Reminder(deadline, not left, bool(user and user.can_pm), tx.game.phase.value),
                user_id=seat_row.user_id,
                seat=seat,
                version=tx.base_version,
            )
        tx.update_due()

    def due_game_ids(self, limit: int = 500, now: datetime | None = None) -> list[int]:
        """Games with a reminder or timeout due by ``now``, most overdue first (an index
        range scan on ``next_due``: the cost follows the due games, not all games)."""
        when = now or self.kernel.clock.now()
        with self.kernel.db.read() as s:
            stmt = (
                select(GameRow.id)
                .where(GameRow.next_due <= when)  # type: ignore[operator]
                .order_by(GameRow.next_due)  # type: ignore[arg-type]
                .limit(limit)
            )
            return [i for i in s.exec(stmt).all() if i is not None]

    def sweep(self, limit: int = 500, batch: int = SWEEP_BATCH) -> SweepResult:
        """Process every game that is due (the safety net behind the scheduler), up to
        ``limit`` of them, ``batch`` games per transaction."""
        ids = self.due_game_ids(limit)
        step = max(1, batch)
        done = [due for start in range(0, len(ids), step)
                for due in self._process_due_batch(ids[start : start + step])]
        return self._result(done, checked=len(ids))

    def scheduled_jobs(self, until: datetime | None = None) -> list[DueJob]:
        """Every timeout and reminder the database expects (``until``: only those due by
        then), for rebuilding a scheduler."""
        stmt = select(GameRow.id, GameRow.deadline, GameRow.next_reminder).where(
            GameRow.next_due.is_not(None)  # type: ignore[union-attr]
        )
        if until is not None:
            stmt = stmt.where(GameRow.next_due <= until)  # type: ignore[operator]
        with self.kernel.db.read() as s:
            rows = s.exec(stmt).all()
        jobs: list[DueJob] = []
        for game_id, deadline, reminder in rows:
            assert game_id is not None
            if deadline is not None and (until is None or deadline <= until):
                jobs.append(DueJob(game_id, "timeout", deadline))
            if reminder is not None and (until is None or reminder <= until):
                jobs.append(DueJob(game_id, "reminder", reminder))
        return jobs
