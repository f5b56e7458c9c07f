"""Reading: game headers, the public and private views, the log, replay, stats, and the
outbox."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, select

from engine import ActionError, Game, InvalidAction, Rules
from engine.views import View
from kolkhoz_tg.service.common import (
    ACTIVE,
    LOBBY,
    OPEN,
    TOPIC_NAMES,
    notification_record,
    parse_seed,
    possible_id,
)
from kolkhoz_tg.service.errors import NotAllowed, NotFound, WrongState
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.service.payloads import LoggedMove
from kolkhoz_tg.service.premoves import premove_of
from kolkhoz_tg.service.records import (
    BoardView,
    GameInfo,
    MyGame,
    MyGames,
    Notification,
    OperatorFigures,
    SeatView,
)
from kolkhoz_tg.service.takeback import can_take_back, effective_log
from kolkhoz_tg.service.unplayable import unplayable
from kolkhoz_tg.storage.models import (
    ActionRow,
    Actor,
    ChatRow,
    GameRow,
    NotificationRow,
    SeatRow,
)
from kolkhoz_tg.timeutil import utc


class ReadingService:
    """Reading: game headers, views, the log, replay, history, operator figures, the
    outbox's pending notifications."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def game_info(self, game_id: int) -> GameInfo:
        with self.kernel.db.read() as s:
            row = s.get(GameRow, game_id) if possible_id(game_id) else None
            if row is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            return self.kernel.game_info(s, row)

    def games_in_chat(
        self, chat_id: int, topic_id: int | None = None, open_only: bool = True, *,
        all_topics: bool = False,
    ) -> list[GameInfo]:
        """The games of the chat's forum topic ``topic_id`` (None: a chat without topics, or
        the forum's "General"), or with ``all_topics`` of every topic, newest first (only
        lobby / active / paused by default)."""
        with self.kernel.db.read() as s:
            rows = self.kernel.games_at(s, chat_id, topic_id, open_only, all_topics=all_topics)
            return [self.kernel.game_info(s, r) for r in rows]

    def games_of_user(self, user_id: int, open_only: bool = True) -> list[GameInfo]:
        with self.kernel.db.read() as s:
            stmt = (
                select(GameRow)
                .join(SeatRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(SeatRow.user_id == user_id)
            )
            if open_only:
                stmt = stmt.where(GameRow.status.in_(OPEN))  # type: ignore[attr-defined]
            rows = s.exec(stmt.order_by(GameRow.id.desc())).all()  # type: ignore[union-attr]
            return [self.kernel.game_info(s, r) for r in rows]

    def my_games(self, user_id: int) -> MyGames:
        """The user's open games for ``/mygames``, in one read: those where it is their
        move, the longest wait first, then those where others are to move (the longest
        wait first), then paused games and lobbies. Each with its chat's title, its topic's
        name where the bot saw it, the seats to move, the phase, since when it waits and
        the deadline; the user's time zone and whether the bot can write to them. Nothing
        of anyone's cards."""
        with self.kernel.db.read() as s:
            rows = s.exec(
                select(GameRow)
                .join(SeatRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(SeatRow.user_id == user_id,
                       GameRow.status.in_(OPEN))  # type: ignore[attr-defined]
                .order_by(GameRow.id)  # type: ignore[arg-type]
            ).all()
            chats = {c.id: c for c in s.exec(select(ChatRow).where(
                ChatRow.id.in_({r.chat_id for r in rows})))}  # type: ignore[attr-defined]
            last = self._last_moves(s, [r.id for r in rows if r.id is not None
                                        and r.status == ACTIVE and r.turn_started_at is None])
            listed = [self._my_game(s, row, user_id, chats.get(row.chat_id), last)
                      for row in rows]
            user = self.kernel.users(s, [user_id]).get(user_id)
        games = [g for g in listed if g is not None]
        return MyGames(
            user_id=user_id,
            zone=user.timezone if user is not None else None,
            can_pm=bool(user is not None and user.can_pm),
            mine=sorted((g for g in games if g.to_act), key=_by_wait),
            others=sorted((g for g in games if not g.to_act), key=_by_wait),
        )

    @staticmethod
    def _last_moves(s: Session, game_ids: list[int]) -> dict[int, datetime]:
        """The time of each game's last logged move (a game without a clock, a practice
        game, waits since then)."""
        if not game_ids:
            return {}
        a = ActionRow.__table__  # type: ignore[attr-defined]
        found = s.execute(sa.select(a.c.game_id, sa.func.max(a.c.at))
                          .where(a.c.game_id.in_(game_ids)).group_by(a.c.game_id)).all()
        return {int(gid): utc(at) for gid, at in found if at is not None}

    def _my_game(
        self, s: Session, row: GameRow, user_id: int, chat: ChatRow | None,
        last: dict[int, datetime],
    ) -> MyGame | None:
        info = self.kernel.game_info(s, row)
        seat = info.seat_of(user_id)
        if seat is None:
            return None
        # (Decoded here, not taken from the kernel's cache of the next move's state.)
        game = Game.from_json(row.state) if row.state is not None else None
        running = game is not None and row.status == ACTIVE
        waiting = tuple(game.to_act) if running and game is not None else ()
        since = None
        if running:
            since = row.turn_started_at or last.get(info.id) or row.started_at
        names = (chat.settings.get(TOPIC_NAMES) or {}) if chat is not None else {}
        topic = names.get(str(row.topic_id)) if row.topic_id is not None else None
        return MyGame(
            game=info,
            seat=seat,
            chat_title=chat.title if chat is not None else None,
            topic_name=str(topic) if topic else None,
            to_act=seat in waiting,
            waiting=waiting,
            phase=game.phase.value if game is not None else None,
            since=since,
            deadline=row.deadline,
        )

    def seat_view(self, game_id: int, user_id: int) -> SeatView:
        """The user's private view, legal actions and deadline. Raises :class:`NotFound`
        (``game_not_found``), :class:`NotAllowed` (``not_seated``) or :class:`WrongState`
        (``not_started``)."""
        with self.kernel.db.read() as s:
            row, game = self.kernel.read_game(s, game_id)
            seat = self.kernel.seat_row(s, game_id, user_id)
            if seat is None:
                raise NotAllowed("not seated", "not_seated")
            if game is None:
                raise WrongState("not started", "not_started")
            active = row.status == ACTIVE
            actions = list(game.legal_actions(seat.seat)) if active else []
            return SeatView(
                game=self.kernel.game_info(s, row),
                seat=seat.seat,
                view=replace(View.of(game, seat.seat, legal=False), legal=tuple(actions)),
                legal=[a.text for a in actions],
                to_act=active and seat.seat in game.to_act,
                deadline=row.deadline,
                can_take_back=can_take_back(row, game, seat.seat, s.get(ChatRow, row.chat_id)),
                premove=premove_of(seat, game, active),
                unplayable=unplayable(game, seat.seat, active),
            )

    def board(self, game_id: int) -> BoardView:
        """The public view for the group (``view`` None while in the lobby)."""
        with self.kernel.db.read() as s:
            row, game = self.kernel.read_game(s, game_id)
            return BoardView(
                game=self.kernel.game_info(s, row),
                view=None if game is None else game.typed_view(None),
                deadline=row.deadline,
            )

    def why_illegal(self, game_id: int, user_id: int, action_text: str) -> str | None:
        """None if the user's seat may take the action now, else the engine's reason code
        (``follow_suit``, ``trump_lead``, ``not_your_turn``, ``invalid`` …)."""
        with self.kernel.db.read() as s:
            row, game = self.kernel.read_game(s, game_id)
            seat = self.kernel.seat_row(s, game_id, user_id)
            if seat is None:
                return "not_seated"
            if game is None or row.status != ACTIVE:
                return "not_active"
            try:
                err = game.why_illegal(seat.seat, action_text)
            except InvalidAction:
                return "invalid"
            return None if err is None else err.reason

    def action_log(self, game_id: int) -> list[dict[str, Any]]:
        """The logged moves in order: seq, seat, action, actor, user_id, version, at."""
        if not possible_id(game_id):
            return []
        with self.kernel.db.read() as s:
            rows = s.exec(
                select(ActionRow).where(ActionRow.game_id == game_id).order_by(
                    ActionRow.seq  # type: ignore[arg-type]
                )
            ).all()
            return [
                {
                    "seq": r.seq, "seat": r.seat, "action": r.action, "actor": r.actor,
                    "user_id": r.user_id, "version": r.version, "at": r.at,
                }
                for r in rows
            ]

    def replay(self, game_id: int) -> Game:
        """Rebuild the game from rules + seed + the action log (not from the snapshot).
        Raises :class:`WrongState` before the start and the engine's ActionError if the log
        does not fit."""
        with self.kernel.db.read() as s:
            row = s.get(GameRow, game_id) if possible_id(game_id) else None
            if row is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            if row.state is None:
                raise WrongState("not started", "not_started")
            rules, players, seed = Rules.from_dict(row.rules), row.players, parse_seed(row.seed)
        log = [(e["seat"], e["action"]) for e in effective_log(self.action_log(game_id))]
        return Game.replay(rules, players, seed, log)

    def history(self, game_id: int) -> list[LoggedMove]:
        """A finished (or called-off) game move by move: the seat, the action, who made it
        and the engine events it caused, replayed from the log. Raises
        :class:`WrongState` (``not_over``) while the game is open: its log would tell hidden
        cards (swaps, the cards dealt)."""
        with self.kernel.db.read() as s:
            row = s.get(GameRow, game_id) if possible_id(game_id) else None
            if row is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            if row.status in OPEN:
                raise WrongState("the game is not over", "not_over")
            if row.state is None:
                return []
            rules, players, seed = Rules.from_dict(row.rules), row.players, parse_seed(row.seed)
        game = Game.new(rules, players, seed)
        moves = []
        for entry in effective_log(self.action_log(game_id)):
            try:
                events = game.apply(entry["seat"], entry["action"])
            except ActionError:
                # A game played under an older reading of the rules (docs/operators.md,
                # "Upgrading") may not replay move by move under today's engine.
                raise WrongState("the log does not replay", "log_unreadable") from None
            moves.append(LoggedMove(seat=entry["seat"], action=entry["action"],
                                    actor=Actor(entry["actor"]), events=tuple(events)))
        return moves

    def snapshot(self, game_id: int) -> Game | None:
        """The stored engine state (None in the lobby)."""
        with self.kernel.db.read() as s:
            return self.kernel.read_game(s, game_id)[1]

    def operator_figures(self, late_after: timedelta = timedelta(minutes=1)) -> OperatorFigures:
        """The outbox's debt and its oldest message, the games being played, and the
        deadlines passed (and those late by more than ``late_after``): a few counting
        queries on indexed columns, for a metrics scrape."""
        now = self.kernel.clock.now()
        n = NotificationRow.__table__  # type: ignore[attr-defined]
        g = GameRow.__table__  # type: ignore[attr-defined]
        with self.kernel.db.read() as s:
            owed, oldest = s.execute(
                sa.select(sa.func.count(), sa.func.min(n.c.created_at))
                .where(n.c.delivered_at.is_(None))).one()
            active = s.execute(sa.select(sa.func.count()).where(
                g.c.status == ACTIVE)).scalar_one()
            due, late = s.execute(sa.select(
                sa.func.count(),
                sa.func.count().filter(g.c.deadline < now - late_after),
            ).where(g.c.status == ACTIVE, g.c.deadline <= now)).one()
        age = 0.0
        if oldest is not None:
            if oldest.tzinfo is None:  # (SQLite hands back naive UTC)
                oldest = oldest.replace(tzinfo=now.tzinfo)
            age = max(0.0, (now - oldest).total_seconds())
        return OperatorFigures(int(owed), age, int(active), int(due), int(late))

    def pending_notifications(
        self, limit: int = 100, game_id: int | None = None
    ) -> list[Notification]:
        """Undelivered notifications, oldest first (what a front end still owes)."""
        with self.kernel.db.read() as s:
            stmt = select(NotificationRow).where(
                NotificationRow.delivered_at.is_(None)  # type: ignore[union-attr]
            )
            if game_id is not None:
                stmt = stmt.where(NotificationRow.game_id == game_id)
            rows = s.exec(
                stmt.order_by(NotificationRow.id).limit(limit)  # type: ignore[arg-type]
            ).all()
            return [notification_record(r) for r in rows]

    def mark_delivered(self, ids: Iterable[int]) -> int:
        """Mark notifications delivered (idempotent); returns how many were pending."""
        wanted = list(ids)
        if not wanted:
            return 0
        with self.kernel.write() as s:
            result = s.execute(
                sa.update(NotificationRow)
                .where(
                    NotificationRow.id.in_(wanted),  # type: ignore[union-attr]
                    NotificationRow.delivered_at.is_(None),  # type: ignore[union-attr]
                )
                .values(delivered_at=self.kernel.clock.now(), claimed_by=None, claimed_until=None)
                .execution_options(synchronize_session=False)
            )
            return int(result.rowcount)  # type: ignore[attr-defined]

    def purge_notifications(self, older_than: timedelta = timedelta(days=7)) -> int:
        """Delete delivered (or superseded) notifications older than ``older_than``; pending
        ones are kept however old. Returns how many were deleted."""
        cutoff = self.kernel.clock.now() - older_than
        with self.kernel.write() as s:
            result = s.execute(
                sa.delete(NotificationRow)
                .where(
                    NotificationRow.delivered_at.is_not(None),  # type: ignore[union-attr]
                    NotificationRow.created_at < cutoff,  # type: ignore[arg-type]
                )
                .execution_options(synchronize_session=False)
            )
            return int(result.rowcount)  # type: ignore[attr-defined]


def _by_wait(g: MyGame) -> tuple[int, datetime, int]:
    """Running games first, then paused ones, then lobbies; the longest wait first."""
    rank = {ACTIVE: 0, LOBBY: 2}.get(g.game.status.value, 1)
    return rank, g.since or g.game.created_at, g.game.id
