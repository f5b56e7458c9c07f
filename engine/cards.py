"""Cards, suits and their text notation.

A card is a small integer internally (``suit * 13 + rank - 1``, rank 1 = Ace ... 13 = King) so the
state machine stays fast; :class:`Card` is the frozen public value type, one interned instance per
card, and converts both ways.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    """The four suits, in the order requisition visits them (♥ ♦ ♣ ♠); each suit is one job."""

    H = 0
    D = 1
    C = 2
    S = 3

    @property
    def letter(self) -> str:
        return self.name

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from a letter (``H``), a symbol (``♥``) or a Russian letter (``ч``).

        Raises :class:`ValueError` for anything else.
        """
        key = text.strip()
        for candidate in (key, key.upper(), key.lower()):
            suit = _SUIT_INPUT.get(candidate)
            if suit is not None:
                return suit
        raise ValueError(f"not a suit: {text!r}")


_SYMBOLS: Final = {Suit.H: "♥", Suit.D: "♦", Suit.C: "♣", Suit.S: "♠"}
_SUIT_INPUT: Final[dict[str, Suit]] = {
    "H": Suit.H, "D": Suit.D, "C": Suit.C, "S": Suit.S,
    "♥": Suit.H, "♦": Suit.D, "♣": Suit.C, "♠": Suit.S,
    "♡": Suit.H, "♢": Suit.D, "♧": Suit.C, "♤": Suit.S,
    # Russian suit names' first letters: червы, бубны, трефы, пики.
    "ч": Suit.H, "б": Suit.D, "т": Suit.C, "п": Suit.S,
}

SUITS: Final = (Suit.H, Suit.D, Suit.C, Suit.S)

ACE: Final = 1
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
WORKER_RANKS: Final = tuple(range(6, 14))  # 6 7 8 9 10 J Q K
REWARD_RANKS: Final = (1, 2, 3, 4, 5)  # A 2 3 4 5

_RANK_TEXT: Final = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANK_INPUT: Final[dict[str, int]] = {
    "A": 1, "J": 11, "Q": 12, "K": 13, "T": 10,
    # Russian: туз, валет, дама, король.
    "Т": 1, "В": 11, "Д": 12, "К": 13,
}
for _r in range(2, 11):
    _RANK_INPUT[str(_r)] = _r


def card_id(rank: int, suit: Suit | int) -> int:
    """The integer id of a card: ``suit * 13 + rank - 1``."""
    return int(suit) * 13 + rank - 1


def rank_of(cid: int) -> int:
    return cid % 13 + 1


def suit_of(cid: int) -> int:
    return cid // 13


def points_of(cid: int) -> int:
    """Score value: workers 6-13 by rank, rewards A-5 worth 1-5."""
    return cid % 13 + 1


def is_worker(cid: int) -> bool:
    return cid % 13 >= 5


def card_text(cid: int) -> str:
    """Canonical text: rank then suit letter (``10H``, ``JC``, ``AS``)."""
    rank = cid % 13 + 1
    return _RANK_TEXT.get(rank, str(rank)) + "HDCS"[cid // 13]


def parse_card(text: str) -> int:
    """Read one card; accepts ``10H``, ``TH``, ``10♥``, ``10ч``, ``Вп`` (any letter case).

    Raises :class:`ValueError` naming the input when it is not a card.
    """
    raw = text.strip()
    if len(raw) < 2:
        raise ValueError(f"not a card: {text!r}")
    suit_part = raw[-1]
    rank_part = raw[:-1].upper()
    try:
        suit = Suit.parse(suit_part)
    except ValueError:
        raise ValueError(f"not a card: {text!r}") from None
    rank = _RANK_INPUT.get(rank_part)
    if rank is None:
        raise ValueError(f"not a card: {text!r}")
    return card_id(rank, suit)


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card. Use :meth:`of` / :meth:`parse`; instances are interned and compare by id."""

    id: int

    @property
    def rank(self) -> int:
        return self.id % 13 + 1

    @property
    def suit(self) -> Suit:
        return SUITS[self.id // 13]

    @property
    def points(self) -> int:
        return points_of(self.id)

    @property
    def is_worker(self) -> bool:
        return is_worker(self.id)

    def __str__(self) -> str:
        return card_text(self.id)

    def pretty(self) -> str:
        """Rank and suit symbol, as the board shows it (``10♥``)."""
        rank = self.rank
        return _RANK_TEXT.get(rank, str(rank)) + self.suit.symbol

    @classmethod
    def of(cls, cid: int) -> Card:
        return CARDS[cid]

    @classmethod
    def parse(cls, text: str) -> Card:
        return CARDS[parse_card(text)]


CARDS: Final = tuple(Card(i) for i in range(52))
CARD_TEXT: Final = tuple(card_text(i) for i in range(52))


def worker_cards() -> list[int]:
    """The 32 worker cards, 6 to King of each suit, in id order."""
    return [card_id(r, s) for s in SUITS for r in WORKER_RANKS]


def reward_cards(suit: Suit) -> list[int]:
    """The five reward cards (A-5) of one suit, in id order."""
    return [card_id(r, suit) for r in REWARD_RANKS]


#: Per card id: its suit index, its work hours (0 for reward cards) — lookups for the hot path.
SUIT_OF: Final = tuple(c // 13 for c in range(52))
HOURS: Final = tuple(0 if c % 13 < 5 else c % 13 + 1 for c in range(52))
#: Per card id: its points in a plot (points_of).
POINTS: Final = tuple(points_of(c) for c in range(52))
#: Per card id: its place in a Kolkhoznik stack's order (by rank, then suit ♥ ♦ ♣ ♠).
STACK_ORDER: Final = tuple(c % 13 * 4 + c // 13 for c in range(52))
#: The jobs by suit index (♥ ♦ ♣ ♠), and the Jack of each suit (Пьяница when trump).
JOBS: Final = (0, 1, 2, 3)
JACKS: Final = tuple(card_id(JACK, s) for s in SUITS)
