"""The players' rules (docs/RULES.md, docs/RULES.ru.md) explain the points the reference rules
decide, in the players' words.

That every preset section states every option as ``engine.preset()`` has it is checked in
``tests/test_rules_docs.py``.
"""

from __future__ import annotations

import pytest

from engine import PRESETS, preset
from engine.rules import Reward
from tests.test_rules_docs import FILES, sections

# The points the reference rules decide (revisions 3 and 4), in the players' words.
DECIDED = {
    "en": [
        "♥ ♦ ♣ ♠",  # a stack's top card among equal ranks
        "stay face-up for the rest of the game",
        "reward cards are never requisitioned",
        "a card that stayed hidden",
        "trump never wins a trick",
        "supply disruption",
        "mice rule",
        "only one goes north",  # the mice rule: one card in all, not one per player
        "year 5 is always lean",
        "years 3, 4 and 5 always deal 4, 3 and 2 cards",
        "at most 3 tricks",
        "exactly one famine year",
        "a later requisition of its suit can still take it",  # a stack's top card
        "not word for word",  # Original: the first text, its gaps filled
    ],
    "ru": [
        "♥ ♦ ♣ ♠",
        "остаются открытыми до конца игры",
        "награды реквизиции не подлежат",
        "если карта осталась закрытой",
        "козырь взяток не берёт",
        "перебои со снабжением",
        "правило мышей",
        "уходит только одна",
        "пятый год всегда скудный",
        "всегда раздают 4, 3 и 2 карты",
        "не больше 3 взяток",
        "ровно один раз",
        "реквизиция её масти может её забрать",
        "не дословно",
    ],
}


@pytest.mark.parametrize("lang", list(FILES))
def test_the_decided_points_are_explained(lang: str) -> None:
    text = " ".join(FILES[lang].read_text(encoding="utf-8").split()).lower()
    text = text.replace("*", "")
    for phrase in DECIDED[lang]:
        assert phrase.lower() in text, f"{lang}: {phrase!r} missing"


@pytest.mark.parametrize("lang", list(FILES))
def test_stack_tie_break_is_in_the_stack_presets_sections(lang: str) -> None:
    stacks = [name for name in PRESETS if preset(name).reward is Reward.STACK]
    assert stacks
    for name in stacks:
        assert "♥ ♦ ♣ ♠" in " ".join(sections(lang)[name].split())


# Readings the docs once gave and must not give again.
WRONG = {
    "en": [
        "played as written",
        "shows and loses only the highest card",  # the mice rule takes one card in all
        "stays in the plot for good",  # a stack's top card can still be requisitioned
    ],
    "ru": [
        "без поправок",
        "каждый открывает и теряет",
        "остаётся на участке насовсем",
        "колода иссякла",
        "к трефам открылся",
        "работает на 0 часов",
        "число на карте",
        "на четыре работы",
    ],
}


@pytest.mark.parametrize("lang", list(FILES))
def test_old_misreadings_are_gone(lang: str) -> None:
    text = " ".join(FILES[lang].read_text(encoding="utf-8").split()).lower()
    text = text.replace("*", "")
    for phrase in WRONG[lang]:
        assert phrase.lower() not in text, f"{lang}: {phrase!r} is back"


@pytest.mark.parametrize("lang", list(FILES))
def test_zone_does_not_deny_the_mice_rule(lang: str) -> None:
    """Zone's requisition is the mice rule; only the fallback is off."""
    zone = " ".join(sections(lang)["zone"].split()).lower()
    assert ("mice rule: no" if lang == "en" else "правило мышей: нет") not in zone
