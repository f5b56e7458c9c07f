"""The group's board as a picture, drawn from the public view only.

Top to bottom: the header (year, planner, trump), the four jobs (hours as bars against the
threshold, ✅ and who completed it, the visible rewards as cards), the trick on the table
(who played what, the suit led, whose card takes it so far, whose turn it is), the last
complete trick (who took it, where each card went), one row per player (medals, face-up plot
cards, how many face down — a Колхозик stack's top card among the first, the rest among the
second; once the game is over, every plot card face up, as scoring reveals them, and the
score), the cards sent north, and who the game waits for (or who won).

No clock: the deadline changes every minute while the board does not, so it stays in the
caption and the picture can be cached per game version (:mod:`kolkhoz_tg.picture`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import Card, Phase, Suit
from engine.views import View
from kolkhoz_tg import present
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.picture.draw import (
    CREAM,
    GOLD,
    INK,
    MINI,
    MUTED,
    RED,
    RULE,
    SMALL,
    SUIT_INK,
    TURN,
    Canvas,
    Inline,
    card_parts,
    fit_lines,
    inline_cards,
    inline_suit,
    marks,
    measure,
    printable,
    rich,
    rich_width,
)
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import GameInfo

MARGIN = 10
HEADER = 54
JOB_ROW = 38
SLOT_NAME = 17  # the name line above a card in a trick (and room for the taker's ring)
PLAYER_LINE = MINI.h + 6
BADGE = 19  # the smallest suit badge: its glyph GLYPH_MIN


@dataclass(frozen=True, slots=True)
class _Board:
    """What the drawing needs, worked out once: the typed view, names, theme, and every
    seat's whole plot once the game is over (when the caller has them)."""

    tr: Translator
    view: View
    names: list[str]
    theme: str
    plots: tuple[tuple[Card, ...], ...] | None = None

    def card(self, card: Card | None) -> tuple[str | None, Suit | None]:
        return card_parts(present.card(self.tr, None if card is None else str(card)), card)


def public_only(view: View) -> View:
    """``view``, checked: raises :class:`ValueError` unless it is the public view
    (``Game.typed_view(None)``): the board picture is shown to a whole group, so a seat's
    view must never reach it."""
    if not isinstance(view, View) or view.viewer is not None:
        raise ValueError("the board picture is drawn from the public view only")
    for p in view.players:
        if p.hand is not None or p.plot_hidden is not None:
            raise ValueError("the board picture is drawn from the public view only")
    return view


def final_plots(view: View, plots: Sequence[Sequence[Card | str]] | None
                ) -> tuple[tuple[Card, ...], ...] | None:
    """``plots`` (every seat's whole plot, as ``Game.final_plots()`` gives them) checked
    against the view: only once the game is over (scoring reveals them; before that they
    are secret), one per seat, each holding the seat's face-up cards and as many as the
    view counts. Raises :class:`ValueError` otherwise."""
    if plots is None:
        return None
    if not view.over:
        raise ValueError("plots are drawn only once the game is over")
    cards = tuple(tuple(c if isinstance(c, Card) else Card.parse(c) for c in p) for p in plots)
    if len(cards) != view.players_count or any(
            len(plot) != p.hidden_count + len(p.plot_revealed)
            or not set(p.plot_revealed) <= set(plot)
            for p, plot in zip(view.players, cards, strict=False)):
        raise ValueError("the plots do not match the view")
    return cards


def names_of(tr: Translator, game: GameInfo | GameHeader, n: int) -> list[str]:
    """The seats' names as the font can draw them (a name of emoji alone becomes the seat)."""
    out = []
    for s in range(n):
        name = printable(present.seat_name(tr, game, s))
        out.append(name or tr.gettext("Seat {number}", number=s + 1))
    return out


def render(tr: Translator, game: GameInfo | GameHeader, view: View,
           scale: float, plots: Sequence[Sequence[Card | str]] | None = None) -> Canvas:
    typed = public_only(view)
    b = _Board(tr, typed, names_of(tr, game, typed.players_count),
               typed.rules.theme.value, final_plots(typed, plots))
    heights = [_header_height(b), 4 * JOB_ROW + 6, _trick_height(b), _last_height(b),
               _players_height(b), _north_height(b), _footer_height(b)]
    c = Canvas(sum(heights), scale)
    y: float = 0
    for height, paint in zip(heights, (_header, _jobs, _trick, _last_trick, _players, _north,
                                       _footer), strict=True):
        if height:
            paint(c, b, y)
        y += height
    return c


# ---------------------------------------------------------------------- header


TITLE_X = MARGIN + 21  # after the star
TITLE_W = 360 - MARGIN - TITLE_X
TITLE_LINE = 20


def _title(b: _Board) -> tuple[float, list[str]]:
    """The header's title, whole: shrunk a little or on two lines when it is long."""
    _ = b.tr.gettext
    v = b.view
    if v.over:
        title = _("Kolkhoz · the five-year plan is over")
    else:
        title = _("Kolkhoz · year {year} of {years}", year=v.year, years=v.years)
    return fit_lines(title, 17, TITLE_W, True, smallest=14)


def _header_height(b: _Board) -> float:
    return (34 if b.view.over else HEADER) + TITLE_LINE * (len(_title(b)[1]) - 1)


def _header(c: Canvas, b: _Board, y: float) -> None:
    _ = b.tr.gettext
    v = b.view
    c.rect(0, y, 360, y + _header_height(b), fill=RED)
    c.star(MARGIN + 8, y + 17, 8)
    size, lines = _title(b)
    for i, line in enumerate(lines):
        c.text(TITLE_X, y + 17 + i * TITLE_LINE, line, c.fit_size(line, size, TITLE_W, True),
               CREAM, bold=True)
    if v.over:
        return
    mid = y + 40 + TITLE_LINE * (len(lines) - 1)
    planner = c.fit(_("Planner: {name}", name=b.names[v.planner]), 14, 190)
    x = MARGIN + c.text(MARGIN, mid, planner, 14, CREAM)
    parts: list[str] = []
    if v.trump is not None:
        rich(c, x, mid, " · " + _("trump {suit}", **marks("suit")),
             [inline_suit(v.trump, 20)], 14, CREAM)
    elif v.short:
        parts.append(_("no trump (supply disruption)"))
    elif v.lean:
        parts.append(_("no trump (lean year)"))
    if v.famine:
        parts.append(_("famine year"))
    if parts:
        text = " · " + " · ".join(parts)
        c.text(x, mid, c.fit(text, 13, 360 - MARGIN - x), 13, CREAM)


# ---------------------------------------------------------------------- jobs


def _jobs(c: Canvas, b: _Board, y: float) -> None:
    v = b.view
    y += 4
    right = 262  # the bars end here; the rewards or ✅ take the rest
    for job in v.jobs:
        top = y
        ink = SUIT_INK[job.suit]
        c.suit_badge(MARGIN, top + 6, job.suit, 26)
        name = present.job_name(b.tr, b.theme, job.suit.letter)
        hours = f"{job.hours}/{job.threshold}"
        hours_w = c.length(hours, 14, True)
        c.text(44, top + 12, c.fit(name, 15, right - 44 - hours_w - 6, True), 15, INK, True)
        c.text(right, top + 12, hours, 14, ink if job.complete else MUTED, True, anchor="rm")
        c.bar(44, top + 23, right - 44, 9, job.hours, job.threshold, ink)
        area = 360 - MARGIN - (right + 8)
        if job.complete:
            c.check(right + 8, top + 7, 22)
            if job.completed_by is not None:
                who = c.fit(b.names[job.completed_by], 12, area - 26)
                c.text(right + 34, top + 18, who, 12, INK)
        elif job.rewards:
            k = len(job.rewards)
            step = MINI.w + 2 if k < 2 else min(MINI.w + 2, (area - MINI.w) / (k - 1))
            for i, card in enumerate(job.rewards):
                rank, suit = b.card(card)
                c.card(right + 8 + i * step, top + 4, rank, suit, MINI)
        y += JOB_ROW
    c.line(MARGIN, y + 1, 360 - MARGIN, y + 1, RULE)


# ---------------------------------------------------------------------- tricks


def _placed(b: _Board) -> dict[Card, Suit]:
    """Where the cards of the table went: card → its job's suit."""
    return {card: job.suit for job in b.view.jobs for card in job.workers}


def _trick_height(b: _Board) -> float:
    v = b.view
    if v.phase not in (Phase.PLAY, Phase.ASSIGN) or not v.tricks_total:
        return 0
    # room under the cards: for "takes" under the card taking the trick so far, and for the
    # badge of the job each card went to while assigning
    return 26 + SLOT_NAME + SMALL.h + BADGE + 8


def taker(v: View) -> int | None:
    """The seat whose card takes the trick on the table: once it is complete, its
    Brigadier; while it is played, the card winning it so far — the highest trump, when
    trumps win tricks (``Rules.trump_wins``), else the highest card of the led suit (an ace
    is a suit's lowest card). None with no card on the table."""
    if v.phase is Phase.ASSIGN:
        return v.brigadier
    if v.phase is not Phase.PLAY or not v.trick:
        return None
    led = v.trick[0][1].suit
    trump = v.trump if v.rules.trump_wins else None
    return max(v.trick, key=lambda played: (played[1].suit is trump, played[1].suit is led,
                                            played[1].rank))[0]


def _slots(n: int) -> tuple[float, float]:
    """The width of one seat's place in a row of ``n`` and the row's left edge."""
    width = min(72.0, (360 - 2 * MARGIN) / n)
    return width, (360 - width * n) / 2


def _trick(c: Canvas, b: _Board, y: float) -> None:
    _ = b.tr.gettext
    v = b.view
    n = v.players_count
    c.text(MARGIN, y + 14, _("Trick {number} of {total}", number=v.tricks_played + 1,
                             total=v.tricks_total), 14, INK, True)
    led = v.led_suit
    if led is not None:
        template = _("led suit {suit}", **marks("suit"))
        items = [inline_suit(led, 20)]
        rich(c, 360 - MARGIN - rich_width(c, template, items, 13), y + 14, template, items,
             13, MUTED)
    takes = taker(v)
    played = list(v.trick)
    first = played[0][0] if played else v.lead
    order = [(first + i) % n for i in range(n)]
    by_seat = dict(played)
    placed = _placed(b)
    to_play = v.to_act[0] if v.phase is Phase.PLAY and v.to_act else None
    width, left = _slots(n)
    top = y + 26
    for i, seat in enumerate(order):
        x = left + i * width
        cx = x + width / 2
        if seat == to_play:
            c.rect(x + 2, top - 2, x + width - 2, top + SLOT_NAME + SMALL.h + 4, fill=TURN,
                   radius=5)
        star = seat == takes
        name = c.fit(b.names[seat], 12, width - 6 - (12 if star else 0), seat == to_play)
        name_w = c.text(cx, top + 6, name, 12, INK, seat == to_play, anchor="mm")
        if star:
            c.star(cx + name_w / 2 + 7, top + 6, 5.5, GOLD)
        card_x = cx - SMALL.w / 2
        under = top + SLOT_NAME + SMALL.h + 6
        if seat in by_seat:
            card = by_seat[seat]
            rank, suit = b.card(card)
            if star:
                c.highlight(card_x, top + SLOT_NAME, SMALL)
            c.card(card_x, top + SLOT_NAME, rank, suit, SMALL, trump=suit is v.trump)
            job = placed.get(card)
            if job is not None:
                c.text(cx, under + BADGE / 2, "→", 12, MUTED, anchor="rm")
                c.suit_badge(cx + 1, under, job, BADGE)
            elif star and v.phase is Phase.PLAY:
                label = _("takes")
                c.text(cx, under + BADGE / 2, c.fit(label, 11, width - 4, True), 11, INK, True,
                       anchor="mm")
        else:
            c.empty_slot(card_x, top + SLOT_NAME, SMALL, GOLD if seat == to_play else RULE)
    c.line(MARGIN, y + _trick_height(b) - 1, 360 - MARGIN, y + _trick_height(b) - 1, RULE)


LAST_LINE = 17


def _last_title(b: _Board) -> tuple[float, list[str]]:
    """The last trick's title, whole (a long name may take it to a second line)."""
    v = b.view
    assert v.last_trick_winner is not None
    title = b.tr.gettext("Last trick: won by {name}", name=b.names[v.last_trick_winner])
    return fit_lines(title, 13, 360 - 2 * MARGIN, True, smallest=12)


def _last_height(b: _Board) -> float:
    v = b.view
    if not v.last_trick or v.last_trick_winner is None:
        return 0
    return 24 + LAST_LINE * (len(_last_title(b)[1]) - 1) + 12 + MINI.h + 8


def _last_trick(c: Canvas, b: _Board, y: float) -> None:
    v = b.view
    assert v.last_trick_winner is not None
    size, lines = _last_title(b)
    for i, line in enumerate(lines):
        c.text(MARGIN, y + 13 + i * LAST_LINE, line,
               c.fit_size(line, size, 360 - 2 * MARGIN, True), INK, True)
    placed = _placed(b)
    width, left = _slots(len(v.last_trick))
    top = y + 24 + LAST_LINE * (len(lines) - 1)
    for i, (seat, card) in enumerate(v.last_trick):
        x = left + i * width
        cx = x + width / 2
        won = seat == v.last_trick_winner
        name = c.fit(b.names[seat], 11, width - 4 - (12 if won else 0))
        name_w = c.text(cx + (6 if won else 0), top + 5, name, 11, INK if won else MUTED,
                        anchor="mm")
        if won:  # the star before the name, as cut to its place
            c.star(cx + 6 - name_w / 2 - 7, top + 5, 5.5, GOLD)
        job = placed.get(card) if card is not None else None
        shift = (BADGE + 2) / 2 if job is not None else 0
        rank, suit = b.card(card)
        c.card(cx - MINI.w / 2 - shift, top + 12, rank, suit, MINI)
        if job is not None:
            c.suit_badge(cx + MINI.w / 2 - shift + 2, top + 12 + MINI.h - BADGE, job, BADGE)
    bottom = y + _last_height(b) - 1
    c.line(MARGIN, bottom, 360 - MARGIN, bottom, RULE)


# ---------------------------------------------------------------------- players

NAME_W = 104
CARDS_X = MARGIN + NAME_W + 36  # after the name and the medals


def _player_items(b: _Board, seat: int) -> list[tuple[float, Any]]:
    """The things in a player's row, each as (width, what): face-up cards and the face-down
    count (a Колхозик stack is in both already: its top card face up, the rest face down);
    once the game is over, the whole plot face up, in card order."""
    if b.plots is not None:
        return [(MINI.w, ("card", c)) for c in sorted(b.plots[seat], key=lambda c: c.id)]
    p = b.view.players[seat]
    items: list[tuple[float, Any]] = [(MINI.w, ("card", c)) for c in p.plot_revealed]
    if p.hidden_count:
        items.append((MINI.w + 22, ("hidden", p.hidden_count)))
    return items


def _lines(items: list[tuple[float, Any]], width: float) -> list[list[tuple[float, Any]]]:
    lines: list[list[tuple[float, Any]]] = [[]]
    used = 0.0
    for item in items:
        if lines[-1] and used + item[0] > width:
            lines.append([])
            used = 0
        lines[-1].append(item)
        used += item[0] + 2
    return lines


def _cards_width(b: _Board) -> float:
    return 360 - MARGIN - CARDS_X - (40 if b.view.scores is not None else 0)


def _row_height(b: _Board, seat: int) -> float:
    return max(1, len(_lines(_player_items(b, seat), _cards_width(b)))) * PLAYER_LINE + 4


def _players_height(b: _Board) -> float:
    return 6 + sum(_row_height(b, s) for s in range(b.view.players_count)) + 4


def _players(c: Canvas, b: _Board, y: float) -> None:
    v = b.view
    y += 6
    for seat in range(v.players_count):
        height = _row_height(b, seat)
        p = v.players[seat]
        mid = y + PLAYER_LINE / 2 + 1
        turn = seat in v.to_act
        if turn:
            c.rect(MARGIN - 4, y, 360 - MARGIN + 4, y + height - 2, fill=TURN, radius=6)
        c.text(MARGIN, mid, c.fit(b.names[seat], 14, NAME_W, True), 14, INK, True)
        c.medal(MARGIN + NAME_W + 4, mid - 9, 18)
        c.text(MARGIN + NAME_W + 23, mid, str(p.medals), 13, INK if p.medals else MUTED, True)
        lines = _lines(_player_items(b, seat), _cards_width(b))
        for row, line in enumerate(lines):
            x: float = CARDS_X
            top = y + row * PLAYER_LINE + 3
            for width, (kind, what) in line:
                if kind == "card":
                    rank, suit = b.card(what)
                    c.card(x, top, rank, suit, MINI)
                else:
                    c.card(x, top, None, None, MINI)
                    c.text(x + MINI.w + 2, top + MINI.h / 2, f"×{what}", 12, MUTED)
                x += width + 2
        if v.scores is not None:
            winner = v.winners is not None and seat in v.winners
            right = 360 - MARGIN
            if winner:
                c.star(right - 8, mid, 8, GOLD)
                right -= 18
            c.text(right, mid, str(v.scores[seat]), 17, INK, True, anchor="rm")
        y += height


def _north_height(b: _Board) -> float:
    return 34 if b.view.north else 0


def _north(c: Canvas, b: _Board, y: float) -> None:
    _ = b.tr.gettext
    v = b.view
    c.line(MARGIN, y, 360 - MARGIN, y, RULE)
    template = _("Sent north: {cards}", **marks("cards"))
    label = template.split("\x00")[0]
    room = 360 - 2 * MARGIN - c.length(label, 13) - 40
    fit = max(1, int(room // (MINI.w + 2)))
    shown = [b.card(card) for card in v.north[:fit]]
    items: list[Inline] = [inline_cards(shown, MINI)]
    x = rich(c, MARGIN, y + 18, template, items, 13, MUTED)
    if len(v.north) > fit:
        c.text(x, y + 18, f"+{len(v.north) - fit}", 13, MUTED, True)


# ---------------------------------------------------------------------- footer


def _footer_text(b: _Board) -> tuple[str, bool]:
    """What the footer says: who the game waits for, or who won (then True)."""
    v = b.view
    if v.over and v.scores is not None and v.winners:
        who = ", ".join(b.names[s] for s in v.winners)
        points = v.scores[v.winners[0]]
        if len(v.winners) == 1:
            return b.tr.ngettext("{name} wins with {n} point", "{name} wins with {n} points",
                                 points, name=who), True
        return b.tr.ngettext("Shared win: {names}, {n} point each",
                             "Shared win: {names}, {n} points each", points, names=who), True
    return present.waiting_text(b.tr, b.view, b.names), False


FOOTER_SIZE = 15
FOOTER_LINE = 22


def _footer_lines(b: _Board) -> list[str]:
    """The footer's text in at most two lines of :data:`FOOTER_SIZE` (the second cut with
    an ellipsis if need be)."""
    text, won = _footer_text(b)
    width = 360 - 2 * MARGIN - (24 if won else 0)
    words, lines = text.split(), [""]
    for word in words:
        line = f"{lines[-1]} {word}".strip()
        if lines[-1] and measure(line, FOOTER_SIZE, True) > width and len(lines) < 2:
            lines.append(word)
        else:
            lines[-1] = line
    return [line for line in lines if line]


def _footer_height(b: _Board) -> float:
    return 14 + FOOTER_LINE * max(1, len(_footer_lines(b)))


def _footer(c: Canvas, b: _Board, y: float) -> None:
    v = b.view
    height = _footer_height(b)
    c.rect(0, y + 4, 360, y + height, fill=TURN if v.to_act else (235, 225, 205))
    _text, won = _footer_text(b)
    lines = _footer_lines(b)
    width = 360 - 2 * MARGIN - (24 if won else 0)
    mid = y + 4 + (height - 4) / 2 - FOOTER_LINE * (len(lines) - 1) / 2
    for i, line in enumerate(lines):
        line = c.fit(line, FOOTER_SIZE, width, True)
        shift = 12 if won else 0
        c.text(180 + shift, mid + i * FOOTER_LINE, line, FOOTER_SIZE, INK, True, anchor="mm")
        if won and i == 0:
            c.star(180 + shift - c.length(line, FOOTER_SIZE, True) / 2 - 14, mid, 8, RED)
