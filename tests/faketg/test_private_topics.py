"""The fake's topics in private chats (Bot API 9.3/9.4): getMe's switches, createForumTopic
in a private chat, message_thread_id and is_topic_message there, a topic the user deleted,
and the older servers."""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.error import BadRequest

from tests.faketg import FakeTelegram


async def test_get_me_tells_the_topic_mode_by_version(fake: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.has_topics_enabled, me.allows_users_to_create_topics) == (False, False)
    fake.private_topics = True
    me = await bot.get_me()
    assert (me.has_topics_enabled, me.allows_users_to_create_topics) == (True, True)
    fake.users_create_topics = False
    assert (await bot.get_me()).allows_users_to_create_topics is False
    fake.bot_api = (9, 3)
    me = await bot.get_me()
    assert (me.has_topics_enabled, me.allows_users_to_create_topics) == (True, None)
    fake.bot_api = (9, 2)
    assert (await bot.get_me()).has_topics_enabled is None


async def test_a_topic_in_a_private_chat_carries_its_messages(
    fake: FakeTelegram, bot: Bot
) -> None:
    fake.private_topics = True
    alice = fake.user(101, "Alice")
    await alice.start_bot()
    topic = await bot.create_forum_topic(alice.id, "Kolkhoz #12 · Friday cards")
    assert topic.name == "Kolkhoz #12 · Friday cards"
    sent = await bot.send_message(alice.id, "your turn", message_thread_id=topic.message_thread_id)
    assert (sent.message_thread_id, sent.is_topic_message) == (topic.message_thread_id, True)
    plain = await bot.send_message(alice.id, "hello")
    assert (plain.message_thread_id, plain.is_topic_message) == (None, None)
    stored = fake.message(alice.id, sent.message_id)
    assert stored.thread_id == topic.message_thread_id
    # The user writes in the topic: the update says where.
    typed = await alice.send(None, "/mygames", topic=topic.message_thread_id)
    assert typed.thread_id == topic.message_thread_id
    # An unknown thread is refused; the user deletes the topic, and it is gone.
    with pytest.raises(BadRequest, match="thread not found"):
        await bot.send_message(alice.id, "x", message_thread_id=9999)
    fake.delete_topic(alice.id, topic.message_thread_id)
    with pytest.raises(BadRequest, match="thread not found"):
        await bot.send_message(alice.id, "x", message_thread_id=topic.message_thread_id)
    with pytest.raises(BadRequest, match="not found"):
        await bot.edit_message_text("y", chat_id=alice.id, message_id=sent.message_id)


@pytest.mark.parametrize("mode", ["off", "9.3"])
async def test_no_private_topic_without_topic_mode_or_before_9_4(
    fake: FakeTelegram, bot: Bot, mode: str
) -> None:
    fake.private_topics = mode != "off"
    if mode == "9.3":
        fake.bot_api = (9, 3)
    alice = fake.user(101, "Alice")
    await alice.start_bot()
    with pytest.raises(BadRequest, match="not a forum"):
        await bot.create_forum_topic(alice.id, "Kolkhoz #1")
    assert fake.messages(alice.id) == [m for m in fake.messages(alice.id) if not m.thread_id]


async def test_the_user_opens_topics_only_when_the_bot_allows_it(fake: FakeTelegram) -> None:
    alice = fake.user(101, "Alice")
    await alice.start_bot()
    with pytest.raises(ValueError, match="not a forum"):
        fake.create_topic(alice.id, "mine", by=alice)
    fake.private_topics = True
    fake.users_create_topics = False
    with pytest.raises(ValueError, match="not a forum"):
        fake.create_topic(alice.id, "mine", by=alice)
    fake.users_create_topics = True
    topic = fake.create_topic(alice.id, "mine", by=alice)
    assert fake.topic(alice.id, topic).name == "mine"
