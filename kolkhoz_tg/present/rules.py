"""The rules in words: preset titles and descriptions, a game's rules line and its house
rules, the levels' help and the full rules text.
"""

from __future__ import annotations

from typing import Any

from engine import Rules
from kolkhoz_tg import house_rules
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.keyboard import MAX_TEXT
from kolkhoz_tg.present.words import level_name
from kolkhoz_tg.rules_doc import plain_rules
from kolkhoz_tg.service.records import GameInfo


def preset_title(tr: Translator, preset: str | None) -> str:
    """A preset's name as the rules (docs/RULES.md) and the buttons call it, with its deck
    when that is not the usual one."""
    _ = tr.gettext
    titles = {
        "classic": _("Classic"),
        "original": _("Original"),
        "kolkhoz": _("Kolkhoz"),
        "kolkhoznik": _("Kolkhoznik (36 cards)"),
        "zone": _("Zone (36 cards)"),
    }
    return titles.get(preset or "", _("Custom rules"))


def rules_title(
    tr: Translator, preset: str | None, rules: Rules | None = None
) -> str:
    """A game's rules in a few words: the preset's name, then what the table changed
    ("Classic + passing, 4 years"; :mod:`kolkhoz_tg.house_rules`)."""
    title = preset_title(tr, preset)
    changed = [] if rules is None else house_rules.changes(preset, rules)
    if not changed or rules is None:
        return title
    labels = []
    for field, value in changed:
        label = house_rules.value_label(tr, field, value)
        if house_rules.inert(field, rules):
            label = tr.gettext("{option} (no effect with these rules)", option=label)
        labels.append(label)
    return tr.gettext("{preset} + {changes}", preset=title, changes=", ".join(labels))


def house_rules_text(tr: Translator, game: GameInfo) -> str:
    """What a game's table changed in its preset, one line each (``/rules`` in a game
    with house rules: the rules it is actually played by)."""
    _ = tr.gettext
    lines = ["⚙ " + _('Game {id} is played by "{rules}": the preset with these changes.',
                     id=game.id, rules=rules_title(tr, game.preset, game.rules))]
    for field, value in house_rules.changes(game.preset, game.rules):
        lines.append("• " + _house_rule_line(tr, field, value))
    return "\n".join(lines)


def _house_rule_line(tr: Translator, field: str, value: Any) -> str:
    _ = tr.gettext
    if field == "pass_cards" and value:
        return _("Passing: from year 2, once the trump is named (in a lean year, once the "
                 "cards are dealt), everyone chooses one card face-down; when all have "
                 "chosen, the cards move together, to the left in even years and to the "
                 "right in odd years. Only the sender and the receiver know the card.")
    if field == "hero" and value:
        return _("The Hero: a player who took every trick of the year is not searched for "
                 "failed jobs; everyone else is.")
    if field == "years":
        return tr.ngettext("The plan lasts {n} year.", "The plan lasts {n} years.",
                           int(value))
    if field == "medals_score" and value:
        return _("Medals: each medal (a trick taken) scores a point.")
    if field == "swap" and value:
        return _("Swap: from year 2, after the trump, everyone may swap a card of their "
                 "hand with a face-down card of their plot.")
    if field == "threshold":
        return _("A job is done at {n} hours.", n=value)
    label = house_rules.value_label(tr, field, value)
    return label[:1].upper() + label[1:] + "."


def rules_line(tr: Translator, game: GameInfo) -> str:
    _ = tr.gettext
    parts = [
        _('Rules: "{name}"', name=rules_title(tr, game.preset, game.rules)),
        tr.ngettext("{n} player", "{n} players", game.players),
        _("turn: {time}", time=tr.duration(game.turn_timeout)),
    ]
    return " · ".join(parts)


#: The presets in the order the lobby lists them.
PRESET_ORDER = ("classic", "original", "kolkhoz", "kolkhoznik", "zone")


def preset_description(tr: Translator, preset: str | None) -> str:
    """One line that tells a preset's rules apart from the others (empty for custom rules)."""
    _ = tr.gettext
    lines = {
        "classic": _("52 cards, jobs of 40 hours; the highest trump takes the trick; the "
                     "Brigadier wins the rewards."),
        "original": _("The original text: jobs of 36 hours, trump never takes a trick, a "
                      "short last year; a failed job exposes the whole plot."),
        "kolkhoz": _("52 cards, the Planner leads; swaps with your plot, rewards pile up, "
                     "famine years."),
        "kolkhoznik": _("36 cards, swaps with your plot; the Brigadier keeps the workers "
                        "as the reward."),
        "zone": _("36 cards, no rewards; everyone is searched for a failed job, and only "
                  "the single highest card goes north."),
    }
    return lines.get(preset or "", "")


def preset_button(tr: Translator, preset: str) -> str:
    """A preset's name short enough for a button (the message carries the full title)."""
    _ = tr.gettext
    labels = {
        "classic": _("Classic"),
        "original": _("Original"),
        "kolkhoz": _("Kolkhoz"),
        "kolkhoznik": _("Kolkhoznik · 36"),
        "zone": _("Zone · 36"),
    }
    return labels.get(preset, preset)


def levels_help(tr: Translator) -> str:
    """What the bot levels mean, in one line each (for /help and the level menus)."""
    _ = tr.gettext
    return "\n".join([
        "🤖 " + _("Bots:"),
        "• " + _("{level} — plays by rules of thumb, at once.", level=level_name(tr, "normal")),
        "• " + _("{level} — thinks each move over, trying many ways the unseen cards may "
                 "lie (a fraction of a second).", level=level_name(tr, "strong")),
        "• " + _("{level} — thinks longer and expects careful opponents, whose moves it "
                 "foresees more closely.",
                 level=level_name(tr, "hard")),
        _("Bots see only what their seat sees. Stand-ins for silent players play at the "
          "chat's level: /settings bots strong."),
    ])


def full_rules(locale: str) -> list[str] | None:
    """The players' rules (docs/RULES.md, docs/RULES.ru.md) as plain-text messages of at most
    4096 characters; None where the docs are not installed."""
    text = plain_rules(locale)
    if text is None:
        return None
    parts: list[str] = []
    current = ""
    for paragraph in text.split("\n\n"):
        if current and len(current) + len(paragraph) + 2 > MAX_TEXT:
            parts.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph[:MAX_TEXT]
    if current:
        parts.append(current)
    return parts
