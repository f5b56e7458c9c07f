"""Drawing primitives of the pictures: fonts, colours, cards, bars, badges and inline text.

Every size here is in *dp*, the units of a 360-wide phone screen; a :class:`Canvas` multiplies
them by its scale (2 for the 720 px images the bot sends), so text that is 13 dp here is 13 dp
on the phone whatever the image's pixel width. The fonts are the DejaVu Sans files shipped in
``fonts/`` (Cyrillic and the suit symbols, on every machine, no system font needed).

Suits differ by shape, hue *and lightness*, for colour-blind players: each card and badge
carries the suit's glyph, at least 12 dp tall (:data:`GLYPH_MIN`), in one of four colours on a
tint of it: ♠ black, ♥ deep red, ♦ mid blue, ♣ light green. In a deuteranopia or protanopia
simulation red and green turn into the same olive; chosen apart in lightness (CIELAB L* at
least 12 apart for every pair, in normal vision and in both simulations), they stay four.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from engine import Card, Suit

FONTS: Final = Path(__file__).resolve().parent / "fonts"

#: The design width in dp: a phone screen's.
DP_WIDTH: Final = 360

Color = tuple[int, int, int]

PAPER: Final[Color] = (246, 239, 224)  # old poster paper
INK: Final[Color] = (38, 34, 30)
MUTED: Final[Color] = (112, 100, 86)
RULE: Final[Color] = (214, 201, 176)
RED: Final[Color] = (170, 27, 27)  # the header band
CREAM: Final[Color] = (255, 244, 214)
GOLD: Final[Color] = (240, 180, 30)
TURN: Final[Color] = (255, 221, 110)  # whose turn
GREEN: Final[Color] = (46, 140, 60)
WHITE: Final[Color] = (255, 255, 255)
BACK: Final[Color] = (150, 30, 30)  # a card's back

#: The suit colours (text and bars) and the tint of a card's face, per suit. Four steps of
#: lightness (L* about 9, 26, 43, 55), so that a red-green colour-blind reader, to whom ♥
#: and ♣ have the same hue, still tells them apart: tests/test_picture_suits.py simulates
#: deuteranopia and protanopia (Machado et al. 2009) and keeps every pair 12 L* apart, each
#: colour at least 3:1 against its tint.
SUIT_INK: Final[dict[Suit, Color]] = {
    Suit.H: (112, 34, 34),
    Suit.D: (52, 101, 173),
    Suit.C: (45, 150, 100),
    Suit.S: (25, 25, 25),
}
SUIT_TINT: Final[dict[Suit, Color]] = {
    Suit.H: (255, 235, 235),
    Suit.D: (228, 240, 255),
    Suit.C: (230, 246, 232),
    Suit.S: (240, 240, 240),
}


@lru_cache(maxsize=64)
def font(px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (bold) at ``px`` pixels, loaded once."""
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONTS / name), px)


def measure(text: str, size: float, bold: bool = False) -> float:
    """The width of ``text`` in dp at ``size`` dp (measured at 2x), for layout decisions
    taken before there is a canvas."""
    return font(round(size * 2), bold).getlength(text) / 2


def fit_lines(text: str, size: float, width: float, bold: bool = False, *,
              smallest: float = 13, lines: int = 2) -> tuple[float, list[str]]:
    """``text`` laid out to be at most ``width`` dp wide, whole: at ``size`` if it fits;
    else on one line at a smaller size, down to ``smallest``; else wrapped on spaces into at
    most ``lines`` lines at the largest size from ``size`` down to ``smallest`` that takes
    them. Only a text that cannot fit even so (a long name without a space) has its last
    line cut with an ellipsis. Returns the font size and the lines."""
    steps = [size - 0.5 * i for i in range(int((size - smallest) * 2) + 1)]
    for s in steps:
        if measure(text, s, bold) <= width:
            return s, [text]
    words = text.split()
    for s in steps:
        out = _wrap(words, s, width, bold)
        if len(out) <= lines and all(measure(line, s, bold) <= width for line in out):
            return s, out
    out = _wrap(words, smallest, width, bold)
    kept = out[:lines]
    last = " ".join([kept[-1], *out[lines:]])
    while last and measure(last + "…", smallest, bold) > width:
        last = last[:-1]
    kept[-1] = last.rstrip() + "…"
    return smallest, kept


def _wrap(words: list[str], size: float, width: float, bold: bool) -> list[str]:
    out = [""]
    for word in words:
        line = f"{out[-1]} {word}".strip()
        if out[-1] and measure(line, size, bold) > width:
            out.append(word)
        else:
            out[-1] = line
    return out


def _glyph(ch: str) -> bytes:
    img = Image.new("L", (40, 40))
    ImageDraw.Draw(img).text((4, 4), ch, font=font(24), fill=255)
    return img.tobytes()


@lru_cache(maxsize=4096)
def _has_glyph(ch: str) -> bool:
    # A character the font lacks is drawn as its box, the glyph of a private-use character.
    return ch.isspace() or _glyph(ch) != _glyph("\U000f0000")


def printable(text: str) -> str:
    """``text`` without the characters the font cannot draw (emoji in a Telegram name would
    otherwise show as boxes); runs of spaces left by them become one."""
    kept = "".join(ch for ch in text if _has_glyph(ch))
    return " ".join(kept.split())


# ---------------------------------------------------------------------- cards


@dataclass(frozen=True, slots=True)
class CardSize:
    """A card's size in dp and the sizes of its rank and suit glyph."""

    w: int
    h: int
    rank: int
    suit: int


#: The smallest suit glyph's font size in dp: its ink is about 13 dp tall, 12 at least on a
#: phone that shows the picture 360 px wide (whatever the image's own width).
GLYPH_MIN: Final = 18

MINI: Final = CardSize(22, 30, 12, GLYPH_MIN)
SMALL: Final = CardSize(30, 42, 15, 21)
LARGE: Final = CardSize(42, 58, 19, 27)


@lru_cache(maxsize=1024)
def card_tile(rank: str, suit: Suit, size: CardSize, scale: float, dim: bool = False
              ) -> Image.Image:
    """A face-up card: the rank in the corner and the suit glyph below it, in the suit's
    colour on its tint (RGBA, drawn once per rank, suit, size and scale)."""
    w, h = round(size.w * scale), round(size.h * scale)
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    ink, tint = SUIT_INK[suit], SUIT_TINT[suit]
    if dim:
        ink = _mix(ink, WHITE, 0.55)
        tint = _mix(tint, (200, 200, 200), 0.5)
    radius = max(2, round(3 * scale))
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=tint, outline=_mix(ink, WHITE, 0.3),
                        width=max(1, round(scale)))
    rank_font = font(round(size.rank * scale), True)
    label = rank
    if rank_font.getlength(label) > w - 2 * scale:  # "10" on the smallest card
        rank_font = font(round(size.rank * scale * 0.85), True)
    top = round(2 * scale)
    d.text((w / 2, top), label, font=rank_font, fill=ink, anchor="mt")
    # the glyph's ink centred in the room under the rank's (the rank's digits' height)
    below = top + rank_font.getbbox("0", anchor="lt")[3]
    glyph(d, w / 2, (below + h - scale) / 2, suit, round(size.suit * scale), ink)
    return img


def glyph(d: ImageDraw.ImageDraw, cx: float, cy: float, suit: Suit, px: int,
          fill: Color) -> None:
    """The suit's glyph at ``px`` pixels, its ink centred on (cx, cy) in pixels (the font's
    own box has room for accents above it, so "middle" anchors draw it low)."""
    f = font(px)
    x0, y0, x1, y1 = f.getbbox(suit.symbol, anchor="la")
    d.text((round(cx - (x0 + x1) / 2), round(cy - (y0 + y1) / 2)), suit.symbol, font=f,
           fill=fill, anchor="la")


@lru_cache(maxsize=64)
def back_tile(size: CardSize, scale: float) -> Image.Image:
    """A card's back (a card nobody at the table may see): red, with a gold star."""
    w, h = round(size.w * scale), round(size.h * scale)
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    radius = max(2, round(3 * scale))
    d.rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=BACK, outline=(110, 20, 20),
                        width=max(1, round(scale)))
    inset = round(3 * scale)
    d.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), radius,
                        outline=_mix(BACK, GOLD, 0.5), width=max(1, round(scale)))
    star(d, w / 2, h / 2, min(w, h) * 0.28, GOLD)
    return img


def _mix(a: Color, b: Color, t: float) -> Color:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


def star(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color) -> None:
    """A five-pointed star of outer radius ``r`` (pixels) around (cx, cy)."""
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.42
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    d.polygon(points, fill=fill)


# ---------------------------------------------------------------------- the canvas


class Canvas:
    """An RGB image drawn in dp: ``Canvas(height_dp, scale)``; :meth:`png` encodes it."""

    def __init__(self, height: float, scale: float, background: Color = PAPER) -> None:
        self.scale = scale
        self.width = round(DP_WIDTH * scale)
        self.image = Image.new("RGB", (self.width, round(height * scale)), background)
        self.draw = ImageDraw.Draw(self.image)

    def px(self, v: float) -> int:
        return round(v * self.scale)

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: Color | None = None,
             outline: Color | None = None, radius: float = 0, width: float = 1) -> None:
        box = (self.px(x0), self.px(y0), self.px(x1) - 1, self.px(y1) - 1)
        if radius:
            self.draw.rounded_rectangle(box, self.px(radius), fill=fill, outline=outline,
                                        width=max(1, self.px(width)))
        else:
            self.draw.rectangle(box, fill=fill, outline=outline, width=max(1, self.px(width)))

    def line(self, x0: float, y0: float, x1: float, y1: float, fill: Color,
             width: float = 1) -> None:
        self.draw.line((self.px(x0), self.px(y0), self.px(x1), self.px(y1)), fill=fill,
                       width=max(1, self.px(width)))

    def font(self, size: float, bold: bool = False) -> ImageFont.FreeTypeFont:
        return font(self.px(size), bold)

    def length(self, text: str, size: float, bold: bool = False) -> float:
        """The width of ``text`` in dp."""
        return self.font(size, bold).getlength(text) / self.scale

    def text(self, x: float, y: float, text: str, size: float, fill: Color = INK,
             bold: bool = False, anchor: str = "lm") -> float:
        """Draws ``text`` (``anchor`` as in Pillow: ``lm`` is left, middle) and returns its
        width in dp."""
        f = self.font(size, bold)
        self.draw.text((self.px(x), self.px(y)), text, font=f, fill=fill, anchor=anchor)
        return f.getlength(text) / self.scale

    def fit_size(self, text: str, size: float, width: float, bold: bool = False) -> float:
        """The largest font size, ``size`` at most, at which ``text`` is at most ``width``
        dp wide on this canvas (a layout measured at 2x may be a pixel wider at another
        scale: the line shrinks a little rather than overflow)."""
        while size > 6 and self.length(text, size, bold) > width:
            size -= 0.25
        return size

    def fit(self, text: str, size: float, width: float, bold: bool = False) -> str:
        """``text`` cut with an ellipsis to at most ``width`` dp."""
        if self.length(text, size, bold) <= width:
            return text
        while text and self.length(text + "…", size, bold) > width:
            text = text[:-1]
        return text.rstrip() + "…"

    def card(self, x: float, y: float, rank: str | None, suit: Suit | None,
             size: CardSize, dim: bool = False, trump: bool = False) -> None:
        """A card with its top-left corner at (x, y): face up, or its back when ``rank`` is
        None (a card the table may not see); a trump in a gold frame."""
        if rank is None or suit is None:
            tile = back_tile(size, self.scale)
        else:
            tile = card_tile(rank, suit, size, self.scale, dim)
        if trump and not dim:
            self.rect(x - 2, y - 2, x + size.w + 2, y + size.h + 2, fill=GOLD, radius=4.5)
        self.image.paste(tile, (self.px(x), self.px(y)), tile)

    def empty_slot(self, x: float, y: float, size: CardSize, outline: Color = RULE) -> None:
        """Where a card will go: an outline."""
        self.rect(x, y, x + size.w, y + size.h, outline=outline, radius=3, width=1)

    def suit_badge(self, x: float, y: float, suit: Suit, side: float) -> None:
        """A square with the suit glyph in its colour on its tint (top-left at x, y), the
        glyph never smaller than :data:`GLYPH_MIN` (so ``side`` is at least 19)."""
        self.rect(x, y, x + side, y + side, fill=SUIT_TINT[suit], outline=SUIT_INK[suit],
                  radius=side / 5, width=1)
        size = max(GLYPH_MIN, side * 0.72)
        glyph(self.draw, self.px(x + side / 2), self.px(y + side / 2), suit, self.px(size),
              SUIT_INK[suit])

    def highlight(self, x: float, y: float, size: CardSize) -> None:
        """The card at (x, y) takes the trick: a dark ring around it (outside the gold frame
        of a trump), seen by its shape whatever the reader's colour vision."""
        self.rect(x - 4, y - 4, x + size.w + 4, y + size.h + 4, outline=INK, radius=6,
                  width=2)

    def check(self, x: float, y: float, side: float) -> None:
        """✅: a green square with a white tick (the font has no emoji)."""
        self.rect(x, y, x + side, y + side, fill=GREEN, radius=side / 5)
        pts = [(x + side * 0.22, y + side * 0.52), (x + side * 0.43, y + side * 0.72),
               (x + side * 0.78, y + side * 0.3)]
        self.draw.line([(self.px(a), self.px(b)) for a, b in pts], fill=WHITE,
                       width=max(2, self.px(side * 0.14)), joint="curve")

    def medal(self, x: float, y: float, side: float, ribbon: Color = RED) -> None:
        """🏅: a gold disc on a ribbon, ``side`` dp tall (top-left at x, y)."""
        r = side * 0.33
        cx, cy = x + side / 2, y + side - r
        self.draw.polygon([(self.px(cx - r * 0.9), self.px(y)), (self.px(cx - r * 0.1),
                            self.px(y)), (self.px(cx + r * 0.2), self.px(cy)),
                           (self.px(cx - r * 0.5), self.px(cy))], fill=ribbon)
        self.draw.polygon([(self.px(cx + r * 0.9), self.px(y)), (self.px(cx + r * 0.1),
                            self.px(y)), (self.px(cx - r * 0.2), self.px(cy)),
                           (self.px(cx + r * 0.5), self.px(cy))], fill=_mix(ribbon, WHITE, 0.2))
        self.draw.ellipse((self.px(cx - r), self.px(cy - r), self.px(cx + r), self.px(cy + r)),
                          fill=GOLD, outline=(180, 130, 20), width=max(1, self.px(0.8)))
        star(self.draw, self.px(cx), self.px(cy), self.px(r * 0.6), (200, 140, 20))

    def star(self, cx: float, cy: float, r: float, fill: Color = GOLD) -> None:
        star(self.draw, self.px(cx), self.px(cy), self.px(r), fill)

    def bar(self, x: float, y: float, w: float, h: float, value: int, full: int,
            color: Color) -> None:
        """Hours against the threshold: filled in the job's colour, capped when done."""
        self.rect(x, y, x + w, y + h, fill=(228, 218, 198), radius=h / 2)
        part = min(1.0, value / max(full, 1))
        if part > 0:
            self.rect(x, y, x + max(h, w * part), y + h, fill=color, radius=h / 2)

    def png(self) -> bytes:
        return encode(self.image)


def encode(image: Image.Image) -> bytes:
    """``image`` as a PNG of 256 colours, quickly: the encoding is most of a picture's cost
    (docs/benchmarks.md). A fast octree palette is as good to the eye for flat colours and
    anti-aliased text, halves the bytes and saves a third of the time; zlib level 1 then
    costs half of level 6 for 15% more bytes."""
    out = io.BytesIO()
    image.quantize(256, method=Image.Quantize.FASTOCTREE).save(out, "PNG", compress_level=1)
    return out.getvalue()


# ---------------------------------------------------------------------- inline text

#: Something drawn inside a line of text: its width in dp, and how to draw it at (x, mid).
Inline = tuple[float, Callable[[Canvas, float, float], None]]


def inline_suit(suit: Suit, side: float) -> Inline:
    return side, lambda c, x, mid: c.suit_badge(x, mid - side / 2, suit, side)


def inline_cards(cards: Sequence[tuple[str | None, Suit | None]], size: CardSize,
                 gap: float = 2) -> Inline:
    width = len(cards) * (size.w + gap) - gap if cards else 0

    def paint(c: Canvas, x: float, mid: float) -> None:
        for i, (rank, suit) in enumerate(cards):
            c.card(x + i * (size.w + gap), mid - size.h / 2, rank, suit, size)

    return width, paint


MARK: Final = "\x00"


def rich(c: Canvas, x: float, mid: float, template: str, items: Sequence[Inline],
         size: float, fill: Color = INK, bold: bool = False, gap: float = 3) -> float:
    """Draws a translated line whose placeholders were filled with ``\\x00<i>\\x00``
    markers: the text pieces as text, the i-th marker as ``items[i]``; returns the end x."""
    for i, piece in enumerate(template.split(MARK)):
        if i % 2:
            width, paint = items[int(piece)]
            paint(c, x + gap, mid)
            x += width + 2 * gap
        elif piece.strip():
            x += c.text(x, mid, piece.strip() if i else piece.rstrip(), size, fill, bold)
    return x


def rich_width(c: Canvas, template: str, items: Sequence[Inline], size: float,
               bold: bool = False, gap: float = 3) -> float:
    """How wide :func:`rich` draws the same line, in dp (to place it from its right end)."""
    x = 0.0
    for i, piece in enumerate(template.split(MARK)):
        if i % 2:
            x += items[int(piece)][0] + 2 * gap
        elif piece.strip():
            x += c.length(piece.strip() if i else piece.rstrip(), size, bold)
    return x


def marks(*names: str) -> dict[str, str]:
    """The placeholder values that make :func:`rich` draw items 0, 1, … in their places."""
    return {name: f"{MARK}{i}{MARK}" for i, name in enumerate(names)}


def card_parts(label: str, card: Card | None) -> tuple[str | None, Suit | None]:
    """A card as the rank its reader writes (``label`` is ``texts.card``'s ``Д♠``) and its
    suit; (None, None) for a card the reader may not see."""
    if card is None:
        return None, None
    return label[:-1], card.suit
