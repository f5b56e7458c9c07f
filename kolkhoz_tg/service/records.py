"""Plain data the service returns: frozen dataclasses of ints, strings, engine views,
enums and datetimes (JSON only at the database and outbox edge: :meth:`GameResult.from_json`).

Nothing here refers to Telegram; a front end renders these records in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from engine import Event, Rules
from kolkhoz_tg.service.jsontypes import JsonObject

if TYPE_CHECKING:  # the health check imports these records without the database's libraries
    from engine.views import View
    from kolkhoz_tg.service.payloads import Payload
    from kolkhoz_tg.storage.models import GameStatus


class Kind(StrEnum):
    """What a :class:`Notification` reports, and to whom (``user_id`` None: the group chat);
    what each kind carries is its payload class in :mod:`kolkhoz_tg.service.payloads`."""

    LOBBY = "lobby"  # reserved: lobby calls return GameInfo directly (not emitted)
    GAME_STARTED = "game_started"  # chat
    BOARD = "board"  # chat: the board changed
    YOUR_TURN = "your_turn"  # user
    REMINDER = "reminder"  # user
    #: user: a year (or the game) began and dealt them a fresh hand, and they are not the
    #: one to decide first; a player who must decide gets YOUR_TURN instead (a seat an AI
    #: player stands in for gets NEW_HAND).
    NEW_HAND = "new_hand"
    TIMED_OUT = "timed_out"  # user
    STAND_IN = "stand_in"  # user and chat: an AI player now plays the seat
    PLAYER_BACK = "player_back"  # chat: the player took their seat back
    YEAR_SUMMARY = "year_summary"  # chat
    GAME_OVER = "game_over"  # chat
    PAUSED = "paused"  # chat
    RESUMED = "resumed"  # chat
    ABORTED = "aborted"  # chat
    TOOK_BACK = "took_back"  # chat: a player took back the card they had just played
    #: user: a lobby opened in a chat they asked to hear of (``/notify on``)
    NEW_LOBBY = "new_lobby"
    #: chat: the bot could not reach these players (their turn's message did not go out, or
    #: the bot was down), so their time was extended
    TIME_EXTENDED = "time_extended"


@dataclass(frozen=True, slots=True)
class Notification:
    """One thing a front end must tell someone. Stored in the outbox in the same transaction
    as the change it reports; :meth:`~kolkhoz_tg.service.GameService.mark_delivered` it once
    shown. ``payload``: what it carries, typed (stored as JSON in the outbox, decoded where
    the row is read)."""

    id: int
    kind: Kind
    game_id: int | None
    chat_id: int | None
    user_id: int | None
    seat: int | None
    version: int
    payload: Payload
    created_at: datetime
    #: The sends of it that may have reached Telegram already (see
    #: :meth:`~kolkhoz_tg.service.outbox.OutboxService.mark_sending`); 0: none began.
    sending: int = 0

    @property
    def for_group(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    user_id: int | None
    name: str
    #: A computer player's seat (stored as ``seats.is_bot``).
    is_ai: bool
    standin: bool
    timeouts: int
    auto_moves: int
    #: A computer player's level (``engine.ai.LEVELS``; None: ``normal``, a seat from before
    #: levels); None for players.
    level: str | None = None

    def to_dict(self) -> JsonObject:
        return {
            "seat": self.seat,
            "user_id": self.user_id,
            "name": self.name,
            "is_bot": self.is_ai,
            "level": self.level,
            "standin": self.standin,
            "timeouts": self.timeouts,
            "auto_moves": self.auto_moves,
        }


#: ``games.meta`` key of a practice game (one player against bots in a private chat, no
#: clock, not rated: :mod:`kolkhoz_tg.service.practice`). The one meta key the core reads.
PRACTICE_KEY = "practice"
#: ``games.meta`` key of a rematch lobby (:meth:`LobbyService.rematch`): the game it
#: follows (``of``), the seats kept for that game's players who have not answered yet
#: (``invited``: [seat, user id, name]) and until when (``until``, ISO UTC); the core
#: reads it in the lobby. On the finished game, :data:`REMATCHED_KEY`: the rematch's id.
REMATCH_KEY = "rematch"
REMATCHED_KEY = "rematched"


def meta_as_of(meta: JsonObject, now: datetime) -> JsonObject:
    """A copy of a game's meta as its readers should see it at ``now``: a rematch lobby's
    invitations are dropped once the time for answers ran out (the seats are free then; a
    late answer still takes its old seat, which the lobby reads from the stored meta)."""
    data = meta.get(REMATCH_KEY)
    until = data.get("until") if isinstance(data, dict) else None
    if isinstance(data, dict) and data.get("invited") and (
            not isinstance(until, str) or datetime.fromisoformat(until) <= now):
        return {**meta, REMATCH_KEY: {**data, "invited": []}}
    return dict(meta)


@dataclass(frozen=True, slots=True)
class Invitation:
    """A seat of a rematch lobby kept for a player of the game before until they answer."""

    seat: int
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game's outcome as ``games.result`` stores it: ``scores`` by seat, the
    ``winners`` (seats), whether it ended ``early``, every seat's ``plots`` turned face up by
    the scoring (card texts; None in rows from before they were kept) and ``last_jobs``,
    where each card of the year's last trick went (card text -> job letter; None: not
    stored)."""

    scores: list[int]
    winners: list[int]
    early: bool | None = None
    plots: list[list[str]] | None = None
    last_jobs: dict[str, str] | None = None

    @classmethod
    def from_json(cls, data: JsonObject) -> GameResult:
        """The stored JSON (``games.result``) as a record."""
        plots = data.get("plots")
        last_jobs = data.get("last_jobs")
        return cls(
            scores=list(data.get("scores") or []),
            winners=list(data.get("winners") or []),
            early=data.get("early"),
            plots=None if plots is None else [list(p) for p in plots],
            last_jobs=None if last_jobs is None else dict(last_jobs),
        )

    def to_json(self) -> JsonObject:
        """The JSON :meth:`from_json` reads, with the keys the row had."""
        out: JsonObject = {"scores": list(self.scores), "winners": list(self.winners)}
        if self.early is not None:
            out["early"] = self.early
        if self.plots is not None:
            out["plots"] = [list(p) for p in self.plots]
        if self.last_jobs is not None:
            out["last_jobs"] = dict(self.last_jobs)
        return out


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game's header: lobby state, seats, settings and clock (no cards)."""

    id: int
    chat_id: int
    creator_id: int | None
    status: GameStatus
    preset: str | None
    rules: Rules
    players: int
    seed: str
    version: int
    turn_timeout: int  # seconds
    reminders: list[str]
    standin_after: int
    seats: list[SeatInfo]
    deadline: datetime | None
    paused_remaining: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    #: What the front end keeps on the game (its board message's id, its players' message
    #: ids, the practice flag, ...): keys the front end owns and the service never reads but
    #: for :data:`PRACTICE_KEY`, so JSON as stored (:meth:`GameService.set_meta`).
    meta: JsonObject = field(default_factory=dict)
    #: A finished game's outcome (None until it finished).
    result: GameResult | None = None
    #: The forum topic the game lives in (None: no topic, or the forum's "General").
    topic_id: int | None = None

    def seat_of(self, user_id: int) -> int | None:
        for s in self.seats:
            if s.user_id == user_id:
                return s.seat
        return None

    @property
    def practice(self) -> bool:
        """Whether this is a practice game (:data:`PRACTICE_KEY`)."""
        return bool(self.meta.get(PRACTICE_KEY))

    @property
    def invitations(self) -> tuple[Invitation, ...]:
        """A rematch lobby's seats kept for players who have not answered yet."""
        data = self.meta.get(REMATCH_KEY)
        if not isinstance(data, dict):
            return ()
        return tuple(Invitation(int(s), int(u), str(n)) for s, u, n in data.get("invited", []))

    @property
    def answers_until(self) -> datetime | None:
        """Until when a rematch lobby keeps the seats of :attr:`invitations`."""
        data = self.meta.get(REMATCH_KEY)
        until = data.get("until") if isinstance(data, dict) else None
        return datetime.fromisoformat(until) if isinstance(until, str) else None

    @property
    def free_seats(self) -> list[int]:
        taken = {s.seat for s in self.seats}
        return [i for i in range(self.players) if i not in taken]

    @property
    def names(self) -> list[str]:
        by_seat = {s.seat: s.name for s in self.seats}
        return [by_seat.get(i, "") for i in range(self.players)]

    def to_dict(self) -> JsonObject:
        return {
            "id": self.id,
            "chat_id": self.chat_id,
            "creator_id": self.creator_id,
            "status": self.status.value,
            "preset": self.preset,
            "rules": self.rules.to_dict(),
            "players": self.players,
            "version": self.version,
            "turn_timeout": self.turn_timeout,
            "reminders": list(self.reminders),
            "standin_after": self.standin_after,
            "seats": [s.to_dict() for s in self.seats],
            "deadline": None if self.deadline is None else self.deadline.isoformat(),
            "paused_remaining": self.paused_remaining,
            "result": None if self.result is None else self.result.to_json(),
        }


@dataclass(frozen=True, slots=True)
class Premove:
    """A player's moves queued ahead, as only they may see them: what is queued now, what
    the change that brought their turn did with it, and whether the heuristic places their
    tricks as Brigadier ("assign for me")."""

    #: The action text queued now (None: nothing).
    queued: str | None = None
    #: The queued actions this change played for them (when their turn came).
    played: tuple[str, ...] = ()
    #: The queued action this change dropped (not allowed when their turn came), and why
    #: (the engine's reason code).
    dropped: str | None = None
    reason: str | None = None
    auto_assign: bool = False
    #: The kind of action (``play``, ``swap``, ``pass``) that may be queued now, None:
    #: nothing (the game is not running, or the player decides it now).
    kind: str | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one player may see now, plus what they may do (for the private message)."""

    game: GameInfo
    seat: int
    view: View  # with ``legal``: the seat's legal actions now (none when not their turn)
    legal: list[str]  # the same legal actions as texts
    to_act: bool
    deadline: datetime | None
    #: The player may take back the card they have just played (kolkhoz_tg.service.takeback).
    can_take_back: bool = False
    #: What the player queued ahead (theirs alone to see).
    premove: Premove = Premove()
    #: The hand's cards the player may not play now, by action text (``play:10H``), with
    #: the engine's reason code (service/unplayable.py), for the disabled card buttons.
    unplayable: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BoardView:
    """What the whole group may see (for the board message)."""

    game: GameInfo
    view: View | None  # the public view; None in the lobby
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class Scene:
    """A game as its readers see it right after a change, read in the transaction that
    made the change: all a front end needs to show that change's notifications without
    asking again. ``seats``, ``locales`` and ``can_pm`` are keyed by user id (seated people
    only, not bots)."""

    game: GameInfo
    board: BoardView
    seats: dict[int, SeatView]
    locales: dict[int, str]
    can_pm: dict[int, bool]
    chat_locale: str
    chat_title: str | None
    #: Each seated person's time zone, where they set one (``/settings``).
    zones: dict[int, str] = field(default_factory=dict)
    #: How the chat shows the board: ``text`` or ``picture`` (``/settings board``).
    board_style: str = "text"

    def group_zone(self) -> str | None:
        """The time zone to show the group its deadlines in, as a bare clock time: only
        when every seated person (the keys of ``locales``) set a time zone and all of them
        read the same clock at the deadline (``Europe/Moscow`` and ``UTC+3`` do): friends
        in one town. Else None, and the group reads relative times only: a clock time in
        the zone of one player, or of some, would tell the others a wrong hour without
        their knowing whose clock it is."""
        if not self.locales or any(u not in self.zones for u in self.locales):
            return None
        zones = sorted({self.zones[u] for u in self.locales})
        if len(zones) == 1:
            return zones[0]
        when = self.board.deadline
        if when is None:
            return None
        offsets = {when.astimezone(ZoneInfo(z)).utcoffset() for z in zones}
        return zones[0] if len(offsets) == 1 else None


class ActStatus(StrEnum):
    APPLIED = "applied"  # the action was played (and maybe bots after it)
    DUPLICATE = "duplicate"  # this exact request was already applied: nothing more to do
    STALE = "stale"  # the game moved on since the version the request was based on
    ILLEGAL = "illegal"  # not allowed now (see reason: the engine's code)
    INVALID = "invalid"  # not an action at all
    NOT_SEATED = "not_seated"  # the user holds no seat in this game
    NOT_ACTIVE = "not_active"  # the game is in the lobby, paused, finished or aborted


@dataclass(frozen=True, slots=True)
class ActResult:
    """The outcome of :meth:`~kolkhoz_tg.service.GameService.act`."""

    status: ActStatus
    game_id: int
    version: int  # the game's version now
    seat: int | None = None
    reason: str | None = None  # engine reason code for ILLEGAL (follow_suit, trump_lead …)
    message: str | None = None  # English detail, for logs
    #: The engine's events of every move the change made, in order.
    events: list[Event] = field(default_factory=list)
    notifications: list[Notification] = field(default_factory=list)
    #: The game after the change, for its readers (None when nothing changed and no seat
    #: was involved: not seated, an unknown game, a malformed action).
    scene: Scene | None = None
    #: The language to answer the acting user in.
    locale: str | None = None

    @property
    def ok(self) -> bool:
        """True when the action is in the game (now or by an earlier identical request)."""
        return self.status in (ActStatus.APPLIED, ActStatus.DUPLICATE)


@dataclass(frozen=True, slots=True)
class SweepResult:
    """What the clock did to the games that were due (:meth:`GameService.sweep`,
    :meth:`GameService.process_due`)."""

    checked: int  # due games looked at
    processed: int  # games where something happened (a reminder, a timeout)
    notifications: list[Notification] = field(default_factory=list)
    #: Each game that has notifications, as the change left it, read in the transaction that
    #: made the change (as :attr:`ActResult.scene`): a front end shows them without reading
    #: the game again.
    scenes: dict[int, Scene] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class UserStats:
    user_id: int
    games: int
    finished: int
    wins: int
    total_score: int
    auto_moves: int


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's record in one chat (finished games only count for wins and points)."""

    user_id: int
    name: str
    games: int
    finished: int
    wins: int
    total_score: int
    timeouts: int  # deadlines missed (each played automatically)

    @property
    def average_score(self) -> float | None:
        return self.total_score / self.finished if self.finished else None


@dataclass(frozen=True, slots=True)
class DueJob:
    """A scheduler job the database asks for: ``kind`` is ``timeout`` or ``reminder``."""

    game_id: int
    kind: str
    at: datetime

    @property
    def job_id(self) -> str:
        return f"game:{self.game_id}:{self.kind}"


@dataclass(frozen=True, slots=True)
class RatingLine:
    """One player's rating in one chat (``chat_id`` None: over all chats). A bot level's
    pseudo-player has ``level`` set and no ``user_id``."""

    chat_id: int | None
    chat_title: str | None
    user_id: int | None
    level: str | None
    name: str
    rating: int  # ratings.display(mu, sigma)
    games: int
    wins: int
    average_place: float


@dataclass(frozen=True, slots=True)
class OperatorFigures:
    """What an operator watches, read from the database
    (:meth:`GameService.operator_figures`; :mod:`kolkhoz_tg.metrics` exports them)."""

    outbox_owed: int
    outbox_oldest_seconds: float  # 0: nothing owed
    games_active: int
    deadlines_due: int  # running games whose deadline has passed
    deadlines_late: int  # of them, more than a minute past it


@dataclass(frozen=True, slots=True)
class MyGame:
    """One of a user's open games as ``/mygames`` lists it: where it is, whose move it is
    and since when, the clock. No card: the phase and the seats to move are public."""

    game: GameInfo
    seat: int
    chat_title: str | None
    #: The name of the game's forum topic, as the bot last saw it (None: no topic, or
    #: a topic whose name the bot never saw).
    topic_name: str | None
    #: Whether it is this user's move now.
    to_act: bool
    #: The seats whose move it is now (empty unless the game is running).
    waiting: tuple[int, ...]
    #: The engine's phase (``play``, ``assign``, ``swap`` …; None in the lobby).
    phase: str | None
    #: Since when the game waits for the move(s) it waits for now (None: not running).
    since: datetime | None
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class MyGames:
    """A user's open games (:meth:`GameService.my_games`): ``mine`` where it is their move,
    the longest wait first; ``others`` where others are to move, then paused games, then
    lobbies; and what the list is shown with (their time zone; whether the bot can write
    to them)."""

    user_id: int
    zone: str | None
    can_pm: bool
    mine: list[MyGame]
    others: list[MyGame]
