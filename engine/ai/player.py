"""AI players (computer players): the AI levels, and the players the service uses directly.

- :class:`AIPlayer` plays a level of :data:`LEVELS` from a seat's JSON view alone
  (``AIPlayer("strong", seed=1).choose(game.view(seat))``): ``random`` (uniform, for tests),
  ``normal`` (the heuristic), ``strong`` and ``hard`` (determinized search, :mod:`engine.ai.search`,
  about 0.2 s and 1 s a decision). docs/ai.md says what each level means and how strong it is.
  The card passed with ``pass_cards`` is never a random one: ``random`` passes the heuristic's
  card (it is handed to another player, who should not get a gift by chance).
- :meth:`AIPlayer.advise` (or :func:`advise`) gives the same choice with why: an :class:`Advice`
  holding the heuristic's :class:`~engine.ai.heuristic.Reason` for the move and, at the search
  levels, the move's estimated value against the runner-up's (codes and numbers: the words
  are the front end's).
- :func:`default_action` (:mod:`engine.ai.heuristic`) is the cheap deterministic move the
  service plays for a player who timed out; :func:`random_action` and :class:`RandomPlayer`
  are seeded random players. These read the game itself, but only the seat's share of it.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from dataclasses import dataclass, replace
from typing import Any, Final

from engine.actions import Action
from engine.ai.heuristic import Reason, decide, default_action, describe
from engine.ai.infer import Inferred
from engine.ai.search import PlayoutGame, SearchParams, ranked_search
from engine.determinize import Determinizer
from engine.legality import forced_among
from engine.phase import ASSIGN, PASS
from engine.state import Game

__all__ = ["LEVELS", "AIPlayer", "Advice", "Level", "RandomPlayer", "Reason", "advise",
           "default_action", "random_action"]


def random_action(game: Game, seat: int, rng: random.Random) -> Action:
    """A uniformly random legal action for ``seat``; raises ValueError if it may not act."""
    legal = game.legal_actions(seat)
    if not legal:
        raise ValueError(f"seat {seat} has no legal action")
    return legal[rng.randrange(len(legal))]


class RandomPlayer:
    """A seeded random player: ``RandomPlayer(seed)(game, seat)`` gives an action."""

    def __init__(self, seed: int | str = 0) -> None:
        self.rng = random.Random(f"random-player/{seed}")

    def __call__(self, game: Game, seat: int) -> Action:
        return random_action(game, seat, self.rng)


@dataclass(frozen=True, slots=True)
class Level:
    """An AI level: its name, what it plays, and the wall time a decision was calibrated to
    take on one core of the reference machine (docs/ai.md)."""

    name: str
    search: SearchParams | None  # None: no search (random or the heuristic)
    seconds: float  # nominal time per decision; the budget itself is counted in moves


#: Worlds in the weighed pool of a search asked to infer (``AIPlayer(infer=True)``).
INFER_POOL: Final = 64

#: The AI levels, weakest first.
LEVELS: Final = ("random", "normal", "strong", "hard")
_LEVELS: Final = {
    "random": Level("random", None, 0.0),
    "normal": Level("normal", None, 0.0),
    "strong": Level("strong", SearchParams(moves=10_000), 0.2),
    # hard expects a careful table (no worlds of all-random opponents) and plays its
    # playouts with the refined heuristic, a closer model of a careful player; it scores a
    # year's end by the fitted value in the presets where that measured stronger; four
    # times its first budget, as the bot thinks with the compiled engine (docs/ai.md).
    "hard": Level("hard", SearchParams(moves=100_000, random_tables=0.0, refined=True,
                                       value_fit_chosen=True), 1.0),
}


@dataclass(frozen=True, slots=True)
class Advice:
    """An AI player's choice and why (:meth:`AIPlayer.advise`).

    ``reason``: the heuristic's reason when the move is the heuristic's choice, else what
    the move does (:func:`engine.ai.heuristic.describe`). A search level also gives ``value``,
    the move's mean value over the worlds it was played in (0 to 1: mostly the chance to
    win, see docs/ai.md), and the ``runner_up`` it beat with that one's value; both None at
    the other levels and for a forced move."""

    action: Action
    reason: Reason
    level: str
    value: float | None = None
    runner_up: Action | None = None
    runner_up_value: float | None = None
    worlds: int = 0
    #: A level with inference: what the others' plays suggest about their hands, most
    #: telling first (:meth:`engine.ai.infer.WorldPool.inferred`), from the worlds the move
    #: was searched in.
    inferred: tuple[Inferred, ...] = ()


class AIPlayer:
    """A computer player of one level: ``AIPlayer("strong", seed=1).choose(game.view(seat))``.

    ``choose`` sees only the seat's view, and its decision is a function of the level, the
    seed and that view: two views the seat cannot tell apart give the same action, whatever
    the cards it cannot see. ``iterations`` replaces the level's budget by that many playouts
    per decision (tests use small ones). ``seconds`` sets the time of a decision instead of
    the level's own: the budget of moves is scaled to it (calibrated on the reference machine)
    and the wall time is capped by it; a decision cut short by the cap depends on the
    machine's speed, so levels have no cap unless asked for one. ``infer`` makes a search
    level that does not infer draw its worlds from a pool weighed by the learned model of
    the players (:mod:`engine.ai.infer`), within the same budget, so that its
    :class:`Advice` can say what the others' plays suggest (the practice game's hint).
    Raises :class:`ValueError` for an unknown level.
    """

    def __init__(
        self,
        level: str = "normal",
        seed: int | str = 0,
        *,
        seconds: float | None = None,
        iterations: int | None = None,
        infer: bool = False,
    ) -> None:
        if level not in _LEVELS:
            raise ValueError(f"unknown AI level {level!r}; choose one of {', '.join(LEVELS)}")
        self.level = _LEVELS[level]
        self.seed = seed
        self.seconds = seconds
        params = self.level.search
        if params is not None:
            if iterations is not None:
                params = replace(params, moves=0, playouts=max(1, int(iterations)))
            elif seconds is not None:
                # The level's budget scaled to the time asked for; the deadline still holds.
                moves = int(params.moves * seconds / self.level.seconds)
                params = replace(params, moves=max(1, moves))
            if infer and params.infer_pool < 2:
                params = replace(params, infer_pool=INFER_POOL, infer_model=True)
        self.params = params

    def __repr__(self) -> str:
        return f"AIPlayer({self.level.name!r}, seed={self.seed!r})"

    def choose(self, view: dict[str, Any]) -> Action:
        """The action this AI player takes for the view's seat; it is legal now in any game with
        this view. Raises :class:`ValueError` for a public view or a seat that may not act."""
        return self.advise(view).action

    def advise(self, view: dict[str, Any]) -> Advice:
        """:meth:`choose`'s action (the same one) with why it was chosen: an
        :class:`Advice` (the reason costs one heuristic decision more, about 10 µs).
        Raises :class:`ValueError` for a public view or a seat that may not act."""
        start = time.perf_counter()
        seat = view.get("viewer")
        if not isinstance(seat, int) or seat not in view.get("to_act", ()):
            raise ValueError(f"seat {seat!r} has nothing to do in this view")
        view = _canonical(view)
        det = Determinizer(PlayoutGame, view)
        rng = random.Random(_seed(self.level.name, self.seed, view))
        world = det.sample(rng)  # the heuristic reads only the seat's share of a world
        name = self.level.name
        if name == "normal" or (self.params is None and (name != "random"
                                                         or world.phase is PASS)):
            # The random level too passes the heuristic's card (pass_cards), never any card.
            action, reason = decide(world, seat)
            return Advice(action, reason, name)
        legal = world.legal_actions(seat)  # the seat's own cards and public state only
        forced = forced_among(legal, world.phase is ASSIGN)
        if forced is not None:
            return Advice(forced, Reason.ONLY_MOVE, name)
        if self.params is None:
            action = legal[rng.randrange(len(legal))]
            return Advice(action, Reason.RANDOM, name)
        deadline = None if self.seconds is None else start + self.seconds
        found = ranked_search(det, legal, rng, self.params, deadline)
        action = legal[found.best]
        second = None if found.runner_up is None else legal[found.runner_up]
        return Advice(action, describe(world, seat, action), name, found.value, second,
                      None if second is None else found.runner_up_value, found.worlds,
                      found.inferred)


def advise(
    view: dict[str, Any], level: str = "strong", seed: int | str = 0, *,
    seconds: float | None = None, iterations: int | None = None, infer: bool = False,
) -> Advice:
    """What an AI player of ``level`` would play on the seat's ``view``, and why:
    ``AIPlayer(level, seed, ...).advise(view)``. Raises :class:`ValueError` as :class:`AIPlayer`
    and :meth:`AIPlayer.choose` do."""
    return AIPlayer(level, seed, seconds=seconds, iterations=iterations,
                    infer=infer).advise(view)


def _canonical(view: dict[str, Any]) -> dict[str, Any]:
    """The view with others' face-up plot cards in the order of their text. Views list them
    in card order already; a view from elsewhere may follow the plot's own order, which
    tells what the seat never saw, and the text order keeps the seeds (and so the
    decisions) of every earlier version."""
    seat = view["viewer"]
    players = [
        p if p["seat"] == seat else {**p, "plot_revealed": sorted(p["plot_revealed"])}
        for p in view["players"]
    ]
    return {**view, "players": players}


def _seed(level: str, seed: int | str, view: dict[str, Any]) -> int:
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    digest = hashlib.blake2b(f"{level}|{seed!r}|{text}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")
