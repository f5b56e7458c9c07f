"""Scripted players for service tests."""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from pathlib import Path

from kolkhoz_tg import terminal
from kolkhoz_tg.service import ActStatus, GameInfo, GameService, SeatView
from kolkhoz_tg.service.payloads import GameHeader
from kolkhoz_tg.service.records import SeatInfo
from kolkhoz_tg.storage.models import GameStatus


def terminal_args(db: Path, *argv: str, **options: object) -> argparse.Namespace:
    """The ``kolkhoz play`` options parsed from ``--db db`` and ``argv``, then ``options``
    set over them (``lang=None``: as if ``--lang`` was not given)."""
    parser = argparse.ArgumentParser()
    terminal.add_arguments(parser)
    args = parser.parse_args(["--db", str(db), *argv])
    for k, v in options.items():
        setattr(args, k, v)
    return args


#: Picks an action text from a seat's view.
Chooser = Callable[[SeatView], str]


def first_choice(view: SeatView) -> str:
    return view.legal[0]


def random_chooser(seed: int) -> Chooser:
    rng = random.Random(seed)

    def choose(view: SeatView) -> str:
        return rng.choice(view.legal)

    return choose


def new_game(
    service: GameService,
    *,
    humans: int = 4,
    players: int = 4,
    preset: str = "classic",
    seed: int = 7,
    chat_id: int = -100,
    **kwargs: object,
) -> tuple[GameInfo, list[int]]:
    """A started game with ``humans`` users (ids 1..humans) and bots in the other seats."""
    game = service.create_game(chat_id, 1, creator_name="U1", preset=preset, players=players,
                               seed=seed, **kwargs)  # type: ignore[arg-type]
    users = [1]
    for uid in range(2, humans + 1):
        service.join(game.id, uid, f"U{uid}")
        users.append(uid)
    service.start(game.id, 1, fill_with_ai=True)
    return service.game_info(game.id), users


def step(service: GameService, game_id: int, choose: Chooser = first_choice) -> bool:
    """One human move (the first seat waiting); False when nobody waits any more."""
    board = service.board(game_id)
    if board.game.status != "active" or board.view is None:
        return False
    for seat in board.view.to_act:
        user = next(s.user_id for s in board.game.seats if s.seat == seat)
        if user is None:
            continue
        view = service.seat_view(game_id, user)
        result = service.act(game_id, user, choose(view), view.game.version)
        assert result.status is ActStatus.APPLIED, result
        return True
    return False


def play_out(service: GameService, game_id: int, choose: Chooser = first_choice) -> int:
    """Play humans' moves until the game ends; returns the number of moves made."""
    moves = 0
    while step(service, game_id, choose):
        moves += 1
    return moves


def header(*names: str) -> GameHeader:
    """A notification's game header with these players in seats 0, 1, … (for the texts)."""
    seats = tuple(SeatInfo(seat=s, user_id=100 + s, name=n, is_ai=False, standin=False,
                           timeouts=0, auto_moves=0) for s, n in enumerate(names))
    return GameHeader(id=1, chat_id=-1, status=GameStatus.ACTIVE, preset="classic",
                      players=len(names), version=1, turn_timeout=86400, seats=seats)
