"""The guarded sender: every Bot API call of a delivery, and what its failures mean.

Passing trouble (flood control beyond the rate limiter's retries, the network, a 5xx after
the transport's retries) becomes :class:`Passing`, so the step's notifications wait for the
relay; a forum topic found deleted becomes :class:`TopicGone` (see
:mod:`kolkhoz_tg.bot.delivery.topic_loss`); "message is not modified" and a message that is
gone are told apart from real refusals. :class:`ShownCache` remembers what each message
says, so that an edit that would change nothing is never made.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from datetime import datetime, timedelta
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)
from telegram.ext import ExtBot

from kolkhoz_tg import present
from kolkhoz_tg.bot.delivery.rich import RichBoards
from kolkhoz_tg.bot.disabled import Markup
from kolkhoz_tg.bot.retry import PREPAID, never_arrived
from kolkhoz_tg.service import GameService

log = logging.getLogger(__name__)


def markup(keyboard: present.Keyboard) -> InlineKeyboardMarkup | None:
    """Telegram markup for the neutral buttons of present (None for no buttons); with
    disabled buttons a :class:`~kolkhoz_tg.bot.disabled.Markup`, which also holds the form
    an older server reads."""
    if not keyboard:
        return None
    rows = [[inline_button(b) for b in row] for row in keyboard]
    if not any(b.disabled for row in keyboard for b in row):
        return InlineKeyboardMarkup(rows)
    legacy = [[inline_button(b, legacy=True) for b in row] for row in keyboard]
    return Markup(rows, InlineKeyboardMarkup(legacy))


def inline_button(b: present.Button, legacy: bool = False) -> InlineKeyboardButton:
    """One button; a disabled one as Bot API 10.3 has it, or (``legacy``) as ``·text·``
    doing what its ``data`` says. Its ``style`` (Bot API 9.4) goes along; an older server
    ignores it."""
    extra: dict[str, object] = {"style": b.style} if b.style else {}
    if b.disabled and not legacy:
        return InlineKeyboardButton(b.text, api_kwargs={"disabled": {}, **extra})
    text = f"·{b.text}·" if b.disabled else b.text
    api = extra or None
    if b.url is not None:
        return InlineKeyboardButton(text, url=b.url, api_kwargs=api)
    if b.inline_query is not None:
        return InlineKeyboardButton(text, switch_inline_query_current_chat=b.inline_query,
                                    api_kwargs=api)
    return InlineKeyboardButton(text, callback_data=b.data, api_kwargs=api)


def is_not_modified(error: BadRequest) -> bool:
    return "not modified" in error.message.lower()


def message_gone(error: BadRequest) -> bool:
    """The message to edit or the chat no longer exists."""
    text = error.message.lower()
    return "not found" in text or "can't be edited" in text


def topic_gone(error: BadRequest) -> bool:
    """The forum topic a message was sent to is deleted, or closed to the bot (which may
    not manage topics there)."""
    text = error.message.lower()
    return "message thread not found" in text or "topic_closed" in text


class TopicGone(Exception):
    """The game's forum topic is gone: nothing more can be posted there."""

    def __init__(self, chat_id: int, topic_id: int) -> None:
        super().__init__(chat_id, topic_id)
        self.chat_id = chat_id
        self.topic_id = topic_id


class Passing(Exception):
    """A step failed for a passing reason: its notifications wait for the relay."""

    def __init__(self, chat_id: int | None, until: datetime | None = None) -> None:
        super().__init__(chat_id, until)
        self.chat_id = chat_id
        self.until = until


class MaybeSent(Passing):
    """A new message's send failed in a way that says nothing of whether Telegram carried
    it out (a read timeout, a connection that broke once the request went out, a 500 or a
    504): it is settled, never sent again blind (see :mod:`kolkhoz_tg.bot.once`)."""


class ShownCache:
    """What this process last made a message say (text and buttons), so that an edit that
    would change nothing is skipped. Bounded: the oldest entries go first."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._said: OrderedDict[tuple[int, int], int] = OrderedDict()

    @staticmethod
    def _digest(text: str, keyboard: present.Keyboard) -> int:
        return hash((text, tuple(tuple(row) for row in keyboard)))

    def same(self, chat_id: int, message_id: int, text: str,
             keyboard: present.Keyboard) -> bool:
        return self._said.get((chat_id, message_id)) == self._digest(text, keyboard)

    def put(self, chat_id: int, message_id: int, text: str,
            keyboard: present.Keyboard) -> None:
        key = (chat_id, message_id)
        self._said[key] = self._digest(text, keyboard)
        self._said.move_to_end(key)
        if len(self._said) > self.LIMIT:
            self._said.popitem(last=False)

    def forget(self, chat_id: int, message_id: int) -> None:
        self._said.pop((chat_id, message_id), None)



class Sender:
    """Sends and edits on Telegram for a delivery (see the module docstring). ``bot`` may
    be replaced (a test's gated bot); ``shown`` is the cache the edits keep up to date."""

    def __init__(self, bot: ExtBot[Any], service: GameService, shown: ShownCache) -> None:
        self.bot = bot
        self.service = service
        self.shown = shown

    async def guard(self, chat_id: int | None, call: Any, *, sends: bool = False) -> Any:
        """Await a Bot API call; passing trouble (flood control beyond the rate limiter's
        retries, the network, a 5xx after the transport's retries) becomes :class:`Passing`
        so the step's notifications wait for the relay; for a call that ``sends`` a new
        message, trouble after which it may have arrived becomes :class:`MaybeSent`."""
        try:
            return await call
        except RetryAfter as e:
            wait = e.retry_after if isinstance(e.retry_after, int | float) else (
                e.retry_after.total_seconds())
            until = self.service.clock.now() + timedelta(seconds=float(wait))
            raise Passing(chat_id, until) from e
        except (Forbidden, BadRequest, ChatMigrated):
            raise
        except NetworkError as e:  # (TimedOut too)
            if sends and not never_arrived(e):
                raise MaybeSent(chat_id) from e
            log.warning("Telegram call for chat %s failed, will retry: %s", chat_id, e)
            raise Passing(chat_id) from e
        except TelegramError as e:
            log.warning("Telegram call for chat %s failed, will retry: %s", chat_id, e)
            raise Passing(chat_id) from e

    async def send_group(
        self, chat_id: int, text: str, keyboard: present.Keyboard | None = None,
        parse_mode: str | None = None, *, topic_id: int | None = None,
        prepaid: bool = False,
    ) -> int | None:
        """Post in the group, into its forum topic ``topic_id`` (None: "General", or a chat
        without topics); raises :class:`TopicGone` when that topic was deleted.
        ``prepaid``: the slot of the group's budget is taken already."""
        def send(to: int, topic: int | None) -> Coroutine[Any, Any, Message]:
            # The slot prepaid is the group's as it was: a migrated group pays anew.
            return self.bot.send_message(
                to, text, reply_markup=markup(keyboard or []), parse_mode=parse_mode,
                message_thread_id=topic,
                rate_limit_args=PREPAID if prepaid and to == chat_id else None)

        return await self._to_group(chat_id, topic_id, send)

    async def send_group_photo(
        self, chat_id: int, picture: bytes, caption: str, keyboard: present.Keyboard,
        topic_id: int | None = None,
    ) -> int | None:
        def send(to: int, topic: int | None) -> Coroutine[Any, Any, Message]:
            return self.bot.send_photo(to, picture, caption=caption,
                                       reply_markup=markup(keyboard), message_thread_id=topic)

        return await self._to_group(chat_id, topic_id, send)

    async def send_group_rich(
        self, chat_id: int, html: str, keyboard: present.Keyboard, rich: RichBoards,
        topic_id: int | None = None,
    ) -> int | None:
        """Post a rich message (the board); raises :class:`NoRich` on an older server."""
        def send(to: int, topic: int | None) -> Coroutine[Any, Any, Message]:
            return rich.send(self.bot, to, topic, html, markup(keyboard))

        return await self._to_group(chat_id, topic_id, send)

    async def _to_group(
        self, chat_id: int, topic_id: int | None,
        send: Callable[[int, int | None], Coroutine[Any, Any, Message]],
    ) -> int | None:
        """A new message in the group (``send(chat, topic)`` makes the call): once more in
        the supergroup a group became, None when the bot is no longer in the chat,
        :class:`TopicGone` when the topic was deleted."""
        try:
            msg = await self.guard(chat_id, send(chat_id, topic_id), sends=True)
        except ChatMigrated as e:
            # (A basic group has no topics: its supergroup has none yet either.)
            await asyncio.to_thread(self.service.migrate_chat, chat_id, e.new_chat_id)
            msg = await self.guard(e.new_chat_id, send(e.new_chat_id, None), sends=True)
        except Forbidden:
            log.info("the bot is no longer in chat %s", chat_id)
            return None
        except BadRequest as e:
            if topic_id is not None and topic_gone(e):
                raise TopicGone(chat_id, topic_id) from e
            raise
        return int(msg.message_id)

    async def send_private(
        self, user_id: int, text: str, keyboard: present.Keyboard, no_pm: set[int],
        topic_id: int | None = None,
    ) -> int | None:
        """Send privately (into the private chat's topic ``topic_id``, if given); None (and
        the user added to ``no_pm``) if the user has not opened or has blocked the private
        chat; :class:`TopicGone` when the user deleted that topic."""
        try:
            msg = await self.guard(user_id, self.bot.send_message(
                user_id, text, reply_markup=markup(keyboard), message_thread_id=topic_id),
                sends=True)
        except Forbidden:
            no_pm.add(user_id)
            return None
        except BadRequest as e:
            if "chat not found" in e.message.lower():
                no_pm.add(user_id)
                return None
            if topic_id is not None and topic_gone(e):
                raise TopicGone(user_id, topic_id) from e
            raise
        return int(msg.message_id)

