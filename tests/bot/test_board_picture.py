"""The board as a picture (``/settings board picture``): a photo edited in place with a
short caption, the text board back when the chat asks for it, and a player's own cards as a
picture in private on request."""

from __future__ import annotations

from typing import Any

import pytest

from kolkhoz_tg.bot import delivery
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import NAMES, action_buttons, open_game, tap_any_action
from tests.faketg import FakeTelegram

PNG = b"\x89PNG\r\n\x1a\n"


async def test_the_board_as_a_picture_edited_in_place_and_back_to_text(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(8100 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Pictures", users)
    service.set_board_style(group.id, "picture")
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        board_id = service.game_info(game_id).meta["board"]
        board = fake.message(group, board_id)
        assert "photo" in board.extra and board.text is None
        first = fake.photo_bytes(board)
        assert first.startswith(PNG)
        caption = board.extra["caption"]
        assert "year 1 of 5" in caption and "chooses trump" in caption, caption
        assert board.buttons  # the way to the cards, as on the text board
        for _ in range(6):
            assert await tap_any_action(users)
        board = fake.message(group, board_id)
        assert board.edits >= 5 and fake.photo_bytes(board) != first
        assert service.game_info(game_id).meta["board"] == board_id  # one living board
        assert not [c for c in fake.sent_log if c.method.startswith("edit") and not c.ok]
        # Back to text: the next change sends a text board and takes the photo away.
        service.set_board_style(group.id, "text")
        assert await tap_any_action(users)
        new_id = service.game_info(game_id).meta["board"]
        assert new_id != board_id
        text_board = fake.message(group, new_id)
        assert text_board.text and "year 1 of 5" in text_board.text
        assert fake.message(group, board_id).deleted


async def test_a_players_cards_as_a_picture_in_private(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(8200 + i, n, language_code="ru") for i, n in enumerate(NAMES)]
    group = fake.create_group("Картинки", users)
    async with fake.running(make_app(fake, service)):
        await open_game(fake, users, group)
        player = next(u for u in users if action_buttons(u.last_message()))
        msg = player.last_message()
        assert msg is not None
        picture_button = next(b.text for row in msg.buttons for b in row if "🖼" in b.text)
        before = len(player.private_messages())
        await player.tap(msg, picture_button)
        sent = player.private_messages()[before:]
        assert len(sent) == 1 and "photo" in sent[0].extra
        assert fake.photo_bytes(sent[0]).startswith(PNG)
        fake.assert_all_callbacks_answered()


async def test_settings_board_switches_the_style_for_the_creator_only(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(8300 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Switch", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        await users[1].send(group, "/settings board picture")  # not the creator
        assert "creator" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        assert "photo" not in fake.message(group, service.game_info(game_id).meta["board"]).extra
        await users[0].send(group, "/settings board paint")
        assert "text|picture" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        await users[0].send(group, "/settings board picture")
        board = fake.message(group, service.game_info(game_id).meta["board"])
        assert "photo" in board.extra and fake.photo_bytes(board).startswith(PNG)
        assert "picture" in (fake.last_message(group).text or "")  # type: ignore[union-attr]


async def test_the_final_picture_shows_every_plot_face_up(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scoring turns every plot face up: the group's last picture draws them (the plots
    the game stored with its result), where it drew face-down counts."""
    drawn: list[object] = []
    real = delivery.cached_board_png

    def spy(*args: Any, **kwargs: Any) -> bytes:
        drawn.append(kwargs.get("plots"))
        return real(*args, **kwargs)

    monkeypatch.setattr(delivery, "cached_board_png", spy)
    users = [fake.user(8300 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Final picture", users)
    service.set_board_style(group.id, "picture")
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(500):
            if not await tap_any_action(users):
                break
        info = service.game_info(game_id)
        assert info.status == "finished" and info.result is not None
        board = fake.message(group, info.meta["board"])
        assert "photo" in board.extra
    plots = info.result["plots"]
    assert drawn[-1] == plots and any(plots)
    assert all(p is None for p in drawn[:-1])  # before the end: never
