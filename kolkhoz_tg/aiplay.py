"""How the service's bots play: which levels are cheap enough to play inside a transaction,
the seed of a decision, and the decision itself for a worker.

Imports only the engine, so that a worker process (``kolkhoz_tg.bot.thinking``) starts
quickly and holds nothing of the service.

- ``random`` and ``normal`` (the heuristic, well under a millisecond) play inside the
  transaction that made them due, as every bot did before levels existed;
- ``strong`` and ``hard`` search (``engine.ai.search``: about 0.1 s and 0.5 s of CPU a
  decision): a front end that can think off the transaction (the Telegram bot's
  :class:`~kolkhoz_tg.bot.thinking.Thinker`) sets :attr:`AIPolicy.defer`, and the game
  then waits for it with ``games.bot_due`` set; otherwise (the terminal, tests) they think
  inside the transaction, which is harmless where one person plays.

A forced move (one legal action) is played at once at any level.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from engine import Action
from engine.ai import LEVELS, Advice, AIPlayer
from engine.ai import advise as engine_advise

#: Levels that need no search: played inside the transaction.
CHEAP_LEVELS: Final = frozenset({"random", "normal"})
#: Levels that search: played off the transaction when the front end can.
SEARCH_LEVELS: Final = frozenset(LEVELS) - CHEAP_LEVELS
#: The level of a bot seat stored before levels existed (NULL).
LEGACY_LEVEL: Final = "normal"
#: What the lobby and the chat settings offer players ("random" is for tests).
PLAYER_LEVELS: Final = ("normal", "strong", "hard")


@dataclass(frozen=True, slots=True)
class AIPolicy:
    """How a service plays its bots.

    ``default_level``: of a bot seated without one and of stand-ins in a chat that chose
    none. ``defer``: search levels wait for a worker (see the module docstring)."""

    default_level: str = LEGACY_LEVEL
    defer: bool = False

    def __post_init__(self) -> None:
        check_level(self.default_level)


def check_level(level: str) -> str:
    """``level`` if it is one of ``engine.ai.LEVELS``; raises ValueError otherwise."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    return level


def decision_seed(game_id: int | None, move: int, seat: int) -> str:
    """The seed of one bot decision: the game, the number of moves made so far and the
    seat. It depends on nothing hidden (the seat's view is what the bot sees), and the same
    game replayed gives the same decisions."""
    return f"{game_id}:{move}:{seat}"


def think(
    level: str, seed: str, view: dict[str, Any], seconds: float | None = None,
    iterations: int | None = None,
) -> str:
    """The action text a bot of ``level`` chooses on the seat's ``view`` (what a worker
    runs). ``seconds`` caps the decision's time (its budget scaled to it); ``iterations``
    fixes the number of playouts instead (deterministic, for tests)."""
    bot = AIPlayer(level, seed=seed, seconds=seconds, iterations=iterations)
    action: Action = bot.choose(view)
    return action.text


def advise(
    level: str, seed: str, view: dict[str, Any], seconds: float | None = None,
    iterations: int | None = None, infer: bool = False,
) -> Advice:
    """What a bot of ``level`` would play on the seat's ``view`` and why
    (:class:`engine.ai.Advice`: a frozen record of plain values, which crosses to and from
    a worker's process as it is). ``seconds`` and ``iterations`` as for :func:`think`. With
    ``infer`` a search level weighs its worlds by the others' plays (``engine.ai.infer``),
    and the advice's ``inferred`` lists what that taught, most telling first."""
    return engine_advise(view, level, seed, seconds=seconds, iterations=iterations, infer=infer)
