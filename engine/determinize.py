"""Whole games built from one seat's view, the cards it cannot see dealt at random.

A search player (determinization, PIMC) samples many such games and plays them out: every
card the seat has seen stays where it is, and the rest — other hands, other face-down plot
cards, the deck, the reward piles — is dealt by the given generator, consistently with what
the seat knows:

- every count the view shows (cards in hand, face-down cards, the deck, each reward pile);
- a reward pile holds only its own suit's reward cards;
- a player who did not follow a led suit this year holds none of it (a void shown);
- with ``trump_lead_restricted``, a player who led trump before any trump was played this
  year held only trumps then: the cards still in their hand are trumps (voids in the others;
  read only when every card played before that lead is in sight, as any may have been trump);
- a Колхозик stack's hidden cards are among its owner's face-down cards, rank above its top
  card (the lowest goes on top), and they are the cards of this year's tricks the view shows
  as unknown: the sampled game's view from the same seat is the view it was built from.
  Stacks are filled highest top first, every seat's together: the cards above a higher top
  are among those above a lower one, so this order always finds enough for each (a view where
  none could is not of a real game, and is refused);
- ``pass_cards``: a seat that has chosen the card it passes, the cards not moved yet, chose
  one of its dealt hand; once they moved, the card the seat sent, if it has not been seen
  since, is in the receiver's hand (unless the receiver showed out of its suit, or played a
  card now out of sight: then it may be anywhere unseen). The card received is the seat's own.

Not modelled: what a past requisition's reveal says about the rest of a plot (e.g. that an
exposed player had no other card of that suit then). The sampled game has a fresh seed, so
later years deal at random too, and an empty log.

:class:`Determinizer` reads the view once and deals as many games as asked (a search deals
one per iteration); :func:`determinize` is the one-off form behind ``Game.determinize``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar

from engine.cards import JOBS, STACK_ORDER, SUIT_OF, SUITS, parse_card, reward_cards
from engine.data import WORKERS, GameData
from engine.phase import PASS, PLAY, Phase
from engine.rules import Rules

if TYPE_CHECKING:
    from collections.abc import Iterable

G = TypeVar("G", bound=GameData)

_TRIES: Final = 20


def _ids(texts: Iterable[str | None]) -> list[int]:
    return [parse_card(t) for t in texts if t is not None]


def _shuffle(cards: list[int], rand: Any) -> None:
    """Fisher-Yates with ``rng.random``: about half the cost of ``Random.shuffle``, which
    a search pays for every world it deals."""
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _trick(cards: list[list[Any]]) -> list[tuple[int, int | None]]:
    return [(int(s), None if c is None else parse_card(c)) for s, c in cards]


class Determinizer(Generic[G]):
    """The view of one seat, read once; :meth:`sample` deals a whole game from it.

    Raises :class:`ValueError` for a public view, a view whose counts do not add up or one
    whose stacks cannot hold enough cards above their tops.
    """

    def __init__(self, cls: type[G], view: dict[str, Any]) -> None:
        seat = view.get("viewer")
        if not isinstance(seat, int):
            raise ValueError("a determinized game needs a seat's view, not the public view")
        self.seat = seat
        rules = Rules.from_dict(view["rules"])
        n = int(view["players_count"])
        g = cls.__new__(cls)
        g._init_empty(rules, n, "determinized")
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
        g.turn = to_act[0] if g.phase is PLAY and to_act else view["lead"]
        g.tricks_done = view["tricks_played"]
        g.brigadier = view["brigadier"]
        g.last_trick_winner = view["last_trick_winner"]
        g.swap_pending = list(view["swap_pending"])
        g.pass_pending = list(view.get("pass_pending", ()))
        g.ended_early = view["ended_early"]
        g.trick = [(int(s), parse_card(c)) for s, c in view["trick"]]
        g.pending = _ids(view["pending"])
        g.north = _ids(view["north"])
        g.discarded = _ids(view["discarded_rewards"])
        for j in JOBS:
            job = view["jobs"]["HDCS"[j]]
            g.hours[j] = job["hours"]
            g.completed_by[j] = job["completed_by"]
            g.workers[j] = _ids(job["workers"])
            g.rewards[j] = _ids(job["rewards"])
        # This year's tricks with None where the card is out of the seat's sight now (in
        # another seat's stack): sample() fills those places with the stacks' hidden cards.
        self.tricks = [(_trick(t["cards"]), int(t["winner"])) for t in view.get("tricks", ())]
        self.last_trick = _trick(view["last_trick"])
        players = view["players"]
        known: set[int] = set(g.north) | set(g.pending) | {c for _, c in g.trick}
        for w in g.workers:
            known.update(w)
        self.hidden_slots = [0] * n
        #: Per other seat, its stacks' top cards and how many hidden cards each holds.
        self.stack_shapes: list[list[tuple[int, int]]] = [[] for _ in range(n)]
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
                self.hidden_slots[s] = p["plot_hidden"]
                self.stack_shapes[s] = [
                    (parse_card(st[0]), len(st) - 1) for st in p.get("stacks", ())
                ]
        self.players = players
        self.hand_counts = [0] * n
        for p in players:
            self.hand_counts[p["seat"]] = p["hand_count"]
        self.unseen = [c for c in WORKERS if c not in known]
        self.voids = _voids(view, n, rules)
        self._read_passes(g, players)
        # The other seats' stacks with hidden cards, highest top first: (seat, index among
        # the seat's stacks, the top's key, hidden cards). Each stack's candidates (the cards
        # above its top) include those of every stack before it, so filling in this order
        # succeeds whenever the view is of a real game: every prefix has enough candidates.
        fills = [
            (STACK_ORDER[top], s, i, k)
            for s in range(n)
            if s != seat
            for i, (top, k) in enumerate(self.stack_shapes[s])
            if k
        ]
        fills.sort(reverse=True)
        self.stack_fills = [(s, i, key, k) for key, s, i, k in fills]
        self.no_stacks: list[list[list[int]]] = [[[] for _ in sh] for sh in self.stack_shapes]
        need = 0
        for key, _, _, k in fills:
            need += k
            if sum(STACK_ORDER[c] > key for c in self.unseen) < need:
                raise ValueError("the view's stacks cannot hold cards above their tops")
        self.deck_count = int(view["deck_count"])
        self.reward_pools: list[list[int]] = [[], [], [], []]
        self.reward_counts = [0, 0, 0, 0]
        if rules.has_rewards:
            seen_rewards = set(g.discarded)
            for r in g.rewards:
                seen_rewards.update(r)
            for plot in g.plots:
                seen_rewards.update(plot)
            for j in JOBS:
                self.reward_pools[j] = [c for c in reward_cards(SUITS[j]) if c not in seen_rewards]
                self.reward_counts[j] = view["jobs"]["HDCS"[j]]["reward_pile"]
        masked = sum(c is None for t, _ in self.tricks for _, c in t)
        stacked = sum(k for shapes in self.stack_shapes for _, k in shapes)
        # Every card out of sight in this year's tricks is a hidden stack card; a view that
        # says otherwise (none seen so far) keeps its tricks without those places.
        self.fill_tricks = masked == stacked
        self.base = g
        others = sum(self.hand_counts) - self.hand_counts[seat] + sum(self.hidden_slots)
        if self.deck_count != len(self.unseen) - others:
            raise ValueError("the view's card counts do not add up")
        #: Hand sizes to deal from the unseen cards (the card the seat sent is placed apart).
        self.deal_counts = self.hand_counts[:]
        if self.pass_placed is not None:
            receiver, card = self.pass_placed
            self.unseen.remove(card)
            self.deal_counts[receiver] -= 1

    def _read_passes(self, g: GameData, players: list[dict[str, Any]]) -> None:
        """``pass_cards``: the seat's own card passed (or chosen) and received this year, the
        seats whose chosen cards :meth:`sample` picks, and the card it sent when its place
        is certain enough (``pass_placed``: receiver and card)."""
        seat = self.seat
        n = g.n
        #: Other seats that have chosen a card, the cards not moved yet.
        self.pass_choosers: list[int] = []
        self.pass_placed: tuple[int, int] | None = None
        mine = next(p for p in players if p["seat"] == seat)
        sent = mine.get("pass_sent")
        received = mine.get("pass_received")
        if g.phase is PASS:
            g.passes = [None] * n
            if sent is not None:
                g.passes[seat] = parse_card(sent)
            self.pass_choosers = [s for s in range(n)
                                  if s != seat and s not in g.pass_pending]
            return
        if sent is None:
            return
        g.passes = [None] * n
        card = g.passes[seat] = parse_card(sent)
        if received is not None:
            g.passes[g.pass_giver(seat)] = parse_card(received)
        receiver = g.pass_receiver(seat)
        # Not seen since it was sent: in the receiver's hand, or face-down in its plot after a
        # swap (the hand is taken). A void of its suit shown since says it is not in the hand;
        # a card the receiver played now out of sight (in a stack) may be this one.
        if (card in self.unseen and self.hand_counts[receiver] > 0
                and SUIT_OF[card] not in self.voids[receiver]
                and not any(s == receiver and c is None for t, _ in self.tricks for s, c in t)):
            self.pass_placed = (receiver, card)

    def sample(self, rng: random.Random) -> G:
        """A whole game consistent with the view, the unseen cards dealt by ``rng``."""
        base = self.base
        g = type(base).__new__(type(base))
        base._copy_into(g)
        g.seed = f"determinized/{rng.getrandbits(64)}"
        seat = self.seat
        n = g.n
        rand = rng.random
        shuffled = self.unseen[:]
        _shuffle(shuffled, rand)
        stack_fills = self.stack_fills
        # Per seat, each stack's hidden cards (none to fill: the shared empty lists).
        stack_cards = (
            [[[] for _ in sh] for sh in self.stack_shapes] if stack_fills else self.no_stacks
        )
        for _ in range(_TRIES):
            unseen = shuffled
            if stack_fills:
                # Stacks first, highest top first: their hidden cards rank above the top card
                # (the lowest goes on top).
                for s, i, floor, k in stack_fills:
                    picked = [c for c in unseen if STACK_ORDER[c] > floor][:k]
                    taken = set(picked)
                    unseen = [c for c in unseen if c not in taken]
                    stack_cards[s][i] = picked
            deal = _deal(unseen, self.deal_counts, seat, self.voids)
            if deal is not None:
                break
            _shuffle(shuffled, rand)
        else:  # the voids are too tight for chance: deal without them (the view is kept)
            deal = _deal(unseen, self.deal_counts, seat, [set() for _ in range(n)])
            assert deal is not None
        hands, rest = deal
        if self.pass_placed is not None:
            receiver, card = self.pass_placed
            hands[receiver] = [*hands[receiver], card]
        stacked: list[int] = []
        for s in range(n):
            if s == seat:
                continue
            g.hands[s] = sorted(hands[s])
            mine = stack_cards[s]
            in_stacks = [c for st in mine for c in st]
            stacked.extend(in_stacks)
            k = self.hidden_slots[s] - len(in_stacks)
            g.plots[s] = g.plots[s] + rest[:k] + in_stacks
            del rest[:k]
            g.stacks[s] = [
                sorted([top, *st], key=STACK_ORDER.__getitem__)
                for (top, _), st in zip(self.stack_shapes[s], mine, strict=True)
            ]
        g.deck = rest
        if self.pass_choosers:
            passes = g.passes
            for s in self.pass_choosers:
                hand = g.hands[s]
                passes[s] = hand[int(rand() * len(hand))]
        # This year's tricks, their unknown places filled with the stacks' hidden cards.
        if stacked:
            _shuffle(stacked, rand)
        fill = iter(stacked) if self.fill_tricks else None
        tricks = []
        for cards, winner in self.tricks:
            tricks.append((_filled(cards, fill), winner))
        g.tricks = tricks
        if self.tricks and self.last_trick == self.tricks[-1][0]:
            g.last_trick = tricks[-1][0]
        else:
            g.last_trick = _filled(self.last_trick, None)
        for j in JOBS:
            pool = self.reward_pools[j]
            if pool:
                pile = pool[:]
                _shuffle(pile, rand)
                g.reward_piles[j] = pile[: self.reward_counts[j]]
        return g


def _filled(cards: list[tuple[int, int | None]], fill: Any) -> list[tuple[int, int]]:
    if fill is None:
        return [(s, c) for s, c in cards if c is not None]
    return [(s, next(fill) if c is None else c) for s, c in cards]


def determinize(cls: type[G], view: dict[str, Any], rng: random.Random) -> G:
    """See :meth:`engine.Game.determinize`."""
    return Determinizer(cls, view).sample(rng)


def _voids(view: dict[str, Any], n: int, rules: Rules) -> list[set[int]]:
    """Suits each seat is known to hold none of this year: it did not follow when the suit
    was led, or (``trump_lead_restricted``) it led trump before any trump was played this
    year, which it may only do holding nothing but trumps: every suit but trump then."""
    voids: list[set[int]] = [set() for _ in range(n)]
    tricks = [t["cards"] for t in view.get("tricks", ())] + [view["trick"]]
    trump = None if view["trump"] is None else "HDCS".index(view["trump"])
    # Whether a trump may have been played before the trick: a card out of sight may be one.
    restricted = rules.trump_lead_restricted and trump is not None
    for trick in tricks:
        if not trick:
            continue
        first = trick[0][1]
        if first is not None:
            led = SUIT_OF[parse_card(first)]
            for s, c in trick[1:]:
                if c is not None and SUIT_OF[parse_card(c)] != led:
                    voids[s].add(led)
            if restricted and led == trump:
                voids[trick[0][0]].update(j for j in JOBS if j != trump)
        if restricted and any(c is None or SUIT_OF[parse_card(c)] == trump for _, c in trick):
            restricted = False
    return voids


def _deal(
    unseen: list[int], counts: list[int], seat: int, voids: list[set[int]]
) -> tuple[dict[int, list[int]], list[int]] | None:
    """Fill the other hands from ``unseen`` (most constrained first), honouring voids; the
    rest in order. None when a hand cannot be filled."""
    pool = list(unseen)
    hands: dict[int, list[int]] = {}
    order = sorted((s for s in range(len(counts)) if s != seat), key=lambda s: -len(voids[s]))
    for s in order:
        need = counts[s]
        void = voids[s]
        picked = [c for c in pool if SUIT_OF[c] not in void][:need] if void else pool[:need]
        if len(picked) < need:
            return None
        taken = set(picked)
        pool = [c for c in pool if c not in taken]
        hands[s] = picked
    return hands, pool
