"""Carry out delivery plans (:mod:`kolkhoz_tg.bot.plan`) on Telegram and settle the outbox.

The service writes every notification to its outbox in the same transaction as the change
(born claimed by this process: :attr:`GameService.outbox_owner`). The handler that made the
change delivers its notifications at once with the :class:`~kolkhoz_tg.service.Scene` the
change returned (no database read); the :class:`Relay` on PTB's job queue delivers anything
else that is due: what another process or the sweep wrote, what failed before (after a
back-off), what a crashed process had claimed. Each game's attempt ends with one
:meth:`~kolkhoz_tg.service.GameService.settle_notifications` call: the notifications whose
steps went out (or cannot ever go out: the user blocked the bot) are delivered; those that
met a passing failure (a network error, a 5xx, flood control beyond the retries) go back
with a back-off, so a "your turn" that failed is sent again, and nothing is marked delivered
that was not. A settle that meets a busy SQLite (another process holds the write lock) is
made again in the background a moment later, before the game's next delivery: what went out
must be recorded, or it goes out again once its claims lapse.

A message is sent only while this process holds its claim (a lease, see
:meth:`~kolkhoz_tg.service.GameService.hold_notifications`): a delivery that starts late (it
waited for the game's lock, the thread pool, the rate limiter) renews the claim first, the
claims of a game being delivered are renewed in the background while its calls are in flight
(a slow Bot API, flood control), and a delivery whose claims another process's relay took
over meanwhile (its lease lapsed) stops before its next message: that relay sends them. So
two replicas never both post, say, a game's final table.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
import socket
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Coroutine, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, TypeVar

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.ext import ExtBot

from kolkhoz_tg import present as render
from kolkhoz_tg import present as texts
from kolkhoz_tg.bot import plan as planning
from kolkhoz_tg.bot.pace import BOARD, URGENT, GroupPace
from kolkhoz_tg.bot.plan import (
    BOARD_KEY,
    BOARD_STYLE_KEY,
    TOPIC_LOST_KEY,
    TOPIC_OWN_KEY,
    Acting,
    Board,
    CloseTopic,
    GroupPost,
    Plan,
    Private,
    PrivateNote,
    Step,
    live_key,
    pm_key,
)
from kolkhoz_tg.bot.retry import PREPAID
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.service import (
    Busy,
    GameService,
    Kind,
    NotAllowed,
    NotFound,
    Notification,
    Scene,
    ServiceError,
)

log = logging.getLogger(__name__)
#: Where board pictures are drawn: one thread, off the event loop (the fonts Pillow
#: loaded once are shared by every drawing, and one thread needs no lock around them).
PICTURES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pictures")


def cached_board_png(*args: Any, **kwargs: Any) -> bytes:
    """:func:`kolkhoz_tg.picture.cached_board_png`, imported when a group first wants a
    picture (Pillow and the drawing code are some 17 MB a bot without pictures never
    needs)."""
    from kolkhoz_tg.picture import cached_board_png as draw

    return draw(*args, **kwargs)
T = TypeVar("T")

#: Set on a game paused because the bot was removed from its group; the game goes on by
#: itself when the bot is added back (a pause or resume by hand clears it).
ABSENT_KEY = "paused:bot_removed"
#: Pauses between the background tries of a settle that met a busy SQLite (seconds; with
#: SQLite's own busy wait on each try, well within an outbox lease).
SETTLE_PAUSES = (0.2, 0.5, 1.0, 2.0, 4.0, 6.0)
#: Background tasks started without an application (kept from the garbage collector).
_TASKS: set[asyncio.Task[None]] = set()


def spawn_task(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """Run ``coro`` in the background on the running loop (a reference is kept until it
    ends)."""
    task = asyncio.get_running_loop().create_task(coro)
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)
    return task

__all__ = ["ABSENT_KEY", "BOARD_KEY", "TOPIC_LOST_KEY", "TOPIC_OWN_KEY", "Acting", "Deliverer",
           "Relay", "is_not_modified", "markup", "pm_key", "topic_gone"]


def markup(keyboard: render.Keyboard) -> InlineKeyboardMarkup | None:
    """Telegram markup for render's plain buttons (None for no buttons)."""
    if not keyboard:
        return None
    rows = []
    for row in keyboard:
        buttons = []
        for b in row:
            if b.url is not None:
                buttons.append(InlineKeyboardButton(b.text, url=b.url))
            elif b.inline_query is not None:
                buttons.append(
                    InlineKeyboardButton(b.text, switch_inline_query_current_chat=b.inline_query)
                )
            else:
                buttons.append(InlineKeyboardButton(b.text, callback_data=b.data))
        rows.append(buttons)
    return InlineKeyboardMarkup(rows)


def is_not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def _gone(error: BadRequest) -> bool:
    """The message to edit or the chat no longer exists."""
    text = error.message.lower()
    return "not found" in text or "can't be edited" in text


def topic_gone(error: BadRequest) -> bool:
    """The forum topic a message was sent to is deleted, or closed to the bot (which may
    not manage topics there)."""
    text = error.message.lower()
    return "message thread not found" in text or "topic_closed" in text


class _TopicGone(Exception):
    """The game's forum topic is gone: nothing more can be posted there."""

    def __init__(self, chat_id: int, topic_id: int) -> None:
        super().__init__(chat_id, topic_id)
        self.chat_id = chat_id
        self.topic_id = topic_id


class _Passing(Exception):
    """A step failed for a passing reason: its notifications wait for the relay."""

    def __init__(self, chat_id: int | None, until: datetime | None = None) -> None:
        super().__init__(chat_id, until)
        self.chat_id = chat_id
        self.until = until


@dataclass
class _Outcome:
    """What one game's delivery attempt did, for the single settle call at its end."""

    delivered: list[int] = field(default_factory=list)
    retry: list[int] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    no_pm: set[int] = field(default_factory=set)
    not_before: datetime | None = None
    #: Players whose game message went out (sent or edited).
    shown: set[int] = field(default_factory=set)
    #: Not tried (the claims were lost midway): back to the outbox at once.
    release: list[int] = field(default_factory=list)
    #: The game's forum topic turned out to be deleted: (chat id, topic id).
    topic_gone: tuple[int, int] | None = None
    #: Records of the game (a year's summary, the final table) that could not go into its
    #: gone topic: posted in "General" once the game has moved (see :meth:`Deliverer._after`),
    #: their notifications settled then.
    moved: list[GroupPost] = field(default_factory=list)


#: Board notifications that are news in themselves (the game stops, goes on, ends; a bot
#: takes a seat or gives it back): their board edit takes the group's next slot, like a
#: reply, instead of waiting behind the board's pace. (A year's end has its summary, a
#: post of its own, for that.)
URGENT_BOARDS = frozenset({
    Kind.PAUSED, Kind.RESUMED, Kind.ABORTED, Kind.GAME_OVER, Kind.STAND_IN, Kind.PLAYER_BACK,
})


@dataclass
class _GroupQueue:
    """What waits to go to a game's group: the steps in order (the boards among them are
    drawn as one, the newest, when their turn comes), the game as last delivered, and the
    notifications the steps show."""

    scene: Scene
    steps: list[Step]
    notes: list[Notification]


class ShownCache:
    """What this process last made a message say (text and buttons), so that an edit that
    would change nothing is skipped. Bounded: the oldest entries go first."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._said: OrderedDict[tuple[int, int], int] = OrderedDict()

    @staticmethod
    def _digest(text: str, keyboard: render.Keyboard) -> int:
        return hash((text, tuple(tuple(row) for row in keyboard)))

    def same(self, chat_id: int, message_id: int, text: str,
             keyboard: render.Keyboard) -> bool:
        return self._said.get((chat_id, message_id)) == self._digest(text, keyboard)

    def put(self, chat_id: int, message_id: int, text: str,
            keyboard: render.Keyboard) -> None:
        key = (chat_id, message_id)
        self._said[key] = self._digest(text, keyboard)
        self._said.move_to_end(key)
        if len(self._said) > self.LIMIT:
            self._said.popitem(last=False)

    def forget(self, chat_id: int, message_id: int) -> None:
        self._said.pop((chat_id, message_id), None)


def in_order(steps: list[Step], acting: Acting | None) -> list[Step]:
    """The steps in the order they should go out: the message of the player who tapped
    first (their answer is what they wait for), then the other private messages (no group
    budget to wait for), then what goes to the group. Each chat keeps its own order."""
    def rank(step: Step) -> int:
        if isinstance(step, Private) and acting is not None and step.user_id == acting.user_id:
            return 0
        return 1 if isinstance(step, Private | PrivateNote) else 2
    return sorted(steps, key=rank)


def _group_part(steps: Plan) -> list[Step]:
    """The steps of a plan that can go to the group after the rest, at the group's pace:
    board edits, posts and the closing of a topic, unless the plan sends the board anew
    or pins it (the start of a game, /board: those go in order, at once) or a notification
    is shown both there and in a private message."""
    group: list[Step] = [
        s for s in steps.steps if isinstance(s, Board | GroupPost | CloseTopic)]
    if any(isinstance(s, Board) and (s.resend or s.pin or s.message_id is None)
           for s in group):
        return []
    shown = {n for s in group for n in s.notes}
    if any(shown & set(s.notes) for s in steps.steps if s not in group):
        return []
    return group


def _collapse_boards(steps: list[Step], notes: list[Notification]) -> list[Step]:
    """One board edit for several queued ones: the newest board, where the first one was
    (the older board notes are superseded in the outbox by the newest one)."""
    boards = [s for s in steps if isinstance(s, Board)]
    if len(boards) < 2:
        return steps
    newest = boards[-1]
    kinds = {n.id: n.kind for n in notes}
    ids = [n for b in boards for n in b.notes
           if kinds.get(n) is not Kind.BOARD or n in newest.notes]
    merged = dataclasses.replace(newest, notes=tuple(dict.fromkeys(ids)))
    out: list[Step] = []
    for step in steps:
        if step is boards[0]:
            out.append(merged)
        elif not isinstance(step, Board):
            out.append(step)
    return out


class _Claims:
    """The outbox claims one game's delivery holds, and until when (as far as this process
    knows: the lease it last took, counted from before it took it). :meth:`keep` renews them
    when half the lease is gone and tells whether they are all still ours."""

    def __init__(self, deliverer: Deliverer, owner: str | None, notes: list[Notification]):
        self.deliverer = deliverer
        self.owner = owner
        self.ids = {n.id for n in notes}
        # Born claimed by this process (or claimed by its relay since): held at least until
        # their creation plus a lease.
        lease = deliverer.service.outbox_lease
        self.until = min((n.created_at for n in notes), default=deliverer.now()) + lease
        if self.until.tzinfo is None:
            self.until = self.until.replace(tzinfo=UTC)
        self.lost: set[int] = set()
        self._lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return self.owner is not None and bool(self.ids)

    async def keep(self) -> bool:
        """Whether every claim is still ours, renewing them if half their lease is gone (or
        the process has started giving its claims back)."""
        if not self.active:
            return not self.lost
        d, owner = self.deliverer, self.owner
        assert owner is not None
        async with self._lock:
            if self.lost:
                return False
            lease = d.service.outbox_lease
            now = d.now()
            if d.service.outbox_owner == owner and now < self.until - lease / 2:
                return True
            try:
                held = await d.call(d.service.hold_notifications, owner, self.ids)
            except Busy:
                # Another process holds SQLite's write lock, so nobody can take them over
                # either: ours while the lease we hold runs.
                return now < self.until
            self.lost = self.ids - held
            self.until = now + lease
            if self.lost:
                log.warning("notifications %s were taken over by another relay; not sending "
                            "them here", sorted(self.lost))
            return not self.lost

    async def beat(self, every: float) -> None:
        """Keep the claims while the game's Bot API calls are in flight."""
        while True:
            await asyncio.sleep(every)
            try:
                if not await self.keep():
                    return
            except Exception:  # the next step's keep() tries again
                log.warning("could not renew the outbox claims", exc_info=True)


class Deliverer:
    """Sends what :func:`kolkhoz_tg.bot.plan.plan` decides; see the module docstring."""

    def __init__(
        self,
        bot: ExtBot[Any],
        service: GameService,
        bot_username: Callable[[], str],
    ) -> None:
        self.bot = bot
        self.service = service
        self._username = bot_username
        self._locks: dict[int, asyncio.Lock] = defaultdict(asyncio.Lock)
        #: The newest game version each game's messages show (an older scene is re-read).
        self._shown: dict[int, int] = {}
        #: The meta values this process stored after its deliveries, per game: a scene made
        #: by a transaction that ran before a delivery's settle misses them (see
        #: :meth:`deliver_game`).
        self._settled: dict[int, dict[str, Any]] = {}
        #: Chats to leave alone until the given time (flood control, a failing chat).
        self.chat_wait: dict[int, datetime] = {}
        #: The name this process claims notifications under (its relay's, set by
        #: :class:`Relay`); None: no claims are checked.
        self.owner: str | None = None
        #: Seconds between renewals of the claims of a delivery in progress (None: a third
        #: of the service's ``outbox_lease``).
        self.heartbeat: float | None = None
        #: Starts a background task (the application's ``create_task``, so that it is
        #: waited for at shutdown and in tests; see :mod:`kolkhoz_tg.bot.app`).
        self.spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]] = spawn_task
        #: Settles that met a busy SQLite and are being made again in the background, per
        #: game (None: notifications of no game): the game's next delivery waits for it.
        self._settling: dict[int | None, asyncio.Task[None]] = {}
        #: The groups' budgets, spent by urgency (set by the application when it keeps to
        #: Telegram's pace; None: every call goes at once, as in most tests).
        self.pace: GroupPace | None = None
        #: What waits for a slot of the group's budget, per game (see :meth:`paint_board`).
        self._boards: dict[int, _GroupQueue] = {}
        self._painters: dict[int, asyncio.Task[None]] = {}
        #: What each message this process last showed says, per (chat, message): an edit
        #: that would change nothing is not made (Telegram refuses it, and it costs a slot
        #: of the group's budget all the same).
        self.shown: ShownCache = ShownCache()

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
        scene: Scene | None = None,
    ) -> None:
        """Show ``notes`` to their readers, game by game. ``scene``: the game as the change
        that wrote them left it (saves reading it again); ``acting``: the message the
        player who caused them tapped."""
        by_game: dict[int, list[Notification]] = defaultdict(list)
        orphans: list[int] = []
        for note in notes:
            if note.game_id is None:
                orphans.append(note.id)
            else:
                by_game[note.game_id].append(note)
        if orphans:
            await self._settle_ids(None, orphans)
        for game_id, group in by_game.items():
            fits = scene if scene is not None and scene.game.id == game_id else None
            try:
                await self.deliver_game(game_id, group, acting, fits)
            except Busy:
                raise
            except Exception:
                # A bug that this game's messages meet every time (one that cannot be
                # drawn, say) must hold neither the other games of the batch nor the
                # outbox for ever: they go back with the growing back-off, and are given up
                # once they have failed long enough (outbox.GIVE_UP_AFTER).
                log.exception("game %s: its messages could not be delivered", game_id)
                with contextlib.suppress(Exception):
                    await self._settle_with(game_id, partial(
                        self.service.settle_notifications, retry=[n.id for n in group],
                        owner=self.owner))

    async def deliver_game(
        self, game_id: int, notes: list[Notification], acting: Acting | None = None,
        scene: Scene | None = None,
    ) -> None:
        async with self._locks[game_id]:
            if await self._settled_first(game_id):
                scene = None  # made before the late settle stored its meta: read it again
            claims = _Claims(self, self.owner, notes)
            if not await claims.keep():
                # Taken over by another relay while this delivery waited (or delivered
                # already): only what is still ours goes out from here.
                notes = [n for n in notes if n.id not in claims.lost]
                if not notes:
                    return
                claims = _Claims(self, self.owner, notes)
                claims.until = self.now() + self.service.outbox_lease
            if scene is None or scene.game.version < self._shown.get(game_id, 0):
                try:
                    scene = await self.call(self.service.scene, game_id)
                except NotFound:
                    await self._settle_ids(game_id, [n.id for n in notes])
                    return
            self._shown[game_id] = max(self._shown.get(game_id, 0), scene.game.version)
            if scene.game.practice:
                # Its bots move at once, in transactions that may have begun before the
                # delivery just before this one stored which message shows the player's
                # cards: without it that message would be sent again instead of edited. (One
                # player, one process: what this process stored last is the newest.)
                scene.game.meta.update(self._settled.get(game_id, {}))
            rated: dict[int, tuple[int, int]] = {}
            if not scene.game.practice and any(n.kind is Kind.GAME_OVER for n in notes):
                try:  # each player's private message says what the game did to them
                    rated = await self.call(self.service.rating_changes, game_id)
                except Exception:  # (a rating is not worth holding the last word back)
                    log.exception("game %s: its rating changes could not be read", game_id)
            steps = planning.plan(notes, scene, self.now(), self._username(), acting,
                                  ratings=rated)
            steps.steps = in_order(steps.steps, acting)
            deferred = _group_part(steps)
            if deferred:
                steps.steps = [s for s in steps.steps if s not in deferred]
                held = {n for s in deferred for n in s.notes}
                self._queue_group(game_id, scene, deferred,
                                  [n for n in notes if n.id in held])
                claims.ids -= held
            every = self.heartbeat
            if every is None:
                every = self.service.outbox_lease.total_seconds() / 3
            beat = asyncio.create_task(claims.beat(every)) if claims.active else None
            try:
                outcome = await self._carry_out(scene, steps, claims)
            finally:
                if beat is not None:
                    beat.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await beat
            await self._settle(game_id, outcome)
        await self._after(game_id, outcome, notes)
        if deferred:
            await self._start_painter(game_id)

    async def show_private(self, scene: Scene, acting: Acting) -> None:
        """Edit the message a player tapped to show the game as it is now (their tap
        changed nothing: an old button, a move that is not allowed)."""
        async with self._locks[scene.game.id]:
            if await self._settled_first(scene.game.id):
                scene = await self.call(self.service.scene, scene.game.id)
            step = planning.private_step(scene, acting.user_id, self.now(), self._username(),
                                         acting, new=False)
            if step is None:
                return
            outcome = await self._carry_out(scene, Plan(scene.game.id, [step]))
            await self._settle(scene.game.id, outcome)
        await self._after(scene.game.id, outcome)

    # ------------------------------------------------------------------ the board's pace

    def _queue_group(
        self, game_id: int, scene: Scene, steps: list[Step], notes: list[Notification]
    ) -> None:
        """Queue the group's part of a delivery behind what waits already."""
        queue = self._boards.get(game_id)
        if queue is None:
            self._boards[game_id] = _GroupQueue(scene, list(steps), list(notes))
            return
        if scene.game.version >= queue.scene.game.version:
            queue.scene = scene
        queue.steps.extend(steps)
        queue.notes.extend(notes)
        if self.pace is not None and any(n.kind in URGENT_BOARDS for n in notes):
            # A board waiting as an edit a newer one would replace now carries the end of
            # the game, a pause...: it waits as urgent from now on.
            self.pace.poke(scene.game.chat_id)

    def _urgent_waits(self, game_id: int) -> bool:
        """Whether what waits for the game's group holds something urgent."""
        queue = self._boards.get(game_id)
        return queue is not None and (
            any(n.kind in URGENT_BOARDS for n in queue.notes)
            or any(isinstance(step, GroupPost) for step in queue.steps))

    async def _start_painter(self, game_id: int) -> None:
        """Send what waits for the group now when its budget has room (or is not kept),
        else in the background once it has: boards queued by then are drawn as one."""
        if game_id in self._painters:
            return
        queue = self._boards.get(game_id)
        if queue is None:
            return
        chat = queue.scene.game.chat_id
        if self.pace is None or self.pace.board_wait(chat) <= 0:
            await self.paint_board(game_id)
            return
        task = self.spawn(self.paint_board(game_id))
        self._painters[game_id] = task
        task.add_done_callback(lambda _t: self._painters.pop(game_id, None))

    async def paint_board(self, game_id: int) -> None:
        """Send what waits for the game's group, in order, each step once a slot of the
        group's budget is free (a board's taken *before* the board is chosen: the newest
        queued goes), then settle the notifications they show. Loops while more arrives
        meanwhile. The game's lock is not held while a slot is awaited, so the players'
        private messages never wait for the group."""
        while (waiting := self._boards.get(game_id)) is not None:
            # The first step's slot before the batch is taken: boards queued meanwhile
            # join it, and the newest is drawn.
            first = waiting.steps[0]
            paid = False
            if self.pace is not None and isinstance(first, Board | GroupPost):
                urgent_first = isinstance(first, GroupPost) or bool(
                    {n.id for n in waiting.notes if n.kind in URGENT_BOARDS} & set(first.notes))
                board = self._newest_board(game_id, first) if isinstance(first, Board) else None
                if board is None or not self._unchanged(game_id, board):
                    await self.pace.slot(first.chat_id, URGENT if urgent_first else BOARD,
                                         hurry=lambda: self._urgent_waits(game_id))
                    paid = True
            queue = self._boards.pop(game_id, None)
            if queue is None:
                return
            steps = _collapse_boards(queue.steps, queue.notes)
            shown = {n for step in steps for n in step.notes}
            notes = [n for n in queue.notes if n.id in shown]
            claims = _Claims(self, self.owner, notes)
            if not await claims.keep():
                # Another relay took some over (this process was too slow): it sends them;
                # the rest goes from here.
                lost = claims.lost
                steps = [s for s in steps if not set(s.notes) & lost]
                notes = [n for n in notes if n.id not in lost]
                if not steps:
                    continue
                claims = _Claims(self, self.owner, notes)
                claims.until = self.now() + self.service.outbox_lease
            urgent = {n.id for n in notes if n.kind in URGENT_BOARDS}
            outcome = await self._carry_out(queue.scene, Plan(game_id, steps), claims,
                                             paced=True, urgent=urgent, paid=paid)
            await self._settle(game_id, outcome)
            await self._after(game_id, outcome, notes)

    async def boards_painted(self) -> None:
        """Wait until no board edit is waiting for its group's budget (a drain, a clean
        shutdown)."""
        while self._painters:
            await asyncio.gather(*self._painters.values(), return_exceptions=True)

    def _newest_board(self, game_id: int, step: Board) -> Board:
        """``step`` on the board message this process knows as the newest (sent anew by
        /board since the step was made, say)."""
        newest = self._settled.get(game_id, {}).get(BOARD_KEY)
        if newest and newest != step.message_id and not step.resend:
            return dataclasses.replace(step, message_id=int(newest))
        return step

    def _unchanged(self, game_id: int, step: Board) -> bool:
        """Whether the board message already shows ``step`` (nothing to edit)."""
        if step.message_id is None or step.resend or step.photo:
            return False
        newest = self._settled.get(game_id, {}).get(BOARD_KEY, step.message_id)
        return self.shown.same(step.chat_id, int(newest), step.text, step.keyboard)

    async def refresh_board(
        self, game_id: int, resend: bool = False, pin: bool = False
    ) -> int | None:
        """Edit the game's board message (or send it when there is none, or ``resend``);
        ``pin`` it, quietly, where the bot may pin (elsewhere it is only sent)."""
        async with self._locks[game_id]:
            await self._settled_first(game_id)
            scene = await self.call(self.service.scene, game_id)
            if scene.board.view is None:  # the lobby, naming whom the bot cannot reach
                tr = translator(scene.chat_locale)
                unreachable = [s.name for s in scene.game.seats
                               if s.user_id is not None and not scene.can_pm.get(s.user_id)]
                level = await self.call(self.service.chat_bot_level, scene.game.chat_id)
                msg = render.lobby(tr, scene.game, unreachable, self._username(), level)
                step = Board(scene.game.chat_id, scene.game.meta.get(BOARD_KEY), msg.text,
                             msg.keyboard, pin=pin, resend=resend,
                             topic_id=scene.game.topic_id)
            else:
                step = planning.board_step(scene, self.now(), self._username(), pin=pin,
                                           resend=resend)
            outcome = await self._carry_out(scene, Plan(game_id, [step]))
            await self._settle(game_id, outcome)
        if await self._after(game_id, outcome):
            return None
        board = outcome.meta.get(BOARD_KEY, scene.game.meta.get(BOARD_KEY))
        return int(board) if board else None

    async def refresh_private(
        self, game_id: int, user_id: int, new: bool, acting: Acting | None = None
    ) -> bool:
        """Show the player their game: a new message (``new``) or an edit of the one they
        tapped or last got. Falls back to a group mention with a deep link when the bot
        cannot write to them. Returns whether the private message went out."""
        async with self._locks[game_id]:
            await self._settled_first(game_id)
            try:
                scene = await self.call(self.service.scene, game_id)
            except NotFound:
                return False
            step = planning.private_step(scene, user_id, self.now(), self._username(),
                                         acting, new=new)
            if step is None:
                return False
            outcome = await self._carry_out(scene, Plan(game_id, [step]))
            await self._settle(game_id, outcome)
        await self._after(game_id, outcome)
        return user_id in outcome.shown

    async def say_in_group(
        self, chat_id: int, text: str, topic_id: int | None = None,
        keyboard: render.Keyboard | None = None,
    ) -> int | None:
        """A plain message to the group (into its forum topic ``topic_id``, if given); None
        if the bot is not there, or the topic is gone."""
        try:
            return await self._send_group(chat_id, text, keyboard, topic_id=topic_id)
        except (_Passing, _TopicGone):
            return None
        except BadRequest as e:
            if not topic_gone(e):
                raise
            log.info("could not post in chat %s (its General closed?): %s", chat_id, e)
            return None

    async def say_privately(self, user_id: int, text: str) -> bool:
        """A plain private message to one user; False if it could not go out."""
        try:
            await self.bot.send_message(user_id, text)
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
                await self.bot.send_message(user_id, say(tr, title))
            except TelegramError as e:
                log.info("could not tell user %s about game %s: %s", user_id, game_id, e)
                continue
            told.append(user_id)
        return told

    # ------------------------------------------------------------------ the steps

    async def _carry_out(
        self, scene: Scene, steps: Plan, claims: _Claims | None = None, *,
        paced: bool = False, urgent: set[int] | frozenset[int] = frozenset(),
        paid: bool = False,
    ) -> _Outcome:
        """Carry the steps out in order (``paced``: each message to the group waits for a
        slot of its budget first, a board at its lower urgency unless it shows one of the
        ``urgent`` notifications; ``paid``: the first step's slot is taken already)."""
        out = _Outcome(delivered=list(steps.free))
        game = scene.game
        if game.topic_id is not None and game.meta.get(TOPIC_LOST_KEY) == game.topic_id:
            # Known to be gone, and "General" was taken (see topic_lost): nothing is tried
            # there any more.
            out.topic_gone = (game.chat_id, game.topic_id)
        failed = False
        for i, step in enumerate(steps.steps):
            if not failed and claims is not None and not await claims.keep():
                # Another relay took this game's messages over (this delivery was too
                # slow): it sends them, from the start; ours go back untried.
                out.release.extend(n for later in steps.steps[i:] for n in later.notes)
                break
            if out.topic_gone is not None and isinstance(step, Board | GroupPost | CloseTopic):
                # Nothing more goes into a deleted topic: the game is shown again where it
                # goes on (see _after), so these are settled, not retried for ever; its
                # records are posted there.
                if isinstance(step, GroupPost) and step.record:
                    out.moved.append(step)
                else:
                    out.delivered.extend(step.notes)
                continue
            if failed:
                # Keep the order of what a chat reads: after a passing failure the rest
                # of this game's messages wait for the relay too.
                out.retry.extend(step.notes)
                continue
            chat = step.user_id if isinstance(step, Private | PrivateNote) else step.chat_id
            until = self.chat_wait.get(chat)
            if until is not None and until > self.now():
                # Telegram's flood control holds this chat: no call until its wait is over
                # (another would only meet another 429); the relay sends it then.
                failed = True
                out.retry.extend(step.notes)
                out.not_before = max(out.not_before or until, until)
                continue
            prepaid = False
            if paid and i == 0:
                prepaid = True
                if isinstance(step, Board):
                    step = self._newest_board(scene.game.id, step)
            elif paced and self.pace is not None and isinstance(step, Board | GroupPost):
                if isinstance(step, Board):
                    step = self._newest_board(scene.game.id, step)
                    if not self._unchanged(scene.game.id, step):
                        await self.pace.slot(step.chat_id, URGENT if urgent & set(step.notes)
                                             else BOARD)
                        prepaid = True
                else:
                    await self.pace.slot(step.chat_id, URGENT)
                    prepaid = True
            elif paced and isinstance(step, Board):
                step = self._newest_board(scene.game.id, step)
            try:
                await self._step(scene, step, out, prepaid=prepaid)
            except _TopicGone as e:
                log.info("game %s: the forum topic %s of chat %s is gone", scene.game.id,
                         e.topic_id, e.chat_id)
                out.topic_gone = (e.chat_id, e.topic_id)
                if isinstance(step, GroupPost) and step.record:
                    out.moved.append(step)
                    continue
            except _Passing as e:
                failed = True
                out.retry.extend(step.notes)
                if e.until is not None:
                    out.not_before = max(out.not_before or e.until, e.until)
                    if e.chat_id is not None:
                        self.chat_wait[e.chat_id] = e.until
                continue
            except TelegramError:
                # A lasting refusal we did not foresee (a bug in a message, most likely):
                # logged, and not retried for ever.
                log.exception("game %s: a message could not be delivered", scene.game.id)
            out.delivered.extend(step.notes)
        # A notification shown by several steps (the final table: the board and the post)
        # is delivered only once all of them went out.
        pending = set(out.retry) | set(out.release)
        pending.update(n for post in out.moved for n in post.notes)
        out.delivered = [n for n in out.delivered if n not in pending]
        return out

    async def _settle(self, game_id: int, out: _Outcome) -> None:
        meta = {game_id: out.meta} if out.meta else None
        if out.meta:
            if len(self._settled) > 2000:
                self._settled.clear()
            self._settled.setdefault(game_id, {}).update(out.meta)
        await self._settle_with(game_id, partial(
            self.service.settle_notifications, out.delivered, retry=out.retry,
            not_before=out.not_before, meta=meta, no_pm=out.no_pm, owner=self.owner,
            release=out.release))

    async def _settle_ids(self, game_id: int | None, delivered: list[int]) -> None:
        await self._settle_with(game_id, partial(self.service.settle_notifications,
                                                 delivered))

    async def _settle_with(self, game_id: int | None, settle: Callable[[], None]) -> None:
        """Make one settle call; when another process holds SQLite's write lock, make it
        again in the background with a short back-off (:data:`SETTLE_PAUSES`): what went
        out must be recorded, or the relay sends it again once the claims lapse, and the
        handler that delivered (a tap, answered already) should not wait for it. The game's
        next delivery waits for it instead (:meth:`_settled_first`), so it reads what it
        stored."""
        try:
            await self.call(settle)
        except Busy:
            log.info("game %s: the database is busy; settling the outbox in the background",
                     game_id)
            previous = self._settling.get(game_id)
            task = self.spawn(self._settle_again(game_id, settle, previous))
            self._settling[game_id] = task

    async def _settle_again(
        self, game_id: int | None, settle: Callable[[], None],
        previous: asyncio.Task[None] | None,
    ) -> None:
        try:
            if previous is not None:
                with contextlib.suppress(Exception):
                    await previous  # in the order they were made
            for pause in SETTLE_PAUSES:
                await asyncio.sleep(pause)
                try:
                    await self.call(settle)
                    return
                except Busy:
                    continue
            log.error("game %s: the database stayed busy; the outbox could not be settled "
                      "(what went out is sent again once its claims lapse)", game_id)
        finally:
            if self._settling.get(game_id) is asyncio.current_task():
                del self._settling[game_id]

    async def _settled_first(self, game_id: int | None) -> bool:
        """Wait for a settle of the game still being made in the background (with the
        game's lock held: nothing of the game goes out meanwhile). Returns whether there was
        one."""
        pending = self._settling.get(game_id)
        if pending is None:
            return False
        with contextlib.suppress(Exception):
            await asyncio.shield(pending)
        return True

    async def _step(
        self, scene: Scene, step: Step, out: _Outcome, *, prepaid: bool = False
    ) -> None:
        if isinstance(step, Board):
            await self._board(scene, step, out, prepaid=prepaid)
        elif isinstance(step, GroupPost):
            await self._post(step, out, prepaid=prepaid)
        elif isinstance(step, Private):
            await self._private(step, out)
        elif isinstance(step, CloseTopic):
            with contextlib.suppress(TelegramError):
                await self.bot.close_forum_topic(step.chat_id, step.topic_id)
        else:
            await self._private_note(step, out)

    async def _after(
        self, game_id: int, out: _Outcome, notes: list[Notification] | None = None
    ) -> bool:
        """What a delivery leaves to do once the game's lock is free: when the game's forum
        topic turned out to be gone, move the game to "General", pause it if it runs, say
        so there and show it there (:meth:`topic_lost`), then post there the records that
        could not go into the topic (``notes``: the delivery's, whose claims they hold).
        Returns whether the topic was gone."""
        if out.topic_gone is None:
            return False
        chat_id, topic_id = out.topic_gone
        try:
            await self.topic_lost(game_id, chat_id, topic_id)
        except (ServiceError, TelegramError):
            log.exception("game %s: could not move it out of its deleted topic", game_id)
        if out.moved:
            await self._post_moved(game_id, out.moved, notes or [])
        return True

    async def _post_moved(
        self, game_id: int, posts: list[GroupPost], notes: list[Notification]
    ) -> None:
        """Post a game's records (a year's summary, the final table) in "General" after its
        topic was found gone, under the game's name unless the game now lives there (it
        could not move: "General" has a game of its own); then settle them (delivered, or
        back to the relay, which plans them where the game is by then)."""
        ids = {n for post in posts for n in post.notes}
        async with self._locks[game_id]:
            claims = _Claims(self, self.owner, [n for n in notes if n.id in ids])
            if not await claims.keep():
                posts = [p for p in posts if not set(p.notes) & claims.lost]
            info = await self.call(self.service.game_info, game_id)
            head = ""
            if info.topic_id is not None:
                tr = await self.call(self.tr_chat, info.chat_id)
                head = tr.gettext("Kolkhoz #{id} — {rules}", id=game_id,
                                  rules=texts.rules_title(tr, info.preset, info.rules)) + "\n"
            out = _Outcome()
            for post in posts:
                try:
                    await self._send_group(info.chat_id, (head + post.text)[:render.MAX_TEXT],
                                           post.keyboard,
                                           ParseMode.HTML if post.html else None)
                except _Passing as e:
                    out.retry.extend(post.notes)
                    out.not_before = e.until
                    continue
                except (_TopicGone, TelegramError):
                    log.exception("game %s: a record could not be posted in General", game_id)
                out.delivered.extend(post.notes)
            await self._settle(game_id, out)

    async def topic_lost(self, game_id: int, chat_id: int, topic_id: int) -> None:
        """The forum topic of a game was deleted, or closed while the bot may not manage
        topics (Telegram tells bots nothing of a deletion: a send into it failed). Nothing
        is lost: a running game is paused (no deadline plays it out unseen) until the creator
        or an admin sends /resume, and a note goes to the chat's "General". The game moves
        there, and its board with it, unless "General" holds an open game of its own (one
        game a place): then it stays where it was, marked lost, and /resume brings it into
        another topic (or into "General" once that is free)."""
        info = await self.call(self.service.game_info, game_id)
        if info.chat_id != chat_id or info.topic_id != topic_id:
            return  # moved already (two deliveries met the deleted topic)
        if info.meta.get(TOPIC_LOST_KEY) == topic_id:
            return  # known to be lost, and told: it waits for /resume
        if info.status not in ("lobby", "active", "paused"):
            # Over: its final table may have been lost with the topic; it goes to "General".
            await self.call(self.service.move_game, game_id, None,
                            meta={TOPIC_OWN_KEY: None})
            await self.refresh_board(game_id, resend=True)
            return
        lost = {TOPIC_LOST_KEY: topic_id, TOPIC_OWN_KEY: None}
        try:
            await self.call(self.service.move_game, game_id, None, meta=lost)
            moved = True
        except NotAllowed:
            # "General" has an open game: this one stays put, marked lost (its group
            # messages are not tried there any more).
            await self.call(self.service.move_game, game_id, topic_id, meta=lost)
            moved = False
        tr = await self.call(self.tr_chat, chat_id)
        notes: list[Notification] = []
        status = info.status
        if status == "active":
            try:
                result = await self.call(self.service.pause, game_id, info.creator_id or 0,
                                         True)
                notes = list(result.notifications)
            except ServiceError:  # paused (or over) meanwhile
                status = (await self.call(self.service.game_info, game_id)).status
        if not notes and status not in ("lobby", "paused"):
            return  # over meanwhile
        await self.say_in_group(chat_id, _lost_text(tr, game_id, status, bool(notes), moved))
        if notes:
            await self.deliver(notes)  # the paused board, sent anew in "General"
        elif moved:
            await self.refresh_board(game_id, resend=True)

    async def _board(
        self, scene: Scene, step: Board, out: _Outcome, *, prepaid: bool = False
    ) -> None:
        board_id = step.message_id
        if board_id and not step.resend and not step.photo and self.shown.same(
                step.chat_id, board_id, step.text, step.keyboard):
            return  # it says that already: an edit would change nothing
        picture = await self._picture(scene) if step.photo else None
        new_id: int | None = None
        if board_id and not step.resend:
            new_id = await self._edit_board(scene, step, board_id, picture, prepaid)
            if new_id is None and not out.meta.get(BOARD_KEY):
                # The message is gone. If the board was sent anew meanwhile (/board, another
                # delivery), that one is edited: a third board must never appear while the
                # pinned one stays behind.
                current = await self._current_board(scene.game.id)
                if current and current != board_id:
                    new_id = await self._edit_board(scene, step, current, picture, False)
                    if new_id is not None:
                        out.meta[BOARD_KEY] = new_id
                        return
            elif new_id == -1:
                return  # the bot is not in the group any more
        if new_id is None:
            if picture is not None:
                new_id = await self._send_group_photo(step.chat_id, picture, step.text,
                                                      step.keyboard, step.topic_id)
            else:
                new_id = await self._send_group(step.chat_id, step.text, step.keyboard,
                                                topic_id=step.topic_id)
            if new_id is None:
                return
            out.meta[BOARD_KEY] = new_id
            out.meta[BOARD_STYLE_KEY] = "picture" if picture is not None else "text"
            if picture is None:
                self.shown.put(step.chat_id, new_id, step.text, step.keyboard)
            if board_id and step.resend:
                with contextlib.suppress(TelegramError):
                    await self.bot.delete_message(step.chat_id, board_id)
        if step.pin:
            with contextlib.suppress(TelegramError):
                await self.bot.pin_chat_message(step.chat_id, new_id, disable_notification=True)

    async def _edit_board(
        self, scene: Scene, step: Board, board_id: int, picture: bytes | None, prepaid: bool
    ) -> int | None:
        """Edit the board message ``board_id``: its id when it now shows ``step``, None when
        the message is gone, -1 when the bot is no longer in the group."""
        pace = PREPAID if prepaid else None
        try:
            if picture is not None:
                await self._guard(step.chat_id, self.bot.edit_message_media(
                    InputMediaPhoto(picture, caption=step.text), chat_id=step.chat_id,
                    message_id=board_id, reply_markup=markup(step.keyboard),
                    rate_limit_args=pace))
            else:
                await self._guard(step.chat_id, self.bot.edit_message_text(
                    step.text, chat_id=step.chat_id, message_id=board_id,
                    reply_markup=markup(step.keyboard), rate_limit_args=pace))
        except BadRequest as e:
            if is_not_modified(e):
                pass
            elif _gone(e):
                self.shown.forget(step.chat_id, board_id)
                return None
            else:
                raise
        except Forbidden:
            # Not in the group any more: the board waits for the bot's return (the
            # my_chat_member update pauses the game meanwhile).
            log.info("the bot is no longer in chat %s", step.chat_id)
            return -1
        if picture is None:
            self.shown.put(step.chat_id, board_id, step.text, step.keyboard)
        return board_id

    async def _current_board(self, game_id: int) -> int | None:
        """The game's board message as stored now (this process's newest, else the
        database's)."""
        known = self._settled.get(game_id, {}).get(BOARD_KEY)
        if known:
            return int(known)
        try:
            info = await self.call(self.service.game_info, game_id)
        except ServiceError:
            return None
        stored = info.meta.get(BOARD_KEY)
        return int(stored) if stored else None

    async def _picture(self, scene: Scene) -> bytes:
        """The board of ``scene`` as a PNG, drawn in the one picture thread (remembered per
        game version and language)."""
        board = scene.board
        assert board.view is not None
        tr = translator(scene.chat_locale)
        loop = asyncio.get_running_loop()
        # A finished game's plots, all face up since the scoring (games finished before
        # they were stored show their counts).
        result = board.game.result or {}
        plots = result.get("plots") if board.view["phase"] == "over" else None
        return await loop.run_in_executor(
            PICTURES, partial(cached_board_png, tr, board.game, board.view, plots=plots))

    async def _post(self, step: GroupPost, out: _Outcome, *, prepaid: bool = False) -> None:
        if out.topic_gone is not None and step.topic_id == out.topic_gone[1]:
            return  # (a mention of a private step, after the topic turned out to be gone)
        sent = await self._send_group(step.chat_id, step.text, step.keyboard,
                                      ParseMode.HTML if step.html else None,
                                      topic_id=step.topic_id, prepaid=prepaid)
        if sent is not None and step.once is not None:
            out.meta[step.once[0]] = step.once[1]

    async def _private(self, step: Private, out: _Outcome) -> None:
        user = step.user_id
        if step.edit is not None and self.shown.same(
                user, step.edit, step.text, step.keyboard):
            out.meta[pm_key(user)] = step.edit
            out.meta[live_key(user)] = step.live
            out.shown.add(user)
            return
        if step.edit is not None:
            try:
                await self._guard(user, self.bot.edit_message_text(
                    step.text, chat_id=user, message_id=step.edit,
                    reply_markup=markup(step.keyboard)))
                self.shown.put(user, step.edit, step.text, step.keyboard)
                out.meta[pm_key(user)] = step.edit
                out.meta[live_key(user)] = step.live
                out.shown.add(user)
                return
            except BadRequest as e:
                if is_not_modified(e):
                    out.shown.add(user)
                    return
                if not _gone(e):
                    raise
            except Forbidden:
                out.no_pm.add(user)
                if step.mention is not None:
                    await self._post(step.mention, out)
                return
        sent = await self._send_private(user, step.text, step.keyboard, out)
        if sent is None:
            if step.mention is not None:
                await self._post(step.mention, out)
            return
        self.shown.put(user, sent, step.text, step.keyboard)
        out.meta[pm_key(user)] = sent
        out.meta[live_key(user)] = step.live
        out.shown.add(user)
        if step.replaces and step.replaces != sent:
            # Its move buttons would only lead to "the game has moved on".
            with contextlib.suppress(TelegramError):
                await self.bot.delete_message(user, step.replaces)
        elif step.strips and step.strips != sent:
            # The record of their last move stays, without the cards they held then.
            with contextlib.suppress(TelegramError):
                await self.bot.edit_message_reply_markup(user, step.strips, reply_markup=None)

    async def _private_note(self, step: PrivateNote, out: _Outcome) -> None:
        sent = await self._send_private(step.user_id, step.text, [], out)
        if sent is None and step.mention is not None:
            await self._post(step.mention, out)

    # ------------------------------------------------------------------ Bot API calls

    async def _guard(self, chat_id: int | None, call: Any) -> Any:
        """Await a Bot API call; passing trouble (flood control beyond the rate limiter's
        retries, the network, a 5xx after the transport's retries) becomes :class:`_Passing`
        so the step's notifications wait for the relay."""
        try:
            return await call
        except RetryAfter as e:
            wait = e.retry_after if isinstance(e.retry_after, int | float) else (
                e.retry_after.total_seconds())
            raise _Passing(chat_id, self.now() + timedelta(seconds=float(wait))) from e
        except (Forbidden, BadRequest, ChatMigrated):
            raise
        except TelegramError as e:
            log.warning("Telegram call for chat %s failed, will retry: %s", chat_id, e)
            raise _Passing(chat_id) from e

    async def _send_group(
        self, chat_id: int, text: str, keyboard: render.Keyboard | None = None,
        parse_mode: str | None = None, *, topic_id: int | None = None,
        prepaid: bool = False,
    ) -> int | None:
        """Post in the group, into its forum topic ``topic_id`` (None: "General", or a chat
        without topics); raises :class:`_TopicGone` when that topic was deleted.
        ``prepaid``: the slot of the group's budget is taken already."""
        try:
            msg = await self._guard(chat_id, self.bot.send_message(
                chat_id, text, reply_markup=markup(keyboard or []), parse_mode=parse_mode,
                message_thread_id=topic_id, rate_limit_args=PREPAID if prepaid else None))
        except ChatMigrated as e:
            # (A basic group has no topics: its supergroup has none yet either.)
            await self.call(self.service.migrate_chat, chat_id, e.new_chat_id)
            msg = await self._guard(e.new_chat_id, self.bot.send_message(
                e.new_chat_id, text, reply_markup=markup(keyboard or []),
                parse_mode=parse_mode))
        except Forbidden:
            log.info("the bot is no longer in chat %s", chat_id)
            return None
        except BadRequest as e:
            if topic_id is not None and topic_gone(e):
                raise _TopicGone(chat_id, topic_id) from e
            raise
        return int(msg.message_id)

    async def _send_group_photo(
        self, chat_id: int, picture: bytes, caption: str, keyboard: render.Keyboard,
        topic_id: int | None = None,
    ) -> int | None:
        try:
            msg = await self._guard(chat_id, self.bot.send_photo(
                chat_id, picture, caption=caption, reply_markup=markup(keyboard),
                message_thread_id=topic_id))
        except ChatMigrated as e:
            await self.call(self.service.migrate_chat, chat_id, e.new_chat_id)
            msg = await self._guard(e.new_chat_id, self.bot.send_photo(
                e.new_chat_id, picture, caption=caption, reply_markup=markup(keyboard)))
        except Forbidden:
            log.info("the bot is no longer in chat %s", chat_id)
            return None
        except BadRequest as e:
            if topic_id is not None and topic_gone(e):
                raise _TopicGone(chat_id, topic_id) from e
            raise
        return int(msg.message_id)

    async def _send_private(
        self, user_id: int, text: str, keyboard: render.Keyboard, out: _Outcome
    ) -> int | None:
        """Send privately; None (and remembered) if the user has not opened or has blocked
        the private chat."""
        try:
            msg = await self._guard(user_id, self.bot.send_message(
                user_id, text, reply_markup=markup(keyboard)))
        except Forbidden:
            out.no_pm.add(user_id)
            return None
        except BadRequest as e:
            if "chat not found" in e.message.lower():
                out.no_pm.add(user_id)
                return None
            raise
        return int(msg.message_id)


def _lost_text(tr: Translator, game_id: int, status: str, paused_now: bool,
               moved: bool) -> str:
    """The note in "General" about a game whose topic is gone (see
    :meth:`Deliverer.topic_lost`)."""
    if moved:
        if paused_now:
            return tr.gettext(
                "The topic of game #{id} was closed or deleted, so the game is paused and "
                "has moved here; nothing is lost. Its creator or an admin continues it with "
                "/resume: here, or in another topic.", id=game_id)
        if status == "paused":
            return tr.gettext(
                "The topic of game #{id} was closed or deleted, so the paused game has moved "
                "here; nothing is lost. Its creator or an admin continues it with /resume: "
                "here, or in another topic.", id=game_id)
        return tr.gettext(
            "The topic of game #{id} was closed or deleted, so its lobby has moved here.",
            id=game_id)
    if status == "lobby":
        return tr.gettext(
            "The topic of game #{id} was closed or deleted. This chat already has a game "
            "here, so the lobby waits: its creator or an admin brings it into another topic "
            "with /resume there.", id=game_id)
    return tr.gettext(
        "The topic of game #{id} was closed or deleted, so the game is paused; nothing is "
        "lost. This chat already has a game here, so its creator or an admin continues it "
        "in another topic with /resume there.", id=game_id)


#: When this process started (seconds): part of its name on the outbox claims, so that a
#: process restarted with the same id (a container's process 1) is not taken for the old.
_STARTED = int(time.time())


def relay_name() -> str:
    """This process's name on the outbox claims: host, process id and start time."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{_STARTED}"


def dead_here(owner: str, me: str | None = None) -> bool:
    """Whether the relay named ``owner`` was a process of this host that is gone: the
    same host (a container restarted keeps its host name) and either this process's own id
    with another start (an earlier life of this process id) or an id no process has now.
    A relay of another host is never judged here: its claims lapse with their lease."""
    me = me or relay_name()
    parts = owner.split(":")  # host:pid:start (host:pid before start times were named)
    if owner == me or len(parts) not in (2, 3) or parts[0] != me.split(":")[0]:
        return False
    if not parts[1].isdecimal():
        return False
    pid = int(parts[1])
    if pid == os.getpid():
        return True  # our id, another start: the process before us
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # (another user's process: alive)
        return False
    return False


class Relay:
    """Delivers what the outbox owes, continuously: on PTB's job queue every ``interval``,
    in the background (start-up serves taps at once while the relay drains a backlog).
    Claims what it delivers (see :meth:`GameService.claim_notifications`), so replicas
    never send the same message twice, and leaves chats under flood control alone until
    their wait is over."""

    def __init__(self, deliverer: Deliverer, owner: str, batch: int = 50) -> None:
        self.deliverer = deliverer
        self.service = deliverer.service
        self.owner = owner
        self.batch = batch
        self._lock = asyncio.Lock()
        deliverer.owner = owner

    async def tick(self, _context: object = None, *, wait: bool = False) -> int:
        """One pass: claim and deliver due notifications until none are left (or only
        ones for chats that must wait). Returns how many were attempted. A pass that finds
        another one running returns at once, unless ``wait``."""
        if self._lock.locked() and not wait:
            return 0
        total = 0
        async with self._lock:
            while True:
                now = self.deliverer.now()
                waits = self.deliverer.chat_wait
                for chat in [c for c, until in waits.items() if until <= now]:
                    del waits[chat]
                try:
                    notes = await asyncio.to_thread(
                        self.service.claim_notifications, self.owner, self.batch,
                        skip_chats=list(waits))
                except Busy:  # another process holds SQLite's write lock: next tick
                    log.info("the outbox relay found the database busy; it tries again")
                    return total
                if not notes:
                    return total
                total += len(notes)
                try:
                    await self.deliverer.deliver(notes)
                except Exception:
                    log.exception("the outbox relay failed; the claims lapse and it retries")
                    return total
                if len(notes) < self.batch:
                    return total

    async def drain(self, rounds: int = 100) -> None:
        """Deliver until nothing is due now (tests, and a clean shutdown)."""
        for _ in range(rounds):
            if not await self.tick(wait=True):
                break
        await self.deliverer.boards_painted()
