"""Suits a colour-blind reader tells apart on a phone: the four suit colours the pictures
really draw differ in lightness, in normal vision and in simulated deuteranopia and
protanopia, and every suit glyph is at least 12 px tall on a picture shown 360 px wide."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from PIL import Image

from engine import Suit
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.picture import board_png, hand_png
from kolkhoz_tg.picture import draw as draw_module
from kolkhoz_tg.picture.draw import MINI, SUIT_TINT, Canvas, card_tile, font
from tests.test_picture import info, moments

Color = tuple[int, int, int]
Matrix = tuple[tuple[float, float, float], ...]

#: Machado, Oliveira and Fernandes (2009), "A physiologically-based model for simulation of
#: color vision deficiency", severity 1.0; applied to linear RGB.
VISIONS: dict[str, Matrix] = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
}

#: The least difference in CIELAB lightness between any two suits' colours.
MIN_DELTA_L = 12
#: The least contrast (WCAG) of a suit's colour against the tint of its cards and badges.
MIN_CONTRAST = 3.0
#: The least height of a suit glyph's ink, in px on a picture shown 360 px wide.
MIN_GLYPH_PX = 12


def _linear(v: int) -> float:
    c = v / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def simulate(color: Color, matrix: Matrix) -> tuple[float, float, float]:
    """``color`` as the vision of ``matrix`` sees it, in linear RGB."""
    rgb = [_linear(v) for v in color]
    r, g, b = (min(1.0, max(0.0, sum(row[i] * rgb[i] for i in range(3)))) for row in matrix)
    return r, g, b


def luminance(rgb: tuple[float, float, float]) -> float:
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def lightness(rgb: tuple[float, float, float]) -> float:
    """CIELAB L* of a linear RGB colour."""
    y = luminance(rgb)
    f = y ** (1 / 3) if y > 216 / 24389 else (24389 / 27 * y + 16) / 116
    return 116 * f - 16


def contrast(a: Color, b: Color) -> float:
    ya, yb = (luminance(simulate(c, VISIONS["normal"])) for c in (a, b))
    return (max(ya, yb) + 0.05) / (min(ya, yb) + 0.05)


def _opaque(img: Image.Image, box: tuple[int, int, int, int]) -> list[Color]:
    rgba = img.convert("RGBA")
    out = []
    for y in range(box[1], box[3]):
        for x in range(box[0], box[2]):
            r, g, b, a = rgba.getpixel((x, y))  # type: ignore[misc]
            if a == 255:
                out.append((r, g, b))
    return out


def _darkest(colors: list[Color]) -> Color:
    return min(colors, key=lambda c: luminance(simulate(c, VISIONS["normal"])))


def drawn_inks() -> dict[str, dict[Suit, Color]]:
    """The colour each suit's glyph is really drawn in, read back from the pixels: on a
    card (the darkest pixel of a face: the glyph's and the rank's fully covered ones; the
    border is lighter) and in a badge."""
    out: dict[str, dict[Suit, Color]] = {"card": {}, "badge": {}}
    for suit in Suit:
        tile = card_tile("7", suit, MINI, 2.0)
        out["card"][suit] = _darkest(_opaque(tile, (4, 4, tile.width - 4, tile.height - 4)))
        c = Canvas(40, 2.0)
        c.suit_badge(5, 5, suit, 26)
        out["badge"][suit] = _darkest(_opaque(c.image, (c.px(8), c.px(8), c.px(28), c.px(28))))
    return out


@pytest.mark.parametrize("vision", list(VISIONS))
def test_suit_colours_differ_in_lightness_for_colour_blind_readers(vision: str) -> None:
    """Red and green become one olive to a deuteranope or a protanope: the suits stay four
    only if every pair of their colours differs in lightness (not in hue alone)."""
    for where, inks in drawn_inks().items():
        light = {suit: lightness(simulate(ink, VISIONS[vision])) for suit, ink in inks.items()}
        pairs = {
            f"{a.symbol}{b.symbol}": abs(light[a] - light[b])
            for a, b in itertools.combinations(Suit, 2)
        }
        assert min(pairs.values()) >= MIN_DELTA_L, (where, vision, pairs)


def test_suit_colours_are_the_modules_and_stay_legible_on_their_tints() -> None:
    for where, inks in drawn_inks().items():
        assert inks == draw_module.SUIT_INK, where  # what the simulation above judged
        for suit, ink in inks.items():
            assert contrast(ink, SUIT_TINT[suit]) >= MIN_CONTRAST, (where, suit)


def ink_height(symbol: str, px: int) -> int:
    """The height in pixels of ``symbol``'s ink (pixels at least half covered) at ``px``."""
    mask = font(px).getmask(symbol)
    width, height = mask.size
    rows = [y for y in range(height) if any(mask.getpixel((x, y)) >= 128 for x in range(width))]
    return rows[-1] - rows[0] + 1 if rows else 0


@pytest.mark.parametrize("width", [360, 720])
def test_every_suit_glyph_is_12_px_tall_on_a_picture_shown_360_px_wide(
        width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every glyph the board and the hand draw (on cards of every size, in every badge), at
    every moment: its ink at least 12 px tall once the picture is shown 360 px wide."""
    drawn: set[tuple[str, int]] = set()
    original = draw_module.glyph

    def spy(d: Any, cx: float, cy: float, suit: Suit, px: int, fill: Any) -> None:
        drawn.add((suit.symbol, px))
        original(d, cx, cy, suit, px, fill)

    monkeypatch.setattr(draw_module, "glyph", spy)
    draw_module.card_tile.cache_clear()  # every card draws its glyph anew
    for name, players in (("classic", 4), ("kolkhoz", 5)):
        for i, (_moment, g) in enumerate(moments(name, players, seed=2)):
            tr = translator(("ru", "en")[i % 2])
            board_png(tr, info(players), g.typed_view(None), width=width)
            seat = g.to_act[0] if g.to_act else 0
            hand_png(tr, g.typed_view(seat), [str(a) for a in g.legal_actions(seat)], width=width)
    draw_module.card_tile.cache_clear()
    assert {symbol for symbol, _px in drawn} == {s.symbol for s in Suit}
    shown = {(symbol, px): ink_height(symbol, px) * 360 / width for symbol, px in drawn}
    assert min(shown.values()) >= MIN_GLYPH_PX, sorted(shown.items(), key=lambda i: i[1])[:4]


def test_the_smallest_cards_glyph_measured_in_its_pixels() -> None:
    """The same, read from a real tile: the smallest card drawn for a 360 px picture, its
    glyph's rows of pixels nearer its colour than its tint."""
    for suit in Suit:
        tile = card_tile("", suit, MINI, 1.0).convert("RGBA")
        ink, tint = draw_module.SUIT_INK[suit], SUIT_TINT[suit]
        rows = set()
        for y in range(2, tile.height - 2):  # inside the border
            for x in range(2, tile.width - 2):
                r, g, b, _a = tile.getpixel((x, y))  # type: ignore[misc]
                near_ink = sum((p - q) ** 2 for p, q in zip((r, g, b), ink, strict=True))
                near_tint = sum((p - q) ** 2 for p, q in zip((r, g, b), tint, strict=True))
                if near_ink < near_tint:
                    rows.add(y)
        assert rows and max(rows) - min(rows) + 1 >= MIN_GLYPH_PX, (suit, sorted(rows))
