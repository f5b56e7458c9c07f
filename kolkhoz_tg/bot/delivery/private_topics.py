"""A game's own topic in each player's private chat (Bot API 9.4, with the bot's topic mode
switched on in @BotFather): a player seated in several games at once reads each one's
private messages apart, in a topic named after the game and its group ("Kolkhoz #12 ·
Friday cards").

The topic is made when the game first writes to the player in private once seated:
every game that has a group gets one while topic mode is on, the one-game player's too,
so that a game's messages never move elsewhere when a second game starts. Its id is kept
in the game's meta (``pmt:<user>``). The fallbacks keep today's single private chat:
topic mode off (getMe's ``has_topics_enabled`` false or absent); a private chat where the
server makes no topic (one log line, and no more tries for that player in this process;
once :data:`REFUSALS_TO_STOP` players' chats refused, a server older than 9.4 is assumed
and no more tries at all);
a topic the player deleted (the message goes to the plain chat, and so does the rest of
that game: the topic is not made again against the player's wish, ``pmt:<user>`` 0).
Practice games, whose board is in the private chat already, a new lobby's notice to a
subscriber, and messages that belong to no game stay in the plain chat.

The topic is made once for a player and game, even by two replicas on one database (or two
deliveries) that both find none yet: the one that makes it claims ``pmt:<user>`` in the
database first (:meth:`~kolkhoz_tg.service.GameService.claim_meta`, a lease of
:data:`CLAIM_LEASE`) and stores the new topic's id there at once; the others wait for that id
(up to :attr:`PrivateTopics.wait` seconds, looking with reads, then their message waits for
the relay as after any passing failure). A claimant that died is taken over at once when it
was a process of this host (:func:`~kolkhoz_tg.bot.delivery.claims.dead_here`, as the
outbox's claims are); one of another host leaves a claim that lapses with its lease. A
claimant whose lease lapsed before its topic was made (the rate limiter held
``createForumTopic`` back) and finds another's topic stored deletes its own.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from telegram.error import BadRequest, Forbidden, TelegramError

from kolkhoz_tg.bot.delivery.claims import dead_here, relay_name
from kolkhoz_tg.bot.delivery.sender import Passing, topic_gone
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present.topics import private_topic_name
from kolkhoz_tg.service import Busy, MetaClaim, Scene

if TYPE_CHECKING:
    from kolkhoz_tg.bot.delivery.deliverer import Deliverer

log = logging.getLogger(__name__)


def claimant_gone(owner: str) -> bool:
    """Whether the delivery that holds a claim (``<relay name>/<tag>``) was a process of
    this host that is no longer running: its claim is taken over at once."""
    return dead_here(owner.split("/", 1)[0])


#: Players whose private chat refused a topic before this process stops trying for all:
#: one refusal may be that player's own (their client, their settings), several are the
#: server's.
REFUSALS_TO_STOP = 3
#: How long a claim to make a player's topic of a game holds off the others (a
#: ``createForumTopic`` takes well under a second; its retries a few).
CLAIM_LEASE = timedelta(seconds=30)
#: How long (seconds) a delivery waits for the topic another one is making before its
#: message waits for the relay: a ``createForumTopic`` takes well under a second, and the
#: wait holds the game's other deliveries (its lock) and runs within the outbox lease.
CLAIM_WAIT = 5.0
#: Seconds between two looks (reads) at a claim another process holds.
CLAIM_POLL = 0.1
#: Pauses (seconds) before storing a topic made again when the database was busy.
FILL_PAUSES = (0.2, 0.5, 1.0, 2.0)


def thread_of(message: object) -> int | None:
    """The topic of a private chat a tapped or typed message is in, None outside one (a
    forum's topic included: its id means nothing in the private chat): an answer sent
    anew to the private chat goes there too."""
    chat = getattr(message, "chat", None)
    if getattr(chat, "type", None) != "private" or not getattr(
            message, "is_topic_message", False):
        return None
    thread = getattr(message, "message_thread_id", None)
    return int(thread) if thread is not None else None


def pm_topic_key(user_id: int) -> str:
    """The game's topic in the player's private chat (0: the plain chat, for good)."""
    return f"pmt:{user_id}"


class PrivateTopics:
    """Finds or makes a game's topic in a player's private chat (see the module docstring)."""

    def __init__(self, deliverer: Deliverer) -> None:
        self.deliverer = deliverer
        #: Players whose private chat took no topic: not tried again for them here.
        self.refused_users: set[int] = set()
        #: :data:`REFUSALS_TO_STOP` chats took no topic: not tried again in this process.
        self.refused = False
        #: How long (seconds) a delivery waits for the topic another one is making.
        self.wait = CLAIM_WAIT

    def enabled(self, user_id: int | None = None) -> bool:
        """Whether the bot has topic mode on in private chats (getMe, read at start) and,
        given ``user_id``, that player's chat has not refused a topic."""
        if self.refused or user_id in self.refused_users:
            return False
        try:
            me = self.deliverer.sender.bot.bot
        except (AttributeError, RuntimeError):  # not initialized (a bare test bot)
            return False
        return bool(getattr(me, "has_topics_enabled", False))

    def stored(self, scene: Scene, user_id: int, meta: dict[str, Any]) -> int | None:
        """The topic kept for the player's messages of this game: a topic id, 0 for the
        plain chat, None when none is made yet (``meta``: this delivery's new values)."""
        key = pm_topic_key(user_id)
        for known in (meta, self.deliverer.settler.stored(scene.game.id), scene.game.meta):
            if key in known and known[key] is not None:
                return int(known[key])
        return None

    async def topic(self, scene: Scene, user_id: int, meta: dict[str, Any]) -> int | None:
        """Where the game's private message to ``user_id`` goes: its topic (made now when
        needed, its id put in ``meta``), None for the plain chat. Raises :class:`Passing`
        when another delivery's topic is not there within :attr:`wait`, or the database is
        busy."""
        game = scene.game
        if game.practice or game.chat_id > 0 or user_id not in scene.seats:
            return None  # (a new lobby's notice to a subscriber: no game of theirs yet)
        if not self.enabled(user_id):
            return None
        known = self.stored(scene, user_id, meta)
        if known is not None:
            return known or None
        key = pm_topic_key(user_id)
        claim, owner = await self._claim(game.id, key)
        if not claim.claimed:
            meta[key] = claim.value  # made meanwhile by another delivery
            return int(claim.value or 0) or None
        try:
            made = await self._make(scene, user_id)
        except BaseException:
            await self._fill(game.id, key, owner, None)  # (the claim given up)
            raise
        stored = await self._fill(game.id, key, owner, made)
        if made is not None and stored.value != made:
            # Our lease lapsed while the topic was being made (the rate limiter held it
            # back after an outage, say) and another delivery made and stored its own:
            # that one is the game's, ours would stay empty in the player's chat.
            await self._drop(game.id, user_id, made)
        if stored.value is None:
            return None
        meta[key] = stored.value
        return int(stored.value) or None

    async def _claim(self, game_id: int, key: str) -> tuple[MetaClaim, str]:
        """The game's topic for the player, stored already, or the claim to make it (with
        the name it is held under); while another delivery holds that claim, its topic is
        waited for, looking with reads (no write lock) and claiming again only once the
        claim is given up or has lapsed. Raises :class:`Passing` when it takes longer than
        :attr:`wait`, or the database is busy."""
        service = self.deliverer.service
        owner = f"{self.deliverer.owner or relay_name()}/{uuid.uuid4().hex[:8]}"
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.wait
        claim = await self._db(service.claim_meta, game_id, key, owner, CLAIM_LEASE,
                               claimant_gone)
        while not claim.claimed and claim.value is None:
            if loop.time() >= give_up:
                log.info("game %s: %s is still being made elsewhere; the message waits",
                         game_id, key)
                raise Passing(None)
            await asyncio.sleep(CLAIM_POLL)
            claim = await self._db(service.peek_meta, game_id, key, claimant_gone)
            if claim.value is None and claim.until is None:  # given up, lapsed, or dead
                claim = await self._db(service.claim_meta, game_id, key, owner, CLAIM_LEASE,
                                       claimant_gone)
        return claim, owner

    @staticmethod
    async def _db(fn: Callable[..., MetaClaim], *args: Any) -> MetaClaim:
        """``fn(*args)`` in a worker thread; a busy database (another process holds
        SQLite's write lock) becomes :class:`Passing`: the message waits for the relay."""
        try:
            return await asyncio.to_thread(fn, *args)
        except Busy as e:
            raise Passing(None) from e

    async def _fill(self, game_id: int, key: str, owner: str, made: int | None) -> MetaClaim:
        """Store the topic made (None: nothing was made) and give the claim up: what the
        game keeps. A busy database is tried again a few times (:data:`FILL_PAUSES`) when a
        topic was made: else its id would be lost, and once the lease lapsed a second topic
        made; when it stays busy the id goes into this delivery's meta, stored when the
        outbox is settled (whose busy database is tried again in the background)."""
        fill = self.deliverer.service.fill_meta
        for pause in (*FILL_PAUSES, None) if made is not None else (None,):
            try:
                return await asyncio.to_thread(fill, game_id, key, owner, made)
            except Busy:
                if pause is None:
                    break
                await asyncio.sleep(pause)
        if made is not None:
            log.warning("game %s: the database stayed busy; %s (%s) is stored when the "
                        "outbox is settled, its claim lapses with its lease", game_id, key,
                        made)
        return MetaClaim(made)  # (nothing made: the claim lapses with its lease)

    async def _drop(self, game_id: int, user_id: int, topic: int) -> None:
        """Delete a topic this delivery made that the game does not keep (best effort)."""
        log.info("game %s: user %s got another topic meanwhile; topic %s is deleted",
                 game_id, user_id, topic)
        try:
            await self.deliverer.sender.bot.delete_forum_topic(user_id, topic)
        except TelegramError as e:
            log.warning("game %s: topic %s in user %s's chat could not be deleted: %s",
                        game_id, topic, user_id, e)

    async def _make(self, scene: Scene, user_id: int) -> int | None:
        """Make the game's topic in the player's private chat: its id, None when there is
        none (the fallbacks of the module docstring)."""
        game = scene.game
        tr = translator(scene.locales.get(user_id, scene.chat_locale))
        name = private_topic_name(tr, game, scene.chat_title)
        sender = self.deliverer.sender
        try:
            made = await sender.guard(user_id, sender.bot.create_forum_topic(user_id, name))
        except Forbidden:
            return None  # blocked, or never started: the send says so
        except BadRequest as e:
            if "chat not found" in e.message.lower():
                return None
            self.refused_users.add(user_id)
            if len(self.refused_users) < REFUSALS_TO_STOP:
                log.info("user %s: no topic in their private chat (%s): their games write "
                         "to the plain private chat", user_id, e.message)
            else:
                log.info("no topics in private chats here (%s): games write to the plain "
                         "private chat", e.message)
                self.refused = True
            return None
        return int(made.message_thread_id)

    def lost(self, game_id: int, user_id: int, meta: dict[str, Any]) -> None:
        """The player deleted the game's topic: the rest of the game goes to the plain
        chat."""
        log.info("game %s: user %s deleted its private topic; its messages go to the "
                 "plain private chat", game_id, user_id)
        meta[pm_topic_key(user_id)] = 0

    async def send_text(self, user_id: int, text: str, topic: int | None) -> None:
        """A plain text to the player, into the game's topic ``topic`` (kept, never made
        here) and into the plain chat when there is none or it is gone; Telegram's other
        refusals are raised."""
        bot = self.deliverer.sender.bot
        if topic:
            try:
                await bot.send_message(user_id, text, message_thread_id=topic)
                return
            except BadRequest as e:
                if not topic_gone(e):
                    raise
        await bot.send_message(user_id, text)
