"""The board and hand pictures (kolkhoz_tg.picture): valid PNGs for every preset and player
count at the moments that matter, drawn from the public view only, legible on a phone, and
cached per game version."""

from __future__ import annotations

import dataclasses
import io
import random
import tomllib
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine import PRESETS, Game, Phase, preset
from engine.cards import CARD_TEXT
from engine.views import View
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.picture import PictureCache, board_png, hand_png
from kolkhoz_tg.picture import draw as draw_module
from kolkhoz_tg.picture.draw import FONTS, printable
from kolkhoz_tg.service import GameService
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import SeatInfo
from kolkhoz_tg.storage.models import GameStatus

REPO = Path(__file__).resolve().parent.parent
MOMENTS = ("start", "mid-trick", "assignment", "year's last move", "new year", "game over")


def info(players: int, version: int = 1, names: list[str] | None = None) -> GameHeader:
    """A game's header with these names (an AI player's seat where the name says "Bot")."""
    names = names or ["Анна", "Boris", "Вера Павловна Иванова-Петрова", "Gleb", "Bot 2"]
    seats = tuple(SeatInfo(seat=s, user_id=None, name=names[s],
                           is_ai=names[s].startswith("Bot "), standin=False, timeouts=0,
                           auto_moves=0) for s in range(players))
    return GameHeader(id=7, chat_id=-1, status=GameStatus.ACTIVE, preset=None,
                      players=players, version=version, turn_timeout=0, seats=seats)


def moments(name: str, players: int, seed: int) -> Iterator[tuple[str, Game]]:
    """A seeded random game of ``name``, as copies of the game at each of MOMENTS."""
    rng = random.Random(f"picture/{name}/{players}/{seed}")
    g = Game.new(preset(name), players, seed)
    wanted = dict.fromkeys(MOMENTS, True)
    yield "start", g.copy()
    del wanted["start"]
    while not g.is_over:
        if g.year >= 2:
            for moment, hit in (
                ("mid-trick", g.phase is Phase.PLAY and 0 < len(g.trick) < players),
                ("assignment", g.phase is Phase.ASSIGN and len(g.pending) == players),
                ("year's last move", g.phase is Phase.ASSIGN and len(g.pending) == 1
                 and g.tricks_done + 1 == g.tricks_total),
                ("new year", g.year >= 3 and g.phase in (Phase.TRUMP, Phase.SWAP)),
            ):
                if hit and moment in wanted:
                    del wanted[moment]
                    yield moment, g.copy()
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[int(rng.random() * len(legal))])
    yield "game over", g


def image_of(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    Image.open(io.BytesIO(png)).verify()
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_and_player_count_at_every_moment(name: str, players: int) -> None:
    """The board, and the hand of the seat to act, at each of MOMENTS."""
    seen = []
    for i, (moment, g) in enumerate(moments(name, players, seed=players)):
        tr = translator(("ru", "en")[i % 2])
        img = image_of(board_png(tr, info(players), g.typed_view(None)))
        assert img.format == "PNG" and img.mode == "P"
        assert img.width == 720 and 700 < img.height < 2000, (moment, img.size)
        seat = g.to_act[0] if g.to_act else i % players
        hand = image_of(hand_png(tr, g.typed_view(seat), [str(a) for a in g.legal_actions(seat)]))
        assert hand.width == 720 and 150 < hand.height < 800, (moment, hand.size)
        seen.append(moment)
    assert seen[0] == "start" and seen[-1] == "game over"
    assert {"mid-trick", "assignment", "year's last move"} <= set(seen), seen


def test_the_width_is_the_callers_and_the_layout_scales() -> None:
    g = next(g for moment, g in moments("classic", 4, 1) if moment == "mid-trick")
    view, tr = g.typed_view(None), translator("ru")
    small = image_of(board_png(tr, info(4), view, width=360))
    large = image_of(board_png(tr, info(4), view, width=1080))
    assert small.width == 360 and large.width == 1080
    assert abs(large.height - 3 * small.height) <= 3  # the same layout, three times as big
    with pytest.raises(ValueError, match="width"):
        board_png(tr, info(4), view, width=100)


def test_text_stays_legible_on_a_360_dp_phone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text of the board is at least 11 dp (at 2x: 22 px), whatever the moment; every
    suit glyph (on a card or in a badge) at least GLYPH_MIN dp (tests/test_picture_suits.py
    measures its ink)."""
    sizes: list[float] = []
    glyphs: list[float] = []
    original = draw_module.Canvas.text
    original_glyph = draw_module.glyph

    def spy(self: draw_module.Canvas, x: float, y: float, text: str, size: float,
            *args: Any, **kwargs: Any) -> float:
        if text.strip():
            sizes.append(size)
        return original(self, x, y, text, size, *args, **kwargs)

    def glyph_spy(d: Any, cx: float, cy: float, suit: Any, px: int, fill: Any) -> None:
        glyphs.append(px / 2)  # drawn at 720 px: 2 px a dp
        original_glyph(d, cx, cy, suit, px, fill)

    monkeypatch.setattr(draw_module.Canvas, "text", spy)
    monkeypatch.setattr(draw_module, "glyph", glyph_spy)
    draw_module.card_tile.cache_clear()  # so that every card draws its glyph again
    for name in ("classic", "kolkhoz"):
        for _moment, g in moments(name, 5, 3):
            board_png(translator("ru"), info(5), g.typed_view(None))
    assert sizes and min(sizes) >= 11
    assert glyphs and min(glyphs) >= draw_module.GLYPH_MIN
    # and the cards' own rank letters
    assert min(s.rank for s in (draw_module.MINI, draw_module.SMALL, draw_module.LARGE)) >= 11


# ---------------------------------------------------------------------- no leak


def test_the_board_refuses_any_view_but_the_public_one() -> None:
    g = next(g for moment, g in moments("classic", 4, 2) if moment == "mid-trick")
    tr = translator("en")
    for seat in range(4):
        with pytest.raises(ValueError, match="public view only"):
            board_png(tr, info(4), g.typed_view(seat))
    # a public view with a hand or face-down cards put back into it is refused too
    leaky = g.view(None)
    leaky["players"][1]["hand"] = g.view(1)["players"][1]["hand"]
    with pytest.raises(ValueError, match="public view only"):
        board_png(tr, info(4), View.from_dict(leaky))
    leaky = g.view(None)
    leaky["players"][2]["plot_hidden"] = g.view(2)["players"][2]["plot_hidden"]
    with pytest.raises(ValueError, match="public view only"):
        board_png(tr, info(4), View.from_dict(leaky))


def reshuffle_hidden(g: Game, rng: random.Random, keep: int | None = None) -> Game:
    """A copy of ``g`` that differs only in what the public view (and seat ``keep``'s view)
    does not show: the hands, the deck and the face-down plot cards (but ``keep``'s) dealt
    anew from the same cards, every count kept; the reward piles reordered; another seed."""
    h = g.copy()
    slots: list[tuple[list[int], int]] = []
    for s in range(h.n):
        if s == keep:
            continue
        slots += [(h.hands[s], i) for i in range(len(h.hands[s]))]
        slots += [(h.plots[s], i) for i, c in enumerate(h.plots[s]) if c not in h.face_up]
    slots += [(h.deck, i) for i in range(len(h.deck))]
    cards = [where[i] for where, i in slots]
    rng.shuffle(cards)
    for (where, i), card in zip(slots, cards, strict=True):
        where[i] = card
    for pile in h.reward_piles:
        rng.shuffle(pile)
    h.seed = f"other-{rng.random()}"
    h._legal = {}
    return h


@pytest.mark.parametrize("name", list(PRESETS))
def test_hidden_information_never_changes_the_board(name: str) -> None:
    """Two games that differ only in hidden cards (hands, face-down plots, the deck, the
    reward piles, the seed) give the same board picture, byte for byte, at every moment
    before the end (once the game is over, the scores count every plot card)."""
    rng = random.Random(name)
    tr = translator("ru")
    compared = 0
    for players in (3, 4, 5):
        for moment, g in moments(name, players, seed=11):
            if moment == "game over":
                continue
            other = reshuffle_hidden(g, rng)
            assert other.hands != g.hands or other.deck != g.deck  # something did change
            # (360 px wide: the same drawing as 720, four times fewer pixels to encode)
            assert board_png(tr, info(players), other.typed_view(None), width=360) == board_png(
                tr, info(players), g.typed_view(None), width=360), (players, moment)
            compared += 1
    assert compared >= 12


def test_what_the_view_masks_stays_masked_in_the_picture() -> None:
    """A card of the last trick that has since gone face down shows as a card's back: put
    the real card back into the view and the picture changes (so the comparison above
    would notice a leak)."""
    tr = translator("en")
    for seed in range(40):
        for moment, g in moments("kolkhoznik", 4, seed):
            view = g.view(None)
            masked = [i for i, (_s, c) in enumerate(view["last_trick"]) if c is None]
            if moment == "game over" or not masked:
                continue
            full = g.view(None)
            real = g.last_trick[masked[0]][1]
            full["last_trick"][masked[0]][1] = CARD_TEXT[real]
            assert board_png(tr, info(4), View.from_dict(full)) != board_png(
                tr, info(4), View.from_dict(view))
            return
    pytest.fail("no masked last trick found in 40 seeded kolkhoznik games")


# ---------------------------------------------------------------------- the hand


def test_a_hand_is_drawn_from_its_owners_view_and_nothing_else() -> None:
    g = next(g for moment, g in moments("classic", 4, 5) if moment == "mid-trick")
    seat = g.to_act[0]
    tr = translator("ru")
    legal = [str(a) for a in g.legal_actions(seat)]
    png = hand_png(tr, g.typed_view(seat), legal)
    img = image_of(png)
    assert img.width == 720 and img.height > 300
    with pytest.raises(ValueError, match="owner"):
        hand_png(tr, g.typed_view(None))
    # the other seats' hidden cards play no part
    other = reshuffle_hidden(g, random.Random(1), keep=seat)
    assert other.hands != g.hands and other.view(seat) == g.view(seat)
    assert hand_png(tr, other.typed_view(seat), legal) == png
    # the cards that may not be played are drawn differently from the playable ones
    unmarked = dataclasses.replace(g.typed_view(seat), legal=())
    assert hand_png(tr, g.typed_view(seat), legal) != hand_png(tr, unmarked)


# ---------------------------------------------------------------------- the cache


def test_the_cache_draws_each_version_once_per_language_and_is_bounded() -> None:
    cache = PictureCache(size=3)
    games = [g for _m, g in moments("zone", 3, 4)][:4]
    ru, en = translator("ru"), translator("en")
    first = cache.board(ru, info(3, version=1), games[0].typed_view(None))
    assert cache.board(ru, info(3, version=1), games[0].typed_view(None)) is first
    assert (cache.hits, cache.misses) == (1, 1)
    assert cache.board(en, info(3, version=1), games[0].typed_view(None)) != first
    assert cache.board(ru, info(3, version=2), games[1].typed_view(None)) != first
    renamed = info(3, version=1, names=["Аня", "Boris", "Вера"])
    assert cache.board(ru, renamed, games[0].typed_view(None)) != first
    assert cache.misses == 4 and len(cache._items) == 3
    cache.board(ru, info(3, version=1), games[0].typed_view(None))  # evicted: drawn again
    assert cache.misses == 5


# ---------------------------------------------------------------------- names and fonts


def test_names_the_font_cannot_draw() -> None:
    assert printable("Анна 🌾") == "Анна"
    assert printable("Zoë ♥ Ж") == "Zoë ♥ Ж"
    g = Game.new(preset("classic"), 3, 1)
    png = board_png(translator("en"), info(3, names=["🌾🚜", "👩‍🌾 Masha", "Bot 1"]),
                    g.typed_view(None))
    assert image_of(png).width == 720


def test_the_fonts_ship_with_the_package() -> None:
    files = sorted(p.name for p in FONTS.iterdir())
    assert files == ["DejaVuSans-Bold.ttf", "DejaVuSans.ttf", "LICENSE"]
    assert "Bitstream Vera" in (FONTS / "LICENSE").read_text(encoding="utf-8")
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = data["tool"]["setuptools"]["package-data"]["kolkhoz_tg.picture"]
    for name in files:
        assert any(fnmatch(f"fonts/{name}", p) for p in patterns), name


# ---------------------------------------------------------------------- from the service


def test_from_the_services_records(service: GameService) -> None:
    """What a handler will pass: the service's BoardView (GameInfo, public view) for the
    board, its SeatView (view, legal) for the hand; the cache follows the game's version."""
    from tests.service.helpers import new_game, step

    game, users = new_game(service, humans=2, players=4)
    cache = PictureCache()
    tr = translator("ru")
    board = service.board(game.id)
    first = cache.board(tr, board.game, board.view)
    assert image_of(first).width == 720
    assert cache.board(tr, service.board(game.id).game, service.board(game.id).view) is first
    for _ in range(3):
        assert step(service, game.id)
    board = service.board(game.id)
    assert board.game.version > game.version
    assert cache.board(tr, board.game, board.view) == board_png(tr, board.game, board.view)
    assert cache.misses == 2
    seat = service.seat_view(game.id, users[0])
    assert image_of(hand_png(tr, seat.view, seat.legal)).width == 720
