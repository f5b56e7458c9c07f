"""What happened: past-tense records returned by :meth:`engine.Game.apply`.

Every event holds only public information, so a front end may show any of them to the whole
table: a swap, a card passed (``pass_cards``) or a card going face-down into a plot is
reported without the card. Events are immutable named tuples (cheap to build on the hot
path); :func:`event_to_dict` gives a JSON-ready form with a ``type`` key, and
:func:`event_from_dict` reads it back (``event_from_dict(event_to_dict(e)) == e``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, Final, NamedTuple, get_type_hints

from engine.cards import CARDS, Card, Suit, parse_card


class YearStarted(NamedTuple):
    year: int
    planner: int
    hand_size: int
    lean: bool
    famine: bool
    revealed: tuple[Card, ...]  # reward cards turned up this year, one per pile at most
    short: bool = False  # the last year's supply disruption (final_year_short)


class TrumpDeclared(NamedTuple):
    seat: int
    suit: Suit


class PassChosen(NamedTuple):
    """``pass_cards``: ``seat`` chose the card it passes (which card stays private)."""

    seat: int


class CardsPassed(NamedTuple):
    """``pass_cards``: every chosen card moved at once, one card to each neighbour: to the
    left (seat + 1) in even years, to the right (seat - 1) in odd years. No card is named."""

    year: int
    left: bool


class SwapDecided(NamedTuple):
    seat: int
    swapped: bool  # the cards themselves stay private


class CardPlayed(NamedTuple):
    seat: int
    card: Card


class TrickWon(NamedTuple):
    seat: int  # the Brigadier of this trick; also wins a medal
    cards: tuple[Card, ...]  # in play order


class CardAssigned(NamedTuple):
    seat: int
    card: Card
    job: Suit
    hours: int  # the job's hours after this card


class JobCompleted(NamedTuple):
    job: Suit
    seat: int  # the Brigadier who completed it
    rewards: tuple[Card, ...]  # reward cards taken face-up (reward = brigadier)
    stack_top: Card | None  # reward = stack: the face-up top card of the stack taken
    stack_size: int


class CardsToPlot(NamedTuple):
    """Every player's last card went face-down into their plot."""

    year: int


class HeroNamed(NamedTuple):
    """``hero`` (house rule): ``seat`` won every trick of the year, so is searched for no
    failed job this year, and everyone else is (each losing their own highest card)."""

    year: int
    seat: int


class MiceRuleApplied(NamedTuple):
    """All four jobs failed and nobody was exposed: this year's requisition follows the whole
    mice rule (everyone exposed, the highest matching card revealed and lost)."""

    year: int


class JobFailed(NamedTuple):
    job: Suit
    hours: int


class DrunkardSentNorth(NamedTuple):
    job: Suit
    card: Card  # the trump Jack, taken from the job's workers


class CardsRevealed(NamedTuple):
    seat: int
    job: Suit
    cards: tuple[Card, ...]  # newly turned face-up in the seat's plot


class CardSentNorth(NamedTuple):
    seat: int
    job: Suit
    card: Card


class NothingRequisitioned(NamedTuple):
    """A failed job cost nobody a card (nobody exposed held a matching card)."""

    job: Suit


class StacksReturned(NamedTuple):
    seat: int
    returned: int  # face-down stack cards back to the deck; the top card stays


class YearEnded(NamedTuple):
    year: int


class GameOver(NamedTuple):
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    early: bool  # the deck ran dry before the last year


Event = (
    YearStarted | TrumpDeclared | PassChosen | CardsPassed | SwapDecided | CardPlayed | TrickWon
    | CardAssigned | JobCompleted | CardsToPlot | HeroNamed | MiceRuleApplied | JobFailed
    | DrunkardSentNorth | CardsRevealed | CardSentNorth | NothingRequisitioned | StacksReturned
    | YearEnded | GameOver
)


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Suit):
        return value.letter
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """JSON-ready form: ``{"type": "CardPlayed", "seat": 2, "card": "10H"}``."""
    out: dict[str, Any] = {"type": type(event).__name__}
    for key, value in event._asdict().items():
        out[key] = _plain(value)
    return out


def _card(value: Any) -> Card:
    if not isinstance(value, str):
        raise ValueError(f"not a card: {value!r}")
    return CARDS[parse_card(value)]


def _suit(value: Any) -> Suit:
    if not isinstance(value, str):
        raise ValueError(f"not a suit: {value!r}")
    return Suit.parse(value)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise ValueError(f"not a whole number: {value!r}")
    return value


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise ValueError(f"not true or false: {value!r}")
    return value


def _many(read: Callable[[Any], Any]) -> Callable[[Any], tuple[Any, ...]]:
    def many(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, list | tuple):
            raise ValueError(f"not a list: {value!r}")
        return tuple(read(v) for v in value)
    return many


def _optional(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


_READERS: Final[dict[Any, Callable[[Any], Any]]] = {
    int: _int,
    bool: _bool,
    Card: _card,
    Suit: _suit,
    tuple[Card, ...]: _many(_card),
    tuple[int, ...]: _many(_int),
    Card | None: _optional(_card),
}

#: Every event type by name, with a reader per field (from the field's annotation).
_EVENTS: Final[dict[str, tuple[type[Any], dict[str, Callable[[Any], Any]]]]] = {
    cls.__name__: (cls, {name: _READERS[hint] for name, hint in get_type_hints(cls).items()})
    for cls in Event.__args__
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """The event of a JSON form made by :func:`event_to_dict` (a field with a default may be
    missing: an event stored before the field existed). Raises :class:`ValueError` for
    anything else: an unknown type, a missing or unknown field, a value of the wrong kind."""
    if not isinstance(data, dict):
        raise ValueError(f"not an event: {data!r}")
    kind = data.get("type")
    if kind not in _EVENTS:
        raise ValueError(f"not an event type: {kind!r}")
    cls, readers = _EVENTS[kind]
    unknown = set(data) - set(readers) - {"type"}
    if unknown:
        raise ValueError(f"{kind} has no field {sorted(unknown)[0]!r}")
    values: dict[str, Any] = {}
    for name, read in readers.items():
        if name in data:
            values[name] = read(data[name])
        elif name not in cls._field_defaults:
            raise ValueError(f"{kind} without {name!r}")
    event: Event = cls(**values)
    return event
