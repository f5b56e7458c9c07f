"""Search on one seat's view: determinized Monte Carlo (PIMC) with sequential halving.

A decision reads the seat's view once (:class:`engine.determinize.Determinizer`) and spends a
budget of simulated moves:

- **Worlds.** Each world is a whole game dealt consistently with the view (other hands,
  face-down cards, the deck and the reward piles dealt again, the voids shown this year kept).
  The search never sees the real game, so it cannot learn what the seat may not know.
- **Common worlds.** Every candidate action still in the running is played in the same worlds,
  with the same generator for the rest of the game: candidates are compared on the same deals,
  so the luck of the deal, the largest noise by far, cancels out of the comparison.
- **Playouts.** After the candidate, everyone plays the heuristic
  (:func:`engine.ai.heuristic.default_action`) to the end of the year (the end of the game in its
  last year). Opponents are not assumed to play the heuristic: a share of the worlds
  (:attr:`SearchParams.random_tables`) seats a table of opponents who all play at random, and
  the others give each opponent a style, a share of uniformly random moves drawn from
  :attr:`SearchParams.opponent_noise`, so a plan that only works against the heuristic's exact
  replies does not look good, and a table of random players does not surprise the search.
- **Value.** At the end of the game: a win (shared on a tie) and the score margin to the best
  other seat. At the end of an earlier year: the margin of points in the plots to the best
  other seat, worker cards discounted for the requisitions still to come (reward cards are
  never requisitioned), through a logistic curve. Where everyone is exposed and only a suit's
  highest plot card goes north (zone), a worker is discounted by its rank in its suit among
  all plots instead.
- **Allocation.** Sequential halving (Karnin, Koren and Somekh 2013): the budget is split into
  rounds; each round plays every remaining candidate in new common worlds and keeps the better
  half by mean value over all its worlds, until one is left. It is a fixed-budget best-arm
  method: no exploration constant to tune, and every candidate is tried.

Simultaneous swap and pass decisions need nothing special: the swaps and the chosen cards of
others are hidden, so a world deals their hands and plots (a seat that has chosen its card to
pass chose one of its dealt hand) and those still to decide do so in the playout after this
seat.

Settings the levels leave off, for experiments (docs/ai-lab.md): playouts past the current year
(:attr:`SearchParams.horizon`), worlds weighted by how well they explain others' plays this
year (:attr:`SearchParams.infer_worlds`, :mod:`engine.ai.infer`), a trick's whole placement as
one candidate (:attr:`SearchParams.joint_assign`), playouts of
:func:`engine.ai.heuristic.refined_action` (:attr:`SearchParams.refined`) or of the learned
model of the players (:attr:`SearchParams.playout_model`, :mod:`engine.ai.model`; a move of it
costs about five of the heuristic's, and the budget still counts it as one), and the worlds
of one pool weighed by the model (:attr:`SearchParams.infer_pool`,
:attr:`SearchParams.infer_model`).

The budget is counted in simulated moves, not seconds, so a decision is a function of the view
and the generator alone (reproducible, and the same on a slow machine); an optional deadline
caps the wall time for a caller who prefers a late move to none.
"""

from __future__ import annotations

import _random
import itertools
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine.actions import Action
from engine.ai.heuristic import decide
from engine.ai.infer import Inference, Inferred, WorldPool
from engine.ai.model import learned_policy
from engine.ai.value import survival, year_value
from engine.determinize import Determinizer
from engine.phase import ASSIGN, OVER, PASS, PLAY, SWAP, TRUMP
from engine.rules import Losers, Requisition, Reward
from engine.state import Game

_REWARD: Final = tuple(c % 13 < 5 for c in range(52))
_POINTS: Final = tuple(c % 13 + 1 for c in range(52))
# Enum members as module constants (a lookup on the class costs ~70 ns on Python 3.11).
_HIGHEST: Final = Losers.HIGHEST
_NO_REWARD: Final = Reward.NONE
_EVERYONE: Final = Requisition.EVERYONE
# What dealing a world and setting up a playout cost, in simulated moves (about 14 µs each):
# the budget then buys about the same time whether playouts are long or short.
_WORLD_COST: Final = 4
_PLAYOUT_COST: Final = 6  # the copy, the year's requisition and the value


class PlayoutGame(Game):
    """A world of the search: a :class:`Game` that stops at the end of year
    :attr:`last_year` instead of dealing the next one (a playout ends there; the deal would
    cost a third of a short one). Once that year has ended, only :attr:`year` (one more) and
    the plots after the requisition are meaningful; a game whose plan is over ends as usual.
    ``last_year`` is 0 until a search sets it: then every year stops."""

    __slots__ = ("last_year",)
    last_year: int

    def _start_year(self, out: list[Any] | None) -> None:
        if (self.year == 0 or self.year >= self.rules.years
                or self.year < getattr(self, "last_year", 0)):
            super()._start_year(out)
        else:
            self.year += 1

    def copy(self) -> PlayoutGame:
        g = PlayoutGame.__new__(PlayoutGame)
        self._copy_into(g)
        g.last_year = getattr(self, "last_year", 0)
        return g


@dataclass(frozen=True, slots=True)
class SearchParams:
    """How a search level plays; see the module's docstring."""

    moves: int = 0  # budget of simulated moves per decision (0: use playouts)
    playouts: int = 0  # or a budget of playouts (whole or partial games) per decision
    opponent_noise: tuple[float, ...] = (0.05, 0.15, 0.35)  # random-move shares, one per world
    self_noise: float = 0.02  # the seat's own later moves in a playout
    worker_keep: float = 0.9  # a plot worker's value kept per requisition still to come
    scale: float = 8.0  # points of margin for the logistic value of an unfinished game
    win_weight: float = 0.75  # at the end: win share vs the logistic margin
    random_tables: float = 0.33  # share of worlds where every opponent plays at random
    table_noise: float = 1.0  # the random-move share of opponents in those worlds
    rank_risk: float = 0.5  # zone-like rules: chance a year takes a suit's top plot card
    horizon: int = 0  # years a playout goes on past the current one (0: to its end)
    infer_worlds: int = 0  # worlds dealt for each one kept by inference (engine.ai.infer; <2: none)
    infer_noise: float = 0.5  # inference: the share of an opponent's plays not the heuristic's
    infer_pool: int = 0  # inference from one pool of this many weighed worlds (<2: none)
    infer_model: bool = False  # inference weighs plays by the learned model (engine.ai.model)
    joint_assign: int = 0  # assigning a trick: search up to this many whole placements (0: none)
    refined: bool = False  # playouts play heuristic.refined_action instead of default_action
    playout_model: bool = False  # playouts play the learned model's likeliest move instead
    value_fit: bool = False  # a year's end scored by the fitted chance to win (engine.ai.value)
    value_fit_chosen: bool = False  # so scored only where it measured stronger (value.json)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search found: the index in ``legal`` of its choice, and of the runner-up
    (the last candidate it dropped; None with a single candidate), each with the mean value
    of its playouts (0 to 1, see :func:`_value`) and how many worlds it was played in."""

    best: int
    value: float
    worlds: int
    runner_up: int | None = None
    runner_up_value: float = 0.0
    runner_up_worlds: int = 0
    #: What inference from a pool of worlds taught about the others' hands (none without).
    inferred: tuple[Inferred, ...] = ()


def search(
    det: Determinizer[PlayoutGame],
    legal: list[Action],
    rng: random.Random,
    params: SearchParams,
    deadline: float | None = None,
) -> Action:
    """The candidate of ``legal`` with the best mean value after sequential halving on worlds
    dealt by ``det`` (its seat acts now). ``deadline`` (``time.perf_counter()`` time) stops
    the search early; the best candidate so far is returned."""
    if len(legal) == 1:
        return legal[0]
    return legal[ranked_search(det, legal, rng, params, deadline).best]


def ranked_search(
    det: Determinizer[PlayoutGame],
    legal: list[Action],
    rng: random.Random,
    params: SearchParams,
    deadline: float | None = None,
) -> SearchResult:
    """:func:`search` with its figures: the choice, the runner-up and their mean values
    (the same choice as :func:`search` for the same generator)."""
    if len(legal) == 1:
        return SearchResult(0, 0.0, 0)
    seat = det.seat
    # The candidates: each legal action, or while assigning a trick, each whole placement of
    # its cards (the heuristic would place the rest in a playout: see docs/ai.md).
    joint = None
    if params.joint_assign and det.base.phase is ASSIGN:
        joint = placements(legal, params.joint_assign)
    candidates = joint if joint is not None else [(a,) for a in legal]
    # The learned model's moves, or (None) the heuristic's, refined or not: called directly.
    policy = learned_policy().action if params.playout_model else None
    refined = params.refined
    n = len(candidates)
    alive = list(range(n))
    total = [0.0] * n
    count = [0] * n
    dropped: list[int] = []
    by_moves = params.moves > 0
    budget = params.moves if by_moves else max(params.playouts, n)
    rounds = max(1, math.ceil(math.log2(n)))
    spent = 0
    worlds = 0
    year = det.base.year
    last_year = year + params.horizon
    infer = None
    pool = None
    model = learned_policy() if params.infer_model else None
    if params.infer_pool > 1:
        pool = WorldPool(det, Inference(det, params.infer_noise, model), rng,
                         params.infer_pool)
        if by_moves:  # the pool's worlds dealt and weighed: a model's guess costs ~5 moves
            spent = params.infer_pool * (_WORLD_COST + (5 if model else 2)
                                         * len(pool.infer.events))
    elif params.infer_worlds > 1:
        infer = Inference(det, params.infer_noise, model)
    # What inference costs a world, in simulated moves: the worlds dealt, a heuristic
    # decision for every play it explains.
    infer_cost = (0 if infer is None
                  else params.infer_worlds * (_WORLD_COST + 2 * len(infer.events)))
    stop = False
    for r in range(rounds):
        round_budget = (budget - spent) / (rounds - r)
        used = 0
        # At least one world a round, so every candidate still running is tried.
        while not stop and (used == 0 or used < round_budget):
            if pool is not None:
                world = pool.draw(rng)
            elif infer is None:
                world = det.sample(rng)
            else:
                world = infer.sample(det, rng, params.infer_worlds)
                if by_moves:
                    used += infer_cost
            world.last_year = last_year
            seed = rng.getrandbits(32)
            # A table of one style: opponents who all play at random (some worlds), or each
            # a noisy heuristic of its own style; bits 0-14 of the seed pick those styles.
            if (seed >> 20) % 1000 < params.random_tables * 1000:
                noise = [params.self_noise if s == seat else params.table_noise
                         for s in range(world.n)]
            else:
                noise = [params.self_noise if s == seat
                         else _pick(params.opponent_noise, seed, s) for s in range(world.n)]
            # Every candidate's playout draws the same numbers, generated once (by
            # _random.Random: random.Random's numbers without its Python-level __init__).
            draws = Draws(_random.Random(seed))
            for i in alive:
                g = world.copy()
                for a in candidates[i]:
                    g.apply_fast(seat, a)
                # A placement's cards after the first are moves too.
                draws.rewind()
                moves = _playout(g, draws, noise, last_year, policy, refined)
                moves += len(candidates[i]) - 1
                total[i] += _value(g, seat, params)
                count[i] += 1
                used += moves + _PLAYOUT_COST if by_moves else 1
            worlds += 1
            if by_moves:
                used += _WORLD_COST
            if deadline is not None and time.perf_counter() > deadline:
                stop = True
        spent += used
        if stop or len(alive) == 1:
            break
        alive.sort(key=lambda i: -total[i])  # stable: equal means keep the legal order
        dropped.extend(reversed(alive[(len(alive) + 1) // 2 :]))
        del alive[(len(alive) + 1) // 2 :]
        if len(alive) == 1:
            break
    best = max(alive, key=lambda i: (total[i], -i))
    # The runner-up: another survivor of a search cut short, else the last one dropped.
    # A placement is played card by card: its first card now, and the runner-up is the best
    # placement that puts that card elsewhere.
    order = sorted((i for i in alive if i != best), key=lambda i: (-total[i], i))
    order += reversed(dropped)
    first = candidates[best][0]
    second = next((i for i in order if candidates[i][0] != first), None)
    mean = total[best] / count[best] if count[best] else 0.0
    choice = legal.index(first)
    inferred = () if pool is None else pool.inferred(seat)
    if second is None:
        return SearchResult(choice, mean, count[best], inferred=inferred)
    return SearchResult(choice, mean, count[best], legal.index(candidates[second][0]),
                        total[second] / count[second] if count[second] else 0.0,
                        count[second], inferred)


def placements(legal: list[Action], limit: int) -> list[tuple[Action, ...]] | None:
    """Every way to place a trick's cards, one job each (``legal``: the assignments open
    now; a card's jobs do not change while its trick is placed), each in the order the cards
    come in ``legal``; None if there are more than ``limit``."""
    by_card: dict[int, list[Action]] = {}
    for a in legal:
        by_card.setdefault(a.card_id, []).append(a)
    if math.prod(len(jobs) for jobs in by_card.values()) > limit:
        return None
    return list(itertools.product(*by_card.values()))


class Draws:
    """The numbers of one ``random.Random``, drawn once and replayed: after :meth:`rewind`,
    :meth:`random` gives the same numbers again from the first, then new ones from the
    generator. The playouts of a world's candidates share one, which is what seeding a
    generator for each of them gave, without the cost of seeding it (about 7 % of a search)."""

    __slots__ = ("drawn", "next", "source")

    def __init__(self, source: _random.Random) -> None:
        self.source = source
        self.drawn: list[float] = []
        self.next = 0

    def rewind(self) -> None:
        self.next = 0

    def random(self) -> float:
        i = self.next
        self.next = i + 1
        drawn = self.drawn
        if i < len(drawn):
            return drawn[i]
        x = self.source.random()
        drawn.append(x)
        return x


def _pick(styles: tuple[float, ...], seed: int, s: int) -> float:
    return styles[(seed >> (3 * s)) % len(styles)]


def _playout(
    g: Game, rng: Draws, noise: list[float], last_year: int,
    policy: Callable[[Game, int], Action] | None = None, refined: bool = False,
) -> int:
    """Play ``g`` on to the end of ``last_year`` (or of the game), every seat playing
    ``policy`` (None: the heuristic's :func:`~engine.ai.heuristic.decide`, ``refined`` or
    not) but for its share of random moves (drawn from ``rng``); returns the moves made."""
    moves = 0
    while g.year <= last_year:
        phase = g.phase
        if phase is PLAY:
            seat = g.turn
        elif phase is ASSIGN:
            seat = g.brigadier  # type: ignore[assignment]
        elif phase is SWAP:
            seat = g.swap_pending[0]
        elif phase is PASS:
            seat = g.pass_pending[0]
        elif phase is TRUMP:
            seat = g.planner
        else:
            break
        legal = g._legal_list(seat)
        if len(legal) == 1:
            a = legal[0]
        elif rng.random() < noise[seat]:
            a = legal[int(rng.random() * len(legal))]
        else:
            a = decide(g, seat, refined)[0] if policy is None else policy(g, seat)
        g.apply_fast(seat, a)
        moves += 1
    return moves


def _value(g: Game, seat: int, params: SearchParams) -> float:
    """How good ``g`` (at the end of a year, or over) is for ``seat``, from 0 to 1."""
    if g.phase is OVER:
        scores = g.scores()
        mine = scores[seat]
        best_other = max([v for s, v in enumerate(scores) if s != seat])
        if mine > best_other:
            win = 1.0
        elif mine < best_other:
            win = 0.0
        else:
            win = 1.0 / scores.count(mine)
        w = params.win_weight
        return w * win + (1 - w) * _logistic((mine - best_other) / params.scale)
    if params.value_fit or params.value_fit_chosen:
        share = year_value().win_share(g, seat, chosen_only=not params.value_fit)
        if share is not None:
            return share
    rules = g.rules
    left = rules.years - g.year + 1  # requisitions still to come
    if params.rank_risk and rules.losers is _HIGHEST and (
        rules.reward is _NO_REWARD or rules.requisition is _EVERYONE
    ):
        return _logistic(_rank_margin(g, seat, left, params.rank_risk) / params.scale)
    keep = params.worker_keep ** left
    medals = g.rules.medals_score
    values = []
    for s in range(g.n):
        plot = g.plots[s]
        safe = sum([_POINTS[c] for c in plot if _REWARD[c]])
        at_risk = sum([_POINTS[c] for c in plot if not _REWARD[c]])
        values.append(safe + keep * at_risk + (g.medals[s] if medals else 0))
    mine_v = values[seat]
    values[seat] = -1e9
    return _logistic((mine_v - max(values)) / params.scale)


def _rank_margin(g: Game, seat: int, left: int, risk: float) -> float:
    """The margin of expected plot points to the best other seat when everyone is exposed
    and only the highest card of a suit among all plots goes north: a worker ranked ``r``
    in its suit (0: the highest) stays unless more than ``r`` of the ``left`` requisitions
    to come take that suit."""
    keep = survival(left, risk)
    n = g.n
    values = [0.0] * n
    by_suit: list[list[tuple[int, int]]] = [[], [], [], []]
    for s in range(n):
        for c in g.plots[s]:
            if _REWARD[c]:
                values[s] += _POINTS[c]
            else:
                by_suit[c // 13].append((c, s))
    for cards in by_suit:
        cards.sort(reverse=True)
        for r, (c, s) in enumerate(cards):
            values[s] += _POINTS[c] * (keep[r] if r < len(keep) else 1.0)
    if g.rules.medals_score:
        for s in range(n):
            values[s] += g.medals[s]
    mine = values[seat]
    values[seat] = -1e9
    return mine - max(values)


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))
