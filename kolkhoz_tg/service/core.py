"""The play-by-post service: lobby, ``act()``, the clock, stand-ins and the outbox.

Every method takes plain values (ids, strings, ints) and returns plain records
(:mod:`kolkhoz_tg.service.records`); each runs in one database transaction of its own. The
service is synchronous: an asyncio front end calls it through ``asyncio.to_thread`` (see
``docs/design-core.md`` for why). The methods live in one module per concern
(:mod:`~kolkhoz_tg.service.people`, :mod:`~kolkhoz_tg.service.lobby`,
:mod:`~kolkhoz_tg.service.play`, :mod:`~kolkhoz_tg.service.clock`,
:mod:`~kolkhoz_tg.service.reading`, :mod:`~kolkhoz_tg.service.outbox`,
:mod:`~kolkhoz_tg.service.bots`, :mod:`~kolkhoz_tg.service.practice`) on top of
:mod:`~kolkhoz_tg.service.base`.
"""

from __future__ import annotations

from kolkhoz_tg.service.base import ChatInfo, ScheduleListener, UserInfo
from kolkhoz_tg.service.bots import BotsMixin
from kolkhoz_tg.service.clock import ClockMixin
from kolkhoz_tg.service.lobby import LobbyMixin
from kolkhoz_tg.service.outbox import OutboxMixin
from kolkhoz_tg.service.people import PeopleMixin
from kolkhoz_tg.service.play import PlayMixin
from kolkhoz_tg.service.practice import PracticeMixin
from kolkhoz_tg.service.rating_store import RatingsMixin
from kolkhoz_tg.service.reading import ReadingMixin

__all__ = ["ChatInfo", "GameService", "ScheduleListener", "UserInfo"]


class GameService(
    BotsMixin, PeopleMixin, LobbyMixin, PlayMixin, ClockMixin, ReadingMixin, OutboxMixin,
    RatingsMixin, PracticeMixin,
):
    """The one way to change a game. Thread-safe; share one instance per process.

    ``clock`` is injectable so tests move time by hand; ``settings`` supplies the defaults
    (turn time limit, reminders, stand-in threshold, locale).
    """
