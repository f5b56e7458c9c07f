"""Disabled buttons (Bot API 10.3) on the paths that do not go through PTB's own
``reply_markup``: the hand shown in the group to one player (an ephemeral message, edited
with ``editEphemeralMessageText``) and the rich board (``sendRichMessage`` and
``editMessageText`` with ``rich_message``, Bot API 10.1). On a server that does not read
disabled buttons, their keyboard goes in the older form (``·9♥·`` buttons that explain
themselves) as every other keyboard does, instead of being refused."""

from __future__ import annotations

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.bot.delivery import markup
from kolkhoz_tg.bot.steps import BOARD_KEY
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import open_game, players, tap_any_action
from tests.bot.test_disabled_buttons import disabled_of, expected
from tests.faketg import FakeTelegram, StoredMessage

# (PTB's edit_message_text has no rich_message yet: the bot edits through do_api_request.)
pytestmark = pytest.mark.filterwarnings("ignore:Please use 'Bot.editMessageText'")

HTML = "<h3>🌾 Year 1 of 5</h3><table><tr><th>Job</th></tr><tr><td>♥ 0/40</td></tr></table>"


def dotted(msg: StoredMessage) -> dict[str, str | None]:
    return {b.text: b.data for row in msg.buttons for b in row if b.text.startswith("·")}


async def test_the_hand_in_the_group_on_a_server_without_disabled_buttons(
    fake: FakeTelegram, service: GameService
) -> None:
    # Ephemeral messages, but buttons read as 10.2 reads them: "disabled" is unknown, and a
    # button with nothing else is refused.
    fake.buttons_api = (10, 2)
    tr = translator("en")
    users = players(fake, "en", base=7700)
    group = fake.create_group("Greyed here", users, supergroup=True)
    async with fake.running(make_app(fake, service)):
        gid = await open_game(fake, users, group)
        for _ in range(400):
            mover = next((u for u in users if service.seat_view(gid, u.id).to_act), None)
            assert mover is not None
            want, line = expected(service, tr, gid, mover)
            if line is not None and service.seat_view(gid, mover.id).view.phase.value == "play":
                break
            assert await tap_any_action(users)
        else:
            pytest.fail("nobody had a card they may not play")
        board = fake.message(group, int(service.game_info(gid).meta[BOARD_KEY]))
        await mover.tap(board, "🃏 " + tr.gettext("My cards"))
        (hand,) = fake.ephemeral.of(group.id, mover.id)
        assert not disabled_of(hand)
        shown = dotted(hand)
        assert set(shown) == {f"·{label}·" for label in want}
        assert all((data or "").startswith("x:") for data in shown.values())
        assert (hand.text or "").splitlines()[-1] == line
        # Tapped in the group, such a card says why it may not be played.
        label, reason = next(iter(want.items()))
        answer = await mover.tap(hand, f"·{label}·")
        assert answer is not None and answer.show_alert
        assert answer.text == present.reason_text(
            tr, reason, service.seat_view(gid, mover.id).view)


@pytest.mark.parametrize("version", [(10, 1), (10, 2)])
async def test_a_rich_message_on_a_server_without_disabled_buttons(
    fake: FakeTelegram, service: GameService, version: tuple[int, int]
) -> None:
    fake.bot_api = version  # rich messages (10.1), no disabled buttons (10.3)
    users = players(fake, "en", base=7800)
    group = fake.create_group("Rich, older", users, supergroup=True)
    keyboard = [[present.Button("9♥", "a:1:2:play:9H"),
                 present.Button("7♠", "x:1:2:play:7S", disabled=True)]]
    app = make_app(fake, service)
    async with fake.running(app):
        d = app.bot_data[DEPS_KEY].deliverer
        sent = await d.sender.send_group_rich(group.id, HTML, keyboard, d.steps.rich)
        assert sent is not None
        msg = fake.message(group, sent)
        assert "rich_message" in msg.extra
        assert not disabled_of(msg) and dotted(msg) == {"·7♠·": "x:1:2:play:7S"}
        keyboard[0].append(present.Button("8♣", "x:1:2:play:8C", disabled=True))
        await d.steps.rich.edit(d.bot, group.id, sent, HTML.replace("0/40", "5/40"),
                                markup(keyboard))
        assert "5/40" in (msg.text or "")
        assert dotted(msg) == {"·7♠·": "x:1:2:play:7S", "·8♣·": "x:1:2:play:8C"}
        # Refused at most once for the whole process, then sent in the older form at once.
        refused = [c for c in fake.sent_log
                   if not c.ok and "keyboard button" in (c.description or "").lower()]
        assert len(refused) == 1
