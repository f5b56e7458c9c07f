"""A learned value of a position at the end of a year: each seat's chance to win from there.

The search plays each world on to the end of the current year and scores the position it
reaches (:func:`engine.ai.search._value`). The hand-set score compares the seat's plot
points with the best other seat's, discounting the workers still at risk by a fixed share
a requisition. This one is learned from how games really end: a conditional logit over
the seats, fitted for every preset and number of requisitions still to come, on the
features of :func:`table_features`; a seat's value is its softmax share, the chance that
it wins. The weights (``value.json`` beside this module) come from
``benchmarks/fit_value.py``, one command that plays the games and fits them; nothing is
downloaded. Rules that are no preset use the weights of the preset with the same
requisition rules, or the hand-set score when there is none. Pure Python.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Final

from engine.ai.model import softmax
from engine.cards import is_worker, points_of
from engine.rules import PRESETS, Rules, preset_name
from engine.state import Game

_REWARD: Final = tuple(not is_worker(c) for c in range(52))
_POINTS: Final = tuple(points_of(c) for c in range(52))

#: A seat's features at the end of a year (points / 10), in the order of the weights.
FEATURES: Final = (
    "safe",  # points of the plot's reward cards (never requisitioned)
    "at_risk",  # points of the plot's workers (requisitioned in later years)
    "top_at_risk",  # points of the workers of 10 points or more
    "medals",  # medals, where they score
    "rank_value",  # the workers' expected points if each year takes a suit's top worker
)

VALUE_FILE: Final = Path(__file__).with_name("value.json")


@cache
def survival(left: int, risk: float = 0.5) -> list[float]:
    """P(at most r of ``left`` years take a suit's top worker), for r = 0 .. left - 1 (each
    year takes it with chance ``risk``)."""
    probs = [math.comb(left, k) * risk**k * (1 - risk) ** (left - k) for k in range(left + 1)]
    return [sum(probs[: r + 1]) for r in range(left)]


def table_features(g: Game) -> list[list[float]]:
    """Every seat's :data:`FEATURES` in the position ``g`` (at the start of a year)."""
    rules = g.rules
    left = max(1, rules.years - g.year + 1)
    keep = survival(left)
    n = g.n
    rows = [[0.0] * len(FEATURES) for _ in range(n)]
    by_suit: list[list[tuple[int, int]]] = [[], [], [], []]
    for s in range(n):
        row = rows[s]
        for c in g.plots[s]:
            p = _POINTS[c]
            if _REWARD[c]:
                row[0] += p
                row[4] += p
            else:
                row[1] += p
                if p >= 10:
                    row[2] += p
                by_suit[c // 13].append((c, s))
        if rules.medals_score:
            row[3] = float(g.medals[s])
            row[4] += g.medals[s]
    for cards in by_suit:
        cards.sort(reverse=True)
        for r, (c, s) in enumerate(cards):
            rows[s][4] += _POINTS[c] * (keep[r] if r < len(keep) else 1.0)
    return [[v / 10.0 for v in row] for row in rows]


class YearValue:
    """The fitted weights: per preset, per number of requisitions still to come; and the
    presets where a search scored by them measured stronger than by the hand-set score
    (``chosen``: where ``hard`` uses them, docs/ai.md)."""

    def __init__(self, weights: dict[str, dict[str, list[float]]],
                 chosen: tuple[str, ...] = ()) -> None:
        self.weights = weights
        self.chosen = chosen
        # The last rules asked about and their preset: a search asks at the end of every
        # playout with the same rules, and hashing them for the cache costs a microsecond.
        # One tuple, so a thread reading it never sees rules with another's preset.
        self._last: tuple[Rules | None, str | None] = (None, None)

    def _for(self, rules: Rules, left: int, chosen_only: bool) -> list[float] | None:
        last = self._last
        if last[0] is rules:
            name = last[1]
        else:
            name = _preset_like(rules)
            self._last = (rules, name)
        if chosen_only and name not in self.chosen:
            return None
        by_left = self.weights.get(name) if name else None
        if not by_left:
            return None
        w = by_left.get(str(left))
        if w is None:  # more years than the fit saw: the longest horizon fitted
            w = by_left[max(by_left, key=int)]
        return w

    def win_share(self, g: Game, seat: int, chosen_only: bool = False) -> float | None:
        """``seat``'s chance to win from ``g`` (the start of a year), or None where no
        weights apply, or with ``chosen_only`` where the preset is not one of
        :attr:`chosen` (the caller keeps its hand-set score)."""
        left = g.rules.years - g.year + 1
        w = self._for(g.rules, left, chosen_only)
        if w is None:
            return None
        scores = [sum([a * b for a, b in zip(w, row, strict=True)]) for row in table_features(g)]
        return softmax(scores)[seat]


@cache
def _preset_like(rules: Rules) -> str | None:
    """The preset ``rules`` are (medals aside), else the first with the same requisition
    rules (what the value depends on most), else None. Cached: the search asks at the end
    of every playout, where comparing the rules with every preset would cost several
    microseconds and hashing the frozen rules costs one."""
    name = preset_name(rules)
    if name is not None:
        return name
    key = (rules.reward, rules.requisition, rules.losers, rules.deck)
    for name, p in PRESETS.items():
        if (p.reward, p.requisition, p.losers, p.deck) == key:
            return name
    return None


@cache
def year_value() -> YearValue:
    """The weights shipped with the engine (``value.json``), read once."""
    data = json.loads(VALUE_FILE.read_text(encoding="utf-8"))
    return YearValue(data["weights"], tuple(data.get("chosen", ())))


__all__ = ["FEATURES", "VALUE_FILE", "YearValue", "survival", "table_features", "year_value"]
