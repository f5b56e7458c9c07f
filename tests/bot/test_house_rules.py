"""House rules at the table (RULES.md revision 4), through the real application on the fake
Telegram: the lobby's *House rules* screen and ``/newgame`` typed with options, the game's
title everywhere ("Classic + passing, 4 years"), ``/rules`` of the game played, and a
house-rule game kept out of the ratings but listed in ``/stats me``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import preset
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import (
    LeakScanner,
    open_lobby,
    players,
    start_with_bots,
    tap_any_action,
)
from tests.faketg import FakeTelegram

WORDS = {
    "en": {"house": "⚙ House rules", "pass": "passing", "years": "Years: 5",
           "title": "Classic + passing, 4 years", "back": "« Back",
           "as_is": "↺ As in Classic", "rules_line": "Passing: from year 2"},
    "ru": {"house": "⚙ Домашние правила", "pass": "передача карт", "years": "Лет: 5",
           "title": "Классика + передача карт, 4 года", "back": "« Назад",
           "as_is": "↺ Вернуть набор «Классика»", "rules_line": "Передача карт: со второго года"},
}


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_creator_changes_options_on_the_house_rules_screen(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    w = WORDS[lang]
    users = players(fake, lang, base=8100 if lang == "en" else 8150)
    group = fake.create_group("House", users)
    async with fake.running(make_app(fake, service)):
        lobby, game_id = await open_lobby(fake, service, users[0], group)
        # Only the creator opens the screen.
        answer = await users[1].tap(lobby, w["house"])
        assert answer is not None and answer.show_alert
        await users[0].tap(lobby, w["house"])
        screen = fake.message(group, lobby.message_id)
        assert "▫️ " + w["pass"] in screen.button_texts
        assert all(len(t) <= 40 for t in screen.button_texts)
        # A yes-or-no option is a switch; the lobby's text names the change at once.
        await users[0].tap(screen, "▫️ " + w["pass"])
        screen = fake.message(group, lobby.message_id)
        assert "✏️ ✅ " + w["pass"] in screen.button_texts  # marked as changed
        assert service.game_info(game_id).rules.pass_cards is True
        # A tap by someone else, and one on the screen before this change, change nothing.
        answer = await users[1].tap(screen, "✏️ ✅ " + w["pass"])
        assert answer is not None and answer.show_alert
        answer = await users[0].tap(lobby, "▫️ " + w["pass"], force=True)
        assert service.game_info(game_id).rules.pass_cards is True
        # The years open a menu of 1 to 10.
        await users[0].tap(fake.message(group, lobby.message_id), w["years"])
        years = fake.message(group, lobby.message_id)
        assert [t.removeprefix("✅ ") for t in years.button_texts[:10]] == [
            str(n) for n in range(1, 11)]
        await users[0].tap(years, "4")
        info = service.game_info(game_id)
        assert info.rules.years == 4 and info.preset == "classic"
        text = fake.message(group, lobby.message_id).text or ""
        assert w["title"] in text
        # /rules in the group describes the game played, not only the preset.
        before = len(fake.messages(group))
        await users[2].send(group, "/rules")
        said = "\n".join(m.text or "" for m in fake.messages(group)[before:])
        assert w["rules_line"] in said and w["title"] in said
        # Back to the preset as it is, and back to the lobby.
        await users[0].tap(fake.message(group, lobby.message_id), w["as_is"])
        info = service.game_info(game_id)
        assert info.rules == preset("classic")
        await users[0].tap(fake.message(group, lobby.message_id), w["back"])
        assert w["house"] in fake.message(group, lobby.message_id).button_texts


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_newgame_takes_house_rules_typed_and_refuses_a_bad_one(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    w = WORDS[lang]
    users = players(fake, lang, base=8200 if lang == "en" else 8250)
    group = fake.create_group("Typed house", users)
    async with fake.running(make_app(fake, service)):
        await users[0].send(group, "/newgame classic years=11")
        assert not service.games_in_chat(group.id)  # a typo opens nothing
        await users[0].send(group, "/newgame classic medals pass years=4")
        games = service.games_in_chat(group.id)
        assert len(games) == 1
        rules = games[0].rules
        assert rules.pass_cards and rules.medals_score and rules.years == 4
        assert w["title"] in (fake.message(group, games[0].meta["board"]).text or "")


async def test_a_house_rule_game_is_kept_out_of_the_ratings_and_listed_in_stats_me(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=8300)
    group = fake.create_group("Short plan", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await start_with_bots(app, service, users, group, bots=0,
                                        options={"years": 1, "hero": True})
        info = service.game_info(game_id)
        for _ in range(200):
            if not await tap_any_action(users):
                break
        assert service.game_info(info.id).status == "finished"
        assert service.user_ratings(users[0].id) == []
        await users[0].send(users[0], "/stats")
        text = fake.last_message(users[0]).text or ""  # type: ignore[union-attr]
        assert "no rated games" in text
        assert f'#{info.id} "Classic + the Hero, 1 year"' in text
        assert "place " in text


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_game_with_passing_is_played_to_the_end_by_buttons_and_keeps_the_secret(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    """Classic + passing, 2 years, four players by taps only: in year 2 each chooses a
    card on the ↪ buttons, the board says only who is still choosing, each private
    message then names the card passed and the one received (it is in the hand), no
    message shows anyone a card they may not see, and the game ends."""
    users = players(fake, lang, base=8400 if lang == "en" else 8450)
    group = fake.create_group("Passing", users)
    app = make_app(fake, service)
    waiting = {"en": "Passing: waiting for", "ru": "Передача карт — ещё выбирают"}[lang]
    told = {"en": "You passed", "ru": "Вы передали"}[lang]
    service.set_chat_locale(group.id, lang)
    async with fake.running(app):
        game_id = await start_with_bots(app, service, users, group, bots=0, seed=11,
                                        options={"years": 2, "pass_cards": True})
        info = service.game_info(game_id)
        scanner = LeakScanner(fake, service, group, users)
        passed = False
        for _ in range(400):
            view = service.scene(info.id).board.view
            if view is not None and view.phase == "pass":
                board = fake.message(group, service.game_info(info.id).meta["board"])
                assert waiting in (board.text or "")
                chooser = next(u for u in users if service.seat_view(info.id, u.id).to_act)
                msg = chooser.last_message()
                assert msg is not None
                buttons = [b for row in msg.buttons for b in row if b.text.startswith("↪")]
                hand = service.seat_view(info.id, chooser.id).view.to_dict()["players"]
                assert len(buttons) == len(hand[info.seat_of(chooser.id)]["hand"])
                await chooser.tap(msg, buttons[0].text)
                passed = True
            elif not await tap_any_action(users):
                break
            scanner.scan(info.id)
        assert passed
        assert service.game_info(info.id).status == "finished"
        assert not scanner.leaks, scanner.leaks[:3]
        # Each player was told, privately, what they passed and received.
        for u in users:
            assert any(told in (m.text or "") for m in fake.messages(u)), u.first_name
        assert not any(told in (m.text or "") for m in fake.messages(group))


def test_every_option_of_the_rules_is_offered_and_named_in_both_languages() -> None:
    """The House rules screen offers every field of engine.Rules, and each value it offers
    has words in both languages (a field added to the rules without them fails here)."""
    import dataclasses

    from engine import Rules
    from kolkhoz_tg import house_rules
    from kolkhoz_tg.i18n import translator

    assert {o.field for o in house_rules.OPTIONS} == {f.name for f in dataclasses.fields(Rules)}
    for lang in ("en", "ru"):
        tr = translator(lang)
        for option in house_rules.OPTIONS:
            for value in option.values:
                label = house_rules.value_label(tr, option.field, value)
                assert "=" not in label and label, (lang, option.field, value)


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_an_option_with_no_effect_under_the_rest_is_shown_as_such(lang: str) -> None:
    """RULES.md: combinations that make an option inert are allowed and shown as such, e.g.
    the Hero where nobody wins reward cards (Zone searches everyone)."""
    from kolkhoz_tg import present
    from kolkhoz_tg.i18n import translator

    tr = translator(lang)
    note = tr.gettext("{option} (no effect with these rules)", option="").strip()
    zone = replace(preset("zone"), hero=True)
    classic = replace(preset("classic"), hero=True)
    one_year = replace(preset("classic"), pass_cards=True, years=1)
    assert note in present.rules_title(tr, "zone", zone)
    assert note not in present.rules_title(tr, "classic", classic)
    assert note in present.rules_title(tr, "classic", one_year)
