"""A topic per game in the private chat (Bot API 9.4, the bot's topic mode on in
@BotFather): a player seated in three games at once reads each game's private messages in
its own topic, "Kolkhoz #12 · Dacha", made when the game first writes to them; what
belongs to no game stays in the plain chat. The fallbacks: topic mode off, a server older
than 9.4 (no topic in a private chat), a topic the player deleted."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from telegram.ext import Application

from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.delivery.private_topics import pm_topic_key
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, start_with_bots
from tests.faketg import FakeTelegram, FakeUser, StoredMessage

App = Application[Any, Any, Any, Any, Any, Any]
GROUPS = ("Dacha", "Office", "Friday cards")


def from_bot(fake: FakeTelegram, user: FakeUser) -> list[StoredMessage]:
    return [m for m in user.private_messages() if m.from_id == fake.bot_id and not m.deleted]


def of_group(fake: FakeTelegram, user: FakeUser, title: str) -> list[StoredMessage]:
    """The bot's private messages to ``user`` about the game in the group ``title``."""
    return [m for m in from_bot(fake, user)
            if f'"{title}"' in (m.text or "") or f"«{title}»" in (m.text or "")]


async def three_games(
    fake: FakeTelegram, service: GameService, app: App, user: FakeUser
) -> list[int]:
    """``user`` and three computer players at a game in each of three groups, all running."""
    games = []
    for title in GROUPS:
        group = fake.create_group(title, [user], supergroup=True)
        service.ensure_chat(group.id, title)  # as /newgame in the group does
        games.append(await start_with_bots(app, service, [user], group, bots=3, seed=7))
    return games


def topic_names(fake: FakeTelegram, user: FakeUser) -> dict[int, str]:
    return {int(c.result["message_thread_id"]): c.params["name"]
            for c in fake.calls("createForumTopic", ok=True)
            if int(c.params["chat_id"]) == user.id}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_each_game_writes_in_its_own_private_topic(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    fake.private_topics = True
    anna = fake.user(8100, "Anna", language_code=lang)
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        welcome = from_bot(fake, anna)
        games = await three_games(fake, service, app, anna)
        names = topic_names(fake, anna)
        word = "Kolkhoz #" if lang == "en" else "Колхоз № "
        assert sorted(names.values()) == sorted(
            f"{word}{g} · {t}" for g, t in zip(games, GROUPS, strict=True))
        topic_of = {t: next(k for k, n in names.items() if n.endswith(t)) for t in GROUPS}
        for game_id, title in zip(games, GROUPS, strict=True):
            meta = service.game_info(game_id).meta
            assert meta[pm_topic_key(anna.id)] == topic_of[title]
            mine = of_group(fake, anna, title)
            assert mine and all(m.thread_id == topic_of[title] for m in mine), title
            # Her hand (the message with her moves) is there too.
            hand = fake.message(anna.id, int(meta[f"pm:{anna.id}"]))
            assert hand.thread_id == topic_of[title]
        # What belongs to no game stayed in the plain chat.
        assert welcome and all(m.thread_id is None for m in welcome)
        # /mygames typed in a game's topic is answered there; its hand button sends that
        # game's hand anew into the game's own topic, wherever the list is.
        dacha = topic_of["Dacha"]
        await anna.send(None, "/mygames", topic=dacha)
        listing = from_bot(fake, anna)[-1]
        assert listing.thread_id == dacha
        resend = [b.data for row in listing.buttons for b in row
                  if b.data and b.data.endswith(":resend")]
        assert len(resend) == 3
        office = next(d for d in resend if int(d.split(":")[1], 36) == games[1])
        await anna.tap(listing, office)
        hand = from_bot(fake, anna)[-1]
        assert hand.thread_id == topic_of["Office"] and action_buttons(hand)
        assert hand in of_group(fake, anna, "Office")
        # A view button there (the board, in private) answers in the same topic.
        views = [b.data for row in hand.buttons for b in row
                 if b.data and b.data.startswith("v:") and b.data.endswith(":board")]
        assert views, hand.buttons
        await anna.tap(hand, views[0])
        board = from_bot(fake, anna)[-1]
        assert board.thread_id == topic_of["Office"] and board.message_id > hand.message_id
        pictures = [b.data for row in hand.buttons for b in row
                    if b.data and b.data.startswith("v:") and b.data.endswith(":hand")]
        await anna.tap(hand, pictures[0])  # her cards as a picture
        photo = from_bot(fake, anna)[-1]
        assert "photo" in photo.extra and photo.thread_id == topic_of["Office"]
        # No topic is made twice for one game.
        assert len(topic_names(fake, anna)) == 3


@pytest.mark.parametrize("server", ["topics off", "older than 9.4"])
async def test_without_private_topics_the_plain_chat_as_before(
    fake: FakeTelegram, service: GameService, server: str, caplog: pytest.LogCaptureFixture
) -> None:
    fake.private_topics = server != "topics off"
    if server == "older than 9.4":
        fake.bot_api = (9, 3)  # getMe says topics are on; createForumTopic refuses
    vera = fake.user(8200, "Vera", language_code="ru")
    app = make_app(fake, service)
    with caplog.at_level(logging.INFO, "kolkhoz_tg.bot.delivery.private_topics"):
        async with fake.running(app):
            await vera.start_bot()
            games = await three_games(fake, service, app, vera)
            for title in GROUPS:
                mine = of_group(fake, vera, title)
                assert mine and all(m.thread_id is None for m in mine)
            for game_id in games:
                assert pm_topic_key(vera.id) not in service.game_info(game_id).meta
    tried = fake.calls("createForumTopic")
    if server == "topics off":
        assert tried == [] and not caplog.records
    else:
        # Tried once, refused, not tried again; one log line, no traceback.
        assert len(tried) == 1 and not tried[0].ok
        assert len(caplog.records) == 1 and caplog.records[0].exc_info is None


async def test_a_deleted_topic_leaves_that_game_in_the_plain_chat(
    fake: FakeTelegram, service: GameService
) -> None:
    fake.private_topics = True
    anna = fake.user(8300, "Anna", language_code="en")
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        games = await three_games(fake, service, app, anna)
        topics = {g: int(service.game_info(g).meta[pm_topic_key(anna.id)]) for g in games}
        fake.delete_topic(anna.id, topics[games[0]])
        # Her hand of the first game is gone with the topic: she asks for it anew.
        await app.bot_data[DEPS_KEY].deliverer.refresh_private(games[0], anna.id, new=True)
        hand = from_bot(fake, anna)[-1]
        assert hand in of_group(fake, anna, "Dacha") and hand.thread_id is None
        assert action_buttons(hand)
        assert service.game_info(games[0]).meta[pm_topic_key(anna.id)] == 0
        # Not made again for that game; the other games keep theirs.
        await app.bot_data[DEPS_KEY].deliverer.refresh_private(games[0], anna.id, new=True)
        assert from_bot(fake, anna)[-1].thread_id is None
        await app.bot_data[DEPS_KEY].deliverer.refresh_private(games[1], anna.id, new=True)
        assert from_bot(fake, anna)[-1].thread_id == topics[games[1]]
        assert len(fake.calls("createForumTopic")) == 3


async def test_a_group_out_of_reach_is_told_in_the_games_topic(
    fake: FakeTelegram, service: GameService
) -> None:
    """The bot removed from one group: the player hears it in that game's topic."""
    fake.private_topics = True
    anna = fake.user(8400, "Anna", language_code="en")
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        games = await three_games(fake, service, app, anna)
        topic = int(service.game_info(games[2]).meta[pm_topic_key(anna.id)])
        group = fake.chat(service.game_info(games[2]).chat_id)
        await fake.remove_bot(group, by=anna)
        told = from_bot(fake, anna)[-1]
        assert 'I was removed from "Friday cards"' in (told.text or "")
        assert told.thread_id == topic


async def test_one_players_refusal_leaves_the_others_their_topics(
    fake: FakeTelegram, service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    """A topic refused in one player's chat sends that player's games to the plain chat and
    no more tries for them; other players keep getting topics. Only when the chats of
    REFUSALS_TO_STOP players refused does the bot stop trying for everyone."""
    fake.private_topics = True
    users = [fake.user(8400 + i, name, language_code="en")
             for i, name in enumerate(("Anna", "Boris", "Vera", "Gleb", "Dasha"))]
    app = make_app(fake, service)
    with caplog.at_level(logging.INFO, "kolkhoz_tg.bot.delivery.private_topics"):
        async with fake.running(app):
            for user in users:
                await user.start_bot()
            fake.fail("createForumTopic", 400, description="Bad Request: TOPIC_NOT_ALLOWED")
            anna_games = await three_games(fake, service, app, users[0])
            assert all(m.thread_id is None for m in from_bot(fake, users[0])[1:])
            assert len(fake.calls("createForumTopic")) == 1  # not tried again for her
            group = fake.create_group("Boris's", [users[1]], supergroup=True)
            service.ensure_chat(group.id, "Boris's")
            boris_game = await start_with_bots(app, service, [users[1]], group, bots=3, seed=3)
            assert service.game_info(boris_game).meta[pm_topic_key(users[1].id)] > 0
            assert all(pm_topic_key(users[0].id) not in service.game_info(g).meta
                       for g in anna_games)
            # Two more players' chats refuse: three in all, and nobody is tried after that.
            fake.fail("createForumTopic", 400, description="Bad Request: TOPIC_NOT_ALLOWED",
                      times=2)
            for user in users[2:]:
                group = fake.create_group(f"{user.first_name}'s", [user], supergroup=True)
                service.ensure_chat(group.id, group.title)
                await start_with_bots(app, service, [user], group, bots=3, seed=4)
    tried = fake.calls("createForumTopic")
    assert len(tried) == 4 and [c.ok for c in tried] == [False, True, False, False]
    assert all(m.thread_id is None for m in from_bot(fake, users[4]))
    assert [r.exc_info for r in caplog.records] == [None, None, None]
    assert "no topics in private chats here" in caplog.records[-1].getMessage()
