"""The board as a picture (``/settings board picture``), in both languages: a photo edited
in place with a short caption, the suit led and the card taking the trick so far, the text
board back when the chat asks for it, the final picture with every plot face up under its
whole title; and a player's own cards as a picture in private on request."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Card
from engine.views import View
from kolkhoz_tg import present
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.delivery import steps
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.picture import BOARDS
from kolkhoz_tg.picture import draw as draw_module
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import NAMES, action_buttons, open_game, players, tap_any_action
from tests.faketg import FakeTelegram
from tests.test_picture_board import spying

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_board_as_a_picture_edited_in_place_and_back_to_text(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """A photo edited in place with a short caption; on a trick in progress the picture
    shows the suit led and rings the card taking the trick so far; back to text when the
    chat asks for it."""
    tr = translator(lang)
    users = players(fake, lang, base=8100 if lang == "en" else 8150)
    group = fake.create_group("Pictures", users)
    service.set_board_style(group.id, "picture")
    BOARDS.clear()  # (each picture below is drawn, not taken from another test's cache)
    with spying(monkeypatch) as drawn:
        renders: list[tuple[View, slice, slice]] = []  # the view, what it drew
        real = steps.cached_board_png

        def spy(reader: Any, game: Any, view: View, **kwargs: Any) -> bytes:
            at = len(drawn.texts), len(drawn.highlights)
            png = real(reader, game, view, **kwargs)
            renders.append((view, slice(at[0], len(drawn.texts)),
                            slice(at[1], len(drawn.highlights))))
            return png

        monkeypatch.setattr(steps, "cached_board_png", spy)
        async with fake.running(make_app(fake, service)):
            game_id = await open_game(fake, users, group)
            board_id = service.game_info(game_id).meta["board"]
            board = fake.message(group, board_id)
            assert "photo" in board.extra and board.text is None
            first = fake.photo_bytes(board)
            assert first.startswith(PNG)
            caption = board.extra["caption"]
            view = service.board(game_id).view.to_dict()
            assert view is not None
            planner = NAMES[view["planner"]]
            assert caption.startswith("🌾 " + tr.gettext(
                "Kolkhoz · year {year} of {years} · Planner: {name}", year=1, years=5,
                name=planner)), caption
            assert tr.gettext("{name} chooses trump", name=planner) in caption, caption
            assert board.buttons  # the way to the cards, as on the text board
            for _ in range(6):
                assert await tap_any_action(users)
            board = fake.message(group, board_id)
            assert board.edits >= 5 and fake.photo_bytes(board) != first
            assert service.game_info(game_id).meta["board"] == board_id  # one living board
            assert not [c for c in fake.sent_log if c.method.startswith("edit") and not c.ok]
            # A trick in progress: the suit led, and the card taking it so far ringed.
            while not any(v.phase == "play" and v.trick for v, *_ in renders):
                assert await tap_any_action(users)
            label = tr.gettext("led suit {suit}", suit="\x00").split("\x00")[0].strip()
            for drawn_view, texts_at, rings_at in renders:
                if drawn_view.phase == "play" and drawn_view.trick:
                    assert label in [t["text"] for t in drawn.texts[texts_at]]
                    assert len(drawn.highlights[rings_at]) == 1
            # Back to text: the next change sends a text board and takes the photo away.
            service.set_board_style(group.id, "text")
            assert await tap_any_action(users)
            new_id = service.game_info(game_id).meta["board"]
            assert new_id != board_id
            text_board = fake.message(group, new_id)
            assert text_board.text and tr.gettext("year {year} of {years}", year=1, years=5) in (
                text_board.text), text_board.text
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


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_final_picture_shows_every_plot_face_up_under_a_whole_title(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """Scoring turns every plot face up: the group's last picture draws them (the plots
    the game stored with its result), where it drew face-down cards, under the whole
    title (once cut: "…the five-year plan is…"). A one-year game: the end is the same."""
    drawn_for: list[object] = []
    final: list[slice] = []
    real = steps.cached_board_png
    tr = translator(lang)
    users = players(fake, lang, base=8400 if lang == "en" else 8450)
    group = fake.create_group("Final picture", users)
    service.set_board_style(group.id, "picture")
    service.set_chat_locale(group.id, lang)  # (as /newgame does; the game is set up here)
    BOARDS.clear()  # (the final picture is drawn, not taken from another test's cache)
    with spying(monkeypatch) as drawn:

        def spy(*args: Any, **kwargs: Any) -> bytes:
            drawn_for.append(kwargs.get("plots"))
            first = len(drawn.texts), len(drawn.cards)
            png = real(*args, **kwargs)
            if kwargs.get("plots") is not None:
                final.append(slice(first[0], len(drawn.texts)))
                final.append(slice(first[1], len(drawn.cards)))
            return png

        monkeypatch.setattr(steps, "cached_board_png", spy)
        app = make_app(fake, service)
        async with fake.running(app):
            d = app.bot_data[DEPS_KEY]
            for u in users:
                await u.start_bot()
            info = service.create_game(group.id, users[0].id, creator_name="Anna",
                                       options={"years": 1}, seed=4)
            for u in users[1:]:
                service.join(info.id, u.id, u.first_name)
            result = service.start(info.id, users[0].id)
            await d.deliverer.refresh_board(info.id, resend=True, pin=True)
            await d.deliverer.deliver(result.notifications, scene=result.scene)
            for _ in range(200):
                if not await tap_any_action(users):
                    break
            await d.deliverer.boards_painted()
            await fake.wait_idle()
            info = service.game_info(info.id)
            assert info.status == "finished" and info.result is not None
            board = fake.message(group, info.meta["board"])
            assert "photo" in board.extra
            over = tr.gettext("Kolkhoz · the five-year plan is over")
            assert board.extra["caption"].startswith("🌾 " + over), board.extra["caption"]
    plots = info.result.plots
    assert drawn_for[-1] == plots and any(plots)
    assert all(p is None for p in drawn_for[:-1])  # before the end: never
    # The final picture: every card face up, every plot card drawn, the title whole.
    texts_at, cards_at = final[0], final[1]
    cards = drawn.cards[cards_at]
    assert cards and all(rank is not None for _x, _y, rank, _suit in cards), "face down"
    shown = [(rank, suit) for _x, _y, rank, suit in cards]
    for plot in plots:
        for card in plot:
            assert (present.card(tr, card)[:-1], Card.parse(card).suit) in shown, card
    drawn_texts = drawn.texts[texts_at]
    header = [t for t in drawn_texts if t["bold"] and t["fill"] == draw_module.CREAM]
    assert " ".join(t["text"] for t in header) == over, header
    assert all(t["left"] >= 0 and t["right"] <= t["canvas"] for t in drawn_texts)
