"""Whole games in a group on the fake Telegram, by buttons and by typed commands, in English
and in Russian; every message the bot sends is scanned for cards its reader may not see."""

from __future__ import annotations

import random
from typing import Any

from engine import Action, ActionKind
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import (
    NAMES,
    LeakScanner,
    action_buttons,
    group_texts,
    open_game,
    tap_any_action,
)
from tests.faketg import FakeTelegram


async def test_four_friends_play_a_whole_game_by_buttons(
    fake: FakeTelegram, service: GameService
) -> None:
    users = [fake.user(100 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Dacha 2026", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        scanner = LeakScanner(fake, service, group, users)
        board_id = service.game_info(game_id).meta["board"]
        group_messages_at_start = len(fake.messages(group))
        taps = 0
        while await tap_any_action(users):
            scanner.scan(game_id)
            taps += 1
            assert taps < 400
        assert service.game_info(game_id).status == "finished"
        texts = group_texts(fake, group)
        assert any("five-year plan is complete" in t for t in texts)
        # One living board, edited in place; new group messages only for the year summaries
        # and the final table.
        board = fake.message(group, board_id)
        assert board.edits > 20
        new_messages = len(fake.messages(group)) - group_messages_at_start
        assert new_messages <= 5 + 1
        assert scanner.scanned > 100
        assert not scanner.leaks, scanner.leaks[:5]


def typed_form(action: str, rng: random.Random) -> str:
    """A typed command for an action, in one of the notations players use."""
    a = Action.parse(action)
    ru_suit = {"H": "ч", "D": "б", "C": "т", "S": "п"}
    symbol = {"H": "♥", "D": "♦", "C": "♣", "S": "♠"}

    def card_text(card: str) -> str:
        rank, suit = card[:-1], card[-1]
        style = rng.randrange(3)
        if style == 0:
            return card
        if style == 1:
            return rank + symbol[suit]
        ru_rank = {"J": "В", "Q": "Д", "K": "К", "A": "Т"}.get(rank, rank)
        return ru_rank + ru_suit[suit]

    if a.kind is ActionKind.TRUMP:
        assert a.suit is not None
        return f"/trump {symbol[a.suit.letter]}"
    if a.kind is ActionKind.PLAY:
        return f"/play {card_text(str(a.card))}"
    if a.kind is ActionKind.ASSIGN:
        assert a.suit is not None
        return f"/assign {card_text(str(a.card))} {ru_suit[a.suit.letter]}"
    if a.card is None or a.target is None:
        return "/swap pass"
    return f"/swap {card_text(str(a.card))} {card_text(str(a.target))}"


async def test_russian_game_by_typed_commands_and_buttons(
    fake: FakeTelegram, service: GameService
) -> None:
    """Kolkhoz preset (swaps, famine, fields), Russian everywhere; every other move typed
    (in private, or /play in the group), the rest tapped."""
    users = [fake.user(200 + i, n, language_code="ru") for i, n in enumerate(NAMES)]
    group = fake.create_group("Дача", users)
    rng = random.Random(4)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group, "/newgame kolkhoz")
        board = fake.message(group, service.game_info(game_id).meta["board"])
        assert "Пшеница" in (board.text or "")  # the fields theme, in Russian
        scanner = LeakScanner(fake, service, group, users)
        moves = 0
        while service.game_info(game_id).status == "active":
            info = service.game_info(game_id)
            waiting = [u for u in users if service.seat_view(game_id, u.id).to_act]
            assert waiting, "nobody to act in an active game"
            user = waiting[0]
            legal = service.seat_view(game_id, user.id).legal
            if moves % 2 == 0:
                command = typed_form(rng.choice(legal), rng)
                where = group if command.startswith("/play") and moves % 4 == 0 else None
                await user.send(where, command)
            else:
                msg = user.last_message()
                assert action_buttons(msg), msg.text if msg else None
                await user.tap(msg, action_buttons(msg)[0])
            assert service.game_info(game_id).version > info.version, moves
            scanner.scan(game_id)
            moves += 1
            assert moves < 400
        texts = group_texts(fake, group)
        assert any("Пятилетка" in t or "пятилетка" in t for t in texts)
        assert not scanner.leaks, scanner.leaks[:5]


async def test_a_tap_is_answered_before_the_messages_go_out(
    fake: FakeTelegram, service: GameService
) -> None:
    """The button stops spinning first: answerCallbackQuery is the first Bot API call after
    a move is stored, and the board edit and the next player's message follow it."""
    users = [fake.user(700 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Answer first", users)
    async with fake.running(make_app(fake, service)):
        await open_game(fake, users, group)
        checked = 0
        for _ in range(12):
            before = len(fake.calls())
            assert await tap_any_action(users)
            await fake.settle()
            after = [c.method for c in fake.calls()[before:] if c.method != "getUpdates"]
            if "editMessageText" in after:
                assert after[0] == "answerCallbackQuery", after
                checked += 1
        assert checked >= 10
        fake.assert_all_callbacks_answered()


async def test_a_move_this_process_foresaw_is_answered_before_it_is_stored(
    fake: FakeTelegram, service: GameService
) -> None:
    """When the tapped version is the one this process committed last and the move was
    legal then, the tap is answered before the move is stored: at the answer the game still
    has the tapped version, and the move is made right after."""
    from kolkhoz_tg.bot.callbacks import Callback

    users = [fake.user(720 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Answer early", users)
    seen: list[tuple[int, int]] = []  # (tapped version, stored version at the answer)
    answer = fake._handlers["answercallbackquery"]

    def spy(p: Any) -> Any:
        record = fake.callback_queries.get(p.req_str("callback_query_id"))
        if record is not None and record.data:
            cb = Callback.decode(record.data)
            if cb.kind == "a":
                seen.append((cb.version, service.game_info(cb.game_id).version))
        return answer(p)

    fake._handlers["answercallbackquery"] = spy
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(12):
            assert await tap_any_action(users)
            await fake.settle()
        fake.assert_all_callbacks_answered()
    assert len(seen) == 12
    assert all(tapped == stored for tapped, stored in seen), seen
    assert service.game_info(game_id).version > seen[-1][0]


async def test_a_move_answered_early_but_refused_is_explained_in_private(
    fake: FakeTelegram, service: GameService
) -> None:
    """Another process moved the game after this one last saw it (here: the service alone,
    behind the application's back, and a stale foresight kept on purpose): the tap was
    answered early, the move is refused as stale, and the player hears so in private with
    their message brought up to date."""
    users = [fake.user(740 + i, n, language_code="en") for i, n in enumerate(NAMES)]
    group = fake.create_group("Answer early, refused", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        user = next(u for u in users if action_buttons(u.last_message()))
        msg = user.last_message()
        assert msg is not None
        sight = service.kernel.foresight[game_id]
        # Someone else's move in another process: here the same service, whose foresight
        # is then put back as that other process would have left it.
        info = service.game_info(game_id)
        seat = info.seat_of(user.id)
        assert seat is not None
        legal = service.seat_view(game_id, user.id).legal
        service.act(game_id, user.id, legal[-1], info.version)
        service.kernel.foresight[game_id] = sight
        before = len(fake.calls())
        await user.tap(msg, action_buttons(msg)[0])
        await fake.settle()
        methods = [c.method for c in fake.calls()[before:] if c.method != "getUpdates"]
        assert methods[0] == "answerCallbackQuery", methods
        notes = [m.text or "" for m in user.private_messages()
                 if "not made" in (m.text or "")]
        assert notes and "moved on" in notes[-1], notes
        fake.assert_all_callbacks_answered()
