"""The service kernel: what every part of :class:`~kolkhoz_tg.service.core.GameService`
works over. Row loading and locking, the write transaction (:meth:`Kernel.write`) and the
game transaction on a running game (:meth:`Kernel.open_tx` / :meth:`Kernel.finish_tx`, a
:class:`~kolkhoz_tg.service.gametx.GameTx`), the engine-state cache and the foresight of
taps, the version check, the outbox write, the listeners told after a commit, and the
conversion of rows into records (:meth:`Kernel.game_info`, :meth:`Kernel.scene`).

Every name here is public: the parts (:mod:`~kolkhoz_tg.service.play`,
:mod:`~kolkhoz_tg.service.lobby`, …) each hold one kernel and call it by name."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, select

from engine import Game, Rules
from kolkhoz_tg.aiplay import AIPolicy
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service.common import (
    ACTIVE,
    OPEN,
    PAUSED,
    Conflict,
    locale_or_none,
    notification_record,
    possible_id,
    seat_info,
    user_changes,
)
from kolkhoz_tg.service.deadlines import check_turn_timeout, normalize_reminders
from kolkhoz_tg.service.errors import Busy, NotAllowed, NotFound, WrongState
from kolkhoz_tg.service.gametx import GameTx, Views
from kolkhoz_tg.service.outbox_sql import SUPERSEDES, Replaced, store_in_one
from kolkhoz_tg.service.records import (
    ActResult,
    ActStatus,
    BoardView,
    GameInfo,
    GameResult,
    Scene,
    SeatView,
    meta_as_of,
)
from kolkhoz_tg.service.takeback import can_take_back
from kolkhoz_tg.service.unplayable import unplayable
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.storage.models import (
    ActionRow,
    ChatRow,
    GameRow,
    GameStatus,
    NotificationRow,
    SeatRow,
    UserRow,
)
from kolkhoz_tg.timeutil import Clock, SystemClock

log = logging.getLogger(__name__)

#: Called after a commit that changed a game's clock: (game_id, deadline, next_reminder).
ScheduleListener = Callable[[int, datetime | None, datetime | None], None]
#: Told the id of a game that waits for a search bot, after the commit that made it wait
#: (or that changed it while it waits). Runs in the thread that committed.
AIListener = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class Foresight:
    """The moves an active game offered its human players at ``version``: (user id, action
    text) pairs."""

    version: int
    moves: frozenset[tuple[int, str]]


class Kernel:
    """The state and plumbing the parts of :class:`~kolkhoz_tg.service.GameService` share:
    one per service, handed to each part."""

    def __init__(
        self,
        db: Database,
        clock: Clock | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.db = db
        self.clock: Clock = clock or SystemClock()
        self.settings = settings or Settings()
        self.default_turn_timeout = check_turn_timeout(self.settings.turn_timeout)
        self.default_reminders = normalize_reminders(self.settings.reminder_specs)
        self.default_standin_after = self.settings.standin_after
        self.schedule_listeners: list[ScheduleListener] = []
        #: Set by a front end that delivers what it writes to the outbox at once (the
        #: Telegram bot: its relay's name). Notifications this process writes are then
        #: born claimed by it for ``outbox_lease``, so another process's relay leaves them
        #: alone unless this one dies before it has delivered them.
        self.outbox_owner: str | None = None
        #: Told, after each commit that applied moves, who made them (``Actor`` values):
        #: the operator's metrics count them.
        self.move_listener: Callable[[list[str]], None] | None = None
        self.outbox_lease = timedelta(seconds=30)
        # Engine states of recently committed versions: saves a JSON decode per act().
        self.engine_cache: dict[int, tuple[int, Game]] = {}
        self.lock = threading.Lock()
        # What each active game offers its human players at the version this process last
        # committed (see :meth:`foresee`), and the newest version each game was bumped to
        # here, so that a slower thread's older foresight never replaces a newer commit's.
        self.foresight: dict[int, Foresight] = {}
        self.bumped: dict[int, int] = {}
        #: How this service plays bots; a front end with a worker pool sets ``defer``.
        self.ai_policy = AIPolicy()
        self.ai_listeners: list[AIListener] = []

    def add_schedule_listener(self, listener: ScheduleListener) -> None:
        """``listener(game_id, deadline, next_reminder)`` runs after every commit that changed
        a game's clock (the scheduler uses it to move its jobs)."""
        self.schedule_listeners.append(listener)

    def remove_schedule_listener(self, listener: ScheduleListener) -> None:
        if listener in self.schedule_listeners:
            self.schedule_listeners.remove(listener)

    def add_ai_listener(self, listener: AIListener) -> None:
        """``listener(game_id)`` runs after every commit that leaves a running game waiting
        for a search bot."""
        self.ai_listeners.append(listener)

    def remove_ai_listener(self, listener: AIListener) -> None:
        if listener in self.ai_listeners:
            self.ai_listeners.remove(listener)

    def fire_listeners(self, rows: Iterable[GameRow]) -> None:
        """Tell the schedule listeners of each game's clock, then the bot listeners of the
        running games that wait for a search bot."""
        rows = list(rows)
        for row in rows:
            assert row.id is not None
            for listener in self.schedule_listeners:
                try:
                    listener(row.id, row.deadline, row.next_reminder)
                except Exception:  # committed already; the sweep covers a lost job
                    log.exception("schedule listener failed for game %s", row.id)
        self.fire_ai_listeners(
            row.id for row in rows
            if row.id is not None and row.bot_due is not None and row.status == ACTIVE)

    def fire_ai_listeners(self, game_ids: Iterable[int]) -> None:
        for game_id in game_ids:
            for listener in list(self.ai_listeners):
                try:
                    listener(game_id)
                except Exception:  # committed already; the periodic look finds it
                    log.exception("bot listener failed for game %s", game_id)

    def load_game(self, s: Session, game_id: int, *, skip_locked: bool = False) -> GameRow | None:
        if not possible_id(game_id):
            return None
        stmt = select(GameRow).where(GameRow.id == game_id)
        if self.db.is_postgres:
            stmt = stmt.with_for_update(skip_locked=skip_locked)
        return s.exec(stmt).first()

    def get_game(self, s: Session, game_id: int) -> GameRow:
        row = self.load_game(s, game_id)
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        return row

    def load_with_seats(
        self, s: Session, game_id: int, *, lock: bool = True
    ) -> tuple[GameRow | None, dict[int, SeatRow]]:
        """The game row (locked on PostgreSQL unless ``lock`` is false) and its seats, in
        one statement."""
        if not possible_id(game_id):
            return None, {}
        stmt = (
            select(GameRow, SeatRow)
            .outerjoin(SeatRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
            .where(GameRow.id == game_id)
        )
        if lock and self.db.is_postgres:
            stmt = stmt.with_for_update(of=GameRow)
        pairs = s.exec(stmt).all()
        if not pairs:
            return None, {}
        return pairs[0][0], {seat.seat: seat for _, seat in pairs if seat is not None}

    def load_for_move(
        self, s: Session, game_id: int
    ) -> tuple[GameRow | None, dict[int, SeatRow], dict[int, UserRow], ChatRow | None]:
        """What a move reads, in one statement: the game row (locked on PostgreSQL), its
        seats, their people and the chat. Hold the users and the chat while the session
        works: it keeps only weak references, and later reads (the answer's language, the
        next player's quiet hours, the scene) then find them without a query."""
        if not possible_id(game_id):
            return None, {}, {}, None
        stmt = (
            select(GameRow, SeatRow, UserRow, ChatRow)
            .outerjoin(SeatRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
            .outerjoin(UserRow, UserRow.id == SeatRow.user_id)  # type: ignore[arg-type]
            .outerjoin(ChatRow, ChatRow.id == GameRow.chat_id)  # type: ignore[arg-type]
            .where(GameRow.id == game_id)
        )
        if self.db.is_postgres:
            stmt = stmt.with_for_update(of=GameRow)
        rows = s.exec(stmt).all()
        if not rows:
            return None, {}, {}, None
        seats = {seat.seat: seat for _, seat, _, _ in rows if seat is not None}
        users = {user.id: user for _, _, user, _ in rows if user is not None}
        return rows[0][0], seats, users, rows[0][3]

    def seats_of(self, s: Session, game_id: int) -> dict[int, SeatRow]:
        rows = s.exec(select(SeatRow).where(SeatRow.game_id == game_id)).all()
        return {r.seat: r for r in rows}

    def engine_state(self, row: GameRow) -> Game:
        assert row.id is not None and row.state is not None
        with self.lock:
            cached = self.engine_cache.pop(row.id, None)
        if cached is not None and cached[0] == row.version:
            return cached[1]
        return Game.from_json(row.state)

    def remember(self, game_id: int, version: int, game: Game) -> None:
        with self.lock:
            if len(self.engine_cache) > 2000:
                self.engine_cache.clear()
            self.engine_cache[game_id] = (version, game)

    def check_seen(self, row: GameRow, version: int | None) -> None:
        """Refuse a change made on an older look at the game (``version``: the one its
        button carried; None: no check): a double tap on "+ Bot" or "Players" acts once.
        Raises :class:`WrongState` ``lobby_changed``."""
        if version is not None and version != row.version:
            raise WrongState(f"version {version} is not {row.version}", "lobby_changed")

    def bump(self, s: Session, row: GameRow) -> int:
        """Set the next version. The UPDATE that writes it is a compare-and-swap on the old
        one (the mapper's version counter), the backstop against lost updates behind the row
        lock or SQLite's write lock; a lost race surfaces as
        :class:`~kolkhoz_tg.service.common.Conflict`."""
        row.version = row.version + 1
        assert row.id is not None
        with self.lock:
            self.foresight.pop(row.id, None)
            if len(self.bumped) > 5000:
                self.bumped.clear()
            self.bumped[row.id] = max(row.version, self.bumped.get(row.id, 0))
        return row.version

    def foresee(self, game_id: int, user_id: int, action: str, version: int) -> bool:
        """Whether :meth:`act` would make this move (``action`` in its canonical text, as
        the buttons carry it), judged from what this process committed last for the game,
        with no database: True when the version is the one committed here last and the
        action was legal then for the user's own seat (not played by a bot). The bot then
        answers the tap before storing the move. It is a forecast, not a check: another
        process may have moved the game since, and :meth:`act` still decides."""
        with self.lock:
            sight = self.foresight.get(game_id)
        return sight is not None and sight.version == version and (user_id, action) in sight.moves

    def open_tx(
        self, s: Session, row: GameRow, seats: dict[int, SeatRow] | None = None
    ) -> GameTx:
        """The game transaction on a started game ``row`` (its seats read unless given),
        in the session ``s`` of a :meth:`write`."""
        assert row.id is not None
        return GameTx(
            session=s,
            row=row,
            seats=seats if seats is not None else self.seats_of(s, row.id),
            game=self.engine_state(row),
            now=self.clock.now(),
            base_version=row.version,
            bots=self.ai_policy,
        )

    def finish_tx(
        self, tx: GameTx, *, moved: bool, announce: bool = False, store: bool = True
    ) -> None:
        """Clock, notifications, snapshot and version for a game transaction that changed
        something.

        With ``store=False`` the notifications stay on ``tx`` for the caller to store with
        other games' (one statement for a whole sweep batch)."""
        tx.set_clock(moved)
        tx.emit_play_notifications(announce=announce)
        row = tx.row
        if tx.moves:
            row.state = tx.game.to_json()
        self.bump(tx.session, row)
        if store:
            self.store_log(tx.session, tx.actions, tx.notes)

    def store_notes(self, s: Session, notes: list[NotificationRow]) -> None:
        self.store_log(s, [], notes)

    def store_log(
        self, s: Session, actions: list[ActionRow], notes: list[NotificationRow]
    ) -> None:
        """Log the moves (of one game or of several) and add their notifications to the
        outbox; older undelivered ones they replace (the board of that game, that player's
        "your turn" or fresh hand: see ``SUPERSEDES``) are marked superseded. On PostgreSQL
        all three are one statement (one round trip of a move's six), on SQLite a few."""
        if not notes:
            if actions:
                s.add_all(actions)
            return
        now = notes[0].created_at
        if self.outbox_owner is not None:
            until = now + self.outbox_lease
            for n in notes:
                n.claimed_by, n.claimed_until = self.outbox_owner, until
        replacing: list[Replaced] = [
            (n.game_id, kind, n.user_id) for n in notes for kind in SUPERSEDES.get(n.kind, ())]
        if self.db.is_postgres:
            store_in_one(s, replacing, actions, notes, now)
            return
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        replaced = [
            sa.and_(t.c.game_id == game_id, t.c.kind == kind,
                    t.c.user_id.is_(None) if user_id is None else t.c.user_id == user_id)
            for game_id, kind, user_id in replacing
        ]
        if replaced:
            s.execute(
                sa.update(t)
                .where(t.c.delivered_at.is_(None), sa.or_(*replaced))
                .values(superseded=True, delivered_at=now)
            )
        s.add_all(actions)
        s.add_all(notes)
        s.flush()

    @contextmanager
    def write(self) -> Iterator[Session]:
        try:
            with self.db.write() as s:
                yield s
        except StaleDataError:
            raise Conflict("another request changed the game first") from None
        except OperationalError as e:
            if self.db.is_sqlite and "locked" in str(e.orig).lower():
                raise Busy("the database is locked by another process") from e
            raise

    def ensure_user_row(
        self, s: Session, user_id: int, name: str | None, locale: str | None = None
    ) -> UserRow:
        user = s.get(UserRow, user_id)
        locale = locale_or_none(locale)
        if user is None:
            # Two first messages of a new user may arrive at once: insert-or-ignore, re-read.
            self.insert_ignore(s, UserRow, id=user_id, name=(name or str(user_id))[:128],
                               locale=locale, can_pm=False, created_at=self.clock.now())
            user = s.get(UserRow, user_id)
            assert user is not None
        elif user_changes(user, name, locale):
            if name:
                user.name = name[:128]
            if locale and not user.locale:
                user.locale = locale
        return user

    def insert_ignore(self, s: Session, model: type[UserRow] | type[ChatRow],
                      **values: Any) -> None:
        """INSERT … ON CONFLICT (id) DO NOTHING, on SQLite and PostgreSQL."""
        table = model.__table__  # type: ignore[union-attr]
        if self.db.is_postgres:
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            s.execute(pg_insert(table).values(**values).on_conflict_do_nothing(
                index_elements=["id"]))
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            s.execute(sqlite_insert(table).values(**values).on_conflict_do_nothing(
                index_elements=["id"]))

    def user_row(self, s: Session, user_id: int) -> UserRow:
        user = s.get(UserRow, user_id)
        if user is None:
            raise NotFound(f"no user {user_id}", "user_not_found")
        return user

    def ensure_chat_row(
        self, s: Session, chat_id: int, title: str | None = None, locale: str | None = None
    ) -> ChatRow:
        chat = s.get(ChatRow, chat_id)
        locale = locale_or_none(locale)
        if chat is None:
            self.insert_ignore(s, ChatRow, id=chat_id, title=title[:256] if title else None,
                               locale=locale, settings={}, created_at=self.clock.now())
            chat = s.get(ChatRow, chat_id)
            assert chat is not None
        elif title and chat.title != title:
            chat.title = title[:256]
        return chat

    def check_place(
        self, s: Session, chat_id: int, topic_id: int | None, game_id: int | None = None
    ) -> None:
        """Refuse to put a game at ``chat_id`` / ``topic_id`` (None: a chat without topics,
        or a forum's "General") while another open game (a lobby, a running or paused game;
        not ``game_id``) is there: a front end addresses the game of a place by the place,
        so there is at most one. On PostgreSQL the chat's row is locked first, so that two
        transactions that put games into one chat take turns (on SQLite the write lock does
        that). Raises :class:`NotAllowed` (``place_taken``)."""
        if self.db.is_postgres:
            chats = ChatRow.__table__  # type: ignore[attr-defined]
            s.execute(sa.select(chats.c.id).where(chats.c.id == chat_id).with_for_update())
        topic = GameRow.topic_id
        stmt = select(GameRow.id).where(
            GameRow.chat_id == chat_id,
            topic.is_(None) if topic_id is None else topic == topic_id,  # type: ignore[union-attr]
            GameRow.status.in_(OPEN),  # type: ignore[attr-defined]
        )
        if game_id is not None:
            stmt = stmt.where(GameRow.id != game_id)
        if s.exec(stmt).first() is not None:
            raise NotAllowed("another game is open there", "place_taken")

    def games_at(
        self, s: Session, chat_id: int, topic_id: int | None = None, open_only: bool = True,
        *, all_topics: bool = False,
    ) -> list[GameRow]:
        """The games of the chat's forum topic ``topic_id`` (None: a chat without topics, or
        the forum's "General"), or with ``all_topics`` of every topic, newest first (only
        lobby / active / paused unless ``open_only`` is false)."""
        stmt = select(GameRow).where(GameRow.chat_id == chat_id)
        if not all_topics:
            stmt = stmt.where(
                GameRow.topic_id.is_(None) if topic_id is None  # type: ignore[union-attr]
                else GameRow.topic_id == topic_id
            )
        if open_only:
            stmt = stmt.where(GameRow.status.in_(OPEN))  # type: ignore[attr-defined]
        return list(s.exec(stmt.order_by(GameRow.id.desc())).all())  # type: ignore[union-attr]

    def seat_row(self, s: Session, game_id: int, user_id: int) -> SeatRow | None:
        return s.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.user_id == user_id)
        ).first()

    def after_commit(self, tx: GameTx) -> None:
        """After a game transaction committed: keep its engine state for the next request,
        note what the game now offers its players (:meth:`foresee`), move the clock's jobs."""
        row, game = tx.row, tx.game
        assert row.id is not None
        if row.status == ACTIVE:
            # Read before the state goes back to the cache, where the next transaction mutates it.
            moves = frozenset(
                (r.user_id, a.text)
                for seat in game.to_act
                if (r := tx.seats.get(seat)) is not None and r.user_id is not None
                and not r.is_bot and not r.standin
                for a in game.legal_actions(seat)
            )
            with self.lock:
                if self.bumped.get(row.id, 0) <= row.version:
                    self.foresight[row.id] = Foresight(row.version, moves)
        if row.status in (ACTIVE, PAUSED):
            self.remember(row.id, row.version, game)
        self.fire_listeners([row])
        if tx.moves and self.move_listener is not None:
            self.move_listener([m.actor.value for m in tx.moves])

    def act_result(
        self, tx: GameTx, status: ActStatus, seat: int | None, reason: str | None = None,
        message: str | None = None,
    ) -> ActResult:
        assert tx.row.id is not None
        return ActResult(
            status,
            tx.row.id,
            tx.row.version,
            seat,
            reason=reason,
            message=message,
            events=[e for m in tx.moves for e in m.events],
            notifications=[notification_record(n) for n in tx.notes],
        )

    def current_version(self, game_id: int) -> int:
        if not possible_id(game_id):
            raise NotFound(f"no game {game_id}", "game_not_found")
        with self.db.read() as s:
            version = s.exec(select(GameRow.version).where(GameRow.id == game_id)).first()
            if version is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            return version

    def game_info(
        self, s: Session, row: GameRow, seat_rows: dict[int, SeatRow] | None = None
    ) -> GameInfo:
        assert row.id is not None
        if seat_rows is None:
            seat_rows = self.seats_of(s, row.id)
        seats = sorted(seat_rows.values(), key=lambda r: r.seat)
        return GameInfo(
            id=row.id,
            chat_id=row.chat_id,
            creator_id=row.creator_id,
            status=GameStatus(row.status),
            preset=row.preset,
            rules=Rules.from_dict(row.rules),
            players=row.players,
            seed=row.seed,
            version=row.version,
            turn_timeout=row.turn_timeout,
            reminders=list(row.reminders),
            standin_after=row.standin_after,
            seats=[seat_info(r) for r in seats],
            deadline=row.deadline,
            paused_remaining=row.paused_remaining,
            created_at=row.created_at,
            started_at=row.started_at,
            finished_at=row.finished_at,
            meta=meta_as_of(row.meta, self.clock.now()),
            result=None if row.result is None else GameResult.from_json(row.result),
            topic_id=row.topic_id,
        )

    def scene(
        self, s: Session, row: GameRow, game: Game | Views | None, seats: dict[int, SeatRow]
    ) -> Scene:
        """The game as its readers see it now (see :class:`Scene`): at most two more
        statements, the chat and the seated users the session does not hold yet. ``game``
        may come with the views its notifications already built (a turn's :class:`Views`)."""
        info = self.game_info(s, row, seats)
        chat = s.get(ChatRow, row.chat_id)
        chat_locale = (chat.locale if chat is not None else None) or self.settings.locale
        humans = {r.user_id: r.seat for r in seats.values() if r.user_id is not None}
        users = self.users(s, list(humans))
        active = row.status == ACTIVE
        seat_views: dict[int, SeatView] = {}
        views = Views(game) if isinstance(game, Game) else game
        if views is not None:
            to_act = set(views.game.to_act) if active else set()
            for user_id, seat in humans.items():
                legal = views.legal(seat) if seat in to_act else []
                seat_views[user_id] = SeatView(info, seat, views.typed(seat, bool(legal)),
                                               legal, seat in to_act, row.deadline,
                                               can_take_back=can_take_back(row, views.game, seat,
                                                                           chat),
                                               premove=views.queue_log.premove(
                                                   seats[seat], views.game, active),
                                               unplayable=unplayable(views.game, seat, active))
        return Scene(
            game=info,
            board=BoardView(info, None if views is None else views.typed(None), row.deadline),
            seats=seat_views,
            locales={u: (users[u].locale if u in users and users[u].locale else None)
                     or chat_locale for u in humans},
            can_pm={u: u in users and users[u].can_pm for u in humans},
            chat_locale=chat_locale,
            chat_title=chat.title if chat is not None else None,
            zones={u: tz for u in humans if u in users and (tz := users[u].timezone) is not None},
            board_style=str((chat.settings if chat is not None else {}).get("board", "text")),
        )

    def users(self, s: Session, ids: list[int]) -> dict[int, UserRow]:
        """The users of ``ids`` that exist: those the session holds already without a
        query, the others in one statement."""
        found: dict[int, UserRow] = {}
        for user_id in ids:
            held = s.identity_map.get(identity_key(UserRow, user_id))
            if held is not None:
                found[user_id] = held
        missing = [u for u in ids if u not in found]
        if missing:
            found.update((u.id, u) for u in s.exec(
                select(UserRow).where(UserRow.id.in_(missing))))  # type: ignore[attr-defined]
        return found

    def read_game(self, s: Session, game_id: int) -> tuple[GameRow, Game | None]:
        row = s.get(GameRow, game_id) if possible_id(game_id) else None
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        if row.state is None:
            return row, None
        # Not from the cache: an act() in another thread may be changing that object now.
        return row, Game.from_json(row.state)
