"""The board and a player's hand as PNG pictures (Pillow), for a phone.

- :func:`board_png` draws the group's board from the **public view only** (it refuses a
  seat's view), in the reader's language and the preset's theme; once the game is over it
  also takes every seat's whole plot (``Game.final_plots()``: scoring reveals them) and
  draws them face up;
- :func:`hand_png` draws one player's hand and plot from that player's own view, for a
  private chat;
- :func:`cached_board_png` is :func:`board_png` remembered per game, version, locale and
  width (a small LRU), so sending the same board again costs nothing.

Images are ``width`` pixels wide (720 by default: a 360 dp phone screen at 2x); every size
inside is in dp (:mod:`kolkhoz_tg.picture.draw`), so text keeps its size on the phone.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Final

from engine import Card
from engine.views import View
from kolkhoz_tg.i18n import Translator
from kolkhoz_tg.picture import board, hand
from kolkhoz_tg.picture.draw import DP_WIDTH
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import GameInfo

#: The default width in pixels: a 360 dp phone screen at 2x.
WIDTH: Final = 720


def _scale(width: int) -> float:
    if not isinstance(width, int) or not 240 <= width <= 2160:
        raise ValueError(f"width must be from 240 to 2160 pixels, not {width!r}")
    return width / DP_WIDTH


#: Every seat's whole plot, as ``Game.final_plots()`` gives them (card texts or cards).
Plots = Sequence[Sequence[Card | str]]


def board_png(tr: Translator, game: GameInfo | GameHeader,
              public_view: View,
              *, width: int = WIDTH, plots: Plots | None = None) -> bytes:
    """The board of ``game`` as a PNG ``width`` pixels wide, drawn from ``public_view``
    (``engine.Game.typed_view(None)``, the service's :class:`BoardView` view) and the
    seats' names in ``game``. Once the game is over, ``plots`` (``Game.final_plots()``)
    shows every plot face up; without them the public view has only the face-up cards and
    counts.
    Raises :class:`ValueError` for a seat's view (one with a hand or face-down cards in
    it), plots before the end or not matching the view, or a width outside 240-2160."""
    return board.render(tr, game, public_view, _scale(width), plots).png()


def hand_png(tr: Translator, seat_view: View, legal: Iterable[str] = (), *,
             width: int = WIDTH) -> bytes:
    """The reader's own hand and plot as a PNG, from their view
    (``engine.Game.typed_view(seat)``, the service's :class:`SeatView` view):
    the cards they may not play now (outside the view's legal actions, or ``legal`` action
    texts when given) dimmed. Raises :class:`ValueError` for the public view."""
    return hand.render(tr, seat_view, tuple(legal), _scale(width)).png()


class PictureCache:
    """A bounded LRU of rendered boards, keyed by (game id, version, locale, width, names,
    final plots): a game's version changes with every move, and a renamed player changes
    the names."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def board(self, tr: Translator, game: GameInfo | GameHeader,
              public_view: View, *, width: int = WIDTH,
              plots: Plots | None = None) -> bytes:
        """:func:`board_png`, from the cache when this version was drawn before."""
        names = tuple((s.seat, s.name, s.is_ai) for s in game.seats)
        final = None if plots is None else tuple(tuple(map(str, p)) for p in plots)
        key = (game.id, game.version, tr.locale, width, names, final)
        with self._lock:
            png = self._items.get(key)
            if png is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return png
        png = board_png(tr, game, public_view, width=width, plots=plots)
        with self._lock:
            self.misses += 1
            self._items[key] = png
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return png

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.misses = 0


#: The process's cache of boards (:func:`cached_board_png`).
BOARDS: Final = PictureCache()


def cached_board_png(tr: Translator, game: GameInfo | GameHeader,
                     public_view: View, *, width: int = WIDTH,
                     plots: Plots | None = None) -> bytes:
    """:func:`board_png` through :data:`BOARDS`: free when this game version was drawn
    before in the same language and width."""
    return BOARDS.board(tr, game, public_view, width=width, plots=plots)


__all__ = ["BOARDS", "WIDTH", "PictureCache", "Plots", "board_png", "cached_board_png",
           "hand_png"]
