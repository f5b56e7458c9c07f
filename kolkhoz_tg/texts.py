"""Localized plain-text rendering of views, events and notification records.

Shared by the terminal front end and (for message bodies) the Telegram bot: everything here
takes the service's plain records plus a :class:`~kolkhoz_tg.i18n.Translator` and returns
text. Only cards in the given view can appear (STYLE.md, "Views are the only window").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final

from engine import Action, ActionKind, Card
from engine.cards import SUITS
from engine.views import View
from kolkhoz_tg import house_rules
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.service.records import GameInfo, Kind, Notification

SUIT_SYMBOLS = {s.letter: s.symbol for s in SUITS}


def card(tr: Translator, text: str | None) -> str:
    """``10H`` → ``10♥`` (``QS`` → ``Д♠`` in Russian: the reader's rank letters); a card
    hidden from the reader (None in a view) → ``?``."""
    if not text:
        return "?"
    rank = text[:-1]
    return tr.rank(rank) + SUIT_SYMBOLS.get(text[-1], text[-1])


def cards(tr: Translator, texts: Sequence[str | None]) -> str:
    return " ".join(card(tr, t) for t in texts) if texts else "—"


def job_name(tr: Translator, theme: str, job: str) -> str:
    """The job of a suit in the preset's theme (``jobs`` or ``fields``)."""
    _ = tr.gettext
    if theme == "fields":
        names = {"H": _("Wheat"), "D": _("Beets"), "C": _("Potatoes"), "S": _("Sunflowers")}
    else:
        names = {"H": _("Plowing"), "D": _("Harvest"), "C": _("Workshop"), "S": _("Grain")}
    return names[job]


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
    tr: Translator, preset: str | None, rules: dict[str, Any] | None = None
) -> str:
    """A game's rules in a few words: the preset's name, then what the table changed
    ("Classic + passing, 4 years"; :mod:`kolkhoz_tg.house_rules`)."""
    title = preset_title(tr, preset)
    changed = house_rules.changes(preset, rules or {})
    if not changed:
        return title
    labels = []
    for field, value in changed:
        label = house_rules.value_label(tr, field, value)
        if house_rules.inert(field, rules or {}):
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


def seat_name(tr: Translator, game: GameInfo | dict[str, Any], seat: int) -> str:
    """The seat's player name; bots are numbered in the reader's language."""
    seats = game.to_dict()["seats"] if isinstance(game, GameInfo) else game["seats"]
    for s in seats:
        if s["seat"] == seat:
            if s["is_bot"]:
                number = s["name"].rsplit(" ", 1)[-1]
                return tr.gettext("Bot {number}", number=number)
            return str(s["name"])
    return tr.gettext("Seat {number}", number=seat + 1)


def _names(tr: Translator, game: GameInfo | dict[str, Any], n: int) -> list[str]:
    return [seat_name(tr, game, s) for s in range(n)]


# ---------------------------------------------------------------------- board


def board_text(
    tr: Translator,
    game: GameInfo | dict[str, Any],
    view: dict[str, Any],
    now: datetime,
    deadline: datetime | None,
    viewer: int | None = None,
    zone: str | None = None,
) -> str:
    """The group board: year, planner, trump, jobs, the trick, whose turn, medals, face-up
    plot cards. ``viewer`` marks the reader's own seat as "you"; with the readers' time
    ``zone`` the deadline is also given on their clock."""
    _ = tr.gettext
    n = view["players_count"]
    names = _names(tr, game, n)
    # ``heads``: the names as they start an item of a list (``🏅 You 0 · Anna 1``), where
    # the reader's own "you" is capitalised; ``names`` inside a sentence (``Planner: you``).
    heads = list(names)
    if viewer is not None:
        names[viewer] = _("you")
        heads[viewer] = _("You")
    theme = view["rules"]["theme"]
    over = view["phase"] == "over"
    if over:
        head = [_("Kolkhoz · the five-year plan is over")]
    else:
        head = [_("Kolkhoz · year {year} of {years} · Planner: {name}", year=view["year"],
                  years=view["years"], name=names[view["planner"]])]
    if view["trump"] and not over:
        head.append(_("trump {suit}", suit=SUIT_SYMBOLS[view["trump"]]))
    elif view.get("short") and view["phase"] != "over":
        head.append(_("no trump (supply disruption)"))
    elif view["lean"] and view["phase"] != "over":
        head.append(_("no trump (lean year)"))
    if view["famine"]:
        head.append(_("famine year"))
    lines = [" · ".join(head)]
    for suit in SUITS:
        j = suit.letter
        job = view["jobs"][j]
        name = job_name(tr, theme, j)
        # The bar first: its glyphs have one width, so the rows line up on a phone's
        # proportional font, where padding names with spaces never does.
        line = f"{SUIT_SYMBOLS[j]} {_bar(job['hours'], job['threshold'])} "
        line += f"{job['hours']}/{job['threshold']} {name}"
        if job["complete"]:
            line += " · " + _("done ({name})", name=names[job["completed_by"]])
        elif job["rewards"]:
            line += " · " + _("reward {cards}", cards=cards(tr, job["rewards"]))
        lines.append(line)
    lines += trick_lines(tr, view, names, heads, game)
    status = game.status if isinstance(game, GameInfo) else game.get("status")
    waiting = "" if status == "aborted" else waiting_text(tr, view, names)
    if viewer is not None and view["to_act"] == [viewer] and status != "aborted":
        waiting = _("Your move")
    order = turn_order(view, heads) if status != "aborted" else ""
    if order:
        lines.append("🔄 " + order)
    if waiting:
        if deadline is not None and zone is not None:
            waiting += " " + _("(ends {time}, {left})", time=tr.clock(deadline, now, zone),
                               left=tr.relative(deadline, now))
        elif deadline is not None:
            waiting += " " + _("({left})", left=tr.relative(deadline, now))
        lines.append(waiting)
    medals = " · ".join(f"{heads[p['seat']]} {p['medals']}" for p in view["players"])
    lines.append("🏅 " + medals)
    if not over:
        points = [p.points_in_sight for p in View.from_dict(view).players]
        if any(points):
            lines.append("📊 " + _("Points in sight: {points}", points=" · ".join(
                f"{heads[seat]} {value}" for seat, value in enumerate(points))))
    shown = [
        f"{heads[p['seat']]} {cards(tr, p['plot_revealed'])}"
        for p in view["players"]
        if p["plot_revealed"]
    ]
    if shown:
        lines.append(_("Face up: {plots}", plots=" · ".join(shown)))
    winners = winners_line(tr, game, names)
    if winners:
        lines.append(winners)
    return "\n".join(lines)


def board_caption(
    tr: Translator,
    game: GameInfo | dict[str, Any],
    view: dict[str, Any],
    now: datetime,
    deadline: datetime | None,
    zone: str | None = None,
) -> str:
    """The few lines under the board's picture: the year and trump, and whose move it is
    with the time left (what changes with the clock stays out of the picture)."""
    text = board_text(tr, game, view, now, deadline, zone=zone)
    lines = text.splitlines()
    waiting = waiting_text(tr, view, _names(tr, game, view["players_count"]))
    keep = [lines[0]]
    if waiting:
        keep += [line for line in lines if line.startswith(waiting)][:1]
    keep += [line for line in lines if line.startswith("🏆")]
    return "\n".join(keep)


def trick_lines(
    tr: Translator, view: dict[str, Any], names: list[str], heads: list[str] | None = None,
    game: GameInfo | dict[str, Any] | None = None,
) -> list[str]:
    """This year's tricks for the board, so that none is missed however many were played
    between two looks: the earlier ones in short (the cards and who took them), the last
    complete one in full (where each card went: ``10♥→♠`` is on the ♠ job), then the trick
    on the table. Cards that went where the reader may not look show as ``?`` (the view
    masks them). ``heads``: the names as they start an item (``You 10♥ · Anna J♥``),
    ``names`` where they end a sentence."""
    _ = tr.gettext
    heads = heads or names
    lines = []
    done = view.get("tricks") or []
    if not done and view["last_trick"]:  # after the end of the game, the last one only
        done = [{"cards": view["last_trick"], "winner": view["last_trick_winner"]}]
    if all(c is None for trick in done for _s, c in trick["cards"]):
        done = []  # nothing the reader may see any more
    placed = {c: j for j, job in view["jobs"].items() for c in job["workers"]}
    if view["phase"] == "over" and game is not None:
        # The jobs were cleared at the last year's end: the result remembers them.
        result = (game.result if isinstance(game, GameInfo) else game.get("result")) or {}
        placed.update(result.get("last_jobs") or {})
    first = view["tricks_played"] - len(done) + 1 if view.get("tricks") else 1
    for i, trick in enumerate(done):
        number, winner = first + i, names[trick["winner"]]
        if i < len(done) - 1:
            played = " ".join(card(tr, c) for _s, c in trick["cards"])
            lines.append(_("Trick {number}: {cards} → {name}", number=number, cards=played,
                           name=winner))
            continue
        played = " · ".join(
            f"{heads[s]} {_placed(tr, c, placed)}" for s, c in trick["cards"])
        lines.append(_("Last trick ({number}): {cards} — won by {name}", number=number,
                       cards=played, name=winner))
    if view["phase"] in ("play", "assign") and view["tricks_total"]:
        trick_no = view["tricks_played"] + 1
        played = " · ".join(
            f"{heads[s]} {_placed(tr, c, placed)}" for s, c in view["trick"]) or "—"
        lines.append(_("Trick {number} of {total}: {cards}", number=trick_no,
                       total=view["tricks_total"], cards=played))
    return lines


def _placed(tr: Translator, c: str | None, placed: dict[str, str]) -> str:
    """A played card and, once the Brigadier has put it on a job, that job's suit."""
    job = placed.get(c) if c is not None else None
    return card(tr, c) + (f"→{SUIT_SYMBOLS[job]}" if job else "")


def winners_line(tr: Translator, game: GameInfo | dict[str, Any], names: list[str]) -> str:
    """``🏆 Anna wins with 54 points`` once the game is over (from its stored result)."""
    result = game.result if isinstance(game, GameInfo) else game.get("result")
    if not result or not result.get("winners"):
        return ""
    scores, winners = result["scores"], result["winners"]
    who = ", ".join(names[s] for s in winners)
    points = scores[winners[0]]
    if len(winners) == 1:
        return "🏆 " + tr.ngettext("{name} wins with {n} point", "{name} wins with {n} points",
                                  points, name=who)
    return "🏆 " + tr.ngettext("Shared win: {names}, {n} point each",
                              "Shared win: {names}, {n} points each", points, names=who)


def _bar(hours: int, threshold: int, width: int = 9) -> str:
    filled = min(width, hours * width // max(threshold, 1))
    return "▰" * filled + "▱" * (width - filled)


def turn_order(view: dict[str, Any], names: list[str]) -> str:
    """The order of play in this trick, from its leader (``Vera → Gleb → Anna → Boris``);
    empty outside the tricks."""
    if view["phase"] not in ("play", "assign") or view.get("lead") is None:
        return ""
    n, lead = view["players_count"], view["lead"]
    return " → ".join(names[(lead + i) % n] for i in range(n))


def waiting_text(tr: Translator, view: dict[str, Any], names: list[str]) -> str:
    """Who the game waits for, in words."""
    _ = tr.gettext
    to_act = view["to_act"]
    if not to_act:
        return ""
    phase = view["phase"]
    if phase == "swap":
        return _("Swap: waiting for {names}", names=", ".join(names[s] for s in to_act))
    if phase == "pass":
        return _("Passing: waiting for {names}", names=", ".join(names[s] for s in to_act))
    name = names[to_act[0]]
    if phase == "trump":
        return _("{name} chooses trump", name=name)
    if phase == "assign":
        return _("{name} assigns the trick", name=name)
    return _("{name} to play", name=name)


# ---------------------------------------------------------------------- private


def hand_text(tr: Translator, view: dict[str, Any], legal: Sequence[str]) -> str:
    """The reader's hand (cards that may not be played now in brackets) and plot."""
    _ = tr.gettext
    me = view["players"][view["viewer"]]
    playable = {
        str(a.card) for a in map(Action.parse, legal) if a.kind is ActionKind.PLAY and a.card
    }
    shown = []
    for c in me["hand"] or []:
        shown.append(card(tr, c) if not playable or c in playable else f"({card(tr, c)})")
    lines = [_("Your cards: {cards}", cards=" ".join(shown) or "—")]
    lines.append(_("Your plot: hidden {hidden} · face up {shown}",
                   hidden=cards(tr, me["plot_hidden"]), shown=cards(tr, me["plot_revealed"])))
    return "\n".join(lines)


def action_label(tr: Translator, view: View | dict[str, Any], action: Action | str) -> str:
    """A button-sized description of one action, with what it does to a job (the engine's
    typed view answers how many hours a card gives and whether it completes the job)."""
    _ = tr.gettext
    a = Action.parse(action)
    typed = view if isinstance(view, View) else View.from_dict(view)
    theme = typed.rules.theme.value
    if a.kind is ActionKind.TRUMP:
        assert a.suit is not None
        return _("Trump {suit}", suit=SUIT_SYMBOLS[a.suit.letter])
    if a.kind is ActionKind.PLAY:
        return _("Play {card}", card=card(tr, str(a.card)))
    if a.kind is ActionKind.PASS:
        return _("Pass {card}", card=card(tr, str(a.card)))
    if a.kind is ActionKind.SWAP:
        if a.card is None or a.target is None:
            return _("Keep my cards (no swap)")
        return _("Swap {card} from hand for {plot} from plot", card=card(tr, str(a.card)),
                 plot=card(tr, str(a.target)))
    assert a.card is not None and a.suit is not None
    job = typed.job(a.suit)
    name = job_name(tr, theme, a.suit.letter)
    if job.complete:
        effect = _("already done")
    else:
        effect = f"{job.hours}→{job.hours_after(a.card)}"
        if job.hours >= job.threshold:
            # An earlier card of this trick reached the threshold: it completes either way.
            effect += ", " + _("reached already")
        elif job.completes(a.card):
            effect += ", " + _("done ✅")
    return _("{card} to {job} ({effect})", card=card(tr, str(a.card)), job=name, effect=effect)


#: The widest an assignment button may be (characters): two fit a row on a phone.
BUTTON_WIDTH = 20


def assign_button(tr: Translator, view: View, action: Action | str) -> str:
    """An assignment as a phone-sized button (at most :data:`BUTTON_WIDTH` characters; the
    card is named above the buttons): the job, its hours before and after, ✅ when the card
    completes it and the rewards the Brigadier takes then; the job's name goes first when it
    fits, e.g. ``♦ Harvest 39→51 ✅+3♦``."""
    a = Action.parse(action)
    assert a.card is not None and a.suit is not None
    job = view.job(a.suit)
    symbol = SUIT_SYMBOLS[a.suit.letter]
    if job.complete:
        effect = "✅"
    else:
        effect = f"{job.hours}→{job.hours_after(a.card)}"
        if job.completes(a.card):
            won = job.rewards_won(a.card)
            effect += " ✅" + ("+" + "".join(card(tr, str(c)) for c in won) if won else "")
    named = f"{symbol} {job_name(tr, view.rules.theme.value, a.suit.letter)} {effect}"
    return named if len(named) <= BUTTON_WIDTH else f"{symbol} {effect}"


def jobs_line(tr: Translator, view: View) -> str:
    """The jobs in one short line for the private message: hours of the threshold (✅ when
    done) and the rewards in sight, e.g. ``♥ 27/40 3♥ · ♦ ✅ · ♣ 8/40 A♣4♣``."""
    parts = []
    for suit in SUITS:
        job = view.job(suit)
        text = f"{suit.symbol} " + ("✅" if job.complete else f"{job.hours}/{job.threshold}")
        if job.rewards and not job.complete:
            text += " " + "".join(card(tr, str(c)) for c in job.rewards)
        parts.append(text)
    return " · ".join(parts)


#: The marks of the trump Jack, Queen and King on card buttons (``nomenklatura``).
TRUMP_MARKS = {"J": "🍺", "Q": "👂", "K": "💼"}


def trump_mark(view: View, text: str) -> str:
    """The mark of a trump Jack, Queen or King (``nomenklatura``) for its button, else ""."""
    if view.trump is None or not view.rules.nomenklatura or text[-1] != view.trump.letter:
        return ""
    return TRUMP_MARKS.get(text[:-1], "")


def trump_hints(tr: Translator, view: View, shown: Sequence[str]) -> list[str]:
    """One line for each trump Jack, Queen or King among ``shown`` (the reader's hand, or
    the card they are placing), saying what it does on a job (``nomenklatura``)."""
    _ = tr.gettext
    trump = view.trump
    if trump is None or not view.rules.nomenklatura:
        return []
    lines = []
    for rank in ("J", "Q", "K"):
        text = f"{rank}{trump.letter}"
        if text not in shown:
            continue
        name = card(tr, text)
        if rank == "J":
            hint = _("{card} is the Drunkard: it adds no hours; on a failed job it goes "
                     "north alone and nobody loses a card for that job.", card=name)
        elif rank == "Q":
            hint = _("{card} is the Informer: on a failed job everyone is searched.",
                     card=name)
        else:
            hint = _("{card} is the Party official: on a failed job twice as many cards "
                     "go north.", card=name)
        lines.append(TRUMP_MARKS[rank] + " " + hint)
    return lines


def phase_prompt(tr: Translator, view: dict[str, Any], names: Sequence[str]) -> str:
    """What the reader is asked to do now (``names``: the seats' names, for the pass)."""
    _ = tr.gettext
    phase = view["phase"]
    if phase == "trump":
        return _("You are the Planner: choose the trump suit.")
    if phase == "pass":
        typed = View.from_dict(view)
        assert typed.pass_to is not None
        name = names[typed.pass_to]
        if typed.pass_left:
            return _("Choose a card to pass to your left neighbour, {name} (face-down; "
                     "everyone passes one at the same time).", name=name)
        return _("Choose a card to pass to your right neighbour, {name} (face-down; "
                 "everyone passes one at the same time).", name=name)
    if phase == "swap":
        return _("You may swap one hand card with a face-down plot card, or keep them.")
    if phase == "assign":
        return _("You are the Brigadier: put the trick's cards on the jobs, one by one.")
    return _("Your turn: play a card.")


REASONS = (
    "follow_suit", "trump_lead", "not_your_turn", "not_in_hand", "not_in_trick", "wrong_job",
    "already_chosen",
    "wrong_phase", "game_over", "invalid", "not_seated", "not_active", "stale", "no_seat",
)


#: Reasons for refusing a move that tell something about the player's hand or plot (that
#: they hold the led suit, a card other than trump, or not the card they named): for the
#: player alone, never for a group.
HAND_REASONS: Final = frozenset({"follow_suit", "trump_lead", "not_in_hand", "not_in_plot"})


def reason_text(tr: Translator, reason: str | None, view: dict[str, Any] | None = None) -> str:
    """Why an action was refused, in words (engine and service reason codes)."""
    _ = tr.gettext
    if reason == "follow_suit" and view and view.get("trick"):
        led = Card.parse(view["trick"][0][1]).suit
        return _("You must follow the led suit {suit}.", suit=led.symbol)
    texts = {
        "follow_suit": _("You must follow the led suit."),
        "trump_lead": _("Trump may not be led until a trump has been played this year."),
        "not_your_turn": _("It is not your turn."),
        "not_in_hand": _("That card is not in your hand."),
        "not_in_plot": _("That card is not face down in your plot."),
        "already_chosen": _("You have already chosen the card you pass this year."),
        "not_in_trick": _("That card is not in the trick."),
        "wrong_job": _("That card may not go to that job."),
        "wrong_phase": _("That is not possible in this phase."),
        "game_over": _("The game is over."),
        "invalid": _("That is not a move."),
        "not_seated": _("You are not playing in this game."),
        "not_active": _("The game is not running."),
        "stale": _("The game has moved on; look again."),
    }
    return texts.get(reason or "", _("That move is not allowed now."))


def error_text(tr: Translator, code: str) -> str:
    """A :class:`~kolkhoz_tg.service.ServiceError` code in words."""
    _ = tr.gettext
    texts = {
        "game_not_found": _("There is no such game."),
        "user_not_found": _("You are not known here yet."),
        "not_lobby": _("The game has already started."),
        "already_seated": _("You already have a seat in this game."),
        "seat_taken": _("That seat is taken."),
        "game_full": _("All seats are taken."),
        "not_creator": _("Only the game's creator may do that."),
        "not_full": _("Some seats are still empty."),
        "not_seated": _("You are not playing in this game."),
        "not_active": _("The game is not running."),
        "not_paused": _("The game is not paused."),
        "not_started": _("The game has not started yet."),
        "not_over": _("The full log is shown once the game is over."),
        "log_unreadable": _("This game was played under an older reading of the rules, so "
                            "its log cannot be told move by move."),
        "game_over": _("The game is over."),
        "conflict": _("Someone was quicker; please try again."),
        "lobby_changed": _("The game's setup changed meanwhile: look again and tap once "
                           "more."),
        "busy": _("The game's records are busy for a moment; please try again."),
        "bad_preset": _("There is no such set of rules."),
        "bad_option": _("That rule option is not valid."),
        "bad_players": _("A game is for 3 to 5 players."),
        "bad_duration": _("The time per turn must be from 1 minute to 14 days, like 90m, 24h "
                          "or 2d."),
        "bad_reminders": _("Reminders are given like 50% (half the time) or 1h (an hour "
                           "before)."),
        "bad_standin": _("A stand-in may take over after 1 to 100 missed turns."),
        "bad_seat": _("There is no such seat."),
        "bad_level": _("There is no such bot level."),
        "place_taken": _("There is an open game here already: one game at a time in a "
                         "chat or a forum topic."),
        "practice_open": _("You have a practice game going: send /practice to go on with it."),
        "not_practice": _("Hints are for practice games only: /practice in our private chat."),
        "bad_locale": _("Only Russian (ru) and English (en) are available."),
        "bad_quiet_hours": _("Quiet hours are given as a time zone and two times, like "
                             "Europe/Moscow 23:00 08:00."),
    }
    return texts.get(code, _("That is not possible now."))


# ---------------------------------------------------------------------- events


#: Events a YEAR_SUMMARY notification reports (so a board's event list may leave them out).
YEAR_END_EVENTS = frozenset({
    "CardsToPlot", "HeroNamed", "MiceRuleApplied", "JobFailed", "DrunkardSentNorth",
    "CardsRevealed",
    "CardSentNorth", "NothingRequisitioned", "NobodyExposed", "StacksReturned",
})


_CHOICES = frozenset({"CardPlayed", "TrumpDeclared", "SwapDecided", "CardAssigned",
                      "PassChosen"})


def event_lines(tr: Translator, game: dict[str, Any], moves: list[dict[str, Any]],
                theme: str, year_end: bool = False, viewer: int | None = None) -> list[str]:
    """One line per interesting event of the moves in a board notification; the year's
    requisition only with ``year_end`` (a YEAR_SUMMARY notification carries it too).
    The moves of seat ``viewer`` that were its only possible ones say so: only to that seat,
    since a card played as the only one tells what else its hand does not hold."""
    lines: list[str] = []
    for move in moves:
        events = move["events"]
        told = [i for i, e in enumerate(events) if e["type"] in _REQUISITION]
        if year_end and told:
            # The requisition job by job, each failure said once (as in the year's summary).
            first, last = told[0], told[-1] + 1
            lines += event_lines(tr, game, [{**move, "events": events[:first]}], theme, True,
                                 viewer)
            lines += requisition_lines(tr, game, events[first:last], theme)
            lines += event_lines(tr, game, [{**move, "events": events[last:]}], theme, True,
                                 viewer)
            continue
        for e in events:
            if not year_end and e["type"] in YEAR_END_EVENTS:
                continue
            line = event_text(tr, game, e, theme)
            if line:
                if e["type"] in _CHOICES and move["actor"] in ("timeout", "standin"):
                    line += " " + tr.gettext("(played automatically)")
                elif (e["type"] in _CHOICES and move["actor"] == "forced"
                      and viewer is not None and move.get("seat") == viewer):
                    line += " " + tr.gettext("(the only possible move)")
                elif e["type"] == "CardPlayed" and move["actor"] == "forced":
                    # Played the moment the turn came: everyone sees that it was not
                    # chosen, so the board says so.
                    line += " " + tr.gettext("(played automatically)")
                lines.append(line)
    return lines


def event_text(tr: Translator, game: dict[str, Any], e: dict[str, Any], theme: str) -> str:
    """A past-tense sentence for one event dict (``engine.event_to_dict``); unknown event
    types give an empty string."""
    _ = tr.gettext
    kind = e["type"]

    def name(seat: int) -> str:
        return seat_name(tr, game, seat)

    def job(letter: str) -> str:
        return job_name(tr, theme, letter)

    if kind == "YearStarted":
        text = _("Year {year} begins: Planner {name}, {cards}.", year=e["year"],
                 name=name(e["planner"]),
                 cards=tr.ngettext("{n} card each", "{n} cards each", e["hand_size"]))
        if e["famine"]:
            text += " " + _("Famine year: no trump.")
        elif e.get("short"):
            text += " " + _("Supply disruption in the plan's last year: no trump.")
        elif e["lean"]:
            text += " " + _("A lean year: no trump.")
        return text
    if kind == "TrumpDeclared":
        return _("{name} declared trump {suit}.", name=name(e["seat"]),
                 suit=SUIT_SYMBOLS[e["suit"]])
    if kind == "PassChosen":
        return _("{name} chose a card to pass.", name=name(e["seat"]))
    if kind == "CardsPassed":
        if e["left"]:
            return "🔁 " + _("The chosen cards went round: each player's to the left "
                            "neighbour.")
        return "🔁 " + _("The chosen cards went round: each player's to the right "
                        "neighbour.")
    if kind == "SwapDecided":
        if e["swapped"]:
            return _("{name} swapped a card with the plot.", name=name(e["seat"]))
        return _("{name} kept their cards.", name=name(e["seat"]))
    if kind == "CardPlayed":
        return _("{name} played {card}.", name=name(e["seat"]), card=card(tr, e["card"]))
    if kind == "TrickWon":
        return _("{name} takes the trick and is the Brigadier.", name=name(e["seat"]))
    if kind == "CardAssigned":
        return _("{card} → {job} ({hours} h).", card=card(tr, e["card"]), job=job(e["job"]),
                 hours=e["hours"])
    if kind == "JobCompleted":
        text = _("{job} completed by {name}!", job=job(e["job"]), name=name(e["seat"]))
        if e.get("rewards"):
            text += " " + _("Reward: {cards}.", cards=cards(tr, e["rewards"]))
        return text
    if kind == "HeroNamed":
        return "🦸 " + _("{name} won every trick of the year: the Hero, searched for no "
                        "failed job; everyone else is searched and loses their own highest "
                        "card.", name=name(e["seat"]))
    if kind == "MiceRuleApplied":
        return _("All four jobs failed and nobody was exposed: this year everyone is "
                 "questioned, shows their highest card of each failed job, and only the "
                 "highest of them goes north.")
    if kind == "JobFailed":
        return _("{job} failed ({hours} h).", job=job(e["job"]), hours=e["hours"])
    if kind == "DrunkardSentNorth":
        return _("The drunkard {card} on {job} is sent north instead.", card=card(tr, e["card"]),
                 job=job(e["job"]))
    if kind == "CardsRevealed":
        return _("{name} reveals {cards}.", name=name(e["seat"]), cards=cards(tr, e["cards"]))
    if kind == "CardSentNorth":
        return _("{job} not fulfilled: {name}'s {card} is requisitioned and sent north.",
                 job=job(e["job"]), name=name(e["seat"]), card=card(tr, e["card"]))
    if kind in ("NothingRequisitioned", "NobodyExposed"):
        return _("{job} not fulfilled, but nobody had a card to lose.", job=job(e["job"]))
    if kind == "StacksReturned":
        return tr.ngettext("{name}: {n} stack card goes back to the deck.",
                           "{name}: {n} stack cards go back to the deck.", e["returned"],
                           name=name(e["seat"]))
    if kind == "YearEnded":
        return _("Year {year} is over.", year=e["year"])
    return ""


# ---------------------------------------------------------------------- notifications


def final_table(tr: Translator, data: dict[str, Any]) -> str:
    """The game-over table of a GAME_OVER notification."""
    _ = tr.gettext
    lines = [_("🏁 The five-year plan is complete")]
    if data.get("early"):
        lines.append(_("(the deck ran dry before the last year)"))
    names: dict[int, str] = {}
    for row in data["table"]:
        who = tr.gettext("Bot {number}", number=row["name"].rsplit(" ", 1)[-1]) if row[
            "is_bot"] else row["name"]
        names[row["seat"]] = who
        # No padding: Telegram shows plain text in a proportional font, where spaces never
        # line columns up; the score follows the name as in a sentence.
        line = f"{row['rank']}. {who} — " + tr.ngettext("{n} point", "{n} points", row["score"])
        details = [_("plot: {cards}", cards=cards(tr, row["plot"]))]
        if row["medals"]:
            details.append(tr.ngettext("{n} medal", "{n} medals", row["medals"]))
        if row["auto_moves"]:
            details.append(tr.ngettext("{n} move played automatically",
                                       "{n} moves played automatically", row["auto_moves"]))
        lines.append(f"{line} ({' · '.join(details)})")
    if data.get("winners"):
        scores = {row["seat"]: row["score"] for row in data["table"]}
        result = {"scores": [scores.get(s, 0) for s in range(len(names))],
                  "winners": data["winners"]}
        lines.append(winners_line(tr, {"result": result},
                                  [names.get(s, "?") for s in range(len(names))]))
    return "\n".join(lines)


def timed_out_text(tr: Translator, data: dict[str, Any], *, warn: bool = True) -> str:
    """What was played for a player whose time ran out; ``warn``: and after how many more
    missed turns a bot stands in for them."""
    played = ", ".join(card_action(tr, a) for a in data["actions"])
    text = tr.gettext("Time ran out, so this was played for you: {actions}.", actions=played)
    left = data["standin_after"] - data["timeouts"]
    if warn and left > 0:
        text += " " + tr.ngettext(
            "After {n} more missed turn a bot will stand in for you.",
            "After {n} more missed turns a bot will stand in for you.", left)
    return text


def notification_text(
    tr: Translator, note: Notification, now: datetime, zone: str | None = None
) -> str:
    """A short text for any notification (what the terminal prints; the bot's messages use
    the same sentences). BOARD, YOUR_TURN and NEW_HAND are usually rendered as the board / the
    hand."""
    _ = tr.gettext
    data = note.data
    game = data.get("game")
    if note.kind is Kind.BOARD and game is not None:
        theme = data["view"]["rules"]["theme"]
        return "\n".join(event_lines(tr, game, data["moves"], theme))
    if note.kind is Kind.GAME_STARTED:
        return _("The game has started!")
    if note.kind is Kind.YOUR_TURN:
        return _("Your turn.")
    if note.kind is Kind.NEW_HAND:
        return _("You have been dealt a new hand.")
    if note.kind is Kind.REMINDER:
        deadline = datetime.fromisoformat(data["deadline"])
        if zone is not None:
            return _("Reminder: it is your move; time runs out {time} ({when}).",
                     time=tr.clock(deadline, now, zone), when=tr.relative(deadline, now))
        return _("Reminder: it is your move; time runs out {when}.",
                 when=tr.relative(deadline, now))
    if note.kind is Kind.TIMED_OUT:
        return timed_out_text(tr, data)
    if note.kind is Kind.STAND_IN and note.user_id is not None:
        return _("A bot plays for you from now on. To take your seat back, tap any button "
                 "of your game message or send /back.")
    if note.kind is Kind.STAND_IN:
        return _("A bot now plays for {name} until they are back.", name=data["name"])
    if note.kind is Kind.PLAYER_BACK:
        return _("{name} is back in the game.", name=data["name"])
    if note.kind is Kind.YEAR_SUMMARY:
        return year_summary(tr, note)
    if note.kind is Kind.GAME_OVER:
        return final_table(tr, data)
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


def year_summary(tr: Translator, note: Notification) -> str:
    _ = tr.gettext
    data = note.data
    game, theme = data["game"], data["theme"]
    lines = [_("Year {year}: the plan's results", year=data["year"])]
    last = data.get("last_trick")
    earlier = (last or {}).get("earlier") or []
    if earlier:
        # Every trick of the year, in short: the board, edited at the group's pace, may not
        # have shown each one.
        lines.append(_("Tricks: {tricks}", tricks="; ".join(
            f"{cards(tr, [c for _s, c in t['cards']])} → {seat_name(tr, game, t['winner'])}"
            for t in earlier)))
    if last and last["winner"] is not None:
        played = " · ".join(
            seat_name(tr, game, s) + " " + card(tr, c) + (f"→{SUIT_SYMBOLS[j]}" if j else "")
            for (s, c), j in zip(last["cards"], last["jobs"], strict=True))
        lines.append(_("The year's last trick: {cards} — won by {name}", cards=played,
                       name=seat_name(tr, game, last["winner"])))
    for done in data["completed"]:
        lines.append("✅ " + _("{job}: done by {name}.", job=job_name(tr, theme, done["job"]),
                              name=seat_name(tr, game, done["seat"])))
    lines += requisition_lines(tr, game, data["events"], theme)
    return "\n".join(lines)


#: The year-end events :func:`requisition_lines` tells job by job.
_REQUISITION = frozenset({
    "JobFailed", "DrunkardSentNorth", "CardsRevealed", "CardSentNorth",
    "NothingRequisitioned", "NobodyExposed",
})


def requisition_lines(
    tr: Translator, game: dict[str, Any], events: list[dict[str, Any]], theme: str
) -> list[str]:
    """The year's requisition, one line per failed job that says it failed once and names
    each card sent north and whose it was (``Workshop failed (8 h): Boris's K♣ and Vera's 9♣
    go north.``), then the cards shown that stay face up. Every card here is public: sent
    north or turned face up for everyone. Other year-end events get their own sentence."""
    _ = tr.gettext
    north = {e["card"] for e in events if e["type"] in ("CardSentNorth", "DrunkardSentNorth")}
    jobs: dict[str, dict[str, Any]] = {}
    # ("line", text) for other events, ("job", letter) for where a failed job is told.
    order: list[tuple[str, str]] = []
    for e in events:
        kind = e["type"]
        if kind in ("CardsToPlot", "YearEnded"):
            continue
        if kind not in _REQUISITION:
            line = event_text(tr, game, e, theme)
            if line:
                order.append(("line", line))
            continue
        if e["job"] not in jobs:
            jobs[e["job"]] = {"hours": None, "north": [], "drunkard": None, "shown": {}}
            order.append(("job", e["job"]))
        job = jobs[e["job"]]
        if kind == "JobFailed":
            job["hours"] = e["hours"]
        elif kind == "DrunkardSentNorth":
            job["drunkard"] = e["card"]
        elif kind == "CardSentNorth":
            job["north"].append(_("{name}'s {card}", name=seat_name(tr, game, e["seat"]),
                                  card=card(tr, e["card"])))
        elif kind == "CardsRevealed":
            stay = [c for c in e["cards"] if c not in north]
            if stay:
                job["shown"].setdefault(e["seat"], []).extend(stay)
    out: list[str] = []
    for what, value in order:
        if what == "line":
            out.append(value)
            continue
        job = jobs[value]
        name = job_name(tr, theme, value)
        hours = job["hours"] if job["hours"] is not None else 0
        if job["drunkard"] is not None and job["north"]:
            # (drunkard = replaces, with the Party official: the Jack is one of the two)
            text = tr.ngettext(
                "{job} failed ({hours} h): the drunkard {card} goes north, and {cards} "
                "with him.",
                "{job} failed ({hours} h): the drunkard {card} goes north, and {cards} "
                "with him.", len(job["north"]), job=name, hours=hours,
                card=card(tr, job["drunkard"]), cards=and_list(tr, job["north"]))
        elif job["drunkard"] is not None:
            text = _("{job} failed ({hours} h): the drunkard {card} goes north instead of "
                     "anyone's card.", job=name, hours=hours, card=card(tr, job["drunkard"]))
        elif job["north"]:
            text = tr.ngettext("{job} failed ({hours} h): {cards} goes north.",
                               "{job} failed ({hours} h): {cards} go north.",
                               len(job["north"]), job=name, hours=hours,
                               cards=and_list(tr, job["north"]))
        else:
            text = _("{job} failed ({hours} h), but nobody had a card to lose.", job=name,
                     hours=hours)
        out.append("❌ " + text)
        if job["shown"]:
            shown = " · ".join(f"{seat_name(tr, game, s)} {cards(tr, cs)}"
                               for s, cs in job["shown"].items())
            out.append(_("Face up from now on: {plots}", plots=shown))
    return out


def and_list(tr: Translator, items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C`` in the reader's language."""
    if len(items) < 2:
        return "".join(items)
    return tr.gettext("{items} and {last}", items=", ".join(items[:-1]), last=items[-1])
