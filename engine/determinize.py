"""A whole game built from one seat's view, the cards it cannot see dealt at random.

A search player (determinization, PIMC) samples many such games and plays them out: every
card the seat has seen stays where it is, and the rest — other hands, other face-down plot
cards, the deck, the reward piles — is dealt by the given generator, consistently with what
the seat knows:

- every count the view shows (cards in hand, face-down cards, the deck, each reward pile);
- a reward pile holds only its own suit's reward cards;
- a player who did not follow a led suit this year holds none of it (a void shown);
- a Колхозик stack's hidden cards are among its owner's face-down cards.

Not modelled: what a past requisition's reveal says about the rest of a plot (e.g. that an
exposed player had no other card of that suit then). The sampled game has a fresh seed, so
later years deal at random too, and an empty log.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, TypeVar

from engine.cards import JOBS, SUIT_OF, SUITS, parse_card, reward_cards
from engine.data import WORKERS, GameData
from engine.phase import Phase
from engine.rules import Rules

if TYPE_CHECKING:
    from collections.abc import Iterable

G = TypeVar("G", bound=GameData)

_TRIES = 20


def _ids(texts: Iterable[str | None]) -> list[int]:
    return [parse_card(t) for t in texts if t is not None]


def determinize(cls: type[G], view: dict[str, Any], rng: random.Random) -> G:
    """See :meth:`engine.Game.determinize`."""
    seat = view.get("viewer")
    if not isinstance(seat, int):
        raise ValueError("a determinized game needs a seat's view, not the public view")
    rules = Rules.from_dict(view["rules"])
    n = int(view["players_count"])
    g = cls.__new__(cls)
    g._init_empty(rules, n, f"determinized/{rng.getrandbits(64)}")
    g.planner0 = view["planner"]
    g.year = view["year"]
    g.planner = view["planner"]
    g.phase = Phase(view["phase"])
    g.hand_size = view["hand_size"]
    g.lean = view["lean"]
    g.famine = view["famine"]
    g.short = view.get("short", False)
    g.trump = None if view["trump"] is None else "HDCS".index(view["trump"])
    g.trump_played = view["trump_played"]
    g.lead = view["lead"]
    to_act = view["to_act"]
    g.turn = to_act[0] if g.phase is Phase.PLAY and to_act else view["lead"]
    g.tricks_done = view["tricks_played"]
    g.brigadier = view["brigadier"]
    g.last_trick_winner = view["last_trick_winner"]
    g.swap_pending = list(view["swap_pending"])
    g.ended_early = view["ended_early"]
    g.trick = [(int(s), parse_card(c)) for s, c in view["trick"]]
    g.pending = _ids(view["pending"])
    # Finished tricks only inform the voids below; cards that went out of sight are dropped.
    g.last_trick = [(int(s), parse_card(c)) for s, c in view["last_trick"] if c is not None]
    g.tricks = [
        ([(int(s), parse_card(c)) for s, c in t["cards"] if c is not None], t["winner"])
        for t in view.get("tricks", ())
    ]
    g.north = _ids(view["north"])
    g.discarded = _ids(view["discarded_rewards"])
    for j in JOBS:
        job = view["jobs"]["HDCS"[j]]
        g.hours[j] = job["hours"]
        g.completed_by[j] = job["completed_by"]
        g.workers[j] = _ids(job["workers"])
        g.rewards[j] = _ids(job["rewards"])
    players = view["players"]
    known: set[int] = set(g.north) | set(g.pending) | {c for _, c in g.trick}
    for w in g.workers:
        known.update(w)
    hidden_slots: list[int] = [0] * n
    for p in players:
        s = p["seat"]
        g.medals[s] = p["medals"]
        g.brigadier_year[s] = p["brigadier"]
        g.completed_year[s] = p["completed_job"]
        revealed = _ids(p["plot_revealed"])
        g.face_up.update(revealed)
        known.update(revealed)
        if s == seat:
            g.hands[s] = _ids(p["hand"])
            hidden = _ids(p["plot_hidden"])
            g.plots[s] = revealed + hidden
            g.stacks[s] = [_ids(st) for st in p.get("stacks", ())]
            known.update(g.hands[s])
            known.update(hidden)
        else:
            g.plots[s] = revealed
            hidden_slots[s] = p["plot_hidden"]
    unseen = [c for c in WORKERS if c not in known]
    voids = _voids(view, n)
    for _ in range(_TRIES):
        rng.shuffle(unseen)
        deal = _deal(unseen, players, seat, voids)
        if deal is not None:
            break
    else:  # the constraints are too tight for chance: deal without the voids
        deal = _deal(unseen, players, seat, [set() for _ in range(n)])
        assert deal is not None
    hands, rest = deal
    for p in players:
        s = p["seat"]
        if s == seat:
            continue
        g.hands[s] = sorted(hands[s])
        hidden = rest[: hidden_slots[s]]
        del rest[: hidden_slots[s]]
        g.plots[s] = g.plots[s] + hidden
        # A stack's hidden cards are among its owner's face-down cards.
        pool = iter(hidden)
        g.stacks[s] = [
            [parse_card(st[0])] + [next(pool) for _ in st[1:]] for st in p.get("stacks", ())
        ]
    g.deck = rest
    if view["deck_count"] != len(rest):
        raise ValueError("the view's card counts do not add up")
    if rules.has_rewards:
        seen_rewards = set(g.discarded)
        for r in g.rewards:
            seen_rewards.update(r)
        for plot in g.plots:
            seen_rewards.update(plot)
        for j in JOBS:
            pile = [c for c in reward_cards(SUITS[j]) if c not in seen_rewards]
            rng.shuffle(pile)
            g.reward_piles[j] = pile[: view["jobs"]["HDCS"[j]]["reward_pile"]]
    return g


def _voids(view: dict[str, Any], n: int) -> list[set[int]]:
    """Suits each seat showed out of this year: it did not follow when the suit was led."""
    voids: list[set[int]] = [set() for _ in range(n)]
    tricks = [t["cards"] for t in view.get("tricks", ())] + [view["trick"]]
    for trick in tricks:
        if not trick or trick[0][1] is None:
            continue
        led = SUIT_OF[parse_card(trick[0][1])]
        for s, c in trick[1:]:
            if c is not None and SUIT_OF[parse_card(c)] != led:
                voids[s].add(led)
    return voids


def _deal(
    unseen: list[int], players: list[dict[str, Any]], seat: int, voids: list[set[int]]
) -> tuple[dict[int, list[int]], list[int]] | None:
    """Fill the other hands from ``unseen`` (most constrained first), honouring voids; the
    rest in order. None when a hand cannot be filled."""
    pool = list(unseen)
    hands: dict[int, list[int]] = {}
    order = sorted(
        (p for p in players if p["seat"] != seat), key=lambda p: -len(voids[p["seat"]])
    )
    for p in order:
        s, need = p["seat"], p["hand_count"]
        void = voids[s]
        picked = [c for c in pool if SUIT_OF[c] not in void][:need]
        if len(picked) < need:
            return None
        taken = set(picked)
        pool = [c for c in pool if c not in taken]
        hands[s] = picked
    return hands, pool
