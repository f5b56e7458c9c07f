"""What happened, in lines: moves and events (one small function per event kind), the
requisition of a failed job, the year's summary, the notifications and the final table.

Everything here reads typed records: the engine's events (:mod:`engine.events`), its
per-job requisition summary (:mod:`engine.summary`) and the notifications' payloads
(:mod:`kolkhoz_tg.service.payloads`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Final

from engine import Action, ActionKind
from engine import events as ev
from engine.cards import Card, Suit
from engine.summary import JobRequisition, fold_requisitions
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.board import winners_line
from kolkhoz_tg.present.words import SUIT_SYMBOLS, and_list, card, cards, job_name, seat_name
from kolkhoz_tg.service.payloads import (
    BoardChanged,
    GameHeader,
    GameOver,
    LoggedMove,
    PlayerBack,
    Reminder,
    StandIn,
    TimedOut,
    TimeExtended,
    TookBack,
    YearSummary,
)
from kolkhoz_tg.service.records import GameInfo, GameResult, Kind, Notification
from kolkhoz_tg.storage.models import Actor

#: Whose seats an event's sentence names: a notification's game, or a game's header.
Seats = GameHeader | GameInfo

#: Events a YEAR_SUMMARY notification reports (so a board's event list may leave them out).
YEAR_END_EVENTS: Final = (
    ev.CardsToPlot, ev.HeroNamed, ev.MiceRuleApplied, ev.JobFailed, ev.DrunkardSentNorth,
    ev.CardsRevealed, ev.CardSentNorth, ev.NothingRequisitioned, ev.StacksReturned,
)

_CHOICES: Final = (ev.CardPlayed, ev.TrumpDeclared, ev.SwapDecided, ev.CardAssigned,
                   ev.PassChosen)

#: The year-end events :func:`requisition_lines` tells job by job.
_REQUISITION: Final = (ev.JobFailed, ev.DrunkardSentNorth, ev.CardsRevealed, ev.CardSentNorth,
                       ev.NothingRequisitioned)

_AUTOMATIC: Final = (Actor.TIMEOUT, Actor.STANDIN)


def _text(c: Card) -> str:
    return str(c)


def event_lines(tr: Translator, game: Seats, moves: Sequence[LoggedMove],
                theme: str, year_end: bool = False, viewer: int | None = None) -> list[str]:
    """One line per interesting event of the moves in a board notification; the year's
    requisition only with ``year_end`` (a YEAR_SUMMARY notification carries it too).
    The moves of seat ``viewer`` that were its only possible ones say so: only to that seat,
    since a card played as the only one tells what else its hand does not hold."""
    lines: list[str] = []
    for move in moves:
        events = move.events
        told = [i for i, e in enumerate(events) if isinstance(e, _REQUISITION)]
        if year_end and told:
            # The requisition job by job, each failure said once (as in the year's summary).
            first, last = told[0], told[-1] + 1
            lines += event_lines(tr, game, [replace(move, events=events[:first])], theme, True,
                                 viewer)
            lines += requisition_lines(tr, game, events[first:last], theme)
            lines += event_lines(tr, game, [replace(move, events=events[last:])], theme, True,
                                 viewer)
            continue
        for e in events:
            if not year_end and isinstance(e, YEAR_END_EVENTS):
                continue
            line = event_text(tr, game, e, theme)
            if line:
                if isinstance(e, _CHOICES) and move.actor in _AUTOMATIC:
                    line += " " + tr.gettext("(played automatically)")
                elif (isinstance(e, _CHOICES) and move.actor is Actor.FORCED
                      and viewer is not None and move.seat == viewer):
                    line += " " + tr.gettext("(the only possible move)")
                elif isinstance(e, ev.CardPlayed) and move.actor is Actor.FORCED:
                    # Played the moment the turn came: everyone sees that it was not
                    # chosen, so the board says so.
                    line += " " + tr.gettext("(played automatically)")
                lines.append(line)
    return lines


@dataclass(frozen=True)
class _Say:
    """What an event's sentence needs: the reader's language, the game (for seat names)
    and the job names' theme."""

    tr: Translator
    game: Seats
    theme: str

    def name(self, seat: int) -> str:
        return seat_name(self.tr, self.game, seat)

    def job(self, suit: Suit) -> str:
        return job_name(self.tr, self.theme, suit.letter)

    def card(self, c: Card) -> str:
        return card(self.tr, _text(c))

    def cards(self, cs: Sequence[Card]) -> str:
        return cards(self.tr, [_text(c) for c in cs])


def _year_started(say: _Say, e: ev.YearStarted) -> str:
    tr, _ = say.tr, say.tr.gettext
    text = _("Year {year} begins: Planner {name}, {cards}.", year=e.year,
             name=say.name(e.planner),
             cards=tr.ngettext("{n} card each", "{n} cards each", e.hand_size))
    if e.famine:
        text += " " + _("Famine year: no trump.")
    elif e.short:
        text += " " + _("Supply disruption in the plan's last year: no trump.")
    elif e.lean:
        text += " " + _("A lean year: no trump.")
    return text


def _trump_declared(say: _Say, e: ev.TrumpDeclared) -> str:
    return say.tr.gettext("{name} declared trump {suit}.", name=say.name(e.seat),
                          suit=SUIT_SYMBOLS[e.suit.letter])


def _pass_chosen(say: _Say, e: ev.PassChosen) -> str:
    return say.tr.gettext("{name} chose a card to pass.", name=say.name(e.seat))


def _cards_passed(say: _Say, e: ev.CardsPassed) -> str:
    _ = say.tr.gettext
    if e.left:
        return "🔁 " + _("The chosen cards went round: each player's to the left "
                        "neighbour.")
    return "🔁 " + _("The chosen cards went round: each player's to the right "
                    "neighbour.")


def _swap_decided(say: _Say, e: ev.SwapDecided) -> str:
    _ = say.tr.gettext
    if e.swapped:
        return _("{name} swapped a card with the plot.", name=say.name(e.seat))
    return _("{name} kept their cards.", name=say.name(e.seat))


def _card_played(say: _Say, e: ev.CardPlayed) -> str:
    return say.tr.gettext("{name} played {card}.", name=say.name(e.seat),
                          card=say.card(e.card))


def _trick_won(say: _Say, e: ev.TrickWon) -> str:
    return say.tr.gettext("{name} takes the trick and is the Brigadier.",
                          name=say.name(e.seat))


def _card_assigned(say: _Say, e: ev.CardAssigned) -> str:
    return say.tr.gettext("{card} → {job} ({hours} h).", card=say.card(e.card),
                          job=say.job(e.job), hours=e.hours)


def _job_completed(say: _Say, e: ev.JobCompleted) -> str:
    _ = say.tr.gettext
    text = _("{job} completed by {name}!", job=say.job(e.job), name=say.name(e.seat))
    if e.rewards:
        text += " " + _("Reward: {cards}.", cards=say.cards(e.rewards))
    return text


def _hero_named(say: _Say, e: ev.HeroNamed) -> str:
    _ = say.tr.gettext
    return "🦸 " + _("{name} won every trick of the year: the Hero, searched for no "
                    "failed job; everyone else is searched and loses their own highest "
                    "card.", name=say.name(e.seat))


def _mice_rule_applied(say: _Say, e: ev.MiceRuleApplied) -> str:
    _ = say.tr.gettext
    return _("All four jobs failed and nobody was exposed: this year everyone is "
             "questioned, shows their highest card of each failed job, and only the "
             "highest of them goes north.")


def _job_failed(say: _Say, e: ev.JobFailed) -> str:
    return say.tr.gettext("{job} failed ({hours} h).", job=say.job(e.job), hours=e.hours)


def _drunkard_sent_north(say: _Say, e: ev.DrunkardSentNorth) -> str:
    _ = say.tr.gettext
    return _("The drunkard {card} on {job} is sent north instead.",
             card=say.card(e.card), job=say.job(e.job))


def _cards_revealed(say: _Say, e: ev.CardsRevealed) -> str:
    return say.tr.gettext("{name} reveals {cards}.", name=say.name(e.seat),
                          cards=say.cards(e.cards))


def _card_sent_north(say: _Say, e: ev.CardSentNorth) -> str:
    _ = say.tr.gettext
    return _("{job} not fulfilled: {name}'s {card} is requisitioned and sent north.",
             job=say.job(e.job), name=say.name(e.seat), card=say.card(e.card))


def _nothing_requisitioned(say: _Say, e: ev.NothingRequisitioned) -> str:
    return say.tr.gettext("{job} not fulfilled, but nobody had a card to lose.",
                          job=say.job(e.job))


def _stacks_returned(say: _Say, e: ev.StacksReturned) -> str:
    return say.tr.ngettext("{name}: {n} stack card goes back to the deck.",
                           "{name}: {n} stack cards go back to the deck.", e.returned,
                           name=say.name(e.seat))


def _year_ended(say: _Say, e: ev.YearEnded) -> str:
    return say.tr.gettext("Year {year} is over.", year=e.year)


#: One sentence builder per event type.
_EVENT_TEXTS: Final[dict[type[Any], Callable[[_Say, Any], str]]] = {
    ev.YearStarted: _year_started,
    ev.TrumpDeclared: _trump_declared,
    ev.PassChosen: _pass_chosen,
    ev.CardsPassed: _cards_passed,
    ev.SwapDecided: _swap_decided,
    ev.CardPlayed: _card_played,
    ev.TrickWon: _trick_won,
    ev.CardAssigned: _card_assigned,
    ev.JobCompleted: _job_completed,
    ev.HeroNamed: _hero_named,
    ev.MiceRuleApplied: _mice_rule_applied,
    ev.JobFailed: _job_failed,
    ev.DrunkardSentNorth: _drunkard_sent_north,
    ev.CardsRevealed: _cards_revealed,
    ev.CardSentNorth: _card_sent_north,
    ev.NothingRequisitioned: _nothing_requisitioned,
    ev.StacksReturned: _stacks_returned,
    ev.YearEnded: _year_ended,
}


def event_text(tr: Translator, game: Seats, e: ev.Event, theme: str) -> str:
    """A past-tense sentence for one engine event; events with no sentence (the cards going
    to the plots, the game's end) give an empty string."""
    say = _EVENT_TEXTS.get(type(e))
    return say(_Say(tr, game, theme), e) if say is not None else ""


def final_table(tr: Translator, over: GameOver) -> str:
    """The game-over table of a GAME_OVER notification."""
    _ = tr.gettext
    lines = [_("🏁 The five-year plan is complete")]
    if over.early:
        lines.append(_("(the deck ran dry before the last year)"))
    names: dict[int, str] = {}
    for row in over.table:
        who = tr.gettext("Bot {number}", number=row.name.rsplit(" ", 1)[-1]) if (
            row.is_ai) else row.name
        names[row.seat] = who
        # No padding: Telegram shows plain text in a proportional font, where spaces never
        # line columns up; the score follows the name as in a sentence.
        line = f"{row.rank}. {who} — " + tr.ngettext("{n} point", "{n} points", row.score)
        details = [_("plot: {cards}", cards=cards(tr, [_text(c) for c in row.plot]))]
        if row.medals:
            details.append(tr.ngettext("{n} medal", "{n} medals", row.medals))
        if row.auto_moves:
            details.append(tr.ngettext("{n} move played automatically",
                                       "{n} moves played automatically", row.auto_moves))
        lines.append(f"{line} ({' · '.join(details)})")
    if over.winners:
        scores = {row.seat: row.score for row in over.table}
        result = GameResult([scores.get(s, 0) for s in range(len(names))], list(over.winners))
        lines.append(winners_line(tr, result, [names.get(s, "?") for s in range(len(names))]))
    return "\n".join(lines)


def timed_out_text(tr: Translator, timed_out: TimedOut, *, warn: bool = True) -> str:
    """What was played for a player whose time ran out; ``warn``: and after how many more
    missed turns a bot stands in for them."""
    played = ", ".join(card_action(tr, a) for a in timed_out.actions)
    text = tr.gettext("Time ran out, so this was played for you: {actions}.", actions=played)
    left = timed_out.standin_after - timed_out.timeouts
    if warn and left > 0:
        text += " " + tr.ngettext(
            "After {n} more missed turn a bot will stand in for you.",
            "After {n} more missed turns a bot will stand in for you.", left)
    return text


def time_extended(tr: Translator, extended: TimeExtended) -> str:
    """The group's note that the bot could not reach these players (their turn went out
    late, or the bot was down) and their time was extended."""
    names = and_list(tr, list(extended.names))
    return "⏳ " + tr.ngettext("The bot could not reach {names}; their time was extended.",
                              "The bot could not reach {names}; their time was extended.",
                              len(extended.names), names=names)


def notification_text(
    tr: Translator, note: Notification, now: datetime, zone: str | None = None
) -> str:
    """A short text for any notification (what the terminal prints; the bot's messages use
    the same sentences). BOARD, YOUR_TURN and NEW_HAND are usually rendered as the board / the
    hand."""
    _ = tr.gettext
    p = note.payload
    if isinstance(p, BoardChanged):
        return "\n".join(event_lines(tr, p.game, p.moves, p.view.rules.theme.value))
    if note.kind is Kind.GAME_STARTED:
        return _("The game has started!")
    if note.kind is Kind.YOUR_TURN:
        return _("Your turn.")
    if note.kind is Kind.NEW_HAND:
        return _("You have been dealt a new hand.")
    if isinstance(p, Reminder):
        deadline = p.deadline
        assert deadline is not None
        if zone is not None:
            return _("Reminder: it is your move; time runs out {time} ({when}).",
                     time=tr.clock(deadline, now, zone), when=tr.relative(deadline, now))
        return _("Reminder: it is your move; time runs out {when}.",
                 when=tr.relative(deadline, now))
    if isinstance(p, TimedOut):
        return timed_out_text(tr, p)
    if isinstance(p, StandIn) and note.user_id is not None:
        return _("A bot plays for you from now on. To take your seat back, tap any button "
                 "of your game message or send /back.")
    if isinstance(p, StandIn):
        return _("A bot now plays for {name} until they are back.", name=p.name)
    if isinstance(p, PlayerBack):
        return _("{name} is back in the game.", name=p.name)
    if isinstance(p, TookBack):
        return took_back_text(tr, p)
    if isinstance(p, TimeExtended):
        return time_extended(tr, p)
    if isinstance(p, YearSummary):
        return year_summary(tr, p)
    if isinstance(p, GameOver):
        return final_table(tr, p)
    if note.kind is Kind.PAUSED:
        return _("The game is paused; the clock has stopped.")
    if note.kind is Kind.RESUMED:
        return _("The game goes on; the clock runs again.")
    if note.kind is Kind.ABORTED:
        return _("The game was called off.")
    return ""


def card_action(tr: Translator, action_text: str) -> str:
    """``play:10H`` → ``10♥``; ``assign:10H>S`` → ``10♥→♠``; for short summaries."""
    a = Action.parse(action_text)
    if a.kind is ActionKind.TRUMP and a.suit is not None:
        return SUIT_SYMBOLS[a.suit.letter]
    if a.kind is ActionKind.ASSIGN and a.card is not None and a.suit is not None:
        return f"{card(tr, str(a.card))}→{SUIT_SYMBOLS[a.suit.letter]}"
    if a.kind is ActionKind.SWAP:
        if a.card is None or a.target is None:
            return "—"
        return f"{card(tr, str(a.card))}⇄{card(tr, str(a.target))}"
    return card(tr, str(a.card))


def year_summary(tr: Translator, summary: YearSummary) -> str:
    _ = tr.gettext
    game, theme = summary.game, summary.theme
    lines = [_("Year {year}: the plan's results", year=summary.year)]
    last = summary.last_trick
    earlier = () if last is None else last.earlier
    if earlier:
        # Every trick of the year, in short: the board, edited at the group's pace, may not
        # have shown each one.
        lines.append(_("Tricks: {tricks}", tricks="; ".join(
            f"{cards(tr, [None if c is None else _text(c) for _s, c in t.cards])} → "
            f"{seat_name(tr, game, t.winner)}"
            for t in earlier)))
    if last is not None and last.winner is not None:
        played = " · ".join(
            seat_name(tr, game, s) + " " + card(tr, _text(c))
            + (f"→{SUIT_SYMBOLS[j.letter]}" if j is not None else "")
            for (s, c), j in zip(last.cards, last.jobs, strict=True))
        lines.append(_("The year's last trick: {cards} — won by {name}", cards=played,
                       name=seat_name(tr, game, last.winner)))
    for done in summary.completed:
        lines.append("✅ " + _("{job}: done by {name}.", job=job_name(tr, theme, done.job.letter),
                              name=seat_name(tr, game, done.seat)))
    lines += requisition_lines(tr, game, summary.events, theme)
    return "\n".join(lines)


def requisition_lines(
    tr: Translator, game: Seats, events: Sequence[ev.Event], theme: str
) -> list[str]:
    """The year's requisition, one line per failed job that says it failed once and names
    each card sent north and whose it was (``Workshop failed (8 h): Boris's K♣ and Vera's 9♣
    go north.``), then the cards shown that stay face up. Every card here is public: sent
    north or turned face up for everyone. Other year-end events get their own sentence.
    Each failed job comes from the engine's summary (:func:`engine.summary.fold_requisitions`)."""
    out: list[str] = []
    for item in fold_requisitions(events):
        if isinstance(item, JobRequisition):
            out += _job_lines(tr, game, item, theme)
        elif not isinstance(item, ev.CardsToPlot | ev.YearEnded):
            line = event_text(tr, game, item, theme)
            if line:
                out.append(line)
    return out


def _job_lines(tr: Translator, game: Seats, job: JobRequisition, theme: str) -> list[str]:
    """A failed job's requisition: the line that says what went north, then the cards
    shown that stay face up."""
    _ = tr.gettext
    name, hours = job_name(tr, theme, job.job.letter), job.hours
    north = [_("{name}'s {card}", name=seat_name(tr, game, s), card=card(tr, _text(c)))
             for s, c in job.north]
    if job.drunkard is not None and north:
        # (drunkard = replaces, with the Party official: the Jack is one of the two)
        text = tr.ngettext(
            "{job} failed ({hours} h): the drunkard {card} goes north, and {cards} "
            "with him.",
            "{job} failed ({hours} h): the drunkard {card} goes north, and {cards} "
            "with him.", len(north), job=name, hours=hours,
            card=card(tr, _text(job.drunkard)), cards=and_list(tr, north))
    elif job.drunkard is not None:
        text = _("{job} failed ({hours} h): the drunkard {card} goes north instead of "
                 "anyone's card.", job=name, hours=hours, card=card(tr, _text(job.drunkard)))
    elif north:
        text = tr.ngettext("{job} failed ({hours} h): {cards} goes north.",
                           "{job} failed ({hours} h): {cards} go north.",
                           len(north), job=name, hours=hours, cards=and_list(tr, north))
    else:
        text = _("{job} failed ({hours} h), but nobody had a card to lose.", job=name,
                 hours=hours)
    out = ["❌ " + text]
    if job.shown:
        shown = " · ".join(f"{seat_name(tr, game, s)} {cards(tr, [_text(c) for c in cs])}"
                           for s, cs in job.shown)
        out.append(_("Face up from now on: {plots}", plots=shown))
    return out


def took_back_text(tr: Translator, p: TookBack) -> str:
    """A player took back the card they had just played: the board's line (which card is
    not said: it is back in their hand)."""
    return "↩ " + tr.gettext("{name} took back their card.", name=p.name)
