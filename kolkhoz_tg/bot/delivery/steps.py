"""Carrying a delivery plan's steps out, in order: the board (edited in place, sent anew,
drawn as a picture), the group's posts, the private messages, the closing of a topic.

What each step did goes into an :class:`~kolkhoz_tg.bot.delivery.settle.Outcome`; a
passing failure holds the rest of the game's steps back for the relay (a chat keeps its
order), a forum topic found deleted is left to
:mod:`~kolkhoz_tg.bot.delivery.topic_loss`, and claims lost midway send the rest back
untried.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any

from telegram import InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from kolkhoz_tg import present
from kolkhoz_tg.bot import once
from kolkhoz_tg.bot.delivery.claims import Claims
from kolkhoz_tg.bot.delivery.rich import NoRich, RichBoards
from kolkhoz_tg.bot.delivery.sender import (
    MaybeSent,
    Passing,
    TopicGone,
    is_not_modified,
    markup,
    message_gone,
)
from kolkhoz_tg.bot.delivery.settle import Outcome
from kolkhoz_tg.bot.ephemeral import EphemeralRef
from kolkhoz_tg.bot.pace import BOARD, URGENT
from kolkhoz_tg.bot.retry import PREPAID
from kolkhoz_tg.bot.steps import (
    BOARD_KEY,
    BOARD_STYLE_KEY,
    TOPIC_LOST_KEY,
    Board,
    CloseTopic,
    GroupHand,
    GroupPost,
    Plan,
    Private,
    PrivateNote,
    Step,
    eph_key,
    live_key,
    pm_key,
)
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import Busy, Scene, ServiceError

if TYPE_CHECKING:
    from kolkhoz_tg.bot.delivery.deliverer import Deliverer

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


class StepRunner:
    """Carries out the steps of a :class:`Deliverer`'s plans (see the module docstring)."""

    def __init__(self, deliverer: Deliverer) -> None:
        self.deliverer = deliverer
        self.sender = deliverer.sender
        self.shown = deliverer.shown
        #: Whether this server has rich messages (the board in the rich style).
        self.rich = RichBoards()

    async def carry_out(
        self, scene: Scene, steps: Plan, claims: Claims | None = None, *,
        paced: bool = False, urgent: set[int] | frozenset[int] = frozenset(),
        paid: bool = False,
    ) -> Outcome:
        """Carry the steps out in order (``paced``: each message to the group waits for a
        slot of its budget first, a board at its lower urgency unless it shows one of the
        ``urgent`` notifications; ``paid``: the first step's slot is taken already)."""
        out = Outcome(delivered=list(steps.free), sending=dict(steps.sending))
        game = scene.game
        if game.topic_id is not None and game.meta.get(TOPIC_LOST_KEY) == game.topic_id:
            # Known to be gone, and "General" was taken (see TopicLoss.topic_lost): nothing is tried
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
                # goes on (see TopicLoss.after), so these are settled, not retried for ever;
                # its records are posted there.
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
            until = self.deliverer.chat_wait.get(chat)
            if until is not None and until > self.deliverer.now():
                # Telegram's flood control holds this chat: no call until its wait is over
                # (another would only meet another 429); the relay sends it then.
                failed = True
                out.retry.extend(step.notes)
                out.not_before = max(out.not_before or until, until)
                continue
            step, prepaid = await self._paced(scene, step, paced=paced, urgent=urgent,
                                              paid=paid and i == 0)
            failed = not await self._attempt(scene, step, out, prepaid=prepaid)
        # A notification shown by several steps (the final table: the board and the post)
        # is delivered only once all of them went out.
        pending = set(out.retry) | set(out.release)
        pending.update(n for post in out.moved for n in post.notes)
        out.delivered = [n for n in out.delivered if n not in pending]
        return out

    async def _paced(
        self, scene: Scene, step: Step, *, paced: bool,
        urgent: set[int] | frozenset[int], paid: bool,
    ) -> tuple[Step, bool]:
        """The step as it goes out (a board on the newest board message) and whether its
        slot of the group's budget is taken: ``paid`` already, or taken here when
        ``paced`` (a board that would change nothing takes none)."""
        if paid:
            if isinstance(step, Board):
                step = self.newest_board(scene.game.id, step)
            return step, True
        pace = self.deliverer.pace
        if paced and pace is not None and isinstance(step, GroupPost):
            await pace.slot(step.chat_id, URGENT)
            return step, True
        if paced and isinstance(step, Board):
            step = self.newest_board(scene.game.id, step)
            if pace is not None and not self.unchanged(scene.game.id, step):
                await pace.slot(step.chat_id, URGENT if urgent & set(step.notes) else BOARD)
                return step, True
        return step, False

    async def _attempt(
        self, scene: Scene, step: Step, out: Outcome, *, prepaid: bool
    ) -> bool:
        """Carry one step out and note what it did in ``out``; False when it met a passing
        failure (its notifications, and the game's next steps, wait for the relay). A step
        whose new message may have reached Telegram already (before a restart, or its reply
        was lost just now) is settled without sending it again (:mod:`kolkhoz_tg.bot.once`)."""
        settle = once.began(step, out.sending)
        if settle:
            self._settling(scene, step, "before")
        while True:
            try:
                await self.run_step(scene, step, out, prepaid=prepaid, settle=settle)
            except MaybeSent:
                if settle:  # (nothing is sent when settling: not reached)
                    raise
                self._settling(scene, step, "now")
                settle, prepaid = True, False
                continue
            except TopicGone as e:
                log.info("game %s: the forum topic %s of chat %s is gone", scene.game.id,
                         e.topic_id, e.chat_id)
                out.topic_gone = (e.chat_id, e.topic_id)
                self.unsent(step, out)  # (refused: the record goes where the game goes)
                if isinstance(step, GroupPost) and step.record:
                    out.moved.append(step)
                    return True
            except Passing as e:
                out.retry.extend(step.notes)
                if not settle:
                    self.unsent(step, out)  # it never reached Telegram: sent again later
                if e.until is not None:
                    out.not_before = max(out.not_before or e.until, e.until)
                    if e.chat_id is not None:
                        self.deliverer.chat_wait[e.chat_id] = e.until
                return False
            except TelegramError:
                # A lasting refusal we did not foresee (a bug in a message, most likely):
                # logged, and not retried for ever.
                log.exception("game %s: a message could not be delivered", scene.game.id)
            out.delivered.extend(step.notes)
            return True

    @staticmethod
    def _settling(scene: Scene, step: Step, when: str) -> None:
        log.info("game %s: %s for notifications %s may have reached Telegram %s (a reply "
                 "lost, or the process stopped mid-send): settled without sending it again",
                 scene.game.id, type(step).__name__, list(step.notes),
                 "already" if when == "before" else "just now")

    async def mark(self, notes: tuple[int, ...], bit: int, out: Outcome) -> None:
        """Record in the outbox, right before a new message of ``notes`` is sent, that it
        may reach Telegram from now on (see :mod:`kolkhoz_tg.bot.once`)."""
        ids = [n for n in notes if not out.sending.get(n, 0) & bit]
        if not ids or not bit:
            return
        try:
            await self.deliverer.call(self.deliverer.service.mark_sending, ids, bit)
        except Busy as e:  # (SQLite's write lock held elsewhere: nothing sent, sent later)
            raise Passing(None) from e
        for n in ids:
            out.sending[n] = out.sending.get(n, 0) | bit

    @staticmethod
    def unsent(step: Step, out: Outcome) -> None:
        """The step's new message provably did not reach Telegram: its mark is cleared when
        the attempt is settled, so that it is sent again."""
        bit = once.policy(step).bit
        for n in step.notes:
            if out.sending.get(n, 0) & bit:
                out.unsent[n] = out.unsent.get(n, 0) | bit
                out.sending[n] &= ~bit

    async def run_step(
        self, scene: Scene, step: Step, out: Outcome, *, prepaid: bool = False,
        settle: bool = False,
    ) -> None:
        """Carry one step out; ``settle``: without sending any new message (one may have
        arrived already)."""
        if isinstance(step, Board):
            await self._board(scene, step, out, prepaid=prepaid, settle=settle)
        elif isinstance(step, GroupPost):
            await self._post(step, out, prepaid=prepaid, settle=settle)
        elif isinstance(step, Private):
            await self._private(scene, step, out, settle=settle)
        elif isinstance(step, CloseTopic):
            with contextlib.suppress(TelegramError):
                await self.sender.bot.close_forum_topic(step.chat_id, step.topic_id)
        elif isinstance(step, GroupHand):
            await self._group_hand(step, out)
        else:
            await self._private_note(scene, step, out, settle=settle)

    async def _group_hand(self, step: GroupHand, out: Outcome) -> None:
        """Edit the hand the player sees in the group; one that is gone (Telegram keeps
        them a while only) is forgotten, and "🃏 My cards" opens a new one."""
        ref = EphemeralRef(step.chat_id, step.user_id, step.ephemeral_id)
        if self.shown.same(step.chat_id, -step.ephemeral_id, step.text, step.keyboard):
            return
        if await self.deliverer.ephemeral.edit(self.sender.bot, ref, step.text,
                                               markup(step.keyboard)):
            self.shown.put(step.chat_id, -step.ephemeral_id, step.text, step.keyboard)
        else:
            out.meta[eph_key(step.user_id)] = None


    async def _board(
        self, scene: Scene, step: Board, out: Outcome, *, prepaid: bool = False,
        settle: bool = False,
    ) -> None:
        step = self.as_shown(step)
        board_id = step.message_id
        if board_id and not step.resend and not step.photo and self.shown.same(
                step.chat_id, board_id, step.rich or step.text, step.keyboard):
            return  # it says that already: an edit would change nothing
        picture = await self._picture(scene) if step.photo else None
        new_id: int | None = None
        if board_id and not step.resend:
            new_id = await self._edit_board(scene, step, board_id, picture, prepaid)
            if step.rich is not None and not self.rich.usable():
                out.meta[BOARD_STYLE_KEY] = "text"  # (this server turned out to have none)
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
            if settle:
                return  # (a board sent anew may be there already: the next one is edited)
            await self.mark(step.notes, once.policy(step).bit, out)
            new_id = await self._send_board(step, picture, out)
            if new_id is None:
                return
        if step.pin:
            with contextlib.suppress(TelegramError):
                await self.sender.bot.pin_chat_message(step.chat_id, new_id,
                                                       disable_notification=True)

    async def _send_board(self, step: Board, picture: bytes | None, out: Outcome) -> int | None:
        """Send the board as a new message (deleting the old one when sent anew on
        purpose); its id, None when the bot is not in the group."""
        rich = step.rich if self.rich.usable() else None
        if picture is not None:
            new_id = await self.sender.send_group_photo(step.chat_id, picture, step.text,
                                                        step.keyboard, step.topic_id)
        elif rich is not None:
            try:
                new_id = await self.sender.send_group_rich(step.chat_id, rich, step.keyboard,
                                                           self.rich, step.topic_id)
            except NoRich:
                rich = None  # an older server: the text board, as below
        if picture is None and rich is None:
            new_id = await self.sender.send_group(step.chat_id, step.text, step.keyboard,
                                                  topic_id=step.topic_id)
        if new_id is None:
            return None
        out.meta[BOARD_KEY] = new_id
        out.meta[BOARD_STYLE_KEY] = "picture" if picture is not None else "text"
        if rich is not None:
            out.meta[BOARD_STYLE_KEY] = "rich"
        if picture is None:
            self.shown.put(step.chat_id, new_id, rich or step.text, step.keyboard)
        if step.message_id and step.resend:
            with contextlib.suppress(TelegramError):
                await self.sender.bot.delete_message(step.chat_id, step.message_id)
        return new_id

    async def _edit_board(
        self, scene: Scene, step: Board, board_id: int, picture: bytes | None, prepaid: bool
    ) -> int | None:
        """Edit the board message ``board_id``: its id when it now shows ``step``, None when
        the message is gone, -1 when the bot is no longer in the group."""
        pace = PREPAID if prepaid else None
        shown = step.text
        try:
            if picture is not None:
                await self.sender.guard(step.chat_id, self.sender.bot.edit_message_media(
                    InputMediaPhoto(picture, caption=step.text), chat_id=step.chat_id,
                    message_id=board_id, reply_markup=markup(step.keyboard),
                    rate_limit_args=pace))
            elif step.rich is not None and await self._edit_rich(step, board_id, pace):
                shown = step.rich
            else:
                await self.sender.guard(step.chat_id, self.sender.bot.edit_message_text(
                    step.text, chat_id=step.chat_id, message_id=board_id,
                    reply_markup=markup(step.keyboard), rate_limit_args=pace))
        except BadRequest as e:
            if is_not_modified(e):
                pass
            elif message_gone(e):
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
            self.shown.put(step.chat_id, board_id, shown, step.keyboard)
        return board_id

    async def _edit_rich(self, step: Board, board_id: int, pace: int | None) -> bool:
        """Edit the board in place as a rich message; False when this server has none (the
        caller edits the text board in instead)."""
        assert step.rich is not None
        if not self.rich.usable():
            return False
        try:
            await self.sender.guard(step.chat_id, self.rich.edit(
                self.sender.bot, step.chat_id, board_id, step.rich, markup(step.keyboard),
                rate_limit_args=pace))
        except NoRich:
            return False
        return True

    def as_shown(self, step: Board) -> Board:
        """``step`` as this server can show it: a rich board as text where there are no
        rich messages (sent anew only if the text board would be)."""
        if step.rich is not None and not self.rich.usable():
            return dataclasses.replace(step, rich=None, resend=step.text_resend)
        return step

    async def _current_board(self, game_id: int) -> int | None:
        """The game's board message as stored now (this process's newest, else the
        database's)."""
        known = self.deliverer.settler.stored(game_id).get(BOARD_KEY)
        if known:
            return int(known)
        try:
            info = await self.deliverer.call(self.deliverer.service.game_info, game_id)
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
        result = board.game.result
        plots = result.plots if result is not None and board.view.over else None
        return await loop.run_in_executor(
            PICTURES, partial(cached_board_png, tr, board.game, board.view, plots=plots))

    async def _post(
        self, step: GroupPost, out: Outcome, *, prepaid: bool = False, settle: bool = False,
        of: Step | None = None,
    ) -> None:
        """Post ``step`` in the group (``of``: the private step it is the mention of, whose
        notifications it shows); ``settle``: it may be there already, it is not sent."""
        if out.topic_gone is not None and step.topic_id == out.topic_gone[1]:
            return  # (a mention of a private step, after the topic turned out to be gone)
        sent: int | None = 0
        if not settle:
            shows = of or step
            await self.mark(shows.notes, once.policy(shows).bit, out)
            sent = await self.sender.send_group(step.chat_id, step.text, step.keyboard,
                                                ParseMode.HTML if step.html else None,
                                                topic_id=step.topic_id, prepaid=prepaid)
        if sent is not None and step.once is not None:
            out.meta[step.once[0]] = step.once[1]

    async def _private(
        self, scene: Scene, step: Private, out: Outcome, *, settle: bool = False
    ) -> None:
        user = step.user_id
        if step.edit is not None and self.shown.same(
                user, step.edit, step.text, step.keyboard):
            out.meta[pm_key(user)] = step.edit
            out.meta[live_key(user)] = step.live
            out.shown.add(user)
            return
        if step.edit is not None:
            try:
                await self.sender.guard(user, self.sender.bot.edit_message_text(
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
                if not message_gone(e):
                    raise
            except Forbidden:
                out.no_pm.add(user)
                if step.mention is not None:
                    await self._post(step.mention, out, settle=settle, of=step)
                return
        if settle:
            await self._settle_private(step, out)
            return
        sent = await self.send_own(scene, user, step.text, step.keyboard, out, step)
        if sent is None:
            if step.mention is not None:
                await self._post(step.mention, out, of=step)
            return
        self.shown.put(user, sent, step.text, step.keyboard)
        out.meta[pm_key(user)] = sent
        out.meta[live_key(user)] = step.live
        out.shown.add(user)
        if step.replaces and step.replaces != sent:
            # Its move buttons would only lead to "the game has moved on".
            with contextlib.suppress(TelegramError):
                await self.sender.bot.delete_message(user, step.replaces)
        elif step.strips and step.strips != sent:
            # The record of their last move stays, without the cards they held then.
            with contextlib.suppress(TelegramError):
                await self.sender.bot.edit_message_reply_markup(user, step.strips,
                                                                reply_markup=None)

    async def _settle_private(self, step: Private, out: Outcome) -> None:
        """The player's new game message may have arrived (its id is unknown): the message
        the game has stored for them (the one it replaces, or the record it strips) is
        edited to read as the new one, so they have a current message either way (and no
        second notification)."""
        user, target = step.user_id, step.replaces or step.strips
        if target is None or target == step.edit:
            return  # (none, or gone: the board and /mygames show the turn)
        try:
            await self.sender.guard(user, self.sender.bot.edit_message_text(
                step.text, chat_id=user, message_id=target, reply_markup=markup(step.keyboard)))
        except BadRequest as e:
            if not is_not_modified(e):
                if not message_gone(e):
                    raise
                return
        except Forbidden:
            out.no_pm.add(user)
            return
        self.shown.put(user, target, step.text, step.keyboard)
        out.meta[pm_key(user)] = target
        out.meta[live_key(user)] = step.live
        out.shown.add(user)

    async def _private_note(
        self, scene: Scene, step: PrivateNote, out: Outcome, *, settle: bool = False
    ) -> None:
        if settle:
            return  # (it may have arrived: at most once)
        sent = await self.send_own(scene, step.user_id, step.text, step.keyboard, out, step)
        if sent is None and step.mention is not None:
            await self._post(step.mention, out, of=step)


    async def send_own(
        self, scene: Scene, user_id: int, text: str, keyboard: present.Keyboard, out: Outcome,
        step: Private | PrivateNote,
    ) -> int | None:
        """A new private message of the game (showing ``step``'s notifications, marked as
        maybe sent first): into its topic in the player's private chat where there is one
        (:mod:`~kolkhoz_tg.bot.delivery.private_topics`), else (and once the player deleted
        that topic) into the plain chat."""
        topics = self.deliverer.private_topics
        topic = await topics.topic(scene, user_id, out.meta)
        await self.mark(step.notes, once.policy(step).bit, out)
        try:
            return await self.sender.send_private(user_id, text, keyboard, out.no_pm, topic)
        except TopicGone:
            topics.lost(scene.game.id, user_id, out.meta)
        return await self.sender.send_private(user_id, text, keyboard, out.no_pm)

    def newest_board(self, game_id: int, step: Board) -> Board:
        """``step`` on the board message this process knows as the newest (sent anew by
        /board since the step was made, say)."""
        newest = self.deliverer.settler.stored(game_id).get(BOARD_KEY)
        if newest and newest != step.message_id and not step.resend:
            return dataclasses.replace(step, message_id=int(newest))
        return step

    def unchanged(self, game_id: int, step: Board) -> bool:
        """Whether the board message already shows ``step`` (nothing to edit)."""
        step = self.as_shown(step)
        if step.message_id is None or step.resend or step.photo:
            return False
        newest = self.deliverer.settler.stored(game_id).get(BOARD_KEY, step.message_id)
        return self.shown.same(step.chat_id, int(newest), step.rich or step.text,
                               step.keyboard)

