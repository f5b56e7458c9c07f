"""What the parts of the service share besides the :mod:`~kolkhoz_tg.service.kernel`: the
game statuses as stored, the conflict error, the user and chat records, and small checks and
conversions of values and rows (pure functions)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from engine import Rules, preset
from kolkhoz_tg.config import LOCALES
from kolkhoz_tg.service.deadlines import check_turn_timeout, normalize_reminders
from kolkhoz_tg.service.errors import BadRequest, ServiceError
from kolkhoz_tg.service.payloads import Payload, decode
from kolkhoz_tg.service.records import Kind, Notification, SeatInfo
from kolkhoz_tg.storage.models import (
    ChatRow,
    GameRow,
    GameStatus,
    NotificationRow,
    SeatRow,
    UserRow,
)

ACTIVE = GameStatus.ACTIVE.value
LOBBY = GameStatus.LOBBY.value
PAUSED = GameStatus.PAUSED.value
OPEN = (GameStatus.LOBBY.value, GameStatus.ACTIVE.value, GameStatus.PAUSED.value)
#: The largest value of an INTEGER column (game ids, versions) on PostgreSQL. A larger number
#: in a query is an error there, not an empty result, so lookups refuse it before SQL does.
MAX_INT = 2**31 - 1
#: ``chats.settings`` key: the names of the chat's forum topics as the bot last saw them
#: (``{"<topic id>": name}``), for lists that name a game's topic (``/mygames``).
TOPIC_NAMES = "topic_names"

#: Called after a commit that changed a game's clock: (game_id, deadline, next_reminder).
ScheduleListener = Callable[[int, datetime | None, datetime | None], None]


class Conflict(ServiceError):
    """Another transaction changed the game first (the version check failed); act() says
    STALE, other calls raise this (code ``conflict``: try again)."""

    code = "conflict"


@dataclass(frozen=True, slots=True)
class UserInfo:
    id: int
    name: str
    locale: str | None
    can_pm: bool
    timezone: str | None
    quiet_start: int | None
    quiet_end: int | None


@dataclass(frozen=True, slots=True)
class ChatInfo:
    id: int
    title: str | None
    locale: str | None
    settings: dict[str, Any]


def possible_id(value: int) -> bool:
    """Whether ``value`` fits an INTEGER column (see :data:`MAX_INT`)."""
    return isinstance(value, int) and -MAX_INT - 1 <= value <= MAX_INT


def parse_seed(text: str) -> int | str:
    return int(text) if text.isdecimal() else text


def user_changes(user: UserRow, name: str | None, locale: str | None) -> bool:
    """Whether :meth:`~kolkhoz_tg.service.kernel.Kernel.ensure_user_row` would change the
    stored user: a new name, or a first locale (the user's own choice is never overwritten)."""
    return bool(name and user.name != name[:128]) or bool(
        locale_or_none(locale) and not user.locale)


def locale_or_none(locale: str | None) -> str | None:
    if not locale:
        return None
    code = locale.strip().lower().replace("_", "-").split("-")[0]
    return code if code in LOCALES else None


def make_rules(preset_value: str, options: dict[str, Any] | None) -> Rules:
    try:
        rules = preset(preset_value)
    except ValueError as e:
        raise BadRequest(str(e), "bad_preset") from None
    if options:
        try:
            rules = replace(rules, **options)
        except (TypeError, ValueError) as e:
            raise BadRequest(f"bad rule options: {e}", "bad_option") from None
    return rules


def check_timeout(value: str | int) -> int:
    try:
        return check_turn_timeout(value)
    except ValueError as e:
        raise BadRequest(str(e), "bad_duration") from None


def check_reminders(value: list[str]) -> list[str]:
    try:
        return normalize_reminders(value)
    except ValueError as e:
        raise BadRequest(str(e), "bad_reminders") from None


def check_standin(value: int) -> int:
    if not isinstance(value, int) or not 1 <= value <= 100:
        raise BadRequest(f"stand-in after 1 to 100 timeouts, not {value!r}", "bad_standin")
    return value


def ai_seat(game_id: int, seat: int, seats: dict[int, SeatRow], now: datetime) -> SeatRow:
    number = 1 + sum(1 for r in seats.values() if r.is_bot)
    return SeatRow(game_id=game_id, seat=seat, user_id=None, is_bot=True,
                   name=f"Bot {number}", joined_at=now)


def new_note(
    row: GameRow, payload: Payload, now: datetime, version: int, user_id: int | None = None,
) -> NotificationRow:
    """An outbox row for ``payload`` (encoded to JSON here, as in :meth:`GameTx.notify`)."""
    return NotificationRow(game_id=row.id, chat_id=row.chat_id, user_id=user_id,
                           kind=payload.kind.value, version=version, data=payload.to_json(),
                           created_at=now)


def notification_record(n: NotificationRow) -> Notification:
    assert n.id is not None
    return Notification(
        id=n.id,
        kind=Kind(n.kind),
        game_id=n.game_id,
        chat_id=n.chat_id,
        user_id=n.user_id,
        seat=n.seat,
        version=n.version,
        payload=decode(Kind(n.kind), n.data),
        created_at=n.created_at,
        sending=n.sending or 0,
    )


def seat_info(r: SeatRow) -> SeatInfo:
    return SeatInfo(r.seat, r.user_id, r.name, r.is_bot, r.standin, r.timeouts, r.auto_moves,
                    r.level)


def user_info(u: UserRow) -> UserInfo:
    return UserInfo(u.id, u.name, u.locale, u.can_pm, u.timezone, u.quiet_start, u.quiet_end)


def chat_info(c: ChatRow) -> ChatInfo:
    return ChatInfo(c.id, c.title, c.locale, dict(c.settings))


