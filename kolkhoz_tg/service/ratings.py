"""Player ratings, derived from finished games (never the source of truth).

:func:`compute` is a pure function: finished games, in the order they finished, in; every
player's rating per chat and over all chats out. The ``ratings`` table only caches its
result (see :mod:`~kolkhoz_tg.service.rating_store`); ``kolkhoz games rerate`` recomputes it from
the stored games, so a change of the rules below never loses history.

The rules:

- openskill's Plackett-Luce model, a free-for-all of teams of one; seats with equal final
  scores share a place (``ranks`` 1, 2, 2, 4).
- Players are keyed ``user:<id>``; bot seats are pseudo-players per level, ``bot:<level>``
  (``normal`` for a bot seated before levels existed). Two bots of one level in one game are
  rated as two seats, and the pseudo-player takes the mean of their new ratings.
- A seat where automatic moves (the clock's or a stand-in's, ``seats.auto_moves``) make more
  than half of the seat's moves is left out of that game's rating; the others are rated
  among themselves. A game with fewer than two rated seats changes nothing.
- Practice games (one player against bots in private, hints on offer: not a contest) are
  not rated at all and count for nobody's games or wins; nor are games played under house
  rules (a preset with options changed, medals aside: RULES.md revision 4), which
  ``/stats me`` lists apart.
- The displayed rating is an integer: ``round(1000 + 40 * (mu - 3 * sigma))`` (openskill's
  ordinal, the conservative estimate, scaled; a newcomer shows 1000).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from openskill.models import PlackettLuce

#: The scope of the table over all chats; a chat's scope is ``chat:<id>``.
GLOBAL = "global"


def _model() -> PlackettLuce:
    """openskill's model, imported when a game is first rated: a bot that only starts does
    not load openskill (and the statistics module it brings)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def fresh() -> tuple[float, float]:
    """A newcomer's (mu, sigma)."""
    r = _model().rating()
    return r.mu, r.sigma


def chat_scope(chat_id: int) -> str:
    return f"chat:{chat_id}"


def user_key(user_id: int) -> str:
    return f"user:{user_id}"


def ai_key(level: str | None) -> str:
    return f"bot:{level or 'normal'}"


def display(mu: float, sigma: float) -> int:
    """The rating players see: openskill's ordinal (mu - 3 sigma), scaled and shifted."""
    return round(1000 + 40 * (mu - 3 * sigma))


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """One seat of a finished game, as the rating needs it."""

    key: str  # ``user:<id>`` or ``bot:<level>``
    score: int
    moves: int  # every move logged for the seat
    auto_moves: int  # of them, made by the clock or a stand-in
    winner: bool = False

    @property
    def rated(self) -> bool:
        return self.auto_moves * 2 <= self.moves


@dataclass(frozen=True, slots=True)
class FinishedGame:
    game_id: int
    chat_id: int
    seats: tuple[RatedSeat, ...]
    practice: bool = False
    #: Played under a preset with options changed (house rules): kept, not rated.
    house_rules: bool = False


@dataclass(slots=True)
class Rating:
    """One player's standing in one scope."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    place_sum: int = 0  # the sum of their places (1 = first), for the average
    last_game: int = 0

    @property
    def value(self) -> int:
        return display(self.mu, self.sigma)

    @property
    def average_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0


@dataclass(slots=True)
class Ratings:
    """:func:`compute`'s result: ``tables[scope][key]``."""

    tables: dict[str, dict[str, Rating]] = field(default_factory=dict)
    games: int = 0  # finished games read (rated or not)


def places(scores: list[int]) -> list[int]:
    """Competition ranking: equal scores share a place, the next place is skipped."""
    return [1 + sum(1 for other in scores if other > s) for s in scores]


def compute(games: Iterable[FinishedGame], start: Ratings | None = None) -> Ratings:
    """Every scope's ratings after ``games`` (in the order they finished), from ``start``
    (changed in place) or from nothing."""
    model = _model()
    out = Ratings() if start is None else start
    for game in games:
        out.games += 1
        if game.practice or game.house_rules:
            continue
        seats = [s for s in game.seats if s.rated]
        if len(seats) < 2:
            continue
        ranks = places([s.score for s in seats])
        for scope in (chat_scope(game.chat_id), GLOBAL):
            table = out.tables.setdefault(scope, {})
            before = []
            for s in seats:
                r = table.get(s.key)
                if r is None:
                    fresh = model.rating()
                    r = table[s.key] = Rating(fresh.mu, fresh.sigma)
                before.append([model.rating(mu=r.mu, sigma=r.sigma)])
            after = model.rate(before, ranks=[float(r) for r in ranks])
            new: dict[str, list[tuple[float, float]]] = {}
            for s, place, (rating,) in zip(seats, ranks, after, strict=True):
                new.setdefault(s.key, []).append((rating.mu, rating.sigma))
                r = table[s.key]
                r.games += 1
                r.wins += s.winner
                r.place_sum += place
                r.last_game = game.game_id
            for key, values in new.items():
                r = table[key]
                r.mu = sum(m for m, _ in values) / len(values)
                r.sigma = sum(sg for _, sg in values) / len(values)
    return out
