"""The bot removed from a group and added back (``my_chat_member``): the group's running
game pauses, so that no deadline plays it out unseen, its players hear why in private, and
the game goes on when the bot is back."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from kolkhoz_tg.bot.delivery import ABSENT_KEY
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import NAMES, action_buttons, group_texts, open_game, tap_any_action
from tests.faketg import FakeTelegram


async def test_removed_bot_pauses_the_game_and_resumes_it_when_added_back(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    # Vera reads Russian; the others English.
    users = [fake.user(1100 + i, n, language_code="ru" if n == "Vera" else "en")
             for i, n in enumerate(NAMES)]
    group = fake.create_group("Kicked", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(6):
            assert await tap_any_action(users)
        waiting = [u for u in users if service.seat_view(game_id, u.id).to_act]
        # A player who blocked the bot cannot be told anything privately.
        blocked = next(u for u in users if u not in waiting)
        await blocked.block_bot()
        log = service.action_log(game_id)
        calls = len(fake.sent_log)

        await fake.remove_bot(group, by=users[0])
        info = service.game_info(game_id)
        assert info.status == "paused" and info.deadline is None and info.meta[ABSENT_KEY]
        for u in users:
            if u is blocked:
                continue
            last = u.last_message()
            assert last is not None
            text = last.text or ""
            if u.first_name == "Vera":
                assert "удалили из группы «Kicked»" in text
            else:
                assert 'I was removed from "Kicked"' in text
        to_blocked = [c for c in fake.sent_log[calls:] if c.params.get("chat_id") == blocked.id]
        assert not to_blocked

        # Days go by: no deadline plays the paused game.
        clock.advance(timedelta(days=5))
        assert service.due_game_ids() == []
        assert (await asyncio.to_thread(service.process_due, game_id)).notifications == []
        assert (await asyncio.to_thread(service.sweep)).notifications == []
        assert service.action_log(game_id) == log

        # Someone adds the bot back: the game goes on, with a note in the group.
        await fake.add_ai_player(group, by=users[1])
        info = service.game_info(game_id)
        assert info.status == "active" and info.deadline is not None
        assert ABSENT_KEY not in info.meta
        assert any("I am back" in t for t in group_texts(fake, group))
        board = fake.message(group, info.meta["board"])
        assert board.message_id == fake.last_message(group).message_id  # type: ignore[union-attr]
        assert "paused" not in (board.text or "")
        # The waiting players are asked again, and play on.
        for u in waiting:
            assert action_buttons(u.last_message())
        version = info.version
        assert await tap_any_action(waiting)
        assert service.game_info(game_id).version > version


async def test_a_lobby_and_a_game_paused_by_its_creator_stay_as_they_were(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(1200 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    lobby_group = fake.create_group("Lobby", users)
    paused_group = fake.create_group("Holiday", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, paused_group)
        # Removed, then back without the bot hearing of it: the creator resumes by hand,
        # and the game no longer waits for the bot's return.
        await fake.remove_bot(paused_group, by=users[0])
        assert service.game_info(game_id).meta[ABSENT_KEY]
        fake.set_bot_status(paused_group, "member", announce=False)
        await users[0].send(paused_group, "/resume")
        info = service.game_info(game_id)
        assert info.status == "active" and ABSENT_KEY not in info.meta
        # Paused by its creator, the game stays paused whatever happens to the bot.
        await users[0].send(paused_group, "/pause")
        await users[0].send(lobby_group, "/newgame")
        lobby_id = service.games_in_chat(lobby_group.id)[0].id
        for group in (lobby_group, paused_group):
            await fake.remove_bot(group, by=users[0])
            await fake.add_ai_player(group, by=users[0])
        assert service.game_info(lobby_id).status == "lobby"
        info = service.game_info(game_id)
        assert info.status == "paused" and ABSENT_KEY not in info.meta
        assert not any("I am back" in t for g in (lobby_group, paused_group)
                       for t in group_texts(fake, g))
        await users[0].send(paused_group, "/resume")
        assert service.game_info(game_id).status == "active"
