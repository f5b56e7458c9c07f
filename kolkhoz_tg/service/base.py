"""What every part of the service shares: the database plumbing, the engine-state cache,
the version check, notifications into the outbox, and small checks and conversions."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, select

from engine import Game, Rules, preset
from kolkhoz_tg.config import LOCALES, Settings
from kolkhoz_tg.service.deadlines import check_turn_timeout, normalize_reminders
from kolkhoz_tg.service.errors import (
    BadRequest,
    Busy,
    NotAllowed,
    NotFound,
    ServiceError,
    WrongState,
)
from kolkhoz_tg.service.records import (
    ActResult,
    ActStatus,
    BoardView,
    GameInfo,
    Kind,
    Notification,
    Scene,
    SeatInfo,
    SeatView,
)
from kolkhoz_tg.service.turn import Turn, Views
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

_ACTIVE = GameStatus.ACTIVE.value
_LOBBY = GameStatus.LOBBY.value
_PAUSED = GameStatus.PAUSED.value
_OPEN = (GameStatus.LOBBY.value, GameStatus.ACTIVE.value, GameStatus.PAUSED.value)
#: The largest value of an INTEGER column (game ids, versions) on PostgreSQL. A larger number
#: in a query is an error there, not an empty result, so lookups refuse it before SQL does.
MAX_INT = 2**31 - 1
#: Notification kinds where only the newest undelivered one matters, and the older kinds
#: each replaces (for the same game, and the same user or the group): a turn's message shows
#: the hand too, so it replaces a fresh hand's still owed; a fresh hand's replaces an owed
#: turn of an earlier year (it goes only to a seat that is not deciding now).
_SUPERSEDES = {
    Kind.BOARD.value: (Kind.BOARD.value,),
    Kind.YOUR_TURN.value: (Kind.YOUR_TURN.value, Kind.NEW_HAND.value),
    Kind.NEW_HAND.value: (Kind.NEW_HAND.value, Kind.YOUR_TURN.value),
}

#: An older undelivered notification a new one replaces: (game_id, kind, user_id).
_Replaced = tuple[int | None, str, int | None]

#: Called after a commit that changed a game's clock: (game_id, deadline, next_reminder).
ScheduleListener = Callable[[int, datetime | None, datetime | None], None]


class _Conflict(ServiceError):
    """Another transaction changed the game first (the version check failed); act() says
    STALE, other calls raise this (code ``conflict``: try again)."""

    code = "conflict"


@dataclass(frozen=True, slots=True)
class UserInfo:
    id: int
    name: str
    locale: str | None
    can_pm: bool
    timezone: str | None
    quiet_start: int | None
    quiet_end: int | None


@dataclass(frozen=True, slots=True)
class ChatInfo:
    id: int
    title: str | None
    locale: str | None
    settings: dict[str, Any]


@dataclass(frozen=True, slots=True)
class _Foresight:
    """The moves an active game offered its human players at ``version``: (user id, action
    text) pairs."""

    version: int
    moves: frozenset[tuple[int, str]]


class ServiceBase:
    """The state and plumbing :class:`~kolkhoz_tg.service.GameService`'s parts share."""

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
        self._listeners: list[ScheduleListener] = []
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
        self._cache: dict[int, tuple[int, Game]] = {}
        self._cache_lock = threading.Lock()
        # What each active game offers its human players at the version this process last
        # committed (see :meth:`foresee`), and the newest version each game was bumped to
        # here, so that a slower thread's older foresight never replaces a newer commit's.
        self._foresight: dict[int, _Foresight] = {}
        self._bumped: dict[int, int] = {}

    def add_schedule_listener(self, listener: ScheduleListener) -> None:
        """``listener(game_id, deadline, next_reminder)`` runs after every commit that changed
        a game's clock (the scheduler uses it to move its jobs)."""
        self._listeners.append(listener)

    def remove_schedule_listener(self, listener: ScheduleListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _fire_listeners(self, rows: Iterable[GameRow]) -> None:
        for row in rows:
            assert row.id is not None
            for listener in self._listeners:
                try:
                    listener(row.id, row.deadline, row.next_reminder)
                except Exception:  # committed already; the sweep covers a lost job
                    log.exception("schedule listener failed for game %s", row.id)

    def _load(self, s: Session, game_id: int, *, skip_locked: bool = False) -> GameRow | None:
        if not _possible_id(game_id):
            return None
        stmt = select(GameRow).where(GameRow.id == game_id)
        if self.db.is_postgres:
            stmt = stmt.with_for_update(skip_locked=skip_locked)
        return s.exec(stmt).first()

    def _get(self, s: Session, game_id: int) -> GameRow:
        row = self._load(s, game_id)
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        return row

    def _load_with_seats(
        self, s: Session, game_id: int, *, lock: bool = True
    ) -> tuple[GameRow | None, dict[int, SeatRow]]:
        """The game row (locked on PostgreSQL unless ``lock`` is false) and its seats, in
        one statement."""
        if not _possible_id(game_id):
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

    def _load_for_move(
        self, s: Session, game_id: int
    ) -> tuple[GameRow | None, dict[int, SeatRow], dict[int, UserRow], ChatRow | None]:
        """What a move reads, in one statement: the game row (locked on PostgreSQL), its
        seats, their people and the chat. Hold the users and the chat while the session
        works: it keeps only weak references, and later reads (the answer's language, the
        next player's quiet hours, the scene) then find them without a query."""
        if not _possible_id(game_id):
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

    def _seats(self, s: Session, game_id: int) -> dict[int, SeatRow]:
        rows = s.exec(select(SeatRow).where(SeatRow.game_id == game_id)).all()
        return {r.seat: r for r in rows}

    def _engine(self, row: GameRow) -> Game:
        assert row.id is not None and row.state is not None
        with self._cache_lock:
            cached = self._cache.pop(row.id, None)
        if cached is not None and cached[0] == row.version:
            return cached[1]
        return Game.from_json(row.state)

    def _remember(self, game_id: int, version: int, game: Game) -> None:
        with self._cache_lock:
            if len(self._cache) > 2000:
                self._cache.clear()
            self._cache[game_id] = (version, game)

    def _check_seen(self, row: GameRow, version: int | None) -> None:
        """Refuse a change made on an older look at the game (``version``: the one its
        button carried; None: no check): a double tap on "+ Bot" or "Players" acts once.
        Raises :class:`WrongState` ``lobby_changed``."""
        if version is not None and version != row.version:
            raise WrongState(f"version {version} is not {row.version}", "lobby_changed")

    def _bump(self, s: Session, row: GameRow) -> int:
        """Set the next version. The UPDATE that writes it is a compare-and-swap on the old
        one (the mapper's version counter), the backstop against lost updates behind the row
        lock or SQLite's write lock; a lost race surfaces as :class:`_Conflict`."""
        row.version = row.version + 1
        assert row.id is not None
        with self._cache_lock:
            self._foresight.pop(row.id, None)
            if len(self._bumped) > 5000:
                self._bumped.clear()
            self._bumped[row.id] = max(row.version, self._bumped.get(row.id, 0))
        return row.version

    def foresee(self, game_id: int, user_id: int, action: str, version: int) -> bool:
        """Whether :meth:`act` would make this move (``action`` in its canonical text, as
        the buttons carry it), judged from what this process committed last for the game,
        with no database: True when the version is the one committed here last and the
        action was legal then for the user's own seat (not played by a bot). The bot then
        answers the tap before storing the move. It is a forecast, not a check: another
        process may have moved the game since, and :meth:`act` still decides."""
        with self._cache_lock:
            sight = self._foresight.get(game_id)
        return sight is not None and sight.version == version and (user_id, action) in sight.moves

    def _start_turn(
        self, s: Session, row: GameRow, seats: dict[int, SeatRow] | None = None
    ) -> Turn:
        assert row.id is not None
        return Turn(
            session=s,
            row=row,
            seats=seats if seats is not None else self._seats(s, row.id),
            game=self._engine(row),
            now=self.clock.now(),
            base_version=row.version,
        )

    def _finish_turn(
        self, turn: Turn, *, moved: bool, announce: bool = False, store: bool = True
    ) -> None:
        """Clock, notifications, snapshot and version for a turn that changed something.

        With ``store=False`` the notifications stay on the turn for the caller to store with
        other games' (one statement for a whole sweep batch)."""
        turn.set_clock(moved)
        turn.emit_play_notifications(announce=announce)
        row = turn.row
        if turn.moves:
            row.state = turn.game.to_json()
        self._bump(turn.session, row)
        if store:
            self._store_log(turn.session, turn.actions, turn.notes)

    def _store_notes(self, s: Session, notes: list[NotificationRow]) -> None:
        self._store_log(s, [], notes)

    def _store_log(
        self, s: Session, actions: list[ActionRow], notes: list[NotificationRow]
    ) -> None:
        """Log the moves (of one game or of several) and add their notifications to the
        outbox; older undelivered ones they replace (the board of that game, that player's
        "your turn" or fresh hand: see ``_SUPERSEDES``) are marked superseded. On PostgreSQL
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
        replacing: list[_Replaced] = [
            (n.game_id, kind, n.user_id) for n in notes for kind in _SUPERSEDES.get(n.kind, ())]
        if self.db.is_postgres:
            _store_in_one(s, replacing, actions, notes, now)
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
    def _write(self) -> Iterator[Session]:
        try:
            with self.db.write() as s:
                yield s
        except StaleDataError:
            raise _Conflict("another request changed the game first") from None
        except OperationalError as e:
            if self.db.is_sqlite and "locked" in str(e.orig).lower():
                raise Busy("the database is locked by another process") from e
            raise

    def _ensure_user(
        self, s: Session, user_id: int, name: str | None, locale: str | None = None
    ) -> UserRow:
        user = s.get(UserRow, user_id)
        locale = _locale_or_none(locale)
        if user is None:
            # Two first messages of a new user may arrive at once: insert-or-ignore, re-read.
            self._insert_ignore(s, UserRow, id=user_id, name=(name or str(user_id))[:128],
                                locale=locale, can_pm=False, created_at=self.clock.now())
            user = s.get(UserRow, user_id)
            assert user is not None
        elif _user_changes(user, name, locale):
            if name:
                user.name = name[:128]
            if locale and not user.locale:
                user.locale = locale
        return user

    def _insert_ignore(self, s: Session, model: type[UserRow] | type[ChatRow],
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

    def _user(self, s: Session, user_id: int) -> UserRow:
        user = s.get(UserRow, user_id)
        if user is None:
            raise NotFound(f"no user {user_id}", "user_not_found")
        return user

    def _ensure_chat(
        self, s: Session, chat_id: int, title: str | None = None, locale: str | None = None
    ) -> ChatRow:
        chat = s.get(ChatRow, chat_id)
        locale = _locale_or_none(locale)
        if chat is None:
            self._insert_ignore(s, ChatRow, id=chat_id, title=title[:256] if title else None,
                                locale=locale, settings={}, created_at=self.clock.now())
            chat = s.get(ChatRow, chat_id)
            assert chat is not None
        elif title and chat.title != title:
            chat.title = title[:256]
        return chat

    def _check_place(
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
            GameRow.status.in_(_OPEN),  # type: ignore[attr-defined]
        )
        if game_id is not None:
            stmt = stmt.where(GameRow.id != game_id)
        if s.exec(stmt).first() is not None:
            raise NotAllowed("another game is open there", "place_taken")

    def _seat_row(self, s: Session, game_id: int, user_id: int) -> SeatRow | None:
        return s.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.user_id == user_id)
        ).first()

    def _after_commit(self, turn: Turn) -> None:
        """After a turn's transaction committed: keep its engine state for the next request,
        note what the game now offers its players (:meth:`foresee`), move the clock's jobs."""
        row, game = turn.row, turn.game
        assert row.id is not None
        if row.status == _ACTIVE:
            # Read before the state goes back to the cache, where the next turn mutates it.
            moves = frozenset(
                (r.user_id, a.text)
                for seat in game.to_act
                if (r := turn.seats.get(seat)) is not None and r.user_id is not None
                and not r.is_bot and not r.standin
                for a in game.legal_actions(seat)
            )
            with self._cache_lock:
                if self._bumped.get(row.id, 0) <= row.version:
                    self._foresight[row.id] = _Foresight(row.version, moves)
        if row.status in (_ACTIVE, _PAUSED):
            self._remember(row.id, row.version, game)
        self._fire_listeners([row])
        if turn.moves and self.move_listener is not None:
            self.move_listener([m.actor.value for m in turn.moves])

    def _result(
        self, turn: Turn, status: ActStatus, seat: int | None, reason: str | None = None,
        message: str | None = None,
    ) -> ActResult:
        assert turn.row.id is not None
        return ActResult(
            status,
            turn.row.id,
            turn.row.version,
            seat,
            reason=reason,
            message=message,
            events=[m.to_dict() for m in turn.moves],
            notifications=[_to_record(n) for n in turn.notes],
        )

    def _version(self, game_id: int) -> int:
        if not _possible_id(game_id):
            raise NotFound(f"no game {game_id}", "game_not_found")
        with self.db.read() as s:
            version = s.exec(select(GameRow.version).where(GameRow.id == game_id)).first()
            if version is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            return version

    def _info(
        self, s: Session, row: GameRow, seat_rows: dict[int, SeatRow] | None = None
    ) -> GameInfo:
        assert row.id is not None
        if seat_rows is None:
            seat_rows = self._seats(s, row.id)
        seats = sorted(seat_rows.values(), key=lambda r: r.seat)
        return GameInfo(
            id=row.id,
            chat_id=row.chat_id,
            creator_id=row.creator_id,
            status=row.status,
            preset=row.preset,
            rules=dict(row.rules),
            players=row.players,
            seed=row.seed,
            version=row.version,
            turn_timeout=row.turn_timeout,
            reminders=list(row.reminders),
            standin_after=row.standin_after,
            seats=[_seat_info(r) for r in seats],
            deadline=row.deadline,
            paused_remaining=row.paused_remaining,
            created_at=row.created_at,
            started_at=row.started_at,
            finished_at=row.finished_at,
            meta=dict(row.meta),
            result=None if row.result is None else dict(row.result),
            topic_id=row.topic_id,
        )

    def _scene(
        self, s: Session, row: GameRow, game: Game | Views | None, seats: dict[int, SeatRow]
    ) -> Scene:
        """The game as its readers see it now (see :class:`Scene`): at most two more
        statements, the chat and the seated users the session does not hold yet. ``game``
        may come with the views its notifications already built (a turn's :class:`Views`)."""
        info = self._info(s, row, seats)
        chat = s.get(ChatRow, row.chat_id)
        chat_locale = (chat.locale if chat is not None else None) or self.settings.locale
        humans = {r.user_id: r.seat for r in seats.values() if r.user_id is not None}
        users = self._users(s, list(humans))
        active = row.status == _ACTIVE
        seat_views: dict[int, SeatView] = {}
        views = Views(game) if isinstance(game, Game) else game
        if views is not None:
            to_act = set(views.game.to_act) if active else set()
            for user_id, seat in humans.items():
                legal = views.legal(seat) if seat in to_act else []
                seat_views[user_id] = SeatView(info, seat, views.view(seat), legal,
                                               seat in to_act, row.deadline)
        return Scene(
            game=info,
            board=BoardView(info, None if views is None else views.view(None), row.deadline),
            seats=seat_views,
            locales={u: (users[u].locale if u in users and users[u].locale else None)
                     or chat_locale for u in humans},
            can_pm={u: u in users and users[u].can_pm for u in humans},
            chat_locale=chat_locale,
            chat_title=chat.title if chat is not None else None,
            zones={u: tz for u in humans if u in users and (tz := users[u].timezone) is not None},
            board_style=str((chat.settings if chat is not None else {}).get("board", "text")),
        )

    def _users(self, s: Session, ids: list[int]) -> dict[int, UserRow]:
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

    def _read_game(self, s: Session, game_id: int) -> tuple[GameRow, Game | None]:
        row = s.get(GameRow, game_id) if _possible_id(game_id) else None
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        if row.state is None:
            return row, None
        # Not from the cache: an act() in another thread may be changing that object now.
        return row, Game.from_json(row.state)


# ====================================================================== helpers


def _possible_id(value: int) -> bool:
    """Whether ``value`` fits an INTEGER column (see :data:`MAX_INT`)."""
    return isinstance(value, int) and -MAX_INT - 1 <= value <= MAX_INT


def _seed(text: str) -> int | str:
    return int(text) if text.isdecimal() else text


def _user_changes(user: UserRow, name: str | None, locale: str | None) -> bool:
    """Whether :meth:`ServiceBase._ensure_user` would change the stored user: a new name,
    or a first locale (the user's own choice is never overwritten)."""
    return bool(name and user.name != name[:128]) or bool(
        _locale_or_none(locale) and not user.locale)


def _locale_or_none(locale: str | None) -> str | None:
    if not locale:
        return None
    code = locale.strip().lower().replace("_", "-").split("-")[0]
    return code if code in LOCALES else None


def _make_rules(preset_value: str, options: dict[str, Any] | None) -> Rules:
    try:
        rules = preset(preset_value)
    except ValueError as e:
        raise BadRequest(str(e), "bad_preset") from None
    if options:
        try:
            rules = replace(rules, **options)
        except (TypeError, ValueError) as e:
            raise BadRequest(f"bad rule options: {e}", "bad_option") from None
    return rules


def _check_timeout(value: str | int) -> int:
    try:
        return check_turn_timeout(value)
    except ValueError as e:
        raise BadRequest(str(e), "bad_duration") from None


def _check_reminders(value: list[str]) -> list[str]:
    try:
        return normalize_reminders(value)
    except ValueError as e:
        raise BadRequest(str(e), "bad_reminders") from None


def _check_standin(value: int) -> int:
    if not isinstance(value, int) or not 1 <= value <= 100:
        raise BadRequest(f"stand-in after 1 to 100 timeouts, not {value!r}", "bad_standin")
    return value


def _bot_seat(game_id: int, seat: int, seats: dict[int, SeatRow], now: datetime) -> SeatRow:
    number = 1 + sum(1 for r in seats.values() if r.is_bot)
    return SeatRow(game_id=game_id, seat=seat, user_id=None, is_bot=True,
                   name=f"Bot {number}", joined_at=now)


def _note(
    row: GameRow, kind: Kind, data: dict[str, Any], now: datetime, version: int,
    user_id: int | None = None,
) -> NotificationRow:
    return NotificationRow(game_id=row.id, chat_id=row.chat_id, user_id=user_id, kind=kind.value,
                           version=version, data=data, created_at=now)


def _to_record(n: NotificationRow) -> Notification:
    assert n.id is not None
    return Notification(
        id=n.id,
        kind=Kind(n.kind),
        game_id=n.game_id,
        chat_id=n.chat_id,
        user_id=n.user_id,
        seat=n.seat,
        version=n.version,
        data=n.data,
        created_at=n.created_at,
    )


def _seat_info(r: SeatRow) -> SeatInfo:
    return SeatInfo(r.seat, r.user_id, r.name, r.is_bot, r.standin, r.timeouts, r.auto_moves,
                    r.level)


def _user_info(u: UserRow) -> UserInfo:
    return UserInfo(u.id, u.name, u.locale, u.can_pm, u.timezone, u.quiet_start, u.quiet_end)


def _chat_info(c: ChatRow) -> ChatInfo:
    return ChatInfo(c.id, c.title, c.locale, dict(c.settings))



def _store_in_one(
    s: Session, replaced: list[_Replaced], actions: list[ActionRow],
    notes: list[NotificationRow], now: datetime,
) -> None:
    """PostgreSQL's :meth:`ServiceBase._store_log` in one statement (see
    :func:`_one_statement_sql`). The new ids are drawn from the sequence in the VALUES'
    order, so sorted they belong to the notes in order (SQLAlchemy's own bulk insert relies
    on the same)."""
    sql = _one_statement_sql(tuple(user_id is None for _g, _k, user_id in replaced), len(actions),
                             len(notes))
    params: dict[str, Any] = {"now": now}
    for i, (game_id, kind, user_id) in enumerate(replaced):
        params[f"s{i}_game"], params[f"s{i}_kind"] = game_id, kind
        if user_id is not None:
            params[f"s{i}_user"] = user_id
    for prefix, rows, columns in (("a", actions, _ACTION_COLUMNS), ("n", notes, _NOTE_COLUMNS)):
        for i, row in enumerate(rows):
            for name, _ in columns:
                value = getattr(row, name)
                if isinstance(value, datetime) and value.tzinfo is None:
                    raise ValueError(f"naive datetime given to {name}")  # as UTCDateTime
                params[f"{prefix}{i}_{name}"] = (
                    json.dumps(value) if name in _JSON_COLUMNS else value)
    ids = sorted(s.connection().exec_driver_sql(sql, params).scalars())
    for note, note_id in zip(notes, ids, strict=True):
        note.id = note_id


def _sql_columns(table: sa.Table, skip: str | None = None) -> tuple[tuple[str, str], ...]:
    """(name, PostgreSQL type) of a table's columns, for casts in hand-written SQL. A
    string's cast has no length (``VARCHAR(32)`` would cut a longer value short without a
    word; uncut, the column's own limit refuses it, as the ORM's insert would)."""
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    columns = ((c.name, c.type.compile(dialect=dialect)) for c in table.c if c.name != skip)
    return tuple((name, "VARCHAR" if kind.startswith("VARCHAR") else kind)
                 for name, kind in columns)


_NOTE_COLUMNS = _sql_columns(NotificationRow.__table__, skip="id")  # type: ignore[attr-defined]
_ACTION_COLUMNS = _sql_columns(ActionRow.__table__)  # type: ignore[attr-defined]
_JSON_COLUMNS = frozenset(
    name for name, kind in _NOTE_COLUMNS + _ACTION_COLUMNS if kind == "JSON")


@lru_cache(maxsize=64)
def _one_statement_sql(replaced: tuple[bool, ...], actions: int, notes: int) -> str:
    """The text of one outbox write on PostgreSQL, for ``replaced`` (per older kind a new
    note replaces: whether it is the group's, i.e. has no user), ``actions`` log rows and
    ``notes`` notifications::

        WITH superseded AS (UPDATE notifications ... RETURNING id),
             logged AS (INSERT INTO actions ... RETURNING seq)
        INSERT INTO notifications (...) SELECT ... FROM (VALUES ...) ORDER BY ordinal
        RETURNING id

    The parts of one statement see the same snapshot: the UPDATE cannot touch the rows the
    INSERT adds. Written by hand and cached by shape: SQLAlchemy does not cache the compiled
    form of a statement holding VALUES data, and compiling it each time costs more than the
    round trips it saves."""
    ctes = []
    if replaced:
        whom = " OR ".join(
            f"(game_id = %(s{i}_game)s AND kind = %(s{i}_kind)s AND "
            + ("user_id IS NULL)" if group else f"user_id = %(s{i}_user)s)")
            for i, group in enumerate(replaced))
        ctes.append("superseded AS (UPDATE notifications SET superseded = true, "
                    f"delivered_at = %(now)s WHERE delivered_at IS NULL AND ({whom}) "
                    "RETURNING id)")
    if actions:
        names = ", ".join(name for name, _ in _ACTION_COLUMNS)
        rows = ", ".join(
            "(" + ", ".join(f"%(a{i}_{name})s::{kind}" for name, kind in _ACTION_COLUMNS) + ")"
            for i in range(actions))
        ctes.append(f"logged AS (INSERT INTO actions ({names}) VALUES {rows} RETURNING seq)")
    names = ", ".join(name for name, _ in _NOTE_COLUMNS)
    rows = ", ".join(
        "(" + ", ".join(f"%(n{i}_{name})s::{kind}" for name, kind in _NOTE_COLUMNS)
        + f", {i})" for i in range(notes))
    head = f"WITH {', '.join(ctes)} " if ctes else ""
    return (f"{head}INSERT INTO notifications ({names}) SELECT {names} FROM (VALUES {rows}) "
            f"AS new_notes ({names}, ordinal) ORDER BY ordinal RETURNING id")
