"""RULES.md "Cards": text notation, accepted and produced by the engine, and action texts."""

from __future__ import annotations

import pytest

from engine import Action, ActionKind, Card, InvalidAction, Suit, parse_card
from engine.cards import card_id


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("6D", 6, Suit.D),
        ("10D", 10, Suit.D),
        ("TD", 10, Suit.D),  # T is a synonym of 10 on input
        ("td", 10, Suit.D),
        ("JC", 11, Suit.C),
        ("QS", 12, Suit.S),
        ("KC", 13, Suit.C),
        ("AS", 1, Suit.S),
        ("5S", 5, Suit.S),
        ("10♦", 10, Suit.D),
        ("10♠", 10, Suit.S),
        ("10♣", 10, Suit.C),
        ("10♥", 10, Suit.H),
        ("6H", 6, Suit.H),
        ("10H", 10, Suit.H),
        ("TH", 10, Suit.H),
        ("th", 10, Suit.H),
        ("6h", 6, Suit.H),
        ("JH", 11, Suit.H),
        ("QH", 12, Suit.H),
        ("KH", 13, Suit.H),
        ("AH", 1, Suit.H),
        ("5H", 5, Suit.H),
        ("10ч", 10, Suit.H),  # червы
        ("10б", 10, Suit.D),  # бубны
        ("10т", 10, Suit.C),  # трефы
        ("10п", 10, Suit.S),  # пики
        ("Вп", 11, Suit.S),  # валет
        ("Дт", 12, Suit.C),  # дама
        ("Кч", 13, Suit.H),  # король
        ("Тб", 1, Suit.D),  # туз (Cyrillic Т is the Ace, Latin T is 10)
    ],
)
def test_card_notation_is_accepted(text: str, rank: int, suit: Suit) -> None:
    """Rank then suit; T = 10; suit symbols and Russian letters; Russian ranks В Д К Т."""
    cid = parse_card(text)
    assert cid == card_id(rank, suit)
    card = Card.parse(text)
    assert card.rank == rank and card.suit is suit


@pytest.mark.parametrize(
    ("rank", "suit", "text"),
    [
        (6, Suit.D, "6D"),
        (10, Suit.D, "10D"),
        (11, Suit.C, "JC"),
        (12, Suit.S, "QS"),
        (13, Suit.H, "KH"),
        (1, Suit.H, "AH"),
        (5, Suit.S, "5S"),
    ],
)
def test_card_notation_is_produced(rank: int, suit: Suit, text: str) -> None:
    """The engine writes cards as rank then suit letter: 6H 10D JC QS KH AH 5S."""
    assert str(Card.of(card_id(rank, suit))) == text


@pytest.mark.parametrize("text", ["", "1D", "11D", "XD", "10X", "10", "D", "ZZZ", "10DD"])
def test_malformed_card_text_is_rejected(text: str) -> None:
    with pytest.raises(ValueError):
        parse_card(text)


@pytest.mark.parametrize(
    "text",
    [
        "trump:H",
        "trump:D",
        "trump:C",
        "trump:S",
        "swap:9H<KC",
        "swap:pass",
        "play:10H",
        "play:6D",
        "assign:10H>S",
        "assign:QC>D",
    ],
)
def test_action_text_round_trip(text: str) -> None:
    """Action.parse(text) then str() gives back the canonical text."""
    a = Action.parse(text)
    assert str(a) == text
    assert Action.parse(str(a)) == a
    assert Action.from_code(a.code) == a


def test_action_fields() -> None:
    a = Action.parse("assign:10D>S")
    assert a.kind is ActionKind.ASSIGN and a.card == Card.parse("10D") and a.suit is Suit.S
    s = Action.parse("swap:9D<KC")
    assert s.kind is ActionKind.SWAP and s.card == Card.parse("9D") and s.target == Card.parse("KC")
    assert Action.parse("trump:S").suit is Suit.S
    assert Action.parse("swap:pass").card is None


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("play:TD", "play:10D"),
        ("play:T♦", "play:10D"),
        ("play:Вп", "play:JS"),
        ("assign:10D>s", "assign:10D>S"),
        ("assign:10б>♠", "assign:10D>S"),
        ("trump:♠", "trump:S"),
        ("swap:PASS", "swap:pass"),
    ],
)
def test_action_accepts_other_notations(text: str, canonical: str) -> None:
    """Any card notation is accepted inside actions; str() is always canonical."""
    assert str(Action.parse(text)) == canonical


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("play:10♥", "play:10H"),
        ("play:10ч", "play:10H"),
        ("trump:♥", "trump:H"),
        ("play:TH", "play:10H"),
        ("trump:h", "trump:H"),
        ("swap:9h<KC", "swap:9H<KC"),
        ("assign:TH>D", "assign:10H>D"),
        (" play:10H ", "play:10H"),
        ("assign:10D>H", "assign:10D>H"),
    ],
)
def test_action_accepts_other_notations_hearts(text: str, canonical: str) -> None:
    """Same as above, for Hearts (suit H = 0)."""
    assert str(Action.parse(text)) == canonical


@pytest.mark.parametrize(("text", "suit"), [("H", Suit.H), ("h", Suit.H), ("♥", Suit.H),
                                            ("ч", Suit.H), ("D", Suit.D), ("s", Suit.S)])
def test_suit_parse(text: str, suit: Suit) -> None:
    assert Suit.parse(text) is suit


@pytest.mark.parametrize(
    "text",
    ["", "play", "play:", "play:XX", "trump:X", "assign:10D", "assign:10D>X", "swap:9D",
     "swap:9D<", "bid:10D", "play:10D:10C", "nonsense"],
)
def test_malformed_action_text_is_invalid(text: str) -> None:
    with pytest.raises(InvalidAction):
        Action.parse(text)


def test_invalid_action_is_an_action_error_and_value_error() -> None:
    from engine import ActionError

    with pytest.raises(ActionError):
        Action.parse("nonsense")
    with pytest.raises(ValueError):
        Action.parse("nonsense")
