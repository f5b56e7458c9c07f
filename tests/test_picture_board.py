"""What the board picture shows at the moments players asked about: every plot face up once
the game is over, titles whole in both languages at every width, and on the trick in
progress the suit led and the card taking it so far."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from engine import PRESETS, Card, Game, Phase, Suit, preset
from engine.views import View
from kolkhoz_tg import present
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.picture import PictureCache, board_png
from kolkhoz_tg.picture import board as board_module
from kolkhoz_tg.picture import draw as draw_module
from kolkhoz_tg.picture.draw import Canvas
from tests.test_picture import info, moments


@dataclasses.dataclass
class Drawn:
    """What a rendering drew, by spying on the canvas: texts (with where each one starts
    and ends, in dp), cards, suit badges and highlighted cards."""

    texts: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    cards: list[tuple[float, float, str | None, Suit | None]] = dataclasses.field(
        default_factory=list)
    badges: list[tuple[float, float, Suit, float]] = dataclasses.field(default_factory=list)
    highlights: list[tuple[float, float]] = dataclasses.field(default_factory=list)


@contextmanager
def spying(monkeypatch: pytest.MonkeyPatch) -> Iterator[Drawn]:
    drawn = Drawn()
    text, card, badge = Canvas.text, Canvas.card, Canvas.suit_badge

    def text_spy(self: Canvas, x: float, y: float, s: str, size: float,
                 fill: Any = draw_module.INK, bold: bool = False, anchor: str = "lm") -> float:
        width = self.length(s, size, bold)
        left = {"l": x, "m": x - width / 2, "r": x - width}[anchor[0]]
        drawn.texts.append({"text": s, "x": x, "y": y, "size": size, "fill": fill,
                            "bold": bold, "left": left, "right": left + width,
                            "canvas": self.width / self.scale})
        return text(self, x, y, s, size, fill, bold, anchor)

    def card_spy(self: Canvas, x: float, y: float, rank: str | None, suit: Suit | None,
                 *args: Any, **kwargs: Any) -> None:
        drawn.cards.append((x, y, rank, suit))
        card(self, x, y, rank, suit, *args, **kwargs)

    def badge_spy(self: Canvas, x: float, y: float, suit: Suit, side: float) -> None:
        drawn.badges.append((x, y, suit, side))
        badge(self, x, y, suit, side)

    def highlight_spy(self: Canvas, x: float, y: float, size: Any) -> None:
        drawn.highlights.append((x, y))

    monkeypatch.setattr(Canvas, "text", text_spy)
    monkeypatch.setattr(Canvas, "card", card_spy)
    monkeypatch.setattr(Canvas, "suit_badge", badge_spy)
    monkeypatch.setattr(Canvas, "highlight", highlight_spy, raising=False)
    yield drawn


def finished(name: str, players: int, seed: int) -> Game:
    return list(moments(name, players, seed))[-1][1]


# ---------------------------------------------------------------------- the final picture


@pytest.mark.parametrize("name", ["classic", "kolkhoznik"])
def test_the_final_picture_shows_every_plot_face_up(name: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Scoring reveals every plot: the final board, given them, draws no card face down
    and every plot card face up (its rank and suit), for every seat."""
    g = finished(name, 4, seed=6)
    plots = g.final_plots()
    view = g.view(None)
    assert view["phase"] == "over"
    assert any(p["plot_hidden"] for p in view["players"])  # the public view counts them
    tr = translator("ru")
    with spying(monkeypatch) as drawn:
        board_png(tr, info(4), View.from_dict(view), plots=plots)
    assert all(rank is not None for _x, _y, rank, _suit in drawn.cards), "a card face down"
    shown = [(rank, suit) for _x, _y, rank, suit in drawn.cards]
    for plot in plots:
        for text in plot:
            assert (present.card(tr, text)[:-1], Card.parse(text).suit) in shown, (text, shown)
    # the picture differs from the one with face-down cards, and the cache keeps both apart
    typed = View.from_dict(view)
    assert board_png(tr, info(4), typed, plots=plots) != board_png(tr, info(4), typed)
    cache = PictureCache()
    assert cache.board(tr, info(4), typed) != cache.board(tr, info(4), typed, plots=plots)
    assert cache.misses == 2


def test_plots_are_refused_before_the_end_and_must_match_the_view() -> None:
    tr = translator("en")
    g = next(g for moment, g in moments("classic", 4, 2) if moment == "mid-trick")
    with pytest.raises(ValueError, match="over"):
        board_png(tr, info(4), g.typed_view(None), plots=[[str(Card.parse("7H"))]] * 4)
    over = finished("classic", 4, seed=2)
    plots = over.final_plots()
    with pytest.raises(ValueError, match="match"):
        board_png(tr, info(4), over.typed_view(None), plots=plots[:3])
    wrong = [list(p) for p in plots]
    wrong[0] = wrong[0][1:]  # a card short
    with pytest.raises(ValueError, match="match"):
        board_png(tr, info(4), over.typed_view(None), plots=wrong)


# ---------------------------------------------------------------------- titles


LONG = ["Вера Павловна Иванова-Петрова", "Константин Константинопольский",
        "Maximilian Alexander von Hohenberg", "Екатерина Владимировна Тихомирова"]


def _boards() -> Iterator[tuple[str, Game, dict[str, Any]]]:
    """The boards with the longest titles: the final one, a mid-game one in the last of
    the longest plan (year 20 of 20), and a last trick won by a long name."""
    over = finished("kolkhoz", 4, seed=3)
    yield "over", over, over.view(None)
    g = next(g for g in mid_tricks("classic", 4, 3) if g.last_trick)
    view = g.view(None)
    view["year"] = view["years"] = 20
    yield "year 20 of 20", g, view


@pytest.mark.parametrize("locale", ["ru", "en"])
@pytest.mark.parametrize("width", [360, 720, 1080])
def test_titles_are_whole_and_every_text_fits_the_canvas(
        locale: str, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The header's title is drawn whole (shrunk, or on two lines), never cut with an
    ellipsis, and no text of the board runs past the canvas's edges."""
    tr = translator(locale)
    for what, g, view in _boards():
        with spying(monkeypatch) as drawn:
            board_png(tr, info(4, names=LONG), View.from_dict(view), width=width)
        if g.is_over:
            title = tr.gettext("Kolkhoz · the five-year plan is over")
        else:
            title = tr.gettext("Kolkhoz · year {year} of {years}", year=20, years=20)
        header = [t for t in drawn.texts if t["bold"] and t["fill"] == draw_module.CREAM]
        assert " ".join(t["text"] for t in header) == title, (what, header)
        assert min(t["size"] for t in header) >= 14
        winner = view["last_trick_winner"]
        assert winner is not None
        last = tr.gettext("Last trick: won by {name}", name=LONG[winner])
        lines = [t["text"] for t in drawn.texts if t["text"] in last and t["size"] >= 12
                 and t["x"] == board_module.MARGIN]
        assert " ".join(lines) == last, (what, lines)
        for t in drawn.texts:
            assert t["left"] >= 0 and t["right"] <= t["canvas"], (what, t)


def test_a_title_too_long_for_two_lines_is_still_kept_inside() -> None:
    """A name of 60 letters without a space: the only case cut with an ellipsis."""
    size, lines = draw_module.fit_lines("Last trick: won by " + "Ы" * 60, 13, 340, True,
                                        smallest=12)
    assert size == 12 and len(lines) == 2 and lines[-1].endswith("…")
    assert all(draw_module.measure(line, size, True) <= 340 for line in lines)


# ---------------------------------------------------------------------- the trick


def winning_so_far(trick: list[tuple[int, Card]], trump: Suit | None, trump_wins: bool) -> int:
    """RULES.md, independently of the picture: a trump (when trumps win tricks) beats any
    card of another suit, the led suit beats the rest, and within a suit the higher rank
    (ace low) wins."""
    led = trick[0][1].suit
    best = trick[0]
    for seat, card in trick[1:]:
        b = best[1]
        if trump_wins and trump is not None and card.suit is trump:
            if b.suit is not trump or card.rank > b.rank:
                best = (seat, card)
        elif card.suit is led and b.suit is led and card.rank > b.rank and not (
                trump_wins and b.suit is trump):
            best = (seat, card)
    return best[0]


def mid_tricks(name: str, players: int, seed: int) -> Iterator[Game]:
    """Copies of a random game whenever a trick has cards on the table and is not done."""
    rng = random.Random(f"mid/{name}/{seed}")
    g = Game.new(preset(name), players, seed)
    while not g.is_over:
        if g.phase is Phase.PLAY and g.trick:
            yield g.copy()
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[int(rng.random() * len(legal))])


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_card_taking_the_trick_so_far_agrees_with_the_engine(name: str) -> None:
    """At every complete trick the engine names its Brigadier: the same cards seen as a
    trick still in play give the same seat; and in play, the rule as RULES.md states it."""
    rng = random.Random(name)
    g = Game.new(preset(name), 4, 9)
    checked = 0
    while not g.is_over:
        v = View.from_dict(g.view(None))
        if v.phase is Phase.ASSIGN and len(v.trick) == 4:
            as_played = dataclasses.replace(v, phase=Phase.PLAY)
            assert board_module.taker(as_played) == v.brigadier, v.trick
            checked += 1
        if v.phase is Phase.PLAY and v.trick:
            expected = winning_so_far(list(v.trick), v.trump, v.rules.trump_wins)
            assert board_module.taker(v) == expected, v.trick
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[int(rng.random() * len(legal))])
    assert checked >= 10


@pytest.mark.parametrize("locale", ["ru", "en"])
def test_a_trick_in_progress_shows_its_led_suit_and_the_card_taking_it(
        locale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    tr = translator(locale)
    label = tr.gettext("led suit {suit}", suit="\x00").split("\x00")[0].strip()
    seen = 0
    for name in ("classic", "original"):
        for g in list(mid_tricks(name, 4, 4))[:12]:
            v = View.from_dict(g.view(None))
            with spying(monkeypatch) as drawn:
                board_png(tr, info(4), g.typed_view(None))
            # the led suit: its label, and a badge of that suit on the same line after it
            (text,) = [t for t in drawn.texts if t["text"] == label]
            assert any(suit is v.led_suit and x >= text["right"] and abs(y + side / 2 - text["y"])
                       < 2 for x, y, suit, side in drawn.badges), (text, drawn.badges)
            # the card taking the trick so far is ringed, and only that one
            seat = winning_so_far(list(v.trick), v.trump, v.rules.trump_wins)
            card = dict(v.trick)[seat]
            (ring,) = drawn.highlights
            ringed = [(rank, suit) for x, y, rank, suit in drawn.cards if (x, y) == ring]
            assert ringed == [(present.card(tr, str(card))[:-1], card.suit)], (ringed, card)
            assert any(t["text"] == tr.gettext("takes") for t in drawn.texts)
            seen += 1
    assert seen == 24
    # no trick on the table: neither
    g = Game.new(preset("classic"), 4, 1)
    with spying(monkeypatch) as drawn:
        board_png(tr, info(4), g.typed_view(None))
    assert not drawn.highlights and not [t for t in drawn.texts if t["text"] == label]
