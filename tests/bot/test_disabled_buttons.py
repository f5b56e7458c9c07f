"""Unplayable cards as disabled buttons (Bot API 10.3), through the real application on the
fake Bot API: in a whole game every private move message shows the cards that may not be
played as disabled buttons, with the engine's reason on the line above the keyboard, and the
hand shown in the group reads the same; the completing assignment is green and says ✅ too.
On an older server (10.0, 9.3) the cards are today's ``·9♥·`` buttons that explain
themselves when tapped, learned from one refusal (the refused call made again at once) or
known from the operator's setting without any."""

from __future__ import annotations

import logging

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.bot.app import build_application
from kolkhoz_tg.bot.delivery import markup
from kolkhoz_tg.bot.disabled import Markup, supported_by
from kolkhoz_tg.bot.steps import BOARD_KEY
from kolkhoz_tg.i18n import Translator, translator
from kolkhoz_tg.present.hand import trump_mark
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, move_message, open_game, players, tap_any_action
from tests.conftest import make_settings
from tests.faketg import FakeTelegram, FakeUser, StoredMessage, inprocess_builder
from tests.faketg.models import Button as FakeButton


def disabled_of(msg: StoredMessage) -> list[FakeButton]:
    return [b for row in msg.buttons for b in row if "disabled" in b.raw]


def refusals(fake: FakeTelegram) -> list[str]:
    """The Bot API calls refused for a button of their keyboard."""
    return [c.method for c in fake.sent_log
            if not c.ok and "keyboard button" in (c.description or "").lower()]


def expected(service: GameService, tr: Translator, gid: int,
             user: FakeUser) -> tuple[dict[str, str], str | None]:
    """What the mover's message must show now, asked of the engine through the service:
    each card label that may not be played, with its reason code, and the reason line."""
    sv = service.seat_view(gid, user.id)
    out: dict[str, str] = {}
    for c in sv.view.players[sv.seat].hand or ():
        reason = service.why_illegal(gid, user.id, f"play:{c}")
        if reason is not None:
            out[present.card(tr, str(c)) + trump_mark(sv.view, str(c))] = reason
    reasons = list(dict.fromkeys(out.values()))
    if not reasons:
        return out, None
    return out, "🚫 " + " ".join(present.reason_text(tr, r, sv.view) for r in reasons)


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_whole_game_with_disabled_cards(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    tr = translator(lang)
    users = players(fake, lang, base=7400 if lang == "en" else 7450)
    group = fake.create_group("Greyed", users, supergroup=True)
    async with fake.running(make_app(fake, service)):
        gid = await open_game(fake, users, group)
        await users[0].send(group, f"/lang {lang}")
        checked, reasons, green, in_group = 0, set(), 0, False
        for _ in range(3000):
            info = service.game_info(gid)
            if info.status != "active":
                break
            for u in users:
                sv = service.seat_view(gid, u.id)
                if not sv.to_act or sv.view.phase.value != "play":
                    continue
                msg = move_message(u)
                assert msg is not None and msg.text is not None
                want, line = expected(service, tr, gid, u)
                shown = disabled_of(msg)
                assert {b.text for b in shown} == set(want), (msg.text, msg.buttons)
                assert all(b.data is None and b.raw["disabled"] == {} for b in shown)
                if line is None:
                    continue
                assert msg.text.splitlines()[-1] == line, msg.text
                checked += 1
                reasons.update(want.values())
                if not in_group:
                    # The hand shown in the group to the mover alone reads the same.
                    board = fake.message(group, int(info.meta[BOARD_KEY]))
                    await u.tap(board, "🃏 " + tr.gettext("My cards"))
                    (hand,) = fake.ephemeral.of(group.id, u.id)
                    assert {b.text for b in disabled_of(hand)} == set(want)
                    assert (hand.text or "").splitlines()[-1] == line
                    in_group = True
            for u in users:
                msg = u.last_message()
                for b in [] if msg is None else [b for row in msg.buttons for b in row]:
                    if b.raw.get("style") == "success":
                        assert "✅" in b.text  # colour is never the only cue
                        green += 1
            assert await tap_any_action(users)
        assert service.game_info(gid).status == "finished"
        assert checked >= 5 and in_group
        assert "follow_suit" in reasons
        assert green >= 1
        # No look-alike ·9♥· button and no explain tap was ever sent on this server.
        for u in users:
            for m in fake.messages(u):
                for row in m.buttons:
                    assert not any(b.text.startswith("·") for b in row), m.buttons
                    assert not any((b.data or "").startswith("x:") for b in row)
        assert not refusals(fake), "no keyboard was refused"


@pytest.mark.parametrize(("version", "setting"), [((10, 0), None), ((9, 3), "9.3")])
async def test_an_older_server_gets_explain_buttons(
    fake: FakeTelegram, service: GameService, caplog: pytest.LogCaptureFixture,
    version: tuple[int, int], setting: str | None,
) -> None:
    fake.bot_api = version
    tr = translator("en")
    users = players(fake, "en", base=7500 if setting is None else 7550)
    group = fake.create_group("Old server", users, supergroup=True)
    app = build_application(inprocess_builder(fake), service,
                            make_settings(bot_api_version=setting), schedule=False,
                            rate_limiter=False, retry_delays=(0.0,), bot_workers=0,
                            bot_iterations=8)
    caplog.set_level(logging.WARNING, logger="kolkhoz_tg.bot.disabled")
    async with fake.running(app):
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
        msg = move_message(mover)
        assert msg is not None and msg.text is not None
        assert not disabled_of(msg)
        dotted = {b.text: b.data for row in msg.buttons for b in row if b.text.startswith("·")}
        assert set(dotted) == {f"·{label}·" for label in want}
        assert all((data or "").startswith("x:") for data in dotted.values())
        assert msg.text.splitlines()[-1] == line
        label, reason = next(iter(want.items()))
        answer = await mover.tap(msg, f"·{label}·")
        sv = service.seat_view(gid, mover.id)
        assert answer is not None and answer.show_alert
        assert answer.text == present.reason_text(tr, reason, sv.view)
        # Every player got their messages; the server refused at most the first keyboard
        # with a disabled button, and that call was made again at once in the older form.
        assert len(refusals(fake)) == (1 if setting is None else 0)
        warned = [r for r in caplog.records if "no disabled buttons" in r.getMessage()]
        assert len(warned) == (1 if setting is None else 0)
        for u in users:
            assert u.private_messages()
        assert action_buttons(move_message(mover))


def test_the_markup_holds_both_forms() -> None:
    keyboard = [[present.Button("9♥", "a:1:2:play:9H"),
                 present.Button("7♠", "x:1:2:play:7S", disabled=True),
                 present.Button("♦ 39→51 ✅", "a:1:2:assign", style="success")]]
    sent = markup(keyboard)
    assert isinstance(sent, Markup)
    assert sent.to_dict()["inline_keyboard"] == [[
        {"text": "9♥", "callback_data": "a:1:2:play:9H"},
        {"text": "7♠", "disabled": {}},
        {"text": "♦ 39→51 ✅", "callback_data": "a:1:2:assign", "style": "success"}]]
    assert "legacy" not in sent.to_json()
    assert sent.legacy.to_dict()["inline_keyboard"][0][1] == {
        "text": "·7♠·", "callback_data": "x:1:2:play:7S"}
    plain = markup([[present.Button("9♥", "a:1:2:play:9H")]])
    assert plain is not None and not isinstance(plain, Markup)
    assert [supported_by(v) for v in (None, "9.3", "10.0", "10.3", "11.0")] == [
        None, False, False, True, True]
