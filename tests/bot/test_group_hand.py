""""🃏 My cards" on the group board (Bot API 10.3 ephemeral messages), through the real
application on the fake Bot API: a player who never opened the private chat plays a whole
game from the hand shown to them alone in the group, which is edited as the game moves on
and never offers a stale move; nobody else sees a card of it. On an older Bot API server the
tap opens the private chat instead, and nothing is posted."""

from __future__ import annotations

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.steps import BOARD_KEY, eph_key
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.present import deep_link
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import LeakScanner, action_buttons, players
from tests.bot.test_rough_edges import every_group_text
from tests.faketg import FakeChat, FakeTelegram, FakeUser


async def _start(fake: FakeTelegram, service: GameService, app: object, users: list[FakeUser],
                 group: FakeChat, absent: list[FakeUser], lang: str) -> int:
    """A game of the four, started through the service and shown by the app; everyone but
    the ``absent`` opened the private chat."""
    d = app.bot_data[DEPS_KEY]  # type: ignore[attr-defined]
    for u in users:
        if u not in absent:
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
    absent = [users[1], users[2]]  # Boris and Vera never open the private chat
    group = fake.create_group("Cards here", users, supergroup=True)
    app = make_app(fake, service)
    my_cards = "🃏 " + tr.gettext("My cards")
    async with fake.running(app):
        gid = await _start(fake, service, app, users, group, absent, lang)
        scanner = LeakScanner(fake, service, group, users)
        from_group = dict.fromkeys((u.id for u in absent), 0)
        for _ in range(3000):
            info = service.game_info(gid)
            if info.status != "active":
                break
            board = service.board(gid)
            assert board.view is not None
            mover = next(u for u in users if info.seat_of(u.id) in board.view.to_act)
            if mover in absent:
                shown = fake.message(group, int(info.meta[BOARD_KEY]))
                await mover.tap(shown, my_cards)
                (hand,) = fake.ephemeral.of(group.id, mover.id)  # the older one is gone
                assert hand.replaces == shown.message_id  # shown in place of the board
                # Only what works in the group: no queueing, no board or picture in private.
                taps = [Callback.decode(d) for d in hand.callback_data]
                assert not [t for t in taps if t.kind == "q"
                            or (t.kind == "v" and t.payload in ("board", "hand"))], taps
                buttons = action_buttons(hand)
                assert buttons, hand.text
                await mover.tap(hand, buttons[0])
                from_group[mover.id] += 1
                # Edited at once: the move made, no button left to play it again.
                assert action_buttons(hand) != buttons or not action_buttons(hand)
            else:
                msg = mover.last_message()
                buttons = action_buttons(msg)
                assert msg is not None and buttons
                await mover.tap(msg, buttons[0])
            scanner.scan(gid)
            # No hand in the group offers a move the game has moved past.
            version = service.game_info(gid).version
            for u in absent:
                for hand in fake.ephemeral.of(group.id, u.id):
                    offered = [Callback.decode(b) for b in action_buttons(hand)]
                    assert all(cb.version == version for cb in offered), (hand.text, version)
                    assert not offered or service.seat_view(gid, u.id).to_act
        assert service.game_info(gid).status == "finished"
        assert min(from_group.values()) >= 10, from_group
        assert not scanner.leaks, scanner.leaks[:3]
        # Every trick was shown in the group as it was won.
        tr_lines = [line for text in every_group_text(fake, group) for line in text.splitlines()]
        tricks = [e for m in service.history(gid) for e in m.to_json()["events"]
                  if e["type"] == "TrickWon"]
        assert len(tricks) >= 12
        for trick in tricks:
            cards = [present.card(tr, c) for c in trick["cards"]]
            assert any(all(c in line for c in cards) for line in tr_lines), cards
        for u in absent:
            # The hand they last saw offers no move of a game that is over; they never got a
            # private message.
            (hand,) = fake.ephemeral.of(group.id, u.id)
            assert not action_buttons(hand)
            assert u.private_messages() == []
        # The others were never shown a hand in the group.
        for u in users:
            if u not in absent:
                assert fake.ephemeral.of(group.id, u.id) == []


async def test_an_older_server_opens_the_private_chat_instead(
    fake: FakeTelegram, service: GameService
) -> None:
    fake.bot_api = (10, 0)
    users = players(fake, "en", base=9700)
    group = fake.create_group("Old server", users, supergroup=True)
    app = make_app(fake, service)
    async with fake.running(app):
        gid = await _start(fake, service, app, users, group, [users[3]], "en")
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
        gid = await _start(fake, service, app, users, group, [users[3]], "en")
        board = fake.message(group, int(service.game_info(gid).meta[BOARD_KEY]))
        answer = await outsider.tap(board, "🃏 My cards")
        assert answer is not None and answer.show_alert
        assert answer.text == "You are not playing in this game."
        assert fake.ephemeral.of(group.id, outsider.id) == []


async def test_in_a_forum_the_hand_is_shown_in_the_games_topic(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, "en", base=9800)
    group = fake.create_group("Forum", users, forum=True, bot_admin=True)
    topic = fake.create_topic(group, "Cards", by=users[0], announce=False)
    app = make_app(fake, service)
    async with fake.running(app):
        d = app.bot_data[DEPS_KEY]
        for u in users:
            await u.start_bot()
        info = service.create_game(group.id, users[0].id, topic_id=topic,
                                   creator_name=users[0].first_name, seed=4)
        for u in users[1:]:
            service.join(info.id, u.id, u.first_name)
        result = service.start(info.id, users[0].id)
        await d.deliverer.refresh_board(info.id, resend=True, pin=True)
        await d.deliverer.deliver(result.notifications, scene=result.scene)
        board = fake.message(group, int(service.game_info(info.id).meta[BOARD_KEY]))
        assert board.thread_id == topic
        await users[1].tap(board, "🃏 My cards")
        (hand,) = fake.ephemeral.of(group.id, users[1].id)
        assert hand.extra.get("message_thread_id") == topic
        assert hand.replaces == board.message_id
