"""Typed moves in either language turn into engine action texts; mistakes say what is wrong."""

from __future__ import annotations

import pytest

from engine import Action
from kolkhoz_tg.moves import TypedError, parse_typed


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [
        ("play", "10H", "play:10H"),
        ("play", "10h", "play:10H"),
        ("play", "TH", "play:10H"),
        ("play", "10♥", "play:10H"),
        ("play", "10ч", "play:10H"),
        ("play", "Вп", "play:JS"),
        ("play", "Дб", "play:QD"),
        ("play", "Кт", "play:KC"),
        ("play", "10 червы", "play:10H"),
        ("play", "валет пик", "play:JS"),
        ("play", "queen of spades", "play:QS"),
        ("play", "  KC ", "play:KC"),
        ("assign", "10H S", "assign:10H>S"),
        ("assign", "10H ♠", "assign:10H>S"),
        ("assign", "10ч п", "assign:10H>S"),
        ("assign", "10H пики", "assign:10H>S"),
        ("assign", "10H Зерно", "assign:10H>S"),
        ("assign", "10H to Sunflowers", "assign:10H>S"),
        ("assign", "9D Пахота", "assign:9D>H"),
        ("assign", "9D свёкла", "assign:9D>D"),
        ("trump", "♠", "trump:S"),
        ("trump", "s", "trump:S"),
        ("trump", "черви", "trump:H"),
        ("trump", "Т", "trump:C"),
        ("swap", "9H KC", "swap:9H<KC"),
        ("swap", "9ч Кт", "swap:9H<KC"),
        ("swap", "pass", "swap:pass"),
        ("swap", "нет", "swap:pass"),
        # «в» is "into" and the jack's letter: both readings are found.
        ("play", "В п", "play:JS"),
        ("assign", "10H в S", "assign:10H>S"),
        ("assign", "в п в ч", "assign:JS>H"),
        ("assign", "В ч на п", "assign:JH>S"),
        ("swap", "в ч в п", "swap:JH<JS"),
    ],
)
def test_typed_moves(command: str, args: str, expected: str) -> None:
    text = parse_typed(command, args)
    assert text == expected
    assert str(Action.parse(text)) == expected


@pytest.mark.parametrize(
    ("command", "args", "code"),
    [
        ("play", "", "usage"),
        ("play", "11H", "bad_card"),
        ("play", "10X", "bad_card"),
        ("play", "10H 9H", "usage"),
        ("play", "<script>", "bad_card"),
        ("assign", "10H", "usage"),
        ("assign", "10H Луна", "bad_suit"),
        ("assign", "", "usage"),
        ("trump", "", "usage"),
        ("trump", "X", "bad_suit"),
        ("trump", "♠ ♥", "usage"),
        ("swap", "9H", "usage"),
        ("swap", "9H KC QS", "usage"),
        ("swap", "", "usage"),
        ("dance", "10H", "usage"),
    ],
)
def test_typed_mistakes_are_named(command: str, args: str, code: str) -> None:
    with pytest.raises(TypedError) as info:
        parse_typed(command, args)
    assert info.value.code == code
    assert isinstance(info.value, ValueError)
