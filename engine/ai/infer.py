"""Inference from the cards others played this year: worlds weighted by how likely each
opponent's plays are in them.

A dealt world (:mod:`engine.determinize`) honours what the seat saw for certain (counts, voids
shown), but not what the plays suggest: a player who led a low club probably held no lower
side card, a player who ducked a valuable trick probably could not take it. :class:`Inference`
reads this year's tricks from the view once; for a world it rebuilds, for every card another
seat played, that seat's hand at the time (its hand in the world and the cards it played since)
with the trick so far and the jobs' hours before that trick, and asks what the heuristic
(:mod:`engine.ai.heuristic`) would have played there. A play the heuristic would make counts
``1 - noise + noise / k`` (k: the legal cards), any other ``noise / k``; the world's weight is
the product. :meth:`Inference.sample` deals several worlds and keeps one with a chance
proportional to its weight (sampling importance resampling), so a search on its worlds plays
mostly the deals that explain what it saw.

Everything it reads is in the seat's view: the cards of this year's tricks, in order, and the
jobs' workers. What it does not rebuild (the Brigadier's and completions' flags of that time,
cards out of sight in a stack) it takes from now, or skips: the weight is a guess that leans
worlds, never a rule that forbids one.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from engine.ai.heuristic import default_action
from engine.ai.model import PolicyModel
from engine.cards import SUIT_OF
from engine.legality import compute_legal
from engine.phase import Phase

if TYPE_CHECKING:
    from engine.determinize import Determinizer
    from engine.state import Game

_PLAY = Phase.PLAY


class Inference:
    """This year's plays of the other seats, read from ``det``'s view once."""

    def __init__(self, det: Determinizer[Any], noise: float = 0.5,
                 model: PolicyModel | None = None) -> None:
        base = det.base
        seat = det.seat
        self.noise = noise
        #: The model of the others' play: with one, a play counts its probability under the
        #: model (:meth:`PolicyModel.likelihood`) instead of the heuristic's 0/1 with noise.
        self.model = model
        tricks: list[list[tuple[int, int | None]]] = [list(cards) for cards, _ in det.tricks]
        if base.trick:
            tricks.append(list(base.trick))
        # Which trick each card of this year was played in; the jobs' hours before each trick.
        played_in: dict[int, int] = {}
        for t, cards in enumerate(tricks):
            for _, c in cards:
                if c is not None:
                    played_in[c] = t
        threshold = base.rules.threshold
        hours_of = base.hours_of
        before: list[tuple[list[int], list[int | None]]] = []
        for t in range(len(tricks)):
            hours = [0, 0, 0, 0]
            for j, workers in enumerate(base.workers):
                hours[j] = sum([hours_of(c) for c in workers if played_in.get(c, t) < t])
            completed: list[int | None] = [
                None if hours[j] < threshold else (base.completed_by[j] or 0) for j in range(4)
            ]
            before.append((hours, completed))
        trumps_by = [any(c is not None and SUIT_OF[c] == base.trump for _, c in cards)
                     for cards in tricks]
        #: (seat, card, the trick so far, cards it played since, hours, completed, trump played)
        self.events: list[tuple[int, int, list[tuple[int, int]], list[int], list[int],
                                list[int | None], bool]] = []
        for t, cards in enumerate(tricks):
            for k, (s, c) in enumerate(cards):
                if s == seat or c is None:
                    continue
                prefix = cards[:k]
                if any(x is None for _, x in prefix):
                    continue
                later = [x for u in tricks[t:] for s2, x in u if s2 == s]
                if any(x is None for x in later):
                    continue
                hours, completed = before[t]
                self.events.append((s, c, [(u, x) for u, x in prefix if x is not None],
                                    [x for x in later if x is not None], hours, completed,
                                    any(trumps_by[:t])))

    def weight(self, world: Game) -> float:
        """How likely the other seats' plays this year are if ``world`` is the real deal
        (a product of the factors above; 1.0 with nothing to explain)."""
        if not self.events:
            return 1.0
        g = world.copy()
        g.phase = _PLAY
        noise = self.noise
        model = self.model
        hands = [list(h) for h in world.hands]
        w = 1.0
        for s, c, prefix, later, hours, completed, trump_played in self.events:
            g.turn = s
            g.trick = prefix
            g.hands[s] = sorted(hands[s] + later)
            g.hours = hours
            g.completed_by = completed
            g.trump_played = trump_played
            legal = compute_legal(g, s)
            g._legal = {s: legal}
            k = len(legal)
            if k <= 1:
                continue
            if model is not None:
                w *= model.likelihood(g, s, legal, c)
            elif default_action(g, s).card_id == c:
                w *= 1.0 - noise + noise / k
            else:
                w *= noise / k
        return w

    def sample(self, det: Determinizer[Any], rng: random.Random, k: int) -> Any:
        """One of ``k`` worlds dealt by ``det``, picked with a chance proportional to its
        :meth:`weight` (the first if every weight is 0)."""
        worlds = [det.sample(rng) for _ in range(k)]
        if not self.events or k == 1:
            return worlds[rng.randrange(k)] if k > 1 else worlds[0]
        weights = [self.weight(w) for w in worlds]
        total = sum(weights)
        if total <= 0.0:
            return worlds[0]
        x = rng.random() * total
        for world, wt in zip(worlds, weights, strict=True):
            x -= wt
            if x < 0:
                return world
        return worlds[-1]


#: An inference worth telling: at least this likely in the weighed worlds ...
TELL_CHANCE: Final = 0.75
#: ... and at most this likely in the same worlds unweighed (what the cards seen alone say).
TELL_PRIOR: Final = 0.5


@dataclass(frozen=True, slots=True)
class Inferred:
    """Something the plays suggest about another seat's hand: ``kind`` ``"void"`` (it holds
    no card of suit ``value`` any more) or ``"holds"`` (it holds card ``value``), with its
    chance in the weighed worlds and in the same worlds unweighed (``prior``)."""

    seat: int
    kind: str
    value: int
    chance: float
    prior: float


class WorldPool:
    """``size`` worlds dealt by ``det`` once, each with its :meth:`Inference.weight`; the
    search then draws its worlds from them with chances proportional to the weights
    (importance resampling from one pool: each world is weighed once, however often it is
    played). With nothing to explain, or every weight 0, every world is as likely."""

    def __init__(self, det: Determinizer[Any], infer: Inference, rng: random.Random,
                 size: int) -> None:
        self.infer = infer
        self.worlds = [det.sample(rng) for _ in range(size)]
        weights = ([infer.weight(w) for w in self.worlds] if infer.events
                   else [1.0] * size)
        if sum(weights) <= 0.0:
            weights = [1.0] * size
        total = 0.0
        self.cumulative: list[float] = []
        for wt in weights:
            total += wt
            self.cumulative.append(total)
        self.weights = weights

    def draw(self, rng: random.Random) -> Any:
        """A world of the pool, by weight (the caller copies it before playing on)."""
        return self.worlds[min(bisect.bisect_right(self.cumulative,
                                                   rng.random() * self.cumulative[-1]),
                               len(self.worlds) - 1)]

    @property
    def effective(self) -> float:
        """Kish's effective number of worlds: how many equally weighted worlds the pool is
        worth (its size when inference reads nothing; near 1 when one world explains all)."""
        total = sum(self.weights)
        return total * total / sum([w * w for w in self.weights])

    def inferred(self, seat: int, limit: int = 2) -> tuple[Inferred, ...]:
        """What the weighing taught about the other seats' hands, most telling first: a
        void or a card at least :data:`TELL_CHANCE` likely once weighed where the cards
        seen alone made it at most :data:`TELL_PRIOR` likely (nothing if the plays taught
        nothing). The worlds are dealt from ``seat``'s view, so this knows what it may."""
        weights = self.weights
        total = sum(weights)
        size = len(self.worlds)
        if not self.infer.events or total <= 0.0 or size < 2:
            return ()
        found: list[Inferred] = []
        for other in range(self.worlds[0].n):
            if other == seat:
                continue
            void_w = [0.0] * 4
            void_n = [0] * 4
            card_w: dict[int, float] = {}
            card_n: dict[int, int] = {}
            for world, wt in zip(self.worlds, weights, strict=True):
                hand = world.hands[other]
                suits = {c // 13 for c in hand}
                for x in range(4):
                    if x not in suits:
                        void_w[x] += wt
                        void_n[x] += 1
                for c in hand:
                    card_w[c] = card_w.get(c, 0.0) + wt
                    card_n[c] = card_n.get(c, 0) + 1
            for x in range(4):
                chance, prior = void_w[x] / total, void_n[x] / size
                if chance >= TELL_CHANCE and prior <= TELL_PRIOR:
                    found.append(Inferred(other, "void", x, chance, prior))
            for c, wt in card_w.items():
                chance, prior = wt / total, card_n[c] / size
                if chance >= TELL_CHANCE and prior <= TELL_PRIOR:
                    found.append(Inferred(other, "holds", c, chance, prior))
        found.sort(key=lambda f: (-(f.chance - f.prior), f.seat, f.kind, f.value))
        return tuple(found[:limit])
