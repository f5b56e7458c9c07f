"""The board picture: how long one render takes on one core, and the sample pictures.

Renders the public boards of seeded games the heuristic plays against itself (every preset,
3, 4 and 5 players, states spread over each game) with ``kolkhoz_tg.picture.board_png``, and
prints p50 / p99 of the CPU time per board; the glyph and card caches are warm, as in a
running bot, but nothing of the board itself is cached. A baseline measured in the same run
puts the figures in proportion: an image of the same size with one line of text on it,
encoded the same way (what any picture at all would cost), timed in turn with the boards so
that both meet the same load. Then a cached board (the same game
version again) and a hand.

Run: ``python benchmarks/picture_bench.py [--boards 600]`` (about 30 s; pinned to one CPU when
the system allows it). ``--samples docs/pictures`` writes the sample pictures instead: one
board per preset in Russian, the classic board in English, and a hand.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageDraw

from engine import PRESETS, Game, Phase, preset
from engine.ai import default_action
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.picture import PictureCache, board_png, hand_png
from kolkhoz_tg.picture.draw import encode, font
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import SeatInfo
from kolkhoz_tg.storage.models import GameStatus

NAMES = {
    "ru": ["Анна", "Борис", "Вера", "Глеб", "Дарья"],
    "en": ["Anna", "Boris", "Vera", "Gleb", "Darya"],
}


def game_info(players: int, locale: str, version: int = 1) -> GameHeader:
    """A game header as the service gives it (with an AI player in the fifth seat)."""
    seats = tuple(SeatInfo(seat=s, user_id=None, name="Bot 1" if s == 4 else NAMES[locale][s],
                           is_ai=s == 4, standin=False, timeouts=0, auto_moves=0)
                  for s in range(players))
    return GameHeader(id=1, chat_id=-1, status=GameStatus.ACTIVE, preset=None,
                      players=players, version=version, turn_timeout=0, seats=seats)


def states(name: str, players: int, seed: int) -> Iterator[Game]:
    """Every state of a seeded game the heuristic plays against itself, the end included
    (one game object, moved on after each: copy what you keep)."""
    g = Game.new(preset(name), players, seed)
    yield g
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
        yield g


def sample_views(per_game: int = 10) -> list[tuple[int, dict[str, Any]]]:
    """Public views spread over one game of each preset and player count."""
    views = []
    for name in PRESETS:
        for players in (3, 4, 5):
            game = [g.typed_view(None) for g in states(name, players, seed=players)]
            step = max(1, len(game) // per_game)
            views += [(players, v) for v in game[::step]]
    return views


def cpu_times(render: Any, rounds: int) -> list[float]:
    clock = time.process_time
    out = []
    for i in range(rounds):
        start = clock()
        render(i)
        out.append(clock() - start)
    return out


def ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def baseline_png(width: int, height: int) -> bytes:
    """The same size of image with one line of text, encoded as the boards are."""
    img = Image.new("RGB", (width, height), (246, 239, 224))
    ImageDraw.Draw(img).text((20, 20), "Колхоз · год 2 из 5 · козырь ♠", font=font(30),
                             fill=(38, 34, 30))
    return encode(img)


def bench(boards: int) -> None:
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        pinned = "pinned to one CPU"
    except (AttributeError, OSError):
        pinned = "not pinned"
    views = sample_views()
    tr = translator("ru")
    info = {p: game_info(p, "ru") for p in (3, 4, 5)}
    for players, view in views[:20]:  # warm the font, glyph and card caches
        board_png(tr, info[players], view)
    sizes = []

    def board(i: int) -> None:
        players, view = views[i % len(views)]
        png = board_png(tr, info[players], view)
        if len(sizes) < len(views):
            sizes.append((len(png), Image.open(io.BytesIO(png)).size))

    cpu_times(board, len(views))  # one round to learn the sizes
    heights = [size[1] for _bytes, size in sizes]
    height = int(statistics.median(heights))
    # Boards and baselines in turn, so that both meet the same load on a shared machine.
    times: list[float] = []
    base: list[float] = []
    for i in range(boards):
        times += cpu_times(lambda _i, i=i: board(i), 1)
        if i % 2:
            base += cpu_times(lambda _i: baseline_png(720, height), 1)
    cache = PictureCache()
    cache.board(tr, info[4], views[0][1])
    hits = cpu_times(lambda _i: cache.board(tr, info[4], views[0][1]), 1000)
    seat_views = [(g.typed_view(0), [str(a) for a in g.legal_actions(0)])
                  for i, g in enumerate(states("classic", 4, 4))
                  if i % 15 == 0 and g.phase is not Phase.OVER]
    hands = cpu_times(lambda i: hand_png(tr, *seat_views[i % len(seat_views)]),
                      max(50, boards // 4))
    print(f"picture_bench: {len(views)} boards of {len(PRESETS)} presets x 3-5 players, "
          f"{boards} renders, CPU time per render, {pinned}")
    print(f"  board (720 px wide, {min(heights)}-{max(heights)} px tall, "
          f"{statistics.median(b for b, _s in sizes) / 1024:.0f} KiB median): "
          f"p50 {ms(times, 0.5):.1f} ms, p99 {ms(times, 0.99):.1f} ms")
    print(f"  baseline (720x{height}, one line of text, same PNG encoding): "
          f"p50 {ms(base, 0.5):.1f} ms, p99 {ms(base, 0.99):.1f} ms")
    print(f"  ratio board / baseline: p50 {ms(times, 0.5) / ms(base, 0.5):.1f}x, "
          f"p99 {ms(times, 0.99) / ms(base, 0.99):.1f}x")
    print(f"  cached board (same game version): p50 {ms(hits, 0.5) * 1000:.1f} µs")
    print(f"  hand (private, classic 4 players): p50 {ms(hands, 0.5):.1f} ms, "
          f"p99 {ms(hands, 0.99):.1f} ms")


def pick(name: str, players: int, seed: int) -> Game:
    """A moment worth showing: the second card of a trick in the middle of the plan, with
    some work done (a face-up plot card or a completed job when there is one)."""
    best: Game | None = None
    for g in states(name, players, seed):
        if g.phase is Phase.PLAY and len(g.trick) == 2 and g.year >= 3 and g.tricks_done >= 2:
            view = g.view(None)
            done = sum(j["complete"] for j in view["jobs"].values())
            shown = sum(len(p["plot_revealed"]) for p in view["players"])
            if best is None or (done and shown):
                best = g.copy()
            if done and shown and view["last_trick"]:
                return g.copy()
    assert best is not None
    return best


def samples(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name in PRESETS:
        g = pick(name, 4, seed=3)
        path = folder / f"board-{name}.png"
        path.write_bytes(board_png(translator("ru"), game_info(4, "ru"), g.typed_view(None)))
        written.append(path)
    g = pick("classic", 5, seed=5)
    path = folder / "board-classic-en.png"
    path.write_bytes(board_png(translator("en"), game_info(5, "en"), g.typed_view(None)))
    written.append(path)
    over = list(states("kolkhoz", 4, seed=3))[-1]  # the same game, at its end
    path = folder / "board-over.png"
    path.write_bytes(board_png(translator("ru"), game_info(4, "ru"), over.typed_view(None)))
    written.append(path)
    g = next(g for g in states("classic", 4, seed=3)
             if g.year == 2 and g.tricks_done == 0 and len(g.trick) == 1)
    seat = g.to_act[0]
    path = folder / "hand.png"
    path.write_bytes(hand_png(translator("ru"), g.typed_view(seat),
                              [str(a) for a in g.legal_actions(seat)]))
    written.append(path)
    for path in written:
        # The same pixels, compressed harder for the repository than the bot bothers to.
        Image.open(path).save(path, "PNG", optimize=True)
        print(path, f"{path.stat().st_size / 1024:.0f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=600, help="board renders to time")
    parser.add_argument("--samples", type=Path, help="write the sample pictures here instead")
    args = parser.parse_args()
    if args.samples:
        samples(args.samples)
    else:
        bench(args.boards)


if __name__ == "__main__":
    main()
