"""Practice games through the real application and the fake Telegram: /practice in private
with rules and a level, the board and the player's game message in that chat, a whole game
by buttons with 💡 hints, a restart that resumes it, no clock, no rating; /practice in a
group, a bad rules name, /rules offering a practice game, Russian."""

from __future__ import annotations

import asyncio
import functools
import threading
from dataclasses import replace

import pytest

from engine import Action
from kolkhoz_tg import present
from kolkhoz_tg.bot.app import startup
from kolkhoz_tg.bot.callbacks import view_button
from kolkhoz_tg.bot.thinking import THINKER_KEY, Thinker
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present.hints import move_words
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import LeakScanner, action_buttons, move_message, open_game, players
from tests.faketg import FakeTelegram, FakeUser, StoredMessage


def cards_messages(user: FakeUser) -> list[StoredMessage]:
    """The bot's messages in the private chat that show the player's cards."""
    return [m for m in user.private_messages()
            if "Your cards" in (m.text or "") or "Ваши карты" in (m.text or "")]


def hint_names_a_legal_move(service: GameService, game_id: int, user: FakeUser,
                            text: str, lang: str = "en") -> None:
    """The hint's line opens with the move, in the short form of the legal moves (an
    assignment with its job named as on the buttons when the hint has the view)."""
    assert text.startswith("💡 "), text
    move = text.removeprefix("💡 ").split(": ", 1)[0]
    tr = translator(lang)
    seat_view = service.seat_view(game_id, user.id)
    legal = seat_view.legal
    typed = replace(seat_view.view, legal=())
    shorts = {present.card_action(tr, a) for a in legal} | {tr.gettext("no swap")}
    shorts |= {move_words(tr, a, typed) for a in legal}
    assert move in shorts, (move, legal)


async def play_some(
    service: GameService, game_id: int, user: FakeUser, taps: int, *, hint_every: int = 0,
    lang: str = "en", scanner: LeakScanner | None = None,
) -> int:
    """Tap the first move button ``taps`` times (or to the end), asking for a hint every
    ``hint_every`` taps; returns the taps made."""
    made = 0
    while made < taps and service.game_info(game_id).status == "active":
        info = service.game_info(game_id)
        assert info.deadline is None  # no clock, ever
        msg = move_message(user)
        assert msg is not None, [m.text for m in user.private_messages()[-3:]]
        if hint_every and made % hint_every == 0:
            hint = "💡 " + translator(lang).gettext("Hint: what would a bot play?")
            answer = await user.tap(msg, hint)
            assert answer is not None and answer.show_alert and answer.text
            hint_names_a_legal_move(service, game_id, user, answer.text, lang)
        await user.tap(msg, action_buttons(msg)[0])
        if scanner is not None:
            scanner.scan(game_id)
        made += 1
    return made


async def test_a_practice_game_in_private_to_the_end_with_hints_and_a_restart(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixed deal: a 3-player zone game can be over after as few as 10 of a seat's own
    # moves (the rest forced), and this test restarts the bot after 10 in the middle of it.
    # (The service's own seed parameter, which the bot leaves to chance.)
    one_deal = functools.partial(service.start_practice, seed=1)
    monkeypatch.setattr(service, "start_practice", one_deal)
    anna = fake.user(6000, "Anna", language_code="en")
    decoy = fake.create_group("Nobody's", [anna])  # the scanner's "group": nothing goes there
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(None, "/practice zone 3")
        menu = anna.last_message()
        assert menu is not None and "Zone" in (menu.text or "")
        assert menu.button_texts == ["Random", "Normal", "✅ Strong", "Hard"]
        await anna.tap(menu, "Normal")
        game = service.practice_game(anna.id)
        assert game is not None and game.practice and game.chat_id == anna.id
        assert game.preset == "zone" and game.players == 3 and game.seed == "1"
        assert [s.level for s in game.seats if s.is_ai] == ["normal", "normal"]
        # The board and Anna's game message, both here; one message with her cards.
        board_id = game.meta["board"]
        board = fake.message(anna, board_id)
        assert "My cards" not in board.button_texts
        with_cards = cards_messages(anna)
        assert len(with_cards) == 1
        assert "Practice game" in (with_cards[0].text or "")
        scanner = LeakScanner(fake, service, decoy, [anna])
        made = await play_some(service, game.id, anna, 10, hint_every=3, scanner=scanner)
        assert made == 10 and service.game_info(game.id).status == "active"
        await fake.wait_idle()
        assert len(cards_messages(anna)) == 1  # one game message, the newest, never a pile
    version = service.game_info(game.id).version
    # A new process on the same database: /practice offers to go on; the board comes again.
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        await anna.send(None, "/practice")
        offer = anna.last_message()
        assert offer is not None and "practice game going" in (offer.text or "")
        await anna.tap(offer, "▶ Go on")
        new_board = service.game_info(game.id).meta["board"]
        assert new_board != board_id and fake.message(anna, board_id).deleted
        assert len(cards_messages(anna)) == 1
        assert anna.private_messages()[-1].message_id == cards_messages(anna)[0].message_id
        rest = await play_some(service, game.id, anna, 400, hint_every=9, scanner=scanner)
    assert rest >= 5, rest  # the restart came mid-game
    info = service.game_info(game.id)
    assert info.status == "finished" and info.version > version
    assert info.deadline is None
    log = service.action_log(game.id)
    assert {m["actor"] for m in log} <= {"player", "bot", "forced"}
    assert any("five-year plan is complete" in (m.text or "") for m in anna.private_messages())
    # Not rated, not in /stats.
    assert service.user_ratings(anna.id) == []
    async with fake.running(make_app(fake, service)):
        await anna.send(None, "/stats")
        assert "no rated games" in (anna.last_message().text or "")  # type: ignore[union-attr]
    assert not scanner.leaks, scanner.leaks[:5]


async def test_strong_bots_hint_with_the_search_figures_and_starting_anew(
    fake: FakeTelegram, service: GameService
) -> None:
    boris = fake.user(6100, "Boris", language_code="en")
    async with fake.running(make_app(fake, service)):
        await boris.send(None, "/practice")
        menu = boris.last_message()
        assert menu is not None and "Classic" in (menu.text or "")
        await boris.tap(menu, "✅ Strong")
        await fake.wait_idle()
        game = service.practice_game(boris.id)
        assert game is not None and game.players == 4
        assert [s.level for s in game.seats if s.is_ai] == ["strong"] * 3
        msg = move_message(boris)
        assert msg is not None
        answer = await boris.tap(msg, "💡 Hint: what would a bot play?")
        assert answer is not None and answer.text is not None
        hint_names_a_legal_move(service, game.id, boris, answer.text)
        if len(service.seat_view(game.id, boris.id).legal) > 1:
            # The figure says what it is (not a bare "search: 35% vs 33%").
            assert "chance to win: " in answer.text and "%" in answer.text, answer.text
            assert "search" not in answer.text and " vs " not in answer.text, answer.text
        await boris.tap(msg, action_buttons(msg)[0])
        await fake.wait_idle()
        assert service.game_info(game.id).deadline is None
        # /board sends the board anew at the bottom of the chat; the old one goes.
        board_id = service.game_info(game.id).meta["board"]
        await boris.send(None, "/board")
        moved = service.game_info(game.id).meta["board"]
        assert moved != board_id and fake.message(boris, board_id).deleted
        assert boris.last_message().message_id == moved  # type: ignore[union-attr]
        # /practice again: start anew abandons the open game.
        await boris.send(None, "/practice kolkhoznik")
        offer = boris.last_message()
        assert offer is not None
        await boris.tap(offer, "🆕 Start anew")
        assert service.game_info(game.id).status == "aborted"
        menu = fake.message(boris, offer.message_id)
        assert "Kolkhoznik" in (menu.text or "")
        await boris.tap(menu, "Random")
        second = service.practice_game(boris.id)
        assert second is not None and second.id != game.id and second.preset == "kolkhoznik"
        fake.assert_all_callbacks_answered()


async def test_practice_in_a_group_bad_rules_and_rules_offer_a_practice_game(
    fake: FakeTelegram, service: GameService
) -> None:
    vera = fake.user(6200, "Vera", language_code="en")
    group = fake.create_group("Friends", [vera])
    async with fake.running(make_app(fake, service)):
        await vera.send(group, "/practice zone")
        polite = fake.last_message(group)
        assert polite is not None and "private chat" in (polite.text or "")
        assert service.practice_game(vera.id) is None
        await vera.open_button(polite, "🎓 Practice in private")
        menu = vera.last_message()
        assert menu is not None and "How strong should the bots be?" in (menu.text or "")
        await vera.send(None, "/practice zonee")
        bad = vera.last_message()
        assert bad is not None and '"zonee"' in (bad.text or "")
        for name in ("classic", "original", "kolkhoz", "kolkhoznik", "zone"):
            assert name in (bad.text or "")
        assert service.practice_game(vera.id) is None
        await vera.send(None, "/rules")
        rules = vera.last_message()
        assert rules is not None
        await vera.tap(rules, "🎓 Play a practice game")
        menu = vera.last_message()
        assert menu is not None and "Practice game" in (menu.text or "")
        await vera.send(group, "/rules")
        summary = fake.last_message(group)
        assert summary is not None and "🎓 Play a practice game" in summary.button_texts


async def test_no_hints_in_a_group_game(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, base=6300)
    group = fake.create_group("No help", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for user in users:
            msg = user.last_message()
            assert msg is not None
            assert not any("💡" in t for t in msg.button_texts)
        info = service.game_info(game_id)
        waiting = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        msg = waiting.last_message()
        assert msg is not None
        answer = await waiting.tap(msg, view_button(game_id, info.version, "hint"), force=True)
        assert answer is not None and answer.show_alert
        assert "practice games only" in (answer.text or "")


async def test_russian_practice(fake: FakeTelegram, service: GameService) -> None:
    gleb = fake.user(6400, "Глеб", language_code="ru")
    group = fake.create_group("Дача", [gleb])
    async with fake.running(make_app(fake, service)):
        await gleb.send(group, "/practice")
        polite = fake.last_message(group)
        assert polite is not None and "личном чате" in (polite.text or ""), polite.text
        await gleb.send(None, "/practice зона")
        bad = gleb.last_message()
        assert bad is not None and "Не знаю правил «зона»" in (bad.text or ""), bad.text
        await gleb.send(None, "/practice kolkhoz 5")
        menu = gleb.last_message()
        assert menu is not None and "Тренировочная партия" in (menu.text or ""), menu.text
        assert "5 игроков" in (menu.text or "")
        assert menu.button_texts == ["Случайный", "Обычный", "✅ Сильный", "Мастер"], \
            menu.button_texts
        await gleb.tap(menu, "Обычный")
        game = service.practice_game(gleb.id)
        assert game is not None
        board = fake.message(gleb, game.meta["board"])
        assert "Колхоз" in (board.text or "")
        made = await play_some(service, game.id, gleb, 6, hint_every=2, lang="ru")
        assert made == 6
        msg = move_message(gleb)
        assert msg is not None
        assert "💡 Подсказка: как сыграл бы бот?" in msg.button_texts
        assert Action.parse(action_buttons(msg)[0].split(":", 3)[3])


async def test_a_forged_go_on_shows_nobody_else_s_game(
    fake: FakeTelegram, service: GameService
) -> None:
    from kolkhoz_tg.bot.callbacks import practice_button

    anna = fake.user(6500, "Anna", language_code="en")
    boris = fake.user(6501, "Boris", language_code="en")
    async with fake.running(make_app(fake, service)):
        await anna.send(None, "/practice")
        await anna.tap(anna.last_message(), "Normal")  # type: ignore[arg-type]
        game = service.practice_game(anna.id)
        assert game is not None
        before = len(anna.private_messages())
        await boris.send(None, "/practice")
        menu = boris.last_message()
        assert menu is not None
        await boris.tap(menu, practice_button(game.id, game.version, "go"), force=True)
        assert len(anna.private_messages()) == before
        assert service.game_info(game.id).meta["board"] == game.meta["board"]
        assert "How strong should the bots be?" in (boris.last_message().text or "")  # type: ignore[union-attr]
        fake.assert_all_callbacks_answered()


async def test_a_hint_while_the_workers_are_busy_says_to_ask_again(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 💡 hint is worked out by the bots' workers. When they stay busy (the bots of
    other games thinking) the tap is answered in time all the same, asking to try again;
    once they are free, the hint comes."""
    from kolkhoz_tg.bot import practice

    vera = fake.user(6300, "Vera", language_code="en")
    app = make_app(fake, service)
    async with fake.running(app):
        await vera.send(None, "/practice")
        menu = vera.last_message()
        assert menu is not None
        await vera.tap(menu, "✅ Strong")
        await fake.wait_idle()
        game = service.practice_game(vera.id)
        assert game is not None
        msg = move_message(vera)
        assert msg is not None
        thinker: Thinker = app.bot_data[THINKER_KEY]
        thinker._executor = thinker._executor or thinker._make_executor()
        gate = threading.Event()
        thinker._executor.submit(gate.wait, 30)  # a long thought of another game's bot
        monkeypatch.setattr(practice, "HINT_WAIT", 0.5, raising=False)
        hint = "💡 Hint: what would a bot play?"
        try:
            await vera.tap(msg, hint, wait=False)
            query = list(fake.callback_queries.values())[-1]
            for _ in range(50):
                if query.answered:
                    break
                await asyncio.sleep(0.1)
            assert query.answered and query.answer is not None
            assert "ask for the hint again" in (query.answer["text"] or "")
        finally:
            gate.set()
        answer = await vera.tap(msg, hint)
        assert answer is not None and answer.text is not None
        hint_names_a_legal_move(service, game.id, vera, answer.text)
    fake.assert_all_callbacks_answered()
