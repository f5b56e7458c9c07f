"""A bot's advice in words: the 💡 hint of a practice game, in one line.

The engine says why it chose a move with a code (``engine.heuristic.Reason``) and, at the
search levels, figures (the move's mean value against the runner-up's); here they become a
sentence in the reader's language. Nothing here decides anything: a reason the engine gains
later reads as "the bot's choice" until it has words of its own.
"""

from __future__ import annotations

from typing import Any

from babel.numbers import format_percent

from kolkhoz_tg import texts
from kolkhoz_tg.i18n import Translator


def reason_words(tr: Translator, code: str) -> str:
    """One ``engine.heuristic.Reason`` code in words (short: it goes in an alert)."""
    _ = tr.gettext
    words = {
        "only_move": _("the only possible move"),
        "random": _("a move picked at random"),
        "trump_longest": _("the suit you hold most of, and highest"),
        "trump_suit": _("a trump that suits the hand"),
        "swap_hide": _("hides a strong card in your plot for a weak face-down one"),
        "swap_keep": _("no swap gains enough to be worth it"),
        "swap": _("this swap pays off"),
        "spend_high": _("everyone is searched: spend strong cards on the jobs, keep weak ones"),
        "lead_low": _("lead low from a side suit, keep strong cards for the plot"),
        "win_cheap": _("last to play: the lowest card that takes a valuable trick"),
        "win_high": _("the trick is worth having: the strongest card that wins it"),
        "duck": _("the trick is worth little: the lowest card that lets it go"),
        "dump": _("nothing can take the trick: the card least worth keeping"),
        "lowest": _("every card wins and the trick is worth little: the lowest one"),
        "keep_for_plot": _("your last card goes to the plot: keep the one worth more there"),
        "lead": _("a lead that pays off"),
        "take": _("takes the trick for now"),
        "give": _("lets the trick go"),
        "drunk_shield": _("the trump Jack shields the failing job your plot fears most"),
        "complete_job": _("completes the job"),
        "build_job": _("hours where they help most, above all your plot's suits"),
        "finished_job": _("only finished jobs are left: the smallest loss"),
        "assign": _("the job where this worker pays off"),
    }
    return words.get(code, _("the bot's choice"))


def move_words(tr: Translator, action: str) -> str:
    """The advised move, short: ``10♥``, ``10♥→♠``, ``♠`` (a trump), ``9♥⇄K♣``, no swap."""
    short = texts.card_action(tr, action)
    return tr.gettext("no swap") if short == "—" else short


def hint_line(tr: Translator, advice: dict[str, Any]) -> str:
    """``💡 10♥: takes the trick for now — search: 62% vs 48% for J♥`` (what
    :func:`kolkhoz_tg.botplay.advise` returned, in one line)."""
    _ = tr.gettext
    line = "💡 " + _("{move}: {why}", move=move_words(tr, advice["action"]),
                    why=reason_words(tr, advice["reason"]))
    value = advice.get("value")
    if value is not None:
        mine = format_percent(value, locale=tr.locale)
        other = advice.get("runner_up")
        if other is not None and advice.get("runner_up_value") is not None:
            line += " — " + _("search: {value} vs {other} for {move}", value=mine,
                              other=format_percent(advice["runner_up_value"],
                                                   locale=tr.locale),
                              move=move_words(tr, other))
        else:
            line += " — " + _("search: {value}", value=mine)
    return line
