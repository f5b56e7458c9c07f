""""🃏 My cards" on the group board (Bot API 10.3 ephemeral messages), through the real
application on the fake Bot API: a player who never opened the private chat plays a whole
game from the hand shown to them alone in the group, which is edited as the game moves on
and never offers a stale move; nobody else sees a card of it. On an older Bot API server the
tap opens the private chat instead, and nothing is posted."""

from __future__ import annotations

import pytest

from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.steps import BOARD_KEY, eph_key
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import deep_link
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import LeakScanner, action_buttons, players
from tests.faketg import FakeChat, FakeTelegram, FakeUser


async def _start(fake: FakeTelegram, service: GameService, app: object, users: list[FakeUser],
                 group: FakeChat, absent: FakeUser, lang: str) -> int:
    """A game of the four, started through the service and shown by the app; everyone but
    ``absent`` opened the private chat."""
    d = app.bot_data[DEPS_KEY]  # type: ignore[attr-defined]
    for u in users:
        if u is not absent:
            await u.start_bot()
    info = service.create_game(group.id, users[0].id, creator_name=users[0].first_name,
                               seed=11)
    for u in users[1:]:
        service.join(info.id, u.id, u.first_name)
    result = service.start(info.id, users[0].id)
    await d.deliverer.refresh_board(info.id, resend=True, pin=True)
    await d.deliverer.deliver(result.notifications, scene=result.scene)
    await users[0].send(group, f"/lang {lang}")
    return info.id


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_whole_game_from_the_hand_in_the_group(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    tr = translator(lang)
    users = players(fake, lang, base=9600 if lang == "en" else 9650)
    vera = users[2]
    group = fake.create_group("Cards here", users, supergroup=True)
    app = make_app(fake, service)
    my_cards = "🃏 " + tr.gettext("My cards")
    async with fake.running(app):
        gid = await _start(fake, service, app, users, group, vera, lang)
        scanner = LeakScanner(fake, service, group, users)
        from_group = 0
        for _ in range(3000):
            info = service.game_info(gid)
            if info.status != "active":
                break
            board = service.board(gid)
            assert board.view is not None
            mover = next(u for u in users if info.seat_of(u.id) in board.view.to_act)
            if mover is vera:
                shown = fake.message(group, int(info.meta[BOARD_KEY]))
                await vera.tap(shown, my_cards)
                (hand,) = fake.ephemeral.of(group.id, vera.id)  # the older one is gone
                assert hand.replaces == shown.message_id  # shown in place of the board
                buttons = action_buttons(hand)
                assert buttons, hand.text
                await vera.tap(hand, buttons[0])
                from_group += 1
                # Edited at once: the move made, no button left to play it again.
                assert action_buttons(hand) != buttons or not action_buttons(hand)
            else:
                msg = mover.last_message()
                buttons = action_buttons(msg)
                assert msg is not None and buttons
                await mover.tap(msg, buttons[0])
            scanner.scan(gid)
        assert service.game_info(gid).status == "finished"
        assert from_group >= 10
        assert not scanner.leaks, scanner.leaks[:3]
        # The hand she last saw offers no move of a game that is over; no private message.
        (hand,) = fake.ephemeral.of(group.id, vera.id)
        assert not action_buttons(hand)
        assert vera.private_messages() == []
        # Nobody else was ever shown her hand in the group.
        for u in users:
            if u is not vera:
                assert fake.ephemeral.of(group.id, u.id) == []


async def test_an_older_server_opens_the_private_chat_instead(
    fake: FakeTelegram, service: GameService
) -> None:
    fake.bot_api = (10, 0)
    users = players(fake, "en", base=9700)
    group = fake.create_group("Old server", users, supergroup=True)
    app = make_app(fake, service)
    async with fake.running(app):
        gid = await _start(fake, service, app, users, group, users[3], "en")
        before = [m.text for m in fake.messages(group)]
        board = fake.message(group, int(service.game_info(gid).meta[BOARD_KEY]))
        answer = await users[1].tap(board, "🃏 My cards")
        assert answer is not None and answer.url == deep_link(fake.bot_username, gid)
        assert [m.text for m in fake.messages(group)] == before  # the placeholder went
        assert eph_key(users[1].id) not in service.game_info(gid).meta
        # and once known, the server is not asked again
        calls = len(fake.calls("sendMessage"))
        answer = await users[2].tap(board, "🃏 My cards")
        assert answer is not None and answer.url is not None
        assert len(fake.calls("sendMessage")) == calls


async def test_a_tap_by_someone_without_a_seat(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, "en", base=9750)
    outsider = fake.user(9799, "Zoe", language_code="en")
    group = fake.create_group("Watchers", [*users, outsider], supergroup=True)
    app = make_app(fake, service)
    async with fake.running(app):
        gid = await _start(fake, service, app, users, group, users[3], "en")
        board = fake.message(group, int(service.game_info(gid).meta[BOARD_KEY]))
        answer = await outsider.tap(board, "🃏 My cards")
        assert answer is not None and answer.show_alert
        assert answer.text == "You are not playing in this game."
        assert fake.ephemeral.of(group.id, outsider.id) == []
