"""Forum topics: a game lives in the topic it was started in. Two games in two topics of one
group played at once to the end, each topic reading only its own game; a group without
topics as before; ``/newgame`` in "General" opening a topic for the game (or staying in
"General" when the bot may not); a topic deleted mid-game (the game pauses, moves to
"General", loses nothing and goes on with /resume)."""

from __future__ import annotations

import asyncio
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from telegram import Chat, Message
from telegram.ext import Application

from kolkhoz_tg.bot.app import shutdown
from kolkhoz_tg.bot.buttons import misplaced
from kolkhoz_tg.bot.context import DEPS_KEY, Deps, topic_of
from kolkhoz_tg.bot.plan import plan
from kolkhoz_tg.bot.steps import TOPIC_LOST_KEY, TOPIC_OWN_KEY, Board, CloseTopic, GroupPost
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import NAMES, action_buttons, move_without_the_bot, tap_any_action
from tests.faketg import ApiCall, FakeChat, FakeTelegram, FakeUser, StoredMessage

App = Application[Any, Any, Any, Any, Any, Any]


def people(fake: FakeTelegram, base: int, lang: str = "en") -> list[FakeUser]:
    return [fake.user(base + i, f"{n}{base}", language_code=lang) for i, n in enumerate(NAMES)]


def bot_texts(fake: FakeTelegram, group: FakeChat, topic: int | None) -> list[str]:
    """What the bot has in one topic now (captions too)."""
    return [m.text or str(m.extra.get("caption", "")) for m in fake.topic_messages(group, topic)
            if m.from_id == fake.bot_id]


def lobby_in(fake: FakeTelegram, group: FakeChat, topic: int | None) -> StoredMessage:
    found = [m for m in fake.topic_messages(group, topic)
             if m.from_id == fake.bot_id and any(":start" in d for d in m.callback_data)]
    assert found, bot_texts(fake, group, topic)
    return found[-1]


async def open_game_in(
    fake: FakeTelegram, users: list[FakeUser], group: FakeChat, topic: int | None,
    command: str = "/newgame", *, lobby_topic: int | None = None,
) -> int:
    """As ``driver.open_game``, in a forum topic: /newgame there (its lobby in
    ``lobby_topic``, if the bot opens a topic for it), the others join by button, the
    creator starts. Returns the game id."""
    for u in users:
        await u.start_bot()
    await users[0].send(group, command, topic=topic)
    if lobby_topic is None and topic is None and fake.calls("createForumTopic", ok=True):
        lobby_topic = int(fake.calls("createForumTopic", ok=True)[-1].result[
            "message_thread_id"])
    lobby = lobby_in(fake, group, lobby_topic if lobby_topic is not None else topic)
    join = lobby.buttons[0][0].text
    for u in users[1:]:
        await u.tap(fake.message(group, lobby.message_id), join)
    start = [b for row in fake.message(group, lobby.message_id).buttons for b in row
             if b.data and b.data.endswith(":start")]
    await users[0].tap(lobby, start[0].text)
    data = start[0].data
    assert data is not None
    return int(data.split(":")[1], 36)


def deps_of(app: App) -> Deps:
    deps: Deps = app.bot_data[DEPS_KEY]
    return deps


def relay_of(app: App) -> Any:
    return deps_of(app).relay


async def test_two_games_in_two_topics_of_one_group_to_the_end(
    fake: FakeTelegram, service: GameService
) -> None:
    """Table A plays in a topic its players opened; table B's game gets a topic of its own
    from /newgame in "General". Both play at once, to the end."""
    table_a, table_b = people(fake, 1500), people(fake, 1600)
    group = fake.create_group("Forum", table_a + table_b, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        topic_a = fake.create_topic(group, "Table A", by=table_a[0])
        game_a = await open_game_in(fake, table_a, group, topic_a)
        game_b = await open_game_in(fake, table_b, group, None, "/newgame 4 zone")
        a, b = service.game_info(game_a), service.game_info(game_b)
        topic_b = b.topic_id
        assert topic_b is not None and topic_b != topic_a
        assert (a.topic_id, a.chat_id, b.chat_id) == (topic_a, group.id, group.id)
        assert [g.id for g in service.games_in_chat(group.id, topic_a)] == [game_a]
        assert service.games_in_chat(group.id) == []  # nothing in "General"
        # One group, several games: a player's private message names which one.
        for user, game_id in ((table_a[0], game_a), (table_b[0], game_b)):
            private = user.last_message()
            assert private is not None
            assert f'Kolkhoz #{game_id} in "Forum"' in (private.text or "")
        # "General" holds only the pointer to table B's topic.
        [pointer] = bot_texts(fake, group, None)
        assert f"Game #{game_b} has a topic of its own" in pointer
        # A second /newgame in a topic with a game points at its board.
        await table_a[1].send(group, "/newgame", topic=topic_a)
        assert "This topic already has a game" in bot_texts(fake, group, topic_a)[-2]

        # Both tables tap at once, round after round: the two updates are in flight
        # together (both taps are answered before either game's messages go out) and their
        # Bot API calls interleave.
        ids_a = {u.id for u in table_a}
        ids_b = {u.id for u in table_b}

        def table_of(call: ApiCall) -> str | None:
            query = call.params.get("callback_query_id")
            if query is not None:  # a tap's answer: whose tap
                return "a" if fake.callback_queries[str(query)].user_id in ids_a else "b"
            chat = int(call.params.get("chat_id", 0) or 0)
            thread = call.params.get("message_thread_id")
            message = call.params.get("message_id")
            boards = {service.game_info(g).meta.get("board"): name
                      for g, name in ((game_a, "a"), (game_b, "b"))}
            if chat in ids_a or thread == topic_a:
                return "a"
            if chat in ids_b or thread == topic_b:
                return "b"
            return boards.get(message) if chat == group.id else None

        interleaved = 0
        taps = 0
        while True:
            seen = len(fake.sent_log)
            moved_a, moved_b = await asyncio.gather(tap_any_action(table_a),
                                                    tap_any_action(table_b))
            if not (moved_a or moved_b):
                break
            order = [t for c in fake.sent_log[seen:] if (t := table_of(c)) is not None]
            switches = sum(1 for x, y in itertools.pairwise(order) if x != y)
            interleaved += switches > 1  # a, then b, then a again (or the other way)
            taps += 1
            if taps == 20:
                # Commands in a topic address that topic's game.
                await table_b[2].send(group, "/board", topic=topic_b)
                board_b = service.game_info(game_b).meta["board"]
                assert fake.message(group, board_b).thread_id == topic_b
                await table_a[1].send(group, "/score", topic=topic_a)
                assert bot_texts(fake, group, topic_a)[-1].count(str(table_a[1].first_name))
                await table_a[0].send(group, "/pause", topic=topic_a)
                assert service.game_info(game_a).status == "paused"
                assert service.game_info(game_b).status == "active"
                await table_a[0].send(group, "/resume", topic=topic_a)
                assert service.game_info(game_a).status == "active"
            assert taps < 400
        assert interleaved > taps // 4, (interleaved, taps)
        for game_id, topic in ((game_a, topic_a), (game_b, topic_b)):
            info = service.game_info(game_id)
            assert info.status == "finished" and info.topic_id == topic
            assert fake.message(group, info.meta["board"]).thread_id == topic
            said = bot_texts(fake, group, topic)
            assert sum("five-year plan is complete" in t for t in said) == 1, said
        # The topic the bot opened is closed once its game is over (after the final
        # table); the one the players opened stays open.
        assert fake.topic(group, topic_b).closed and not fake.topic(group, topic_a).closed
        closed = fake.topic_messages(group, topic_b, include_service=True)[-1]
        assert "forum_topic_closed" in closed.extra
        # Nothing of either game in "General"; every other group message went into its topic.
        assert bot_texts(fake, group, None) == [pointer]
        sends = [c for c in fake.calls("sendMessage", ok=True)
                 if c.params.get("chat_id") == group.id and c.params.get("text") != pointer]
        assert sends and all(c.params.get("message_thread_id") in (topic_a, topic_b)
                             for c in sends)
        # /log in a topic tells that topic's game; in "General", which had none, the chat's
        # last one (table B's topic is closed: only admins may still write there).
        await table_a[3].send(group, "/log", topic=topic_a)
        assert f"Game {game_a}" in bot_texts(fake, group, topic_a)[-1]
        await table_b[3].send(group, "/log")
        assert f"Game {game_b}" in bot_texts(fake, group, None)[-1]


async def test_buttons_of_a_game_work_only_in_its_own_topic(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 1700)
    group = fake.create_group("Forum", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topic_a = fake.create_topic(group, "A", by=users[0])
        topic_b = fake.create_topic(group, "B", by=users[0])
        await users[0].send(group, "/newgame", topic=topic_a)
        lobby = lobby_in(fake, group, topic_a)
        join = lobby.buttons[0][0].data
        assert join is not None
        # The same callback data, from a message in another topic (forged, or copied).
        await users[1].send(group, "/help", topic=topic_b)
        elsewhere = fake.topic_messages(group, topic_b)[-1]
        answer = await users[1].tap(elsewhere, join, force=True)
        assert answer is not None and answer.show_alert
        assert answer.text == "That button belongs to another topic."
        game_id = service.games_in_chat(group.id, topic_a)[0].id
        assert len(service.game_info(game_id).seats) == 1
        await users[1].tap(lobby, join)
        assert len(service.game_info(game_id).seats) == 2


async def test_a_group_without_topics_plays_as_before(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 1800)
    group = fake.create_group("Plain", users, supergroup=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game_in(fake, users, group, None)
        for _ in range(8):
            assert await tap_any_action(users)
        private = users[0].last_message()
        assert private is not None and 'Kolkhoz in "Plain"' in (private.text or "")
        await users[1].send(group, "/board")
        info = service.game_info(game_id)
        assert info.topic_id is None and TOPIC_OWN_KEY not in info.meta
        # A reply carries a thread id here (its chain of replies), but it is no topic.
        board = fake.message(group, info.meta["board"])
        asked = await users[2].send(group, "/score", reply_to=board)
        assert asked.extra["message_thread_id"] == board.message_id
        assert "is_topic_message" not in asked.extra
        answer = fake.last_message(group)
        assert answer is not None and users[2].first_name in (answer.text or "")
    assert not fake.calls("createForumTopic")
    assert not [c for c in fake.sent_log if "message_thread_id" in c.params]
    assert all(m.thread_id is None for m in fake.messages(group))


async def test_newgame_in_general_opens_a_topic_and_closes_it_at_the_end(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 1900)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        await users[0].send(group, "/newgame")
        [created] = fake.calls("createForumTopic", ok=True)
        topic = int(created.result["message_thread_id"])
        game = service.games_in_chat(group.id, topic)[0]
        assert created.params["name"] == f"Kolkhoz #{game.id} — Classic"
        assert game.meta[TOPIC_OWN_KEY] is True
        lobby = lobby_in(fake, group, topic)
        # "General" gets a pointer to the topic, nothing else.
        [pointer] = [m for m in fake.topic_messages(group, None) if m.from_id == fake.bot_id]
        assert f"Game #{game.id} has a topic of its own" in (pointer.text or "")
        url = pointer.buttons[0][0].url
        assert url == f"https://t.me/c/{str(group.id)[4:]}/{topic}"
        # A second /newgame in "General" opens a second topic: one game each.
        await users[1].send(group, "/newgame zone")
        assert len(fake.calls("createForumTopic", ok=True)) == 2
        assert len(service.games_in_chat(group.id, all_topics=True)) == 2

        # The game plays in its topic; called off, its topic is closed.
        for u in users:
            await u.start_bot()
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), lobby.buttons[0][0].text)
        start = [b for row in fake.message(group, lobby.message_id).buttons for b in row
                 if b.data and b.data.endswith(":start")]
        await users[0].tap(lobby, start[0].text)
        assert await tap_any_action(users)
        await users[0].send(group, "/abort", topic=topic)
        confirm = fake.topic_messages(group, topic)[-1]
        await users[0].tap(confirm, "Yes, call it off")
        assert service.game_info(game.id).status == "aborted"
        assert fake.topic(group, topic).closed
        assert fake.calls("closeForumTopic", ok=True)
        assert len([m for m in fake.topic_messages(group, None)
                    if m.from_id == fake.bot_id]) == 2  # the two pointers


async def test_newgame_in_general_in_russian_names_the_topic_in_russian(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 2000, lang="ru")
    group = fake.create_group("Форум", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        await users[0].send(group, "/newgame")
        [created] = fake.calls("createForumTopic", ok=True)
        game = service.games_in_chat(group.id, int(created.result["message_thread_id"]))[0]
        assert created.params["name"] == f"Колхоз № {game.id} — Классика"
        pointer = [m for m in fake.topic_messages(group, None) if m.from_id == fake.bot_id]
        assert "своя тема" in (pointer[0].text or "")


async def test_newgame_in_general_stays_there_when_the_bot_may_not_open_topics(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 2100)
    member = fake.create_group("Forum", users, forum=True)  # the bot is no admin
    no_right = fake.create_group("Forum 2", users, forum=True, bot_admin=True,
                                 bot_can_manage_topics=False)
    async with fake.running(make_app(fake, service)):
        for group in (member, no_right):
            await users[0].send(group, "/newgame")
            [game] = service.games_in_chat(group.id)
            assert game.topic_id is None
            lobby_in(fake, group, None)
            assert any("right to manage topics" in t for t in bot_texts(fake, group, None))
            await users[1].send(group, "/newgame")
            assert any("This chat already has a game" in t
                       for t in bot_texts(fake, group, None))
        # ``/newgame here`` keeps a game in "General" without a word about topics.
        here = fake.create_group("Forum 3", users, forum=True, bot_admin=True)
        await users[0].send(here, "/newgame here")
        assert service.games_in_chat(here.id)[0].topic_id is None
        assert not any("topic" in t for t in bot_texts(fake, here, None))
    assert not fake.calls("createForumTopic", ok=True)


async def test_a_deleted_topic_pauses_the_game_which_goes_on_elsewhere(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 2200)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    app = make_app(fake, service)
    async with fake.running(app):
        await users[0].send(group, "/newgame")
        topic = int(fake.calls("createForumTopic", ok=True)[0].result["message_thread_id"])
        for u in users:
            await u.start_bot()
        lobby = lobby_in(fake, group, topic)
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), lobby.buttons[0][0].text)
        start = [b for row in fake.message(group, lobby.message_id).buttons for b in row
                 if b.data and b.data.endswith(":start")]
        await users[0].tap(lobby, start[0].text)
        game_id = service.games_in_chat(group.id, topic)[0].id
        for _ in range(5):
            assert await tap_any_action(users)
        log = service.action_log(game_id)
        before = service.game_info(game_id)

        # Someone deletes the topic; the next move cannot be shown there.
        fake.delete_topic(group, topic)
        assert await tap_any_action(users)
        info = service.game_info(game_id)
        assert info.status == "paused" and info.topic_id is None
        assert info.meta[TOPIC_LOST_KEY] == topic and TOPIC_OWN_KEY not in info.meta
        after = service.action_log(game_id)
        assert len(after) > len(log) and after[: len(log)] == log  # the move was made
        assert info.seats == before.seats
        general = bot_texts(fake, group, None)
        assert any(f"The topic of game #{game_id} was closed or deleted" in t for t in general)
        board = fake.message(group, info.meta["board"])
        assert board.thread_id is None and not board.deleted
        # Nothing waits to go into the deleted topic: the relay has nothing to retry.
        failed = len(fake.calls("sendMessage", ok=False))
        await relay_of(app).drain()
        assert service.outbox_backlog() == 0
        assert len(fake.calls("sendMessage", ok=False)) == failed
        # No move while paused.
        assert not any(action_buttons(u.last_message()) for u in users)

        # The creator goes on in a new topic: the game moves there, with a fresh board.
        new_topic = fake.create_topic(group, "Kolkhoz again", by=users[0])
        await users[0].send(group, "/resume", topic=new_topic)
        info = service.game_info(game_id)
        assert info.status == "active" and info.topic_id == new_topic
        assert TOPIC_LOST_KEY not in info.meta
        assert fake.message(group, info.meta["board"]).thread_id == new_topic
        assert fake.message(group, board.message_id).deleted  # the board left "General"
        assert "The game goes on" in bot_texts(fake, group, new_topic)[-1]
        version = info.version
        assert await tap_any_action(users)
        assert service.game_info(game_id).version > version
        assert bot_texts(fake, group, new_topic)


async def test_a_paused_game_whose_topic_is_deleted_goes_on_in_general(
    fake: FakeTelegram, service: GameService
) -> None:
    """A paused game sends nothing, so nobody notices its topic deleted until /resume in
    "General", which asks Telegram, finds the topic gone and brings the game there."""
    users = people(fake, 2250)
    group = fake.create_group("Forum", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topic = fake.create_topic(group, "Game", by=users[0])
        game_id = await open_game_in(fake, users, group, topic)
        assert await tap_any_action(users)
        await users[0].send(group, "/pause", topic=topic)
        assert service.game_info(game_id).status == "paused"
        fake.delete_topic(group, topic)
        await users[1].send(group, "/resume")  # not the creator: refused, nothing moves
        info = service.game_info(game_id)
        assert info.status == "paused" and info.topic_id == topic
        await users[0].send(group, "/resume")
        info = service.game_info(game_id)
        assert info.status == "active" and info.topic_id is None
        assert fake.message(group, info.meta["board"]).thread_id is None
        assert await tap_any_action(users)


async def test_a_deleted_topic_game_resumes_in_general_in_russian(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 2300, lang="ru")
    group = fake.create_group("Форум", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topic = fake.create_topic(group, "Колхоз", by=users[0])
        game_id = await open_game_in(fake, users, group, topic)
        assert await tap_any_action(users)
        fake.delete_topic(group, topic)
        # The board cannot be brought up in the topic any more: the game moves out.
        await users[0].send(group, "/board")  # "General" has no game yet
        assert service.game_info(game_id).topic_id == topic
        assert await tap_any_action(users)
        info = service.game_info(game_id)
        assert info.status == "paused" and info.topic_id is None
        said = bot_texts(fake, group, None)
        assert any(f"Тема игры № {game_id} закрыта или удалена" in t for t in said), said
        await users[0].send(group, "/resume")
        info = service.game_info(game_id)
        assert info.status == "active" and info.topic_id is None
        assert fake.message(group, info.meta["board"]).thread_id is None
        assert await tap_any_action(users)


async def test_mentions_reminders_and_a_picture_board_go_into_the_topic(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = people(fake, 2400)
    group = fake.create_group("Forum", users, forum=True)
    app = make_app(fake, service)
    async with fake.running(app):
        topic = fake.create_topic(group, "Game", by=users[0])
        game_id = await open_game_in(fake, users, group, topic)
        await users[0].send(group, "/settings board picture", topic=topic)
        board = fake.message(group, service.game_info(game_id).meta["board"])
        assert "photo" in board.extra and board.thread_id == topic
        assert fake.calls("sendPhoto", ok=True)[-1].params["message_thread_id"] == topic
        # A player blocks the bot: when their turn comes, they are mentioned in the topic.
        target = next(u for u in users if not service.seat_view(game_id, u.id).to_act)
        await target.block_bot()
        others = [u for u in users if u is not target]
        while not service.seat_view(game_id, target.id).to_act:
            assert await tap_any_action(others)
        mentions = [m for m in fake.messages(group) if "it is your move" in (m.text or "")]
        assert mentions and all(m.thread_id == topic for m in mentions)
        # The last reminder before the deadline mentions them there too.
        clock.advance(timedelta(hours=23, minutes=1))
        notes = (await asyncio.to_thread(service.process_due, game_id)).notifications
        assert any(n.kind.value == "reminder" for n in notes)
        await deps_of(app).deliverer.deliver(notes)
        await fake.wait_idle()
        later = [m for m in fake.messages(group) if "it is your move" in (m.text or "")]
        assert len(later) > len(mentions) and all(m.thread_id == topic for m in later)
        assert "time runs out" in (later[-1].text or "")
        assert bot_texts(fake, group, None) == []


async def test_the_bot_removed_from_a_forum_and_back_speaks_in_each_games_topic(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 2500)
    group = fake.create_group("Forum", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topics = [fake.create_topic(group, name, by=users[0]) for name in ("A", "B")]
        games = [await open_game_in(fake, users, group, t) for t in topics]
        await fake.remove_bot(group, by=users[0])
        assert [service.game_info(g).status for g in games] == ["paused", "paused"]
        await fake.add_ai_player(group, by=users[1])
        assert [service.game_info(g).status for g in games] == ["active", "active"]
        for game_id, topic in zip(games, topics, strict=True):
            assert any("I am back" in t for t in bot_texts(fake, group, topic))
            info = service.game_info(game_id)
            assert fake.message(group, info.meta["board"]).thread_id == topic
        assert bot_texts(fake, group, None) == []


async def test_a_topic_an_admin_closes_pauses_its_game_until_it_is_reopened(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """An admin closes a game's topic (the bot, an admin that manages topics, still posts
    there): the game pauses with a note there, no deadline plays it out while the players
    cannot write; reopening the topic lets it go on. The other topic's game runs on."""
    users = people(fake, 2550)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    app = make_app(fake, service)
    async with fake.running(app):
        topics = [fake.create_topic(group, name, by=users[0]) for name in ("A", "B")]
        games = [await open_game_in(fake, users, group, t, lobby_topic=t) for t in topics]
        moves = len(service.action_log(games[0]))
        await fake.close_topic(group, topics[0], by=users[0])
        assert [service.game_info(g).status for g in games] == ["paused", "active"]
        assert any("This topic was closed" in t for t in bot_texts(fake, group, topics[0]))
        clock.advance(timedelta(days=3))
        await asyncio.to_thread(service.process_due, games[0])
        assert len(service.action_log(games[0])) == moves  # nobody played for anyone
        await fake.close_topic(group, topics[0], by=users[0], reopen=True)
        info = service.game_info(games[0])
        assert info.status == "active" and info.deadline is not None
        assert info.deadline > clock.now() + timedelta(hours=23)
        texts_a = bot_texts(fake, group, topics[0])
        assert any("The topic is open again" in t for t in texts_a)
        assert fake.message(group, info.meta["board"]).thread_id == topics[0]
        assert await tap_any_action(users)
        assert bot_texts(fake, group, None) == []


async def test_a_topic_closed_to_the_bot_moves_its_lobby_to_general(
    fake: FakeTelegram, service: GameService
) -> None:
    """A member bot (no right to manage topics) cannot post in a topic an admin closed:
    the lobby moves to "General", where it goes on."""
    users = people(fake, 2600)
    group = fake.create_group("Forum", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topic = fake.create_topic(group, "Lobby", by=users[0])
        await users[0].send(group, "/newgame", topic=topic)
        [game] = service.games_in_chat(group.id, topic)
        fake.topic(group, topic).closed = True
        await users[0].send(group, "/join")  # nothing here yet: "General" has no game
        assert service.game_info(game.id).topic_id == topic
        # (An admin may still write there; the board sent anew cannot go there.)
        await users[0].send(group, "/board", topic=topic)
        info = service.game_info(game.id)
        assert info.topic_id is None and info.status == "lobby"
        assert fake.calls("sendMessage", ok=False)[-1].description == "Bad Request: TOPIC_CLOSED"
        general = bot_texts(fake, group, None)
        assert any("so its lobby has moved here" in t for t in general)
        lobby = lobby_in(fake, group, None)
        await users[1].tap(lobby, lobby.buttons[0][0].text)
        assert len(service.game_info(game.id).seats) == 2


async def test_a_refused_topic_leaves_the_new_game_in_general(
    fake: FakeTelegram, service: GameService
) -> None:
    """The bot may manage topics, but Telegram refuses the new one (a passing failure, a
    limit): the game starts in "General" as in a group without topics."""
    users = people(fake, 2700)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        fake.fail("createForumTopic", status=400, times=5,
                  description="Bad Request: TOPICS_TOO_MUCH")
        await users[0].send(group, "/newgame")
        [game] = service.games_in_chat(group.id)
        assert game.topic_id is None and TOPIC_OWN_KEY not in game.meta
        lobby = lobby_in(fake, group, None)
        await users[1].tap(lobby, lobby.buttons[0][0].text)
        assert len(service.game_info(game.id).seats) == 2
    assert fake.calls("createForumTopic", ok=False)


# ---------------------------------------------------------------------- the pure parts


def test_topic_of_a_message() -> None:
    forum = Chat(-1001, "supergroup", is_forum=True)
    now = datetime.now(UTC)
    assert topic_of(Message(1, now, forum, message_thread_id=5, is_topic_message=True)) == 5
    assert topic_of(Message(2, now, forum)) is None  # "General"
    # Outside forums a reply's thread id names its chain of replies: no topic.
    plain = Chat(-1002, "supergroup")
    assert topic_of(Message(3, now, plain, message_thread_id=1)) is None
    assert topic_of(None) is None


def test_the_plan_sends_a_games_group_messages_into_its_topic(
    service: GameService, clock: FakeClock
) -> None:
    game = service.create_game(-1001234, 1, topic_id=77, creator_name="Anna")
    assert game.topic_id == 77
    for user_id, name in ((2, "Boris"), (3, "Vera"), (4, "Gleb")):
        service.join(game.id, user_id, name)
    started = service.start(game.id, 1)
    bot = "kolkhoz_test_bot"
    steps = plan(started.notifications, service.scene(game.id), clock.now(), bot).steps
    group = [s for s in steps if isinstance(s, Board | GroupPost)]
    assert group and all(s.topic_id == 77 for s in group)
    assert not any(isinstance(s, CloseTopic) for s in steps)
    # Called off in a topic the bot opened: its last word, then the topic closes.
    service.set_meta(game.id, TOPIC_OWN_KEY, True)
    aborted = service.abort(game.id, 1)
    steps = plan(aborted.notifications, service.scene(game.id), clock.now(), bot).steps
    assert isinstance(steps[0], Board) and steps[0].topic_id == 77
    assert steps[-1] == CloseTopic(-1001234, 77)
    # Buttons count only in the game's own chat and topic.
    info = service.game_info(game.id)
    tr = translator("en")
    assert misplaced(tr, "l", info, 2, -1001234, False, 77) is None
    assert misplaced(tr, "l", info, 2, -1001234, False, None) == (
        "That button belongs to another topic.")
    assert misplaced(tr, "v", info, 2, -1001234, False, 78) == (
        "That button belongs to another topic.")
    assert misplaced(tr, "l", info, 2, -5, False, 77) == "That button belongs to another chat."
    # An old message comes without its topic: only the chat counts then.
    assert misplaced(tr, "l", info, 2, -1001234, False, None, topic_known=False) is None
    assert misplaced(tr, "l", info, 2, -5, False, None, topic_known=False) == (
        "That button belongs to another chat.")
    assert misplaced(tr, "v", info, 2, 2, True, None) is None  # a player's private message


# ---------------------------------------------------------------------- one game a place


def open_games(service: GameService, group: FakeChat, topic: int | None) -> list[int]:
    return [g.id for g in service.games_in_chat(group.id, topic)]


async def test_a_lost_topic_while_general_has_a_game_leaves_general_to_that_game(
    fake: FakeTelegram, service: GameService
) -> None:
    """A game's topic is deleted while "General" holds a game of its own: the game pauses
    and stays out of "General" (commands there still reach that game alone); a note says
    so, and /resume in another topic brings it there. A lobby the same way."""
    table, general_table = people(fake, 2800), people(fake, 2810)
    group = fake.create_group("Forum", table + general_table, forum=True,
                              admins=[general_table[3]])
    app = make_app(fake, service)
    async with fake.running(app):
        topic = fake.create_topic(group, "Table", by=table[0])
        game_id = await open_game_in(fake, table, group, topic)
        await general_table[0].send(group, "/newgame here")
        [general_game] = open_games(service, group, None)
        lobby_topic = fake.create_topic(group, "Lobby", by=table[1])
        await table[1].send(group, "/newgame", topic=lobby_topic)
        [lobby_id] = open_games(service, group, lobby_topic)
        assert await tap_any_action(table)

        fake.delete_topic(group, topic)
        fake.topic(group, lobby_topic).closed = True  # to the bot, which is no admin
        assert await tap_any_action(table)  # the move is made; its board cannot go out
        info = service.game_info(game_id)
        assert info.status == "paused" and info.topic_id == topic
        assert info.meta[TOPIC_LOST_KEY] == topic
        assert open_games(service, group, None) == [general_game]
        said = bot_texts(fake, group, None)
        assert sum(f"The topic of game #{game_id} was closed or deleted" in t
                   for t in said) == 1, said
        assert "continues it in another topic with /resume" in said[-1]
        # Nothing more is tried in the deleted topic, and nothing is said twice.
        failed = len(fake.calls("sendMessage", ok=False))
        await table[2].send(group, "/back")
        await relay_of(app).drain()
        assert len(fake.calls("sendMessage", ok=False)) == failed
        # Commands in "General" reach its own game only.
        await general_table[1].send(group, "/join")
        assert len(service.game_info(general_game).seats) == 2
        await table[0].send(group, "/resume")
        assert service.game_info(game_id).status == "paused"
        # The lobby, once it finds out, waits the same way (an admin may still write in
        # the closed topic; the board sent anew cannot go there).
        await general_table[3].send(group, "/board", topic=lobby_topic)
        lobby = service.game_info(lobby_id)
        assert lobby.topic_id == lobby_topic and lobby.meta[TOPIC_LOST_KEY] == lobby_topic
        assert "so the lobby waits" in bot_texts(fake, group, None)[-1]
        assert open_games(service, group, None) == [general_game]

        # /resume in another topic: the game goes on there.
        again = fake.create_topic(group, "Table again", by=table[0])
        await table[2].send(group, "/resume", topic=again)  # no creator, no admin
        assert service.game_info(game_id).topic_id == topic
        await table[0].send(group, "/resume", topic=again)
        info = service.game_info(game_id)
        assert (info.status, info.topic_id) == ("active", again)
        assert TOPIC_LOST_KEY not in info.meta
        assert fake.message(group, info.meta["board"]).thread_id == again
        assert await tap_any_action(table)
        # The lobby comes back into a topic of its own the same way.
        lobby_again = fake.create_topic(group, "Lobby again", by=table[1])
        await table[1].send(group, "/resume", topic=lobby_again)
        lobby = service.game_info(lobby_id)
        assert (lobby.status, lobby.topic_id) == ("lobby", lobby_again)
        assert TOPIC_LOST_KEY not in lobby.meta
        new_lobby = lobby_in(fake, group, lobby_again)
        await table[2].tap(new_lobby, new_lobby.buttons[0][0].text)
        assert len(service.game_info(lobby_id).seats) == 2


async def test_newgame_in_general_with_a_game_there_opens_a_topic_first_or_refuses(
    fake: FakeTelegram, service: GameService
) -> None:
    """/newgame in "General" where a game is open already: the new game starts in a topic
    opened for it (named after it once it exists); when Telegram refuses the topic, no
    game is made and the sender is told why. "General" never holds two open games."""
    users = people(fake, 2900)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    async with fake.running(make_app(fake, service)):
        await users[0].send(group, "/newgame here")
        [first] = open_games(service, group, None)
        await users[1].send(group, "/newgame zone")
        [created] = fake.calls("createForumTopic", ok=True)
        topic = int(created.result["message_thread_id"])
        [second] = open_games(service, group, topic)
        assert open_games(service, group, None) == [first]
        assert fake.topic(group, topic).name == f"Kolkhoz #{second} — Zone (36 cards)"
        assert service.game_info(second).meta[TOPIC_OWN_KEY] is True
        lobby = lobby_in(fake, group, topic)
        await users[2].tap(lobby, lobby.buttons[0][0].text)
        assert len(service.game_info(second).seats) == 2
        assert any(f"Game #{second} has a topic of its own" in t
                   for t in bot_texts(fake, group, None))

        fake.fail("createForumTopic", status=400, times=5,
                  description="Bad Request: TOPICS_TOO_MUCH")
        await users[2].send(group, "/newgame")
        assert open_games(service, group, None) == [first]
        assert len(service.games_in_chat(group.id, all_topics=True)) == 2
        assert "I could not open a topic for a new one" in bot_texts(fake, group, None)[-1]


async def test_lobby_buttons_in_a_topic_work_on_a_message_too_old_to_be_seen(
    fake: FakeTelegram, service: GameService
) -> None:
    """After about two days Telegram sends a tapped message as an InaccessibleMessage (chat
    and id only, no topic): the lobby's buttons in a forum topic still work, found by the
    game the button names; only the chat is checked then."""
    users = people(fake, 3000)
    group = fake.create_group("Forum", users, forum=True)
    other = fake.create_group("Elsewhere", users, forum=True)
    async with fake.running(make_app(fake, service)):
        topic = fake.create_topic(group, "Table", by=users[0])
        await users[0].send(group, "/newgame", topic=topic)
        [game] = service.games_in_chat(group.id, topic)
        lobby = lobby_in(fake, group, topic)
        join = lobby.buttons[0][0].data
        assert join is not None
        answer = await users[1].tap(lobby, join, inaccessible=True)
        assert answer is None or not answer.show_alert, answer
        assert len(service.game_info(game.id).seats) == 2
        players_button = next(b.data for row in lobby.buttons for b in row
                              if b.data and b.data.endswith(":players"))
        assert players_button is not None
        before = service.game_info(game.id).players
        answer = await users[0].tap(fake.message(group, lobby.message_id), players_button,
                                    inaccessible=True)
        assert answer is None or not answer.show_alert, answer
        assert service.game_info(game.id).players != before
        # The same button data from another chat's old message is still refused.
        await users[2].send(other, "/help")
        foreign = fake.last_message(other)
        assert foreign is not None
        answer = await users[2].tap(foreign, join, force=True, inaccessible=True)
        assert answer is not None and answer.text == "That button belongs to another chat."
        assert len(service.game_info(game.id).seats) == 2
    fake.assert_all_callbacks_answered()


async def moves_until(service: GameService, game_id: int, users: list[FakeUser],
                      kind: str) -> None:
    """Moves through the service alone (the bot is down) until a notification of ``kind``
    waits in the outbox."""
    for _ in range(1000):
        if any(n.kind.value == kind for n in service.pending_notifications(
                10_000, game_id=game_id)):
            return
        move_without_the_bot(service, game_id, users)
    raise AssertionError(f"no {kind} notification")


@pytest.mark.parametrize("general_taken", [False, True])
async def test_a_year_summary_for_a_deleted_topic_goes_to_general(
    fake: FakeTelegram, service: GameService, general_taken: bool
) -> None:
    """The topic is deleted while the bot is down, with a year's summary still owed: the
    summary is posted in "General" (where the game moved; under the game's name when
    "General" has a game of its own), not dropped with the board."""
    users = people(fake, 3100 if general_taken else 3150)
    others = people(fake, 3200 if general_taken else 3250)
    group = fake.create_group("Forum", users + others, forum=True)
    first = make_app(fake, service)
    async with fake.running(first):
        topic = fake.create_topic(group, "Table", by=users[0])
        game_id = await open_game_in(fake, users, group, topic)
        if general_taken:
            await others[0].send(group, "/newgame here")
    await shutdown(first)
    await moves_until(service, game_id, users, "year_summary")
    fake.delete_topic(group, topic)
    app = make_app(fake, service)
    async with fake.running(app):
        await relay_of(app).drain()
        await fake.wait_idle()
        info = service.game_info(game_id)
        assert info.status == "paused" and info.meta[TOPIC_LOST_KEY] == topic
        assert info.topic_id == (topic if general_taken else None)
        general = bot_texts(fake, group, None)
        summaries = [t for t in general if "Year 1: the plan's results" in t]
        assert len(summaries) == 1, general
        if general_taken:
            assert summaries[0].startswith(f"Kolkhoz #{game_id} — Classic\nYear 1")
        else:
            assert summaries[0].startswith("Year 1")
        assert service.outbox_backlog() == 0


async def test_the_final_table_for_a_deleted_topic_goes_to_general(
    fake: FakeTelegram, service: GameService
) -> None:
    users = people(fake, 3300)
    group = fake.create_group("Forum", users, forum=True)
    first = make_app(fake, service)
    async with fake.running(first):
        topic = fake.create_topic(group, "Table", by=users[0])
        game_id = await open_game_in(fake, users, group, topic)
    await shutdown(first)
    while service.game_info(game_id).status == "active":
        move_without_the_bot(service, game_id, users)
    fake.delete_topic(group, topic)
    app = make_app(fake, service)
    async with fake.running(app):
        await relay_of(app).drain()
        await fake.wait_idle()
        info = service.game_info(game_id)
        assert info.status == "finished" and info.topic_id is None
        general = bot_texts(fake, group, None)
        assert sum("five-year plan is complete" in t for t in general) == 1, general
        assert sum("Year 5: the plan's results" in t for t in general) == 1, general
        assert fake.message(group, info.meta["board"]).thread_id is None
        assert service.outbox_backlog() == 0


async def test_a_lobbys_stand_in_button_keeps_to_the_chat_settings_rule(
    fake: FakeTelegram, service: GameService
) -> None:
    """The lobby's stand-in level is the whole chat's setting, as with /settings bots: the
    creator of one topic's lobby may not change it while another topic's game is open."""
    table_a, table_b = people(fake, 3450), people(fake, 3460)
    admin = table_a[3]
    group = fake.create_group("Forum", table_a + table_b, forum=True, creator=admin)
    async with fake.running(make_app(fake, service)):
        topics = [fake.create_topic(group, name, by=table_a[0]) for name in ("A", "B")]
        await open_game_in(fake, table_a, group, topics[0])
        await table_b[0].start_bot()
        await table_b[0].send(group, "/newgame", topic=topics[1])
        lobby = lobby_in(fake, group, topics[1])
        data = next(d for d in lobby.callback_data if d.endswith(":standin"))
        level = service.chat_ai_level(group.id)
        answer = await table_b[0].tap(lobby, data.replace(":standin", ":standin.hard"),
                                      force=True)
        assert answer is not None and answer.show_alert
        assert "only the chat's admins" in (answer.text or "")
        assert service.chat_ai_level(group.id) == level != "hard"
        answer = await admin.tap(lobby, data.replace(":standin", ":standin.hard"), force=True)
        assert answer is not None and not answer.show_alert
        assert service.chat_ai_level(group.id) == "hard"


async def test_the_board_style_of_a_forum_with_several_games_is_the_admins(
    fake: FakeTelegram, service: GameService
) -> None:
    """/settings board (and bots) changes every game of the chat: with other games open
    there, a game's creator may not change it alone; an admin may, and every board follows
    at once."""
    table_a, table_b = people(fake, 3400), people(fake, 3410)
    admin = table_b[3]
    group = fake.create_group("Forum", table_a + table_b, forum=True, creator=admin)
    async with fake.running(make_app(fake, service)):
        topics = [fake.create_topic(group, name, by=table_a[0]) for name in ("A", "B")]
        games = [await open_game_in(fake, table, group, topic)
                 for table, topic in zip((table_a, table_b), topics, strict=True)]
        for command in ("/settings board picture", "/settings bots hard"):
            await table_a[0].send(group, command, topic=topics[0])  # game A's creator
            assert "only the chat's admins may change it" in bot_texts(
                fake, group, topics[0])[-1]
        assert service.chat_ai_level(group.id) != "hard"
        for game_id in games:
            board = fake.message(group, service.game_info(game_id).meta["board"])
            assert "photo" not in board.extra
        await admin.send(group, "/settings board picture", topic=topics[1])
        for game_id, topic in zip(games, topics, strict=True):
            board = fake.message(group, service.game_info(game_id).meta["board"])
            assert "photo" in board.extra and board.thread_id == topic
        await admin.send(group, "/settings bots hard", topic=topics[1])
        assert service.chat_ai_level(group.id) == "hard"
