"""Whole games in a group, played by tapping the buttons the bot sent."""

from __future__ import annotations

from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.faketg import FakeTelegram, StoredMessage


def action_buttons(msg: StoredMessage | None) -> list[str]:
    if msg is None:
        return []
    return [b.data for row in msg.buttons for b in row if b.data and b.data.startswith("a:")]


async def test_four_friends_play_a_whole_game_by_buttons(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(100 + i, name, language_code="en")
             for i, name in enumerate(["Anna", "Boris", "Vera", "Gleb"])]
    group = fake.create_group("Dacha 2026", users)
    app = make_app(fake, service)
    async with fake.running(app):
        for u in users:
            await u.start_bot()
        await users[0].send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None and "Anna" in lobby.text
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), "Join")
        lobby = fake.message(group, lobby.message_id)
        assert all(u.first_name in lobby.text for u in users)
        await users[0].tap(lobby, "Start ▶")
        for _ in range(400):
            acted = False
            for u in users:
                buttons = action_buttons(u.last_message())
                if buttons:
                    await u.tap(u.last_message(), buttons[0])
                    acted = True
                    break
            if not acted:
                break
        texts = [m.text for m in fake.messages(group)]
        assert any("five-year plan is complete" in t for t in texts), texts[-3:]
    fake.assert_all_callbacks_answered()
