"""The players' rules (docs/RULES.md, docs/RULES.ru.md) state every option of every preset as
the engine has it, in both languages.

Each file has one section per preset, headed by the preset's name in backticks
(``### Original — `original` ``). Its options paragraph (``**Options:**`` /
``**Настройки:**``) lists ``label: value`` items separated by ``;``, one item per field of
``engine.Rules``, in words players read. ``WORDS`` below gives, per field and language, the
item's label and the words for a rules configuration's value; the expected items come from
``engine.preset(name)``. So a preset changed in the engine without the docs, a field added to
``Rules`` without a line in both docs, or an edit of one language only fails here.

The lean-year and famine counts the docs give (section "Lean years", the Kolkhoz famine) are
checked against games the engine plays.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable
from enum import StrEnum
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from engine import PRESETS, Game, Rules, preset
from engine import events as ev
from engine.rules import (
    Assignment,
    Drunkard,
    FirstLead,
    Losers,
    Requisition,
    Reveal,
    Reward,
    Theme,
)

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


def _mice(rules: Rules) -> str:
    """The mice rule in a setup: a fallback (``mice_fallback``), every requisition (everyone
    searched, the highest shown, the single highest lost: Zone), or none."""
    if rules.mice_fallback:
        return "fallback"
    if (_searched(rules) == "everyone" and rules.reveal is Reveal.HIGHEST
            and rules.losers is Losers.HIGHEST):
        return "always"
    return "no"


def _yes_no(lang: str, field: str) -> Callable[[Rules], str]:
    return lambda r: YES_NO[lang][getattr(r, field)]


#: Per field of ``Rules`` and language: the item's label and the words for its value.
Words = tuple[str, Callable[[Rules], str]]
WORDS: dict[str, dict[str, Words]] = {
    "years": {
        "en": ("years", lambda r: str(r.years)),
        "ru": ("срок", lambda r: f"{r.years} {_ru_plural(r.years, 'год', 'года', 'лет')}"),
    },
    "deck": {
        "en": ("deck", lambda r: f"{r.deck} cards"),
        "ru": ("колода", lambda r: f"{r.deck} {_ru_plural(r.deck, 'карта', 'карты', 'карт')}"),
    },
    "theme": {
        "en": ("job names", lambda r: {
            Theme.JOBS: "Plowing, Harvest, Workshop, Grain",
            Theme.FIELDS: "Wheat, Beets, Potatoes, Sunflowers"}[r.theme]),
        "ru": ("названия работ", lambda r: {
            Theme.JOBS: "Пахота, Жатва, Мастерская, Зерно",
            Theme.FIELDS: "Пшеница, Свёкла, Картофель, Подсолнечник"}[r.theme]),
    },
    "threshold": {
        "en": ("threshold", lambda r: f"{r.threshold} hours"),
        "ru": ("норма", lambda r: f"{r.threshold} "
               f"{_ru_plural(r.threshold, 'час', 'часа', 'часов')}"),
    },
    "first_lead": {
        "en": ("first lead", lambda r: {FirstLead.LEFT_OF_PLANNER: "left of the Planner",
                                        FirstLead.PLANNER: "the Planner"}[r.first_lead]),
        "ru": ("первый ход", lambda r: {FirstLead.LEFT_OF_PLANNER: "сосед Плановика слева",
                                        FirstLead.PLANNER: "Плановик"}[r.first_lead]),
    },
    "trump_lead_restricted": {
        "en": ("leading trump", lambda r: "after the first trump" if r.trump_lead_restricted
               else "any time"),
        "ru": ("заход с козыря", lambda r: "после первого козыря" if r.trump_lead_restricted
               else "когда угодно"),
    },
    "trump_wins": {
        "en": ("trump wins tricks", _yes_no("en", "trump_wins")),
        "ru": ("козырь берёт взятки", _yes_no("ru", "trump_wins")),
    },
    "final_year_short": {
        "en": ("short last year", _yes_no("en", "final_year_short")),
        "ru": ("короткий последний год", _yes_no("ru", "final_year_short")),
    },
    "assignment": {
        "en": ("assignment", lambda r: {Assignment.SUIT: "by suit",
                                        Assignment.PRESENT: "by suits present"}[r.assignment]),
        "ru": ("распределение", lambda r: {Assignment.SUIT: "по масти",
                                           Assignment.PRESENT: "по мастям взятки"}[r.assignment]),
    },
    "reward": {
        "en": ("reward", lambda r: {Reward.BRIGADIER: "reward cards",
                                    Reward.STACK: "a stack of workers",
                                    Reward.NONE: "nothing"}[r.reward]),
        "ru": ("награда", lambda r: {Reward.BRIGADIER: "карты наград",
                                     Reward.STACK: "стопка рабочих",
                                     Reward.NONE: "нет"}[r.reward]),
    },
    "accumulate_rewards": {
        "en": ("unclaimed rewards", lambda r: "—" if r.reward is not Reward.BRIGADIER
               else "pile up" if r.accumulate_rewards else "thrown away"),
        "ru": ("невыигранные награды", lambda r: "—" if r.reward is not Reward.BRIGADIER
               else "копятся" if r.accumulate_rewards else "сбрасываются"),
    },
    "requisition": {
        "en": ("searched", lambda r: {"brigadiers": "Brigadiers", "stacks": "stack holders",
                                      "everyone": "everyone"}[_searched(r)]),
        "ru": ("проверяют", lambda r: {"brigadiers": "Бригадиров",
                                       "stacks": "владельцев стопок",
                                       "everyone": "всех"}[_searched(r)]),
    },
    "reveal": {
        "en": ("shown", lambda r: {Reveal.MATCHING: "every card of the suit",
                                   Reveal.HIGHEST: "the highest hidden card of the suit",
                                   Reveal.PLOT: "the whole Plot"}[r.reveal]),
        "ru": ("открывают", lambda r: {Reveal.MATCHING: "все карты масти",
                                       Reveal.HIGHEST: "старшую закрытую карту масти",
                                       Reveal.PLOT: "весь участок"}[r.reveal]),
    },
    "losers": {
        "en": ("sent north", lambda r: {Losers.EACH: "each player's highest",
                                        Losers.HIGHEST: "the single highest card"}[r.losers]),
        "ru": ("на Север", lambda r: {Losers.EACH: "старшая карта каждого",
                                      Losers.HIGHEST: "одна старшая карта"}[r.losers]),
    },
    "nomenklatura": {
        "en": ("Nomenklatura", _yes_no("en", "nomenklatura")),
        "ru": ("номенклатура", _yes_no("ru", "nomenklatura")),
    },
    "drunkard": {
        "en": ("Drunkard", lambda r: {Drunkard.CANCELS: "ends the search",
                                      Drunkard.REPLACES: "goes instead of a card"}[r.drunkard]),
        "ru": ("Пьяница", lambda r: {Drunkard.CANCELS: "отменяет проверку",
                                     Drunkard.REPLACES: "уходит вместо карты"}[r.drunkard]),
    },
    "famine": {
        "en": ("famine", _yes_no("en", "famine")),
        "ru": ("неурожай", _yes_no("ru", "famine")),
    },
    "mice_fallback": {
        "en": ("mice rule", lambda r: {
            "fallback": "if all four jobs fail and nobody is searched",
            "always": "every requisition", "no": "no"}[_mice(r)]),
        "ru": ("правило мышей", lambda r: {
            "fallback": "если провалены все четыре работы и проверять некого",
            "always": "при каждой реквизиции", "no": "нет"}[_mice(r)]),
    },
    "swap": {
        "en": ("swap", _yes_no("en", "swap")),
        "ru": ("обмен", _yes_no("ru", "swap")),
    },
    "medals_score": {
        "en": ("medals score", _yes_no("en", "medals_score")),
        "ru": ("очки за медали", _yes_no("ru", "medals_score")),
    },
    "pass_cards": {
        "en": ("passing", _yes_no("en", "pass_cards")),
        "ru": ("передача карт", _yes_no("ru", "pass_cards")),
    },
    "hero": {
        "en": ("Hero", _yes_no("en", "hero")),
        "ru": ("Герой", _yes_no("ru", "hero")),
    },
}

_HEADING = re.compile(r"^(#{2,4}) (.*)$")


def sections(lang: str) -> dict[str, str]:
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


def options(lang: str, section: str) -> dict[str, str]:
    """The ``label: value`` items of a section's options paragraph, labels in lower case."""
    paragraphs = [" ".join(p.split()) for p in section.split("\n\n")]
    found = [p for p in paragraphs if p.startswith(MARKER[lang])]
    assert len(found) == 1, f"{lang}: one {MARKER[lang]} paragraph per preset"
    items: dict[str, str] = {}
    for item in found[0].removeprefix(MARKER[lang]).strip().rstrip(".").split(";"):
        label, sep, value = item.partition(":")
        assert sep, f"{lang}: {item!r} is not 'label: value'"
        assert label.strip().lower() not in items, f"{lang}: {label!r} twice"
        items[label.strip().lower()] = value.strip()
    return items


def expected_options(lang: str, rules: Rules) -> dict[str, str]:
    """What an options paragraph must say for ``rules``: label (lower case) to words."""
    return {WORDS[f][lang][0].lower(): WORDS[f][lang][1](rules) for f in WORDS}


# ---------------------------------------------------------------------- the options


def test_every_field_of_rules_has_words() -> None:
    assert set(WORDS) == {f.name for f in dataclasses.fields(Rules)}
    for lang in FILES:
        labels = [WORDS[f][lang][0].lower() for f in WORDS]
        assert len(set(labels)) == len(labels), f"{lang}: two fields share a label"


def _values(field: dataclasses.Field[Any]) -> list[Any]:
    default = getattr(Rules(), field.name)
    if isinstance(default, bool):
        return [False, True]
    if field.name == "deck":
        return [52, 36]
    if isinstance(default, int):
        return [default, default + 1]
    assert isinstance(default, StrEnum)
    return list(type(default))


@pytest.mark.parametrize("lang", list(FILES))
@pytest.mark.parametrize("field", dataclasses.fields(Rules), ids=lambda f: f.name)
def test_the_words_tell_every_value_apart(lang: str, field: dataclasses.Field[Any]) -> None:
    """Each item names its field's value: any two values of the field read differently in
    at least one preset (in some presets a value is inert, e.g. who is searched in Zone)."""
    label, words = WORDS[field.name][lang]
    for a, b in combinations(_values(field), 2):
        assert any(
            words(dataclasses.replace(r, **{field.name: a}))
            != words(dataclasses.replace(r, **{field.name: b}))
            for r in PRESETS.values()
        ), f"{lang}: {label!r} reads the same for {a!r} and {b!r}"


@pytest.mark.parametrize("lang", list(FILES))
def test_one_section_per_preset(lang: str) -> None:
    assert set(sections(lang)) == set(PRESETS)


@pytest.mark.parametrize("lang", list(FILES))
@pytest.mark.parametrize("name", list(PRESETS))
def test_docs_state_every_option_of_the_preset(lang: str, name: str) -> None:
    items = options(lang, sections(lang)[name])
    expected = expected_options(lang, preset(name))
    assert set(items) == set(expected), (
        f"{lang} `{name}`: missing {sorted(set(expected) - set(items))}, "
        f"unknown {sorted(set(items) - set(expected))}"
    )
    for label, value in expected.items():
        assert items[label].lower() == value.lower(), (
            f"{lang} `{name}`: {label} is {items[label]!r} in the docs, the engine says {value!r}"
        )


def test_both_languages_have_the_same_chapters() -> None:
    """Same headings, level by level and in the same order, and the presets in the same
    places: the two files are one text in two languages."""

    def outline(lang: str) -> list[tuple[int, tuple[str, ...]]]:
        text = FILES[lang].read_text(encoding="utf-8")
        return [(len(m.group(1)), tuple(re.findall(r"`(\w+)`", m.group(2))))
                for m in re.finditer(r"^(#+) (.*)$", text, re.MULTILINE)]

    assert outline("en") == outline("ru")


# ---------------------------------------------------------------------- the counts the docs give


def _hand_sizes(rules: Rules, players: int, seed: int) -> tuple[list[tuple[int, int, bool]], bool]:
    """A game played at random: per year (hand size, Drunkards sent north before it,
    famine), and whether the plan ran its full length."""
    game = Game.new(rules, players, seed=seed)
    rng = random.Random(seed)
    years = [(game.hand_size, 0, game.famine)]
    drunkards = 0
    early = False
    while not game.is_over:
        seat = game.to_act[0]
        for e in game.apply(seat, rng.choice(game.legal_actions(seat))):
            if isinstance(e, ev.DrunkardSentNorth):
                drunkards += 1
            elif isinstance(e, ev.YearStarted):
                years.append((e.hand_size, drunkards, e.famine))
            elif isinstance(e, ev.GameOver):
                early = e.early
    return years, not early


def _cap(rules: Rules, year: int, famine: bool) -> int:
    short = rules.final_year_short and year == rules.years
    return 4 if famine or short else 5


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("name", [n for n in PRESETS if preset(n).reward is not Reward.STACK])
def test_lean_years_as_the_docs_count_them(name: str, players: int) -> None:
    """"Lean years": with 4 players year 5 deals 4 cards (3 after a Drunkard went north) and
    year 4 deals 4 once a Drunkard went north; with 5 players years 3-5 deal 4, 3, 2; with 3
    players the deck never runs short. Famine and the short last year cap a year at 4."""
    rules = preset(name)
    for seed in range(12):
        years, full = _hand_sizes(rules, players, seed)
        assert full and len(years) == rules.years
        for year, (size, drunkards, famine) in enumerate(years, start=1):
            if players == 4:
                by_deck = {4: 5 if drunkards == 0 else 4, 5: 4 if drunkards == 0 else 3}
            elif players == 5:
                by_deck = {3: 4, 4: 3, 5: 2}
            else:
                by_deck = {}
            expected = min(by_deck.get(year, 5), _cap(rules, year, famine))
            assert size == expected, f"{name}, {players} players, seed {seed}, year {year}"


@pytest.mark.parametrize("players", [3, 4, 5])
def test_kolkhoz_has_one_famine_in_a_full_plan(players: int) -> None:
    """Kolkhoz: the ♣ pile has five cards, so a full five-year plan has one famine year."""
    rules = preset("kolkhoz")
    seen = set()
    for seed in range(12):
        years, full = _hand_sizes(rules, players, seed)
        assert full
        famines = [y for y, (_, _, famine) in enumerate(years, start=1) if famine]
        assert len(famines) == 1
        seen.update(famines)
    assert len(seen) > 1  # not always the same year
