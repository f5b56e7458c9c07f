"""One move vocabulary for the bot and the terminal: every word and form either front end
accepted before (the bot's ``/play``, ``/assign``, ``/trump``, ``/swap``, ``/pass`` and the
terminal's answers) reads the same in both."""

from __future__ import annotations

import pytest

from engine import Action
from kolkhoz_tg import terminal
from kolkhoz_tg.moves import PASS_WORDS, parse_typed

#: What the terminal's list offers for each typed command (the answer's kind comes from it).
LEGAL = {
    "play": ["play:10H", "play:QS", "play:JS", "play:KC", "play:AH"],
    "assign": ["assign:10H>S", "assign:10H>H", "assign:QS>S", "assign:QS>H"],
    "trump": ["trump:H", "trump:D", "trump:C", "trump:S"],
    "swap": ["swap:pass", "swap:9H<KC"],
    "pass": ["pass:9H", "pass:10H", "pass:QS"],
}

#: (command, what is typed, the move): the union of both front ends' forms, in both languages.
FORMS = [
    # Card notations: letters, 10 or T, symbols, Russian letters, words in either language.
    ("play", "10H", "play:10H"),
    ("play", "10h", "play:10H"),
    ("play", "TH", "play:10H"),
    ("play", "10♥", "play:10H"),
    ("play", "10♡", "play:10H"),
    ("play", "10ч", "play:10H"),
    ("play", "Дп", "play:QS"),
    ("play", "Вп", "play:JS"),
    ("play", "В п", "play:JS"),
    ("play", "Кт", "play:KC"),
    ("play", "Тч", "play:AH"),
    ("play", "10 червы", "play:10H"),
    ("play", "валет пик", "play:JS"),
    ("play", "дама пик", "play:QS"),
    ("play", "queen of spades", "play:QS"),
    ("play", "ace of hearts", "play:AH"),
    ("play", "  KC ", "play:KC"),
    # Latin letters typed in the Russian keyboard layout (the terminal's, now the bot's too).
    ("play", "10Р", "play:10H"),
    ("play", "йы", "play:QS"),
    ("play", "ЛС", "play:KC"),
    # A card and its job: suit letter, symbol, Russian letter or name, the job's name in
    # either theme, with filler words.
    ("assign", "10H S", "assign:10H>S"),
    ("assign", "10H ♠", "assign:10H>S"),
    ("assign", "10H, S", "assign:10H>S"),
    ("assign", "10ч п", "assign:10H>S"),
    ("assign", "Дп п", "assign:QS>S"),
    ("assign", "10H пики", "assign:10H>S"),
    ("assign", "10H spades", "assign:10H>S"),
    ("assign", "10H Зерно", "assign:10H>S"),
    ("assign", "10H to Sunflowers", "assign:10H>S"),
    ("assign", "10H > S", "assign:10H>S"),
    ("assign", "QS на Пахота", "assign:QS>H"),
    ("assign", "ЙЫ Ы", "assign:QS>S"),
    # Trump: a suit in any of its names.
    ("trump", "♠", "trump:S"),
    ("trump", "s", "trump:S"),
    ("trump", "S", "trump:S"),
    ("trump", "п", "trump:S"),
    ("trump", "Т", "trump:C"),
    ("trump", "т", "trump:C"),
    ("trump", "черви", "trump:H"),
    ("trump", "бубны", "trump:D"),
    ("trump", "clubs", "trump:C"),
    ("trump", "Ы", "trump:S"),
    # The swap: a hand card and a plot card, or declined.
    ("swap", "9H KC", "swap:9H<KC"),
    ("swap", "9H, KC", "swap:9H<KC"),
    ("swap", "9ч Кт", "swap:9H<KC"),
    ("swap", "9Р ЛС", "swap:9H<KC"),
    ("swap", "девятка червей король треф", "swap:9H<KC"),
    *[("swap", word, "swap:pass") for word in sorted(PASS_WORDS)],
    ("swap", "PASS", "swap:pass"),
    ("swap", "Пас", "swap:pass"),
    ("swap", "зфыы", "swap:pass"),
    # The card passed to a neighbour.
    ("pass", "9H", "pass:9H"),
    ("pass", "9ч", "pass:9H"),
    ("pass", "9 червей", "pass:9H"),
    ("pass", "9Р", "pass:9H"),
]


@pytest.mark.parametrize(("command", "text", "expected"), FORMS)
def test_both_front_ends_read_every_form(command: str, text: str, expected: str) -> None:
    assert parse_typed(command, text) == expected
    assert terminal.parse_action(text, LEGAL[command]) == expected
    assert str(Action.parse(expected)) == expected


def test_every_pass_word_of_either_front_end_is_in_the_one_list() -> None:
    # The bot's nine words and the terminal's five, before they were one list.
    assert {"pass", "no", "none", "-", "нет", "пас", "пропуск", "не", "оставить"} == PASS_WORDS


def test_a_russian_v_between_card_and_job_is_read_as_each_front_end_read_it() -> None:
    # The one form the two front ends read differently before, kept so: the bot drops «в»
    # ("into"); the terminal lets words after the move go and reads «в» as the Russian
    # layout's key for d, as it did.
    assert parse_typed("assign", "10H в S") == "assign:10H>S"
    assert terminal.parse_action("10H в S", LEGAL["assign"]) == "assign:10H>D"
