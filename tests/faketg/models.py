"""State records of the fake Telegram: chats, messages, calls, queries."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Button:
    """One inline keyboard button (``data`` is the callback data, if any)."""

    text: str
    data: str | None = None
    url: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class StoredMessage:
    """A message as it currently is in a chat (edits are applied in place)."""

    chat_id: int
    message_id: int
    from_id: int
    date: int
    text: str | None = None
    entities: list[dict[str, Any]] = field(default_factory=list)
    reply_markup: dict[str, Any] | None = None
    edit_date: int | None = None
    deleted: bool = False
    service: bool = False
    reply_to_message_id: int | None = None
    via_bot_id: int | None = None
    inline_message_id: str | None = None
    #: other fields of the Message JSON (service payloads, thread id, ...)
    extra: dict[str, Any] = field(default_factory=dict)
    #: earlier versions: (text, entities, reply_markup) before each edit
    history: list[tuple[str | None, list[dict[str, Any]], dict[str, Any] | None]] = field(
        default_factory=list
    )
    #: raw parameters of the call that created the message (parse_mode, etc.)
    params: dict[str, Any] = field(default_factory=dict)
    #: an ephemeral message (Bot API 10.2): the one user who sees it, and its id among the
    #: ephemeral messages of the chat (its ``message_id`` is 0)
    receiver_id: int | None = None
    ephemeral_id: int | None = None
    #: the message this ephemeral one is shown in place of, for its receiver
    replaces: int | None = None

    @property
    def thread_id(self) -> int | None:
        """The forum topic the message is in (None: "General", or a chat without topics)."""
        if not self.extra.get("is_topic_message"):
            return None
        value = self.extra.get("message_thread_id")
        return int(value) if value is not None else None

    @property
    def edits(self) -> int:
        return len(self.history)

    @property
    def buttons(self) -> list[list[Button]]:
        """Rows of the inline keyboard (empty if none)."""
        if not self.reply_markup or "inline_keyboard" not in self.reply_markup:
            return []
        return [
            [
                Button(
                    text=b.get("text", ""),
                    data=b.get("callback_data"),
                    url=b.get("url"),
                    raw=dict(b),
                )
                for b in row
            ]
            for row in self.reply_markup["inline_keyboard"]
        ]

    @property
    def button_texts(self) -> list[str]:
        return [b.text for row in self.buttons for b in row]

    @property
    def callback_data(self) -> list[str]:
        return [b.data for row in self.buttons for b in row if b.data is not None]

    def find_button(self, label: str) -> Button:
        """A button by its exact text or callback data."""
        for row in self.buttons:
            for b in row:
                if label in (b.text, b.data):
                    return b
        raise LookupError(
            f"no button {label!r} on message {self.message_id} in chat {self.chat_id}; "
            f"buttons: {[(b.text, b.data) for row in self.buttons for b in row]}"
        )

    def snapshot(self) -> StoredMessage:
        return copy.deepcopy(self)


@dataclass
class FakeTopic:
    """A forum topic: its id is Telegram's ``message_thread_id`` (the id of the
    ``forum_topic_created`` service message that opened it)."""

    id: int
    name: str
    #: who created it (a user id, or the bot's)
    creator_id: int
    icon_color: int = 0x6FB9F0
    closed: bool = False
    #: deleted with all its messages: sending into it fails ("message thread not found")
    deleted: bool = False


@dataclass
class FakeChat:
    id: int
    type: str  # "private" | "group" | "supergroup" | "channel"
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    #: user id -> status: creator, administrator, member, restricted, left, kicked
    members: dict[int, str] = field(default_factory=dict)
    messages: dict[int, StoredMessage] = field(default_factory=dict)
    next_message_id: int = 1
    pinned: list[int] = field(default_factory=list)
    migrated_to: int | None = None
    migrated_from: int | None = None
    #: a supergroup with topics (a forum); messages without a thread id are in "General"
    is_forum: bool = False
    #: the forum's topics by id (``message_thread_id``)
    topics: dict[int, FakeTopic] = field(default_factory=dict)
    #: whether the bot, as an administrator here, may manage topics (``can_manage_topics``)
    bot_can_manage_topics: bool = True
    #: default member permissions (ChatPermissions JSON)
    permissions: dict[str, Any] = field(
        default_factory=lambda: {
            "can_send_messages": True,
            "can_send_polls": True,
            "can_send_other_messages": True,
            "can_add_web_page_previews": True,
            "can_change_info": True,
            "can_invite_users": True,
            "can_pin_messages": True,
        }
    )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name", "last_name"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        if self.is_forum:
            data["is_forum"] = True
        return data

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")


@dataclass
class ApiCall:
    """One Bot API call the bot made, with its decoded parameters and outcome."""

    method: str
    params: dict[str, Any]
    ok: bool
    result: Any = None
    error_code: int | None = None
    description: str | None = None
    transport: str = "inprocess"
    #: an injected fault (``fake.fail``, ``fake.time_out``, ``fake.flood``, ``fake.fault_rate``):
    #: the HTTP status as text (``"502"``, ``"429"``) or ``"timeout"``. For a timeout ``ok``
    #: says whether the call took effect in the fake (only the reply was lost) or not.
    fault: str | None = None


@dataclass
class CallbackQueryRecord:
    id: str
    user_id: int
    data: str | None
    chat_id: int | None
    message_id: int | None
    inline_message_id: str | None = None
    answered: bool = False
    answer: dict[str, Any] | None = None
    #: answerCallbackQuery calls for this query (the second and later ones fail with 400)
    answer_count: int = 0
    #: when the user tapped (the fake's clock)
    created: float = 0.0
    #: the bot answered, but after the answer window (Telegram: 400 "query is too old")
    late: bool = False
    #: a tap on an ephemeral message: its id (``message_id`` is then 0)
    ephemeral_id: int | None = None


@dataclass
class InlineQueryRecord:
    id: str
    user_id: int
    query: str
    offset: str = ""
    answered: bool = False
    results: list[dict[str, Any]] | None = None
    answer: dict[str, Any] | None = None


@dataclass
class CallbackAnswer:
    """What the bot answered to a button tap (``None`` fields when not given)."""

    text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None


@dataclass
class InlineAnswer:
    """What the bot answered to an inline query."""

    query_id: str
    query: str
    results: list[dict[str, Any]]
    params: dict[str, Any]

    def result(self, result_id: str) -> dict[str, Any]:
        for r in self.results:
            if r.get("id") == result_id:
                return r
        raise LookupError(
            f"no inline result {result_id!r}; ids: {[r.get('id') for r in self.results]}"
        )
