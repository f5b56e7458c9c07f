"""A bot's advice in words: the 💡 hint of a practice game, in one line.

The engine says why it chose a move with a code (``engine.ai.heuristic.Reason``) and, at the
search levels, figures (the move's mean value against the runner-up's); here they become a
sentence in the reader's language. Nothing here decides anything: a reason the engine gains
later reads as "the bot's choice" until it has words of its own.

Given the seat's view (the one the advice was worked out on), a hint says more: a job is
named as the assignment buttons name it (``J♠ → ♠ Grain``), and an assignment's reason is
what the card does there, read from the view (the hours it adds and what is still missing,
the job it completes and the rewards that brings, the plot cards a failure would put at
risk) instead of the reason code's general words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from babel.numbers import format_percent

from engine import Action, ActionKind, Card
from engine.ai import Advice, Reason
from engine.cards import CARD_TEXT, Suit
from engine.rules import Reward
from engine.views import JobView, View
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.events import card_action
from kolkhoz_tg.present.words import card, job_name, seat_name
from kolkhoz_tg.service.records import GameInfo

#: The longest text a Telegram alert shows (characters): a hint must fit in it.
HINT_LIMIT: Final = 200
#: Two moves whose figures (in whole percent) differ by less than this are "little
#: difference" apart: with the few playouts of a hint such a gap is noise.
CLOSE_POINTS: Final = 3

#: The reason codes an assignment's own effect, read from the view, explains better.
_EFFECT_REASONS: Final = frozenset({Reason.ASSIGN, Reason.BUILD_JOB, Reason.COMPLETE_JOB,
                                     Reason.DRUNK_SHIELD})


def reason_words(tr: Translator, code: str) -> str:
    """One ``engine.ai.heuristic.Reason`` code in words (short: it goes in an alert)."""
    _ = tr.gettext
    words = {
        "only_move": _("the only possible move"),
        "random": _("a move picked at random"),
        "trump_longest": _("the suit you hold most of, and highest"),
        "trump_suit": _("a trump that suits the hand"),
        "swap_hide": _("hides a strong card in your plot for a weak face-down one"),
        "swap_keep": _("no swap gains enough to be worth it"),
        "swap": _("this swap pays off"),
        "pass_low": _("pass a low side card, of your shortest suit: keep trumps and strong "
                      "cards"),
        "pass_card": _("this card is worth little to you"),
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


def move_words(tr: Translator, action: str, view: View | None = None) -> str:
    """The advised move, short: ``10♥``, ``♠`` (a trump), ``9♥⇄K♣``, no swap; an
    assignment ``10♥ → ♠ Grain`` with the job named as on its button (``10♥→♠`` without
    the view, which knows the rules' names for the jobs)."""
    a = Action.parse(action)
    if view is not None and a.kind is ActionKind.ASSIGN:
        assert a.card is not None and a.suit is not None
        name = job_name(tr, view.rules.theme.value, a.suit.letter)
        return f"{card(tr, str(a.card))} → {a.suit.symbol} {name}"
    short = card_action(tr, action)
    return tr.gettext("no swap") if short == "—" else short


def assign_effect(tr: Translator, view: View, action: str) -> list[str]:
    """What an assignment does, read from the view: the reason first (the job it completes
    or the hours it adds and what is still missing), then what else it brings (the rewards
    it wins, the plot cards a failure would put at risk), most telling first. Empty for
    any other action, and for a finished job (the reason code says it best)."""
    _ = tr.gettext
    a = Action.parse(action)
    if a.kind is not ActionKind.ASSIGN or a.card is None or a.suit is None:
        return []
    job = view.job(a.suit)
    worker = a.card
    if job.complete:
        return []
    if worker == job.drunkard:
        at_risk = _plot_workers(view, job)
        if at_risk:
            return [_("the Drunkard adds no hours, but if the job fails he goes north "
                      "instead of your plot's {cards}", cards=_cards(tr, at_risk))]
        return [_("the Drunkard adds no hours, but if the job fails he alone goes north")]
    if job.hours >= job.threshold:
        # An earlier card of this trick reached the threshold: it completes either way.
        parts = [tr.ngettext("the trick completes the job anyway ({hours} of {n} hour)",
                             "the trick completes the job anyway ({hours} of {n} hours)",
                             job.threshold, hours=job.hours)]
        return [*parts, *_reward_words(tr, job, worker)]
    hours = _hours(tr, job, worker)
    if job.completes(worker):
        return [_("completes the job: {hours}", hours=hours), *_reward_words(tr, job, worker)]
    missing = job.threshold - job.hours_after(worker)
    parts = [tr.ngettext("{hours}, {n} more hour still needed",
                         "{hours}, {n} more hours still needed", missing, hours=hours)]
    at_risk = _plot_workers(view, job)
    if at_risk:
        parts.append(_("a failed job would put your plot's {cards} at risk",
                       cards=_cards(tr, at_risk)))
    return parts


def chances_words(tr: Translator, advice: Advice, view: View | None = None) -> str:
    """The search's figures in words: ``chance to win: 62%, against 48% for J♥``, or
    ``little difference`` from the runner-up when the two are within :data:`CLOSE_POINTS`;
    empty when there are none, or when the move's figure is 0% (a figure that says
    nothing, and "0% vs 0%" even less)."""
    _ = tr.gettext
    value = advice.value
    if value is None:
        return ""
    mine = round(value * 100)
    if mine <= 0:
        return ""
    percent = _percent(tr, mine)
    other, other_value = advice.runner_up, advice.runner_up_value
    if other is None or other_value is None:
        return _("chance to win: {value}", value=percent)
    theirs = round(other_value * 100)
    move = move_words(tr, other.text, view)
    if abs(mine - theirs) < CLOSE_POINTS:
        return _("chance to win: {value}, little difference from {move}", value=percent,
                 move=move)
    return _("chance to win: {value}, against {other} for {move}", value=percent,
             other=_percent(tr, theirs), move=move)


def inferred_words(tr: Translator, advice: Advice, game: GameInfo | None) -> str:
    """What the hint's search inferred from the others' plays, the most telling thing
    (``Boris probably has no ♦ left``, ``Bot 2 probably holds K♠``); empty when it inferred
    nothing worth telling, or without the game to name the player."""
    if not advice.inferred or game is None:
        return ""
    first = advice.inferred[0]
    name = seat_name(tr, game, first.seat)
    if first.kind == "void":
        return tr.gettext("{name} probably has no {suit} left", name=name,
                          suit=Suit(first.value).symbol)
    return tr.gettext("{name} probably holds {card}", name=name,
                      card=card(tr, CARD_TEXT[first.value]))


def hint_line(
    tr: Translator, advice: Advice, view: View | dict[str, Any] | None = None,
    game: GameInfo | None = None,
) -> str:
    """``💡 10♥: takes the trick for now — chance to win: 62%, against 48% for J♥`` (what
    :func:`kolkhoz_tg.aiplay.advise` returned, in one line of at most :data:`HINT_LIMIT`
    characters). ``view``: the seat's view the advice was worked out on (its JSON or typed
    form); with it, jobs are named as on the buttons and an assignment says what it does
    there (``💡 J♠ → ♠ Grain: 22→33 of 40 hours, 7 more hours still needed``)."""
    _ = tr.gettext
    typed = View.from_dict(view) if isinstance(view, dict) else view
    action = advice.action.text
    effect: list[str] = []
    if typed is not None and advice.reason in _EFFECT_REASONS:
        effect = assign_effect(tr, typed, action)
    chances = chances_words(tr, advice, typed)
    inferred = inferred_words(tr, advice, game)
    if inferred:
        # What was inferred says more than the figures: it goes first when both do not fit.
        tail = [f"{chances} · {inferred}" if chances else inferred, inferred, chances]
    else:
        tail = [chances]

    def line(parts: list[str], move: Callable[[], str], end: str) -> str:
        why = "; ".join(parts) if parts else reason_words(tr, advice.reason.value)
        text = "💡 " + _("{move}: {why}", move=move(), why=why)
        return text + " — " + end if end else text

    # The richest line that fits an alert: the extras of the effect go first, then the
    # job's name (never the reason or the figures).
    named = [lambda: move_words(tr, action, typed), lambda: move_words(tr, action)]
    for end in tail:
        for move in named:
            for keep in range(len(effect), 0, -1) if effect else [0]:
                text = line(effect[:keep], move, end)
                if len(text) <= HINT_LIMIT:
                    return text
    return line(effect[:1], named[-1], tail[-1])[:HINT_LIMIT]


def _percent(tr: Translator, points: int) -> str:
    return format_percent(points / 100, locale=tr.locale)


def _cards(tr: Translator, cards: tuple[Card, ...] | list[Card]) -> str:
    return " ".join(card(tr, str(c)) for c in cards)


def _hours(tr: Translator, job: JobView, worker: Card) -> str:
    """``22→33 of 40 hours``: the job's hours before and after the card, of its threshold."""
    return tr.ngettext("{before}→{after} of {n} hour", "{before}→{after} of {n} hours",
                       job.threshold, before=job.hours, after=job.hours_after(worker))


def _reward_words(tr: Translator, job: JobView, worker: Card) -> list[str]:
    """What the Brigadier (the seat placing the card) wins when the job completes."""
    won = job.rewards_won(worker)
    if won:
        return [tr.gettext("you take {cards}", cards=_cards(tr, won))]
    if job.reward is Reward.STACK:
        return [tr.gettext("its workers go to your plot as a stack")]
    return []


def _plot_workers(view: View, job: JobView) -> list[Card]:
    """The workers of the job's suit in the reader's own plot, face-down or up, highest
    first: what a requisition for this job would search for."""
    me = view.me
    if me is None:
        return []
    plot = (me.plot_hidden or ()) + me.plot_revealed
    return sorted((c for c in plot if c.suit is job.suit and c.is_worker),
                  key=lambda c: -c.rank)
