"""Storage: SQLModel tables, the database connection and its Alembic migrations."""

from kolkhoz_tg.storage.database import Database, migrate
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

__all__ = [
    "ActionRow",
    "Actor",
    "ChatRow",
    "Database",
    "GameRow",
    "GameStatus",
    "NotificationRow",
    "SeatRow",
    "UserRow",
    "migrate",
]
