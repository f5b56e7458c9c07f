"""The clock: reminders and timeouts that are due, the sweep, the jobs a scheduler needs."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import select

from kolkhoz_tg.service.base import (
    _ACTIVE,
    ServiceBase,
    _Conflict,
    _to_record,
)
from kolkhoz_tg.service.records import (
    DueJob,
    Kind,
    Notification,
    SweepResult,
)
from kolkhoz_tg.service.turn import Turn
from kolkhoz_tg.storage.models import (
    GameRow,
    NotificationRow,
    UserRow,
)


class ClockMixin(ServiceBase):
    def process_due(self, game_id: int) -> list[Notification]:
        """Send the reminders and play the timeouts of one game that are due by now.

        Safe to call at any time and from several processes at once: the work is done under
        the game's row lock (PostgreSQL: SKIP LOCKED, so a busy game is simply left to the
        process holding it) and re-checked against the clock inside the transaction."""
        notes: list[NotificationRow] = []
        try:
            with self._write() as s:
                row = self._load(s, game_id, skip_locked=True)
                now = self.clock.now()
                if (
                    row is None
                    or row.status != _ACTIVE
                    or row.next_due is None
                    or row.next_due > now
                ):
                    return []
                turn = self._start_turn(s, row)
                turn.now = now
                if row.deadline is not None and row.deadline <= now:
                    self._timeout(turn)
                    self._finish_turn(turn, moved=True)
                else:
                    self._remind(turn)
                    self._store_notes(s, turn.notes)
                notes = turn.notes
        except _Conflict:
            return []
        self._after_commit(row, turn.game)
        return [_to_record(n) for n in notes]

    def _timeout(self, turn: Turn) -> None:
        for seat in list(turn.game.to_act):
            if not turn.waits_for_human(seat):
                continue
            seat_row = turn.seats[seat]
            played = turn.play_timeout(seat)
            if not played:
                continue
            seat_row.timeouts += 1
            seat_row.auto_moves += len(played)
            turn.notify(
                Kind.TIMED_OUT,
                {
                    "actions": [m.action for m in played],
                    "timeouts": seat_row.timeouts,
                    "standin_after": turn.row.standin_after,
                },
                user_id=seat_row.user_id,
                seat=seat,
            )
            if seat_row.timeouts >= turn.row.standin_after:
                seat_row.standin = True
                data = {"timeouts": seat_row.timeouts, "name": seat_row.name}
                turn.notify(Kind.STAND_IN, data, user_id=seat_row.user_id, seat=seat)
                turn.notify(Kind.STAND_IN, data, seat=seat)
        turn.run_automatic()

    def _remind(self, turn: Turn) -> None:
        now = turn.now
        deadline = turn.row.deadline
        for seat, seat_row in turn.seats.items():
            if seat_row.remind_at is None or seat_row.remind_at > now:
                continue
            left = [t for t in seat_row.reminders if datetime.fromisoformat(t) > now]
            seat_row.reminders = left
            seat_row.remind_at = datetime.fromisoformat(left[0]) if left else None
            user = turn.session.get(UserRow, seat_row.user_id) if seat_row.user_id else None
            turn.notify(
                Kind.REMINDER,
                {
                    "deadline": None if deadline is None else deadline.isoformat(),
                    "last": not left,
                    "can_pm": bool(user and user.can_pm),
                    "phase": turn.game.phase.value,
                },
                user_id=seat_row.user_id,
                seat=seat,
                version=turn.base_version,
            )
        turn.update_due()

    def due_game_ids(self, limit: int = 500, now: datetime | None = None) -> list[int]:
        """Games with a reminder or timeout due by ``now``, most overdue first (an index
        range scan on ``next_due``: the cost follows the due games, not all games)."""
        when = now or self.clock.now()
        with self.db.read() as s:
            stmt = (
                select(GameRow.id)
                .where(GameRow.next_due <= when)  # type: ignore[operator]
                .order_by(GameRow.next_due)  # type: ignore[arg-type]
                .limit(limit)
            )
            return [i for i in s.exec(stmt).all() if i is not None]

    def sweep(self, limit: int = 500) -> SweepResult:
        """Process every game that is due (the safety net behind the scheduler)."""
        ids = self.due_game_ids(limit)
        notes: list[Notification] = []
        processed = 0
        for game_id in ids:
            got = self.process_due(game_id)
            if got:
                processed += 1
                notes.extend(got)
        return SweepResult(len(ids), processed, notes)

    def scheduled_jobs(self) -> list[DueJob]:
        """Every timeout and reminder the database expects, for rebuilding a scheduler."""
        with self.db.read() as s:
            rows = s.exec(
                select(GameRow.id, GameRow.deadline, GameRow.next_reminder).where(
                    GameRow.next_due.is_not(None)  # type: ignore[union-attr]
                )
            ).all()
        jobs: list[DueJob] = []
        for game_id, deadline, reminder in rows:
            assert game_id is not None
            if deadline is not None:
                jobs.append(DueJob(game_id, "timeout", deadline))
            if reminder is not None:
                jobs.append(DueJob(game_id, "reminder", reminder))
        return jobs
