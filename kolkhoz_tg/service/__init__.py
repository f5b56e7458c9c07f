"""The transport-agnostic core: plain ids and strings in, plain records out.

Quick use::

    from kolkhoz_tg.service import GameService, open_service
    service = open_service("sqlite:///kolkhoz.sqlite3")
    game = service.create_game(chat_id=-100, creator_id=1, creator_name="Anna")
    service.join(game.id, 2, "Boris")
    result = service.start(game.id, by_user=1, fill_with_ai=True)
    view = service.seat_view(game.id, 1)
    service.act(game.id, 1, view.legal[0], view.game.version)
"""

from __future__ import annotations

from kolkhoz_tg.config import Settings
from kolkhoz_tg.service.ai_seats import AITurn
from kolkhoz_tg.service.core import ChatInfo, GameService, UserInfo
from kolkhoz_tg.service.errors import (
    BadRequest,
    Busy,
    NotAllowed,
    NotFound,
    ServiceError,
    WrongState,
)
from kolkhoz_tg.service.faults import BEAT_EVERY, FAULT_GRACE, Downtime
from kolkhoz_tg.service.lobby import LobbyOpening
from kolkhoz_tg.service.meta_claims import MetaClaim
from kolkhoz_tg.service.people import BOARD_STYLES
from kolkhoz_tg.service.practice import PRACTICE_LEVELS, HintTurn
from kolkhoz_tg.service.records import (
    PRACTICE_KEY,
    ActResult,
    ActStatus,
    BoardView,
    DueJob,
    GameInfo,
    Kind,
    MyGame,
    MyGames,
    Notification,
    PlayerStats,
    Premove,
    RatingLine,
    Scene,
    SeatInfo,
    SeatView,
    SweepResult,
    UserStats,
)
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import Clock


def open_service(
    url: str | None = None, clock: Clock | None = None, settings: Settings | None = None
) -> GameService:
    """A service on ``url`` (default: the configured database), migrations applied."""
    settings = settings or Settings()
    db = Database(url or settings.database_url, durable_commits=settings.pg_durable_commits)
    return GameService(db, clock=clock, settings=settings)


__all__ = [
    "BEAT_EVERY",
    "BOARD_STYLES",
    "FAULT_GRACE",
    "PRACTICE_KEY",
    "PRACTICE_LEVELS",
    "AITurn",
    "ActResult",
    "ActStatus",
    "BadRequest",
    "BoardView",
    "Busy",
    "ChatInfo",
    "Downtime",
    "DueJob",
    "GameInfo",
    "GameService",
    "HintTurn",
    "Kind",
    "LobbyOpening",
    "MetaClaim",
    "MyGame",
    "MyGames",
    "NotAllowed",
    "NotFound",
    "Notification",
    "PlayerStats",
    "Premove",
    "RatingLine",
    "Scene",
    "SeatInfo",
    "SeatView",
    "ServiceError",
    "SweepResult",
    "UserInfo",
    "UserStats",
    "WrongState",
    "open_service",
]
