"""The group's board as a rich message (``/settings board rich``, Bot API 10.1+): the same
public view as the text board (:mod:`.board`), laid out in HTML of Telegram's rich style:
the jobs as a compact table (hours, threshold, rewards), the trick on the table, the
players with their medals and face-up plot cards in a second table, and the year's tricks
in a ``<details>`` block the reader opens. Every piece of text is html-escaped; the whole
stays within Telegram's rich limits (a long log loses its oldest tricks, as the text board
loses its tail).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

from engine.phase import Phase
from engine.views import View
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.present.board import (
    board_footer,
    board_heading,
    result_of,
    trick_lines,
    turn_order,
    waiting_text,
    winners_line,
)
from kolkhoz_tg.present.words import SUIT_SYMBOLS, cards, job_name, seat_names
from kolkhoz_tg.service.records import BoardView
from kolkhoz_tg.storage.models import GameStatus

#: The room the year's log may take (characters, lines): well inside Telegram's limits on a
#: rich message (32,768 characters, 500 blocks) whatever the log says, the rest of the board
#: being small.
LOG_ROOM = 24000
LOG_LINES = 300


def _e(text: str) -> str:
    """Text as rich HTML takes it (``&``, ``<``, ``>``; quotes are plain text here)."""
    return escape(text, quote=False)


def _row(cells: Sequence[str], tag: str = "td") -> str:
    return "<tr>" + "".join(f"<{tag}>{_e(c)}</{tag}>" for c in cells) + "</tr>"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    body = _row(head, "th") + "".join(_row(r) for r in rows)
    return f"<table bordered striped compact>{body}</table>"


def fit_log(lines: list[str], room: int = LOG_ROOM, most: int = LOG_LINES) -> list[str]:
    """The newest of ``lines`` that fit ``room`` characters and ``most`` lines, in order; an
    ellipsis line first when older ones were left out."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if len(kept) >= most - 1 or used + len(line) + 1 > room:
            return ["…", *reversed(kept)]
        kept.append(line)
        used += len(line) + 1
    return list(reversed(kept))


def _head(tr: Translator, bv: BoardView, view: View, names: list[str]) -> list[str]:
    """The heading and the line under it: the year, planner, trump."""
    title, notes = board_heading(tr, view, names)
    out = [f"<h3>🌾 {_e(title)}</h3>"]
    if notes:
        out.append(f"<p>{_e(' · '.join(notes))}</p>")
    return out


def _jobs(tr: Translator, view: View, names: list[str]) -> str:
    """The jobs' table: the job, its hours against the threshold, its reward or who
    completed it."""
    _ = tr.gettext
    theme = view.rules.theme.value
    rows = []
    for job in view.jobs:
        j = job.suit.letter
        if job.complete:
            assert job.completed_by is not None
            reward = _("done ({name})", name=names[job.completed_by])
        else:
            reward = cards(tr, job.rewards)
        rows.append([f"{SUIT_SYMBOLS[j]} {job_name(tr, theme, j)}",
                     f"{job.hours}/{job.threshold}", reward])
    # The column is named as the preset's theme names what it lists (jobs, or fields).
    head = _("Field") if theme == "fields" else _("Job")
    return _table([head, _("Hours"), _("Reward")], rows)


def _players(tr: Translator, view: View, heads: list[str]) -> str:
    """The players' table: medals and the plot cards lying face up."""
    _ = tr.gettext
    rows = [[heads[p.seat], str(p.medals), cards(tr, p.plot_revealed)]
            for p in view.players]
    return _table([_("Player"), _("Medals"), _("Face up")], rows)


def board_rich(
    tr: Translator, bv: BoardView, now: datetime, recent: list[str] | None = None, *,
    zone: str | None = None,
) -> str:
    """The board of a game under way or over (``bv.view`` set) as rich HTML; the buttons
    are the text board's (:func:`~kolkhoz_tg.present.board.board_message`)."""
    _ = tr.gettext
    game, view = bv.game, bv.view
    assert view is not None, "a lobby is always a text board"
    names = seat_names(tr, game, view.players_count)
    heads = list(names)
    parts = _head(tr, bv, view, names)
    parts.append(_jobs(tr, view, names))
    log = trick_lines(tr, view, names, heads, game)
    if view.phase in (Phase.PLAY, Phase.ASSIGN) and view.tricks_total and log:
        # trick_lines ends with the trick on the table: shown openly, the rest folded.
        parts.append(f"<p><b>{_e(log[-1])}</b></p>")
        log = log[:-1]
    aborted = game.status == GameStatus.ABORTED
    order = "" if aborted else turn_order(view, heads)
    if order:
        parts.append(f"<p>{_e('🔄 ' + order)}</p>")
    waiting = "" if aborted else waiting_text(tr, view, names)
    deadline = bv.deadline if game.status == GameStatus.ACTIVE else None
    if waiting and deadline is not None:
        if zone is not None:
            waiting += " " + _("(ends {time}, {left})", time=tr.clock(deadline, now, zone),
                               left=tr.relative(deadline, now))
        else:
            waiting += " " + _("({left})", left=tr.relative(deadline, now))
    if waiting:
        parts.append(f"<p>⏳ {_e(waiting)}</p>")
    parts.append(_players(tr, view, heads))
    points = [p.points_in_sight for p in view.players]
    if not view.over and any(points):
        parts.append("<p>{}</p>".format(_e("📊 " + _("Points in sight: {points}", points=" · ".join(
            f"{heads[seat]} {value}" for seat, value in enumerate(points))))))
    winners = winners_line(tr, result_of(game), names)
    if winners:
        parts.append(f"<p><b>{_e(winners)}</b></p>")
    if log:
        # (Once the game is over, its last trick alone is kept.)
        summary = _("Last trick") if view.over else tr.ngettext(
            "The year so far: {n} trick", "The year so far: {n} tricks", len(log))
        body = "".join(f"<p>{_e(line)}</p>" for line in fit_log(log))
        parts.append(f"<details><summary>📜 {_e(summary)}</summary>{body}</details>")
    parts += _footer(tr, bv, view, recent)
    return "".join(parts)


def _footer(
    tr: Translator, bv: BoardView, view: View, recent: list[str] | None
) -> list[str]:
    """The last moves, the stand-ins, the cards sent north, a pause: as the text board."""
    return [f"<p>{_e(line)}</p>" for line in board_footer(tr, bv.game, view, recent)]
