"""The group's board: its text, the caption under its picture, this year's tricks, whose
move it is and the winners once the game is over.
"""

from __future__ import annotations

from datetime import datetime

from engine.cards import Card
from engine.phase import Phase
from engine.views import View
from kolkhoz_tg.bot.callbacks import lobby_button, view_button
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.keyboard import MAX_CAPTION, Button, Keyboard, Message
from kolkhoz_tg.present.lobby import lobby_message
from kolkhoz_tg.present.words import (
    SUIT_SYMBOLS,
    card,
    cards,
    deep_link,
    job_name,
    seat_name,
    seat_names,
)
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import BoardView, GameInfo, GameResult
from kolkhoz_tg.storage.models import GameStatus


def board_heading(tr: Translator, view: View, names: list[str]) -> tuple[str, list[str]]:
    """The board's title (the year and its Planner, or the end of the plan) and the notes
    beside it (the trump, or why there is none; a famine year), for every board style."""
    _ = tr.gettext
    over = view.phase is Phase.OVER
    if over:
        title = _("Kolkhoz · the five-year plan is over")
    else:
        title = _("Kolkhoz · year {year} of {years} · Planner: {name}", year=view.year,
                  years=view.years, name=names[view.planner])
    notes = []
    if view.trump is not None and not over:
        notes.append(_("trump {suit}", suit=SUIT_SYMBOLS[view.trump.letter]))
    elif view.short and not over:
        notes.append(_("no trump (supply disruption)"))
    elif view.lean and not over:
        notes.append(_("no trump (lean year)"))
    if view.famine:
        notes.append(_("famine year"))
    return title, notes


def board_text(
    tr: Translator,
    game: GameInfo | GameHeader,
    view: View,
    now: datetime,
    deadline: datetime | None,
    viewer: int | None = None,
    zone: str | None = None,
) -> str:
    """The group board: year, planner, trump, jobs, the trick, whose turn, medals, face-up
    plot cards. ``viewer`` marks the reader's own seat as "you"; with the readers' time
    ``zone`` the deadline is also given on their clock."""
    _ = tr.gettext
    n = view.players_count
    names = seat_names(tr, game, n)
    # ``heads``: the names as they start an item of a list (``🏅 You 0 · Anna 1``), where
    # the reader's own "you" is capitalised; ``names`` inside a sentence (``Planner: you``).
    heads = list(names)
    if viewer is not None:
        names[viewer] = _("you")
        heads[viewer] = _("You")
    theme = view.rules.theme.value
    over = view.phase is Phase.OVER
    title, notes = board_heading(tr, view, names)
    lines = [" · ".join([title, *notes])]
    for job in view.jobs:
        j = job.suit.letter
        name = job_name(tr, theme, j)
        # The bar first: its glyphs have one width, so the rows line up on a phone's
        # proportional font, where padding names with spaces never does.
        line = f"{SUIT_SYMBOLS[j]} {_bar(job.hours, job.threshold)} "
        line += f"{job.hours}/{job.threshold} {name}"
        if job.complete:
            assert job.completed_by is not None
            line += " · " + _("done ({name})", name=names[job.completed_by])
        elif job.rewards:
            line += " · " + _("reward {cards}", cards=cards(tr, job.rewards))
        lines.append(line)
    lines += trick_lines(tr, view, names, heads, game)
    status = game.status
    waiting = "" if status == "aborted" else waiting_text(tr, view, names)
    if viewer is not None and view.to_act == (viewer,) and status != "aborted":
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
    medals = " · ".join(f"{heads[p.seat]} {p.medals}" for p in view.players)
    lines.append("🏅 " + medals)
    if not over:
        points = [p.points_in_sight for p in view.players]
        if any(points):
            lines.append("📊 " + _("Points in sight: {points}", points=" · ".join(
                f"{heads[seat]} {value}" for seat, value in enumerate(points))))
    shown = [
        f"{heads[p.seat]} {cards(tr, p.plot_revealed)}"
        for p in view.players
        if p.plot_revealed
    ]
    if shown:
        lines.append(_("Face up: {plots}", plots=" · ".join(shown)))
    winners = winners_line(tr, result_of(game), names)
    if winners:
        lines.append(winners)
    return "\n".join(lines)


def caption_text(
    tr: Translator,
    game: GameInfo | GameHeader,
    view: View,
    now: datetime,
    deadline: datetime | None,
    zone: str | None = None,
) -> str:
    """The few lines under the board's picture: the year and trump, and whose move it is
    with the time left (what changes with the clock stays out of the picture)."""
    text = board_text(tr, game, view, now, deadline, zone=zone)
    lines = text.splitlines()
    waiting = waiting_text(tr, view, seat_names(tr, game, view.players_count))
    keep = [lines[0]]
    if waiting:
        keep += [line for line in lines if line.startswith(waiting)][:1]
    keep += [line for line in lines if line.startswith("🏆")]
    return "\n".join(keep)


def trick_lines(
    tr: Translator, view: View, names: list[str], heads: list[str] | None = None,
    game: GameInfo | GameHeader | None = None,
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
    done = [(t.cards, t.winner) for t in view.tricks]
    if not done and view.last_trick:  # after the end of the game, the last one only
        assert view.last_trick_winner is not None
        done = [(view.last_trick, view.last_trick_winner)]
    if all(c is None for played_cards, _w in done for _s, c in played_cards):
        done = []  # nothing the reader may see any more
    placed = {str(c): job.suit.letter for job in view.jobs for c in job.workers}
    if view.phase is Phase.OVER and game is not None:
        # The jobs were cleared at the last year's end: the result remembers them.
        result = result_of(game)
        placed.update((result.last_jobs if result is not None else None) or {})
    first = view.tricks_played - len(done) + 1 if view.tricks else 1
    for i, (trick_cards, trick_winner) in enumerate(done):
        number, winner = first + i, names[trick_winner]
        if i < len(done) - 1:
            played = " ".join(card(tr, c) for _s, c in trick_cards)
            lines.append(_("Trick {number}: {cards} → {name}", number=number, cards=played,
                           name=winner))
            continue
        played = " · ".join(
            f"{heads[s]} {_placed(tr, c, placed)}" for s, c in trick_cards)
        lines.append(_("Last trick ({number}): {cards} — won by {name}", number=number,
                       cards=played, name=winner))
    if view.phase in (Phase.PLAY, Phase.ASSIGN) and view.tricks_total:
        trick_no = view.tricks_played + 1
        played = " · ".join(
            f"{heads[s]} {_placed(tr, c, placed)}" for s, c in view.trick) or "—"
        lines.append(_("Trick {number} of {total}: {cards}", number=trick_no,
                       total=view.tricks_total, cards=played))
    return lines


def _placed(tr: Translator, c: Card | None, placed: dict[str, str]) -> str:
    """A played card and, once the Brigadier has put it on a job, that job's suit."""
    job = placed.get(str(c)) if c is not None else None
    return card(tr, c) + (f"→{SUIT_SYMBOLS[job]}" if job else "")


def winners_line(tr: Translator, result: GameResult | None, names: list[str]) -> str:
    """``🏆 Anna wins with 54 points`` once the game is over (from its result)."""
    if result is None or not result.winners:
        return ""
    scores, winners = result.scores, result.winners
    who = ", ".join(names[s] for s in winners)
    points = scores[winners[0]]
    if len(winners) == 1:
        return "🏆 " + tr.ngettext("{name} wins with {n} point", "{name} wins with {n} points",
                                  points, name=who)
    return "🏆 " + tr.ngettext("Shared win: {names}, {n} point each",
                              "Shared win: {names}, {n} points each", points, names=who)


def result_of(game: GameInfo | GameHeader | None) -> GameResult | None:
    """A game's stored result (a notification's game header carries none)."""
    return game.result if isinstance(game, GameInfo) else None


def _bar(hours: int, threshold: int, width: int = 9) -> str:
    filled = min(width, hours * width // max(threshold, 1))
    return "▰" * filled + "▱" * (width - filled)


def turn_order(view: View, names: list[str]) -> str:
    """The order of play in this trick, from its leader (``Vera → Gleb → Anna → Boris``);
    empty outside the tricks."""
    if view.phase not in (Phase.PLAY, Phase.ASSIGN):
        return ""
    n, lead = view.players_count, view.lead
    return " → ".join(names[(lead + i) % n] for i in range(n))


def waiting_text(tr: Translator, view: View, names: list[str]) -> str:
    """Who the game waits for, in words."""
    _ = tr.gettext
    to_act = view.to_act
    if not to_act:
        return ""
    phase = view.phase
    if phase is Phase.SWAP:
        return _("Swap: waiting for {names}", names=", ".join(names[s] for s in to_act))
    if phase is Phase.PASS:
        return _("Passing: waiting for {names}", names=", ".join(names[s] for s in to_act))
    name = names[to_act[0]]
    if phase is Phase.TRUMP:
        return _("{name} chooses trump", name=name)
    if phase is Phase.ASSIGN:
        return _("{name} assigns the trick", name=name)
    return _("{name} to play", name=name)


def board_caption(
    tr: Translator, bv: BoardView, now: datetime, bot_username: str,
    recent: list[str] | None = None, *, zone: str | None = None,
) -> Message:
    """The caption and buttons of the board as a picture (``/settings board picture``):
    what :func:`board_message` says, in short; the picture shows the rest."""
    game, view = bv.game, bv.view
    full = board_message(tr, bv, now, bot_username, recent, zone=zone)
    if view is None:
        return full
    deadline = bv.deadline if game.status == GameStatus.ACTIVE else None
    lines = ["🌾 " + caption_text(tr, game, view, now, deadline, zone)]
    if recent:
        lines.append("🕘 " + " ".join(recent))
    if game.status == GameStatus.PAUSED:
        lines.append("⏸ " + tr.gettext("The game is paused; the clock has stopped."))
    elif game.status == GameStatus.ABORTED:
        lines.append(tr.gettext("The game was called off."))
    return Message("\n".join(lines)[:MAX_CAPTION], full.keyboard)


def board_footer(
    tr: Translator, game: GameInfo, view: View, recent: list[str] | None
) -> list[str]:
    """The board's last lines (every board style): the latest moves, the stand-ins, the
    cards sent north, a pause or an end."""
    _ = tr.gettext
    lines = []
    if recent:
        lines.append("🕘 " + " ".join(recent))
    standins = [seat_name(tr, game, s.seat) for s in game.seats if s.standin]
    if standins:
        lines.append("🤖 " + tr.ngettext("A bot stands in for {names} until they are back.",
                                        "Bots stand in for {names} until they are back.",
                                        len(standins), names=", ".join(standins)))
    if view.north:
        lines.append("❄️ " + _("Sent north: {cards}", cards=cards(tr, view.north)))
    if game.status == GameStatus.PAUSED:
        lines.append("⏸ " + _("The game is paused; the clock has stopped."))
    elif game.status == GameStatus.ABORTED:
        lines.append(_("The game was called off."))
    return lines


def board_message(
    tr: Translator, bv: BoardView, now: datetime, bot_username: str,
    recent: list[str] | None = None, *, zone: str | None = None,
) -> Message:
    """The group's living board (edited in place); ``recent`` lines tell the last moves;
    with the group's time ``zone`` (:meth:`Scene.group_zone`) the deadline is on its clock
    too."""
    _ = tr.gettext
    game, view = bv.game, bv.view
    if view is None:
        return lobby_message(tr, game)
    deadline = bv.deadline if game.status == GameStatus.ACTIVE else None
    lines = ["🌾 " + board_text(tr, game, view, now, deadline, zone=zone)]
    lines += board_footer(tr, game, view, recent)
    keyboard: Keyboard = []
    if game.status == GameStatus.ACTIVE and not view.over and not game.practice:
        # (A practice board is in the private chat already, next to the player's cards.)
        keyboard = [[
            Button("🃏 " + _("My cards"), view_button(game.id, game.version, "cards")),
            Button("✉️ " + _("Private chat"), url=deep_link(bot_username, game.id)),
        ]]
    elif game.status == GameStatus.FINISHED and not game.practice:
        # One tap opens the same table again: a lobby here, its players asked to confirm.
        keyboard = [[Button("🔁 " + _("Play again"), lobby_button(game.id, game.version,
                                                                  "again"))]]
    return Message("\n".join(lines), keyboard)
