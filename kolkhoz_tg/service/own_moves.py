"""A player's last own card, remembered for a take-back (:mod:`kolkhoz_tg.service.takeback`):
written wherever a player's own move is made (a tap, a queued move played for them), so
this sits below both and imports neither."""

from __future__ import annotations

from engine import Action, ActionKind, Game, Phase
from kolkhoz_tg.storage.models import GameRow

#: ``games.meta``: per seat (its number as text) ``[moves, closed, year]``: the seat's own
#: card was the last move it made, the engine had ``moves`` moves after it, ``closed``: it
#: completed the trick.
LAST_KEY = "takeback:last"


def note_own_move(row: GameRow, game: Game, seat: int, action: Action, moves: int) -> None:
    """After a player's own ``action`` (the engine had ``moves`` moves after it): remember a
    card played, for a take-back (whether it completed the trick is known only now); any
    other move of theirs makes their card before it final."""
    last = {k: v for k, v in row.meta.get(LAST_KEY, {}).items() if k != str(seat)}
    if action.kind is ActionKind.PLAY:
        trick = game.trick if game.phase is Phase.PLAY and len(game.log) == moves else []
        still_open = bool(trick) and trick[-1][0] == seat
        last[str(seat)] = [moves, not still_open, game.year]
    elif len(last) == len(row.meta.get(LAST_KEY, {})):
        return
    row.meta = {**row.meta, LAST_KEY: last}

