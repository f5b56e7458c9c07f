"""Topics in the bot's private chats (Bot API 9.3 and 9.4): what ``FakeTelegram`` needs
beyond its forum topics.

- getMe tells ``has_topics_enabled`` (9.3) and ``allows_users_to_create_topics`` (9.4),
  both False unless switched on (``fake.private_topics``, ``fake.users_create_topics``:
  the bot's settings in @BotFather); an older server leaves them out.
- ``createForumTopic`` in a private chat (9.4) makes a topic there when the bot has topic
  mode on; refused ("the chat is not a forum") when it is off or the server is older.
- ``message_thread_id`` in a private chat then names such a topic ("message thread not
  found" once the user deleted it: ``fake.delete_topic(user.id, topic)``), and the
  messages sent there carry ``is_topic_message``, as in a forum.
- The user may open topics too (``fake.create_topic(user.id, name, by=user)``) when the bot
  allows it, and write into one (``user.send(None, text, topic=…)``).

What Telegram answers ``createForumTopic`` when topic mode is off is not documented: the
fake says what it says for a group that is no forum.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import FakeTelegram
    from .models import FakeChat


def private_topic_fields(fake: FakeTelegram) -> dict[str, Any]:
    """getMe's fields about topics in private chats, as far as the server knows them."""
    fields: dict[str, Any] = {}
    if fake.bot_api >= (9, 3):
        fields["has_topics_enabled"] = fake.private_topics
    if fake.bot_api >= (9, 4):
        fields["allows_users_to_create_topics"] = (
            fake.private_topics and fake.users_create_topics)
    return fields


def has_private_topics(fake: FakeTelegram, chat: FakeChat) -> bool:
    """Whether ``chat`` is a private chat with topics (the bot's topic mode on, 9.3+)."""
    return chat.type == "private" and fake.private_topics and fake.bot_api >= (9, 3)
