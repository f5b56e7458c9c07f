"""The board as a rich message (``/settings board rich``, Bot API 10.1), through the real
application on the fake Bot API, in both languages: sent with ``sendRichMessage``, edited in
place with ``editMessageText`` and ``rich_message`` within the group's budget, never showing
a card the group may not see; switched to and from text and picture mid-game; shown as text
on an older server (one log line, the chat's setting kept) and rich again on a newer one."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.pace import BOARD
from kolkhoz_tg.bot.steps import BOARD_KEY, BOARD_STYLE_KEY
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app, quick_pace
from tests.bot.driver import LeakScanner, open_game, players, tap_any_action
from tests.faketg import FakeChat, FakeTelegram
from tests.faketg.models import ApiCall

# (PTB's edit_message_text has no rich_message yet: the bot edits through do_api_request.)
pytestmark = pytest.mark.filterwarnings("ignore:Please use 'Bot.editMessageText'")


def _html(call: ApiCall) -> str:
    value = call.params["rich_message"]
    return str((json.loads(value) if isinstance(value, str) else value)["html"])


def _to(calls: list[ApiCall], group: FakeChat) -> list[ApiCall]:
    return [c for c in calls if str(c.params.get("chat_id")) == str(group.id)]


def _paced_app(fake: FakeTelegram, service: GameService) -> tuple[Any, list[tuple[int, int]]]:
    """The application with the groups' budget (over a shortened window), and the slots of
    it taken: (chat, urgency)."""
    app = make_app(fake, service, rate_limiter=True)
    quick_pace(app)
    pace = app.bot_data[DEPS_KEY].deliverer.pace
    slots: list[tuple[int, int]] = []
    real_slot = pace.slot

    async def slot(chat_id: int, urgency: int, **kwargs: Any) -> Any:
        slots.append((chat_id, urgency))
        return await real_slot(chat_id, urgency, **kwargs)

    pace.slot = slot  # type: ignore[method-assign]
    return app, slots


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_whole_game_on_the_rich_board(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    tr = translator(lang)
    users = players(fake, lang, base=9700 if lang == "en" else 9750)
    group = fake.create_group("Rich", users)
    service.set_board_style(group.id, "rich")
    app, slots = _paced_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        scanner = LeakScanner(fake, service, group, users)
        board_id = int(service.game_info(game_id).meta[BOARD_KEY])
        board = fake.message(group, board_id)
        (first,) = _to(fake.calls("sendRichMessage", ok=True), group)
        assert "rich_message" in board.extra and board.buttons  # the text board's buttons
        html = _html(first)
        assert "<table bordered striped compact>" in html
        for word in ("Job", "Hours", "Reward", "Player", "Medals", "Face up"):
            assert f"<th>{tr.gettext(word)}</th>" in html, (word, html)
        assert tr.gettext("Kolkhoz · year {year} of {years} · Planner: {name}", year=1,
                          years=5, name="\x00").split("\x00")[0] in (board.text or "")
        taps = 0
        folded = False
        while await tap_any_action(users):
            scanner.scan(game_id)
            taps += 1
            assert taps < 400
            folded = folded or "<details><summary>📜 " in str(board.params.get("rich_html"))
        assert service.game_info(game_id).status == "finished"
        # One living board, always rich, edited in place all game long.
        assert int(service.game_info(game_id).meta[BOARD_KEY]) == board_id
        edits = [c for c in _to(fake.calls("editMessageText"), group)
                 if str(c.params.get("message_id")) == str(board_id)]
        assert board.edits > 20 and all("rich_message" in c.params for c in edits)
        assert not [c for c in edits if not c.ok and "not modified" not in str(c.description)]
        assert len(_to(fake.calls("sendRichMessage"), group)) == 1
        assert folded  # the year's tricks, one tap away
        final = str(board.params["rich_html"])
        assert "🏆" in final and "<details>" in final
        # The group's budget: every call to the group took its slot, board edits at the
        # board's urgency (as the text board's).
        spent = [c for c in _to(fake.sent_log, group)
                 if c.method.startswith(("send", "edit")) and c.method != "sendChatAction"]
        mine = [u for chat, u in slots if chat == group.id]
        assert len(mine) == len(spent) and mine.count(BOARD) > 20
        assert scanner.scanned > 100
        assert not scanner.leaks, scanner.leaks[:5]


async def test_switching_text_rich_picture_mid_game(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, "ru", base=9800)
    group = fake.create_group("Switch", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        seen = [int(service.game_info(game_id).meta[BOARD_KEY])]
        for style in ("rich", "picture", "rich", "text"):
            await users[0].send(group, f"/settings board {style}")
            assert "/settings" not in str(fake.last_message(group).text)  # (not the usage)
            assert await tap_any_action(users)
            info = service.game_info(game_id)
            board = fake.message(group, int(info.meta[BOARD_KEY]))
            assert int(info.meta[BOARD_KEY]) not in seen, style  # sent anew
            assert fake.message(group, seen[-1]).deleted
            seen.append(board.message_id)
            assert info.meta[BOARD_STYLE_KEY] == style
            assert ("rich_message" in board.extra) == (style == "rich")
            assert ("photo" in board.extra) == (style == "picture")
            # The next move edits it in place.
            assert await tap_any_action(users)
            assert int(service.game_info(game_id).meta[BOARD_KEY]) == board.message_id
        await users[0].send(group, "/settings board fancy")
        assert "text|picture|rich" in str(fake.last_message(group).text)


async def test_an_older_server_shows_the_text_board_and_a_newer_one_rich_again(
    fake: FakeTelegram, service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    tr = translator("en")
    users = players(fake, "en", base=9850)
    group = fake.create_group("Old server", users)
    service.set_board_style(group.id, "rich")
    fake.bot_api = (10, 0)
    caplog.set_level(logging.INFO)
    app, slots = _paced_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        board_id = int(service.game_info(game_id).meta[BOARD_KEY])
        slots.clear()
        for _ in range(8):
            assert await tap_any_action(users)
        # Paced as the text board is: its edits at the board's urgency, never sent anew.
        assert [u for chat, u in slots if chat == group.id].count(BOARD) >= 5
        assert len(_to(fake.calls("sendRichMessage"), group)) == 1  # the one 404
        info = service.game_info(game_id)
        board = fake.message(group, board_id)
        assert int(info.meta[BOARD_KEY]) == board_id and board.edits >= 5  # edited in place
        assert "rich_message" not in board.extra
        assert tr.gettext("year {year} of {years}", year=1, years=5) in (board.text or "")
        assert info.meta[BOARD_STYLE_KEY] == "text"
    warned = [r for r in caplog.records if "no rich messages" in r.getMessage()]
    assert len(warned) == 1 and warned[0].levelno == logging.WARNING
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    chat = service.chat(group.id)
    assert chat is not None and chat.settings["board"] == "rich"  # kept for a newer server
    # A newer server (a new process): the rich board comes back, in place of the text one.
    fake.bot_api = (10, 3)
    caplog.clear()
    async with fake.running(make_app(fake, service)):
        assert await tap_any_action(users)
        info = service.game_info(game_id)
        rich_id = int(info.meta[BOARD_KEY])
        assert rich_id != board_id and fake.message(group, board_id).deleted
        assert "rich_message" in fake.message(group, rich_id).extra
        assert info.meta[BOARD_STYLE_KEY] == "rich"
        # The server goes back to 10.0 under the running bot: the next edit is text, in
        # place, with one log line.
        fake.bot_api = (10, 0)
        for _ in range(3):
            assert await tap_any_action(users)
        board = fake.message(group, rich_id)
        assert int(service.game_info(game_id).meta[BOARD_KEY]) == rich_id
        assert "rich_message" not in board.extra and board.text
        assert service.game_info(game_id).meta[BOARD_STYLE_KEY] == "text"
    warned = [r for r in caplog.records if "no rich messages" in r.getMessage()]
    assert len(warned) == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
