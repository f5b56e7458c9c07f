"""What each kind of notification carries, typed: one frozen dataclass per
:class:`~kolkhoz_tg.service.records.Kind`, with its JSON codec.

The outbox stores a notification's payload as JSON (``notifications.data``): it is encoded
where the row is written (:meth:`Payload.to_json`) and decoded where it is read
(:func:`decode`), and nowhere else. The JSON keys are the ones the outbox has always
stored, so rows written before these types existed decode as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar

from engine import Card, Event
from engine.cards import Suit
from engine.events import event_from_dict, event_to_dict
from engine.summary import ClosingTrick
from engine.views import TrickView, View
from kolkhoz_tg.service.jsontypes import JsonObject
from kolkhoz_tg.service.records import Kind, SeatInfo
from kolkhoz_tg.storage.models import Actor, GameStatus

__all__ = [
    "Aborted",
    "BoardChanged",
    "CompletedJob",
    "GameHeader",
    "GameOver",
    "GameStarted",
    "LoggedMove",
    "NewHand",
    "NewLobby",
    "Paused",
    "Payload",
    "PlayerBack",
    "Reminder",
    "Resumed",
    "StandIn",
    "TableRow",
    "TimeExtended",
    "TimedOut",
    "TookBack",
    "YearSummary",
    "YourTurn",
    "decode",
]


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _time_text(when: datetime | None) -> str | None:
    return None if when is None else when.isoformat()


def _seat_info(data: JsonObject) -> SeatInfo:
    return SeatInfo(
        seat=data["seat"], user_id=data["user_id"], name=data["name"], is_ai=data["is_bot"],
        standin=data["standin"], timeouts=data["timeouts"], auto_moves=data["auto_moves"],
        level=data.get("level"),
    )


@dataclass(frozen=True, slots=True)
class GameHeader:
    """A game's names and seat flags as a notification carries them (the essentials of
    :class:`~kolkhoz_tg.service.records.GameInfo`, taken when the change was made)."""

    id: int
    chat_id: int
    status: GameStatus
    preset: str | None
    players: int
    version: int
    turn_timeout: int
    seats: tuple[SeatInfo, ...]

    @property
    def names(self) -> list[str]:
        by_seat = {s.seat: s.name for s in self.seats}
        return [by_seat.get(i, "") for i in range(self.players)]

    def to_json(self) -> JsonObject:
        return {
            "id": self.id, "chat_id": self.chat_id, "status": self.status.value,
            "preset": self.preset, "players": self.players, "version": self.version,
            "turn_timeout": self.turn_timeout, "seats": [s.to_dict() for s in self.seats],
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> GameHeader:
        return cls(
            id=data["id"], chat_id=data["chat_id"], status=GameStatus(data["status"]),
            preset=data.get("preset"), players=data["players"], version=data["version"],
            turn_timeout=data["turn_timeout"],
            seats=tuple(_seat_info(s) for s in data.get("seats", [])),
        )


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move of a change as the group may see it: who, what, how, and its events."""

    seat: int
    action: str
    actor: Actor
    events: tuple[Event, ...]

    def to_json(self) -> JsonObject:
        return {"seat": self.seat, "action": self.action, "actor": self.actor.value,
                "events": [event_to_dict(e) for e in self.events]}

    @classmethod
    def from_json(cls, data: JsonObject) -> LoggedMove:
        return cls(seat=data["seat"], action=data["action"], actor=Actor(data["actor"]),
                   events=tuple(event_from_dict(e) for e in data["events"]))


class Payload:
    """The base of every payload: the kind it belongs to and its JSON codec."""

    __slots__ = ()
    kind: ClassVar[Kind]

    def to_json(self) -> JsonObject:
        raise NotImplementedError

    @classmethod
    def from_json(cls, data: JsonObject) -> Payload:
        raise NotImplementedError


def _public_view(data: JsonObject | None) -> View | None:
    return None if data is None else View.from_dict(data)


@dataclass(frozen=True, slots=True)
class GameStarted(Payload):
    """The lobby closed and the cards are dealt (for the group)."""

    kind: ClassVar[Kind] = Kind.GAME_STARTED
    game: GameHeader
    view: View

    def to_json(self) -> JsonObject:
        return {"game": self.game.to_json(), "view": self.view.to_dict()}

    @classmethod
    def from_json(cls, data: JsonObject) -> GameStarted:
        return cls(GameHeader.from_json(data["game"]), View.from_dict(data["view"]))


@dataclass(frozen=True, slots=True)
class BoardChanged(Payload):
    """Moves were made (for the group): the moves, the public view after them, the game
    and its deadline then."""

    kind: ClassVar[Kind] = Kind.BOARD
    moves: tuple[LoggedMove, ...]
    view: View
    game: GameHeader
    deadline: datetime | None

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(e for m in self.moves for e in m.events)

    def to_json(self) -> JsonObject:
        return {"moves": [m.to_json() for m in self.moves], "view": self.view.to_dict(),
                "game": self.game.to_json(), "deadline": _time_text(self.deadline)}

    @classmethod
    def from_json(cls, data: JsonObject) -> BoardChanged:
        return cls(
            moves=tuple(LoggedMove.from_json(m) for m in data.get("moves", [])),
            view=View.from_dict(data["view"]), game=GameHeader.from_json(data["game"]),
            deadline=_time(data.get("deadline")),
        )


@dataclass(frozen=True, slots=True)
class YourTurn(Payload):
    """A player must decide (for that player): their view, legal actions and deadline."""

    kind: ClassVar[Kind] = Kind.YOUR_TURN
    view: View
    legal: tuple[str, ...]
    deadline: datetime | None
    game: GameHeader

    def to_json(self) -> JsonObject:
        return {"view": self.view.to_dict(), "legal": list(self.legal),
                "phase": self.view.phase.value, "deadline": _time_text(self.deadline),
                "game": self.game.to_json()}

    @classmethod
    def from_json(cls, data: JsonObject) -> YourTurn:
        legal = tuple(data.get("legal", []))
        return cls(view=View.from_dict(data["view"], legal), legal=legal,
                   deadline=_time(data.get("deadline")), game=GameHeader.from_json(data["game"]))


@dataclass(frozen=True, slots=True)
class Reminder(Payload):
    """The deadline nears (for the player who must decide); ``last``: the final one."""

    kind: ClassVar[Kind] = Kind.REMINDER
    deadline: datetime | None
    last: bool
    can_pm: bool
    phase: str | None

    def to_json(self) -> JsonObject:
        return {"deadline": _time_text(self.deadline), "last": self.last,
                "can_pm": self.can_pm, "phase": self.phase}

    @classmethod
    def from_json(cls, data: JsonObject) -> Reminder:
        return cls(_time(data.get("deadline")), bool(data.get("last")),
                   bool(data.get("can_pm")), data.get("phase"))


@dataclass(frozen=True, slots=True)
class NewHand(Payload):
    """A year began and dealt the player a hand, and another decides first."""

    kind: ClassVar[Kind] = Kind.NEW_HAND
    year: int | None

    def to_json(self) -> JsonObject:
        return {"year": self.year}

    @classmethod
    def from_json(cls, data: JsonObject) -> NewHand:
        return cls(data.get("year"))


@dataclass(frozen=True, slots=True)
class TimedOut(Payload):
    """The deadline passed and these actions were played for the player."""

    kind: ClassVar[Kind] = Kind.TIMED_OUT
    actions: tuple[str, ...]
    timeouts: int
    standin_after: int

    def to_json(self) -> JsonObject:
        return {"actions": list(self.actions), "timeouts": self.timeouts,
                "standin_after": self.standin_after}

    @classmethod
    def from_json(cls, data: JsonObject) -> TimedOut:
        return cls(tuple(data.get("actions", [])), data.get("timeouts", 0),
                   data.get("standin_after", 0))


@dataclass(frozen=True, slots=True)
class StandIn(Payload):
    """An AI player now plays the seat (``away``: its player said so with ``/away``)."""

    kind: ClassVar[Kind] = Kind.STAND_IN
    timeouts: int
    name: str
    away: bool = False

    def to_json(self) -> JsonObject:
        out: JsonObject = {"timeouts": self.timeouts, "name": self.name}
        if self.away:
            out["away"] = True
        return out

    @classmethod
    def from_json(cls, data: JsonObject) -> StandIn:
        return cls(data.get("timeouts", 0), data.get("name", ""), bool(data.get("away")))


@dataclass(frozen=True, slots=True)
class PlayerBack(Payload):
    """The player took their seat back from the stand-in."""

    kind: ClassVar[Kind] = Kind.PLAYER_BACK
    name: str

    def to_json(self) -> JsonObject:
        return {"name": self.name}

    @classmethod
    def from_json(cls, data: JsonObject) -> PlayerBack:
        return cls(data.get("name", ""))


@dataclass(frozen=True, slots=True)
class TookBack(Payload):
    """A player took back the card they had just played (the card is not named: it is
    back in their hand)."""

    kind: ClassVar[Kind] = Kind.TOOK_BACK
    name: str

    def to_json(self) -> JsonObject:
        return {"name": self.name}

    @classmethod
    def from_json(cls, data: JsonObject) -> TookBack:
        return cls(data.get("name", ""))


@dataclass(frozen=True, slots=True)
class CompletedJob:
    """A job completed this year and the Brigadier who completed it."""

    job: Suit
    seat: int


def _card_or_none(text: str | None) -> Card | None:
    return None if text is None else Card.parse(text)


def _closing_from_json(data: JsonObject) -> ClosingTrick:
    """The engine's :class:`~engine.summary.ClosingTrick` from its JSON form
    (:meth:`~engine.summary.ClosingTrick.to_dict`)."""
    return ClosingTrick(
        winner=data["winner"],
        cards=tuple((s, Card.parse(c)) for s, c in data["cards"]),
        jobs=tuple(None if j is None else Suit[j] for j in data["jobs"]),
        earlier=tuple(
            TrickView(tuple((s, _card_or_none(c)) for s, c in t["cards"]), t["winner"])
            for t in data.get("earlier", [])
        ),
    )


@dataclass(frozen=True, slots=True)
class YearSummary(Payload):
    """A year ended (for the group): the jobs completed, its closing events, the medals."""

    kind: ClassVar[Kind] = Kind.YEAR_SUMMARY
    year: int
    completed: tuple[CompletedJob, ...]
    events: tuple[Event, ...]
    medals: tuple[int, ...]
    theme: str
    game: GameHeader
    last_trick: ClosingTrick | None

    def to_json(self) -> JsonObject:
        return {
            "year": self.year,
            "completed": [{"job": c.job.letter, "seat": c.seat} for c in self.completed],
            "events": [event_to_dict(e) for e in self.events],
            "medals": list(self.medals),
            "theme": self.theme,
            "game": self.game.to_json(),
            "last_trick": None if self.last_trick is None else self.last_trick.to_dict(),
        }

    @classmethod
    def from_json(cls, data: JsonObject) -> YearSummary:
        last = data.get("last_trick")
        return cls(
            year=data["year"],
            completed=tuple(CompletedJob(Suit[c["job"]], c["seat"])
                            for c in data.get("completed", [])),
            events=tuple(event_from_dict(e) for e in data.get("events", [])),
            medals=tuple(data.get("medals", [])),
            theme=data.get("theme", ""),
            game=GameHeader.from_json(data["game"]),
            last_trick=None if last is None else _closing_from_json(last),
        )


@dataclass(frozen=True, slots=True)
class TableRow:
    """One line of the final table, by rank (equal scores share a rank)."""

    rank: int
    seat: int
    name: str
    user_id: int | None
    is_ai: bool
    score: int
    plot: tuple[Card, ...]
    medals: int
    auto_moves: int

    def to_json(self) -> JsonObject:
        return {"rank": self.rank, "seat": self.seat, "name": self.name,
                "user_id": self.user_id, "is_bot": self.is_ai, "score": self.score,
                "plot": [str(c) for c in self.plot], "medals": self.medals,
                "auto_moves": self.auto_moves}

    @classmethod
    def from_json(cls, data: JsonObject) -> TableRow:
        return cls(
            rank=data["rank"], seat=data["seat"], name=data["name"],
            user_id=data.get("user_id"), is_ai=bool(data.get("is_bot")), score=data["score"],
            plot=tuple(Card.parse(c) for c in data.get("plot", [])),
            medals=data.get("medals", 0), auto_moves=data.get("auto_moves", 0),
        )


@dataclass(frozen=True, slots=True)
class GameOver(Payload):
    """The game ended (for the group): the final table, the winners' seats, whether the
    deck ran dry early, and the years played."""

    kind: ClassVar[Kind] = Kind.GAME_OVER
    table: tuple[TableRow, ...]
    winners: tuple[int, ...]
    early: bool
    years: int

    def to_json(self) -> JsonObject:
        return {"table": [r.to_json() for r in self.table], "winners": list(self.winners),
                "early": self.early, "years": self.years}

    @classmethod
    def from_json(cls, data: JsonObject) -> GameOver:
        return cls(tuple(TableRow.from_json(r) for r in data.get("table", [])),
                   tuple(data.get("winners", [])), bool(data.get("early")),
                   data.get("years", 0))


@dataclass(frozen=True, slots=True)
class Paused(Payload):
    """The game was paused by ``by`` with ``remaining`` seconds of the turn left."""

    kind: ClassVar[Kind] = Kind.PAUSED
    by: int | None
    remaining: int | None

    def to_json(self) -> JsonObject:
        return {"by": self.by, "remaining": self.remaining}

    @classmethod
    def from_json(cls, data: JsonObject) -> Paused:
        return cls(data.get("by"), data.get("remaining"))


@dataclass(frozen=True, slots=True)
class Resumed(Payload):
    """The game was resumed by ``by``; its deadline now."""

    kind: ClassVar[Kind] = Kind.RESUMED
    by: int | None
    deadline: datetime | None

    def to_json(self) -> JsonObject:
        return {"by": self.by, "deadline": _time_text(self.deadline)}

    @classmethod
    def from_json(cls, data: JsonObject) -> Resumed:
        return cls(data.get("by"), _time(data.get("deadline")))


@dataclass(frozen=True, slots=True)
class Aborted(Payload):
    """The game was ended by ``by`` before its end."""

    kind: ClassVar[Kind] = Kind.ABORTED
    by: int | None

    def to_json(self) -> JsonObject:
        return {"by": self.by}

    @classmethod
    def from_json(cls, data: JsonObject) -> Aborted:
        return cls(data.get("by"))


@dataclass(frozen=True, slots=True)
class NewLobby(Payload):
    """A lobby opened in a chat the reader asked to hear of (``/notify on``); ``locale``:
    the reader's language when it was written (they hold no seat, so the scene has none)."""

    kind: ClassVar[Kind] = Kind.NEW_LOBBY
    locale: str | None

    def to_json(self) -> JsonObject:
        return {"locale": self.locale}

    @classmethod
    def from_json(cls, data: JsonObject) -> NewLobby:
        return cls(data.get("locale"))


@dataclass(frozen=True, slots=True)
class TimeExtended(Payload):
    """The bot could not reach ``names`` (their turn's message went out late, or the bot
    was down), so their time was extended: the deadline is now ``deadline``."""

    kind: ClassVar[Kind] = Kind.TIME_EXTENDED
    names: tuple[str, ...]
    deadline: datetime | None

    def to_json(self) -> JsonObject:
        return {"names": list(self.names), "deadline": _time_text(self.deadline)}

    @classmethod
    def from_json(cls, data: JsonObject) -> TimeExtended:
        return cls(tuple(data.get("names") or ()), _time(data.get("deadline")))


_BY_KIND: dict[Kind, type[Payload]] = {
    p.kind: p
    for p in (GameStarted, BoardChanged, YourTurn, Reminder, NewHand, TimedOut, StandIn,
              PlayerBack, YearSummary, GameOver, Paused, Resumed, Aborted, NewLobby,
              TimeExtended)
}
_BY_KIND[Kind.TOOK_BACK] = TookBack


def decode(kind: Kind, data: JsonObject) -> Payload:
    """The payload of an outbox row of ``kind`` from its stored JSON."""
    return _BY_KIND[kind].from_json(data)
