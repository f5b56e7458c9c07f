"""The play-by-post service: lobby, ``act()``, the clock, stand-ins and the outbox.

Every method takes plain values and returns typed records (:mod:`~.records`), each in one
transaction; synchronous: an asyncio front end calls it through ``asyncio.to_thread``.

:class:`GameService` is a facade: each of its methods is one part's own method, bound in
``__init__`` (so its signature, types and docstring are the part's). A part is a plain class
over the one :class:`~kolkhoz_tg.service.kernel.Kernel` (row loading and locking, the write
transaction, the outbox write, record conversion):

======================= ============================================================
part (module)           what it does
======================= ============================================================
``people`` (people)     users and chats: names, languages, quiet hours, chat defaults
``lobby`` (lobby)       create a game, seats, rules and clock settings, start, abort
``play`` (play)         ``act()``, back, stand-in, away, pause, resume, move a game
``timekeeping`` (clock) reminders and timeouts due, the sweep, the scheduler's jobs
``reading`` (reading)   game headers, views, the log, replay, history, figures
``outbox`` (outbox)     claim, hold and settle notifications; the scene of a game
``computer_players``    levels, search bots thought about by a worker (bots)
``ratings``             the ratings table (rating_store)
``practice`` (practice) practice games and hints
``takebacks``           a card taken back (takeback)
``faults`` (faults)     no penalty for our own faults: late turns, downtime
``premoves`` (queueing) moves queued ahead, a Brigadier's tricks assigned for them
``meta_claims``         a front end's meta value made once: claimed, filled (meta_claims)
======================= ============================================================
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from kolkhoz_tg.aiplay import AIPolicy
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service.ai_seats import ComputerPlayers
from kolkhoz_tg.service.clock import ClockService
from kolkhoz_tg.service.common import ChatInfo, UserInfo
from kolkhoz_tg.service.faults import FaultService
from kolkhoz_tg.service.kernel import Kernel, ScheduleListener
from kolkhoz_tg.service.lobby import LobbyService
from kolkhoz_tg.service.meta_claims import MetaClaims
from kolkhoz_tg.service.outbox import OutboxService
from kolkhoz_tg.service.people import PeopleService
from kolkhoz_tg.service.play import PlayService
from kolkhoz_tg.service.practice import PracticeService
from kolkhoz_tg.service.queueing import PremoveService
from kolkhoz_tg.service.rating_store import RatingsService
from kolkhoz_tg.service.reading import ReadingService
from kolkhoz_tg.service.takeback import TakeBackService
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import Clock

__all__ = ["ChatInfo", "GameService", "ScheduleListener", "UserInfo"]


class GameService:
    """The one way to change a game. Thread-safe; share one instance per process.

    ``clock`` is injectable so tests move time by hand; ``settings`` supplies the defaults
    (turn time limit, reminders, stand-in threshold, locale).
    """

    def __init__(
        self,
        db: Database,
        clock: Clock | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.kernel = kernel = Kernel(db, clock=clock, settings=settings)
        self.db: Database = kernel.db
        self.clock: Clock = kernel.clock
        self.settings: Settings = kernel.settings
        self.default_turn_timeout: int = kernel.default_turn_timeout
        self.default_reminders: list[str] = kernel.default_reminders
        self.default_standin_after: int = kernel.default_standin_after
        self.people = PeopleService(kernel)
        self.lobby = LobbyService(kernel)
        self.play = PlayService(kernel)
        self.timekeeping = ClockService(kernel)
        self.reading = ReadingService(kernel)
        self.outbox = OutboxService(kernel)
        self.computer_players = ComputerPlayers(kernel)
        self.ratings = RatingsService(kernel)
        self.practice = PracticeService(kernel)
        self.takebacks = TakeBackService(kernel)
        self.faults = FaultService(kernel)
        self.premoves = PremoveService(kernel)
        self.meta_claims = MetaClaims(kernel)

        # The facade: each public name below is one part's own method, bound here, so its
        # signature, types and docstring are the part's (open the part to read it).
        # Methods that do more than hand the call on are defined below.
        # listeners and the move check (the kernel)
        self.add_schedule_listener = kernel.add_schedule_listener
        self.remove_schedule_listener = kernel.remove_schedule_listener
        self.add_ai_listener = kernel.add_ai_listener
        self.remove_ai_listener = kernel.remove_ai_listener
        self.foresee = kernel.foresee
        # computer players
        self.set_chat_ai_level = self.computer_players.set_chat_ai_level
        self.chat_ai_level = self.computer_players.chat_ai_level
        self.games_waiting_for_ai = self.computer_players.games_waiting_for_ai
        self.ai_turn = self.computer_players.ai_turn
        self.settle_ai = self.computer_players.settle_ai
        self.ai_act = self.computer_players.ai_act
        # people and chats
        self.ensure_user = self.people.ensure_user
        self.user = self.people.user
        self.set_user_locale = self.people.set_user_locale
        self.set_can_pm = self.people.set_can_pm
        self.set_quiet_hours = self.people.set_quiet_hours
        self.set_time_zone = self.people.set_time_zone
        self.set_quiet_window = self.people.set_quiet_window
        self.stood_in = self.people.stood_in
        self.ensure_chat = self.people.ensure_chat
        self.name_topic = self.people.name_topic
        self.chat = self.people.chat
        self.set_notify = self.people.set_notify
        self.set_own_language = self.people.set_own_language
        self.set_chat_language = self.people.set_chat_language
        self.set_chat_locale = self.people.set_chat_locale
        self.set_board_style = self.people.set_board_style
        self.set_chat_defaults = self.people.set_chat_defaults
        self.locale_for = self.people.locale_for
        self.migrate_chat = self.people.migrate_chat
        self.user_stats = self.people.user_stats
        self.chat_stats = self.people.chat_stats
        # the lobby
        self.create_game = self.lobby.create_game
        self.open_lobby = self.lobby.open_lobby
        self.rematch = self.lobby.rematch
        self.join = self.lobby.join
        self.leave = self.lobby.leave
        self.add_ai_player = self.lobby.add_ai_player
        self.remove_seat = self.lobby.remove_seat
        self.configure = self.lobby.configure
        self.configure_lobby = self.lobby.configure_lobby
        self.start = self.lobby.start
        self.abort = self.lobby.abort
        # play
        self.act = self.play.act
        self.back = self.play.back
        self.stand_in = self.play.stand_in
        self.away = self.play.away
        self.pause = self.play.pause
        self.resume = self.play.resume
        self.move_game = self.play.move_game
        self.set_meta = self.play.set_meta
        self.claim_meta = self.meta_claims.claim_meta
        self.peek_meta = self.meta_claims.peek_meta
        self.fill_meta = self.meta_claims.fill_meta
        # moves queued ahead
        self.premove = self.premoves.premove
        self.set_auto_assign = self.premoves.set_auto_assign
        # take-back
        self.take_back = self.takebacks.take_back
        self.set_chat_takeback = self.takebacks.set_chat_takeback
        # the clock
        self.process_due = self.timekeeping.process_due
        self.due_game_ids = self.timekeeping.due_game_ids
        self.sweep = self.timekeeping.sweep
        self.scheduled_jobs = self.timekeeping.scheduled_jobs
        # our own faults: a turn delivered late, the bot down
        self.turn_delivered = self.faults.turn_delivered
        self.clock_beat = self.faults.clock_beat
        self.downtime = self.faults.downtime
        self.make_good = self.faults.make_good
        # reading
        self.game_info = self.reading.game_info
        self.games_in_chat = self.reading.games_in_chat
        self.games_of_user = self.reading.games_of_user
        self.seat_view = self.reading.seat_view
        self.my_games = self.reading.my_games
        self.board = self.reading.board
        self.why_illegal = self.reading.why_illegal
        self.action_log = self.reading.action_log
        self.replay = self.reading.replay
        self.history = self.reading.history
        self.snapshot = self.reading.snapshot
        self.operator_figures = self.reading.operator_figures
        self.pending_notifications = self.reading.pending_notifications
        self.mark_delivered = self.reading.mark_delivered
        self.purge_notifications = self.reading.purge_notifications
        # the outbox
        self.claim_notifications = self.outbox.claim_notifications
        self.hold_notifications = self.outbox.hold_notifications
        self.settle_notifications = self.outbox.settle_notifications
        self.mark_sending = self.outbox.mark_sending
        self.claim_holders = self.outbox.claim_holders
        self.release_claims = self.outbox.release_claims
        self.scene = self.outbox.scene
        self.outbox_backlog = self.outbox.outbox_backlog
        # ratings
        self.rerate = self.ratings.rerate
        self.rating_changes = self.ratings.rating_changes
        self.chat_ratings = self.ratings.chat_ratings
        self.user_ratings = self.ratings.user_ratings
        # practice
        self.practice_game = self.practice.practice_game
        self.start_practice = self.practice.start_practice
        self.hint_turn = self.practice.hint_turn

    # Settings the front end sets, kept by the kernel.

    @property
    def ai_policy(self) -> AIPolicy:
        """How this service plays bots; a front end with a worker pool sets ``defer``."""
        return self.kernel.ai_policy

    @ai_policy.setter
    def ai_policy(self, policy: AIPolicy) -> None:
        self.kernel.ai_policy = policy

    @property
    def outbox_owner(self) -> str | None:
        """The relay that delivers at once what this process writes (see
        :attr:`Kernel.outbox_owner <kolkhoz_tg.service.kernel.Kernel.outbox_owner>`)."""
        return self.kernel.outbox_owner

    @outbox_owner.setter
    def outbox_owner(self, owner: str | None) -> None:
        self.kernel.outbox_owner = owner

    @property
    def outbox_lease(self) -> timedelta:
        """How long a relay's claim on a notification lasts."""
        return self.kernel.outbox_lease

    @outbox_lease.setter
    def outbox_lease(self, lease: timedelta) -> None:
        self.kernel.outbox_lease = lease

    @property
    def move_listener(self) -> Callable[[list[str]], None] | None:
        """Told, after each commit that applied moves, who made them (``Actor`` values)."""
        return self.kernel.move_listener

    @move_listener.setter
    def move_listener(self, listener: Callable[[list[str]], None] | None) -> None:
        self.kernel.move_listener = listener
