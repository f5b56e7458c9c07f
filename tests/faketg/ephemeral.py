"""Bot API 10.2/10.3 in the fake: ephemeral messages, disabled buttons and button styles.

Modelled on the official text (Bot API 10.3, August 2026):

- ``ephemeral_message_parameters`` (``EphemeralMessageParameters``: ``receiver_user_id``,
  optional ``callback_query_id`` and ``replace_callback_query_message``) on ``sendMessage``
  sends a message in a group or supergroup that only the receiver sees. The returned Message
  has ``message_id`` 0, an ``ephemeral_message_id`` and ``receiver_user``. A bot that is not
  an administrator must name the receiver's callback query, at most 15 seconds old; an
  administrator may write to any member who is not a bot at any time.
  ``replace_callback_query_message`` shows the message in place of the tapped one and must
  be false for a tap on an ephemeral message.
- ``editEphemeralMessageText``, ``editEphemeralMessageReplyMarkup`` and
  ``deleteEphemeralMessage`` take ``chat_id``, ``receiver_user_id`` and
  ``ephemeral_message_id`` and return True.
- ``InlineKeyboardButton.disabled`` (10.3) is an empty object and is the button's type: it
  does nothing when tapped. ``style`` (9.4) is ``danger``, ``success`` or ``primary``.

``FakeTelegram.bot_api`` (default ``(10, 3)``) plays an older server: below 10.3 the
parameter ``ephemeral_message_parameters`` and the fields ``disabled`` and ``style`` are
unknown and ignored, as the real server ignores what it does not know. So the message is then
posted for the whole group to see, and a button that only had ``disabled`` becomes a text
button, which an inline keyboard refuses. The methods below are missing there (404 "Not
Found"). A bot must find out which it talks to before it trusts an ephemeral message with a
secret. ``FakeTelegram.buttons_api`` makes the buttons alone read as an older version does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ApiError, bad_request
from .models import FakeChat, StoredMessage

if TYPE_CHECKING:
    from .core import FakeTelegram, Params

#: How long after a tap a bot that is not an administrator may answer it ephemerally.
TRIGGER_WINDOW = 15.0
#: ``style`` values the server accepts (it lowercases them first); "" and "default" mean none.
STYLES = ("", "default", "primary", "danger", "success")


class Ephemeral:
    """The ephemeral messages of every group, by (chat, receiver, ephemeral id), and the Bot
    API methods that send, edit and delete them."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.messages: dict[tuple[int, int, int], StoredMessage] = {}
        self._next_id = 1

    def handlers(self) -> dict[str, Any]:
        """The methods this adds, by lowercased name (none on a server older than 10.3)."""
        return {
            "editephemeralmessagetext": self.api_editEphemeralMessageText,
            "editephemeralmessagereplymarkup": self.api_editEphemeralMessageReplyMarkup,
            "deleteephemeralmessage": self.api_deleteEphemeralMessage,
        }

    # ------------------------------------------------------------------ reading (tests)

    def of(self, chat_id: int, user_id: int, *, deleted: bool = False) -> list[StoredMessage]:
        """The ephemeral messages ``user_id`` was sent in the chat, oldest first."""
        return [m for (c, u, _i), m in sorted(self.messages.items())
                if c == chat_id and u == user_id and (deleted or not m.deleted)]

    def get(self, chat_id: int, user_id: int, ephemeral_id: int) -> StoredMessage:
        msg = self.messages.get((chat_id, user_id, ephemeral_id))
        if msg is None or msg.deleted:
            raise bad_request("message to edit not found")
        return msg

    # ------------------------------------------------------------------ sending

    def send(self, chat: FakeChat, p: Params, text: str, entities: list[dict[str, Any]],
             markup: dict[str, Any] | None, thread: dict[str, Any]) -> StoredMessage:
        """``sendMessage`` with ``ephemeral_message_parameters``: checks who may be told and
        when, and keeps the message where only its receiver sees it."""
        params = p.get_json("ephemeral_message_parameters")
        if not isinstance(params, dict) or "receiver_user_id" not in params:
            raise bad_request("can't parse ephemeral message parameters")
        if not chat.is_group:
            raise bad_request("ephemeral messages can be sent only to group chats")
        receiver = int(params["receiver_user_id"])
        user = self.fake.users.get(receiver)
        if user is None or getattr(user, "is_bot", False) or chat.members.get(
                receiver, "left") in ("left", "kicked"):
            raise bad_request("receiver user not found")
        replaces = self._trigger(chat, receiver, params)
        eid = self._next_id
        self._next_id += 1
        msg = StoredMessage(
            chat_id=chat.id, message_id=0, from_id=self.fake.bot_id, date=self.fake.now(),
            text=text, entities=entities,
            reply_markup=markup if markup and "inline_keyboard" in markup else None,
            extra=dict(thread), params=dict(p.data),
            receiver_id=receiver, ephemeral_id=eid, replaces=replaces,
        )
        self.messages[chat.id, receiver, eid] = msg
        return msg

    def _trigger(self, chat: FakeChat, receiver: int, params: dict[str, Any]) -> int | None:
        """The message the new one replaces for its receiver (None: none), after checking
        the tap it answers: the receiver's own, in this chat, at most 15 s old — unless the
        bot administers the chat and names no tap."""
        query_id = params.get("callback_query_id")
        replace = bool(params.get("replace_callback_query_message"))
        admin = chat.members.get(self.fake.bot_id) in ("administrator", "creator")
        if query_id is None:
            if not admin:
                raise bad_request("ephemeral message trigger required")
            if replace:
                raise bad_request("callback query required to replace a message")
            return None
        record = self.fake.callback_queries.get(str(query_id))
        if record is None or record.user_id != receiver or record.chat_id != chat.id:
            raise bad_request("callback query not found")
        if not admin and self.fake.clock() - record.created > TRIGGER_WINDOW:
            raise bad_request("ephemeral message trigger expired")
        if replace:
            if record.ephemeral_id is not None:
                raise bad_request("can't replace an ephemeral message; edit it instead")
            return record.message_id
        return None

    # ------------------------------------------------------------------ methods

    def _target(self, p: Params) -> StoredMessage:
        chat = self.fake._writable_chat(p.data.get("chat_id"))
        return self.get(chat.id, p.req_int("receiver_user_id"), p.req_int("ephemeral_message_id"))

    def api_editEphemeralMessageText(self, p: Params) -> bool:
        msg = self._target(p)
        text, entities = self.fake._text(p, edit=True)
        markup = self.fake.validate_markup(p.get_json("reply_markup"), inline_only=True)
        self.fake._apply_edit(msg, text, entities, markup)
        return True

    def api_editEphemeralMessageReplyMarkup(self, p: Params) -> bool:
        msg = self._target(p)
        markup = self.fake.validate_markup(p.get_json("reply_markup"), inline_only=True)
        self.fake._apply_edit(msg, msg.text or "", list(msg.entities), markup)
        return True

    def api_deleteEphemeralMessage(self, p: Params) -> bool:
        msg = self._target(p)
        msg.deleted = True
        return True


def check_button(fake: FakeTelegram, button: dict[str, Any], actions: list[str]) -> list[str]:
    """The button's type fields once ``disabled`` and ``style`` are read as this server
    version reads them (an older one ignores both). Raises a 400 for a style it does not
    know."""
    version = fake.buttons_api or fake.bot_api
    if version < (9, 4):
        return actions
    style = button.get("style")
    if style is not None and (not isinstance(style, str) or style.lower() not in STYLES):
        raise ApiError(400, "Bad Request: can't parse inline keyboard button: invalid button "
                            "style specified")
    if version >= (10, 3) and "disabled" in button:
        if button["disabled"] != {}:
            raise bad_request("can't parse inline keyboard button: DisabledButton must be "
                              "an Object")
        if actions:
            raise bad_request("can't parse inline keyboard button: a disabled button can't "
                              "have another type")
        return ["disabled"]
    return actions
