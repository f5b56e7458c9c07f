"""Simulated Telegram users: they type, start/block the bot, tap buttons, use inline mode."""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from .formatting import auto_entities, parse_text
from .models import (
    CallbackAnswer,
    CallbackQueryRecord,
    FakeChat,
    InlineAnswer,
    InlineQueryRecord,
    StoredMessage,
)

if TYPE_CHECKING:
    from .core import FakeTelegram

_inline_ids = itertools.count(1)


class FakeUser:
    """A human (or another bot) talking to the bot under test.

    Every action pushes the update Telegram would send and, with ``wait=True`` (the
    default), waits until the application has processed it (:meth:`FakeTelegram.wait_idle`).
    """

    def __init__(
        self,
        fake: FakeTelegram,
        id: int,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "ru",
        is_bot: bool = False,
    ) -> None:
        self.fake = fake
        self.id = id
        self.first_name = first_name
        self.last_name = last_name
        self.username = username
        self.language_code = language_code
        self.is_bot = is_bot
        #: the user has opened the private chat with the bot (pressed Start)
        self.started = False
        #: the user has blocked the bot
        self.blocked = False

    def __repr__(self) -> str:
        return f"FakeUser({self.id}, {self.first_name!r})"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data

    # ------------------------------------------------------------------ helpers
    def _chat(self, chat: FakeChat | FakeUser | int | None) -> FakeChat:
        if chat is None or chat is self:
            return self.fake.chats[self.id]
        chat_id = chat if isinstance(chat, int) else chat.id
        c = self.fake.chats[chat_id]
        if c.type != "private" and c.members.get(self.id) not in (
            "creator",
            "administrator",
            "member",
            "restricted",
        ):
            raise ValueError(f"{self!r} is not a member of chat {c.id}")
        if c.type == "private" and c.id != self.id:
            raise ValueError("users only talk to the bot in their own private chat")
        return c

    async def _maybe_wait(self, wait: bool) -> None:
        if wait:
            await self.fake.settle()

    def _bot_sees(self, chat: FakeChat, msg: StoredMessage) -> bool:
        """Privacy mode: in groups a bot only gets commands, replies to it and service
        messages, unless it is an admin or privacy mode is off."""
        if chat.type == "private":
            return True
        bot_status = chat.members.get(self.fake.bot_id, "left")
        if bot_status in ("left", "kicked"):
            return False  # not in the group: gets nothing from it
        if not self.fake.privacy_mode or bot_status in ("administrator", "creator"):
            return True
        if msg.service:
            return True
        if msg.reply_to_message_id is not None:
            replied = chat.messages.get(msg.reply_to_message_id)
            if replied is not None and replied.from_id == self.fake.bot_id:
                return True
        for e in msg.entities:
            if e["type"] == "bot_command":
                command = (msg.text or "")[e["offset"] : e["offset"] + e["length"]]
                if "@" not in command or command.split("@", 1)[1].lower() == (
                    self.fake.bot_username.lower()
                ):
                    return True
        return False

    # ------------------------------------------------------------------ actions
    async def send(
        self,
        chat: FakeChat | FakeUser | int | None,
        text: str,
        *,
        reply_to: StoredMessage | int | None = None,
        parse_mode: str | None = None,
        topic: int | None = None,
        wait: bool = True,
    ) -> StoredMessage:
        """Type a message into ``chat`` (``None`` = the private chat with the bot), in a
        forum into its ``topic`` (``None``: "General"; a reply goes into the topic of the
        message it replies to).

        ``/cmd`` and ``/cmd@bot`` get ``bot_command`` entities (also URLs and mentions).
        Writing to the bot in private opens the conversation (like pressing Start).
        """
        c = self._chat(chat)
        reply_id = reply_to.message_id if isinstance(reply_to, StoredMessage) else reply_to
        if topic is None and reply_id is not None and reply_id in c.messages:
            topic = c.messages[reply_id].thread_id
        extra: dict[str, Any] = {}
        if topic is None and reply_id is not None and c.type == "supergroup" and not (
                c.is_forum) and reply_id in c.messages:
            # Outside forums a reply carries the id of the first message of its chain of
            # replies as its "thread", without ``is_topic_message``: no topic at all.
            root = c.messages[reply_id].extra.get("message_thread_id", reply_id)
            extra = {"message_thread_id": root}
        if topic is not None:
            found = c.topics.get(topic)
            forum = c.is_forum or (c.type == "private" and self.fake.private_topics)
            if not forum or found is None or found.deleted:
                raise ValueError(f"chat {c.id} has no topic {topic}")
            if found.closed and c.members.get(self.id) not in ("creator", "administrator"):
                raise ValueError(f"topic {topic} is closed: only admins may write there")
            extra = {"message_thread_id": topic, "is_topic_message": True}
        if c.migrated_to is not None:
            raise ValueError(f"chat {c.id} was migrated to {c.migrated_to}")
        if c.type == "private":
            if self.blocked:
                await self.unblock_bot(wait=False)
            self.started = True
        plain, entities = parse_text(text, parse_mode)
        if not parse_mode:
            entities = auto_entities(plain)
        msg = self.fake._store_message(c, self.id, plain, entities=entities, reply_to=reply_id,
                                       extra=extra)
        if self._bot_sees(c, msg):
            self.fake.push_update("message", self.fake.message_json(msg))
        await self._maybe_wait(wait)
        return msg

    async def start_bot(self, payload: str | None = None, *, wait: bool = True) -> StoredMessage:
        """Open the private chat and press Start (``/start PAYLOAD`` for a deep link)."""
        if payload is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload):
            raise ValueError(
                f"deep-link payload {payload!r}: Telegram allows 1-64 characters A-Za-z0-9_-"
            )
        text = "/start" if not payload else f"/start {payload}"
        return await self.send(None, text, wait=wait)

    async def open_link(self, url: str, *, wait: bool = True) -> StoredMessage:
        """Follow a link to the bot (``t.me/<bot>?start=PAYLOAD``): presses Start with the
        payload, as Telegram clients do. ``ValueError`` for links that do not open it."""
        payload = self.fake.deep_link_payload(url)
        if payload is None:
            raise ValueError(f"{url!r} is not a valid link to @{self.fake.bot_username}")
        return await self.start_bot(payload or None, wait=wait)

    async def open_button(
        self, message: StoredMessage, button: str, *, wait: bool = True
    ) -> StoredMessage:
        """Press a URL button that links to the bot (a deep link)."""
        found = message.find_button(button)
        if found.url is None:
            raise LookupError(f"button {button!r} has no URL: {found.raw}")
        return await self.open_link(found.url, wait=wait)

    async def block_bot(self, *, wait: bool = True) -> None:
        """Block the bot: sends to this user now fail with 403 (emits ``my_chat_member``)."""
        if self.blocked:
            return
        self.blocked = True
        self._private_status_update("member", "kicked")
        await self._maybe_wait(wait)

    async def unblock_bot(self, *, wait: bool = True) -> None:
        if not self.blocked:
            return
        self.blocked = False
        self.started = True
        self._private_status_update("kicked", "member")
        await self._maybe_wait(wait)

    def _private_status_update(self, old: str, new: str) -> None:
        chat = self.fake.chats[self.id]
        self.fake.push_update(
            "my_chat_member",
            {
                "chat": chat.to_json(),
                "from": self.to_json(),
                "date": self.fake.now(),
                "old_chat_member": self.fake.chat_member_json(chat, self.fake.bot_id, old),
                "new_chat_member": self.fake.chat_member_json(chat, self.fake.bot_id, new),
            },
        )

    async def tap(
        self,
        message: StoredMessage,
        button: str,
        *,
        force: bool = False,
        wait: bool = True,
        inaccessible: bool | None = None,
    ) -> CallbackAnswer | None:
        """Tap an inline button (by text or callback data) on the message *as it is now*.

        Returns the bot's ``answerCallbackQuery`` (or ``None`` if it did not answer; with
        ``wait=False`` always ``None``: look at ``fake.callback_queries`` later).
        ``force=True`` sends ``button`` as callback data even if no such button exists
        (a stale or forged tap). ``inaccessible``: the query carries the message as an
        ``InaccessibleMessage`` (chat and id, ``date`` 0, no topic), as Telegram does for a
        message about two days old; by default when it is older than
        ``fake.inaccessible_after``.
        """
        if message.inline_message_id is not None:
            current = self.fake.inline_messages[message.inline_message_id]
        elif message.ephemeral_id is not None:
            if message.receiver_id != self.id:
                raise LookupError("an ephemeral message is seen only by its receiver")
            current = self.fake.ephemeral.messages[
                message.chat_id, message.receiver_id, message.ephemeral_id]
        else:
            current = self.fake.chats[message.chat_id].messages[message.message_id]
            self._chat(current.chat_id)
        if current.deleted:
            raise LookupError(f"message {current.message_id} was deleted")
        if force:
            data: str | None = button
        else:
            found = current.find_button(button)
            if found.data is None:
                raise LookupError(f"button {button!r} is not a callback button: {found.raw}")
            data = found.data
        from .core import chat_instance

        query_id = self.fake._next_id()
        payload: dict[str, Any] = {
            "id": query_id,
            "from": self.to_json(),
            "chat_instance": chat_instance(current.chat_id),
            "data": data,
        }
        if current.inline_message_id is not None:
            payload["inline_message_id"] = current.inline_message_id
        elif inaccessible or (inaccessible is None and self.fake.is_inaccessible(current)):
            payload["message"] = self.fake.inaccessible_message_json(current)
        else:
            payload["message"] = self.fake.message_json(current)
        record = CallbackQueryRecord(
            id=query_id,
            user_id=self.id,
            data=data,
            chat_id=None if current.inline_message_id else current.chat_id,
            message_id=None if current.inline_message_id else current.message_id,
            inline_message_id=current.inline_message_id,
            created=self.fake.clock(),
            ephemeral_id=current.ephemeral_id,
        )
        self.fake.callback_queries[query_id] = record
        self.fake.push_update("callback_query", payload)
        if not wait:
            return None
        await self.fake.settle()
        if not record.answered or record.answer is None:
            return None
        a = record.answer
        return CallbackAnswer(
            text=a["text"], show_alert=a["show_alert"], url=a["url"], cache_time=a["cache_time"]
        )

    async def inline_query(
        self,
        query: str,
        *,
        offset: str = "",
        chat_type: str | None = "sender",
        wait: bool = True,
    ) -> InlineAnswer | None:
        """Type ``@bot query`` in a chat; returns the bot's answer (``None`` if none)."""
        if not self.fake.inline_mode:
            raise RuntimeError("inline mode is disabled for the fake bot")
        query_id = self.fake._next_id()
        record = InlineQueryRecord(id=query_id, user_id=self.id, query=query, offset=offset)
        self.fake.inline_queries[query_id] = record
        payload: dict[str, Any] = {
            "id": query_id,
            "from": self.to_json(),
            "query": query,
            "offset": offset,
        }
        if chat_type:
            payload["chat_type"] = chat_type
        self.fake.push_update("inline_query", payload)
        if not wait:
            return None
        await self.fake.settle()
        if not record.answered or record.results is None:
            return None
        return InlineAnswer(query_id, query, record.results, record.answer or {})

    async def choose_inline_result(
        self,
        answer: InlineAnswer,
        result_id: str,
        chat: FakeChat | FakeUser | int | None = None,
        *,
        wait: bool = True,
    ) -> StoredMessage:
        """Pick an inline result: the message appears in ``chat`` "via @bot"; if the result
        has a keyboard it gets an ``inline_message_id``; ``chosen_inline_result`` is sent
        to the bot if inline feedback is on."""
        result = answer.result(result_id)
        c = self._chat(chat)
        content = result.get("input_message_content") or {}
        text: str | None = None
        entities: list[dict[str, Any]] = []
        if "message_text" in content:
            text, entities = parse_text(
                content["message_text"], content.get("parse_mode"), content.get("entities")
            )
        markup = result.get("reply_markup")
        msg = self.fake._store_message(
            c, self.id, text, entities=entities, reply_markup=markup, via_bot_id=self.fake.bot_id
        )
        payload: dict[str, Any] = {
            "result_id": result_id,
            "from": self.to_json(),
            "query": answer.query,
        }
        if markup:
            inline_id = f"AgAAA{next(_inline_ids):08d}"
            msg.inline_message_id = inline_id
            self.fake.inline_messages[inline_id] = msg
            payload["inline_message_id"] = inline_id
        if self.fake.inline_feedback:
            self.fake.push_update("chosen_inline_result", payload)
        await self._maybe_wait(wait)
        return msg

    async def edit(self, message: StoredMessage, text: str, *, wait: bool = True) -> StoredMessage:
        """Edit one of this user's messages (the bot gets ``edited_message``)."""
        current = self.fake.chats[message.chat_id].messages[message.message_id]
        if current.from_id != self.id:
            raise ValueError("users can only edit their own messages")
        current.history.append((current.text, list(current.entities), current.reply_markup))
        current.text = text
        current.entities = auto_entities(text)
        current.edit_date = self.fake.now()
        chat = self.fake.chats[current.chat_id]
        if self._bot_sees(chat, current):
            self.fake.push_update("edited_message", self.fake.message_json(current))
        await self._maybe_wait(wait)
        return current

    async def switch_inline(
        self, message: StoredMessage, button: str, *, wait: bool = True
    ) -> InlineAnswer | None:
        """Press a ``switch_inline_query_current_chat`` (or ``switch_inline_query``) button:
        the client types ``@bot <query>``, the bot gets the inline query."""
        found = message.find_button(button)
        for key in ("switch_inline_query_current_chat", "switch_inline_query"):
            if key in found.raw:
                chat = self.fake.chats[message.chat_id]
                chat_type: str | None = "sender" if chat.type == "private" else chat.type
                if key == "switch_inline_query":
                    chat_type = None  # the user picks another chat first
                return await self.inline_query(found.raw[key], chat_type=chat_type, wait=wait)
        raise LookupError(f"button {button!r} does not switch to inline mode: {found.raw}")

    async def join(self, chat: FakeChat, *, wait: bool = True) -> None:
        """Join a group: emits the ``new_chat_members`` service message."""
        chat.members[self.id] = "member"
        msg = self.fake._store_message(
            chat, self.id, None, service=True, extra={"new_chat_members": [self.to_json()]}
        )
        self.fake.push_update("message", self.fake.message_json(msg))
        await self._maybe_wait(wait)

    async def leave(self, chat: FakeChat, *, wait: bool = True) -> None:
        """Leave a group: emits the ``left_chat_member`` service message."""
        chat.members[self.id] = "left"
        msg = self.fake._store_message(
            chat, self.id, None, service=True, extra={"left_chat_member": self.to_json()}
        )
        self.fake.push_update("message", self.fake.message_json(msg))
        await self._maybe_wait(wait)

    # ------------------------------------------------------------------ inspection
    def private_messages(self) -> list[StoredMessage]:
        """Everything in this user's private chat with the bot (both directions)."""
        return self.fake.messages(self.id)

    def last_message(self) -> StoredMessage | None:
        """The bot's newest message in this user's private chat."""
        return self.fake.last_message(self.id)
