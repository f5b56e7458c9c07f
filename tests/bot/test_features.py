"""The lobby, commands, inline mode, language and Telegram's quirks, on the fake Telegram."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

import pytest

from kolkhoz_tg.bot.app import DEPS_KEY, startup
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app, quick_pace
from tests.bot.driver import (
    NAMES,
    LeakScanner,
    action_buttons,
    open_game,
    open_lobby,
    players,
    tap_any_action,
)
from tests.faketg import FakeTelegram, FakeUser


def lobby_button(msg, suffix: str) -> str:  # type: ignore[no-untyped-def]
    return next(b.text for row in msg.buttons for b in row if b.data and b.data.endswith(suffix))


def _data(msg, suffix: str) -> str:  # type: ignore[no-untyped-def]
    return next(b.data for row in msg.buttons for b in row if b.data and b.data.endswith(suffix))


async def test_lobby_buttons_set_rules_seats_time_and_medals(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=1100)
    group = fake.create_group("Lobby", users)
    async with fake.running(make_app(fake, service)):
        lobby, game_id = await open_lobby(fake, service, users[0], group)
        await users[0].tap(lobby, lobby_button(lobby, ":rules"))
        await users[0].tap(fake.message(group, lobby.message_id), "Original")
        assert service.game_info(game_id).preset == "original"
        await users[0].tap(fake.message(group, lobby.message_id),
                           lobby_button(fake.message(group, lobby.message_id), ":players"))
        assert service.game_info(game_id).players == 5
        msg = fake.message(group, lobby.message_id)
        await users[0].tap(msg, lobby_button(msg, ":medals"))
        assert service.game_info(game_id).rules.medals_score is True
        msg = fake.message(group, lobby.message_id)
        await users[0].tap(msg, lobby_button(msg, ":timeout"))  # a menu of the times
        await users[0].tap(fake.message(group, lobby.message_id), "3 days")
        assert service.game_info(game_id).turn_timeout == 3 * 86400
        # Only the creator changes the rules; anyone may join or add a bot.
        msg = fake.message(group, lobby.message_id)
        answer = await users[1].tap(msg, lobby_button(msg, ":rules"))
        assert answer is not None and answer.show_alert
        await users[1].tap(fake.message(group, lobby.message_id), "Join")
        msg = fake.message(group, lobby.message_id)
        await users[1].tap(msg, "+ Bot")
        await users[1].tap(fake.message(group, lobby.message_id), "Strong")
        msg = fake.message(group, lobby.message_id)
        assert "Boris" in (msg.text or "") and "Bot 1 (strong)" in (msg.text or "")
        await users[0].send(group, "/settings players 3")  # three seats taken: fine
        assert service.game_info(game_id).players == 3
        await users[0].start_bot()
        await users[1].start_bot()
        await users[0].tap(fake.message(group, lobby.message_id), "Start ▶")
        assert service.game_info(game_id).status == "active"
        board = fake.message(group, lobby.message_id)
        assert "0/36" in (board.text or "")  # the original rules' threshold
        assert all(not (b.data or "").startswith("l:") for row in board.buttons for b in row)


async def test_a_lobby_button_tapped_twice_acts_once(
    fake: FakeTelegram, service: GameService
) -> None:
    """Two taps on the same drawing of a button (a double tap, two devices): "+ Bot →
    Normal" seats one bot, "Players" moves on one step, "Medals" stays on; the second tap
    is told to look again. (A time per move is picked from a menu: twice is once.)"""
    users = players(fake, base=1150)
    group = fake.create_group("Double", users)
    async with fake.running(make_app(fake, service)):
        lobby, game_id = await open_lobby(fake, service, users[0], group)
        await users[0].tap(lobby, "+ Bot")
        menu = fake.message(group, lobby.message_id)
        normal = _data(menu, "bot.normal")
        for _ in range(2):
            answer = await users[0].tap(menu, normal, force=True)
        assert answer is not None and answer.show_alert and "look again" in (answer.text or "")
        assert len(service.game_info(game_id).seats) == 2
        for suffix in (":players", ":medals"):
            msg = fake.message(group, lobby.message_id)
            data = _data(msg, suffix)
            before = service.game_info(game_id)
            first = await users[0].tap(msg, data, force=True)
            assert first is not None and not first.show_alert
            after = service.game_info(game_id)
            second = await users[0].tap(msg, data, force=True)
            assert second is not None and second.show_alert, suffix
            again = service.game_info(game_id)
            assert (again.players, again.rules, again.turn_timeout) == (
                after.players, after.rules, after.turn_timeout) != (
                before.players, before.rules, before.turn_timeout)


async def test_commands_for_the_group(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, base=1200)
    group = fake.create_group("Commands", users, admins=[users[3]])
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        while not service.board(game_id).view.last_trick:  # type: ignore[index]
            assert await tap_any_action(users)
        board_id = service.game_info(game_id).meta["board"]
        await users[1].send(group, "/board")
        new_board = service.game_info(game_id).meta["board"]
        assert new_board != board_id and fake.message(group, board_id).deleted
        await users[1].send(group, "/last")
        assert "Last trick" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await users[1].send(group, "/score")
        assert "face-down" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await users[1].send(group, "/hand")
        assert "private chat" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        # /pause by someone who is neither the creator nor an admin is refused.
        await users[1].send(group, "/pause")
        assert service.game_info(game_id).status == "active"
        await users[3].send(group, "/pause")  # an admin
        assert service.game_info(game_id).status == "paused"
        await users[0].send(group, "/resume")
        assert service.game_info(game_id).status == "active"
        # /kick: the creator hands a seat to a bot; the player takes it back with /back.
        await users[0].send(group, "/kick 3")
        assert service.game_info(game_id).seats[2].standin
        await users[2].send(None, "/back")
        assert not service.game_info(game_id).seats[2].standin
        await users[1].send(group, "/abort")
        assert service.game_info(game_id).status == "active"
        await users[0].send(group, "/abort")
        confirm = fake.last_message(group)
        assert confirm is not None
        await users[0].tap(confirm, "Yes, call it off")
        assert service.game_info(game_id).status == "aborted"


async def test_languages_menus_help_and_rules(fake: FakeTelegram, service: GameService) -> None:
    ru = fake.user(1300, "Анна", language_code="ru")
    en = fake.user(1301, "Ben", language_code="en-GB")
    group = fake.create_group("Языки", [ru, en])
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        for lang in ("ru", "en"):
            assert fake.my_commands({"type": "all_group_chats"}, lang)
            assert fake.my_commands({"type": "all_private_chats"}, lang)
        menu = [c["command"] for c in fake.visible_commands(en, group)]
        assert "newgame" in menu
        await en.start_bot()
        assert "Kolkhoz" in (en.last_message().text or "")  # type: ignore[union-attr]
        await ru.start_bot()
        assert "Колхоз" in (ru.last_message().text or "")  # type: ignore[union-attr]
        await ru.send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None and "Вступить" in lobby.button_texts
        before = len(fake.messages(en))
        await en.send(None, "/rules")  # one message: the chapters as buttons
        [rules] = fake.messages(en)[before + 1:]
        assert "Requisition in detail" in rules.button_texts
        await en.tap(rules, "Roles")
        assert "Brigadier" in (fake.message(en, rules.message_id).text or "")
        await ru.send(group, "/rules")  # in the group: the brief rules and a link to the rest
        brief = fake.last_message(group)
        assert brief is not None and "бригадир" in (brief.text or "").lower()
        link = next(b.url for row in brief.buttons for b in row if b.url)
        assert link.endswith("start=rules")
        await ru.open_link(link)
        contents = ru.last_message()
        assert contents is not None and "Реквизиция подробно" in contents.button_texts
        await ru.send(None, "/lang en")
        await ru.send(None, "/help")
        assert "/newgame" in (ru.last_message().text or "")  # type: ignore[union-attr]
        assert service.user(ru.id).locale == "en"  # type: ignore[union-attr]
        await en.send(group, "/lang en")  # not an admin, not the creator
        assert service.chat(group.id).locale == "ru"  # type: ignore[union-attr]


async def test_inline_mode_offers_the_players_moves(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=1400)
    group = fake.create_group("Inline", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        scanner = LeakScanner(fake, service, group, users)
        for _ in range(8):
            actor = next(u for u in users if service.seat_view(game_id, u.id).to_act)
            answer = await actor.inline_query(f"g{game_id} ")
            assert answer is not None and answer.results
            assert answer.params.get("is_personal") and answer.params.get("cache_time") == 0
            legal = service.seat_view(game_id, actor.id).legal
            assert len(answer.results) == len([a for a in legal if not a.startswith("swap")])
            version = service.game_info(game_id).version
            chosen = answer.results[0]["id"]
            msg = await actor.choose_inline_result(answer, chosen, group)
            assert service.game_info(game_id).version > version
            assert "✅" in (fake.message(group, msg.message_id).text or "")
            scanner.scan(game_id)
            # Someone else's query shows nothing of this player's hand.
            other = next(u for u in users if not service.seat_view(game_id, u.id).to_act)
            answer = await other.inline_query("")
            assert answer is not None and not answer.results
        assert not scanner.leaks


async def test_floods_are_survived(
    fake: FakeTelegram, service: GameService, clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    users = players(fake, base=1500)
    group = fake.create_group("Blocked", users)
    app = make_app(fake, service, rate_limiter=True)
    quick_pace(app)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        # Telegram says "retry after" twice. The rate limiter does not hold every call of
        # the process for it: the game's messages wait for that chat's wait to be over,
        # and the outbox relay sends them then.
        fake.flood("editMessageText", times=2, retry_after=1, groups_only=True)
        version = service.game_info(game_id).version
        assert await tap_any_action(users)
        assert all(c.error_code == 429 for c in fake.calls("editMessageText", ok=False))
        assert fake.calls("editMessageText", ok=False)
        relay = app.bot_data[DEPS_KEY].relay
        for _ in range(4):  # (the outbox's back-off grows: 2 s, 4 s …)
            clock.advance(timedelta(seconds=30))
            await relay.drain()
        board = fake.message(group, service.game_info(game_id).meta["board"])
        assert service.outbox_backlog() == 0 and board.edits
        assert service.game_info(game_id).version > version
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_blocked_player_is_mentioned_in_the_group(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=1520)
    group = fake.create_group("Blocked", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        # A player blocks the bot; when their turn comes, the group gets one mention.
        target = next(u for u in users if not service.seat_view(game_id, u.id).to_act)
        await target.block_bot()
        others = [u for u in users if u is not target]
        while not service.seat_view(game_id, target.id).to_act:
            assert await tap_any_action(others)
        # The blocked player's turn has come: they are mentioned once, with a deep link.
        mentions = [m for m in fake.messages(group) if "it is your move" in (m.text or "")]
        assert len(mentions) >= 1, [
            (c.method, c.ok, c.description) for c in fake.sent_log
            if str(c.params.get("chat_id")) == str(target.id)][-5:]
        assert not service.user(target.id).can_pm  # type: ignore[union-attr]


async def _tap_in(fake: FakeTelegram, users: list[FakeUser], game_id: int) -> None:
    """Someone with a move in ``game_id`` taps its first button."""
    for user in users:
        for message in reversed(fake.messages(user.id)):
            data = [d for d in action_buttons(message) if Callback.decode(d).game_id == game_id]
            if data:
                await user.tap(message, data[0])
                return
    raise AssertionError(f"nobody has a move in game {game_id}")


async def test_one_chats_flood_control_holds_no_other_chat(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """A 429 with a long wait for one group's board: the tap is answered and the other
    group's game goes on at once (PTB's limiter, asked to retry, would hold every call of
    the process for the whole wait); the first board catches up after its wait."""
    users = players(fake, base=1550)
    groups = [fake.create_group(name, users) for name in ("Flooded", "Calm")]
    app = make_app(fake, service, rate_limiter=True)
    quick_pace(app)
    async with fake.running(app):
        flooded, calm = [await open_game(fake, users, group) for group in groups]
        fake.flood("editMessageText", times=1, retry_after=60, groups_only=True)
        await asyncio.wait_for(_tap_in(fake, users, flooded), 20)
        (refused,) = fake.calls("editMessageText", ok=False)
        assert refused.error_code == 429
        assert str(refused.params["chat_id"]) == str(groups[0].id)
        version = service.game_info(calm).version
        edits = len(fake.calls("editMessageText", ok=True))
        await asyncio.wait_for(_tap_in(fake, users, calm), 20)
        assert service.game_info(calm).version > version
        assert len(fake.calls("editMessageText", ok=True)) > edits
        assert service.outbox_backlog() > 0  # the flooded game's, waiting
        clock.advance(timedelta(seconds=120))
        await app.bot_data[DEPS_KEY].relay.drain()
        assert service.outbox_backlog() == 0


async def test_a_group_upgraded_to_a_supergroup_keeps_its_game(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=1600)
    group = fake.create_group("Upgrade", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(5):
            assert await tap_any_action(users)
        supergroup = fake.migrate_to_supergroup(group)
        await fake.wait_idle()
        assert service.game_info(game_id).chat_id == supergroup.id
        for _ in range(10):
            assert await tap_any_action(users)
        board = fake.message(supergroup, service.game_info(game_id).meta["board"])
        assert "Plowing" in (board.text or "")
        await users[1].send(supergroup, "/last")
        assert fake.last_message(supergroup) is not None


async def test_a_group_upgraded_to_a_supergroup_keeps_its_ratings(
    fake: FakeTelegram, service: GameService
) -> None:
    """The ratings are cached per chat: after the upgrade, /stats in the supergroup shows
    the group's table at once (its games moved along), not an empty one."""
    users = players(fake, base=1650)
    group = fake.create_group("Rated", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        while await tap_any_action(users):
            pass
        assert service.game_info(game_id).status == "finished"
        await users[1].send(group, "/stats")
        before = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert all(n in before for n in NAMES) and "1 game" in before
        supergroup = fake.migrate_to_supergroup(group)
        await fake.wait_idle()
        await users[1].send(supergroup, "/stats")
        after = fake.last_message(supergroup).text or ""  # type: ignore[union-attr]
        assert "No rated games here yet" not in after
        assert all(n in after for n in NAMES) and "1 game" in after


async def test_stats_and_the_log_of_a_finished_game(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=1700)
    group = fake.create_group("Stats", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        await users[0].send(group, "/log")
        assert "No finished game" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await users[0].send(group, f"/log {game_id}")  # a game in play: its log would tell cards
        assert "once the game is over" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        while await tap_any_action(users):
            pass
        assert service.game_info(game_id).status == "finished"
        await users[1].send(group, "/stats")
        stats = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert all(n in stats for n in NAMES) and "1 game" in stats
        await users[1].send(group, "/log")
        # In the group a short summary; its button opens the full log in private.
        summary = fake.last_message(group)
        assert summary is not None and "The full log" in summary.button_texts[0]
        before = len(fake.messages(users[1]))
        await users[1].open_button(summary, summary.button_texts[0])
        parts = fake.messages(users[1])[before:]
        text = "\n".join(m.text or "" for m in parts)
        assert "The log of game" in text and "Year 5 is over" in text
        assert all(len(m.text or "") <= 4096 for m in parts)


async def test_stats_and_log_in_russian(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, lang="ru", base=1800)
    group = fake.create_group("Статистика", users)
    async with fake.running(make_app(fake, service)):
        await open_game(fake, users, group)
        while await tap_any_action(users):
            pass
        await users[0].send(group, "/stats")
        stats = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert "1 партия" in stats and "«Колхоз» в этом чате" in stats
        await users[0].send(group, "/log")
        summary = fake.last_message(group)
        assert summary is not None and summary.buttons
        before = len(fake.messages(users[0]))
        await users[0].open_button(summary, summary.buttons[0][0].text)
        text = "\n".join(m.text or "" for m in fake.messages(users[0])[before:])
        assert "Журнал партии" in text and "Начинается год 1." in text


async def test_stats_rates_players_and_bots_per_level(
    fake: FakeTelegram, service: GameService
) -> None:
    """After a finished game with a bot: the group's rating table (the bot's level a row of
    its own), a player's own lines in private, and /stats me in the group."""
    users = players(fake, base=1750)[:3]
    group = fake.create_group("Ratings", users)
    async with fake.running(make_app(fake, service)):
        for u in users:
            await u.start_bot()
        await users[1].send(group, "/stats")
        assert "No rated games here yet" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await users[0].send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), "Join")
        await users[0].tap(fake.message(group, lobby.message_id), "+ Bot")
        await users[0].tap(fake.message(group, lobby.message_id), "Normal")
        await users[0].tap(fake.message(group, lobby.message_id), "Start ▶")
        game_id = service.games_in_chat(group.id)[0].id
        while await tap_any_action(users):
            pass
        assert service.game_info(game_id).status == "finished"
        await users[1].send(group, "/stats")
        table = (fake.last_message(group).text or "").splitlines()  # type: ignore[union-attr]
        assert table[0] == "📊 Kolkhoz in this chat"
        rows = [line for line in table if line[:1].isdigit()]
        assert len(rows) == 4 and sum("🤖 Bot · Normal: rating " in r for r in rows) == 1
        assert all("1 game" in r and "average place" in r for r in rows)
        assert all(any(f". {n}: rating " in r for r in rows) for n in NAMES[:3])
        # In private: the player's own lines (over all chats, then this group).
        await users[0].send(None, "/stats")
        mine = fake.messages(users[0])[-1].text or ""
        assert "Your ratings" in mine and "All chats: rating " in mine
        assert "Ratings: rating " in mine and "Boris" not in mine
        await users[2].send(group, "/stats me")
        me = fake.last_message(group).text or ""  # type: ignore[union-attr]
        assert "Vera's ratings" in me and "All chats:" in me and "Ratings:" in me


async def test_stats_in_private_in_russian(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, lang="ru", base=1850)
    group = fake.create_group("Рейтинг", users)
    async with fake.running(make_app(fake, service)):
        await users[0].start_bot()
        await users[0].send(None, "/stats")
        assert "пока нет рейтинговых партий" in (fake.messages(users[0])[-1].text or "")
        await open_game(fake, users, group)
        while await tap_any_action(users):
            pass
        await users[0].send(None, "/stats")
        mine = fake.messages(users[0])[-1].text or ""
        assert "Ваш рейтинг" in mine and "Все чаты: рейтинг " in mine
        assert "1 партия" in mine and "среднее место" in mine


async def test_lang_in_a_group_is_not_the_creators_while_other_peoples_games_are_open(
    fake: FakeTelegram, service: GameService
) -> None:
    """/lang changes the whole chat: the creator of one open game may not switch it while
    someone else's game is open in another topic; an admin may."""
    users = players(fake, base=1500)
    anna, boris = users[0], users[1]
    forum = fake.create_group("Two games", users, supergroup=True, forum=True,
                              creator=users[3])
    async with fake.running(make_app(fake, service)):
        general_topic, other_topic = fake.create_topic(forum, "One"), fake.create_topic(
            forum, "Two")
        await anna.send(forum, "/newgame", topic=general_topic)
        await boris.send(forum, "/newgame", topic=other_topic)
        assert len(service.games_in_chat(forum.id, all_topics=True)) == 2
        await anna.send(forum, "/lang ru", topic=general_topic)
        assert service.chat(forum.id).locale != "ru"  # type: ignore[union-attr]
        await users[3].send(forum, "/lang ru", topic=general_topic)  # an admin may
        assert service.chat(forum.id).locale == "ru"  # type: ignore[union-attr]
