"""The tables. Change them only together with a migration in ``migrations/versions``
(``tests/service/test_migrations.py`` fails when the two drift apart).

Datetimes are stored as UTC and always come back timezone-aware (:class:`UTCDateTime`), on
SQLite (which has no time zones) as on PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlmodel import Field, SQLModel


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """Aware UTC datetimes in, aware UTC datetimes out, on every backend."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class GameStatus(StrEnum):
    LOBBY = "lobby"
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"
    ABORTED = "aborted"


class Actor(StrEnum):
    """Who made a logged move."""

    PLAYER = "player"  # the seat's own player
    TIMEOUT = "timeout"  # the engine's default move after the deadline passed
    STANDIN = "standin"  # a bot standing in after repeated timeouts
    BOT = "bot"  # a bot seat
    FORCED = "forced"  # the seat's only possible move, played at once
    TAKEBACK = "takeback"  # the seat's player took back their move just before (not a move)


def _utc_column(nullable: bool = True, index: bool = False) -> Any:
    return Field(default=None, sa_type=UTCDateTime(), nullable=nullable, index=index)


def _now() -> datetime:
    return datetime.now(UTC)


class UserRow(SQLModel, table=True):
    """A person (a Telegram user id, or a local id for the terminal)."""

    __tablename__ = "users"

    id: int = Field(sa_type=sa.BigInteger(), primary_key=True, sa_column_kwargs={
        "autoincrement": False})
    name: str = Field(max_length=128)
    locale: str | None = Field(default=None, max_length=8)
    #: Whether the bot can write to this user privately (they started it).
    can_pm: bool = False
    timezone: str | None = Field(default=None, max_length=64)
    #: Quiet hours in the user's time zone, as minutes after local midnight.
    quiet_start: int | None = None
    quiet_end: int | None = None
    created_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime(), nullable=False)


class ChatRow(SQLModel, table=True):
    """A group chat (or the terminal's local table) where games are played."""

    __tablename__ = "chats"

    id: int = Field(sa_type=sa.BigInteger(), primary_key=True, sa_column_kwargs={
        "autoincrement": False})
    title: str | None = Field(default=None, max_length=256)
    locale: str | None = Field(default=None, max_length=8)
    #: Defaults for new games here: preset, options, turn_timeout, reminders, standin_after.
    settings: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON(), nullable=False)
    created_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime(), nullable=False)


_GAME_VERSION = sa.Column("version", sa.Integer(), nullable=False, default=0)


class GameRow(SQLModel, table=True):
    """One game: rules, seed, the engine snapshot and the clock."""

    __tablename__ = "games"
    __table_args__ = (
        # A chat's open games, and a forum topic's (topic_id NULL: no topic, or "General").
        sa.Index("ix_games_chat_topic_status", "chat_id", "topic_id", "status"),
    )
    # The service sets the new version itself (one bump per transaction).
    __mapper_args__ = {"version_id_col": _GAME_VERSION, "version_id_generator": False}

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_type=sa.BigInteger(), foreign_key="chats.id", nullable=False)
    #: The forum topic the game lives in (Telegram's ``message_thread_id``); NULL: the chat
    #: has no topics, or the game is in its "General" topic.
    topic_id: int | None = Field(default=None, sa_type=sa.BigInteger(), nullable=True)
    creator_id: int | None = Field(
        default=None, sa_type=sa.BigInteger(), foreign_key="users.id", nullable=True
    )
    status: str = Field(default=GameStatus.LOBBY.value, max_length=16)
    preset: str | None = Field(default=None, max_length=32)
    rules: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON(), nullable=False)
    players: int = 4
    seed: str = Field(max_length=64)
    #: ``engine.Game.to_json()`` of the current state (None in the lobby).
    state: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON(), nullable=True)
    #: Bumped by every change players can see; buttons carry it (optimistic concurrency:
    #: SQLAlchemy's version counter makes every UPDATE of a game row "... WHERE version =
    #: <the version read>" and raises StaleDataError if another writer got there first).
    version: int = Field(default=0, sa_column=_GAME_VERSION)
    turn_timeout: int = 86400  # seconds
    reminders: list[str] = Field(default_factory=list, sa_type=sa.JSON(), nullable=False)
    standin_after: int = 2
    turn_started_at: datetime | None = _utc_column()
    deadline: datetime | None = _utc_column()
    next_reminder: datetime | None = _utc_column()
    #: min(deadline, next_reminder) while active, else NULL: what the sweep looks at.
    next_due: datetime | None = _utc_column(index=True)
    #: Seconds left on the clock when the game was paused.
    paused_remaining: int | None = None
    #: Final scores and winners once finished: {"scores": [...], "winners": [...]}.
    result: dict[str, Any] | None = Field(default=None, sa_type=sa.JSON(), nullable=True)
    #: Since when a search-level bot (a bot seat or a stand-in) must move and nobody has
    #: yet: set while the game waits for a worker to think off the transaction, else NULL
    #: (what a restart and the periodic sweep look at, see ``service/ai_seats.py``).
    bot_due: datetime | None = _utc_column(index=True)
    #: A front end's own data (e.g. the Telegram board message id); the core ignores it,
    #: but for ``practice`` (a practice game: no clock, not rated; service/practice.py).
    meta: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON(), nullable=False)
    created_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime(), nullable=False)
    started_at: datetime | None = _utc_column()
    finished_at: datetime | None = _utc_column()


class SeatRow(SQLModel, table=True):
    """Who plays seat ``seat`` of a game: a user, or a bot (``user_id`` NULL)."""

    __tablename__ = "seats"
    __table_args__ = (sa.UniqueConstraint("game_id", "user_id", name="uq_seats_game_user"),)

    game_id: int = Field(
        foreign_key="games.id", primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    seat: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    user_id: int | None = Field(
        default=None, sa_type=sa.BigInteger(), foreign_key="users.id", nullable=True, index=True
    )
    is_bot: bool = False
    #: A bot seat's level (``engine.ai.LEVELS``); NULL: ``normal``, the heuristic every bot
    #: seat played before levels existed. Stand-ins play at the chat's level instead.
    level: str | None = Field(default=None, max_length=16)
    name: str = Field(max_length=128)
    #: Consecutive deadlines missed; reset when the player acts.
    timeouts: int = 0
    #: A bot stand-in plays this seat until its player is back.
    standin: bool = False
    #: Moves played for this seat by the clock or a stand-in, over the whole game.
    auto_moves: int = 0
    #: Reminders still to send for the current turn (ISO UTC times, earliest first).
    reminders: list[str] = Field(default_factory=list, sa_type=sa.JSON(), nullable=False)
    remind_at: datetime | None = _utc_column()
    joined_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime(), nullable=False)
    #: The move its player queued for their next decision (an action text), NULL: none;
    #: played or dropped when that decision comes (migration 0006).
    premove: str | None = Field(default=None, max_length=32)
    #: The heuristic places this seat's tricks when it is the Brigadier ("assign for me").
    auto_assign: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})


class ActionRow(SQLModel, table=True):
    """The append-only action log: replaying it on rules + seed rebuilds the game."""

    __tablename__ = "actions"
    __table_args__ = (sa.Index("ix_actions_game_version", "game_id", "version"),)

    game_id: int = Field(
        foreign_key="games.id", primary_key=True, sa_column_kwargs={"autoincrement": False}
    )
    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seat: int
    action: str = Field(max_length=32)
    actor: str = Field(max_length=16)
    user_id: int | None = Field(default=None, sa_type=sa.BigInteger(), nullable=True)
    #: The game version the request that made this move was based on.
    version: int
    at: datetime = Field(sa_type=UTCDateTime(), nullable=False)


class NotificationRow(SQLModel, table=True):
    """The outbox: what a front end must tell whom. Written in the same transaction as the
    change it reports, so nothing is lost if delivery fails; marked delivered afterwards."""

    __tablename__ = "notifications"
    __table_args__ = (
        # Only undelivered rows: the relay's scan stays small however long the history. The
        # index is partial (WHERE delivered_at IS NULL) on both databases, as migration 0002
        # makes it; naming that here (``postgresql_where``) would load SQLAlchemy's PostgreSQL
        # dialect into every SQLite bot (some 2 MB), and the migrations make the schema.
        sa.Index("ix_notifications_pending", "id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="games.id", nullable=True, index=True)
    chat_id: int | None = Field(default=None, sa_type=sa.BigInteger(), nullable=True)
    #: The private recipient; NULL means the group chat.
    user_id: int | None = Field(default=None, sa_type=sa.BigInteger(), nullable=True)
    seat: int | None = None
    kind: str = Field(max_length=32)
    version: int = 0
    data: dict[str, Any] = Field(default_factory=dict, sa_type=sa.JSON(), nullable=False)
    created_at: datetime = Field(sa_type=UTCDateTime(), nullable=False)
    delivered_at: datetime | None = _utc_column()
    #: Replaced by a newer record of the same kind before it was delivered.
    superseded: bool = False
    #: Failed deliveries so far; the next try waits until ``next_attempt_at`` (back-off).
    attempts: int = 0
    next_attempt_at: datetime | None = _utc_column()
    #: The process delivering it now and until when (a lease: a crashed process's claims
    #: lapse and another relay takes the message over).
    claimed_by: str | None = Field(default=None, max_length=64)
    claimed_until: datetime | None = _utc_column()
    #: The sends that may have reached Telegram (bits of ``kolkhoz_tg.bot.once``): set
    #: right before a message that must not go out twice is sent, so a process that takes
    #: the notification over after a crash, or a lost reply, never sends it again blind.
    sending: int = 0


class RatingRow(SQLModel, table=True):
    """A player's rating in one scope (``global`` or ``chat:<id>``): a cache of
    :func:`kolkhoz_tg.service.ratings.compute` over the finished games, never the source of
    truth (``kolkhoz games rerate`` rebuilds it). The row ``(meta, finished_games)`` holds in
    ``games`` how many finished games the table was computed from (stale when fewer)."""

    __tablename__ = "ratings"

    scope: str = Field(max_length=32, primary_key=True)
    #: ``user:<id>`` or ``bot:<level>``.
    player: str = Field(max_length=32, primary_key=True)
    user_id: int | None = Field(default=None, sa_type=sa.BigInteger(), nullable=True,
                                index=True)
    mu: float = 0.0
    sigma: float = 0.0
    games: int = 0
    wins: int = 0
    #: The sum of the player's places (1 = first; tied seats share a place).
    place_sum: int = 0
    last_game: int = 0
    computed_at: datetime = Field(default_factory=_now, sa_type=UTCDateTime(), nullable=False)


class ClockBeatRow(SQLModel, table=True):
    """When a process that runs the clock (``bot``: the Telegram bot) was last seen alive:
    at its next start, the time since then was nobody's turn (migration 0007)."""

    __tablename__ = "clock_beats"

    name: str = Field(max_length=32, primary_key=True)
    at: datetime = Field(sa_type=UTCDateTime(), nullable=False)
