"""One write transaction on one running game: moves, automatic moves, clock, notifications.

:class:`GameTx` is what :class:`~kolkhoz_tg.service.kernel.Kernel` opens for ``act()``, a
timeout, ``start()`` and the like. It never commits: the service owns the transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

from engine import Action, Card, Game, Phase
from engine import events as ev
from engine.ai import default_action
from engine.cards import CARD_TEXT, SUITS
from engine.summary import ClosingTrick, closing_trick
from engine.views import View
from kolkhoz_tg.aiplay import (
    CHEAP_LEVELS,
    LEGACY_LEVEL,
    AIPolicy,
    decision_seed,
    think,
)
from kolkhoz_tg.service.common import seat_info
from kolkhoz_tg.service.deadlines import reminder_times
from kolkhoz_tg.service.payloads import (
    BoardChanged,
    CompletedJob,
    GameHeader,
    LoggedMove,
    NewHand,
    Payload,
    TableRow,
    YearSummary,
    YourTurn,
)
from kolkhoz_tg.service.payloads import GameOver as GameOverPayload
from kolkhoz_tg.service.premoves import QueueLog, forget_at_deal, play_queued
from kolkhoz_tg.service.records import PRACTICE_KEY, Kind
from kolkhoz_tg.storage.models import (
    ActionRow,
    Actor,
    ChatRow,
    GameRow,
    GameStatus,
    NotificationRow,
    SeatRow,
    UserRow,
)
from kolkhoz_tg.timeutil import QuietHours

#: More automatic moves than any game has: a guard against a bug looping forever.
_MAX_AUTO_MOVES = 5000
#: ``games.meta``: how many moves were taken back (:mod:`kolkhoz_tg.service.takeback`).
COUNT_KEY = "takebacks"


def log_offset(meta: dict[str, Any]) -> int:
    """How far the log's ``seq`` runs ahead of the engine's log: a move taken back and its
    take-back entry are two rows the engine's log does not hold."""
    count = meta.get(COUNT_KEY, 0)
    return 2 * count if isinstance(count, int) else 0


@dataclass(slots=True)
class Move:
    seat: int
    action: str
    actor: Actor
    events: list[ev.Event]

    def logged(self) -> LoggedMove:
        """The move as a notification carries it."""
        return LoggedMove(self.seat, self.action, self.actor, tuple(self.events))


def quiet_hours(user: UserRow | None) -> QuietHours | None:
    if user is None or not user.timezone or user.quiet_start is None or user.quiet_end is None:
        return None
    return QuietHours(user.timezone, user.quiet_start, user.quiet_end)


class Views:
    """A game's views and legal actions, each built once per state (a move must call
    :meth:`clear`)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._typed: dict[int | None, View] = {}
        self._views: dict[int | None, dict[str, Any]] = {}
        self._actions: dict[int, list[Action]] = {}
        self._legal: dict[int, list[str]] = {}
        #: What the transaction did with queued moves (kept across moves: not cleared).
        self.queue_log = QueueLog()

    def typed(self, seat: int | None, legal: bool = False) -> View:
        """The view for ``seat`` (None: the public one); ``legal``: with the seat's legal
        actions."""
        if seat not in self._typed:
            self._typed[seat] = View.of(self.game, seat, legal=False)
        view = self._typed[seat]
        if legal and seat is not None:
            return replace(view, legal=tuple(self.actions(seat)))
        return view

    def view(self, seat: int | None) -> dict[str, Any]:
        """The view for ``seat`` as JSON (a notification's)."""
        if seat not in self._views:
            self._views[seat] = self.typed(seat).to_dict()
        return self._views[seat]

    def actions(self, seat: int) -> list[Action]:
        """The seat's legal actions."""
        if seat not in self._actions:
            self._actions[seat] = list(self.game.legal_actions(seat))
        return self._actions[seat]

    def legal(self, seat: int) -> list[str]:
        """The seat's legal action texts."""
        if seat not in self._legal:
            self._legal[seat] = [a.text for a in self.actions(seat)]
        return self._legal[seat]

    def clear(self) -> None:
        self._typed.clear()
        self._views.clear()
        self._actions.clear()
        self._legal.clear()


@dataclass
class GameTx:
    """The state of one write transaction on a started game."""

    session: Session
    row: GameRow
    seats: dict[int, SeatRow]
    game: Game
    now: datetime
    base_version: int
    moves: list[Move] = field(default_factory=list)
    notes: list[NotificationRow] = field(default_factory=list)
    #: The moves' log rows, stored with the notifications when the transaction is finished
    #: (:meth:`~kolkhoz_tg.service.kernel.Kernel.store_log`).
    actions: list[ActionRow] = field(default_factory=list)
    #: (year, phase, to_act) before this transaction: who was already waiting.
    before_year: int = 0
    before_phase: Phase = Phase.TRUMP
    before_to_act: tuple[int, ...] = ()
    #: How bots play here (the service's :class:`~kolkhoz_tg.aiplay.AIPolicy`).
    bots: AIPolicy = field(default_factory=AIPolicy)
    #: The current state's views, built once for the notifications and the scene.
    views: Views = field(init=False)

    def __post_init__(self) -> None:
        self.views = Views(self.game)
        self.before_year = self.game.year
        self.before_phase = self.game.phase
        self.before_to_act = tuple(self.game.to_act)
        #: The last trick of the year this transaction closed, as its summary told it (the final
        #: result keeps where its cards went when that year ends the game).
        self.closing_trick: ClosingTrick | None = None

    # ------------------------------------------------------------------ moves

    @property
    def queue_log(self) -> QueueLog:
        """The queued moves this transaction played or dropped."""
        return self.views.queue_log

    def waits_for_human(self, seat: int) -> bool:
        row = self.seats[seat]
        return not row.is_bot and not row.standin

    def apply(self, seat: int, action: Action | str, actor: Actor, user_id: int | None) -> Move:
        """Play one move and log it; raises the engine's ActionError if it is not legal."""
        game = self.game
        completed_before = list(game.completed_by)
        # The card that closes a trick may close the year, and the trick's record goes with
        # the new deal: keep what everyone sees of it now (the engine's public view: the
        # trick on the table, the workers on the jobs) for the year's summary.
        closing = None
        if game.phase is Phase.ASSIGN and len(game.pending) == 1:
            closing = self.views.typed(None)
        events = game.apply(seat, action)
        self.views.clear()
        forget_at_deal(self, events)
        text = game.log[-1][1]
        assert self.row.id is not None
        self.actions.append(
            ActionRow(
                game_id=self.row.id,
                seq=len(game.log) - 1 + log_offset(self.row.meta),
                seat=seat,
                action=text,
                actor=actor.value,
                user_id=user_id,
                version=self.base_version,
                at=self.now,
            )
        )
        move = Move(seat, text, actor, events)
        self.moves.append(move)
        for e in events:
            if isinstance(e, ev.YearEnded):
                self._year_summary(e.year, completed_before, events, closing)
        return move

    def play_timeout(self, seat: int) -> list[Move]:
        """Play the engine's default move for a seat whose deadline passed: one move, or the
        whole rest of the trick's assignment for a Brigadier."""
        game = self.game
        phase = game.phase
        played: list[Move] = []
        while seat in game.to_act and game.phase is phase and not game.is_over:
            played.append(self.apply(seat, default_action(game, seat), Actor.TIMEOUT, None))
            if phase is not Phase.ASSIGN:
                break
        return played

    def run_automatic(self) -> None:
        """Let bots, stand-ins and forced moves play until a human must choose (or the end).

        A bot of a search level whose move is not forced waits for a worker when the policy
        defers search (:meth:`thinking_seats`); the others go on meanwhile (a swap)."""
        game = self.game
        for _ in range(_MAX_AUTO_MOVES):
            if game.is_over:
                return
            for seat in game.to_act:
                row = self.seats[seat]
                if row.is_bot or row.standin:
                    action = self._ai_action(seat)
                    if action is None:
                        continue  # a search bot: it thinks after the commit
                    self.play_for_ai(seat, action)
                    break
                if (row.premove or row.auto_assign) and play_queued(self, seat):
                    break
                forced = game.forced_action(seat)
                if forced is not None:
                    self.apply(seat, forced, Actor.FORCED, None)
                    break
            else:
                return
        raise RuntimeError(f"game {self.row.id}: automatic moves did not stop")

    def play_cheap(self, seat: int) -> list[Move]:
        """The heuristic's moves for a bot or stand-in seat for as long as it keeps deciding
        in this phase (a Brigadier places every card of the trick), logged as theirs."""
        game = self.game
        phase = game.phase
        played: list[Move] = []
        while seat in game.to_act and game.phase is phase and not game.is_over:
            played.append(self.play_for_ai(seat, default_action(game, seat)))
            if phase is not Phase.ASSIGN:
                break
        return played

    def play_for_ai(self, seat: int, action: Action | str) -> Move:
        """Play a bot seat's or a stand-in's move (logged as theirs)."""
        row = self.seats[seat]
        move = self.apply(seat, action, Actor.BOT if row.is_bot else Actor.STANDIN, None)
        if row.standin:
            row.auto_moves += 1
        return move

    def level_of(self, seat: int) -> str | None:
        """The level a bot plays ``seat`` at: a bot seat's own, a stand-in's the chat's (or
        the service's default); None for a player who plays for themselves."""
        row = self.seats[seat]
        if row.is_bot:
            return row.level or LEGACY_LEVEL
        if not row.standin:
            return None
        chat = self.session.get(ChatRow, self.row.chat_id)
        chosen = chat.settings.get("bot_level") if chat is not None else None
        return chosen if isinstance(chosen, str) else self.bots.default_level

    def _ai_action(self, seat: int) -> Action | str | None:
        """A bot's move played here and now: the heuristic (``normal``, exactly as bots
        played before levels), a forced move, a seeded random move, or a search when the
        policy lets it think in the transaction; None when a worker is to think (a search
        level under a deferring policy)."""
        level = self.level_of(seat) or LEGACY_LEVEL
        if level == "normal":
            return default_action(self.game, seat)
        forced = self.game.forced_action(seat)
        if forced is not None:
            return forced
        if level not in CHEAP_LEVELS and self.bots.defer:
            return None
        seed = decision_seed(self.row.id, len(self.game.log), seat)
        return think(level, seed, self.game.view(seat))

    def thinking_seats(self) -> list[int]:
        """The seats that wait for a worker to think (search bots whose move is not
        forced, under a deferring policy); empty when the game is not running."""
        game = self.game
        if (not self.bots.defer or game.is_over
                or self.row.status != GameStatus.ACTIVE.value):
            return []
        waiting = []
        for seat in game.to_act:
            row = self.seats[seat]
            if not (row.is_bot or row.standin) or game.forced_action(seat) is not None:
                continue
            if (self.level_of(seat) or LEGACY_LEVEL) not in CHEAP_LEVELS:
                waiting.append(seat)
        return waiting

    # ------------------------------------------------------------------ clock

    def set_clock(self, moved: bool) -> None:
        """New deadline and reminders after a change (the swap phase keeps its deadline)."""
        row, game, now = self.row, self.game, self.now
        if game.is_over or row.status != GameStatus.ACTIVE.value:
            self.clear_clock()
            return
        if row.meta.get(PRACTICE_KEY):
            # A practice game waits for its player as long as they like: no deadline, no
            # reminders, so no timeout and no stand-in. Search bots still wait for a worker.
            self.clear_clock()
            self.update_ai_due()
            return
        humans = [s for s in game.to_act if self.waits_for_human(s)]
        # A phase of independent decisions (the swap, the card to pass) keeps its one
        # deadline while the seats decide one by one.
        continuing_decisions = (
            game.phase in (Phase.SWAP, Phase.PASS)
            and self.before_phase is game.phase
            and self.before_year == game.year
        )
        keep = row.deadline is not None and (not moved or continuing_decisions)
        limit = timedelta(seconds=row.turn_timeout)
        if not keep:
            row.deadline = now + limit
            row.turn_started_at = now
        deadline = row.deadline
        assert deadline is not None
        for seat, seat_row in self.seats.items():
            if seat not in humans:
                seat_row.reminders = []
                seat_row.remind_at = None
            elif not (keep and seat in self.before_to_act):
                self._plan_reminders(seat_row, deadline, limit)
        self.update_due()

    def _plan_reminders(self, seat_row: SeatRow, deadline: datetime, limit: timedelta) -> None:
        user = self.session.get(UserRow, seat_row.user_id) if seat_row.user_id else None
        times = reminder_times(deadline, limit, self.row.reminders, self.now, quiet_hours(user))
        seat_row.reminders = [t.isoformat() for t in times]
        seat_row.remind_at = times[0] if times else None

    def update_due(self) -> None:
        row = self.row
        pending = [s.remind_at for s in self.seats.values() if s.remind_at is not None]
        row.next_reminder = min(pending) if pending else None
        if row.status != GameStatus.ACTIVE.value or row.deadline is None:
            row.next_due = None
        else:
            row.next_due = min([row.deadline, *pending])
        self.update_ai_due()

    def update_ai_due(self) -> None:
        """``bot_due``: since when the game waits for a search bot with no move made (a
        wait that outlasts a worker's thinking means the worker is gone), or None."""
        row = self.row
        if self.thinking_seats():
            if row.bot_due is None or self.moves:
                row.bot_due = self.now
        elif row.bot_due is not None:
            row.bot_due = None

    def clear_clock(self) -> None:
        row = self.row
        row.deadline = None
        row.next_reminder = None
        row.next_due = None
        row.turn_started_at = None
        row.bot_due = None
        for seat_row in self.seats.values():
            seat_row.reminders = []
            seat_row.remind_at = None

    # ------------------------------------------------------------------ notifications

    def notify(
        self,
        payload: Payload,
        user_id: int | None = None,
        seat: int | None = None,
        version: int | None = None,
    ) -> NotificationRow:
        """Write ``payload`` to the outbox (as JSON: the one place it is encoded)."""
        note = NotificationRow(
            game_id=self.row.id,
            chat_id=self.row.chat_id,
            user_id=user_id,
            seat=seat,
            kind=payload.kind.value,
            version=self.base_version + 1 if version is None else version,
            data=payload.to_json(),
            created_at=self.now,
        )
        self.notes.append(note)
        return note

    def game_header(self) -> GameHeader:
        """Names and seat flags for renderers (the :class:`GameInfo` essentials)."""
        row = self.row
        assert row.id is not None
        return GameHeader(
            id=row.id,
            chat_id=row.chat_id,
            status=GameStatus(row.status),
            preset=row.preset,
            players=row.players,
            version=self.base_version + 1,
            turn_timeout=row.turn_timeout,
            seats=tuple(seat_info(s) for s in sorted(self.seats.values(), key=lambda x: x.seat)),
        )

    def _year_summary(
        self, year: int, completed_before: list[int | None], events: list[ev.Event],
        closing: View | None = None,
    ) -> None:
        self.closing_trick = None if closing is None else closing_trick(closing, events)
        completed = [
            CompletedJob(SUITS[j], s) for j, s in enumerate(completed_before) if s is not None
        ]
        completed += [CompletedJob(e.job, e.seat) for e in events if isinstance(e, ev.JobCompleted)]
        # The year's end is everything from the cards going to the plots to YearEnded.
        first = next((i for i, e in enumerate(events) if isinstance(e, ev.CardsToPlot)), 0)
        last = next(i for i, e in enumerate(events) if isinstance(e, ev.YearEnded))
        self.notify(
            YearSummary(
                year=year,
                completed=tuple(completed),
                events=tuple(events[first : last + 1]),
                medals=tuple(self.game.medals),
                theme=self.game.rules.theme.value,
                game=self.game_header(),
                last_trick=self.closing_trick,
            )
        )

    def emit_play_notifications(self, announce: bool = False) -> None:
        """The board, "your turn" for whoever must now choose, at a deal the fresh hand
        of every other player (NEW_HAND), and the final table.

        ``announce``: tell every waiting player (start, resume), not only the new ones."""
        game = self.game
        if self.moves:
            self.notify(
                BoardChanged(
                    moves=tuple(m.logged() for m in self.moves),
                    view=self.views.typed(None),
                    game=self.game_header(),
                    deadline=self.row.deadline,
                )
            )
        if game.is_over:
            self._game_over()
            return
        if self.row.status != GameStatus.ACTIVE.value:
            return
        if not self.moves and not announce:
            return
        # Seats that moved face a new decision, also when the move was made for them (a
        # timeout, a forced move): their hand changed, e.g. a timed-out card won the trick
        # and its seat now leads the next one.
        movers = {m.seat for m in self.moves}
        told: set[int] = set()
        for seat in game.to_act:
            seat_row = self.seats[seat]
            if not self.waits_for_human(seat):
                continue
            if (
                not announce
                and seat in self.before_to_act
                and seat not in movers
                and game.phase is self.before_phase
                and game.year == self.before_year
            ):
                continue  # still waiting for the same decision (another seat swapped)
            self.notify(
                YourTurn(
                    view=self.views.typed(seat, legal=True),
                    legal=tuple(self.views.legal(seat)),
                    deadline=self.row.deadline,
                    game=self.game_header(),
                ),
                user_id=seat_row.user_id,
                seat=seat,
            )
            told.add(seat)
        if self._dealt():
            # Every other player sees their fresh hand too (one a bot stands in for as
            # well), and its message is in the outbox like a turn's: a passing failure to
            # send it is made good by the relay.
            for seat, seat_row in sorted(self.seats.items()):
                if seat not in told and seat_row.user_id is not None and not seat_row.is_bot:
                    self.notify(NewHand(game.year),
                                user_id=seat_row.user_id, seat=seat)

    def _dealt(self) -> bool:
        """Whether this transaction dealt new hands: the game started, or a year began."""
        return any(n.kind == Kind.GAME_STARTED.value for n in self.notes) or any(
            isinstance(e, ev.YearStarted) for m in self.moves for e in m.events)

    def _game_over(self) -> None:
        game, row = self.game, self.row
        scores = game.scores()
        winners = game.winners()
        plots = game.final_plots()
        order = sorted(range(game.n), key=lambda s: (-scores[s], s))
        table = []
        rank = 0
        last: int | None = None
        for i, s in enumerate(order):
            if scores[s] != last:
                rank, last = i + 1, scores[s]
            seat_row = self.seats[s]
            table.append(
                TableRow(
                    rank=rank,
                    seat=s,
                    name=seat_row.name,
                    user_id=seat_row.user_id,
                    is_ai=seat_row.is_bot,
                    score=scores[s],
                    plot=tuple(Card.parse(c) for c in plots[s]),
                    medals=game.medals[s],
                    auto_moves=seat_row.auto_moves,
                )
            )
        row.status = GameStatus.FINISHED.value
        row.finished_at = self.now
        # Scoring turned every plot face up: the final board may show them (the picture).
        row.result = {"scores": scores, "winners": winners, "early": game.ended_early,
                      "plots": plots}
        closing = self.closing_trick
        if closing is not None:
            # Where the cards of the last trick went: the jobs are cleared at the year's
            # end, and the final board still tells them.
            row.result["last_jobs"] = {
                CARD_TEXT[c.id]: j.letter for c, j in closing.where.items()}
        self.clear_clock()
        self.notify(GameOverPayload(tuple(table), tuple(winners), game.ended_early, game.year))

