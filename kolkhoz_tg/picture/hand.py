"""A player's own hand as a picture, for their private chat: drawn from that player's view.

The header (year, trump, the player's medals), the jobs in one strip, the trick on the table,
the hand in large cards (those that may not be played now dimmed, trumps framed in gold),
and the plot: face-down cards (only the owner sees them, and only this picture, sent in
private, shows them) and face-up ones.
"""

from __future__ import annotations

from dataclasses import replace

from engine import Action, Card, Phase, Suit
from engine.views import View
from kolkhoz_tg import present
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.picture.draw import (
    CREAM,
    INK,
    LARGE,
    MINI,
    MUTED,
    RED,
    RULE,
    SMALL,
    SUIT_INK,
    Canvas,
    Inline,
    card_parts,
    inline_cards,
    inline_suit,
    marks,
    rich,
    rich_width,
)

MARGIN = 10
HEADER = 40
JOBS = 34
TRICK = 40
PLOT_ROW = SMALL.h + 6
PER_ROW = 7  # large cards in a row of the hand
CARD_GAP = (360 - 2 * MARGIN - PER_ROW * LARGE.w) / (PER_ROW - 1)


def _dash(c: Canvas, x: float, mid: float) -> None:
    c.text(x, mid, "—", 13, MUTED)


#: An empty group of cards, inline: a dash.
_NONE: Inline = (12, _dash)


def _parts(tr: Translator, card: Card) -> tuple[str | None, Suit | None]:
    return card_parts(present.card(tr, str(card)), card)


def render(tr: Translator, view: View, legal: tuple[str, ...], scale: float) -> Canvas:
    if legal:
        view = replace(view, legal=tuple(Action.parse(a) for a in legal))
    if not isinstance(view, View) or view.viewer is None:
        raise ValueError("a hand is drawn from its owner's view, not the public one")
    v = view
    me = v.me
    assert me is not None and me.hand is not None and me.plot_hidden is not None
    hand = me.hand
    hand_rows = max(1, -(-len(hand) // PER_ROW))
    trick = bool(v.trick) and v.phase in (Phase.PLAY, Phase.ASSIGN)
    plot = bool(me.plot_hidden) or bool(me.plot_revealed)
    height = (HEADER + JOBS + (TRICK if trick else 0) + 24 + hand_rows * (LARGE.h + 6)
              + (2 * PLOT_ROW + 8 if plot else 0) + 8)
    c = Canvas(height, scale)
    _ = tr.gettext

    # header: year, trump, medals (the line shrinks rather than run into the medal)
    c.rect(0, 0, 360, HEADER, fill=RED)
    mid = HEADER / 2
    year = _("year {year} of {years}", year=v.year, years=v.years)
    trump = [inline_suit(v.trump, 20)] if v.trump is not None else []
    template = " · " + _("trump {suit}", **marks("suit")) if trump else ""
    room = 360 - 2 * MARGIN - 44
    size: float = 15
    while size > 12 and (c.length(year, size, True) + rich_width(c, template, trump, size)
                         > room):
        size -= 0.5
    x = MARGIN + c.text(MARGIN, mid, c.fit(year, size, room, True), size, CREAM, True)
    if trump:
        rich(c, x, mid, template, trump, size, CREAM)
    c.medal(360 - MARGIN - 38, mid - 10, 20, CREAM)
    c.text(360 - MARGIN - 16, mid, str(me.medals), 15, CREAM, True)

    # the jobs in one strip: ♥ 27/40 · ♦ ✅ · …
    y: float = HEADER
    cell = (360 - 2 * MARGIN) / 4
    for i, job in enumerate(v.jobs):
        x = MARGIN + i * cell
        c.suit_badge(x, y + 7, job.suit, 20)
        if job.complete:
            c.check(x + 26, y + 7, 20)
        else:
            c.text(x + 25, y + 17, f"{job.hours}/{job.threshold}", 13, SUIT_INK[job.suit],
                   True)
    y += JOBS
    c.line(MARGIN, y, 360 - MARGIN, y, RULE)

    if trick:
        cards = [_parts(tr, card) for _seat, card in v.trick]
        rich(c, MARGIN, y + TRICK / 2, _("Trick: {cards}", **marks("cards")),
             [inline_cards(cards, MINI)], 14, INK, True)
        y += TRICK
        c.line(MARGIN, y, 360 - MARGIN, y, RULE)

    # the hand
    c.text(MARGIN, y + 13, _("Your hand"), 14, INK, True)
    y += 24
    playable = v.playable if v.phase is Phase.PLAY and v.legal else None
    for i, card in enumerate(hand):
        row, col = divmod(i, PER_ROW)
        rank, suit = _parts(tr, card)
        dim = playable is not None and card not in playable
        c.card(MARGIN + col * (LARGE.w + CARD_GAP), y + row * (LARGE.h + 6), rank, suit, LARGE,
               dim, trump=suit is v.trump)
    if not hand:
        c.text(MARGIN, y + LARGE.h / 2, "—", 15, MUTED)
    y += hand_rows * (LARGE.h + 6)

    if plot:
        c.line(MARGIN, y + 2, 360 - MARGIN, y + 2, RULE)
        y += 6
        hidden = [_parts(tr, card) for card in me.plot_hidden]
        shown = [_parts(tr, card) for card in me.plot_revealed]
        rich(c, MARGIN, y + PLOT_ROW / 2, _("Face down: {cards}", **marks("cards")),
             [inline_cards(hidden, SMALL) if hidden else _NONE], 13, MUTED)
        rich(c, MARGIN, y + PLOT_ROW * 1.5, _("Face up: {plots}", **marks("plots")),
             [inline_cards(shown, SMALL) if shown else _NONE], 13, MUTED)
    return c
