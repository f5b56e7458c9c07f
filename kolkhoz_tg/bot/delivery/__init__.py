"""Carry out delivery plans (:mod:`kolkhoz_tg.bot.plan`) on Telegram and settle the outbox.

Which file to open for what:

- :mod:`.deliverer`: :class:`Deliverer`, the orchestrator: a game's delivery from its
  notifications to its settle (``deliver``, ``deliver_game``, ``refresh_board``,
  ``refresh_private``, ``say_in_group``...).
- :mod:`.claims`: the outbox claims (a lease: only what this process still holds goes out),
  the :class:`Relay` that claims what is due, :func:`relay_name`, :func:`dead_here`.
- :mod:`.steps`: each step of a plan on Telegram (the board edited, sent anew or drawn, the
  posts, the private messages) and what it did (the outcome).
- :mod:`.sender`: the guarded Bot API calls (flood control and passing failures, "not
  modified", a gone message or topic), the cache of what each message says, :func:`markup`.
- :mod:`.group_queue`: the group's part of a delivery, queued for the group's pace, the
  boards that queued meanwhile drawn as one.
- :mod:`.settle`: the one settle call per attempt, made again in the background when SQLite
  is busy.
- :mod:`.topic_loss`: a game whose forum topic is gone moves to "General".
- :mod:`.private_topics`: each game's own topic in its players' private chats (Bot API 9.4).

The names the rest of the bot uses are imported from here.
"""

from kolkhoz_tg.bot.delivery.claims import Relay, dead_here, relay_name
from kolkhoz_tg.bot.delivery.deliverer import ABSENT_KEY, Deliverer, spawn_task
from kolkhoz_tg.bot.delivery.private_topics import thread_of
from kolkhoz_tg.bot.delivery.sender import is_not_modified, markup, topic_gone
from kolkhoz_tg.bot.delivery.steps import PICTURES
from kolkhoz_tg.bot.steps import BOARD_KEY, TOPIC_LOST_KEY, TOPIC_OWN_KEY, Acting, pm_key

__all__ = ["ABSENT_KEY", "BOARD_KEY", "PICTURES", "TOPIC_LOST_KEY", "TOPIC_OWN_KEY", "Acting",
           "Deliverer", "Relay", "dead_here", "is_not_modified", "markup", "pm_key",
           "relay_name", "spawn_task", "thread_of", "topic_gone"]
