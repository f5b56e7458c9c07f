"""The game state machine: deal, trump, swap, tricks, assignment, requisition, scoring.

Rules references are to ``shared/spec/RULES.md``. Cards are ints here (see :mod:`engine.cards`);
the public surface (actions, events, views) uses :class:`~engine.cards.Card` and text.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from engine import events as ev
from engine.actions import (
    _BY_CODE,
    SWAP_PASS_CODE,
    Action,
    ActionKind,
    IllegalAction,
    InvalidAction,
)
from engine.cards import (
    ACE,
    CARDS,
    HOURS,
    JACKS,
    JOBS,
    SUIT_OF,
    SUITS,
    Suit,
    card_id,
    reward_cards,
    worker_cards,
)
from engine.legality import compute_legal, explain
from engine.phase import ASSIGN, OVER, PLAY, SWAP, TRUMP, Phase
from engine.requisition import requisition
from engine.rules import FirstLead, Reward, Rules

_WORKERS = tuple(worker_cards())
_ACE_OF_CLUBS = card_id(ACE, Suit.C)


def _shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates with ``rng.random()``: a little cheaper than ``Random.shuffle``."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _year_rng(seed: int | str, label: str) -> random.Random:
    # A fresh generator per year (and one for set-up) derived from the game seed: the state
    # needs no generator of its own, so a JSON snapshot continues exactly like the original.
    return random.Random(f"kolkhoz/{seed}/{label}")


class Game:
    """One game of Kolkhoz for 3-5 seats (0..n-1, clockwise).

    Create with :meth:`new`, drive with :meth:`legal_actions` / :meth:`apply`, read with
    :meth:`view`. Saved games are rules + seed + :attr:`log` (:meth:`replay`) or a JSON
    snapshot (:meth:`to_json` / :meth:`from_json`).
    """

    __slots__ = (
        "_legal",
        "brigadier",
        "brigadier_year",
        "completed_by",
        "completed_year",
        "deck",
        "discarded",
        "ended_early",
        "face_up",
        "famine",
        "hand_size",
        "hands",
        "hours",
        "last_trick",
        "last_trick_winner",
        "lead",
        "lean",
        "log",
        "medals",
        "n",
        "north",
        "pending",
        "phase",
        "planner",
        "planner0",
        "plots",
        "reward_piles",
        "rewards",
        "rules",
        "seed",
        "stacks",
        "swap_pending",
        "trick",
        "tricks_done",
        "trump",
        "trump_played",
        "turn",
        "workers",
        "year",
    )

    rules: Rules
    n: int
    seed: int | str
    planner0: int
    year: int
    planner: int
    phase: Phase
    hand_size: int
    lean: bool
    famine: bool
    trump: int | None
    trump_played: bool
    hands: list[list[int]]
    plots: list[list[int]]
    face_up: set[int]
    stacks: list[list[list[int]]]
    deck: list[int]
    north: list[int]
    hours: list[int]
    completed_by: list[int | None]
    workers: list[list[int]]
    rewards: list[list[int]]
    reward_piles: list[list[int]]
    discarded: list[int]
    trick: list[tuple[int, int]]
    pending: list[int]
    brigadier: int | None
    last_trick: list[tuple[int, int]]
    last_trick_winner: int | None
    lead: int
    turn: int
    tricks_done: int
    medals: list[int]
    brigadier_year: list[bool]
    completed_year: list[bool]
    swap_pending: list[int]
    ended_early: bool
    log: list[tuple[int, str]]
    _legal: dict[int, list[int]]

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        rules: Rules,
        players: int = 4,
        seed: int | str = 0,
        planner: int | None = None,
    ) -> Game:
        """Start a game: reward piles shuffled, first Planner from the seed unless given, year 1
        dealt. Raises :class:`ValueError` for a player count outside 3-5 or a bad planner."""
        if not isinstance(rules, Rules):
            raise TypeError("rules must be an engine.Rules")
        if not isinstance(players, int) or not 3 <= players <= 5:
            raise ValueError(f"Kolkhoz is played by 3 to 5 players, not {players!r}")
        if not isinstance(seed, int | str) or isinstance(seed, bool):
            raise ValueError(f"seed must be an int or a string, not {seed!r}")
        g = cls.__new__(cls)
        g._init_empty(rules, players, seed)
        rng = _year_rng(seed, "setup")
        if rules.has_rewards:
            for s in SUITS:
                pile = reward_cards(s)
                rng.shuffle(pile)
                g.reward_piles[s] = pile
        if planner is None:
            planner = rng.randrange(players)
        elif not isinstance(planner, int) or not 0 <= planner < players:
            raise ValueError(f"planner must be a seat from 0 to {players - 1}, not {planner!r}")
        g.planner0 = planner
        g.planner = planner
        g._start_year([])
        return g

    def _init_empty(self, rules: Rules, players: int, seed: int | str) -> None:
        n = players
        self.rules = rules
        self.n = n
        self.seed = seed
        self.planner0 = 0
        self.year = 0
        self.planner = 0
        self.phase = Phase.TRUMP
        self.hand_size = 0
        self.lean = False
        self.famine = False
        self.trump = None
        self.trump_played = False
        self.hands = [[] for _ in range(n)]
        self.plots = [[] for _ in range(n)]
        self.face_up = set()
        self.stacks = [[] for _ in range(n)]
        self.deck = list(_WORKERS)
        self.north = []
        self.hours = [0, 0, 0, 0]
        self.completed_by = [None, None, None, None]
        self.workers = [[], [], [], []]
        self.rewards = [[], [], [], []]
        self.reward_piles = [[], [], [], []]
        self.discarded = []
        self.trick = []
        self.pending = []
        self.brigadier = None
        self.last_trick = []
        self.last_trick_winner = None
        self.lead = 0
        self.turn = 0
        self.tricks_done = 0
        self.medals = [0] * n
        self.brigadier_year = [False] * n
        self.completed_year = [False] * n
        self.swap_pending = []
        self.ended_early = False
        self.log = []
        self._legal = {}

    @classmethod
    def replay(
        cls,
        rules: Rules,
        players: int,
        seed: int | str,
        log: Iterable[tuple[int, str] | Sequence[Any]],
        planner: int | None = None,
    ) -> Game:
        """Rebuild a game from its seed and action log; raises :class:`ActionError` if the log
        does not fit the rules."""
        g = cls.new(rules, players, seed, planner)
        for seat, text in log:
            g.apply(int(seat), str(text))
        return g

    # ------------------------------------------------------------------ queries

    @property
    def players(self) -> int:
        return self.n

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    @property
    def to_act(self) -> list[int]:
        """Seats that may act now: several in the swap phase, none when the game is over."""
        phase = self.phase
        if phase is PLAY:
            return [self.turn]
        if phase is ASSIGN:
            return [self.brigadier] if self.brigadier is not None else []
        if phase is TRUMP:
            return [self.planner]
        if phase is SWAP:
            return list(self.swap_pending)
        return []

    @property
    def tricks_total(self) -> int:
        return max(self.hand_size - 1, 0)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty if it may not act)."""
        return [_BY_CODE[c] for c in self._legal_codes(seat)]

    def is_legal(self, seat: int, action: Action | str) -> bool:
        try:
            a = Action.parse(action)
        except InvalidAction:
            return False
        return a.code in self._legal_codes(seat)

    def _legal_codes(self, seat: int) -> list[int]:
        cached = self._legal.get(seat)
        if cached is None:
            cached = compute_legal(self, seat)
            self._legal[seat] = cached
        return cached

    def hidden_plot(self, seat: int) -> list[int]:
        """The seat's face-down plot cards."""
        up = self.face_up
        return [c for c in self.plots[seat] if c not in up]

    def hours_of(self, c: int) -> int:
        """Work hours a card adds now: face value, J 11, Q 12, K 13; the trump Jack 0 with
        ``nomenklatura`` (Пьяница)."""
        trump = self.trump
        if trump is not None and c == JACKS[trump] and self.rules.nomenklatura:
            return 0
        return HOURS[c]

    def why_illegal(self, seat: int, action: Action | str) -> IllegalAction | None:
        """None if ``seat`` may take ``action`` now, else the :class:`IllegalAction` that
        :meth:`apply` would raise (with a ``reason`` code). Raises :class:`InvalidAction` for
        malformed input."""
        a = Action.parse(action)
        if a.code in self._legal_codes(seat):
            return None
        return explain(self, seat, a)

    # ------------------------------------------------------------------ applying actions

    def apply(self, seat: int, action: Action | str) -> list[ev.Event]:
        """Apply ``action`` for ``seat`` and return what happened as event records.

        Raises :class:`InvalidAction` (malformed) or :class:`IllegalAction` (not legal now);
        in both cases the game is left exactly as it was.
        """
        a = action if type(action) is Action else Action.parse(action)
        if type(seat) is not int:
            raise explain(self, seat, a)
        codes = self._legal.get(seat)
        if codes is None:
            codes = self._legal_codes(seat)
        if a.code not in codes:
            raise explain(self, seat, a)
        self._legal = {}
        out: list[ev.Event] = []
        kind = a.kind
        if kind is ActionKind.PLAY:
            self._play(seat, a.card_id, out)
        elif kind is ActionKind.ASSIGN:
            self._assign(seat, a.card_id, a.suit_id, out)
        elif kind is ActionKind.TRUMP:
            assert a.suit is not None
            self.trump = a.suit_id
            out.append(ev.TrumpDeclared(seat, a.suit))
            self._after_trump(out)
        else:
            self._swap(seat, a, out)
        self.log.append((seat, a.text))
        return out

    def _play(self, seat: int, c: int, out: list[ev.Event]) -> None:
        self.hands[seat].remove(c)
        trick = self.trick
        trick.append((seat, c))
        if SUIT_OF[c] == self.trump:
            self.trump_played = True
        out.append(ev.CardPlayed(seat, CARDS[c]))
        n = self.n
        if len(trick) < n:
            self.turn = (seat + 1) % n
            return
        winner = self._trick_winner()
        self.brigadier = winner
        self.medals[winner] += 1
        self.brigadier_year[winner] = True
        self.pending = [x for _, x in trick]
        self.phase = ASSIGN
        out.append(ev.TrickWon(winner, tuple(CARDS[x] for _, x in trick)))

    def _trick_winner(self) -> int:
        trick = self.trick
        trump = self.trump
        best_seat, best = trick[0]
        best_trump = SUIT_OF[best] == trump
        led = SUIT_OF[best]
        for s, c in trick[1:]:
            suit = SUIT_OF[c]
            if suit == trump:
                if not best_trump or c > best:
                    best_seat, best, best_trump = s, c, True
            elif not best_trump and suit == led and c > best:
                best_seat, best = s, c
        return best_seat

    def _assign(self, seat: int, c: int, job: int, out: list[ev.Event]) -> None:
        pending = self.pending
        pending.remove(c)
        self.workers[job].append(c)
        hours = HOURS[c]
        trump = self.trump
        if trump is not None and c == JACKS[trump] and self.rules.nomenklatura:
            hours = 0  # Пьяница: the trump Jack works no hours
        self.hours[job] += hours
        out.append(ev.CardAssigned(seat, CARDS[c], SUITS[job], self.hours[job]))
        if pending:
            return
        # The Brigadier placed the last card: jobs that reached the threshold complete now.
        threshold = self.rules.threshold
        for j in JOBS:
            if self.completed_by[j] is None and self.hours[j] >= threshold:
                self._complete(j, seat, out)
        self.last_trick = self.trick
        self.last_trick_winner = seat
        self.trick = []
        self.brigadier = None
        self.tricks_done += 1
        if self.tricks_done >= self.hand_size - 1:
            self._end_year(out)
        else:
            self.phase = Phase.PLAY
            self.lead = seat
            self.turn = seat

    def _complete(self, j: int, seat: int, out: list[ev.Event]) -> None:
        self.completed_by[j] = seat
        reward = self.rules.reward
        rewards: tuple[int, ...] = ()
        top: int | None = None
        size = 0
        if reward is Reward.BRIGADIER:
            rewards = tuple(self.rewards[j])
            self.rewards[j] = []
            self.plots[seat].extend(rewards)
            self.face_up.update(rewards)
        elif reward is Reward.STACK:
            # Колхозик "Орден": the workers on the job become a stack in the Brigadier's plot,
            # lowest card face-up on top.
            # "Lowest" by rank (6 < ... < K); equal ranks by suit order ♥ ♦ ♣ ♠.
            stack = sorted(self.workers[j], key=lambda c: (c % 13, c // 13))
            self.workers[j] = []
            size = len(stack)
            if stack:
                top = stack[0]
                self.plots[seat].extend(stack)
                self.face_up.add(top)
                self.stacks[seat].append(stack)
            self.completed_year[seat] = True
        out.append(
            ev.JobCompleted(
                SUITS[j],
                seat,
                tuple(CARDS[x] for x in rewards),
                None if top is None else CARDS[top],
                size,
            )
        )

    def _swap(self, seat: int, a: Action, out: list[ev.Event]) -> None:
        self.swap_pending.remove(seat)
        if a.code == SWAP_PASS_CODE:
            out.append(ev.SwapDecided(seat, False))
        else:
            assert a.card is not None and a.target is not None
            h, p = a.card.id, a.target.id
            hand, plot = self.hands[seat], self.plots[seat]
            hand.remove(h)
            hand.append(p)
            hand.sort()
            plot[plot.index(p)] = h
            out.append(ev.SwapDecided(seat, True))
        if not self.swap_pending:
            self._start_tricks()

    # ------------------------------------------------------------------ the year's frame

    def _available_workers(self) -> list[int]:
        taken = set(self.north)
        for plot in self.plots:
            taken.update(plot)
        return [c for c in _WORKERS if c not in taken]

    def _start_year(self, out: list[ev.Event]) -> None:
        rules = self.rules
        if self.year >= rules.years:
            self.deck = self._available_workers()
            self._end_game(out, early=False)
            return
        if rules.reward is Reward.STACK and self.north:
            # Колхозик "Орден": cards sent north come back at the start of the next year.
            self.north = []
        available = self._available_workers()
        n = self.n
        if len(available) // n < 2:
            self.deck = available
            self._end_game(out, early=True)
            return
        self.year += 1
        revealed: list[int] = []
        for j in JOBS:
            pile = self.reward_piles[j]
            if pile:
                card = pile.pop()
                self.rewards[j].append(card)
                revealed.append(card)
        # seed 001: the Ace of Clubs turned up makes a famine year (Год неурожая).
        famine = rules.famine and _ACE_OF_CLUBS in revealed
        hand_size = min(4 if famine else 5, len(available) // n)
        self.famine = famine
        self.hand_size = hand_size
        self.lean = hand_size < 5
        _shuffle(available, _year_rng(self.seed, f"year{self.year}"))
        for s in range(n):
            seat = (self.planner + 1 + s) % n
            hand = available[s * hand_size : (s + 1) * hand_size]
            hand.sort()
            self.hands[seat] = hand
        self.deck = available[n * hand_size :]
        self.trump = None
        self.trump_played = False
        self.tricks_done = 0
        self.hours = [0, 0, 0, 0]
        self.completed_by = [None, None, None, None]
        self.workers = [[], [], [], []]
        self.brigadier_year = [False] * n
        self.completed_year = [False] * n
        self.stacks = [[] for _ in range(n)]
        self.trick = []
        self.pending = []
        self.last_trick = []
        self.last_trick_winner = None
        self.brigadier = None
        self._legal = {}
        self._set_first_lead()
        out.append(
            ev.YearStarted(
                self.year, self.planner, hand_size, self.lean, famine,
                tuple(CARDS[c] for c in revealed),
            )
        )
        if self.lean:
            self._after_trump(out)  # a lean year has no trump
        else:
            self.phase = Phase.TRUMP

    def _after_trump(self, out: list[ev.Event]) -> None:
        if self.rules.swap and self.year >= 2:
            # "Поменять шило на мыло": everyone decides, independently and in any order.
            self.phase = Phase.SWAP
            self.swap_pending = list(range(self.n))
        else:
            self._start_tricks()

    def _set_first_lead(self) -> None:
        if self.rules.first_lead is FirstLead.PLANNER:
            self.lead = self.planner  # seed 001
        else:
            self.lead = (self.planner + 1) % self.n  # seeds 000/002
        self.turn = self.lead

    def _start_tricks(self) -> None:
        self._set_first_lead()
        self.phase = Phase.PLAY

    def _end_year(self, out: list[ev.Event]) -> None:
        n = self.n
        for s in range(n):
            self.plots[s].extend(self.hands[s])  # the last card goes face-down into the plot
            self.hands[s] = []
        out.append(ev.CardsToPlot(self.year))
        requisition(self, out)
        face_up = self.face_up
        for s in range(n):
            back = 0
            plot = self.plots[s]
            for stack in self.stacks[s]:
                # Every stack returns to the deck except its top card (if it is still here).
                for c in stack[1:]:
                    if c in face_up:
                        face_up.discard(c)
                    if c in plot:
                        plot.remove(c)
                        back += 1
            if back:
                out.append(ev.StacksReturned(s, back))
            self.stacks[s] = []
        if not self.rules.accumulate_rewards:
            for j in JOBS:
                self.discarded.extend(self.rewards[j])
                self.rewards[j] = []
        self.workers = [[], [], [], []]
        self.trump = None
        self.deck = []  # dealt anew from every worker not in a plot or up north
        out.append(ev.YearEnded(self.year))
        self.planner = (self.planner + 1) % n
        self._start_year(out)

    def _end_game(self, out: list[ev.Event], early: bool) -> None:
        self.phase = OVER
        self.ended_early = early
        self.trick = []
        self.brigadier = None
        self.swap_pending = []
        self.trump = None
        self._legal = {}
        scores = self.scores()
        out.append(ev.GameOver(tuple(scores), tuple(self.winners()), early))

    # ------------------------------------------------------------------ scoring

    def scores(self) -> list[int]:
        """Each seat's points: plot cards (workers 6-13, rewards 1-5), plus one per medal with
        ``medals_score``. Final once :attr:`is_over`; before that, the running total."""
        medals = self.rules.medals_score
        return [
            sum(c % 13 + 1 for c in plot) + (self.medals[s] if medals else 0)
            for s, plot in enumerate(self.plots)
        ]

    def winners(self) -> list[int]:
        """The seats sharing the highest score once the game is over; empty before."""
        if not self.is_over:
            return []
        scores = self.scores()
        best = max(scores)
        return [s for s, v in enumerate(scores) if v == best]

    def final_plots(self) -> list[list[str]]:
        """Every seat's whole plot; only once the game is over (scoring reveals them).

        Raises :class:`RuntimeError` before the end, so a front end cannot leak a plot early.
        """
        if not self.is_over:
            raise RuntimeError("plots are revealed only when the game is over")
        return [[str(CARDS[c]) for c in plot] for plot in self.plots]

    # ------------------------------------------------------------------ views and codec

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None: the public view for the group board), as JSON data."""
        from engine.views import build_view

        return build_view(self, seat)

    def to_json(self) -> dict[str, Any]:
        """A versioned JSON-ready snapshot; :meth:`from_json` restores it exactly."""
        from engine.codec import game_to_json

        return game_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Restore a snapshot made by :meth:`to_json`; raises :class:`ValueError` if it is not
        one (or of an unknown format version)."""
        from engine.codec import game_from_json

        return game_from_json(data)

    def copy(self) -> Game:
        return Game.from_json(self.to_json())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self.n}p year {self.year}/{self.rules.years} {self.phase.value} "
            f"to_act={self.to_act}>"
        )
