"""The fake Bot API: state, strict validation and the update queue.

Transports (:mod:`.transport`) turn HTTP-ish requests into :meth:`FakeTelegram.handle`
calls; the test drives users through :class:`~.users.FakeUser`.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import logging
import random
import re
import time
import uuid
import zlib
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from .ephemeral import Ephemeral, check_button
from .errors import (
    SERVER_ERRORS,
    ApiError,
    InjectedDisconnect,
    InjectedTimeout,
    bad_request,
    conflict,
    forbidden,
    gateway_page,
    server_error,
    too_many_requests,
)
from .formatting import parse_text, utf16_len
from .models import (
    ApiCall,
    CallbackQueryRecord,
    FakeChat,
    FakeTopic,
    InlineQueryRecord,
    StoredMessage,
)
from .private_topics import has_private_topics, private_topic_fields
from .rich import rich_message
from .users import FakeUser

if TYPE_CHECKING:
    from telegram.ext import Application

_LOGGER = logging.getLogger(__name__)

MAX_TEXT = 4096
MAX_CALLBACK_DATA = 64
MAX_INLINE_BUTTONS = 100
MAX_REPLY_BUTTONS = 300
MAX_MARKUP_JSON = 10_000
MAX_CALLBACK_ANSWER = 200
MAX_CAPTION = 1024
MAX_INLINE_RESULTS = 50
DEFAULT_ALLOWED_UPDATES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
# Parameters that are plain strings even when they look like JSON ("123", "true").
_STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "callback_query_id",
        "inline_query_id",
        "inline_message_id",
        "query",
        "url",
        "parse_mode",
        "language_code",
        "description",
        "short_description",
        "name",
        "secret_token",
        "action",
        "next_offset",
        "title",
        "ip_address",
        "business_connection_id",
    }
)
_LIMITED_METHODS = frozenset({"sendmessage", "editmessagetext", "editmessagereplymarkup"})
_QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid"
#: Seconds Telegram waits for the answer to a callback query (then the client gives up).
ANSWER_WINDOW = 15.0
#: Seconds after which a callback query carries its message as an ``InaccessibleMessage``
#: (chat, message_id, ``date`` 0, nothing else: no text, no buttons, no topic), as Telegram
#: sends old messages: about two days.
INACCESSIBLE_AFTER = 48 * 3600.0
#: What :meth:`FakeTelegram.fault_rate` may inject.
FAULT_KINDS = frozenset(
    {*(str(code) for code in SERVER_ERRORS), "429", "timeout", "timeout_after", "timeout_before"}
)
_ACTIVE = ("creator", "administrator", "member", "restricted")


def decode_params(raw: dict[str, Any]) -> dict[str, Any]:
    """Decode form/JSON-string parameters the way the Bot API types them."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, str) and key not in _STRING_PARAMS:
            try:
                out[key] = json.loads(value)
            except ValueError:
                out[key] = value
        else:
            out[key] = value
    return out


class Params:
    """Typed access to decoded parameters with Telegram-like errors."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def has(self, name: str) -> bool:
        return self.data.get(name) is not None

    def get_str(self, name: str, default: str | None = None) -> str | None:
        value = self.data.get(name)
        if value is None:
            return default
        return value if isinstance(value, str) else json.dumps(value)

    def req_str(self, name: str, empty_error: str | None = None) -> str:
        value = self.get_str(name)
        if value is None:
            raise bad_request(empty_error or f'parameter "{name}" is required')
        return value

    def get_int(self, name: str, default: int | None = None) -> int | None:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return int(value)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def req_int(self, name: str) -> int:
        value = self.get_int(name)
        if value is None:
            raise bad_request(f'parameter "{name}" is required')
        return value

    def get_float(self, name: str, default: float = 0.0) -> float:
        value = self.data.get(name)
        if value is None:
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def get_bool(self, name: str, default: bool = False) -> bool:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, str):
            return value.lower() in ("true", "1")
        return bool(value)

    def get_json(self, name: str) -> Any:
        value = self.data.get(name)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {name} JSON object") from None
        return value


Handler = Callable[[Params], Any]


@dataclass
class _Fault:
    """One injected fault: an HTTP error (``status``), or a timeout (``status`` 0), or a
    dropped connection (``status`` 0 and ``disconnect``)."""

    status: int = 0
    description: str = ""
    after: bool = True
    html: bool = False
    retry_after: int = 1
    disconnect: bool = False

    @property
    def label(self) -> str:
        if self.status == 0:
            return "disconnect" if self.disconnect else "timeout"
        return str(self.status)


@dataclass
class _FaultRate:
    p: float
    methods: frozenset[str] | None
    kinds: tuple[str, ...]
    rng: random.Random


class FakeTelegram:
    """An in-memory Telegram Bot API for one bot.

    Create users with :meth:`user`, groups with :meth:`create_group`; serve it to a PTB
    application through :class:`~.transport.FakeRequest` (in-process) or
    :class:`~.transport.FakeBotApiServer` (HTTP on 127.0.0.1).
    """

    def __init__(
        self,
        token: str = "123456789:FAKE-TOKEN-for-tests",
        *,
        bot_username: str = "kolkhoz_test_bot",
        bot_first_name: str = "Kolkhoz",
        privacy_mode: bool = True,
        inline_mode: bool = True,
        inline_feedback: bool = True,
        allow_http_webhook: bool = True,
        clock: Callable[[], float] = time.time,
        callback_answer_timeout: float | EllipsisType | None = ...,
    ) -> None:
        self.token = token
        bot_id = int(token.split(":", 1)[0]) if token.split(":", 1)[0].isdigit() else 777
        self.bot_id = bot_id
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.privacy_mode = privacy_mode
        self.inline_mode = inline_mode
        self.inline_feedback = inline_feedback
        self.allow_http_webhook = allow_http_webhook
        self.clock = clock
        #: seconds (by ``clock``) after a tap within which the bot must answer it; a later
        #: answer gets 400 "query is too old", as on Telegram (``None``: no limit). By
        #: default 15 s on a test's clock, and no limit on the wall clock: a slow machine
        #: must not make a test fail.
        self.callback_answer_timeout: float | None = (
            (None if clock is time.time else ANSWER_WINDOW)
            if isinstance(callback_answer_timeout, EllipsisType)
            else callback_answer_timeout
        )

        #: seconds (by ``clock``) after which a tapped message reaches the bot as an
        #: ``InaccessibleMessage`` (``None``: never by age; ``tap(inaccessible=True)`` still).
        self.inaccessible_after: float | None = INACCESSIBLE_AFTER

        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.sent_log: list[ApiCall] = []
        self.unknown_methods: list[str] = []
        self.callback_queries: dict[str, CallbackQueryRecord] = {}
        self.inline_queries: dict[str, InlineQueryRecord] = {}
        self.inline_messages: dict[str, StoredMessage] = {}
        #: Files the bot uploaded (photos), by the file_id the fake gave them.
        self.files: dict[str, bytes] = {}
        #: Uploads of requests in flight, by the token their parameter carries
        #: (``<upload:TOKEN>``; see :meth:`stash_upload`).
        self._uploads: dict[str, bytes] = {}
        self.commands: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self.bot_settings: dict[tuple[str, str], Any] = {}
        self.chat_actions: list[tuple[int, str]] = []
        self.webhook: dict[str, Any] | None = None
        self.webhook_log: list[dict[str, Any]] = []
        self.webhook_deliveries: list[tuple[int, int]] = []  # (update_id, HTTP status)
        self.app_errors: list[BaseException] = []
        #: exceptions inside the fake itself (bugs): returned as HTTP 500 and asserted on
        self.internal_errors: list[BaseException] = []

        self._updates: list[dict[str, Any]] = []  # pushed, not yet confirmed
        self._update_ids = itertools.count(1)
        self._allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
        self._ids = itertools.count(1)
        self._group_ids = itertools.count(1)
        self._flood: dict[str, list[int]] = {}
        self._faults: dict[str, deque[_Fault]] = {}
        self._fault_rate: _FaultRate | None = None
        self._group_limit: int | None = None
        self._group_sends: dict[int, list[float]] = {}
        self._inflight = 0
        self._poll_generation = 0
        self._event: asyncio.Event | None = None
        self._apps: list[Application[Any, Any, Any, Any, Any, Any]] = []
        self._direct_apps: list[Application[Any, Any, Any, Any, Any, Any]] = []
        self._manual_apps: list[Application[Any, Any, Any, Any, Any, Any]] = []
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._webhook_task: asyncio.Task[None] | None = None

        #: the Bot API version this server speaks (an older one ignores newer parameters
        #: and lacks newer methods: see ``ephemeral.py``)
        self.bot_api: tuple[int, int] = (10, 3)
        #: the Bot API version whose inline buttons this server reads, when it lags behind
        #: ``bot_api`` (None: ``bot_api``'s): e.g. ephemeral messages without disabled
        #: buttons, to try the bot's fallback for a keyboard on every path
        self.buttons_api: tuple[int, int] | None = None
        #: topics in the bot's private chats (Bot API 9.3/9.4), set in @BotFather: getMe's
        #: ``has_topics_enabled``; ``allows_users_to_create_topics`` likewise
        self.private_topics = False
        self.users_create_topics = True
        #: the groups' ephemeral messages (Bot API 10.2/10.3)
        self.ephemeral = Ephemeral(self)
        self._handlers: dict[str, Handler] = {}
        for name in dir(self):
            if name.startswith("api_"):
                self._handlers[name[4:].lower()] = getattr(self, name)
        self._since: dict[str, tuple[int, int]] = {}
        for key, handler in self.ephemeral.handlers().items():
            self._handlers[key] = handler
            self._since[key] = (10, 2)

    # ------------------------------------------------------------------ helpers
    def now(self) -> int:
        return int(self.clock())

    @property
    def bot_user_json(self) -> dict[str, Any]:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    def _waiter(self) -> asyncio.Event:
        """An event set by the next :meth:`_notify` (state change: update pushed, ...)."""
        loop = asyncio.get_running_loop()
        if self._event is None or self._event_loop is not loop:
            self._event = asyncio.Event()
            self._event_loop = loop
        return self._event

    def _notify(self) -> None:
        event, self._event = self._event, None
        if event is not None:
            event.set()

    def _next_id(self) -> str:
        return str(4_000_000_000_000 + next(self._ids))

    # ------------------------------------------------------------------ world set-up
    def user(
        self,
        id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "ru",
        is_bot: bool = False,
    ) -> FakeUser:
        """Create (or return) a user; its private chat with the bot has the user's id."""
        if id in self.users:
            return self.users[id]
        if id <= 0:
            raise ValueError("user ids are positive")
        user = FakeUser(
            self,
            id,
            first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
            is_bot=is_bot,
        )
        self.users[id] = user
        self.chats[id] = FakeChat(
            id=id,
            type="private",
            first_name=first_name,
            last_name=last_name,
            username=username,
            members={id: "member", self.bot_id: "member"},
        )
        return user

    def create_group(
        self,
        title: str,
        members: Iterable[FakeUser] = (),
        *,
        supergroup: bool = False,
        creator: FakeUser | None = None,
        admins: Iterable[FakeUser] = (),
        bot_admin: bool = False,
        bot_member: bool = True,
        username: str | None = None,
        chat_id: int | None = None,
        announce: bool = False,
        forum: bool = False,
        bot_can_manage_topics: bool = True,
    ) -> FakeChat:
        """Create a group (or supergroup) with the bot already in it.

        No updates are emitted unless ``announce``: then the creator adds the bot, which
        gets the ``my_chat_member`` update and the ``new_chat_members`` service message.
        ``forum``: a supergroup with topics (:meth:`create_topic`); the bot, if an admin,
        may manage them unless ``bot_can_manage_topics`` is off.
        """
        members = list(members)
        supergroup = supergroup or forum
        n = next(self._group_ids)
        if chat_id is None:
            chat_id = -(1_001_000_000_000 + n) if supergroup else -(4_000_000_000 + n)
        chat = FakeChat(
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username,
            is_forum=forum,
            bot_can_manage_topics=bot_can_manage_topics,
        )
        for m in members:
            chat.members[m.id] = "member"
        for a in admins:
            chat.members[a.id] = "administrator"
        owner = creator or (members[0] if members else None)
        if owner is not None:
            chat.members[owner.id] = "creator"
        self.chats[chat.id] = chat
        if bot_member and announce:
            self._add_bot(chat, owner, bot_admin)
        elif bot_member:
            chat.members[self.bot_id] = "administrator" if bot_admin else "member"
        return chat

    def chat(self, chat: FakeChat | int) -> FakeChat:
        chat_id = chat if isinstance(chat, int) else chat.id
        return self.chats[chat_id]

    # ------------------------------------------------------------------ forum topics
    def create_topic(
        self, chat: FakeChat | int, name: str, *, by: FakeUser | None = None,
        announce: bool = True,
    ) -> int:
        """A member opens a topic in a forum: the ``forum_topic_created`` service message
        (whose id is the topic's ``message_thread_id``), sent to the bot if ``announce``.
        Returns the topic's id."""
        c = self.chat(chat)
        if not c.is_forum and not (has_private_topics(self, c) and self.users_create_topics):
            raise ValueError(f"chat {c.id} is not a forum")
        actor = by or self._some_member(c)
        topic = self._open_topic(c, name, actor.id if actor else self.bot_id)
        if announce and c.members.get(self.bot_id, "left") not in ("left", "kicked"):
            msg = c.messages[topic.id]
            self.push_update("message", self.message_json(msg))
        return topic.id

    def _open_topic(self, chat: FakeChat, name: str, creator_id: int,
                    icon_color: int | None = None) -> FakeTopic:
        msg = self._store_message(chat, creator_id, None, service=True)
        topic = FakeTopic(msg.message_id, name, creator_id)
        if icon_color is not None:
            topic.icon_color = icon_color
        msg.extra.update({
            "message_thread_id": topic.id, "is_topic_message": True,
            "forum_topic_created": {"name": name, "icon_color": topic.icon_color},
        })
        chat.topics[topic.id] = topic
        return topic

    def delete_topic(self, chat: FakeChat | int, topic_id: int) -> None:
        """A member deletes a topic, with all its messages (Telegram tells bots nothing):
        from then on sending into it fails with "message thread not found", and editing its
        old messages with "message to edit not found"."""
        c = self.chat(chat)
        self._drop_topic(c, c.topics[topic_id])

    def _drop_topic(self, chat: FakeChat, topic: FakeTopic) -> None:
        topic.deleted = True
        for msg in chat.messages.values():
            if msg.thread_id == topic.id:
                msg.deleted = True
                if msg.message_id in chat.pinned:
                    chat.pinned.remove(msg.message_id)

    async def close_topic(
        self, chat: FakeChat | int, topic_id: int, *, by: FakeUser | None = None,
        reopen: bool = False, wait: bool = True,
    ) -> None:
        """A member (an admin) closes a topic, or reopens it: the ``forum_topic_closed``
        (``forum_topic_reopened``) service message in the topic, sent to the bot. While it
        is closed, a bot that may not manage topics cannot post there ("TOPIC_CLOSED")."""
        c = self.chat(chat)
        topic = c.topics[topic_id]
        topic.closed = not reopen
        actor = by or self._some_member(c)
        msg = self._store_message(c, actor.id if actor else self.bot_id, None, service=True,
                                  extra={"message_thread_id": topic.id,
                                         "is_topic_message": True,
                                         ("forum_topic_reopened" if reopen
                                          else "forum_topic_closed"): {}})
        if c.members.get(self.bot_id, "left") not in ("left", "kicked"):
            self.push_update("message", self.message_json(msg))
        if wait:
            await self.settle()

    def topic(self, chat: FakeChat | int, topic_id: int) -> FakeTopic:
        return self.chat(chat).topics[topic_id]

    def topic_messages(
        self, chat: FakeChat | int, topic_id: int | None, *, include_service: bool = False,
        include_deleted: bool = False,
    ) -> list[StoredMessage]:
        """The messages of one forum topic (``None``: "General", or the whole of a chat
        without topics), oldest first."""
        return [m for m in self.messages(chat, include_service=include_service,
                                         include_deleted=include_deleted)
                if m.thread_id == topic_id]

    def set_bot_status(
        self,
        chat: FakeChat | int,
        status: str,
        *,
        by: FakeUser | None = None,
        announce: bool = True,
    ) -> None:
        """Change the bot's status in a chat (member, administrator, left, kicked) and emit
        the ``my_chat_member`` update Telegram sends."""
        c = self.chat(chat)
        old = c.members.get(self.bot_id, "left")
        c.members[self.bot_id] = status
        if announce:
            actor = by or self._some_member(c)
            self.push_update(
                "my_chat_member",
                {
                    "chat": c.to_json(),
                    "from": actor.to_json() if actor else self.bot_user_json,
                    "date": self.now(),
                    "old_chat_member": self.chat_member_json(c, self.bot_id, old),
                    "new_chat_member": self.chat_member_json(c, self.bot_id, status),
                },
            )

    async def add_ai_player(
        self,
        chat: FakeChat | int,
        *,
        by: FakeUser | None = None,
        admin: bool = False,
        wait: bool = True,
    ) -> None:
        """Someone adds the bot to a group (again): the ``my_chat_member`` update and the
        ``new_chat_members`` service message Telegram sends."""
        c = self.chat(chat)
        self._add_bot(c, by or self._some_member(c), admin)
        if wait:
            await self.settle()

    async def remove_bot(
        self,
        chat: FakeChat | int,
        *,
        by: FakeUser | None = None,
        ban: bool = True,
        wait: bool = True,
    ) -> None:
        """Someone removes the bot from a group: the ``my_chat_member`` update (``kicked``,
        or ``left`` when not banned). From then on the bot gets nothing from the chat and
        every send or edit there fails with 403."""
        self.set_bot_status(chat, "kicked" if ban else "left", by=by)
        if wait:
            await self.settle()

    def _add_bot(self, chat: FakeChat, by: FakeUser | None, admin: bool) -> None:
        self.set_bot_status(chat, "administrator" if admin else "member", by=by)
        msg = self._store_message(
            chat,
            by.id if by else self.bot_id,
            None,
            service=True,
            extra={"new_chat_members": [self.bot_user_json]},
        )
        self.push_update("message", self.message_json(msg))

    def _some_member(self, chat: FakeChat) -> FakeUser | None:
        for uid, status in chat.members.items():
            if uid in self.users and status in ("creator", "administrator"):
                return self.users[uid]
        for uid in chat.members:
            if uid in self.users:
                return self.users[uid]
        return None

    def migrate_to_supergroup(
        self, chat: FakeChat | int, *, by: FakeUser | None = None
    ) -> FakeChat:
        """Upgrade a basic group: emits the two service messages Telegram sends and makes
        the old id fail with ``group chat was upgraded to a supergroup chat``."""
        old = self.chat(chat)
        if old.type != "group":
            raise ValueError("only basic groups can be migrated")
        new = FakeChat(
            id=-(1_001_000_000_000 + next(self._group_ids)),
            type="supergroup",
            title=old.title,
            members=dict(old.members),
            migrated_from=old.id,
            permissions=dict(old.permissions),
        )
        self.chats[new.id] = new
        actor = by or self._some_member(old)
        sender = actor.to_json() if actor else self.bot_user_json
        m_old = self._store_message(
            old,
            actor.id if actor else self.bot_id,
            None,
            service=True,
            extra={"migrate_to_chat_id": new.id},
        )
        old.migrated_to = new.id
        m_new = self._store_message(
            new,
            actor.id if actor else self.bot_id,
            None,
            service=True,
            extra={"migrate_from_chat_id": old.id},
        )
        for m in (m_old, m_new):
            payload = self.message_json(m)
            payload["from"] = sender
            self.push_update("message", payload)
        return new

    # ------------------------------------------------------------------ flood switch
    def flood(
        self, method: str, times: int = 1, retry_after: int = 1, *, groups_only: bool = False
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail with 429 ``retry_after``
        (``groups_only``: the next calls of it to a group, as Telegram's per-group limit)."""
        self._flood[method.lower()] = [times, retry_after, int(groups_only)]

    # ------------------------------------------------------------------ fault injection
    def fail(
        self,
        method: str,
        status: int = 502,
        times: int = 1,
        description: str | None = None,
        *,
        html: bool = False,
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail with HTTP ``status`` (they do
        not take effect). For a 5xx PTB raises ``telegram.error.NetworkError``, whose message
        is ``description`` (default: the status's phrase, e.g. "Bad Gateway") as Telegram
        sends it in ``{"ok": false, "error_code": 502, "description": "Bad Gateway"}``.
        ``html=True`` answers with nginx's HTML error page instead of JSON, as Telegram's
        front end does when the Bot API behind it is down (PTB: ``NetworkError`` too).

        Queued after any fault already pending for ``method``; logged with ``fault`` set to
        the status (``fake.faults()``)."""
        if not 400 <= status <= 599:
            raise ValueError(f"fail() wants an HTTP error status, not {status}")
        text = description or HTTPStatus(status).phrase
        queue = self._faults.setdefault(method.lower(), deque())
        queue.extend(_Fault(status, text, html=html) for _ in range(times))

    def time_out(self, method: str, times: int = 1, after: bool = True) -> None:
        """Make the next ``times`` calls of ``method`` time out in the transport: PTB raises
        ``telegram.error.TimedOut``, as from an httpx timeout.

        ``after=True``: the call took effect in the fake (the message was sent, the query
        answered), only the reply was lost (a read timeout). ``after=False``: it never
        reached the server (a connect timeout). In-process the timeout is immediate; over
        HTTP (:class:`~.transport.FakeBotApiServer`) the server never answers and the client
        gives up after its own read timeout (set a short one: ``builder.read_timeout(0.2)``).

        Logged with ``fault="timeout"``; ``ok`` says whether the call took effect."""
        queue = self._faults.setdefault(method.lower(), deque())
        queue.extend(_Fault(0, after=after) for _ in range(times))

    def disconnect(self, method: str, times: int = 1, after: bool = True) -> None:
        """Make the connection of the next ``times`` calls of ``method`` break: PTB raises
        ``telegram.error.NetworkError`` from an httpx error, as ``HTTPXRequest`` does.

        ``after=True``: the call took effect in the fake, then the connection broke before
        the reply (httpx ``RemoteProtocolError``; a ``ReadError`` is the same case): a
        client cannot tell whether Telegram got it. ``after=False``: the connection was
        never made (httpx ``ConnectError``): the call provably did not reach the server.
        Over HTTP (:class:`~.transport.FakeBotApiServer`) both are a connection closed
        without a reply, which httpx reports as ``RemoteProtocolError`` (``after=False``
        does not take effect).

        Logged with ``fault="disconnect"``; ``ok`` says whether the call took effect."""
        queue = self._faults.setdefault(method.lower(), deque())
        queue.extend(_Fault(0, after=after, disconnect=True) for _ in range(times))

    def fault_rate(
        self,
        p: float,
        methods: Iterable[str] | None = None,
        kinds: Iterable[str] = ("502", "timeout"),
        seed: int = 0,
    ) -> None:
        """From now on every call of ``methods`` (default: every method but getUpdates)
        fails with probability ``p``, with a fault drawn from ``kinds``: an HTTP status
        (``"500"``, ``"502"``, ``"503"``, ``"504"``, ``"429"`` with retry_after 1),
        ``"timeout"`` (after or before taking effect, half and half), ``"timeout_after"`` or
        ``"timeout_before"``. Reproducible: the draws come from ``random.Random(seed)``, one
        per eligible call, so the same calls in the same order get the same faults.
        ``fault_rate(0)`` switches it off. Faults queued by :meth:`fail`, :meth:`time_out`
        and :meth:`flood` come first. Every fault is logged (``fake.faults()``)."""
        if not 0 <= p <= 1:
            raise ValueError("p is a probability")
        chosen = tuple(kinds)
        unknown = [k for k in chosen if k not in FAULT_KINDS]
        if unknown or not chosen:
            raise ValueError(f"unknown fault kinds {unknown}; known: {sorted(FAULT_KINDS)}")
        if p == 0:
            self._fault_rate = None
            return
        self._fault_rate = _FaultRate(
            p,
            None if methods is None else frozenset(m.lower() for m in methods),
            chosen,
            random.Random(seed),
        )

    def clear_faults(self) -> None:
        """Drop every pending fault (:meth:`fail`, :meth:`time_out`, :meth:`flood`) and
        switch :meth:`fault_rate` off."""
        self._faults.clear()
        self._flood.clear()
        self._fault_rate = None

    def forbid_user(self, user: FakeUser | int, *, announce: bool = False) -> None:
        """The user has blocked the bot: sends and edits to them fail with 403 "bot was
        blocked by the user". Unlike :meth:`FakeUser.block_bot` no ``my_chat_member`` update
        is sent unless ``announce`` (the bot learns it only from the 403, as when it missed
        the update). :meth:`allow_user` (or the user writing to the bot) undoes it. A user
        who never started the bot already gets 403 "bot can't initiate conversation with a
        user"."""
        u = self.users[user if isinstance(user, int) else user.id]
        if u.blocked:
            return
        u.blocked = True
        if announce:
            u._private_status_update("member", "kicked")

    def allow_user(self, user: FakeUser | int, *, announce: bool = False) -> None:
        """Undo :meth:`forbid_user`: the user unblocked the bot (and so has started it)."""
        u = self.users[user if isinstance(user, int) else user.id]
        if not u.blocked:
            return
        u.blocked = False
        u.started = True
        if announce:
            u._private_status_update("kicked", "member")

    def faults(self, method: str | None = None) -> list[ApiCall]:
        """Logged calls that got an injected fault, optionally of one method."""
        return [c for c in self.calls(method) if c.fault is not None]

    def _next_fault(self, key: str, params: dict[str, Any] | None = None) -> _Fault | None:
        queue = self._faults.get(key)
        if queue:
            return queue.popleft()
        flood = self._flood.get(key)
        if flood and flood[2] and not str((params or {}).get("chat_id", "")).startswith("-"):
            flood = None  # a private chat: not under a group's flood control
        if flood and flood[0] > 0:
            flood[0] -= 1
            return _Fault(429, retry_after=flood[1])
        rate = self._fault_rate
        if rate is None or key == "getupdates" or (
            rate.methods is not None and key not in rate.methods
        ):
            return None
        # the same three draws for every eligible call, hit or not
        hit, pick, half = rate.rng.random(), rate.rng.random(), rate.rng.random()
        if hit >= rate.p:
            return None
        kind = rate.kinds[min(int(pick * len(rate.kinds)), len(rate.kinds) - 1)]
        if kind == "429":
            return _Fault(429, retry_after=1)
        if kind.startswith("timeout"):
            after = {"timeout_after": True, "timeout_before": False}.get(kind, half < 0.5)
            return _Fault(0, after=after)
        status = int(kind)
        return _Fault(status, SERVER_ERRORS[status])

    def limit_group_messages(self, per_minute: int | None = 20) -> None:
        """Opt-in flood control like Telegram's for groups: more than ``per_minute`` sends
        or edits to one group within 60 s (by ``clock``) get 429 with the seconds until a
        slot frees up. ``None`` switches it off."""
        self._group_limit = per_minute
        self._group_sends.clear()

    def _check_group_limit(self, method: str, params: dict[str, Any]) -> None:
        if self._group_limit is None or method not in _LIMITED_METHODS:
            return
        try:
            chat_id = int(params.get("chat_id", 0))
        except (TypeError, ValueError):
            return
        if chat_id >= 0:
            return
        now = self.clock()
        recent = [t for t in self._group_sends.get(chat_id, []) if now - t < 60]
        if len(recent) >= self._group_limit:
            self._group_sends[chat_id] = recent
            raise too_many_requests(max(1, int(60 - (now - recent[0])) + 1))
        recent.append(now)
        self._group_sends[chat_id] = recent

    # ------------------------------------------------------------------ JSON builders
    def user_json(self, user_id: int) -> dict[str, Any]:
        if user_id == self.bot_id:
            return self.bot_user_json
        return self.users[user_id].to_json()

    def message_json(self, msg: StoredMessage, *, nested: bool = False) -> dict[str, Any]:
        chat = self.chats[msg.chat_id]
        data: dict[str, Any] = {
            "message_id": msg.message_id,
            "date": msg.date,
            "chat": chat.to_json(),
            "from": self.user_json(msg.from_id),
        }
        if msg.ephemeral_id is not None and msg.receiver_id is not None:
            data["ephemeral_message_id"] = msg.ephemeral_id
            data["receiver_user"] = self.user_json(msg.receiver_id)
        if msg.text is not None and "rich_message" not in msg.extra:
            data["text"] = msg.text
            if msg.entities:
                data["entities"] = msg.entities
        if msg.reply_markup and "inline_keyboard" in msg.reply_markup:
            data["reply_markup"] = msg.reply_markup
        if msg.edit_date is not None:
            data["edit_date"] = msg.edit_date
        if msg.via_bot_id is not None:
            data["via_bot"] = self.user_json(msg.via_bot_id)
        if msg.reply_to_message_id is not None and not nested:
            replied = chat.messages.get(msg.reply_to_message_id)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self.message_json(replied, nested=True)
        data.update(msg.extra)
        return data

    def inaccessible_message_json(self, msg: StoredMessage) -> dict[str, Any]:
        """An ``InaccessibleMessage``: what a callback query carries for an old message (or
        one the bot may not see) — the chat and the id, ``date`` 0, no topic."""
        return {"chat": self.chats[msg.chat_id].to_json(), "message_id": msg.message_id,
                "date": 0}

    def is_inaccessible(self, msg: StoredMessage) -> bool:
        """Whether a tap on ``msg`` now carries it as an ``InaccessibleMessage`` (it is older
        than :attr:`inaccessible_after`)."""
        limit = self.inaccessible_after
        return limit is not None and self.clock() - msg.date > limit

    def chat_member_json(
        self, chat: FakeChat, user_id: int, status: str | None = None
    ) -> dict[str, Any]:
        status = status or chat.members.get(user_id, "left")
        user = self.user_json(user_id)
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            return {
                "status": "administrator",
                "user": user,
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
                "can_pin_messages": True,
                **({"can_manage_topics": chat.bot_can_manage_topics or user_id != self.bot_id}
                   if chat.type == "supergroup" else {}),
            }
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        if status in ("member", "left"):
            return {"status": status, "user": user}
        raise ValueError(f"unsupported member status {status!r}")

    # ------------------------------------------------------------------ updates
    def push_update(self, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Queue an update for the bot (delivered by getUpdates, webhook or directly)."""
        update = {"update_id": next(self._update_ids), kind: payload}
        self._updates.append(update)
        self._deliver_direct()
        self._notify()
        return update

    @property
    def pending_updates(self) -> list[dict[str, Any]]:
        """Updates pushed but not yet confirmed by the bot."""
        return list(self._updates)

    def _confirm(self, offset: int) -> None:
        self._updates = [u for u in self._updates if u["update_id"] >= offset]

    def _update_kind(self, update: dict[str, Any]) -> str:
        return next(k for k in update if k != "update_id")

    def _deliver_direct(self) -> None:
        if not self._direct_apps or self.webhook:
            return
        from telegram import Update

        while self._updates:
            update = self._updates.pop(0)
            for app in self._direct_apps:
                app.update_queue.put_nowait(Update.de_json(update, app.bot))

    # ------------------------------------------------------------------ entry point
    async def handle(
        self,
        token: str | None,
        method: str,
        raw_params: dict[str, Any],
        *,
        transport: str = "inprocess",
    ) -> tuple[int, dict[str, Any] | bytes]:
        """Run one Bot API call; returns (HTTP status, JSON body, or raw bytes for an HTML
        error page). Raises :class:`~.errors.InjectedTimeout` for a timeout fault and
        :class:`~.errors.InjectedDisconnect` for a dropped connection (the transport turns
        them into what PTB sees)."""
        params = decode_params(raw_params)
        if token != self.token:
            self.sent_log.append(
                ApiCall(method, params, False, None, 401, "Unauthorized", transport)
            )
            return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
        key = method.lower()
        fault = self._next_fault(key, params)
        if fault is not None and fault.status >= 500:
            error = server_error(fault.status, fault.description)
            self.sent_log.append(
                ApiCall(method, params, False, None, error.code, error.description, transport,
                        fault=fault.label)
            )
            if fault.html:
                return error.code, gateway_page(error.code, error.description)
            return error.code, error.to_json()
        if fault is not None and fault.status == 0 and not fault.after:
            what = "could not connect" if fault.disconnect else (
                "timed out before reaching the server")
            self.sent_log.append(
                ApiCall(method, params, False, None, None, what, transport, fault=fault.label)
            )
            if fault.disconnect:
                raise InjectedDisconnect(method, after=False)
            raise InjectedTimeout(method, after=False)
        status, body = await self._run(method, key, params, transport, fault)
        if fault is not None and fault.status == 0:
            if fault.disconnect:
                raise InjectedDisconnect(method, after=True)
            raise InjectedTimeout(method, after=True)
        return status, body

    async def _run(
        self,
        method: str,
        key: str,
        params: dict[str, Any],
        transport: str,
        fault: _Fault | None,
    ) -> tuple[int, dict[str, Any]]:
        label = fault.label if fault is not None else None
        long_poll = key == "getupdates"
        if not long_poll:
            self._inflight += 1
        try:
            if fault is not None and 400 <= fault.status < 500:
                if fault.status == 429:
                    raise too_many_requests(fault.retry_after)
                raise ApiError(fault.status, fault.description)
            self._check_group_limit(key, params)
            handler = self._handlers.get(key)
            if handler is not None and self.bot_api < self._since.get(key, (0, 0)):
                raise ApiError(404, "Not Found")  # the method is newer than this server
            if handler is None:
                self.unknown_methods.append(method)
                raise bad_request(
                    f"method {method!r} is not implemented by the fake Telegram "
                    "(tests/faketg); add it there"
                )
            result = handler(Params(params))
            if inspect.isawaitable(result):
                result = await result
        except ApiError as exc:
            self.sent_log.append(
                ApiCall(method, params, False, None, exc.code, exc.description, transport,
                        fault=label)
            )
            return exc.code, exc.to_json()
        finally:
            if not long_poll:
                self._inflight -= 1
        self.sent_log.append(ApiCall(method, params, True, result, transport=transport,
                                     fault=label))
        return 200, {"ok": True, "result": result}

    def deep_link_payload(self, url: str) -> str | None:
        """The ``start`` payload of a link that opens this bot (``""`` if none), else None.

        Accepts ``https://t.me/<bot>``, ``https://t.me/<bot>?start=PAYLOAD`` and
        ``tg://resolve?domain=<bot>&start=PAYLOAD``; the payload must be 1-64 characters
        of ``A-Za-z0-9_-`` as Telegram requires.
        """
        m = re.fullmatch(
            r"(?:https?://)?(?:t\.me|telegram\.me)/([A-Za-z0-9_]+)(?:\?start=([^&#]*))?",
            url,
        ) or re.fullmatch(r"tg://resolve\?domain=([A-Za-z0-9_]+)(?:&start=([^&#]*))?", url)
        if m is None or m.group(1).lower() != self.bot_username.lower():
            return None
        payload = m.group(2)
        if payload is None:
            return ""
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload):
            return None
        return payload

    # ------------------------------------------------------------------ inspection
    def calls(self, method: str | None = None, *, ok: bool | None = None) -> list[ApiCall]:
        """Logged calls, optionally of one method (case-insensitive) / outcome."""
        return [
            c
            for c in self.sent_log
            if (method is None or c.method.lower() == method.lower()) and (ok is None or c.ok == ok)
        ]

    def messages(
        self,
        chat: FakeChat | FakeUser | int,
        *,
        include_service: bool = False,
        include_deleted: bool = False,
    ) -> list[StoredMessage]:
        """Current messages of a chat, oldest first (edits applied in place)."""
        c = self.chats[chat if isinstance(chat, int) else chat.id]
        return [
            m
            for m in c.messages.values()
            if (include_deleted or not m.deleted) and (include_service or not m.service)
        ]

    def bot_messages(self, chat: FakeChat | FakeUser | int) -> list[StoredMessage]:
        return [m for m in self.messages(chat) if m.from_id == self.bot_id]

    def last_message(
        self, chat: FakeChat | FakeUser | int, *, from_bot: bool = True
    ) -> StoredMessage | None:
        """The newest (non-deleted, non-service) message, by default the bot's."""
        msgs = self.bot_messages(chat) if from_bot else self.messages(chat)
        return msgs[-1] if msgs else None

    def message(self, chat: FakeChat | FakeUser | int, message_id: int) -> StoredMessage:
        c = self.chats[chat if isinstance(chat, int) else chat.id]
        return c.messages[message_id]

    def my_commands(
        self, scope: dict[str, Any] | None = None, language_code: str = ""
    ) -> list[dict[str, Any]]:
        """The command list stored for exactly this scope and language."""
        return self.commands.get((_scope_key(scope), language_code), [])

    def visible_commands(
        self, user: FakeUser, chat: FakeChat | int | None = None
    ) -> list[dict[str, Any]]:
        """The commands ``user`` sees in ``chat`` (``None``: the private chat), resolved as
        Telegram does: the narrowest scope that has commands wins, each scope tried first
        with the user's language, then without a language."""
        c = self.chats[user.id] if chat is None else self.chat(chat)
        scopes: list[dict[str, Any]]
        if c.type == "private":
            scopes = [
                {"type": "chat", "chat_id": c.id},
                {"type": "all_private_chats"},
                {"type": "default"},
            ]
        else:
            admin = c.members.get(user.id) in ("creator", "administrator")
            scopes = [{"type": "chat_member", "chat_id": c.id, "user_id": user.id}]
            if admin:
                scopes.append({"type": "chat_administrators", "chat_id": c.id})
            scopes.append({"type": "chat", "chat_id": c.id})
            if admin:
                scopes.append({"type": "all_chat_administrators"})
            scopes += [{"type": "all_group_chats"}, {"type": "default"}]
        languages = [user.language_code or "", ""] if user.language_code else [""]
        for scope in scopes:
            for lang in languages:
                found = self.commands.get((_scope_key(scope), lang))
                if found:
                    return found
        return []

    def answers_per_callback(self) -> dict[str, int]:
        """For each callback query (by id, in tap order): how many answerCallbackQuery calls
        the bot made for it (Telegram accepts only the first, within the answer window)."""
        return {q.id: q.answer_count for q in self.callback_queries.values()}

    def assert_all_callbacks_answered(self) -> None:
        """Fail unless every callback query was answered, in time, exactly once (a second
        answer is a 400 on Telegram, and shows the bot does not know it answered)."""
        problems: list[str] = []
        missing = [q for q in self.callback_queries.values() if not q.answered and not q.late]
        if missing:
            problems.append(
                "callback queries never answered (Telegram clients show a spinner): "
                + ", ".join(f"{q.id} data={q.data!r} from {q.user_id}" for q in missing)
            )
        late = [q for q in self.callback_queries.values() if q.late and not q.answered]
        if late:
            problems.append(
                f"callback queries answered too late (after {self.callback_answer_timeout} s: "
                "Telegram refuses the answer, the client shows a spinner until it gives up): "
                + ", ".join(f"{q.id} data={q.data!r} from {q.user_id}" for q in late)
            )
        twice = [q for q in self.callback_queries.values() if q.answer_count > 1]
        if twice:
            problems.append(
                "callback queries answered more than once (the second answer gets 400 "
                "\"query is too old\"): "
                + ", ".join(f"{q.id} data={q.data!r} x{q.answer_count}" for q in twice)
            )
        if problems:
            raise AssertionError("; ".join(problems))

    def assert_no_unknown_methods(self) -> None:
        """Fail if the bot called a method the fake does not implement (even if the bot
        swallowed the resulting BadRequest)."""
        if self.unknown_methods:
            raise AssertionError(
                f"the bot called Bot API methods the fake does not implement: "
                f"{sorted(set(self.unknown_methods))}; add them to tests/faketg/core.py"
            )

    def assert_no_app_errors(self, expected: tuple[type[BaseException], ...] = ()) -> None:
        """Fail if the fake crashed or a handler raised (other than ``expected`` types)."""
        if self.internal_errors:
            raise AssertionError(f"the fake Telegram crashed: {self.internal_errors!r}")
        errors = [e for e in self.app_errors if not isinstance(e, expected)]
        if errors:
            raise AssertionError(f"the application's handlers raised: {errors!r}") from errors[0]

    # ------------------------------------------------------------------ app plumbing
    def attach(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        """Let :meth:`wait_idle` watch ``app`` and collect its handler errors."""
        if app not in self._apps:
            self._apps.append(app)
            app.add_error_handler(self._collect_error)

    def detach(self, app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if app in self._apps:
            self._apps.remove(app)
            with contextlib.suppress(KeyError, ValueError):
                app.remove_error_handler(self._collect_error)
        if app in self._direct_apps:
            self._direct_apps.remove(app)
        if app in self._manual_apps:
            self._manual_apps.remove(app)

    async def _collect_error(self, update: object, context: Any) -> None:
        if context.error is not None:
            self.app_errors.append(context.error)

    def _is_idle(self) -> bool:
        if self._updates or self._inflight:
            return False
        for app in self._apps:
            queue = app.update_queue
            if queue.qsize() or getattr(queue, "_unfinished_tasks", 0):
                return False
            tasks: set[asyncio.Task[Any]] = getattr(app, "_Application__create_task_tasks", set())
            if any(not t.done() for t in tasks):
                return False
        return True

    async def wait_idle(self, timeout: float = 10.0) -> None:
        """Wait until every pushed update was fetched and fully handled.

        Idle = no unconfirmed update, no Bot API call in flight, and for each attached
        application an empty update queue with no unfinished update and no pending
        ``create_task`` task; it must hold over several event-loop turns in a row.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        stable = 0
        while True:
            if self._manual_apps:
                for app in list(self._manual_apps):
                    await self.process_pending(app)
            if self._is_idle():
                stable += 1
                if stable >= 5:
                    return
                await asyncio.sleep(0)
                continue
            stable = 0
            if loop.time() > deadline:
                raise TimeoutError(
                    f"fake Telegram not idle after {timeout}s: pending updates "
                    f"{[u['update_id'] for u in self._updates]}, in-flight calls "
                    f"{self._inflight}, attached apps {len(self._apps)} (is the bot "
                    "running? use fake.running(app) or fake.attach(app))"
                )
            await asyncio.sleep(0.001)

    drain = wait_idle

    async def settle(self) -> None:
        """What user actions do with ``wait=True``: :meth:`wait_idle` if something receives
        updates (an attached application or a webhook), else nothing: while the bot is
        down, updates just queue up, as on Telegram."""
        if self._apps or self.webhook is not None:
            await self.wait_idle()

    async def process_pending(self, app: Application[Any, Any, Any, Any, Any, Any]) -> int:
        """Feed every pending update to ``app.process_update`` (in order); returns how many.

        For tests that drive an initialized (not started) application by hand.
        """
        from telegram import Update

        count = 0
        while self._updates:
            raw = self._updates.pop(0)
            await app.process_update(Update.de_json(raw, app.bot))
            count += 1
        return count

    @contextlib.asynccontextmanager
    async def running(
        self,
        app: Application[Any, Any, Any, Any, Any, Any],
        *,
        mode: str = "polling",
        poll_timeout: float = 10,
        webhook_port: int | None = None,
        check: bool = True,
        expected_errors: tuple[type[BaseException], ...] = (),
    ) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
        """Run ``app`` against this fake: ``mode`` is ``"polling"`` (the real Updater with
        long polling), ``"direct"`` (updates put straight into ``app.update_queue``),
        ``"webhook"`` (the real Updater webhook server on 127.0.0.1, fed by POSTs) or
        ``"manual"`` (the app is initialized but not started; pending updates are fed to
        ``app.process_update`` one by one whenever the test waits).

        On a clean exit waits for idle and, if ``check``, asserts no handler raised (except
        ``expected_errors`` types), no unimplemented method was called and every callback
        query was answered.
        """
        self.attach(app)
        try:
            async with app:
                if mode != "manual":
                    await app.start()
                if mode == "polling":
                    await app.updater.start_polling(  # type: ignore[union-attr]
                        poll_interval=0, timeout=int(poll_timeout)
                    )
                elif mode == "direct":
                    self._direct_apps.append(app)
                    self._deliver_direct()
                elif mode == "manual":
                    self._manual_apps.append(app)
                elif mode == "webhook":
                    from .transport import free_port

                    port = webhook_port or free_port()
                    await app.updater.start_webhook(  # type: ignore[union-attr]
                        listen="127.0.0.1",
                        port=port,
                        url_path="webhook",
                        webhook_url=f"http://127.0.0.1:{port}/webhook",
                        secret_token="fake-secret",
                    )
                else:
                    raise ValueError(f"unknown mode {mode!r}")
                try:
                    yield app
                    if check:
                        await self.wait_idle()
                        self.assert_no_app_errors(expected_errors)
                        self.assert_no_unknown_methods()
                        self.assert_all_callbacks_answered()
                finally:
                    if app.updater is not None and app.updater.running:
                        await app.updater.stop()
                    if app.running:
                        await app.stop()
        finally:
            self.detach(app)
            await self._stop_webhook_worker()

    async def close(self) -> None:
        await self._stop_webhook_worker()

    # ------------------------------------------------------------------ chat access
    def _resolve_chat(self, value: Any) -> FakeChat:
        chat: FakeChat | None = None
        if isinstance(value, str) and value.startswith("@"):
            chat = next((c for c in self.chats.values() if c.username == value[1:]), None)
        else:
            try:
                chat = self.chats.get(int(value))
            except (TypeError, ValueError):
                chat = None
        if chat is None:
            raise bad_request("chat not found")
        if chat.migrated_to is not None:
            raise bad_request(
                "group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        if chat.type == "private":
            user = self.users[chat.id]
            if not user.started and not user.blocked:
                raise bad_request("chat not found")
        return chat

    def _writable_chat(self, value: Any) -> FakeChat:
        if value is None:
            raise bad_request("chat_id is empty")
        try:
            chat = self._resolve_chat(value)
        except ApiError as exc:
            if exc.description == "Bad Request: chat not found" and self._is_unstarted(value):
                raise forbidden("bot can't initiate conversation with a user") from None
            raise
        if chat.type == "private":
            user = self.users[chat.id]
            if user.blocked:
                raise forbidden("bot was blocked by the user")
        else:
            kind = "supergroup" if chat.type == "supergroup" else "group"
            status = chat.members.get(self.bot_id, "left")
            if status == "kicked":
                raise forbidden(f"bot was kicked from the {kind} chat")
            if status == "left":
                raise forbidden(f"bot is not a member of the {kind} chat")
        return chat

    def _is_unstarted(self, value: Any) -> bool:
        try:
            user = self.users.get(int(value))
        except (TypeError, ValueError):
            return False
        return user is not None and not user.started

    def _store_message(
        self,
        chat: FakeChat,
        from_id: int,
        text: str | None,
        *,
        entities: list[dict[str, Any]] | None = None,
        reply_markup: dict[str, Any] | None = None,
        service: bool = False,
        extra: dict[str, Any] | None = None,
        reply_to: int | None = None,
        via_bot_id: int | None = None,
        params: dict[str, Any] | None = None,
    ) -> StoredMessage:
        msg = StoredMessage(
            chat_id=chat.id,
            message_id=chat.next_message_id,
            from_id=from_id,
            date=self.now(),
            text=text,
            entities=entities or [],
            reply_markup=reply_markup,
            service=service,
            extra=extra or {},
            reply_to_message_id=reply_to,
            via_bot_id=via_bot_id,
            params=params or {},
        )
        chat.next_message_id += 1
        chat.messages[msg.message_id] = msg
        return msg

    # ------------------------------------------------------------------ validation
    def _text(
        self, p: Params, *, name: str = "text", edit: bool = False
    ) -> tuple[str, list[dict[str, Any]]]:
        raw = p.get_str(name)
        if raw is None or raw == "":
            raise bad_request("text must be non-empty" if edit else "message text is empty")
        entities = p.get_json("entities") if p.has("entities") else None
        text, ents = parse_text(raw, p.get_str("parse_mode"), entities)
        if not text:
            raise bad_request("text must be non-empty" if edit else "message text is empty")
        if len(text) > MAX_TEXT:
            raise bad_request("MESSAGE_TOO_LONG" if edit else "message is too long")
        return text, self._fill_mentions(ents)

    def _fill_mentions(self, entities: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``tg://user?id=`` links become text_mention entities with the full user."""
        out = []
        for e in entities:
            if e.get("type") == "text_mention":
                user_id = int(e.get("user", {}).get("id", 0))
                if user_id in self.users or user_id == self.bot_id:
                    e = {**e, "user": self.user_json(user_id)}
            out.append(e)
        return out

    def validate_markup(self, markup: Any, *, inline_only: bool = False) -> dict[str, Any] | None:
        if markup is None:
            return None
        if isinstance(markup, str):
            try:
                markup = json.loads(markup)
            except ValueError:
                raise bad_request("can't parse reply keyboard markup JSON object") from None
        if not isinstance(markup, dict):
            raise bad_request("can't parse reply keyboard markup JSON object")
        if len(json.dumps(markup, ensure_ascii=False).encode()) > MAX_MARKUP_JSON:
            raise bad_request("reply markup is too long")
        if "inline_keyboard" in markup:
            rows = markup["inline_keyboard"]
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise bad_request(
                    'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
                )
            if sum(len(r) for r in rows) > MAX_INLINE_BUTTONS:
                raise bad_request("reply markup is too long")
            for row in rows:
                for button in row:
                    self._validate_inline_button(button)
            if not any(rows):
                return None  # an empty inline keyboard is no keyboard
            return markup
        if inline_only:
            raise bad_request("inline keyboard expected")
        if "keyboard" in markup:
            rows = markup["keyboard"]
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise bad_request(
                    'field "keyboard" of the ReplyKeyboardMarkup must be an Array of Arrays'
                )
            if sum(len(r) for r in rows) > MAX_REPLY_BUTTONS:
                raise bad_request("reply markup is too long")
            for row in rows:
                for button in row:
                    text = button if isinstance(button, str) else button.get("text")
                    if not text:
                        raise bad_request("keyboard button text is empty")
            return markup
        if markup.get("remove_keyboard") or markup.get("force_reply"):
            return markup
        raise bad_request("can't parse reply keyboard markup JSON object")

    def _validate_inline_button(self, button: Any) -> None:
        if not isinstance(button, dict):
            raise bad_request(
                "can't parse inline keyboard button: InlineKeyboardButton must be an Object"
            )
        text = button.get("text")
        if not isinstance(text, str):
            raise bad_request(
                'can\'t parse inline keyboard button: Field "text" must be of type String'
            )
        if not text.strip():
            raise bad_request("BUTTON_TEXT_INVALID")
        actions = [
            k
            for k in (
                "callback_data",
                "url",
                "switch_inline_query",
                "switch_inline_query_current_chat",
                "switch_inline_query_chosen_chat",
                "login_url",
                "web_app",
                "pay",
                "callback_game",
                "copy_text",
            )
            if k in button
        ]
        actions = check_button(self, button, actions)
        if not actions:
            raise bad_request(
                "can't parse inline keyboard button: Text buttons are unallowed in "
                "the inline keyboard"
            )
        if "callback_data" in button:
            data = button["callback_data"]
            if not isinstance(data, str) or not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA:
                raise bad_request("BUTTON_DATA_INVALID")
        if "url" in button:
            url = str(button["url"])
            if not url.startswith(("http://", "https://", "tg://")) or len(url) < 8:
                raise bad_request(f"inline keyboard button URL '{url}' is invalid: Wrong HTTP URL")

    # ------------------------------------------------------------------ Bot API methods
    def api_getMe(self, p: Params) -> dict[str, Any]:
        return {
            **self.bot_user_json,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": self.inline_mode,
            "can_connect_to_business": False,
            "has_main_web_app": False,
            **private_topic_fields(self),
        }

    def api_logOut(self, p: Params) -> bool:
        return True

    def api_close(self, p: Params) -> bool:
        return True

    async def api_getUpdates(self, p: Params) -> list[dict[str, Any]]:
        if self.webhook:
            raise conflict(
                "can't use getUpdates method while webhook is active; use deleteWebhook to "
                "delete the webhook first"
            )
        offset = p.get_int("offset")
        limit = p.get_int("limit", 100) or 100
        if not 1 <= limit <= 100:
            limit = 100
        timeout = p.get_float("timeout", 0.0)
        allowed = p.get_json("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        if offset is not None:
            if offset < 0:
                self._updates = self._updates[offset:]
            else:
                self._confirm(offset)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # an older long poll ends with 409, as on Telegram
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, 0.0)
        while True:
            # drop what the bot did not subscribe to: Telegram never sends it
            self._updates = [
                u for u in self._updates if self._update_kind(u) in self._allowed_updates
            ]
            if generation != self._poll_generation:
                raise conflict(
                    "terminated by other getUpdates request; make sure that only one bot "
                    "instance is running"
                )
            if self._updates:
                return [dict(u) for u in self._updates[:limit]]
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._waiter().wait(), remaining)

    def api_setWebhook(self, p: Params) -> bool:
        url = p.get_str("url") or ""
        if url == "":
            return self.api_deleteWebhook(p)
        if not url.startswith("https://") and not (
            self.allow_http_webhook and url.startswith("http://")
        ):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if p.get_bool("drop_pending_updates"):
            self._updates.clear()
        allowed = p.get_json("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        self.webhook = {
            "url": url,
            "secret_token": p.get_str("secret_token"),
            "max_connections": p.get_int("max_connections", 40),
            "allowed_updates": allowed,
        }
        self.webhook_log.append({"action": "set", **self.webhook})
        self._start_webhook_worker()
        return True

    def api_deleteWebhook(self, p: Params) -> bool:
        if p.get_bool("drop_pending_updates"):
            self._updates.clear()
        self.webhook_log.append({"action": "delete"})
        self.webhook = None
        self._notify()
        return True

    def api_getWebhookInfo(self, p: Params) -> dict[str, Any]:
        info: dict[str, Any] = {
            "url": self.webhook["url"] if self.webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if self.webhook:
            info["max_connections"] = self.webhook["max_connections"]
        return info

    def api_sendMessage(self, p: Params) -> dict[str, Any]:
        chat = self._writable_chat(p.data.get("chat_id"))
        if (
            chat.is_group
            and chat.members.get(self.bot_id) == "member"
            and not chat.permissions.get("can_send_messages", True)
        ):
            raise bad_request("not enough rights to send text messages to the chat")
        text, entities = self._text(p)
        markup = self.validate_markup(p.get_json("reply_markup"))
        reply_to = self._reply_target(chat, p)
        thread = self._thread(chat, p, reply_to)
        if p.has("ephemeral_message_parameters") and self.bot_api >= (10, 3):
            return self.message_json(
                self.ephemeral.send(chat, p, text, entities, markup, thread))
        msg = self._store_message(
            chat,
            self.bot_id,
            text,
            entities=entities,
            reply_markup=markup if markup and "inline_keyboard" in markup else None,
            reply_to=reply_to,
            params=dict(p.data),
            extra=thread,
        )
        return self.message_json(msg)

    def _thread(self, chat: FakeChat, p: Params, reply_to: int | None) -> dict[str, Any]:
        """Where in a forum a message goes: the topic ``message_thread_id`` names (it must
        exist and be open, or the bot may manage topics), or the topic of the message it
        replies to; nothing for "General". In a chat without topics a thread id may only
        name a message (a reply thread)."""
        thread = p.get_int("message_thread_id")
        if not chat.is_forum and not has_private_topics(self, chat):
            if thread is None:
                return {}
            root = chat.messages.get(thread)
            if root is None or root.deleted:
                raise bad_request("message thread not found")
            return {"message_thread_id": thread}
        if thread is None and reply_to is not None:
            thread = chat.messages[reply_to].thread_id
        if thread is None:
            return {}
        topic = chat.topics.get(thread)
        if topic is None or topic.deleted:
            raise bad_request("message thread not found")
        if topic.closed and not self._manages_topics(chat):
            raise bad_request("TOPIC_CLOSED")
        return {"message_thread_id": thread, "is_topic_message": True}

    def _manages_topics(self, chat: FakeChat) -> bool:
        status = chat.members.get(self.bot_id, "left")
        return status == "creator" or (status == "administrator" and chat.bot_can_manage_topics)

    def _forum_topic(self, p: Params, *, own: bool = False) -> tuple[FakeChat, FakeTopic]:
        """The chat and open-or-closed topic a topic method names; ``own``: the bot may act
        on a topic it created even without the right to manage topics."""
        chat = self._writable_chat(p.data.get("chat_id"))
        if not chat.is_forum and not has_private_topics(self, chat):
            raise bad_request("the chat is not a forum")
        thread = p.req_int("message_thread_id")
        topic = chat.topics.get(thread)
        if topic is None or topic.deleted:
            raise bad_request("message thread not found")
        if chat.type == "private":
            return chat, topic  # the bot manages the topics of its private chats
        if not self._manages_topics(chat) and not (own and topic.creator_id == self.bot_id):
            raise bad_request("not enough rights to manage topics")
        return chat, topic

    def api_createForumTopic(self, p: Params) -> dict[str, Any]:
        chat = self._writable_chat(p.data.get("chat_id"))
        private = chat.type == "private" and self.bot_api >= (9, 4)
        if not chat.is_forum and not (private and has_private_topics(self, chat)):
            raise bad_request("the chat is not a forum")
        if not private and not self._manages_topics(chat):
            raise bad_request("not enough rights to create a topic")
        name = p.req_str("name")
        if not 1 <= len(name) <= 128:
            raise bad_request("TOPIC_TITLE_EMPTY" if not name else "TOPIC_TITLE_TOO_LONG")
        color = p.get_int("icon_color")
        topic = self._open_topic(chat, name, self.bot_id, color)
        return {"message_thread_id": topic.id, "name": topic.name,
                "icon_color": topic.icon_color}

    def api_closeForumTopic(self, p: Params) -> bool:
        chat, topic = self._forum_topic(p, own=True)
        if topic.closed:
            raise bad_request("TOPIC_NOT_MODIFIED")
        topic.closed = True
        self._store_message(chat, self.bot_id, None, service=True, extra={
            "message_thread_id": topic.id, "is_topic_message": True,
            "forum_topic_closed": {}})
        return True

    def api_reopenForumTopic(self, p: Params) -> bool:
        chat, topic = self._forum_topic(p, own=True)
        if not topic.closed:
            raise bad_request("TOPIC_NOT_MODIFIED")
        topic.closed = False
        self._store_message(chat, self.bot_id, None, service=True, extra={
            "message_thread_id": topic.id, "is_topic_message": True,
            "forum_topic_reopened": {}})
        return True

    def api_editForumTopic(self, p: Params) -> bool:
        """Rename a topic (the icon is not simulated): the ``forum_topic_edited`` service
        message goes into it, as on Telegram."""
        chat, topic = self._forum_topic(p, own=True)
        name = p.get_str("name")
        if name is not None and len(name) > 128:
            raise bad_request("TOPIC_TITLE_TOO_LONG")
        if not name or name == topic.name:
            raise bad_request("TOPIC_NOT_MODIFIED")
        topic.name = name
        self._store_message(chat, self.bot_id, None, service=True, extra={
            "message_thread_id": topic.id, "is_topic_message": True,
            "forum_topic_edited": {"name": name}})
        return True

    def api_deleteForumTopic(self, p: Params) -> bool:
        chat, topic = self._forum_topic(p, own=True)
        self._drop_topic(chat, topic)
        return True

    def _reply_target(self, chat: FakeChat, p: Params) -> int | None:
        reply = p.get_json("reply_parameters")
        message_id: int | None = None
        allow = False
        if isinstance(reply, dict):
            message_id = reply.get("message_id")
            allow = bool(reply.get("allow_sending_without_reply"))
        elif p.has("reply_to_message_id"):
            message_id = p.get_int("reply_to_message_id")
            allow = p.get_bool("allow_sending_without_reply")
        if message_id is None:
            return None
        target = chat.messages.get(int(message_id))
        if target is None or target.deleted:
            if allow:
                return None
            raise bad_request("message to be replied not found")
        return int(message_id)

    def _target_message(self, p: Params, *, what: str) -> tuple[StoredMessage, bool]:
        """The message an edit refers to, and whether it is an inline message."""
        inline_id = p.get_str("inline_message_id")
        if inline_id:
            msg = self.inline_messages.get(inline_id)
            if msg is None:
                raise bad_request("MESSAGE_ID_INVALID")
            return msg, True
        if not p.has("chat_id"):
            raise bad_request("chat_id is empty")
        chat = self._writable_chat(p.data["chat_id"])
        message_id = p.get_int("message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        msg = chat.messages.get(message_id)
        if msg is None or msg.deleted or msg.service:
            raise bad_request(f"message to {what} not found")
        return msg, False

    def _apply_edit(
        self,
        msg: StoredMessage,
        text: str | None,
        entities: list[dict[str, Any]],
        markup: dict[str, Any] | None,
    ) -> None:
        if text == msg.text and entities == msg.entities and markup == msg.reply_markup:
            raise bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message"
            )
        msg.history.append((msg.text, list(msg.entities), msg.reply_markup))
        msg.text, msg.entities, msg.reply_markup = text, entities, markup
        msg.edit_date = self.now()

    def api_editMessageText(self, p: Params) -> dict[str, Any] | bool:
        msg, inline = self._target_message(p, what="edit")
        if msg.from_id != self.bot_id and not inline:
            raise bad_request("message can't be edited")
        if msg.text is None and "photo" in msg.extra:
            raise bad_request("there is no text in the message to edit")
        markup = self.validate_markup(p.get_json("reply_markup"), inline_only=True)
        if p.has("rich_message") and self.bot_api >= (10, 1):
            text, rich = rich_message(p.get_json("rich_message"))
            html = p.get_json("rich_message")["html"]
            if html != msg.params.get("rich_html") or markup != msg.reply_markup:
                msg.history.append((msg.text, list(msg.entities), msg.reply_markup))
                msg.text, msg.entities, msg.reply_markup = text, [], markup
                msg.edit_date = self.now()
            else:
                self._apply_edit(msg, text, [], markup)  # not modified
            msg.extra["rich_message"] = rich
            msg.params["rich_html"] = html
            return True if inline else self.message_json(msg)
        text, entities = self._text(p, edit=True)
        self._apply_edit(msg, text, entities, markup)
        msg.extra.pop("rich_message", None)
        msg.params.pop("rich_html", None)
        return True if inline else self.message_json(msg)

    def api_sendRichMessage(self, p: Params) -> dict[str, Any]:
        """``sendRichMessage`` (Bot API 10.1): see ``rich.py``."""
        if self.bot_api < (10, 1):
            raise ApiError(404, "Not Found")
        chat = self._writable_chat(p.data.get("chat_id"))
        value = p.get_json("rich_message")
        text, rich = rich_message(value)
        markup = self.validate_markup(p.get_json("reply_markup"))
        reply_to = self._reply_target(chat, p)
        thread = self._thread(chat, p, reply_to)
        msg = self._store_message(
            chat, self.bot_id, text,
            reply_markup=markup if markup and "inline_keyboard" in markup else None,
            reply_to=reply_to, params={**p.data, "rich_html": value["html"]},
            extra={**thread, "rich_message": rich},
        )
        return self.message_json(msg)

    # ------------------------------------------------------------------ photos

    def stash_upload(self, content: bytes) -> str:
        """Keep an uploaded file's bytes for the request that carries it; returns the
        parameter value that stands for it (what the transports put on the wire)."""
        token = uuid.uuid4().hex
        self._uploads[token] = content
        return f"<upload:{token}>"

    def _photo(self, value: Any) -> dict[str, Any]:
        """The photo a parameter names: a new upload (stored under a new file_id) or the
        file_id of one uploaded before, as Telegram's PhotoSize list."""
        text = str(value or "")
        if text.startswith("<upload:") and text.endswith(">"):
            content = self._uploads.pop(text[8:-1], None)
            if content is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
            file_id = f"photo-{len(self.files) + 1}-{uuid.uuid4().hex[:8]}"
            self.files[file_id] = content
        elif text in self.files:
            file_id = text
        else:
            raise bad_request("wrong file identifier/HTTP URL specified")
        size = len(self.files[file_id])
        return {"file_id": file_id, "file_unique_id": file_id[-8:], "width": 0, "height": 0,
                "file_size": size}

    def _caption(self, p: Params, caption: Any = None, mode: Any = None) -> dict[str, Any]:
        raw = caption if caption is not None else p.get_str("caption")
        if not raw:
            return {}
        text, ents = parse_text(str(raw), mode if mode is not None else p.get_str("parse_mode"),
                                None)
        if len(text) > MAX_CAPTION:
            raise bad_request("message caption is too long")
        out: dict[str, Any] = {"caption": text}
        if ents:
            out["caption_entities"] = self._fill_mentions(ents)
        return out

    def api_sendPhoto(self, p: Params) -> dict[str, Any]:
        chat = self._writable_chat(p.data.get("chat_id"))
        photo = self._photo(p.data.get("photo"))
        extra = {"photo": [photo], **self._caption(p)}
        markup = self.validate_markup(p.get_json("reply_markup"))
        reply_to = self._reply_target(chat, p)
        extra.update(self._thread(chat, p, reply_to))
        msg = self._store_message(
            chat, self.bot_id, None, extra=extra,
            reply_markup=markup if markup and "inline_keyboard" in markup else None,
            reply_to=reply_to, params=dict(p.data),
        )
        return self.message_json(msg)

    def _edit_photo(self, msg: StoredMessage, extra: dict[str, Any],
                    markup: dict[str, Any] | None) -> None:
        media = {k: msg.extra.get(k) for k in ("photo", "caption", "caption_entities")}
        new = {k: extra.get(k) for k in ("photo", "caption", "caption_entities")}
        same_photo = (media["photo"] or [{}])[0].get("file_id") == (new["photo"] or [{}])[0].get(
            "file_id")
        if same_photo and media == new and markup == msg.reply_markup:
            raise bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message"
            )
        msg.history.append((msg.text, list(msg.entities), msg.reply_markup))
        for key in ("caption", "caption_entities"):
            msg.extra.pop(key, None)
        msg.extra.update({k: v for k, v in new.items() if v is not None})
        msg.reply_markup = markup
        msg.edit_date = self.now()

    def api_editMessageMedia(self, p: Params) -> dict[str, Any] | bool:
        msg, inline = self._target_message(p, what="edit")
        if msg.from_id != self.bot_id and not inline:
            raise bad_request("message can't be edited")
        media = p.get_json("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise bad_request("media must be a photo here")
        ref = str(media.get("media", ""))
        value = p.data.get(ref[9:]) if ref.startswith("attach://") else ref
        if "photo" not in msg.extra:
            raise bad_request("there is no media in the message to edit")
        extra = {"photo": [self._photo(value)],
                 **self._caption(p, media.get("caption"), media.get("parse_mode"))}
        markup = self.validate_markup(p.get_json("reply_markup"), inline_only=True)
        self._edit_photo(msg, extra, markup)
        return True if inline else self.message_json(msg)

    def api_editMessageCaption(self, p: Params) -> dict[str, Any] | bool:
        msg, inline = self._target_message(p, what="edit")
        if msg.from_id != self.bot_id and not inline:
            raise bad_request("message can't be edited")
        if "photo" not in msg.extra:
            raise bad_request("there is no caption in the message to edit")
        extra = {"photo": msg.extra["photo"], **self._caption(p)}
        markup = self.validate_markup(p.get_json("reply_markup"), inline_only=True)
        self._edit_photo(msg, extra, markup)
        return True if inline else self.message_json(msg)

    def photo_bytes(self, msg: StoredMessage) -> bytes:
        """The picture a photo message shows now."""
        return self.files[msg.extra["photo"][-1]["file_id"]]

    def api_editMessageReplyMarkup(self, p: Params) -> dict[str, Any] | bool:
        msg, inline = self._target_message(p, what="edit")
        if msg.from_id != self.bot_id and not inline:
            raise bad_request("message can't be edited")
        markup = self.validate_markup(p.get_json("reply_markup"), inline_only=True)
        self._apply_edit(msg, msg.text, msg.entities, markup)
        return True if inline else self.message_json(msg)

    def api_deleteMessage(self, p: Params) -> bool:
        chat = self._writable_chat(p.data.get("chat_id"))
        message_id = p.req_int("message_id")
        self._delete(chat, message_id)
        return True

    def api_deleteMessages(self, p: Params) -> bool:
        chat = self._writable_chat(p.data.get("chat_id"))
        ids = p.get_json("message_ids") or []
        if not 1 <= len(ids) <= 100:
            raise bad_request("message_ids must contain 1-100 identifiers")
        for message_id in ids:
            with contextlib.suppress(ApiError):
                self._delete(chat, int(message_id))
        return True

    def _delete(self, chat: FakeChat, message_id: int) -> None:
        msg = chat.messages.get(message_id)
        if msg is None or msg.deleted:
            raise bad_request("message to delete not found")
        bot_status = chat.members.get(self.bot_id, "left")
        if (
            chat.is_group
            and msg.from_id != self.bot_id
            and bot_status not in ("administrator", "creator")
        ):
            raise bad_request("message can't be deleted")
        msg.deleted = True
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)

    def _can_pin(self, chat: FakeChat) -> bool:
        if chat.type == "private":
            return True
        status = chat.members.get(self.bot_id, "left")
        if status in ("administrator", "creator"):
            return True
        return chat.type == "group" and bool(chat.permissions.get("can_pin_messages"))

    def api_pinChatMessage(self, p: Params) -> bool:
        chat = self._writable_chat(p.data.get("chat_id"))
        message_id = p.req_int("message_id")
        if not self._can_pin(chat):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        msg = chat.messages.get(message_id)
        if msg is None or msg.deleted or msg.service:
            raise bad_request("message to pin not found")
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)
        chat.pinned.insert(0, message_id)
        self._store_message(
            chat,
            self.bot_id,
            None,
            service=True,
            extra={"pinned_message": self.message_json(msg, nested=True)},
        )
        return True

    def api_unpinChatMessage(self, p: Params) -> bool:
        chat = self._writable_chat(p.data.get("chat_id"))
        if not self._can_pin(chat):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        message_id = p.get_int("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop(0)
            return True
        if message_id not in chat.pinned:
            raise bad_request("message to unpin not found")
        chat.pinned.remove(message_id)
        return True

    def api_unpinAllChatMessages(self, p: Params) -> bool:
        chat = self._writable_chat(p.data.get("chat_id"))
        if not self._can_pin(chat):
            raise bad_request("not enough rights to manage pinned messages in the chat")
        chat.pinned.clear()
        return True

    def api_sendChatAction(self, p: Params) -> bool:
        chat = self._writable_chat(p.data.get("chat_id"))
        action = p.req_str("action")
        if action not in CHAT_ACTIONS:
            raise bad_request("wrong type of action")
        self._thread(chat, p, None)  # a deleted topic: "message thread not found"
        self.chat_actions.append((chat.id, action))
        return True

    def api_getChat(self, p: Params) -> dict[str, Any]:
        chat = self._resolve_chat(p.data.get("chat_id"))
        data: dict[str, Any] = {
            **chat.to_json(),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }
        if chat.is_group:
            data["permissions"] = dict(chat.permissions)
        if chat.pinned:
            data["pinned_message"] = self.message_json(chat.messages[chat.pinned[0]], nested=True)
        return data

    def api_getChatMember(self, p: Params) -> dict[str, Any]:
        chat = self._resolve_chat(p.data.get("chat_id"))
        user_id = p.req_int("user_id")
        if user_id not in self.users and user_id != self.bot_id:
            raise bad_request("user not found")
        if chat.type == "private" and user_id not in (chat.id, self.bot_id):
            raise bad_request("user not found")
        return self.chat_member_json(chat, user_id)

    def api_getChatAdministrators(self, p: Params) -> list[dict[str, Any]]:
        chat = self._resolve_chat(p.data.get("chat_id"))
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        return [
            self.chat_member_json(chat, uid)
            for uid, status in chat.members.items()
            if status in ("creator", "administrator")
        ]

    def api_getChatMemberCount(self, p: Params) -> int:
        chat = self._resolve_chat(p.data.get("chat_id"))
        return sum(1 for s in chat.members.values() if s in _ACTIVE)

    def api_leaveChat(self, p: Params) -> bool:
        chat = self._resolve_chat(p.data.get("chat_id"))
        if chat.type == "private":
            raise bad_request("chat member status can't be changed in private chats")
        chat.members[self.bot_id] = "left"
        return True

    def api_answerCallbackQuery(self, p: Params) -> bool:
        query_id = p.req_str("callback_query_id")
        record = self.callback_queries.get(query_id)
        if record is None or record.answered or record.late:
            if record is not None:
                record.answer_count += 1
            raise bad_request(_QUERY_INVALID)
        limit = self.callback_answer_timeout
        if limit is not None and self.clock() - record.created > limit:
            record.answer_count += 1
            record.late = True
            raise bad_request(_QUERY_INVALID)
        text = p.get_str("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER:
            raise bad_request("MESSAGE_TOO_LONG")
        url = p.get_str("url")
        if url and self.deep_link_payload(url) is None:
            # only t.me/<this bot>?start=... links (or a game URL, not simulated)
            raise bad_request("URL_INVALID")
        record.answered = True
        record.answer_count += 1
        record.answer = {
            "text": text,
            "show_alert": p.get_bool("show_alert"),
            "url": url,
            "cache_time": p.get_int("cache_time"),
        }
        return True

    def api_answerInlineQuery(self, p: Params) -> bool:
        query_id = p.req_str("inline_query_id")
        record = self.inline_queries.get(query_id)
        if record is None or record.answered:
            raise bad_request(_QUERY_INVALID)
        results = p.get_json("results")
        if not isinstance(results, list):
            raise bad_request("can't parse inline query results JSON object")
        if len(results) > MAX_INLINE_RESULTS:
            raise bad_request("RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for result in results:
            self._validate_inline_result(result, seen)
        record.answered = True
        record.results = results
        record.answer = {
            k: p.data[k]
            for k in ("cache_time", "is_personal", "next_offset", "button")
            if k in p.data
        }
        return True

    def _validate_inline_result(self, result: Any, seen: set[str]) -> None:
        if not isinstance(result, dict) or "type" not in result:
            raise bad_request("can't parse inline query result: type is missing")
        rid = result.get("id")
        if not isinstance(rid, str) or not 1 <= len(rid.encode()) <= 64:
            raise bad_request("RESULT_ID_INVALID")
        if rid in seen:
            raise bad_request("RESULT_ID_DUPLICATE")
        seen.add(rid)
        if result["type"] == "article":
            if not result.get("title"):
                raise bad_request("RESULT_TITLE_EMPTY")
            if "input_message_content" not in result:
                raise bad_request(
                    "can't parse inline query result: input_message_content is missing"
                )
        content = result.get("input_message_content")
        if isinstance(content, dict) and "message_text" in content:
            raw = content["message_text"]
            if not raw:
                raise bad_request("MESSAGE_EMPTY")
            text, _ = parse_text(raw, content.get("parse_mode"), content.get("entities"))
            if not text:
                raise bad_request("MESSAGE_EMPTY")
            if len(text) > MAX_TEXT:
                raise bad_request("MESSAGE_TOO_LONG")
        if "reply_markup" in result:
            self.validate_markup(result["reply_markup"], inline_only=True)

    # commands and bot settings -------------------------------------------------
    def api_setMyCommands(self, p: Params) -> bool:
        commands = p.get_json("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("commands must be an Array of at most 100 BotCommand")
        for c in commands:
            name = c.get("command", "") if isinstance(c, dict) else ""
            if (
                not (1 <= len(name) <= 32)
                or not all(ch.islower() or ch.isdigit() or ch == "_" for ch in name)
                or not name.isascii()
            ):
                raise bad_request("BOT_COMMAND_INVALID")
            description = c.get("description", "")
            if not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        lang = self._language(p)
        self.commands[(_scope_key(p.get_json("scope")), lang)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    def api_getMyCommands(self, p: Params) -> list[dict[str, Any]]:
        return self.commands.get((_scope_key(p.get_json("scope")), self._language(p)), [])

    def api_deleteMyCommands(self, p: Params) -> bool:
        self.commands.pop((_scope_key(p.get_json("scope")), self._language(p)), None)
        return True

    def _language(self, p: Params) -> str:
        lang = p.get_str("language_code") or ""
        if lang and not (len(lang) == 2 and lang.isalpha() and lang.islower()):
            raise bad_request("invalid language code specified")
        return lang

    def _set_setting(self, p: Params, key: str, limit: int) -> bool:
        value = p.get_str(key) or ""
        if len(value) > limit:
            raise bad_request(f"{key} is too long")
        self.bot_settings[(key, self._language(p))] = value
        return True

    def _get_setting(self, p: Params, key: str) -> dict[str, Any]:
        lang = self._language(p)
        value = self.bot_settings.get((key, lang)) or self.bot_settings.get((key, ""), "")
        if key == "name" and not value:
            value = self.bot_first_name
        return {key: value}

    def api_setMyDescription(self, p: Params) -> bool:
        return self._set_setting(p, "description", 512)

    def api_getMyDescription(self, p: Params) -> dict[str, Any]:
        return self._get_setting(p, "description")

    def api_setMyShortDescription(self, p: Params) -> bool:
        return self._set_setting(p, "short_description", 120)

    def api_getMyShortDescription(self, p: Params) -> dict[str, Any]:
        return self._get_setting(p, "short_description")

    def api_setMyName(self, p: Params) -> bool:
        return self._set_setting(p, "name", 64)

    def api_getMyName(self, p: Params) -> dict[str, Any]:
        return self._get_setting(p, "name")

    def api_setChatMenuButton(self, p: Params) -> bool:
        self.bot_settings[("menu_button", str(p.data.get("chat_id", "")))] = p.get_json(
            "menu_button"
        )
        return True

    def api_getChatMenuButton(self, p: Params) -> dict[str, Any]:
        value = self.bot_settings.get(("menu_button", str(p.data.get("chat_id", ""))))
        return value or {"type": "commands"}

    # ------------------------------------------------------------------ webhook delivery
    def _start_webhook_worker(self) -> None:
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.get_running_loop().create_task(self._webhook_loop())

    async def _stop_webhook_worker(self) -> None:
        task, self._webhook_task = self._webhook_task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _webhook_loop(self) -> None:
        import httpx

        async with httpx.AsyncClient(timeout=10) as client:
            while self.webhook is not None:
                self._updates = [
                    u for u in self._updates if self._update_kind(u) in self._allowed_updates
                ]
                if not self._updates:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._waiter().wait(), 1.0)
                    continue
                update = self._updates[0]
                headers = {"Content-Type": "application/json"}
                if self.webhook.get("secret_token"):
                    headers["X-Telegram-Bot-Api-Secret-Token"] = self.webhook["secret_token"]
                self._inflight += 1
                try:
                    response = await client.post(
                        self.webhook["url"], content=json.dumps(update), headers=headers
                    )
                    status = response.status_code
                except httpx.HTTPError as exc:
                    _LOGGER.debug("webhook delivery failed: %r", exc)
                    status = 0
                finally:
                    self._inflight -= 1
                self.webhook_deliveries.append((update["update_id"], status))
                if 200 <= status < 300:
                    self._confirm(update["update_id"] + 1)
                else:
                    await asyncio.sleep(0.05)


def _scope_key(scope: Any) -> str:
    if isinstance(scope, str):
        scope = json.loads(scope)
    if not scope:
        scope = {"type": "default"}
    return json.dumps(scope, sort_keys=True)


def chat_instance(chat_id: int) -> str:
    return str(zlib.crc32(str(chat_id).encode()) * 1_000_003)


__all__ = [
    "FakeTelegram",
    "Params",
    "decode_params",
    "utf16_len",
]
