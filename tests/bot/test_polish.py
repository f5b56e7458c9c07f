"""Rough edges of a real group, smoothed (issue 12): /board pins the board it sends anew, /log
in a group is a short summary with the full log one tap away in private, tables read on a
phone, the year's summary says each failure once with the cards sent north and whose they
were, and a player the bot cannot write to hears of the deadline in the group."""

from __future__ import annotations

from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import open_game, players, tap_any_action
from tests.faketg import FakeTelegram


async def test_board_sent_anew_is_pinned_where_the_bot_may_pin(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=5000)
    group = fake.create_group("Pinned", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        assert await tap_any_action(users)
        old = service.game_info(game_id).meta["board"]
        await users[1].send(group, "/board")
        board = service.game_info(game_id).meta["board"]
        assert board != old and fake.message(group, old).deleted
        assert group.pinned and group.pinned[0] == board
        pins = [c for c in fake.calls("pinChatMessage", ok=True)
                if int(c.params["message_id"]) == board]
        assert pins and pins[-1].params.get("disable_notification") in (True, "true")


async def test_board_is_only_sent_where_the_bot_may_not_pin(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=5010)
    group = fake.create_group("No pins", users)
    group.permissions["can_pin_messages"] = False  # members (the bot too) may not pin
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        old = service.game_info(game_id).meta["board"]
        await users[1].send(group, "/board")
        board = service.game_info(game_id).meta["board"]
        assert board != old and not group.pinned
        assert "Plowing" in (fake.message(group, board).text or "")
        assert fake.last_message(group) == fake.message(group, board)
