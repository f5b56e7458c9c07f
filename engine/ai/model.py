"""A learned model of how players play: a small policy over the legal moves, trained here.

The model is a conditional logit (a softmax over the legal moves of a linear score): each
legal move of a trick (a card to lead, a card to follow) or of a placement (a card to a job)
is described by a short vector of features read from what the seat may know (its hand, its
plot and the public table), and the move's probability is proportional to
``exp(weights · features)``. Three weight vectors: leads, follows and placements. Other
decisions (the trump, the swap, the pass) are few and are left to the heuristic.

The weights (``policy.json`` beside this module) are learned from the search's own decisions
by ``benchmarks/train_policy.py``, one command that plays the games, fits the weights and
prints how well they predict held-out decisions; nothing is downloaded. Two features are
whether the move is :func:`~engine.ai.heuristic.default_action`'s and
:func:`~engine.ai.heuristic.refined_action`'s, so the model learns where the search leaves
the heuristics, not the game from nothing.

Used by :mod:`engine.ai.infer` as the model of the other players (how likely a play is if a
dealt world were the real one) and as a player of its own (:meth:`PolicyModel.action`).
Pure Python: one decision costs a few tens of microseconds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Final

from engine.actions import Action
from engine.ai.heuristic import decide, keep_value, trick_best, trick_stakes
from engine.cards import HOURS, JACK, QUEEN, card_id
from engine.phase import Phase
from engine.rules import Requisition, Reward
from engine.state import Game

_SUIT: Final = tuple(c // 13 for c in range(52))
_POINTS: Final = tuple(c % 13 + 1 for c in range(52))
_PLAY: Final = Phase.PLAY
_ASSIGN: Final = Phase.ASSIGN

#: The features of a card played (a lead or a follow), in the order of the weights.
PLAY_FEATURES: Final = (
    "heuristic",  # default_action plays it
    "refined",  # refined_action plays it
    "points",  # its points / 13
    "trump",  # a trump
    "lowest",  # the lowest of the legal cards (trumps highest)
    "highest",  # the highest of the legal cards
    "suit_share",  # the cards of its suit in the hand / the hand
    "last_of_suit",  # the hand's last card of a side suit (a void after it)
    "keep_delta",  # last two cards: what the card kept is worth in the plot, less this one
    "exposed_points",  # everyone exposed (zone-like): its points / 13
    "job_need",  # hours its suit's job still needs / the threshold (0 if done)
    "job_done",  # its suit's job is finished
    "wins",  # it takes the trick for now (follows only)
    "wins_stakes",  # wins × the trick's stakes with it / 10
    "wins_last",  # wins, and it is the trick's last card
    "lowest_winner",  # the cheapest winning card
    "highest_winner",  # the strongest winning card
    "highest_loser",  # the strongest card that does not take the trick
    "wins_early",  # wins × how few have played after it / the others
    "trump_on_side",  # a trump on a side-suit trick (a ruff)
)
#: The features of a card placed on a job.
ASSIGN_FEATURES: Final = (
    "heuristic",
    "refined",
    "done",  # the job is finished
    "reached",  # the trick's cards already bring the job to the threshold
    "completes",  # the card completes the job
    "completes_reward",  # completes × the job's reward points / 20
    "own_suit",  # points of the job's suit in the seat's plot (workers) / 20
    "after",  # the job's hours after the card / the threshold (not done)
    "drunk",  # the trump Jack (the Drunkard)
    "drunk_own",  # the Drunkard × own_suit
    "informer_fails",  # the trump Queen on a job it does not complete
    "points_wasted",  # the card's points / 13 on a finished job
    "trump_job",  # the trump suit's job
    "overflow",  # hours past the threshold / the threshold
    "same_suit",  # the card is of the job's suit
)
GROUPS: Final = ("lead", "follow", "assign")

#: A move's probability is never below this share of a uniform choice (a model is a guess).
FLOOR: Final = 0.05


def _low(trump: int | None, c: int) -> tuple[bool, int]:
    return (_SUIT[c] == trump, _POINTS[c])


def play_features(game: Game, seat: int, legal: Sequence[Action]) -> list[list[float]]:
    """The :data:`PLAY_FEATURES` of each legal card (``legal``: play actions)."""
    cards = [a.card_id for a in legal]
    hand = game.hands[seat]
    trump = game.trump
    rules = game.rules
    threshold = rules.threshold
    exposed = rules.reward is Reward.NONE or rules.requisition is Requisition.EVERYONE
    heur = decide(game, seat)[0].card_id
    ref = decide(game, seat, refined=True)[0].card_id
    length = [0, 0, 0, 0]
    for c in hand:
        length[_SUIT[c]] += 1
    size = len(hand) or 1
    lowest = min(cards, key=lambda c: _low(trump, c))
    highest = max(cards, key=lambda c: _low(trump, c))
    trick = game.trick
    keep: dict[int, float] = {}
    if len(hand) == 2 and len(cards) == 2:
        keep = {c: keep_value(game, seat, c) for c in cards}
    winners: set[int] = set()
    follow = bool(trick)
    led = -1
    if follow:
        best = trick_best(game)
        led = _SUIT[trick[0][1]]
        for c in cards:
            s = _SUIT[c]
            if s == trump:
                if _SUIT[best] != trump or c > best:
                    winners.add(c)
            elif _SUIT[best] != trump and s == led and c > best:
                winners.add(c)
    last = len(trick) == game.n - 1
    after = (game.n - 1 - len(trick)) / max(1, game.n - 1)
    low_win = min(winners, key=lambda c: _low(trump, c)) if winners else -1
    high_win = max(winners, key=lambda c: _low(trump, c)) if winners else -1
    losers = [c for c in cards if c not in winners]
    high_lose = max(losers, key=lambda c: _low(trump, c)) if follow and losers else -1
    base_stakes = trick_stakes(game, []) if follow and winners else 0
    out = []
    for c in cards:
        s = _SUIT[c]
        p = _POINTS[c] / 13
        j_done = game.completed_by[s] is not None
        wins = c in winners
        if keep:
            other = cards[1] if c == cards[0] else cards[0]
            keep_delta = (keep[other] - keep[c]) / 13
        else:
            keep_delta = 0.0
        stakes = 0.0
        if wins:
            stakes = (base_stakes + trick_stakes(game, [c])) / 20
        out.append([
            float(c == heur), float(c == ref), p, float(s == trump),
            float(c == lowest), float(c == highest), length[s] / size,
            float(length[s] == 1 and s != trump), keep_delta, p if exposed else 0.0,
            0.0 if j_done else max(0, threshold - game.hours[s]) / threshold, float(j_done),
            float(wins), stakes, float(wins and last), float(c == low_win),
            float(c == high_win), float(c == high_lose), after if wins else 0.0,
            float(follow and s == trump and led != trump),
        ])
    return out


def assign_features(game: Game, seat: int, legal: Sequence[Action]) -> list[list[float]]:
    """The :data:`ASSIGN_FEATURES` of each legal placement (``legal``: assign actions)."""
    trump = game.trump
    rules = game.rules
    threshold = rules.threshold
    own = [0, 0, 0, 0]
    for c in game.plots[seat]:
        if c % 13 >= 5:
            own[_SUIT[c]] += _POINTS[c]
    drunk = queen = -1
    if rules.nomenklatura and trump is not None:
        drunk, queen = card_id(JACK, trump), card_id(QUEEN, trump)
    heur = decide(game, seat)[0]
    ref = decide(game, seat, refined=True)[0]
    out = []
    for a in legal:
        c, j = a.card_id, a.suit_id
        hours = game.hours[j]
        after = hours + (0 if c == drunk else HOURS[c])
        done = game.completed_by[j] is not None
        reached = not done and hours >= threshold
        completes = not done and not reached and after >= threshold
        reward = sum([_POINTS[r] for r in game.rewards[j]]) / 20
        is_drunk = c == drunk
        out.append([
            float(a == heur), float(a == ref), float(done), float(reached), float(completes),
            reward if completes else 0.0, own[j] / 20,
            0.0 if done else min(after, threshold) / threshold, float(is_drunk),
            own[j] / 20 if is_drunk else 0.0, float(c == queen and not completes),
            _POINTS[c] / 13 if done or reached else 0.0, float(j == trump),
            max(0, after - threshold) / threshold if not done else 0.0, float(_SUIT[c] == j),
        ])
    return out


def group_of(game: Game) -> str | None:
    """The weight group of the decision now (:data:`GROUPS`), or None if not modelled."""
    phase = game.phase
    if phase is _PLAY:
        return "follow" if game.trick else "lead"
    if phase is _ASSIGN:
        return "assign"
    return None


def features(
    game: Game, seat: int, legal: Sequence[Action]
) -> tuple[str, list[list[float]]] | None:
    """The decision's group and each legal move's features, or None for a decision the model
    leaves to the heuristic."""
    group = group_of(game)
    if group is None:
        return None
    if group == "assign":
        return group, assign_features(game, seat, legal)
    return group, play_features(game, seat, legal)


def softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


class PolicyModel:
    """The learned policy: ``weights`` maps each of :data:`GROUPS` to one weight a feature."""

    __slots__ = ("weights",)

    def __init__(self, weights: dict[str, list[float]]) -> None:
        for group, names in (("lead", PLAY_FEATURES), ("follow", PLAY_FEATURES),
                             ("assign", ASSIGN_FEATURES)):
            if len(weights.get(group, ())) != len(names):
                raise ValueError(f"policy weights for {group!r}: expected {len(names)} values")
        self.weights = {g: [float(x) for x in weights[g]] for g in GROUPS}

    @classmethod
    def from_json(cls, data: dict[str, object]) -> PolicyModel:
        weights = data["weights"]
        if not isinstance(weights, dict):
            raise ValueError("policy file: 'weights' is not an object")
        return cls(weights)

    def probabilities(self, game: Game, seat: int, legal: Sequence[Action]) -> list[float] | None:
        """Each legal move's probability for ``seat`` now (None if not modelled)."""
        found = features(game, seat, legal)
        if found is None:
            return None
        group, rows = found
        w = self.weights[group]
        return softmax([sum([a * b for a, b in zip(w, row, strict=True)]) for row in rows])

    def likelihood(self, game: Game, seat: int, legal: Sequence[Action], card: int) -> float:
        """The chance ``seat`` plays ``card`` now, floored (:data:`FLOOR`); 1.0 if not
        modelled or forced."""
        k = len(legal)
        if k <= 1:
            return 1.0
        probs = self.probabilities(game, seat, legal)
        if probs is None:
            return 1.0
        p = next((q for a, q in zip(legal, probs, strict=True) if a.card_id == card), 0.0)
        return (1.0 - FLOOR) * p + FLOOR / k

    def action(self, game: Game, seat: int) -> Action:
        """The model's most likely move for ``seat`` now (the heuristic's where it does not
        model the decision). Raises :class:`ValueError` when the seat has nothing to do."""
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        probs = self.probabilities(game, seat, legal) if legal else None
        if probs is None:
            return decide(game, seat)[0]
        return legal[max(range(len(legal)), key=lambda i: (probs[i], -i))]


POLICY_FILE: Final = Path(__file__).with_name("policy.json")


@cache
def learned_policy() -> PolicyModel:
    """The policy shipped with the engine (``policy.json``), read once."""
    return PolicyModel.from_json(json.loads(POLICY_FILE.read_text(encoding="utf-8")))
