"""The game state machine: deal, trump, pass, swap, tricks, assignment, requisition, scoring.

Rules references are to ``shared/spec/RULES.md``. Cards are ints here (see :mod:`engine.cards`);
the public surface (actions, events, views) uses :class:`~engine.cards.Card` and text. The
fields and read-only questions live in :class:`engine.data.GameData`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from math import floor
from typing import TYPE_CHECKING, Any, Final

from engine import events as ev
from engine.actions import Action, ActionKind, InvalidAction
from engine.cards import (
    ACE,
    CARDS,
    HOURS,
    JACKS,
    JOBS,
    STACK_ORDER,
    SUIT_OF,
    SUITS,
    Card,
    Suit,
    card_id,
    reward_cards,
)
from engine.data import WORKERS, GameData
from engine.legality import compute_legal, explain, forced_among
from engine.phase import ASSIGN, OVER, PASS, PLAY, SWAP, TRUMP
from engine.phase import Phase as Phase  # re-exported: tests import it from here
from engine.requisition import requisition
from engine.rules import FirstLead, Reward, Rules

if TYPE_CHECKING:
    from engine.actions import IllegalAction
    from engine.views import View

_ACE_OF_CLUBS: Final = card_id(ACE, Suit.C)
_WORKER_SET: Final = frozenset(WORKERS)
_REWARD_PILES: Final = tuple(tuple(reward_cards(s)) for s in SUITS)  # in id order
_PLAY: Final = ActionKind.PLAY
_ASSIGN: Final = ActionKind.ASSIGN
_TRUMP: Final = ActionKind.TRUMP
_PASS_KIND: Final = ActionKind.PASS
_STACK: Final = Reward.STACK
_BRIGADIER: Final = Reward.BRIGADIER
_BY_PLANNER: Final = FirstLead.PLANNER
# Events are built with ``tuple.__new__``: a named tuple's own ``__new__`` is a Python function
# that costs three times as much, on the path every card takes.
_tuple = tuple.__new__
#: Trick-winning keys by led suit and trump (None: no trump, or trump_wins off), by card:
#: 100 + id for a trump, the id for the led suit, -1 for any other card.
_WIN_KEY: Final[dict[int, dict[int | None, tuple[int, ...]]]] = {
    led: {
        trump: tuple(
            100 + c if SUIT_OF[c] == trump else c if SUIT_OF[c] == led else -1 for c in range(52)
        )
        for trump in (*JOBS, None)
    }
    for led in JOBS
}
#: Every possible CardPlayed, by seat and card: immutable, so one shared instance each.
_PLAYED: Final = tuple(tuple(ev.CardPlayed(s, CARDS[c]) for c in range(52)) for s in range(5))


def _shuffle(cards: list[int], rng: random.Random) -> None:
    """Fisher-Yates with ``rng.random()``: a little cheaper than ``Random.shuffle``."""
    rand = rng.random
    for i in range(len(cards) - 1, 0, -1):
        j = floor(rand() * (i + 1))  # int() of a non-negative float, a third cheaper
        cards[i], cards[j] = cards[j], cards[i]


def _year_rng(seed: int | str, label: str) -> random.Random:
    # A fresh generator per year (and one for set-up) derived from the game seed: the state
    # needs no generator of its own, so a JSON snapshot continues exactly like the original.
    return random.Random(f"kolkhoz/{seed}/{label}")


class Game(GameData):
    """One game of Kolkhoz for 3-5 seats (0..n-1, clockwise).

    Create with :meth:`new`, drive with :meth:`legal_actions` / :meth:`apply`, read with
    :meth:`view` (JSON data) or :meth:`typed_view`. Saved games are rules + seed + :attr:`log`
    (:meth:`replay`) or a JSON snapshot (:meth:`to_json` / :meth:`from_json`), which holds the
    state but not the moves: a restored game's :attr:`log` keeps only the moves played since.
    """

    __slots__ = ()

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
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise ValueError(f"seed must be an int or a string, not {seed!r}")
        g = cls.__new__(cls)
        g._init_empty(rules, players, seed)
        rng = _year_rng(seed, "setup")
        if rules.has_rewards:
            for s in SUITS:
                pile = list(_REWARD_PILES[s])
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

    @classmethod
    def determinize(cls, view: dict[str, Any], rng: random.Random) -> Game:
        """A whole game consistent with one seat's view, the unseen cards dealt by ``rng``.

        Everything the seat has seen stays as it is; the other hands, face-down plot cards,
        the deck and the reward piles are filled at random from the cards the seat cannot
        place, respecting what it knows (counts, the suits a player showed out of this year,
        and with ``trump_lead_restricted`` a trump led before any trump: the leader held
        only trumps; with ``pass_cards`` the card the seat passed, unseen since, is in its
        receiver's hand). The seed is fresh and the log empty. Raises :class:`ValueError` for
        a public view or a view that is not of this engine. See :mod:`engine.determinize`.
        """
        from engine.determinize import determinize

        return determinize(cls, view, rng)

    # ------------------------------------------------------------------ queries

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty if it may not act)."""
        # _legal_list written out: this runs before every move of a simulation.
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._legal[seat] = compute_legal(self, seat)
        return cached[:]

    def is_legal(self, seat: int, action: Action | str) -> bool:
        try:
            a = Action.parse(action)
        except InvalidAction:
            return False
        return a in self._legal_list(seat)

    def _legal_list(self, seat: int) -> list[Action]:
        cached = self._legal.get(seat)
        if cached is None:
            cached = self._legal[seat] = compute_legal(self, seat)
        return cached

    def why_illegal(self, seat: int, action: Action | str) -> IllegalAction | None:
        """None if ``seat`` may take ``action`` now, else the :class:`IllegalAction` that
        :meth:`apply` would raise (with a ``reason`` code). Raises :class:`InvalidAction` for
        malformed input."""
        a = Action.parse(action)
        if a in self._legal_list(seat):
            return None
        return explain(self, seat, a)

    def forced_action(self, seat: int) -> Action | None:
        """The move ``seat`` has no choice about, if any: its single legal action, or in the
        assignment phase a card of the trick that can go to one job only (the order of
        assignment changes nothing: jobs complete only after the last card). Front ends play
        it at once so nobody waits for a move without a choice."""
        return forced_among(self._legal_list(seat), self.phase is ASSIGN)

    # ------------------------------------------------------------------ applying actions

    def apply(self, seat: int, action: Action | str) -> list[ev.Event]:
        """Apply ``action`` for ``seat`` and return what happened as event records.

        Raises :class:`InvalidAction` (malformed) or :class:`IllegalAction` (not legal now);
        in both cases the game is left exactly as it was.
        """
        a = action if type(action) is Action else Action.parse(action)
        # The check and the dispatch are written out here and in apply_fast: a shared helper
        # would cost a call on every move.
        legal = self._legal.get(seat) if type(seat) is int else None
        if legal is None:
            legal = self._legal_list(seat) if type(seat) is int else []
        if a not in legal:
            raise explain(self, seat, a)
        self._legal = {}
        out: list[ev.Event] = []
        kind = a.kind
        if kind is _PLAY:
            self._play(seat, a.card_id, out)
        elif kind is _ASSIGN:
            self._assign(seat, a.card_id, a.suit_id, out)
        else:
            self._decide(seat, a, out)
        self._log.append((seat, a.text))
        return out

    def apply_fast(self, seat: int, action: Action) -> None:
        """:meth:`apply` for playouts: checked the same way, but keeps no log and returns no
        events (a search replays thousands of games it never shows)."""
        legal = self._legal.get(seat) if type(seat) is int else None
        if legal is None:
            legal = self._legal_list(seat) if type(seat) is int else []
        if action not in legal:
            raise explain(self, seat, action)
        self._legal = {}
        kind = action.kind
        if kind is _PLAY:  # no list of events (None) on the paths of nearly every move
            self._play(seat, action.card_id, None)
        elif kind is _ASSIGN:
            self._assign(seat, action.card_id, action.suit_id, None)
        else:
            self._decide(seat, action, [])

    def _decide(self, seat: int, a: Action, out: list[ev.Event]) -> None:
        if a.kind is _TRUMP:
            self.trump = a.suit_id
            out.append(_tuple(ev.TrumpDeclared, (seat, SUITS[a.suit_id])))
            self._after_trump(out)
        elif a.kind is _PASS_KIND:
            self._pass(seat, a.card_id, out)
        else:
            self._swap(seat, a, out)

    def trick_keys(self) -> tuple[int, ...]:
        """Every card's rank (by id) in the current trick, highest wins: see ``_WIN_KEY``
        (a trump only with ``trump_wins``; seed 000 has the led suit's highest always win)."""
        return _WIN_KEY[SUIT_OF[self.trick[0][1]]][self.trump if self.rules.trump_wins else None]

    def _play(self, seat: int, c: int, out: list[ev.Event] | None) -> None:
        self.hands[seat].remove(c)
        trick = self.trick
        trick.append((seat, c))
        if SUIT_OF[c] == self.trump:
            self.trump_played = True
        if out is not None:
            out.append(_PLAYED[seat][c])
        n = self.n
        if len(trick) < n:
            self.turn = (seat + 1) % n
            return
        key = self.trick_keys()
        winner = -1
        best = -2
        for s, x in trick:
            if key[x] > best:
                winner, best = s, key[x]
        self.brigadier = winner
        self.medals[winner] += 1
        self.brigadier_year[winner] = True
        self.pending = pending = [x for _, x in trick]
        self.phase = ASSIGN
        if out is not None:
            out.append(_tuple(ev.TrickWon, (winner, tuple([CARDS[x] for x in pending]))))

    def _assign(self, seat: int, c: int, job: int, out: list[ev.Event] | None) -> None:
        pending = self.pending
        pending.remove(c)
        self.workers[job].append(c)
        trump = self.trump
        hours = self.hours
        if trump is not None and c == JACKS[trump] and self.rules.nomenklatura:
            worked = hours[job]  # Пьяница: the trump Jack works no hours
        else:
            worked = hours[job] = hours[job] + HOURS[c]
        if out is not None:
            out.append(_tuple(ev.CardAssigned, (seat, CARDS[c], SUITS[job], worked)))
        if pending:
            return
        # The Brigadier placed the last card: jobs that reached the threshold complete now.
        threshold = self.rules.threshold
        if max(hours) >= threshold:  # most tricks complete nothing: skip the loop
            completed_by = self.completed_by
            for j in JOBS:
                if completed_by[j] is None and hours[j] >= threshold:
                    self._complete(j, seat, out)
        trick = self.trick
        self.tricks.append((trick, seat))
        self.last_trick = trick
        self.last_trick_winner = seat
        self.trick = []
        self.brigadier = None
        self.tricks_done = done = self.tricks_done + 1
        if done >= self.hand_size - 1:
            self._end_year(out)
        else:
            self.phase = PLAY
            self.lead = seat
            self.turn = seat

    def _complete(self, j: int, seat: int, out: list[ev.Event] | None) -> None:
        self.completed_by[j] = seat
        reward = self.rules.reward
        rewards: list[int] = []
        top: Card | None = None
        size = 0
        if reward is _BRIGADIER:
            rewards = self.rewards[j]
            self.rewards[j] = []
            self.plots[seat].extend(rewards)
            self.face_up.update(rewards)
        elif reward is _STACK:
            # Колхозик "Орден": the workers on the job become a stack in the Brigadier's plot,
            # lowest card face-up on top; equal ranks go by suit order ♥ ♦ ♣ ♠ (RULES.md,
            # "Points the seeds leave open").
            stack = sorted(self.workers[j], key=STACK_ORDER.__getitem__)
            self.workers[j] = []
            size = len(stack)
            if stack:
                top = CARDS[stack[0]]
                self.plots[seat].extend(stack)
                self.face_up.add(stack[0])
                self.stacks[seat].append(stack)
            self.completed_year[seat] = True
        if out is not None:
            taken = tuple([CARDS[x] for x in rewards])
            out.append(_tuple(ev.JobCompleted, (SUITS[j], seat, taken, top, size)))

    def _pass(self, seat: int, c: int, out: list[ev.Event]) -> None:
        # pass_cards: the choice stays face-down (in the hand) until every seat has chosen.
        self.pass_pending.remove(seat)
        passes = self.passes
        passes[seat] = c
        out.append(_tuple(ev.PassChosen, (seat,)))
        if self.pass_pending:
            return
        # Every chosen card moves at once: left (seat + 1) in even years, right in odd ones.
        hands = self.hands
        n = self.n
        left = self.year % 2 == 0
        step = 1 if left else n - 1
        sent = [x for x in passes if x is not None]  # one a seat: everyone has chosen
        for s in range(n):
            hands[s].remove(sent[s])
        for s in range(n):
            hand = hands[(s + step) % n]
            hand.append(sent[s])
            hand.sort()
        out.append(_tuple(ev.CardsPassed, (self.year, left)))
        self._after_pass(out)

    def _swap(self, seat: int, a: Action, out: list[ev.Event]) -> None:
        self.swap_pending.remove(seat)
        if a.target is None:
            out.append(_tuple(ev.SwapDecided, (seat, False)))
        else:
            h, p = a.card_id, a.target.id
            hand, plot = self.hands[seat], self.plots[seat]
            hand.remove(h)
            hand.append(p)
            hand.sort()
            plot[plot.index(p)] = h
            out.append(_tuple(ev.SwapDecided, (seat, True)))
        if not self.swap_pending:
            self._start_tricks()

    # ------------------------------------------------------------------ the year's frame

    def _available_workers(self, with_north: bool = False) -> list[int]:
        # WORKERS is in id order, so sorting the set difference gives the same list.
        if with_north:
            return sorted(_WORKER_SET.difference(*self.plots))
        return sorted(_WORKER_SET.difference(self.north, *self.plots))

    def _start_year(self, out: list[ev.Event] | None) -> None:
        rules = self.rules
        if self.year >= rules.years:
            self.deck = self._available_workers()
            self._end_game(out, early=False)
            return
        # Колхозик "Орден": cards sent north come back at the start of the next year.
        returning = rules.reward is _STACK
        available = self._available_workers(with_north=returning)
        n = self.n
        if len(available) // n < 2:
            # The plan ends early; the view still lists last year's cards sent north.
            self.deck = self._available_workers()
            self._end_game(out, early=True)
            return
        if returning:
            self.north = []
        self.year += 1
        revealed: list[int] = []
        rewards = self.rewards
        for j, pile in enumerate(self.reward_piles):
            if pile:
                card = pile.pop()
                rewards[j].append(card)
                revealed.append(card)
        year = self.year
        # seed 001: the Ace of Clubs turned up makes a famine year (Год неурожая).
        famine = rules.famine and _ACE_OF_CLUBS in revealed
        # seed 000: the plan's last year is a supply disruption (Перебои со снабжением).
        short = rules.final_year_short and year == rules.years
        hand_size = min(4 if famine or short else 5, len(available) // n)
        self.famine = famine
        self.short = short
        self.hand_size = hand_size
        self.lean = lean = hand_size < 5
        _shuffle(available, _year_rng(self.seed, f"year{year}"))
        hands = self.hands
        planner = self.planner
        for s in range(n):
            hand = available[s * hand_size : (s + 1) * hand_size]
            hand.sort()
            hands[(planner + 1 + s) % n] = hand
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
        self.tricks = []
        self.pending = []
        self.last_trick = []
        self.last_trick_winner = None
        self.brigadier = None
        self.pass_pending = []
        self.passes = []
        self._legal = {}
        self._set_first_lead()
        if out is not None:
            shown = tuple([CARDS[c] for c in revealed])
            out.append(_tuple(ev.YearStarted, (year, planner, hand_size, lean, famine, shown,
                                               short)))
        if lean:
            self._after_trump(out)  # a lean year has no trump
        else:
            self.phase = TRUMP

    def _after_trump(self, out: list[ev.Event] | None) -> None:
        if self.rules.pass_cards and self.year >= 2:
            # pass_cards (house rule): every player chooses a card, face-down, in any order.
            self.phase = PASS
            self.pass_pending = list(range(self.n))
            self.passes = [None] * self.n
        else:
            self._after_pass(out)

    def _after_pass(self, out: list[ev.Event] | None) -> None:
        if self.rules.swap and self.year >= 2:
            # "Поменять шило на мыло": everyone decides, independently and in any order.
            self.phase = SWAP
            self.swap_pending = list(range(self.n))
        else:
            self._start_tricks()

    def _set_first_lead(self) -> None:
        if self.rules.first_lead is _BY_PLANNER:
            self.lead = self.planner  # seed 001
        else:
            self.lead = (self.planner + 1) % self.n  # seeds 000/002
        self.turn = self.lead

    def _start_tricks(self) -> None:
        self._set_first_lead()
        self.phase = PLAY

    def _end_year(self, out: list[ev.Event] | None) -> None:
        n = self.n
        hands = self.hands
        plots = self.plots
        for s in range(n):
            plots[s].extend(hands[s])  # the last card goes face-down into the plot
            hands[s] = []
        year = self.year
        if out is not None:
            out.append(_tuple(ev.CardsToPlot, (year,)))
        requisition(self, out)
        stacks = self.stacks
        if any(stacks):
            face_up = self.face_up
            for s in range(n):
                back = 0
                plot = plots[s]
                for stack in stacks[s]:
                    # Every stack returns to the deck except its top card (if still here).
                    for c in stack[1:]:
                        if c in face_up:
                            face_up.discard(c)
                        if c in plot:
                            plot.remove(c)
                            back += 1
                if back and out is not None:
                    out.append(_tuple(ev.StacksReturned, (s, back)))
                stacks[s] = []
        if not self.rules.accumulate_rewards:
            discarded = self.discarded
            rewards = self.rewards
            for j in JOBS:
                discarded.extend(rewards[j])
                rewards[j] = []
        self.workers = [[], [], [], []]
        self.trump = None
        self.deck = []  # dealt anew from every worker not in a plot or up north
        if out is not None:
            out.append(_tuple(ev.YearEnded, (year,)))
        self.planner = (self.planner + 1) % n
        self._start_year(out)

    def _end_game(self, out: list[ev.Event] | None, early: bool) -> None:
        self.phase = OVER
        self.ended_early = early
        self.trick = []
        self.brigadier = None
        self.swap_pending = []
        self.pass_pending = []
        self.passes = []
        self.trump = None
        self._legal = {}
        if out is not None:  # (the phase is OVER now: winners() names them)
            out.append(_tuple(ev.GameOver, (tuple(self.scores()), tuple(self.winners()), early)))

    # ------------------------------------------------------------------ views and codec

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None: the public view for the group board), as JSON data."""
        from engine.views import View

        return View.of(self, seat, legal=False).to_dict()

    def typed_view(self, seat: int | None) -> View:
        """The same view as :meth:`view`, as a frozen :class:`engine.views.View` whose
        records answer the front ends' questions (hours a card would give, points in
        sight, actions by card); ``typed_view(s).to_dict() == view(s)``."""
        from engine.views import View

        return View.of(self, seat)

    def to_json(self) -> dict[str, Any]:
        """A versioned JSON-ready snapshot of the state; :meth:`from_json` restores it
        exactly. It counts the moves played but does not list them (see :mod:`engine.codec`)."""
        from engine.codec import game_to_json

        return game_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Game:
        """Restore a snapshot made by :meth:`to_json`; raises :class:`ValueError` if it is not
        one (or of an unknown format version)."""
        from engine.codec import game_from_json

        g = cls.__new__(cls)
        game_from_json(g, data)
        return g

    def copy(self) -> Game:
        """An independent copy (no JSON round trip; about 3 µs)."""
        g = Game.__new__(Game)
        self._copy_into(g)
        return g

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
