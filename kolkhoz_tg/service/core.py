"""The play-by-post service: lobby, ``act()``, the clock, stand-ins and the outbox.

Every method takes plain values (ids, strings, ints) and returns plain records
(:mod:`kolkhoz_tg.service.records`); each runs in one database transaction of its own. The
service is synchronous: an asyncio front end calls it through ``asyncio.to_thread`` (see
``docs/design-core.md`` for why).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session, select

from engine import Action, Game, InvalidAction, Rules, preset, preset_name
from kolkhoz_tg.config import LOCALES, Settings
from kolkhoz_tg.service.deadlines import check_turn_timeout, normalize_reminders
from kolkhoz_tg.service.errors import BadRequest, NotAllowed, NotFound, ServiceError, WrongState
from kolkhoz_tg.service.records import (
    ActResult,
    ActStatus,
    BoardView,
    DueJob,
    GameInfo,
    Kind,
    Notification,
    SeatInfo,
    SeatView,
    SweepResult,
    UserStats,
)
from kolkhoz_tg.service.turn import Turn
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.storage.models import (
    ActionRow,
    Actor,
    ChatRow,
    GameRow,
    GameStatus,
    NotificationRow,
    SeatRow,
    UserRow,
)
from kolkhoz_tg.timeutil import Clock, SystemClock, check_timezone, parse_clock_time

_ACTIVE = GameStatus.ACTIVE.value
_LOBBY = GameStatus.LOBBY.value
_PAUSED = GameStatus.PAUSED.value
_OPEN = (GameStatus.LOBBY.value, GameStatus.ACTIVE.value, GameStatus.PAUSED.value)
#: Notification kinds where only the newest undelivered one matters.
_SUPERSEDED_KINDS = (Kind.BOARD.value, Kind.YOUR_TURN.value)

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


class GameService:
    """The one way to change a game. Thread-safe; share one instance per process.

    ``clock`` is injectable so tests move time by hand; ``settings`` supplies the defaults
    (turn time limit, reminders, stand-in threshold, locale).
    """

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
        # Engine states of recently committed versions: saves a JSON decode per act().
        self._cache: dict[int, tuple[int, Game]] = {}
        self._cache_lock = threading.Lock()

    # ================================================================== plumbing

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
                listener(row.id, row.deadline, row.next_reminder)

    def _load(self, s: Session, game_id: int, *, skip_locked: bool = False) -> GameRow | None:
        stmt = select(GameRow).where(GameRow.id == game_id)
        if self.db.is_postgres:
            stmt = stmt.with_for_update(skip_locked=skip_locked)
        return s.exec(stmt).first()

    def _get(self, s: Session, game_id: int) -> GameRow:
        row = self._load(s, game_id)
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        return row

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

    def _bump(self, s: Session, row: GameRow) -> int:
        """Set the next version. The UPDATE that writes it is a compare-and-swap on the old
        one (the mapper's version counter), the backstop against lost updates behind the row
        lock or SQLite's write lock; a lost race surfaces as :class:`_Conflict`."""
        row.version = row.version + 1
        return row.version

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

    def _finish_turn(self, turn: Turn, *, moved: bool, announce: bool = False) -> None:
        """Clock, notifications, snapshot and version for a turn that changed something."""
        turn.set_clock(moved)
        turn.emit_play_notifications(announce=announce)
        row = turn.row
        if turn.moves:
            row.state = turn.game.to_json()
        self._bump(turn.session, row)
        self._store_notes(turn.session, turn.notes)

    def _store_notes(self, s: Session, notes: list[NotificationRow]) -> None:
        """Add notifications to the outbox; older undelivered ones they replace (the board of
        that game, that player's "your turn") are marked superseded, in one statement."""
        if not notes:
            return
        now, game_id = notes[0].created_at, notes[0].game_id
        t = NotificationRow.__table__  # type: ignore[attr-defined]
        replaced = []
        for n in notes:
            assert n.game_id == game_id  # one transaction, one game
            if n.kind in _SUPERSEDED_KINDS:
                who = t.c.user_id.is_(None) if n.user_id is None else t.c.user_id == n.user_id
                replaced.append(sa.and_(t.c.kind == n.kind, who))
        if replaced:
            s.execute(
                sa.update(t)
                .where(t.c.game_id == game_id, t.c.delivered_at.is_(None), sa.or_(*replaced))
                .values(superseded=True, delivered_at=now)
            )
        s.add_all(notes)
        s.flush()

    @contextmanager
    def _write(self) -> Iterator[Session]:
        try:
            with self.db.write() as s:
                yield s
        except StaleDataError:
            raise _Conflict("another request changed the game first") from None

    # ================================================================== users and chats

    def ensure_user(self, user_id: int, name: str, locale: str | None = None) -> UserInfo:
        """Create or update a user (the name follows the latest; a locale is only taken when
        the user has not chosen one)."""
        with self._write() as s:
            user = self._ensure_user(s, user_id, name, locale)
            return _user_info(user)

    def _ensure_user(
        self, s: Session, user_id: int, name: str | None, locale: str | None = None
    ) -> UserRow:
        user = s.get(UserRow, user_id)
        locale = _locale_or_none(locale)
        if user is None:
            user = UserRow(id=user_id, name=(name or str(user_id))[:128], locale=locale)
            s.add(user)
            s.flush()
        else:
            if name and user.name != name[:128]:
                user.name = name[:128]
            if locale and not user.locale:
                user.locale = locale
        return user

    def user(self, user_id: int) -> UserInfo | None:
        with self.db.read() as s:
            user = s.get(UserRow, user_id)
            return None if user is None else _user_info(user)

    def set_user_locale(self, user_id: int, locale: str) -> UserInfo:
        loc = _locale_or_none(locale)
        if loc is None:
            raise BadRequest(f"unknown locale {locale!r}", "bad_locale")
        with self._write() as s:
            user = self._user(s, user_id)
            user.locale = loc
            return _user_info(user)

    def set_can_pm(self, user_id: int, can_pm: bool) -> None:
        """Record whether the bot can write to the user privately."""
        with self._write() as s:
            self._user(s, user_id).can_pm = can_pm

    def set_quiet_hours(
        self, user_id: int, timezone: str | None, start: str | None = None,
        end: str | None = None,
    ) -> UserInfo:
        """Set the user's time zone and night window (``"23:00"``, ``"08:00"``); a None
        timezone clears them. Raises :class:`BadRequest` for a bad zone or time."""
        try:
            tz = None if timezone is None else check_timezone(timezone)
            qs = None if tz is None or start is None else parse_clock_time(start)
            qe = None if tz is None or end is None else parse_clock_time(end)
        except ValueError as e:
            raise BadRequest(str(e), "bad_quiet_hours") from None
        with self._write() as s:
            user = self._user(s, user_id)
            user.timezone, user.quiet_start, user.quiet_end = tz, qs, qe
            return _user_info(user)

    def _user(self, s: Session, user_id: int) -> UserRow:
        user = s.get(UserRow, user_id)
        if user is None:
            raise NotFound(f"no user {user_id}", "user_not_found")
        return user

    def ensure_chat(
        self, chat_id: int, title: str | None = None, locale: str | None = None
    ) -> ChatInfo:
        with self._write() as s:
            return _chat_info(self._ensure_chat(s, chat_id, title, locale))

    def _ensure_chat(
        self, s: Session, chat_id: int, title: str | None = None, locale: str | None = None
    ) -> ChatRow:
        chat = s.get(ChatRow, chat_id)
        locale = _locale_or_none(locale)
        if chat is None:
            chat = ChatRow(id=chat_id, title=title, locale=locale, settings={})
            s.add(chat)
            s.flush()
        elif title and chat.title != title:
            chat.title = title[:256]
        return chat

    def chat(self, chat_id: int) -> ChatInfo | None:
        with self.db.read() as s:
            chat = s.get(ChatRow, chat_id)
            return None if chat is None else _chat_info(chat)

    def set_chat_locale(self, chat_id: int, locale: str) -> ChatInfo:
        loc = _locale_or_none(locale)
        if loc is None:
            raise BadRequest(f"unknown locale {locale!r}", "bad_locale")
        with self._write() as s:
            chat = self._ensure_chat(s, chat_id)
            chat.locale = loc
            return _chat_info(chat)

    def set_chat_defaults(
        self,
        chat_id: int,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
    ) -> ChatInfo:
        """Defaults for the chat's new games; each value is checked like in
        :meth:`create_game`. Raises :class:`BadRequest`."""
        settings: dict[str, Any] = {}
        if preset is not None or options is not None:
            rules = _make_rules(preset or "classic", options)
            settings["preset"] = preset or "classic"
            settings["options"] = dict(options or {})
            del rules
        if turn_timeout is not None:
            settings["turn_timeout"] = _check_timeout(turn_timeout)
        if reminders is not None:
            settings["reminders"] = _check_reminders(reminders)
        if standin_after is not None:
            settings["standin_after"] = _check_standin(standin_after)
        with self._write() as s:
            chat = self._ensure_chat(s, chat_id)
            chat.settings = {**chat.settings, **settings}
            return _chat_info(chat)

    def locale_for(
        self, user_id: int | None = None, chat_id: int | None = None,
        fallback: str | None = None,
    ) -> str:
        """The language to address someone in: the user's own, else the chat's, else
        ``fallback`` (e.g. the Telegram client language), else the configured default."""
        with self.db.read() as s:
            if user_id is not None:
                user = s.get(UserRow, user_id)
                if user is not None and user.locale:
                    return user.locale
            if chat_id is not None:
                chat = s.get(ChatRow, chat_id)
                if chat is not None and chat.locale:
                    return chat.locale
        return _locale_or_none(fallback) or self.settings.locale

    # ================================================================== lobby

    def create_game(
        self,
        chat_id: int,
        creator_id: int,
        *,
        creator_name: str | None = None,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int = 4,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
        seed: int | str | None = None,
        join: bool = True,
    ) -> GameInfo:
        """Open a lobby in ``chat_id``; the creator takes seat 0 unless ``join`` is False.

        Unset values come from the chat's defaults, then the service settings. Raises
        :class:`BadRequest` (``bad_preset``, ``bad_option``, ``bad_players``,
        ``bad_duration``, ``bad_reminders``, ``bad_standin``)."""
        if not isinstance(players, int) or not 3 <= players <= 5:
            raise BadRequest(f"3 to 5 players, not {players!r}", "bad_players")
        with self._write() as s:
            chat = self._ensure_chat(s, chat_id)
            user = self._ensure_user(s, creator_id, creator_name)
            d = chat.settings
            preset_value = preset or d.get("preset") or "classic"
            opts = options if options is not None else d.get("options") or {}
            rules = _make_rules(preset_value, opts)
            row = GameRow(
                chat_id=chat_id,
                creator_id=creator_id,
                status=_LOBBY,
                preset=preset_name(rules),
                rules=rules.to_dict(),
                players=players,
                seed=str(seed) if seed is not None else str(secrets.randbelow(10**12)),
                turn_timeout=(
                    _check_timeout(turn_timeout) if turn_timeout is not None
                    else d.get("turn_timeout", self.default_turn_timeout)
                ),
                reminders=(
                    _check_reminders(reminders) if reminders is not None
                    else d.get("reminders", self.default_reminders)
                ),
                standin_after=(
                    _check_standin(standin_after) if standin_after is not None
                    else d.get("standin_after", self.default_standin_after)
                ),
                created_at=self.clock.now(),
                meta={},
            )
            s.add(row)
            s.flush()
            assert row.id is not None
            if join:
                s.add(SeatRow(game_id=row.id, seat=0, user_id=creator_id, name=user.name,
                              joined_at=self.clock.now()))
            s.flush()
            return self._info(s, row)

    def join(
        self, game_id: int, user_id: int, name: str | None = None, seat: int | None = None
    ) -> GameInfo:
        """Take a seat (the first free one unless given). Raises :class:`WrongState`
        (``not_lobby``), :class:`NotAllowed` (``already_seated``, ``seat_taken``,
        ``game_full``) or :class:`BadRequest` (``bad_seat``)."""
        with self._write() as s:
            row = self._lobby(s, game_id)
            user = self._ensure_user(s, user_id, name)
            seats = self._seats(s, game_id)
            if any(r.user_id == user_id for r in seats.values()):
                raise NotAllowed("already seated", "already_seated")
            index = self._free_seat(row, seats, seat)
            s.add(SeatRow(game_id=game_id, seat=index, user_id=user_id, name=user.name,
                          joined_at=self.clock.now()))
            self._bump(s, row)
            s.flush()
            return self._info(s, row)

    def leave(self, game_id: int, user_id: int) -> GameInfo:
        """Give up a lobby seat. Raises ``not_lobby`` / ``not_seated``."""
        with self._write() as s:
            row = self._lobby(s, game_id)
            seat = self._seat_row(s, game_id, user_id)
            if seat is None:
                raise NotAllowed("not seated", "not_seated")
            s.delete(seat)
            self._bump(s, row)
            s.flush()
            return self._info(s, row)

    def add_bot(self, game_id: int, by_user: int, seat: int | None = None) -> GameInfo:
        """Seat a bot (by the creator or a seated player)."""
        with self._write() as s:
            row = self._lobby(s, game_id)
            seats = self._seats(s, game_id)
            self._check_member(row, seats, by_user)
            index = self._free_seat(row, seats, seat)
            s.add(_bot_seat(game_id, index, seats, self.clock.now()))
            self._bump(s, row)
            s.flush()
            return self._info(s, row)

    def remove_seat(self, game_id: int, by_user: int, seat: int) -> GameInfo:
        """Remove a bot (by a member) or any seat (by the creator) in the lobby."""
        with self._write() as s:
            row = self._lobby(s, game_id)
            seats = self._seats(s, game_id)
            self._check_member(row, seats, by_user)
            target = seats.get(seat)
            if target is None:
                raise BadRequest(f"seat {seat} is empty", "bad_seat")
            if not target.is_bot and by_user not in (row.creator_id, target.user_id):
                raise NotAllowed("only the creator removes players", "not_creator")
            s.delete(target)
            self._bump(s, row)
            s.flush()
            return self._info(s, row)

    def configure(
        self,
        game_id: int,
        by_user: int,
        *,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
    ) -> GameInfo:
        """Change the clock settings (creator only; in a running game from the next turn)."""
        with self._write() as s:
            row = self._get(s, game_id)
            if row.status not in _OPEN:
                raise WrongState("the game is over", "game_over")
            if by_user != row.creator_id:
                raise NotAllowed("only the creator changes settings", "not_creator")
            if turn_timeout is not None:
                row.turn_timeout = _check_timeout(turn_timeout)
            if reminders is not None:
                row.reminders = _check_reminders(reminders)
            if standin_after is not None:
                row.standin_after = _check_standin(standin_after)
            s.flush()
            return self._info(s, row)

    def configure_lobby(
        self,
        game_id: int,
        by_user: int,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int | None = None,
    ) -> GameInfo:
        """Change the rules or the number of seats before the start (creator only).

        ``preset`` replaces the rules (then ``options`` apply on top); ``options`` alone
        change the current rules. Fewer seats are refused while a seat that would go is
        taken. Raises :class:`WrongState` (``not_lobby``), :class:`NotAllowed`
        (``not_creator``, ``seat_taken``) or :class:`BadRequest` (``bad_preset``,
        ``bad_option``, ``bad_players``)."""
        if players is not None and (not isinstance(players, int) or not 3 <= players <= 5):
            raise BadRequest(f"3 to 5 players, not {players!r}", "bad_players")
        with self._write() as s:
            row = self._lobby(s, game_id)
            if by_user != row.creator_id:
                raise NotAllowed("only the creator changes the rules", "not_creator")
            if preset is not None:
                rules = _make_rules(preset, options)
            elif options:
                try:
                    rules = replace(Rules.from_dict(row.rules), **options)
                except (TypeError, ValueError) as e:
                    raise BadRequest(f"bad rule options: {e}", "bad_option") from None
            else:
                rules = Rules.from_dict(row.rules)
            if players is not None:
                seats = self._seats(s, game_id)
                if any(index >= players for index in seats):
                    raise NotAllowed("a seat that would go is taken", "seat_taken")
                row.players = players
            row.rules = rules.to_dict()
            row.preset = preset_name(rules)
            self._bump(s, row)
            s.flush()
            return self._info(s, row)

    def stand_in(self, game_id: int, seat: int) -> ActResult:
        """A bot plays ``seat`` from now on, as after repeated timeouts, until its player
        acts or says they are back (the seat stays theirs). For the front end's kick by the
        creator or an admin, who checks that right. DUPLICATE if a bot already plays it."""
        with self._write() as s:
            row = self._get(s, game_id)
            if row.status not in (_ACTIVE, _PAUSED):
                raise WrongState("the game is not running", "not_active")
            turn = self._start_turn(s, row)
            seat_row = turn.seats.get(seat)
            if seat_row is None:
                raise BadRequest(f"seat {seat} is empty", "bad_seat")
            if seat_row.is_bot or seat_row.standin:
                return ActResult(ActStatus.DUPLICATE, game_id, row.version, seat)
            seat_row.standin = True
            data = {"timeouts": seat_row.timeouts, "name": seat_row.name}
            turn.notify(Kind.STAND_IN, data, user_id=seat_row.user_id, seat=seat)
            turn.notify(Kind.STAND_IN, data, seat=seat)
            if row.status == _ACTIVE:
                turn.run_automatic()
            self._finish_turn(turn, moved=bool(turn.moves))
            result = self._result(turn, ActStatus.APPLIED, seat)
        self._after_commit(row, turn.game)
        return result

    def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        """A group became a supergroup with a new id: its games, settings and language move
        along. Idempotent; returns how many games moved."""
        with self._write() as s:
            old = s.get(ChatRow, old_chat_id)
            if old is not None:
                new = self._ensure_chat(s, new_chat_id, old.title, old.locale)
                new.settings = {**old.settings, **new.settings}
                if new.locale is None:
                    new.locale = old.locale
            moved = s.execute(
                sa.update(GameRow)
                .where(GameRow.chat_id == old_chat_id)  # type: ignore[arg-type]
                .values(chat_id=new_chat_id)
                .execution_options(synchronize_session=False)
            )
            s.execute(
                sa.update(NotificationRow)
                .where(NotificationRow.chat_id == old_chat_id)  # type: ignore[arg-type]
                .values(chat_id=new_chat_id)
                .execution_options(synchronize_session=False)
            )
            return int(moved.rowcount)  # type: ignore[attr-defined]

    def start(self, game_id: int, by_user: int, fill_with_bots: bool = False) -> ActResult:
        """Deal and start (creator only). Empty seats get bots if ``fill_with_bots``, else
        :class:`WrongState` ``not_full``. Bots and forced moves play at once."""
        with self._write() as s:
            row = self._lobby(s, game_id)
            if by_user != row.creator_id:
                raise NotAllowed("only the creator starts the game", "not_creator")
            seats = self._seats(s, game_id)
            free = [i for i in range(row.players) if i not in seats]
            if free and not fill_with_bots:
                raise WrongState(f"{len(free)} seats are empty", "not_full")
            now = self.clock.now()
            for i in free:
                bot = _bot_seat(game_id, i, seats, now)
                seats[i] = bot
                s.add(bot)
            s.flush()
            game = Game.new(Rules.from_dict(row.rules), row.players, _seed(row.seed))
            row.state = game.to_json()
            row.status = _ACTIVE
            row.started_at = now
            turn = Turn(s, row, seats, game, now, row.version)
            turn.notify(Kind.GAME_STARTED, {"game": turn.game_header(), "view": game.view(None)})
            turn.run_automatic()
            self._finish_turn(turn, moved=True, announce=True)
            result = self._result(turn, ActStatus.APPLIED, None)
        self._after_commit(row, game)
        return result

    def abort(self, game_id: int, by_user: int, force: bool = False) -> ActResult:
        """Stop a game for good (the creator, or anyone the front end vouches for with
        ``force``, e.g. a chat admin)."""
        with self._write() as s:
            row = self._get(s, game_id)
            if row.status not in _OPEN:
                raise WrongState("the game is already over", "game_over")
            if by_user != row.creator_id and not force:
                raise NotAllowed("only the creator aborts the game", "not_creator")
            now = self.clock.now()
            row.status = GameStatus.ABORTED.value
            row.finished_at = now
            row.deadline = row.next_reminder = row.next_due = None
            for seat in self._seats(s, game_id).values():
                seat.reminders, seat.remind_at = [], None
            version = self._bump(s, row)
            note = _note(row, Kind.ABORTED, {"by": by_user}, now, version)
            self._store_notes(s, [note])
            result = ActResult(ActStatus.APPLIED, game_id, version,
                               notifications=[_to_record(note)])
        self._fire_listeners([row])
        return result

    def _lobby(self, s: Session, game_id: int) -> GameRow:
        row = self._get(s, game_id)
        if row.status != _LOBBY:
            raise WrongState("the game has started", "not_lobby")
        return row

    def _free_seat(self, row: GameRow, seats: dict[int, SeatRow], seat: int | None) -> int:
        if seat is None:
            for i in range(row.players):
                if i not in seats:
                    return i
            raise NotAllowed("no free seat", "game_full")
        if not isinstance(seat, int) or not 0 <= seat < row.players:
            raise BadRequest(f"no seat {seat!r}", "bad_seat")
        if seat in seats:
            raise NotAllowed(f"seat {seat} is taken", "seat_taken")
        return seat

    def _check_member(self, row: GameRow, seats: dict[int, SeatRow], user_id: int) -> None:
        if user_id != row.creator_id and not any(r.user_id == user_id for r in seats.values()):
            raise NotAllowed("not a member of this game", "not_seated")

    def _seat_row(self, s: Session, game_id: int, user_id: int) -> SeatRow | None:
        return s.exec(
            select(SeatRow).where(SeatRow.game_id == game_id, SeatRow.user_id == user_id)
        ).first()

    # ================================================================== play

    def act(
        self, game_id: int, user_id: int, action_text: str, expected_version: int
    ) -> ActResult:
        """Play ``action_text`` (e.g. ``play:10H``) for the user's seat, based on
        ``expected_version`` (what the user saw).

        In one transaction: check the seat and the version, apply, log, let bots, stand-ins
        and forced moves follow, set the new deadline, write the notifications. A stale
        version, a lost race, an illegal or malformed action change nothing and say so in
        :attr:`ActResult.status`; repeating an applied request returns ``DUPLICATE``. A player
        whose seat a stand-in was playing is back by acting. Raises :class:`NotFound` for an
        unknown game."""
        try:
            action = Action.parse(action_text)
        except InvalidAction as e:
            version = self._version(game_id)
            return ActResult(ActStatus.INVALID, game_id, version, reason="invalid",
                             message=str(e))
        try:
            with self._write() as s:
                row = self._get(s, game_id)
                seats = self._seats(s, game_id)
                seat = next((r for r in seats.values() if r.user_id == user_id), None)
                if seat is None:
                    return ActResult(ActStatus.NOT_SEATED, game_id, row.version)
                if expected_version != row.version:
                    return self._stale(s, row, seat, action, expected_version)
                if row.status != _ACTIVE:
                    return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat,
                                     reason=row.status)
                turn = self._start_turn(s, row, seats)
                back = self._take_back(turn, seat)
                illegal = turn.game.why_illegal(seat.seat, action)
                if illegal is not None:
                    if not back:
                        self._remember(game_id, row.version, turn.game)
                        return ActResult(ActStatus.ILLEGAL, game_id, row.version, seat.seat,
                                         reason=illegal.reason, message=str(illegal))
                    self._finish_turn(turn, moved=False)
                    result = self._result(turn, ActStatus.ILLEGAL, seat.seat,
                                          reason=illegal.reason, message=str(illegal))
                else:
                    turn.apply(seat.seat, action, Actor.PLAYER, user_id)
                    seat.timeouts = 0
                    turn.run_automatic()
                    self._finish_turn(turn, moved=True)
                    result = self._result(turn, ActStatus.APPLIED, seat.seat)
        except _Conflict:
            return ActResult(ActStatus.STALE, game_id, self._version(game_id),
                             reason="conflict")
        self._after_commit(row, turn.game)
        return result

    def _stale(
        self, s: Session, row: GameRow, seat: SeatRow, action: Action, expected: int
    ) -> ActResult:
        assert row.id is not None
        dup = s.exec(
            select(ActionRow.seq).where(
                ActionRow.game_id == row.id,
                ActionRow.version == expected,
                ActionRow.seat == seat.seat,
                ActionRow.action == action.text,
                ActionRow.actor == Actor.PLAYER.value,
            )
        ).first()
        status = ActStatus.DUPLICATE if dup is not None else ActStatus.STALE
        return ActResult(status, row.id, row.version, seat.seat)

    def _take_back(self, turn: Turn, seat: SeatRow) -> bool:
        if not seat.standin:
            return False
        seat.standin = False
        seat.timeouts = 0
        turn.notify(Kind.PLAYER_BACK, {"name": seat.name}, seat=seat.seat)
        return True

    def back(self, game_id: int, user_id: int) -> ActResult:
        """The player says they are back: the stand-in leaves their seat and the missed-turn
        count restarts. Harmless if no stand-in was playing (status DUPLICATE)."""
        with self._write() as s:
            row = self._get(s, game_id)
            seat = self._seat_row(s, game_id, user_id)
            if seat is None:
                return ActResult(ActStatus.NOT_SEATED, game_id, row.version)
            if row.status not in (_ACTIVE, _PAUSED):
                return ActResult(ActStatus.NOT_ACTIVE, game_id, row.version, seat.seat)
            if not seat.standin:
                seat.timeouts = 0
                return ActResult(ActStatus.DUPLICATE, game_id, row.version, seat.seat)
            turn = self._start_turn(s, row)
            self._take_back(turn, turn.seats[seat.seat])
            self._finish_turn(turn, moved=False)
            result = self._result(turn, ActStatus.APPLIED, seat.seat)
        self._after_commit(row, turn.game)
        return result

    def pause(self, game_id: int, by_user: int, force: bool = False) -> ActResult:
        """Stop the clock (creator, or ``force`` for a chat admin)."""
        with self._write() as s:
            row = self._get(s, game_id)
            if row.status != _ACTIVE:
                raise WrongState("the game is not running", "not_active")
            if by_user != row.creator_id and not force:
                raise NotAllowed("only the creator pauses the game", "not_creator")
            turn = self._start_turn(s, row)
            remaining = None
            if row.deadline is not None:
                remaining = max(int((row.deadline - turn.now).total_seconds()), 60)
            row.paused_remaining = remaining
            row.status = _PAUSED
            turn.clear_clock()
            turn.notify(Kind.PAUSED, {"by": by_user, "remaining": remaining})
            self._finish_turn(turn, moved=False)
            result = self._result(turn, ActStatus.APPLIED, None)
        self._after_commit(row, turn.game)
        return result

    def resume(self, game_id: int, by_user: int, force: bool = False) -> ActResult:
        """Restart the clock with the time that was left when paused."""
        with self._write() as s:
            row = self._get(s, game_id)
            if row.status != _PAUSED:
                raise WrongState("the game is not paused", "not_paused")
            if by_user != row.creator_id and not force:
                raise NotAllowed("only the creator resumes the game", "not_creator")
            turn = self._start_turn(s, row)
            row.status = _ACTIVE
            remaining = row.paused_remaining or row.turn_timeout
            row.paused_remaining = None
            row.deadline = turn.now + timedelta(seconds=remaining)
            turn.before_to_act = ()  # everyone waiting gets fresh reminders
            turn.set_clock(moved=False)
            turn.notify(Kind.RESUMED, {"by": by_user, "deadline": row.deadline.isoformat()})
            turn.emit_play_notifications(announce=True)
            self._bump(s, row)
            self._store_notes(s, turn.notes)
            result = self._result(turn, ActStatus.APPLIED, None)
        self._after_commit(row, turn.game)
        return result

    def set_meta(self, game_id: int, key: str, value: Any) -> None:
        """Store a front end's own value on the game (e.g. the board message id); no version
        change, no notification."""
        with self._write() as s:
            row = self._get(s, game_id)
            row.meta = {**row.meta, key: value}

    def _after_commit(self, row: GameRow, game: Game) -> None:
        assert row.id is not None
        if row.status in (_ACTIVE, _PAUSED):
            self._remember(row.id, row.version, game)
        self._fire_listeners([row])

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
        with self.db.read() as s:
            version = s.exec(select(GameRow.version).where(GameRow.id == game_id)).first()
            if version is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            return version

    # ================================================================== time

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

    # ================================================================== reading

    def game_info(self, game_id: int) -> GameInfo:
        with self.db.read() as s:
            row = s.get(GameRow, game_id)
            if row is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            return self._info(s, row)

    def _info(self, s: Session, row: GameRow) -> GameInfo:
        assert row.id is not None
        seats = sorted(self._seats(s, row.id).values(), key=lambda r: r.seat)
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
        )

    def games_in_chat(self, chat_id: int, open_only: bool = True) -> list[GameInfo]:
        """The chat's games, newest first (only lobby / active / paused by default)."""
        with self.db.read() as s:
            stmt = select(GameRow).where(GameRow.chat_id == chat_id)
            if open_only:
                stmt = stmt.where(GameRow.status.in_(_OPEN))  # type: ignore[attr-defined]
            rows = s.exec(stmt.order_by(GameRow.id.desc())).all()  # type: ignore[union-attr]
            return [self._info(s, r) for r in rows]

    def games_of_user(self, user_id: int, open_only: bool = True) -> list[GameInfo]:
        with self.db.read() as s:
            stmt = (
                select(GameRow)
                .join(SeatRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(SeatRow.user_id == user_id)
            )
            if open_only:
                stmt = stmt.where(GameRow.status.in_(_OPEN))  # type: ignore[attr-defined]
            rows = s.exec(stmt.order_by(GameRow.id.desc())).all()  # type: ignore[union-attr]
            return [self._info(s, r) for r in rows]

    def _read_game(self, s: Session, game_id: int) -> tuple[GameRow, Game | None]:
        row = s.get(GameRow, game_id)
        if row is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        if row.state is None:
            return row, None
        # Not from the cache: an act() in another thread may be changing that object now.
        return row, Game.from_json(row.state)

    def seat_view(self, game_id: int, user_id: int) -> SeatView:
        """The user's private view, legal actions and deadline. Raises :class:`NotFound`
        (``game_not_found``), :class:`NotAllowed` (``not_seated``) or :class:`WrongState`
        (``not_started``)."""
        with self.db.read() as s:
            row, game = self._read_game(s, game_id)
            seat = self._seat_row(s, game_id, user_id)
            if seat is None:
                raise NotAllowed("not seated", "not_seated")
            if game is None:
                raise WrongState("not started", "not_started")
            active = row.status == _ACTIVE
            legal = [a.text for a in game.legal_actions(seat.seat)] if active else []
            return SeatView(
                game=self._info(s, row),
                seat=seat.seat,
                view=game.view(seat.seat),
                legal=legal,
                to_act=active and seat.seat in game.to_act,
                deadline=row.deadline,
            )

    def board(self, game_id: int) -> BoardView:
        """The public view for the group (``view`` None while in the lobby)."""
        with self.db.read() as s:
            row, game = self._read_game(s, game_id)
            return BoardView(
                game=self._info(s, row),
                view=None if game is None else game.view(None),
                deadline=row.deadline,
            )

    def why_illegal(self, game_id: int, user_id: int, action_text: str) -> str | None:
        """None if the user's seat may take the action now, else the engine's reason code
        (``follow_suit``, ``trump_lead``, ``not_your_turn``, ``invalid`` …)."""
        with self.db.read() as s:
            row, game = self._read_game(s, game_id)
            seat = self._seat_row(s, game_id, user_id)
            if seat is None:
                return "not_seated"
            if game is None or row.status != _ACTIVE:
                return "not_active"
            try:
                err = game.why_illegal(seat.seat, action_text)
            except InvalidAction:
                return "invalid"
            return None if err is None else err.reason

    def action_log(self, game_id: int) -> list[dict[str, Any]]:
        """The logged moves in order: seq, seat, action, actor, user_id, version, at."""
        with self.db.read() as s:
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
        with self.db.read() as s:
            row = s.get(GameRow, game_id)
            if row is None:
                raise NotFound(f"no game {game_id}", "game_not_found")
            if row.state is None:
                raise WrongState("not started", "not_started")
            rules, players, seed = Rules.from_dict(row.rules), row.players, _seed(row.seed)
        log = [(e["seat"], e["action"]) for e in self.action_log(game_id)]
        return Game.replay(rules, players, seed, log)

    def snapshot(self, game_id: int) -> Game | None:
        """The stored engine state (None in the lobby)."""
        with self.db.read() as s:
            return self._read_game(s, game_id)[1]

    def user_stats(self, user_id: int) -> UserStats:
        """Games played, finished and won, points, moves played for them automatically."""
        with self.db.read() as s:
            rows = s.exec(
                select(SeatRow, GameRow)
                .join(GameRow, SeatRow.game_id == GameRow.id)  # type: ignore[arg-type]
                .where(SeatRow.user_id == user_id)
            ).all()
        games = finished = wins = total = auto = 0
        for seat, game in rows:
            if game.status == _LOBBY:
                continue
            games += 1
            auto += seat.auto_moves
            if game.status == GameStatus.FINISHED.value and game.result:
                finished += 1
                total += game.result["scores"][seat.seat]
                if seat.seat in game.result["winners"]:
                    wins += 1
        return UserStats(user_id, games, finished, wins, total, auto)

    # ================================================================== outbox

    def pending_notifications(
        self, limit: int = 100, game_id: int | None = None
    ) -> list[Notification]:
        """Undelivered notifications, oldest first (what a front end still owes)."""
        with self.db.read() as s:
            stmt = select(NotificationRow).where(
                NotificationRow.delivered_at.is_(None)  # type: ignore[union-attr]
            )
            if game_id is not None:
                stmt = stmt.where(NotificationRow.game_id == game_id)
            rows = s.exec(
                stmt.order_by(NotificationRow.id).limit(limit)  # type: ignore[arg-type]
            ).all()
            return [_to_record(r) for r in rows]

    def mark_delivered(self, ids: Iterable[int]) -> int:
        """Mark notifications delivered (idempotent); returns how many were pending."""
        wanted = list(ids)
        if not wanted:
            return 0
        with self._write() as s:
            result = s.execute(
                sa.update(NotificationRow)
                .where(
                    NotificationRow.id.in_(wanted),  # type: ignore[union-attr]
                    NotificationRow.delivered_at.is_(None),  # type: ignore[union-attr]
                )
                .values(delivered_at=self.clock.now())
                .execution_options(synchronize_session=False)
            )
            return int(result.rowcount)  # type: ignore[attr-defined]


    def purge_notifications(self, older_than: timedelta = timedelta(days=7)) -> int:
        """Delete delivered (or superseded) notifications older than ``older_than``; pending
        ones are kept however old. Returns how many were deleted."""
        cutoff = self.clock.now() - older_than
        with self._write() as s:
            result = s.execute(
                sa.delete(NotificationRow)
                .where(
                    NotificationRow.delivered_at.is_not(None),  # type: ignore[union-attr]
                    NotificationRow.created_at < cutoff,  # type: ignore[arg-type]
                )
                .execution_options(synchronize_session=False)
            )
            return int(result.rowcount)  # type: ignore[attr-defined]


# ====================================================================== helpers


def _seed(text: str) -> int | str:
    return int(text) if text.isdigit() else text


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
    return SeatInfo(r.seat, r.user_id, r.name, r.is_bot, r.standin, r.timeouts, r.auto_moves)


def _user_info(u: UserRow) -> UserInfo:
    return UserInfo(u.id, u.name, u.locale, u.can_pm, u.timezone, u.quiet_start, u.quiet_end)


def _chat_info(c: ChatRow) -> ChatInfo:
    return ChatInfo(c.id, c.title, c.locale, dict(c.settings))
