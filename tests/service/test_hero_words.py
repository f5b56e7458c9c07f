"""The Hero (house rule) told in both languages: the year's summary and the board's lines
name the player who won every trick of the year."""

from __future__ import annotations

import pytest

from engine.events import HeroNamed, event_from_dict
from kolkhoz_tg import present
from kolkhoz_tg.i18n import translator
from tests.service.helpers import header

GAME = header("Anna", "Boris", "Vera", "Gleb")


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "Vera won every trick of the year: the Hero"),
    ("ru", "Все взятки года — у игрока Vera: это Герой года"),
])
def test_the_hero_is_named_at_the_years_end(lang: str, words: str) -> None:
    tr = translator(lang)
    event = event_from_dict({"type": "HeroNamed", "year": 2, "seat": 2})
    assert words in present.event_text(tr, GAME, event, "jobs")
    # It is a year's end event: the summary tells it, a board's event list leaves it out.
    assert HeroNamed in present.YEAR_END_EVENTS
    lines = present.requisition_lines(tr, GAME, [event], "jobs")
    assert any(words in line for line in lines)
