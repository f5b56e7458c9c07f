"""The players' rules (docs/RULES.md, docs/RULES.ru.md) agree with the engine's presets.

Each file has one section per preset, headed by the preset's name in backticks
(``### Original — `original` ``), whose options paragraph (``**Options:**`` /
``**Настройки:**``) lists ``label: value`` items separated by ``;``. The expected label and
value of every option come from ``engine.preset(name)``, so a preset changed in the engine
without the docs (or the other way round) fails here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import PRESETS, Rules, preset
from engine.rules import Assignment, FirstLead, Losers, Requisition, Reveal, Reward

DOCS = Path(__file__).resolve().parent.parent / "docs"
FILES = {"en": DOCS / "RULES.md", "ru": DOCS / "RULES.ru.md"}
MARKER = {"en": "**Options:**", "ru": "**Настройки:**"}
YES_NO = {"en": {True: "yes", False: "no"}, "ru": {True: "да", False: "нет"}}


def _ru_plural(n: int, one: str, few: str, many: str) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def _searched(rules: Rules) -> str:
    """Who is exposed, as the docs name it: the Brigadiers of a stack game are the stack
    holders, and a game without rewards searches everyone."""
    if rules.requisition is Requisition.EVERYONE or rules.reward is Reward.NONE:
        return "everyone"
    return "stacks" if rules.reward is Reward.STACK else "brigadiers"


# Per language: the option's label, and its value's words for a preset's rules.
Option = tuple[str, Callable[[Rules], str]]
OPTIONS: dict[str, list[Option]] = {
    "en": [
        ("deck", lambda r: f"{r.deck} cards"),
        ("threshold", lambda r: f"{r.threshold} hours"),
        ("first lead", lambda r: {FirstLead.LEFT_OF_PLANNER: "left of the Planner",
                                  FirstLead.PLANNER: "the Planner"}[r.first_lead]),
        ("leading trump", lambda r: "after the first trump" if r.trump_lead_restricted
         else "any time"),
        ("trump wins tricks", lambda r: YES_NO["en"][r.trump_wins]),
        ("short last year", lambda r: YES_NO["en"][r.final_year_short]),
        ("assignment", lambda r: {Assignment.SUIT: "by suit",
                                  Assignment.PRESENT: "by suits present"}[r.assignment]),
        ("reward", lambda r: {Reward.BRIGADIER: "reward cards", Reward.STACK: "a stack of workers",
                              Reward.NONE: "nothing"}[r.reward]),
        ("unclaimed rewards", lambda r: "—" if r.reward is not Reward.BRIGADIER
         else "pile up" if r.accumulate_rewards else "thrown away"),
        ("searched", lambda r: {"brigadiers": "Brigadiers", "stacks": "stack holders",
                                "everyone": "everyone"}[_searched(r)]),
        ("shown", lambda r: {Reveal.MATCHING: "every card of the suit",
                             Reveal.HIGHEST: "the highest hidden card of the suit",
                             Reveal.PLOT: "the whole Plot"}[r.reveal]),
        ("sent north", lambda r: {Losers.EACH: "each player's highest",
                                  Losers.HIGHEST: "the single highest card"}[r.losers]),
        ("Nomenklatura", lambda r: YES_NO["en"][r.nomenklatura]),
        ("famine", lambda r: YES_NO["en"][r.famine]),
        ("mice rule", lambda r: YES_NO["en"][r.mice_fallback]),
        ("swap", lambda r: YES_NO["en"][r.swap]),
    ],
    "ru": [
        ("колода", lambda r: f"{r.deck} {_ru_plural(r.deck, 'карта', 'карты', 'карт')}"),
        ("норма", lambda r: f"{r.threshold} {_ru_plural(r.threshold, 'час', 'часа', 'часов')}"),
        ("первый ход", lambda r: {FirstLead.LEFT_OF_PLANNER: "сосед Плановика слева",
                                  FirstLead.PLANNER: "Плановик"}[r.first_lead]),
        ("заход с козыря", lambda r: "после первого козыря" if r.trump_lead_restricted
         else "когда угодно"),
        ("козырь берёт взятки", lambda r: YES_NO["ru"][r.trump_wins]),
        ("короткий последний год", lambda r: YES_NO["ru"][r.final_year_short]),
        ("распределение", lambda r: {Assignment.SUIT: "по масти",
                                     Assignment.PRESENT: "по мастям взятки"}[r.assignment]),
        ("награда", lambda r: {Reward.BRIGADIER: "карты наград", Reward.STACK: "стопка рабочих",
                               Reward.NONE: "нет"}[r.reward]),
        ("невыигранные награды", lambda r: "—" if r.reward is not Reward.BRIGADIER
         else "копятся" if r.accumulate_rewards else "сбрасываются"),
        ("проверяют", lambda r: {"brigadiers": "Бригадиров", "stacks": "владельцев стопок",
                                 "everyone": "всех"}[_searched(r)]),
        ("открывают", lambda r: {Reveal.MATCHING: "все карты масти",
                                 Reveal.HIGHEST: "старшую закрытую карту масти",
                                 Reveal.PLOT: "весь участок"}[r.reveal]),
        ("на Север", lambda r: {Losers.EACH: "старшая карта каждого",
                                Losers.HIGHEST: "одна старшая карта"}[r.losers]),
        ("номенклатура", lambda r: YES_NO["ru"][r.nomenklatura]),
        ("неурожай", lambda r: YES_NO["ru"][r.famine]),
        ("правило мышей", lambda r: YES_NO["ru"][r.mice_fallback]),
        ("обмен", lambda r: YES_NO["ru"][r.swap]),
    ],
}

_HEADING = re.compile(r"^(#{2,4}) (.*)$")


def _sections(lang: str) -> dict[str, str]:
    """The text of each section headed by a preset's name in backticks, up to the next
    heading of the same or a higher level."""
    lines = FILES[lang].read_text(encoding="utf-8").splitlines()
    out: dict[str, str] = {}
    for i, line in enumerate(lines):
        m = _HEADING.match(line)
        if not m:
            continue
        names = re.findall(r"`(\w+)`", m.group(2))
        if not names:
            continue
        assert len(names) == 1, f"{lang}: one preset per heading: {line!r}"
        assert names[0] not in out, f"{lang}: two sections for `{names[0]}`"
        level = len(m.group(1))
        body: list[str] = []
        for nxt in lines[i + 1:]:
            h = _HEADING.match(nxt)
            if h and len(h.group(1)) <= level:
                break
            body.append(nxt)
        out[names[0]] = "\n".join(body)
    return out


def _options(lang: str, section: str) -> dict[str, str]:
    """The ``label: value`` items of a section's options paragraph."""
    paragraphs = [" ".join(p.split()) for p in section.split("\n\n")]
    found = [p for p in paragraphs if p.startswith(MARKER[lang])]
    assert len(found) == 1, f"{lang}: one {MARKER[lang]} paragraph per preset"
    items: dict[str, str] = {}
    for item in found[0].removeprefix(MARKER[lang]).strip().rstrip(".").split(";"):
        label, sep, value = item.partition(":")
        assert sep, f"{lang}: {item!r} is not 'label: value'"
        items[label.strip().lower()] = value.strip()
    return items


@pytest.mark.parametrize("lang", list(FILES))
def test_one_section_per_preset(lang: str) -> None:
    assert set(_sections(lang)) == set(PRESETS)


@pytest.mark.parametrize("lang", list(FILES))
@pytest.mark.parametrize("name", list(PRESETS))
def test_docs_state_the_presets_options(lang: str, name: str) -> None:
    rules = preset(name)
    items = _options(lang, _sections(lang)[name])
    expected = {label.lower(): words(rules) for label, words in OPTIONS[lang]}
    assert set(items) == set(expected), f"{lang} `{name}`: labels differ"
    for label, value in expected.items():
        assert items[label].lower() == value.lower(), (
            f"{lang} `{name}`: {label} is {items[label]!r} in the docs, the engine says {value!r}"
        )


# The points revision 3 of the reference rules decides, in the players' words.
DECIDED = {
    "en": [
        "♥ ♦ ♣ ♠",  # a stack's top card among equal ranks
        "stay face-up for the rest of the game",
        "reward cards are never requisitioned",
        "a card that stayed hidden",
        "trump never wins a trick",
        "supply disruption",
        "mice rule",
    ],
    "ru": [
        "♥ ♦ ♣ ♠",
        "остаются открытыми до конца игры",
        "награды реквизиции не подлежат",
        "если карта осталась закрытой",
        "козырь взяток не берёт",
        "перебои со снабжением",
        "правило мышей",
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
        assert "♥ ♦ ♣ ♠" in " ".join(_sections(lang)[name].split())
