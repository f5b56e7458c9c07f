"""House rules: a game played under a preset with some of its options changed (RULES.md
revision 4, "House rules"), in words players read.

A game stores the options it is played with (``GameInfo.rules``) and the preset it was
chosen from (``GameInfo.preset``); what differs between the two is the game's house rules.
The game keeps the preset's name with the changes listed — "Classic + passing, 4 years" —
wherever the preset is shown. The lobby's *House rules* screen offers
every option (:data:`OPTIONS`, the values a table may choose), and ``/newgame`` reads them
typed (:func:`parse_option`); :func:`kolkhoz_tg.texts.rules_title` names a game's rules.
Ratings count only games played under an unchanged preset,
medals aside (:func:`rated_rules`).

Telegram-neutral: the bot and the terminal both use it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from engine import Rules, preset
from engine.rules import preset_name
from kolkhoz_tg.i18n import Translator

#: Years a table may choose (RULES.md: ``years``, an int; a plan of 1 to 10 years).
YEARS: Final = tuple(range(1, 11))
#: Work hours to complete a job a table may choose.
THRESHOLDS: Final = (30, 36, 40, 45, 50)


@dataclass(frozen=True, slots=True)
class Option:
    """One option of :class:`engine.Rules` as the lobby offers it: its field and the values
    a table may choose, in the order a tap cycles through them."""

    field: str
    values: tuple[Any, ...]

    def next_value(self, current: Any) -> Any:
        """The value a tap on the option's button sets."""
        try:
            return self.values[(self.values.index(current) + 1) % len(self.values)]
        except ValueError:
            return self.values[0]


#: Every option, house rules first, then the rest in the order of RULES.md's table.
OPTIONS: Final = (
    Option("pass_cards", (True, False)),
    Option("hero", (True, False)),
    Option("years", YEARS),
    Option("medals_score", (True, False)),
    Option("swap", (True, False)),
    Option("deck", (52, 36)),
    Option("threshold", THRESHOLDS),
    Option("first_lead", ("left_of_planner", "planner")),
    Option("trump_lead_restricted", (True, False)),
    Option("trump_wins", (True, False)),
    Option("final_year_short", (True, False)),
    Option("assignment", ("suit", "present")),
    Option("reward", ("brigadier", "none", "stack")),
    Option("accumulate_rewards", (True, False)),
    Option("requisition", ("brigadiers", "everyone")),
    Option("losers", ("each", "highest")),
    Option("reveal", ("matching", "highest", "plot")),
    Option("nomenklatura", (True, False)),
    Option("drunkard", ("cancels", "replaces")),
    Option("famine", (True, False)),
    Option("mice_fallback", (True, False)),
    Option("theme", ("jobs", "fields")),
)
BY_FIELD: Final = {o.field: o for o in OPTIONS}


def changes(preset_value: str | None, rules: dict[str, Any]) -> list[tuple[str, Any]]:
    """The options of ``rules`` that differ from the preset's, in :data:`OPTIONS` order
    (empty for a game without a preset: its title says "Custom rules")."""
    if preset_value is None:
        return []
    try:
        base = preset(preset_value).to_dict()
    except ValueError:
        return []
    played = {**base, **rules}
    return [(o.field, played[o.field]) for o in OPTIONS
            if o.field in played and played[o.field] != base.get(o.field)]


def rated_rules(rules: dict[str, Any]) -> bool:
    """Whether a game under ``rules`` counts for ratings: a preset unchanged but for its
    medals."""
    try:
        return preset_name(Rules.from_dict(rules)) is not None
    except (TypeError, ValueError):
        return False


def with_option(rules: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    """``rules`` with ``field`` set (raises :class:`ValueError` for a value the rules
    refuse)."""
    return replace(Rules.from_dict(rules), **{field: value}).to_dict()


def value_label(tr: Translator, field: str, value: Any) -> str:
    """An option's value in a few words, as a title lists it ("passing", "4 years")."""
    _ = tr.gettext
    if field == "years":
        return tr.ngettext("{n} year", "{n} years", int(value))
    if field == "threshold":
        return _("jobs of {n} hours", n=value)
    if field == "deck":
        return tr.ngettext("{n} card", "{n} cards", int(value))
    words: dict[tuple[str, Any], Callable[[], str]] = {
        ("pass_cards", True): lambda: _("passing"),
        ("pass_cards", False): lambda: _("no passing"),
        ("hero", True): lambda: _("the Hero"),
        ("hero", False): lambda: _("no Hero"),
        ("medals_score", True): lambda: _("medals"),
        ("medals_score", False): lambda: _("no medal points"),
        ("swap", True): lambda: _("swap"),
        ("swap", False): lambda: _("no swap"),
        ("first_lead", "planner"): lambda: _("the Planner leads"),
        ("first_lead", "left_of_planner"): lambda: _("left of the Planner leads"),
        ("trump_lead_restricted", True): lambda: _("no early trump lead"),
        ("trump_lead_restricted", False): lambda: _("trump led any time"),
        ("trump_wins", True): lambda: _("trump wins tricks"),
        ("trump_wins", False): lambda: _("trump never wins a trick"),
        ("final_year_short", True): lambda: _("short last year"),
        ("final_year_short", False): lambda: _("full last year"),
        ("assignment", "suit"): lambda: _("cards to their own suit's job"),
        ("assignment", "present"): lambda: _("cards to any suit in the trick"),
        ("reward", "brigadier"): lambda: _("rewards to the Brigadier"),
        ("reward", "none"): lambda: _("no rewards"),
        ("reward", "stack"): lambda: _("workers as rewards"),
        ("accumulate_rewards", True): lambda: _("rewards pile up"),
        ("accumulate_rewards", False): lambda: _("rewards discarded yearly"),
        ("requisition", "brigadiers"): lambda: _("Brigadiers searched"),
        ("requisition", "everyone"): lambda: _("everyone searched"),
        ("losers", "each"): lambda: _("each searched loses a card"),
        ("losers", "highest"): lambda: _("only the highest card goes"),
        ("reveal", "matching"): lambda: _("matching cards shown"),
        ("reveal", "highest"): lambda: _("the highest card shown"),
        ("reveal", "plot"): lambda: _("the whole plot shown"),
        ("nomenklatura", True): lambda: _("trump J, Q, K have roles"),
        ("nomenklatura", False): lambda: _("no Drunkard, Queen or King"),
        ("drunkard", "cancels"): lambda: _("the Drunkard stops the search"),
        ("drunkard", "replaces"): lambda: _("the Drunkard replaces a card"),
        ("famine", True): lambda: _("famine years"),
        ("famine", False): lambda: _("no famine"),
        ("mice_fallback", True): lambda: _("the mice rule as a fallback"),
        ("mice_fallback", False): lambda: _("no mice fallback"),
        ("theme", "jobs"): lambda: _("jobs: Plowing, Harvest…"),
        ("theme", "fields"): lambda: _("fields: Wheat, Beets…"),
    }
    found = words.get((field, value))
    return found() if found is not None else f"{field}={value}"


def option_button(tr: Translator, option: Option, rules: dict[str, Any], changed: bool) -> str:
    """The text of an option's button on the *House rules* screen: a switch (✅ / ▫️) for
    a yes-or-no option, the value for the others; ``changed``: differs from the preset
    (marked ✏️)."""
    value = rules.get(option.field)
    mark = "✏️ " if changed else ""
    if option.values == (True, False):
        return mark + ("✅ " if value else "▫️ ") + value_label(tr, option.field, True)
    if option.field == "years":
        return mark + tr.gettext("Years: {n}", n=value)
    return mark + value_label(tr, option.field, value)


def parse_option(word: str) -> tuple[str, Any] | None:
    """One option typed after ``/newgame`` (``pass``, ``hero``, ``medals``, ``swap``,
    ``years=4``, ``threshold=36``, ``no-swap``; any field as ``field=value``), or None."""
    word = word.strip().lower()
    flags = {"pass": "pass_cards", "passing": "pass_cards", "hero": "hero",
             "medals": "medals_score", "swap": "swap", "famine": "famine"}
    negate = word.startswith(("no-", "no_"))
    bare = word[3:] if negate else word
    if bare in flags:
        return flags[bare], not negate
    if bare in BY_FIELD and BY_FIELD[bare].values == (True, False):
        return bare, not negate
    name, sep, text = word.partition("=")
    if not sep or negate:
        return None
    name = {"pass": "pass_cards", "medals": "medals_score"}.get(name, name)
    option = BY_FIELD.get(name)
    if option is None:
        return None
    for value in option.values:
        if str(value).lower() == text or (value is True and text in ("yes", "on", "1"))\
                or (value is False and text in ("no", "off", "0")):
            return name, value
    return None


def known_fields() -> set[str]:
    """Every field of :class:`engine.Rules` (the screen offers them all)."""
    return {f.name for f in fields(Rules)}
