"""What happened: past-tense records returned by :meth:`engine.Game.apply`.

Every event holds only public information, so a front end may show any of them to the whole
table: a swap, a card passed (``pass_cards``) or a card going face-down into a plot is
reported without the card. Events are immutable named tuples (cheap to build on the hot
path); :func:`event_to_dict` gives a JSON-ready form with a ``type`` key.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, NamedTuple

from engine.cards import Card, Suit


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
