"""The :class:`Deliverer`: carries out delivery plans (:mod:`kolkhoz_tg.bot.plan`) on
Telegram and settles the outbox, game by game.

The service writes every notification to its outbox in the same transaction as the change
(born claimed by this process: :attr:`GameService.outbox_owner`). The handler that made the
change delivers its notifications at once with the :class:`~kolkhoz_tg.service.Scene` the
change returned (no database read); the :class:`~kolkhoz_tg.bot.delivery.claims.Relay` on
PTB's job queue delivers anything else that is due: what another process or the sweep
wrote, what failed before (after a back-off), what a crashed process had claimed. Each
game's attempt ends with one settle call (:mod:`~kolkhoz_tg.bot.delivery.settle`).

The deliverer orchestrates its parts: :class:`~kolkhoz_tg.bot.delivery.claims.Claims`
(only what this process still holds goes out), the
:class:`~kolkhoz_tg.bot.delivery.steps.StepRunner` (each step on Telegram, through the
guarded :class:`~kolkhoz_tg.bot.delivery.sender.Sender`), the
:class:`~kolkhoz_tg.bot.delivery.group_queue.GroupQueues` (the group's part at the group's
pace), the :class:`~kolkhoz_tg.bot.delivery.settle.Settler` and
:class:`~kolkhoz_tg.bot.delivery.topic_loss.TopicLoss` (a game whose forum topic is gone).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Callable, Coroutine, Iterable, Mapping
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from telegram.error import BadRequest, TelegramError
from telegram.ext import ExtBot

from kolkhoz_tg import present
from kolkhoz_tg.bot import plan as planning
from kolkhoz_tg.bot.delivery.claims import Claims
from kolkhoz_tg.bot.delivery.group_queue import GroupQueues, group_part, in_order
from kolkhoz_tg.bot.delivery.private_topics import PrivateTopics
from kolkhoz_tg.bot.delivery.sender import Passing, Sender, ShownCache, TopicGone, topic_gone
from kolkhoz_tg.bot.delivery.settle import Outcome, Settler
from kolkhoz_tg.bot.delivery.steps import StepRunner
from kolkhoz_tg.bot.delivery.topic_loss import TopicLoss
from kolkhoz_tg.bot.ephemeral import Ephemeral
from kolkhoz_tg.bot.pace import GroupPace
from kolkhoz_tg.bot.steps import BOARD_KEY, Acting, Board, Plan
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.service import (
    FAULT_GRACE,
    Busy,
    GameService,
    Kind,
    NotFound,
    Notification,
    Scene,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Set on a game paused because the bot was removed from its group; the game goes on by
#: itself when the bot is added back (a pause or resume by hand clears it).
ABSENT_KEY = "paused:bot_removed"
#: How many games of one batch of notifications are delivered at the same time.
GAMES_AT_ONCE = 8
#: Background tasks started without an application (kept from the garbage collector).
_TASKS: set[asyncio.Task[None]] = set()


def spawn_task(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """Run ``coro`` in the background on the running loop (a reference is kept until it
    ends)."""
    task = asyncio.get_running_loop().create_task(coro)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)
    return task


class Deliverer:
    """Sends what :func:`kolkhoz_tg.bot.plan.plan` decides; see the module docstring."""

    def __init__(
        self,
        bot: ExtBot[Any],
        service: GameService,
        bot_username: Callable[[], str],
    ) -> None:
        self.service = service
        self._username = bot_username
        #: One delivery at a time per game.
        self.locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        #: The newest game version each game's messages show (an older scene is re-read).
        self._versions: dict[int, int] = {}
        #: Chats to leave alone until the given time (flood control, a failing chat).
        self.chat_wait: dict[int, datetime] = {}
        #: The name this process claims notifications under (its relay's, set by
        #: :class:`~kolkhoz_tg.bot.delivery.claims.Relay`); None: no claims are checked.
        self.owner: str | None = None
        #: Seconds between renewals of the claims of a delivery in progress (None: a third
        #: of the service's ``outbox_lease``).
        self.heartbeat: float | None = None
        #: Starts a background task (the application's ``create_task``, so that it is
        #: waited for at shutdown and in tests; see :mod:`kolkhoz_tg.bot.app`).
        self.spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]] = spawn_task
        #: The groups' budgets, spent by urgency (set by the application when it keeps to
        #: Telegram's pace; None: every call goes at once, as in most tests).
        self.pace: GroupPace | None = None
        #: What each message this process last showed says, per (chat, message): an edit
        #: that would change nothing is not made (Telegram refuses it, and it costs a slot
        #: of the group's budget all the same).
        self.shown: ShownCache = ShownCache()
        self.sender = Sender(bot, service, self.shown)
        #: The players' hands shown in their groups to them alone (Bot API 10.3).
        self.ephemeral = Ephemeral()
        self.settler = Settler(self)
        self.steps = StepRunner(self)
        self.group = GroupQueues(self)
        self.topic_loss = TopicLoss(self)
        #: Each game's topic in its players' private chats (Bot API 9.4).
        self.private_topics = PrivateTopics(self)

    @property
    def bot(self) -> ExtBot[Any]:
        """The bot the messages go out through (a test may put a gated one in its place)."""
        return self.sender.bot

    @bot.setter
    def bot(self, bot: ExtBot[Any]) -> None:
        self.sender.bot = bot

    # ------------------------------------------------------------------ plumbing

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        return await asyncio.to_thread(fn, *args, **kwargs)

    def now(self) -> datetime:
        return self.service.clock.now()

    def tr_chat(self, chat_id: int) -> Translator:
        return translator(self.service.locale_for(chat_id=chat_id))

    def tr_user(self, user_id: int, chat_id: int | None = None) -> Translator:
        return translator(self.service.locale_for(user_id=user_id, chat_id=chat_id))

    # ------------------------------------------------------------------ entry points

    async def deliver(
        self, notes: Iterable[Notification], acting: Acting | None = None,
        scene: Scene | None = None, scenes: Mapping[int, Scene] | None = None,
    ) -> None:
        """Show ``notes`` to their readers, game by game. ``scene`` (a tap's) or ``scenes``
        (the clock's, by game): the game as the change that wrote them left it (saves
        reading it again); ``acting``: the message the player who caused them tapped."""
        by_game: dict[int, list[Notification]] = defaultdict(list)
        orphans: list[int] = []
        for note in notes:
            if note.game_id is None:
                orphans.append(note.id)
            else:
                by_game[note.game_id].append(note)
        if orphans:
            await self.settler.settle_ids(None, orphans)
        # The games of a batch go out side by side (a backlog after a restart is not
        # delivered one game after another), a few at a time.
        gate = asyncio.Semaphore(GAMES_AT_ONCE)

        async def one(game_id: int, group: list[Notification]) -> None:
            fits = scene if scene is not None and scene.game.id == game_id else None
            if fits is None and scenes is not None:
                fits = scenes.get(game_id)
            async with gate:
                await self._deliver_one(game_id, group, acting, fits)

        if len(by_game) == 1:
            [(game_id, group)] = by_game.items()
            await one(game_id, group)
            return
        done = await asyncio.gather(*(one(g, group) for g, group in by_game.items()),
                                    return_exceptions=True)
        for failure in done:
            if isinstance(failure, BaseException):
                raise failure  # (Busy: the relay tries again; nothing else is raised)

    async def _deliver_one(
        self, game_id: int, group: list[Notification], acting: Acting | None,
        scene: Scene | None,
    ) -> None:
        try:
            await self.deliver_game(game_id, group, acting, scene)
        except Busy:
            raise
        except Exception:
            # A bug that this game's messages meet every time (one that cannot be drawn,
            # say) must hold neither the other games of the batch nor the outbox for ever:
            # they go back with the growing back-off, and are given up once they have
            # failed long enough (outbox.GIVE_UP_AFTER).
            log.exception("game %s: its messages could not be delivered", game_id)
            with contextlib.suppress(Exception):
                await self.settler.settle_with(game_id, partial(
                    self.service.settle_notifications, retry=[n.id for n in group],
                    owner=self.owner))

    async def deliver_game(
        self, game_id: int, notes: list[Notification], acting: Acting | None = None,
        scene: Scene | None = None,
    ) -> None:
        async with self.locks[game_id]:
            if await self.settler.settled_first(game_id):
                scene = None  # made before the late settle stored its meta: read it again
            claims = Claims(self.service, self.owner, notes)
            if not await claims.keep():
                # Taken over by another relay while this delivery waited (or delivered
                # already): only what is still ours goes out from here.
                notes = [n for n in notes if n.id not in claims.lost]
                if not notes:
                    return
                claims = Claims(self.service, self.owner, notes)
                claims.until = self.now() + self.service.outbox_lease
            if scene is None or scene.game.version < self._versions.get(game_id, 0):
                try:
                    scene = await self.call(self.service.scene, game_id)
                except NotFound:
                    await self.settler.settle_ids(game_id, [n.id for n in notes])
                    return
            self._versions[game_id] = max(self._versions.get(game_id, 0), scene.game.version)
            if scene.game.practice:
                # Its bots move at once, in transactions that may have begun before the
                # delivery just before this one stored which message shows the player's
                # cards: without it that message would be sent again instead of edited. (One
                # player, one process: what this process stored last is the newest.)
                scene.game.meta.update(self.settler.stored(game_id))
            rated = await self._ratings(scene, notes)
            steps = planning.plan(notes, scene, self.now(), self._username(), acting,
                                  ratings=rated)
            steps.steps = in_order(steps.steps, acting)
            steps.sending = {n.id: n.sending for n in notes if n.sending}
            steps.steps = [self.steps.as_shown(s) if isinstance(s, Board) else s
                           for s in steps.steps]  # (a rich board as this server shows it)
            deferred = group_part(steps)
            if deferred:
                steps.steps = [s for s in steps.steps if s not in deferred]
                held = {n for s in deferred for n in s.notes}
                self.group.queue(game_id, scene, deferred,
                                 [n for n in notes if n.id in held])
                claims.ids -= held
            outcome = await self._carry_out_kept(scene, steps, claims)
            await self.settler.settle(game_id, outcome)
        await self.topic_loss.after(game_id, outcome, notes)
        if deferred:
            await self.group.start_painter(game_id)
        await self._late_turns(game_id, notes, outcome)

    async def _late_turns(
        self, game_id: int, notes: list[Notification], outcome: Outcome
    ) -> None:
        """Turns that reached their players late (a send that failed and went out again,
        flood control, a restart): the service counts their time from now, and the note it
        writes for the group goes out (docs/bot.md, *No penalty for our own faults*)."""
        done = set(outcome.delivered)
        now = self.now()
        late = [n.id for n in notes if n.kind is Kind.YOUR_TURN and n.id in done
                and now - n.created_at > FAULT_GRACE]
        if not late:
            return
        try:
            made_good = await self.call(self.service.turn_delivered, game_id, late)
        except Exception:  # (the deadline then stays as it was; nothing else is lost)
            log.exception("game %s: the time of a late turn could not be made good", game_id)
            return
        if made_good.notifications:
            await self.deliver(made_good.notifications, scenes=made_good.scenes)

    async def _ratings(
        self, scene: Scene, notes: list[Notification]
    ) -> dict[int, tuple[int, int]]:
        """At the end of a rated game, what it did to each player's rating (before, after),
        for their private message; else (or when it cannot be read) nothing."""
        if scene.game.practice or not any(n.kind is Kind.GAME_OVER for n in notes):
            return {}
        try:
            return await self.call(self.service.rating_changes, scene.game.id)
        except Exception:  # (a rating is not worth holding the last word back)
            log.exception("game %s: its rating changes could not be read", scene.game.id)
            return {}

    async def _carry_out_kept(self, scene: Scene, steps: Plan, claims: Claims) -> Outcome:
        """Carry the steps out while the claims are renewed in the background (every
        :attr:`heartbeat` seconds)."""
        every = self.heartbeat
        if every is None:
            every = self.service.outbox_lease.total_seconds() / 3
        beat = asyncio.create_task(claims.beat(every)) if claims.active else None
        try:
            return await self.steps.carry_out(scene, steps, claims)
        finally:
            if beat is not None:
                beat.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await beat

    async def show_private(self, scene: Scene, acting: Acting) -> None:
        """Edit the message a player tapped to show the game as it is now (their tap
        changed nothing: an old button, a move that is not allowed)."""
        async with self.locks[scene.game.id]:
            if await self.settler.settled_first(scene.game.id):
                scene = await self.call(self.service.scene, scene.game.id)
            step = planning.private_step(scene, acting.user_id, self.now(), self._username(),
                                         acting, new=False)
            if step is None:
                return
            outcome = await self.steps.carry_out(scene, Plan(scene.game.id, [step]))
            await self.settler.settle(scene.game.id, outcome)
        await self.topic_loss.after(scene.game.id, outcome)

    async def paint_board(self, game_id: int) -> None:
        """Send what waits for the game's group (see :meth:`GroupQueues.paint_board`)."""
        await self.group.paint_board(game_id)

    async def boards_painted(self) -> None:
        """Wait until no board edit is waiting for its group's budget (a drain, a clean
        shutdown)."""
        await self.group.boards_painted()

    async def refresh_board(
        self, game_id: int, resend: bool = False, pin: bool = False
    ) -> int | None:
        """Edit the game's board message (or send it when there is none, or ``resend``);
        ``pin`` it, quietly, where the bot may pin (elsewhere it is only sent)."""
        async with self.locks[game_id]:
            await self.settler.settled_first(game_id)
            scene = await self.call(self.service.scene, game_id)
            if scene.board.view is None:  # the lobby, naming whom the bot cannot reach
                tr = translator(scene.chat_locale)
                unreachable = [s.name for s in scene.game.seats
                               if s.user_id is not None and not scene.can_pm.get(s.user_id)]
                level = await self.call(self.service.chat_ai_level, scene.game.chat_id)
                msg = present.lobby_message(tr, scene.game, unreachable, self._username(), level)
                step = Board(scene.game.chat_id, scene.game.meta.get(BOARD_KEY), msg.text,
                             msg.keyboard, pin=pin, resend=resend,
                             topic_id=scene.game.topic_id)
            else:
                step = planning.board_step(scene, self.now(), self._username(), pin=pin,
                                           resend=resend)
            outcome = await self.steps.carry_out(scene, Plan(game_id, [step]))
            await self.settler.settle(game_id, outcome)
        if await self.topic_loss.after(game_id, outcome):
            return None
        board = outcome.meta.get(BOARD_KEY, scene.game.meta.get(BOARD_KEY))
        return int(board) if board else None

    async def refresh_private(
        self, game_id: int, user_id: int, new: bool, acting: Acting | None = None
    ) -> bool:
        """Show the player their game: a new message (``new``) or an edit of the one they
        tapped or last got. Falls back to a group mention with a deep link when the bot
        cannot write to them. Returns whether the private message went out."""
        async with self.locks[game_id]:
            await self.settler.settled_first(game_id)
            try:
                scene = await self.call(self.service.scene, game_id)
            except NotFound:
                return False
            step = planning.private_step(scene, user_id, self.now(), self._username(),
                                         acting, new=new)
            if step is None:
                return False
            outcome = await self.steps.carry_out(scene, Plan(game_id, [step]))
            await self.settler.settle(game_id, outcome)
        await self.topic_loss.after(game_id, outcome)
        return user_id in outcome.shown

    async def say_in_group(
        self, chat_id: int, text: str, topic_id: int | None = None,
        keyboard: present.Keyboard | None = None,
    ) -> int | None:
        """A plain message to the group (into its forum topic ``topic_id``, if given); None
        if the bot is not there, or the topic is gone."""
        try:
            return await self.sender.send_group(chat_id, text, keyboard, topic_id=topic_id)
        except (Passing, TopicGone):
            return None
        except BadRequest as e:
            if not topic_gone(e):
                raise
            log.info("could not post in chat %s (its General closed?): %s", chat_id, e)
            return None

    async def say_privately(self, user_id: int, text: str, topic: int | None = None) -> bool:
        """A plain private message to one user (into the private chat's ``topic``, if given
        and still there); False if it could not go out."""
        try:
            await self.private_topics.send_text(user_id, text, topic)
        except TelegramError as e:
            log.info("could not write to user %s: %s", user_id, e)
            return False
        return True

    async def tell_players(
        self, game_id: int, say: Callable[[Translator, str], str]
    ) -> list[int]:
        """Write privately to the game's seated players the bot can reach, each in their
        language: ``say(tr, chat_title)`` makes the text. Returns who got it (no group
        mention for the others: this is for when the group is out of reach)."""
        scene = await self.call(self.service.scene, game_id)
        title = scene.chat_title or str(scene.game.chat_id)
        told = []
        for user_id, can in scene.can_pm.items():
            if not can:
                continue
            tr = translator(scene.locales.get(user_id, scene.chat_locale))
            try:
                await self.private_topics.send_text(
                    user_id, say(tr, title), self.private_topics.stored(scene, user_id, {}))
            except TelegramError as e:
                log.info("could not tell user %s about game %s: %s", user_id, game_id, e)
                continue
            told.append(user_id)
        return told

