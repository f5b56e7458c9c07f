"""Actions, their short text form and the error hierarchy.

Text forms (``Action.parse`` reads them, ``str(action)`` writes them, and the round trip is
exact): ``trump:H``, ``pass:9H`` (the card passed to a neighbour, house rule ``pass_cards``),
``swap:9H<KC`` (hand card 9H for plot card KC), ``swap:pass`` (no swap: not a card pass),
``play:10H``, ``assign:10H>S`` (card 10H to the Spades job).

Every distinct action has a small integer :attr:`Action.code` and exactly one instance: the
constructor, the class methods and :meth:`Action.parse` all return the shared one. Equality is
therefore identity (the same as comparing codes, but without a Python-level ``__eq__`` on the
legality check of every move); the hash is the code.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from engine.cards import CARD_TEXT, CARDS, SUITS, Card, Suit, parse_card


class ActionError(ValueError):
    """An action was refused; the game is left exactly as it was."""


class InvalidAction(ActionError):
    """The action text or value is malformed (not an action at all)."""


class IllegalAction(ActionError):
    """A well-formed action that the rules do not allow now, for this seat."""

    def __init__(self, message: str, reason: str = "illegal") -> None:
        super().__init__(message)
        #: A short machine-readable code (e.g. ``follow_suit``) a front end can translate.
        self.reason = reason


class ActionKind(StrEnum):
    TRUMP = "trump"
    PASS = "pass"  # pass_cards: the card a player passes to a neighbour
    SWAP = "swap"
    PLAY = "play"
    ASSIGN = "assign"


_TRUMP_BASE: Final = 0
_PLAY_BASE: Final = 4
_ASSIGN_BASE: Final = _PLAY_BASE + 52
_SWAP_BASE: Final = _ASSIGN_BASE + 52 * 4
SWAP_PASS_CODE: Final = _SWAP_BASE + 52 * 52
#: Passing a card (``pass_cards``), after every earlier code so that none of those changed.
_PASS_BASE: Final = SWAP_PASS_CODE + 1
N_CODES: Final = _PASS_BASE + 52


class Action:
    """One move: a frozen value identified by :attr:`code`.

    Build with the class methods (:meth:`trump`, :meth:`pass_card`, :meth:`play`,
    :meth:`assign`, :meth:`swap`, :meth:`swap_pass`) or :meth:`parse`.
    """

    __slots__ = ("card", "card_id", "code", "kind", "suit", "suit_id", "target", "text")

    kind: ActionKind
    card: Card | None  # played / assigned / swapped-out / passed hand card
    suit: Suit | None  # trump suit or target job
    target: Card | None  # face-down plot card taken back in a swap
    code: int
    text: str
    card_id: int  # card.id, or -1 (a shortcut for the engine's hot path)
    suit_id: int  # int(suit), or -1

    def __new__(
        cls,
        kind: ActionKind,
        card: Card | None = None,
        suit: Suit | None = None,
        target: Card | None = None,
    ) -> Action:
        kind = ActionKind(kind)
        if kind is ActionKind.TRUMP:
            if suit is None or card is not None or target is not None:
                raise InvalidAction("a trump action names exactly one suit")
            code = _TRUMP_BASE + int(suit)
            text = f"trump:{Suit(suit).letter}"
        elif kind is ActionKind.PLAY:
            if card is None or suit is not None or target is not None:
                raise InvalidAction("a play action names exactly one card")
            code = _PLAY_BASE + card.id
            text = f"play:{CARD_TEXT[card.id]}"
        elif kind is ActionKind.ASSIGN:
            if card is None or suit is None or target is not None:
                raise InvalidAction("an assign action names a card and a job")
            code = _ASSIGN_BASE + card.id * 4 + int(suit)
            text = f"assign:{CARD_TEXT[card.id]}>{Suit(suit).letter}"
        elif kind is ActionKind.PASS:
            if card is None or suit is not None or target is not None:
                raise InvalidAction("a pass action names exactly one card")
            code = _PASS_BASE + card.id
            text = f"pass:{CARD_TEXT[card.id]}"
        else:
            if suit is not None or (card is None) != (target is None):
                raise InvalidAction("a swap names a hand card and a plot card, or passes")
            if card is None or target is None:
                code = SWAP_PASS_CODE
                text = "swap:pass"
            else:
                code = _SWAP_BASE + card.id * 52 + target.id
                text = f"swap:{CARD_TEXT[card.id]}<{CARD_TEXT[target.id]}"
        if _BY_CODE:
            return _BY_CODE[code]  # the shared instance: equality is identity
        self = object.__new__(cls)
        setter = object.__setattr__
        setter(self, "kind", kind)
        setter(self, "card", card)
        setter(self, "suit", None if suit is None else Suit(suit))
        setter(self, "target", target)
        setter(self, "code", code)
        setter(self, "text", text)
        setter(self, "card_id", -1 if card is None else card.id)
        setter(self, "suit_id", -1 if suit is None else int(suit))
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Action is immutable")

    def __hash__(self) -> int:
        return self.code

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Action({self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Action.parse, (self.text,))

    # -- constructors returning the shared instances -------------------------------------------

    @staticmethod
    def trump(suit: Suit | int) -> Action:
        return _BY_CODE[_TRUMP_BASE + int(suit)]

    @staticmethod
    def play(card: Card | int) -> Action:
        return _BY_CODE[_PLAY_BASE + _cid(card)]

    @staticmethod
    def assign(card: Card | int, job: Suit | int) -> Action:
        return _BY_CODE[_ASSIGN_BASE + _cid(card) * 4 + int(job)]

    @staticmethod
    def swap(card: Card | int, target: Card | int) -> Action:
        return _BY_CODE[_SWAP_BASE + _cid(card) * 52 + _cid(target)]

    @staticmethod
    def swap_pass() -> Action:
        """No swap (``swap:pass``); not to be confused with :meth:`pass_card`."""
        return _BY_CODE[SWAP_PASS_CODE]

    @staticmethod
    def pass_card(card: Card | int) -> Action:
        """Pass ``card`` to a neighbour (``pass:9H``, house rule ``pass_cards``)."""
        return _BY_CODE[_PASS_BASE + _cid(card)]

    @staticmethod
    def from_code(code: int) -> Action:
        return _BY_CODE[code]

    @staticmethod
    def parse(text: str | Action) -> Action:
        """Read an action from its text form; raises :class:`InvalidAction` naming the input.

        Cards may be written in any notation :func:`engine.cards.parse_card` accepts, so
        ``play:T♥`` reads as ``play:10H``; ``str()`` of the result is always canonical.
        """
        if isinstance(text, Action):
            return text
        if not isinstance(text, str):
            raise InvalidAction(f"not an action: {text!r}")
        cached = _BY_TEXT.get(text)
        if cached is not None:
            return cached
        kind_text, sep, arg = text.strip().partition(":")
        kind_text = kind_text.strip().lower()
        arg = arg.strip()
        try:
            if not sep:
                raise ValueError
            if kind_text == "trump":
                return Action.trump(Suit.parse(arg))
            if kind_text == "play":
                return Action.play(parse_card(arg))
            if kind_text == "pass":
                return Action.pass_card(parse_card(arg))
            if kind_text == "assign":
                card_text, gt, job_text = arg.partition(">")
                if not gt:
                    raise ValueError
                return Action.assign(parse_card(card_text), Suit.parse(job_text))
            if kind_text == "swap":
                if arg.lower() == "pass":
                    return Action.swap_pass()
                hand_text, lt, plot_text = arg.partition("<")
                if not lt:
                    raise ValueError
                return Action.swap(parse_card(hand_text), parse_card(plot_text))
        except ValueError:
            pass
        raise InvalidAction(f"not an action: {text!r}")


def _cid(card: Card | int) -> int:
    return card.id if isinstance(card, Card) else int(card)


def _build_table() -> list[Action]:
    table: list[Action] = []  # filled while _BY_CODE is empty: the constructor builds anew
    table.extend(Action(ActionKind.TRUMP, suit=s) for s in SUITS)
    table.extend(Action(ActionKind.PLAY, card=CARDS[c]) for c in range(52))
    table.extend(
        Action(ActionKind.ASSIGN, card=CARDS[c], suit=s) for c in range(52) for s in SUITS
    )
    table.extend(
        Action(ActionKind.SWAP, card=CARDS[c], target=CARDS[t])
        for c in range(52)
        for t in range(52)
    )
    table.append(Action(ActionKind.SWAP))
    table.extend(Action(ActionKind.PASS, card=CARDS[c]) for c in range(52))
    assert [a.code for a in table] == list(range(N_CODES))
    return table


_BY_CODE: Final[list[Action]] = []
_BY_CODE.extend(_build_table())
_BY_TEXT: Final = {a.text: a for a in _BY_CODE}
#: The shared instances by card id (plays, passes), ``card * 4 + job`` (assignments) and suit
#: (trump): legality builds its lists from these without creating anything.
PLAYS: Final = tuple(_BY_CODE[_PLAY_BASE : _PLAY_BASE + 52])
PASSES: Final = tuple(_BY_CODE[_PASS_BASE : _PASS_BASE + 52])
ASSIGNS: Final = tuple(_BY_CODE[_ASSIGN_BASE : _ASSIGN_BASE + 52 * 4])
TRUMPS: Final = tuple(_BY_CODE[_TRUMP_BASE : _TRUMP_BASE + 4])
SWAP_PASS: Final = _BY_CODE[SWAP_PASS_CODE]
