"""↩ Take back, through the real application on the fake Bot API, in English and Russian:
the card taken back and the game exactly as before (the player asked again, the next player's
buttons gone, the board saying so), then refused with nothing changed: a second tap, an old
button, after the next player acted, for the card that closed the trick, and with the chat's
setting off."""

from __future__ import annotations

import pytest

from engine import Phase
from kolkhoz_tg.bot.callbacks import view_button
from kolkhoz_tg.bot.steps import BOARD_KEY
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from kolkhoz_tg.service.takeback import TAKEBACK, effective_log
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, players, start_with_bots, tap_any_action
from tests.faketg import FakeChat, FakeTelegram, FakeUser

SUFFIX = ":" + TAKEBACK


def _takeback_data(user: FakeUser) -> str | None:
    msg = user.last_message()
    if msg is None:
        return None
    return next((b.data for row in msg.buttons for b in row
                 if b.data and b.data.endswith(SUFFIX)), None)


def _to_act(service: GameService, game_id: int, users: list[FakeUser]) -> FakeUser:
    board = service.board(game_id)
    assert board.view is not None
    seat = board.view.to_act[0]
    return next(u for u in users if service.game_info(game_id).seat_of(u.id) == seat)


async def _play_card(user: FakeUser) -> None:
    msg = user.last_message()
    buttons = action_buttons(msg)
    assert msg is not None and buttons and all(":play:" in b for b in buttons), buttons
    await user.tap(msg, buttons[0])


def _board_text(fake: FakeTelegram, service: GameService, group: FakeChat, game_id: int) -> str:
    board_id = service.game_info(game_id).meta[BOARD_KEY]
    return fake.message(group, int(board_id)).text or ""


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_take_back_and_its_refusals(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    tr = translator(lang)
    _ = tr.gettext
    if lang == "ru":
        assert _("Take back") != "Take back"
    users = players(fake, lang, base=9300 if lang == "en" else 9350)
    group = fake.create_group("Undo", users)
    app = make_app(fake, service)
    async with fake.running(app):
        gid = await start_with_bots(app, service, users, group, bots=0, seed=5)
        await users[0].send(group, f"/lang {lang}")  # the board in the players' language
        for _step in range(20):  # up to the first trick's lead
            board = service.board(gid)
            assert board.view is not None
            if board.view.phase is Phase.PLAY:
                break
            assert await tap_any_action(users)
        leader = _to_act(service, gid, users)
        before = service.snapshot(gid)
        assert before is not None
        await _play_card(leader)
        nxt = _to_act(service, gid, users)
        assert action_buttons(nxt.last_message())
        data = _takeback_data(leader)
        assert data is not None
        msg = leader.last_message()
        assert msg is not None
        assert msg.find_button(data).text == "↩ " + _("Take back")
        version = service.game_info(gid).version

        # Taken back: the game exactly as before, the player asked again.
        answer = await leader.tap(msg, data)
        assert answer is not None and not answer.show_alert
        after = service.snapshot(gid)
        assert after is not None and after.to_json() == before.to_json()
        assert service.game_info(gid).version == version + 1
        assert action_buttons(leader.last_message())  # their move again, fresh buttons
        assert _takeback_data(leader) is None
        assert not action_buttons(nxt.last_message())  # no longer the next player's move
        name = leader.first_name
        assert _("{name} took back their card.", name=name) in _board_text(fake, service,
                                                                           group, gid)
        # the same tap again: done already, nothing more
        again = await leader.tap(msg, data, force=True)
        assert again is not None and again.text == _("Already done.")
        assert service.game_info(gid).version == version + 1

        # The card played again is final (one take-back a turn).
        await _play_card(leader)
        assert _takeback_data(leader) is None

        # The next player's card: an old button is stale once the game changed otherwise.
        await _play_card(nxt)
        old = _takeback_data(nxt)
        assert old is not None
        await users[0].send(group, "/pause")
        await users[0].send(group, "/resume")
        state = service.snapshot(gid)
        version = service.game_info(gid).version
        nxt_msg = nxt.last_message()
        assert nxt_msg is not None
        stale = await nxt.tap(nxt_msg, old, force=True)
        assert stale is not None and stale.text == _("The game has moved on; look again.")
        assert service.game_info(gid).version == version and service.snapshot(gid) == state

        # After the next player acted: too late.
        current = _takeback_data(nxt) or view_button(gid, version, TAKEBACK)
        third = _to_act(service, gid, users)
        await _play_card(third)
        late = await nxt.tap(nxt_msg, current, force=True)
        assert late is not None and late.show_alert
        assert late.text == _("Too late to take your card back: someone has played since.")
        assert service.snapshot(gid) is not None and service.game_info(gid).version == version + 1

        # The card that closes the trick cannot be taken back.
        fourth = _to_act(service, gid, users)
        await _play_card(fourth)
        assert _takeback_data(fourth) is None
        version = service.game_info(gid).version
        fourth_msg = fourth.last_message()
        assert fourth_msg is not None
        closed = await fourth.tap(fourth_msg, view_button(gid, version, TAKEBACK), force=True)
        assert closed is not None
        assert closed.text == _("Your card completed the trick: it cannot be taken back.")
        assert service.game_info(gid).version == version

        # The chat's setting off: no button, and a forged tap is refused.
        await users[0].send(group, "/settings takeback off")
        reply = fake.last_message(group)
        assert reply is not None and reply.text == _(
            "Cards played here can no longer be taken back (practice games still allow it).")
        for _step in range(20):
            board = service.board(gid)
            assert board.view is not None
            if board.view.phase is Phase.PLAY and not board.view.trick:
                break
            assert await tap_any_action(users)
        lead = _to_act(service, gid, users)
        await _play_card(lead)
        assert _takeback_data(lead) is None
        version = service.game_info(gid).version
        lead_msg = lead.last_message()
        assert lead_msg is not None
        off = await lead.tap(lead_msg, view_button(gid, version, TAKEBACK), force=True)
        assert off is not None
        assert off.text == _("Taking back a card is switched off in this chat.")
        assert service.game_info(gid).version == version

    # The log keeps the card and its take-back; a replay rebuilds the stored state.
    log = service.action_log(gid)
    assert [e["actor"] for e in log].count("takeback") == 1
    assert len(effective_log(log)) == len(log) - 2
    assert service.replay(gid) == service.snapshot(gid)
