"""The play-by-post service: lobby, ``act()``, the clock, stand-ins and the outbox.

Every method takes plain values (ids, strings, ints) and returns plain records
(:mod:`kolkhoz_tg.service.records`); each runs in one database transaction of its own. The
service is synchronous: an asyncio front end calls it through ``asyncio.to_thread`` (see
``docs/design-core.md`` for why).

:class:`GameService` is a facade: each method hands the call to one part, a plain class over
the one :class:`~kolkhoz_tg.service.kernel.Kernel` (row loading and locking, the write
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
======================= ============================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any

from engine import Game
from kolkhoz_tg.aiplay import AIPolicy
from kolkhoz_tg.config import Settings
from kolkhoz_tg.service.ai_seats import AITurn, ComputerPlayers
from kolkhoz_tg.service.clock import ClockService
from kolkhoz_tg.service.common import ChatInfo, UserInfo
from kolkhoz_tg.service.kernel import AIListener, Kernel, ScheduleListener
from kolkhoz_tg.service.lobby import LobbyOpening, LobbyService
from kolkhoz_tg.service.outbox import OutboxService
from kolkhoz_tg.service.people import PeopleService
from kolkhoz_tg.service.play import PlayService
from kolkhoz_tg.service.practice import HintTurn, PracticeService
from kolkhoz_tg.service.queueing import PremoveService
from kolkhoz_tg.service.rating_store import RatingsService
from kolkhoz_tg.service.reading import ReadingService
from kolkhoz_tg.service.records import (
    ActResult,
    BoardView,
    DueJob,
    GameInfo,
    Notification,
    OperatorFigures,
    PlayerStats,
    RatingLine,
    Scene,
    SeatView,
    SweepResult,
    UserStats,
)
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
        self.premoves = PremoveService(kernel)
        self.set_auto_assign = self.premoves.set_auto_assign  # (game, user, on) -> ActResult

    # ---------------------------------------------------------------- settings the front end sets

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

    # ---------------------------------------------------------------- kernel

    def add_schedule_listener(self, listener: ScheduleListener) -> None:
        self.kernel.add_schedule_listener(listener)

    def remove_schedule_listener(self, listener: ScheduleListener) -> None:
        self.kernel.remove_schedule_listener(listener)

    def add_ai_listener(self, listener: AIListener) -> None:
        self.kernel.add_ai_listener(listener)

    def remove_ai_listener(self, listener: AIListener) -> None:
        self.kernel.remove_ai_listener(listener)

    def foresee(self, game_id: int, user_id: int, action: str, version: int) -> bool:
        return self.kernel.foresee(game_id, user_id, action, version)

    # ---------------------------------------------------------------- computer_players

    def set_chat_ai_level(self, chat_id: int, level: str) -> ChatInfo:
        return self.computer_players.set_chat_ai_level(chat_id, level)

    def chat_ai_level(self, chat_id: int) -> str:
        return self.computer_players.chat_ai_level(chat_id)

    def games_waiting_for_ai(
        self, limit: int = 200, idle_for: timedelta | None = None
    ) -> list[int]:
        return self.computer_players.games_waiting_for_ai(limit, idle_for)

    def ai_turn(self, game_id: int) -> AITurn | None:
        return self.computer_players.ai_turn(game_id)

    def settle_ai(self, game_id: int) -> ActResult | None:
        return self.computer_players.settle_ai(game_id)

    def ai_act(self, game_id: int, seat: int, action_text: str, version: int) -> ActResult:
        return self.computer_players.ai_act(game_id, seat, action_text, version)

    # ---------------------------------------------------------------- people

    def ensure_user(self, user_id: int, name: str, locale: str | None = None) -> UserInfo:
        return self.people.ensure_user(user_id, name, locale)

    def user(self, user_id: int) -> UserInfo | None:
        return self.people.user(user_id)

    def set_user_locale(self, user_id: int, locale: str) -> UserInfo:
        return self.people.set_user_locale(user_id, locale)

    def set_can_pm(self, user_id: int, can_pm: bool) -> None:
        return self.people.set_can_pm(user_id, can_pm)

    def set_quiet_hours(
        self, user_id: int, timezone: str | None, start: str | None = None, end: str | None = None
    ) -> UserInfo:
        return self.people.set_quiet_hours(user_id, timezone, start, end)

    def set_time_zone(self, user_id: int, zone: str | None) -> UserInfo:
        return self.people.set_time_zone(user_id, zone)

    def set_quiet_window(self, user_id: int, window: str | None) -> UserInfo:
        return self.people.set_quiet_window(user_id, window)

    def stood_in(self) -> list[tuple[int, int, dict[str, Any]]]:
        return self.people.stood_in()

    def ensure_chat(
        self, chat_id: int, title: str | None = None, locale: str | None = None
    ) -> ChatInfo:
        return self.people.ensure_chat(chat_id, title, locale)

    def chat(self, chat_id: int) -> ChatInfo | None:
        return self.people.chat(chat_id)

    def set_own_language(self, user_id: int, chat_id: int, locale: str) -> GameInfo | None:
        return self.people.set_own_language(user_id, chat_id, locale)

    def set_chat_language(
        self, chat_id: int, by_user: int, locale: str, *, admin: bool = False
    ) -> list[GameInfo] | None:
        return self.people.set_chat_language(chat_id, by_user, locale, admin=admin)

    def set_chat_locale(self, chat_id: int, locale: str) -> ChatInfo:
        return self.people.set_chat_locale(chat_id, locale)

    def set_board_style(self, chat_id: int, style: str) -> list[GameInfo]:
        return self.people.set_board_style(chat_id, style)

    def set_chat_defaults(
        self,
        chat_id: int,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
    ) -> ChatInfo:
        return self.people.set_chat_defaults(
            chat_id,
            preset=preset,
            options=options,
            turn_timeout=turn_timeout,
            reminders=reminders,
            standin_after=standin_after,
        )

    def locale_for(
        self, user_id: int | None = None, chat_id: int | None = None, fallback: str | None = None
    ) -> str:
        return self.people.locale_for(user_id, chat_id, fallback)

    def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> int:
        return self.people.migrate_chat(old_chat_id, new_chat_id)

    def user_stats(self, user_id: int) -> UserStats:
        return self.people.user_stats(user_id)

    def chat_stats(self, chat_id: int) -> list[PlayerStats]:
        return self.people.chat_stats(chat_id)

    # ---------------------------------------------------------------- lobby

    def create_game(
        self,
        chat_id: int,
        creator_id: int,
        *,
        topic_id: int | None = None,
        creator_name: str | None = None,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int = 4,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
        seed: int | str | None = None,
        join: bool = True,
        alone: bool = True,
    ) -> GameInfo:
        return self.lobby.create_game(
            chat_id,
            creator_id,
            topic_id=topic_id,
            creator_name=creator_name,
            preset=preset,
            options=options,
            players=players,
            turn_timeout=turn_timeout,
            reminders=reminders,
            standin_after=standin_after,
            seed=seed,
            join=join,
            alone=alone,
        )

    def open_lobby(
        self,
        chat_id: int,
        creator_id: int,
        *,
        title: str | None = None,
        creator_name: str | None = None,
        creator_locale: str | None = None,
        topic_id: int | None = None,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int = 4,
        create: bool = True,
    ) -> LobbyOpening:
        return self.lobby.open_lobby(
            chat_id,
            creator_id,
            title=title,
            creator_name=creator_name,
            creator_locale=creator_locale,
            topic_id=topic_id,
            preset=preset,
            options=options,
            players=players,
            create=create,
        )

    def join(
        self, game_id: int, user_id: int, name: str | None = None, seat: int | None = None
    ) -> GameInfo:
        return self.lobby.join(game_id, user_id, name, seat)

    def leave(self, game_id: int, user_id: int) -> GameInfo:
        return self.lobby.leave(game_id, user_id)

    def add_ai_player(
        self,
        game_id: int,
        by_user: int,
        seat: int | None = None,
        level: str | None = None,
        *,
        version: int | None = None,
    ) -> GameInfo:
        return self.lobby.add_ai_player(game_id, by_user, seat, level, version=version)

    def remove_seat(self, game_id: int, by_user: int, seat: int) -> GameInfo:
        return self.lobby.remove_seat(game_id, by_user, seat)

    def configure(
        self,
        game_id: int,
        by_user: int,
        *,
        turn_timeout: str | int | None = None,
        reminders: list[str] | None = None,
        standin_after: int | None = None,
        version: int | None = None,
    ) -> GameInfo:
        return self.lobby.configure(
            game_id,
            by_user,
            turn_timeout=turn_timeout,
            reminders=reminders,
            standin_after=standin_after,
            version=version,
        )

    def configure_lobby(
        self,
        game_id: int,
        by_user: int,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        players: int | None = None,
        version: int | None = None,
    ) -> GameInfo:
        return self.lobby.configure_lobby(
            game_id, by_user, preset=preset, options=options, players=players, version=version
        )

    def start(
        self, game_id: int, by_user: int, fill_with_ai: bool = False, bot_level: str | None = None
    ) -> ActResult:
        return self.lobby.start(game_id, by_user, fill_with_ai, bot_level)

    def abort(self, game_id: int, by_user: int, force: bool = False) -> ActResult:
        return self.lobby.abort(game_id, by_user, force)

    # ---------------------------------------------------------------- play

    def act(
        self,
        game_id: int,
        user_id: int,
        action_text: str,
        expected_version: int,
        *,
        name: str | None = None,
        locale: str | None = None,
    ) -> ActResult:
        return self.play.act(
            game_id, user_id, action_text, expected_version, name=name, locale=locale
        )

    def back(self, game_id: int, user_id: int) -> ActResult:
        return self.play.back(game_id, user_id)

    def premove(self, game_id: int, user_id: int, action: str | None, **kw: bool) -> ActResult:
        return self.premoves.premove(game_id, user_id, action, **kw)

    def stand_in(self, game_id: int, seat: int) -> ActResult:
        return self.play.stand_in(game_id, seat)

    def away(self, game_id: int, user_id: int, *, meta: dict[str, Any] | None = None) -> ActResult:
        return self.play.away(game_id, user_id, meta=meta)

    def pause(
        self, game_id: int, by_user: int, force: bool = False, *, meta: dict[str, Any] | None = None
    ) -> ActResult:
        return self.play.pause(game_id, by_user, force, meta=meta)

    def resume(
        self, game_id: int, by_user: int, force: bool = False, *, meta: dict[str, Any] | None = None
    ) -> ActResult:
        return self.play.resume(game_id, by_user, force, meta=meta)

    def move_game(
        self, game_id: int, topic_id: int | None, *, meta: dict[str, Any] | None = None
    ) -> GameInfo:
        return self.play.move_game(game_id, topic_id, meta=meta)

    def set_meta(self, game_id: int, key: str, value: Any) -> None:
        return self.play.set_meta(game_id, key, value)

    # ---------------------------------------------------------------- timekeeping

    def process_due(self, game_id: int) -> SweepResult:
        return self.timekeeping.process_due(game_id)

    def due_game_ids(self, limit: int = 500, now: datetime | None = None) -> list[int]:
        return self.timekeeping.due_game_ids(limit, now)

    def sweep(self, limit: int = 500, batch: int = 20) -> SweepResult:
        return self.timekeeping.sweep(limit, batch)

    def scheduled_jobs(self, until: datetime | None = None) -> list[DueJob]:
        return self.timekeeping.scheduled_jobs(until)

    # ---------------------------------------------------------------- reading

    def game_info(self, game_id: int) -> GameInfo:
        return self.reading.game_info(game_id)

    def games_in_chat(
        self,
        chat_id: int,
        topic_id: int | None = None,
        open_only: bool = True,
        *,
        all_topics: bool = False,
    ) -> list[GameInfo]:
        return self.reading.games_in_chat(chat_id, topic_id, open_only, all_topics=all_topics)

    def games_of_user(self, user_id: int, open_only: bool = True) -> list[GameInfo]:
        return self.reading.games_of_user(user_id, open_only)

    def seat_view(self, game_id: int, user_id: int) -> SeatView:
        return self.reading.seat_view(game_id, user_id)

    def board(self, game_id: int) -> BoardView:
        return self.reading.board(game_id)

    def why_illegal(self, game_id: int, user_id: int, action_text: str) -> str | None:
        return self.reading.why_illegal(game_id, user_id, action_text)

    def action_log(self, game_id: int) -> list[dict[str, Any]]:
        return self.reading.action_log(game_id)

    def replay(self, game_id: int) -> Game:
        return self.reading.replay(game_id)

    def history(self, game_id: int) -> list[dict[str, Any]]:
        return self.reading.history(game_id)

    def snapshot(self, game_id: int) -> Game | None:
        return self.reading.snapshot(game_id)

    def operator_figures(
        self, late_after: timedelta = timedelta(minutes=1)
    ) -> OperatorFigures:
        return self.reading.operator_figures(late_after)

    def pending_notifications(
        self, limit: int = 100, game_id: int | None = None
    ) -> list[Notification]:
        return self.reading.pending_notifications(limit, game_id)

    def mark_delivered(self, ids: Iterable[int]) -> int:
        return self.reading.mark_delivered(ids)

    def purge_notifications(self, older_than: timedelta = timedelta(days=7)) -> int:
        return self.reading.purge_notifications(older_than)

    # ---------------------------------------------------------------- outbox

    def claim_notifications(
        self, owner: str, limit: int = 100, *, skip_chats: Iterable[int] = ()
    ) -> list[Notification]:
        return self.outbox.claim_notifications(owner, limit, skip_chats=skip_chats)

    def hold_notifications(self, owner: str, ids: Iterable[int]) -> set[int]:
        return self.outbox.hold_notifications(owner, ids)

    def settle_notifications(
        self,
        delivered: Iterable[int] = (),
        *,
        retry: Iterable[int] = (),
        not_before: datetime | None = None,
        meta: Mapping[int, Mapping[str, Any]] | None = None,
        no_pm: Iterable[int] = (),
        owner: str | None = None,
        release: Iterable[int] = (),
    ) -> None:
        return self.outbox.settle_notifications(
            delivered,
            retry=retry,
            not_before=not_before,
            meta=meta,
            no_pm=no_pm,
            owner=owner,
            release=release,
        )

    def claim_holders(self) -> list[str]:
        return self.outbox.claim_holders()

    def release_claims(self, owner: str) -> int:
        return self.outbox.release_claims(owner)

    def scene(self, game_id: int) -> Scene:
        return self.outbox.scene(game_id)

    def outbox_backlog(self) -> int:
        return self.outbox.outbox_backlog()

    # ---------------------------------------------------------------- ratings

    def rerate(self) -> int:
        return self.ratings.rerate()

    def rating_changes(self, game_id: int) -> dict[int, tuple[int, int]]:
        return self.ratings.rating_changes(game_id)

    def chat_ratings(self, chat_id: int) -> list[RatingLine]:
        return self.ratings.chat_ratings(chat_id)

    def user_ratings(self, user_id: int) -> list[RatingLine]:
        return self.ratings.user_ratings(user_id)

    # ---------------------------------------------------------------- practice

    def practice_game(self, user_id: int) -> GameInfo | None:
        return self.practice.practice_game(user_id)

    def start_practice(
        self,
        user_id: int,
        name: str | None = None,
        *,
        preset: str | None = None,
        players: int = 4,
        level: str = "strong",
        locale: str | None = None,
        seed: int | str | None = None,
    ) -> ActResult:
        return self.practice.start_practice(
            user_id, name, preset=preset, players=players, level=level, locale=locale, seed=seed
        )

    def hint_turn(self, game_id: int, user_id: int) -> HintTurn:
        return self.practice.hint_turn(game_id, user_id)


def _share_docs() -> None:
    """Each facade method shows the docstring of the part's method it hands the call to
    (for ``help()`` and the docs; the text lives once, on the part)."""
    parts: tuple[type, ...] = (
        PeopleService, LobbyService, PlayService, ClockService, ReadingService, OutboxService,
        ComputerPlayers, RatingsService, PracticeService, Kernel,
    )
    for name, method in vars(GameService).items():
        if name.startswith("_") or not callable(method) or method.__doc__:
            continue
        for part in parts:
            source = getattr(part, name, None)
            if callable(source) and source.__doc__:
                method.__doc__ = source.__doc__
                break


_share_docs()
