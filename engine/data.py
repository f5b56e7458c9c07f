"""The game's data and the questions it answers, below the transitions.

:class:`GameData` holds every field of a game in plain lists of card ids (see
:mod:`engine.cards`) and answers read-only questions (who acts, hours, scores). The modules
that work on a game — legality, requisition, views, codec — import this module only;
:class:`engine.state.Game` adds the transitions on top, so nothing imports ``state``
back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, overload

from engine.actions import Action
from engine.cards import CARDS, HOURS, JACKS, POINTS, worker_cards
from engine.phase import ASSIGN, OVER, PASS, PLAY, SWAP, TRUMP, Phase
from engine.rules import Rules

WORKERS: Final = tuple(worker_cards())


class MoveLog(Sequence[tuple[int, str]]):
    """The moves of a game in order, as ``(seat, action text)``: ``log[i]`` is move ``i`` of
    the whole game, ``len(log)`` counts every move, ``log[-1]`` is the latest.

    A snapshot does not carry the moves (the service keeps them in its actions table, and
    :meth:`engine.state.Game.replay` rebuilds a game from them), so a restored game knows only
    how many came before it: :attr:`start`. It keeps the moves played since
    (:attr:`kept`); asking for an earlier one raises :class:`LookupError`, and so does
    iterating such a log from its beginning. A live, read-only view of the game's log.
    """

    __slots__ = ("_kept", "start")

    def __init__(self, kept: list[tuple[int, str]], start: int = 0) -> None:
        self._kept = kept
        #: How many moves were played before the ones kept (0: the log is whole).
        self.start = start

    @property
    def kept(self) -> list[tuple[int, str]]:
        """The moves kept (from move :attr:`start` on), as a new list."""
        return self._kept[:]

    @property
    def whole(self) -> bool:
        return self.start == 0

    def __len__(self) -> int:
        return self.start + len(self._kept)

    @overload
    def __getitem__(self, index: int) -> tuple[int, str]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, str]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, str] | list[tuple[int, str]]:
        start = self.start
        if isinstance(index, slice):
            wanted = range(len(self))[index]
            if start and wanted and min(wanted) < start:
                raise self._missing(min(wanted))
            return [self._kept[i - start] for i in wanted]
        i = index + len(self) if index < 0 else index
        if 0 <= i < start:
            raise self._missing(i)
        if i < 0:
            raise IndexError("move log index out of range")
        return self._kept[i - start]

    def __iter__(self) -> Iterator[tuple[int, str]]:
        if self.start:
            raise self._missing(0)
        return iter(self._kept)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MoveLog):
            return self.start == other.start and self._kept == other._kept
        if isinstance(other, (list, tuple)):
            return self.start == 0 and self._kept == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"MoveLog({self._kept!r}, start={self.start})"

    def _missing(self, i: int) -> LookupError:
        return LookupError(
            f"move {i} was played before this game was restored from a snapshot "
            f"(moves {self.start} on are kept); replay the game from its whole log"
        )


class GameData:
    """The whole state of one game; see :class:`engine.state.Game` for how to drive it."""

    __slots__ = (
        "_legal",
        "_log",
        "_log_start",
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
        "medals",
        "n",
        "north",
        "pass_pending",
        "passes",
        "pending",
        "phase",
        "planner",
        "planner0",
        "plots",
        "reward_piles",
        "rewards",
        "rules",
        "seed",
        "short",
        "stacks",
        "swap_pending",
        "trick",
        "tricks",
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
    short: bool  # the last year's supply disruption (final_year_short)
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
    tricks: list[tuple[list[tuple[int, int]], int]]  # this year's finished tricks, winners
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
    #: ``pass_cards``: the seats yet to choose the card they pass (the pass phase).
    pass_pending: list[int]
    #: ``pass_cards``: the card each seat chose to pass this year (None: not yet), kept until
    #: the year ends once the cards moved; empty in a year without a pass.
    passes: list[int | None]
    ended_early: bool
    _log: list[tuple[int, str]]  # the moves since the start, or since the snapshot restored
    _log_start: int  # how many moves came before those in _log (see MoveLog)
    _legal: dict[int, list[Action]]

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
        self.short = False
        self.trump = None
        self.trump_played = False
        self.hands = [[] for _ in range(n)]
        self.plots = [[] for _ in range(n)]
        self.face_up = set()
        self.stacks = [[] for _ in range(n)]
        self.deck = list(WORKERS)
        self.north = []
        self.hours = [0, 0, 0, 0]
        self.completed_by = [None, None, None, None]
        self.workers = [[], [], [], []]
        self.rewards = [[], [], [], []]
        self.reward_piles = [[], [], [], []]
        self.discarded = []
        self.trick = []
        self.tricks = []
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
        self.pass_pending = []
        self.passes = []
        self.ended_early = False
        self._log = []
        self._log_start = 0
        self._legal = {}

    def _copy_into(self, g: GameData) -> None:
        """Copy every field into ``g`` (a fresh instance): lists are copied one level deeper
        than they nest mutable values, immutable values are shared. About 3 µs."""
        g.rules = self.rules
        g.n = self.n
        g.seed = self.seed
        g.planner0 = self.planner0
        g.year = self.year
        g.planner = self.planner
        g.phase = self.phase
        g.hand_size = self.hand_size
        g.lean = self.lean
        g.famine = self.famine
        g.short = self.short
        g.trump = self.trump
        g.trump_played = self.trump_played
        g.hands = [h[:] for h in self.hands]
        g.plots = [p[:] for p in self.plots]
        g.face_up = set(self.face_up)
        g.stacks = [[st[:] for st in s] for s in self.stacks]
        g.deck = self.deck[:]
        g.north = self.north[:]
        g.hours = self.hours[:]
        g.completed_by = self.completed_by[:]
        g.workers = [w[:] for w in self.workers]
        g.rewards = [r[:] for r in self.rewards]
        g.reward_piles = [p[:] for p in self.reward_piles]
        g.discarded = self.discarded[:]
        g.trick = self.trick[:]
        g.tricks = self.tricks[:]  # finished tricks are never changed again
        g.pending = self.pending[:]
        g.brigadier = self.brigadier
        g.last_trick = self.last_trick  # replaced, never changed in place
        g.last_trick_winner = self.last_trick_winner
        g.lead = self.lead
        g.turn = self.turn
        g.tricks_done = self.tricks_done
        g.medals = self.medals[:]
        g.brigadier_year = self.brigadier_year[:]
        g.completed_year = self.completed_year[:]
        g.swap_pending = self.swap_pending[:]
        g.pass_pending = self.pass_pending[:]
        g.passes = self.passes[:]
        g.ended_early = self.ended_early
        g._log = self._log[:]
        g._log_start = self._log_start
        g._legal = {}

    # ------------------------------------------------------------------ queries

    @property
    def log(self) -> MoveLog:
        """The moves played, ``(seat, action text)`` each; see :class:`MoveLog` for a game
        restored from a snapshot, which keeps only the moves since."""
        return MoveLog(self._log, self._log_start)

    @property
    def players(self) -> int:
        return self.n

    @property
    def is_over(self) -> bool:
        return self.phase is OVER

    @property
    def to_act(self) -> list[int]:
        """Seats that may act now: several in the pass and swap phases, none when the game is
        over."""
        phase = self.phase
        if phase is PLAY:
            return [self.turn]
        if phase is ASSIGN:
            return [self.brigadier] if self.brigadier is not None else []
        if phase is TRUMP:
            return [self.planner]
        if phase is SWAP:
            return list(self.swap_pending)
        if phase is PASS:
            return list(self.pass_pending)
        return []

    @property
    def pass_left(self) -> bool:
        """``pass_cards``: whether this year's cards go to the left neighbour (seat + 1, even
        years) rather than to the right one (seat - 1, odd years)."""
        return self.year % 2 == 0

    def pass_receiver(self, seat: int) -> int:
        """The seat ``seat``'s passed card goes to this year (see :attr:`pass_left`)."""
        return (seat + 1) % self.n if self.year % 2 == 0 else (seat - 1) % self.n

    def pass_giver(self, seat: int) -> int:
        """The seat whose passed card ``seat`` receives this year."""
        return (seat - 1) % self.n if self.year % 2 == 0 else (seat + 1) % self.n

    def pass_sent(self, seat: int) -> int | None:
        """The card ``seat`` chose to pass this year (None: none chosen, or no pass)."""
        passes = self.passes
        return passes[seat] if passes else None

    def pass_received(self, seat: int) -> int | None:
        """The card ``seat`` received this year, once the cards moved (else None)."""
        passes = self.passes
        if not passes or self.phase is PASS:
            return None
        return passes[self.pass_giver(seat)]

    @property
    def tricks_total(self) -> int:
        return max(self.hand_size - 1, 0)

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

    def points(self, seat: int, cards: list[int] | None = None) -> int:
        """Points of ``cards`` (default: the seat's whole plot) plus the seat's medals when
        they score (``medals_score``)."""
        total = sum([POINTS[c] for c in (self.plots[seat] if cards is None else cards)])
        return total + (self.medals[seat] if self.rules.medals_score else 0)

    def scores(self) -> list[int]:
        """Each seat's points: plot cards (workers 6-13, rewards 1-5), plus one per medal with
        ``medals_score``. Final once :attr:`is_over`; before that, the running total."""
        return [self.points(s) for s in range(self.n)]

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
