"""House rules: a game played under a preset with some of its options changed (RULES.md
revision 4, "House rules"), in words players read.

A game stores the options it is played with (``GameInfo.rules``) and the preset it was
chosen from (``GameInfo.preset``); what differs between the two is the game's house rules.
The game keeps the preset's name with the changes listed — "Classic + passing, 4 years" —
wherever the preset is shown. The lobby's *House rules* screen offers
every option (:data:`OPTIONS`, the values a table may choose), and ``/newgame`` reads them
typed (:func:`parse_option`); :func:`kolkhoz_tg.present.rules.rules_title` names a game's rules.
Ratings count only games played under an unchanged preset,
medals aside (:func:`rated_rules`).

Telegram-neutral: the bot and the terminal both use it.
"""

from __future__ import annotations

from dataclasses import dataclass
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


def changes(preset_value: str | None, rules: Rules) -> list[tuple[str, Any]]:
    """The options of ``rules`` that differ from the preset's, in :data:`OPTIONS` order
    (empty for a game without a preset: its title says "Custom rules")."""
    if preset_value is None:
        return []
    try:
        base = preset(preset_value).to_dict()
    except ValueError:
        return []
    played = rules.to_dict()
    return [(o.field, played[o.field]) for o in OPTIONS
            if o.field in played and played[o.field] != base.get(o.field)]


def rated_rules(rules: Rules) -> bool:
    """Whether a game under ``rules`` counts for ratings: a preset unchanged but for its
    medals."""
    return preset_name(rules) is not None


def value_label(tr: Translator, field: str, value: Any) -> str:
    """An option's value in a few words, as a title lists it ("passing", "4 years")."""
    _ = tr.gettext
    if field == "years":
        return tr.ngettext("{n} year", "{n} years", int(value))
    if field == "threshold":
        return _("jobs of {n} hours", n=value)
    if field == "deck":
        return tr.ngettext("{n} card", "{n} cards", int(value))
    words: dict[tuple[str, Any], str] = {
        ("pass_cards", True): _("passing"),
        ("pass_cards", False): _("no passing"),
        ("hero", True): _("the Hero"),
        ("hero", False): _("no Hero"),
        ("medals_score", True): _("medals"),
        ("medals_score", False): _("no medal points"),
        ("swap", True): _("swap"),
        ("swap", False): _("no swap"),
        ("first_lead", "planner"): _("the Planner leads"),
        ("first_lead", "left_of_planner"): _("left of the Planner leads"),
        ("trump_lead_restricted", True): _("no early trump lead"),
        ("trump_lead_restricted", False): _("trump led any time"),
        ("trump_wins", True): _("trump wins tricks"),
        ("trump_wins", False): _("trump never wins a trick"),
        ("final_year_short", True): _("short last year"),
        ("final_year_short", False): _("full last year"),
        ("assignment", "suit"): _("cards to their own suit's job"),
        ("assignment", "present"): _("cards to any suit in the trick"),
        ("reward", "brigadier"): _("rewards to the Brigadier"),
        ("reward", "none"): _("no rewards"),
        ("reward", "stack"): _("workers as rewards"),
        ("accumulate_rewards", True): _("rewards pile up"),
        ("accumulate_rewards", False): _("rewards discarded yearly"),
        ("requisition", "brigadiers"): _("Brigadiers searched"),
        ("requisition", "everyone"): _("everyone searched"),
        ("losers", "each"): _("each searched loses a card"),
        ("losers", "highest"): _("only the highest card goes"),
        ("reveal", "matching"): _("matching cards shown"),
        ("reveal", "highest"): _("the highest card shown"),
        ("reveal", "plot"): _("the whole plot shown"),
        ("nomenklatura", True): _("trump J, Q, K have roles"),
        ("nomenklatura", False): _("no Drunkard, Queen or King"),
        ("drunkard", "cancels"): _("the Drunkard stops the search"),
        ("drunkard", "replaces"): _("the Drunkard replaces a card"),
        ("famine", True): _("famine years"),
        ("famine", False): _("no famine"),
        ("mice_fallback", True): _("the mice rule as a fallback"),
        ("mice_fallback", False): _("no mice fallback"),
        ("theme", "jobs"): _("jobs: Plowing, Harvest…"),
        ("theme", "fields"): _("fields: Wheat, Beets…"),
    }
    return words.get((field, value), f"{field}={value}")


def inert(field: str, rules: Rules) -> bool:
    """Whether an option switched on has no effect under the rest of ``rules`` (RULES.md:
    such combinations are allowed and shown as such): the Hero without Brigadiers searched
    for reward cards, passing or the swap in a plan of one year, famine without the reward
    piles that turn up the Ace of Clubs."""
    r = rules
    checks = {
        "hero": r.hero and not r.hero_applies,
        "pass_cards": r.pass_cards and r.years < 2,
        "swap": r.swap and r.years < 2,
        "famine": r.famine and not r.has_rewards,
    }
    return checks.get(field, False)


def option_button(tr: Translator, option: Option, rules: Rules, changed: bool) -> str:
    """The text of an option's button on the *House rules* screen: a switch (✅ / ▫️) for
    a yes-or-no option, the value for the others; ``changed``: differs from the preset
    (marked ✏️)."""
    value = rules.to_dict().get(option.field)
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
