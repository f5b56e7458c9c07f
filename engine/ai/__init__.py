"""AI players: the computer players, apart from the rules (as OpenSpiel keeps its algorithms
apart from its games). The rules modules of :mod:`engine` never import this package.

- :mod:`engine.ai.player`: :class:`AIPlayer` (a level of :data:`LEVELS` playing from a seat's
  JSON view), :func:`advise`, :class:`Advice`, and the seeded random players.
- :mod:`engine.ai.heuristic`: the cheap deterministic move (:func:`default_action`), the
  ``normal`` level and the search's playout policy, with the :class:`Reason` of each move.
- :mod:`engine.ai.search`: determinized search on one seat's view (the ``strong`` and ``hard``
  levels), :class:`SearchParams`.
- :mod:`engine.ai.infer`: worlds weighted by how well they explain others' plays this year.
"""

from engine.ai.heuristic import Reason, decide, default_action, describe, refined_action
from engine.ai.player import (
    LEVELS,
    Advice,
    AIPlayer,
    Level,
    RandomPlayer,
    advise,
    random_action,
)
from engine.ai.search import SearchParams

__all__ = [
    "LEVELS",
    "AIPlayer",
    "Advice",
    "Level",
    "RandomPlayer",
    "Reason",
    "SearchParams",
    "advise",
    "decide",
    "default_action",
    "describe",
    "random_action",
    "refined_action",
]
