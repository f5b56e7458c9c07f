"""Rough edges of a real group, smoothed (issue 12): /board pins the board it sends anew, /log
in a group is a short summary with the full log one tap away in private, tables read on a
phone, the year's summary says each failure once with the cards sent north and whose they
were, and a player the bot cannot write to hears of the deadline in the group."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from typing import Any

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.bot.context import DEPS_KEY
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, open_game, players, tap_any_action
from tests.faketg import FakeTelegram, FakeUser, StoredMessage


async def test_board_sent_anew_is_pinned_where_the_bot_may_pin(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=5000)
    group = fake.create_group("Pinned", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        assert await tap_any_action(users)
        old = service.game_info(game_id).meta["board"]
        await users[1].send(group, "/board")
        board = service.game_info(game_id).meta["board"]
        assert board != old and fake.message(group, old).deleted
        assert group.pinned and group.pinned[0] == board
        pins = [c for c in fake.calls("pinChatMessage", ok=True)
                if int(c.params["message_id"]) == board]
        assert pins and pins[-1].params.get("disable_notification") in (True, "true")


async def test_board_is_only_sent_where_the_bot_may_not_pin(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=5010)
    group = fake.create_group("No pins", users)
    group.permissions["can_pin_messages"] = False  # members (the bot too) may not pin
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        old = service.game_info(game_id).meta["board"]
        await users[1].send(group, "/board")
        board = service.game_info(game_id).meta["board"]
        assert board != old and not group.pinned
        assert "Plowing" in (fake.message(group, board).text or "")
        assert fake.last_message(group) == fake.message(group, board)


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_year_summary_says_a_failure_once_and_whose_cards_go_north(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    users = players(fake, lang=lang, base=5100 if lang == "en" else 5200)
    group = fake.create_group("Requisition", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        while await tap_any_action(users):
            pass
    assert service.game_info(game_id).status == "finished"
    tr = translator(lang)
    info = service.game_info(game_id)
    title = tr.gettext("Year {year}: the plan's results", year=0).split("0")[-1]
    summaries = [m.text or "" for m in fake.messages(group) if title in (m.text or "")]
    assert len(summaries) >= 4
    sent = 0
    for move in (m.to_json() for m in service.history(game_id)):
        ended = [e["year"] for e in move["events"] if e["type"] == "YearEnded"]
        if not ended:
            continue
        text = next(t for t in summaries if t.startswith(
            tr.gettext("Year {year}: the plan's results", year=ended[0])))
        lines = text.splitlines()
        for e in move["events"]:
            job = present.job_name(tr, "jobs", e.get("job") or "H")
            if e["type"] == "JobFailed":
                # Said once: one line names the job's failure.
                told = [line for line in lines if line.startswith("❌ " + job)]
                assert len(told) == 1, text
            if e["type"] == "CardSentNorth":
                sent += 1
                who, card = info.names[e["seat"]], present.card(tr, e["card"])
                owned = f"{who}'s {card}" if lang == "en" else f"{card} ({who})"
                line = next(line for line in lines if line.startswith("❌ " + job))
                assert owned in line and ("north" in line or "на Север" in line), text
        assert "requisitioned" not in text and "реквизиция" not in text
    assert sent, "no card went north in the whole game: pick another seed"


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_score_tables_have_no_padding_that_a_phone_would_misalign(
    fake: FakeTelegram, service: GameService, lang: str
) -> None:
    """Telegram shows plain text in a proportional font: spaces never line columns up, so the
    final table, /score and /stats put no run of spaces between name and number."""
    users = players(fake, lang=lang, base=5300 if lang == "en" else 5400)
    group = fake.create_group("Tables", users)
    tr = translator(lang)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        while await tap_any_action(users):
            pass
        info = service.game_info(game_id)
        assert info.result is not None
        head = tr.gettext("🏁 The five-year plan is complete")
        final = next(m.text or "" for m in fake.messages(group) if (m.text or "").startswith(head))
        await users[0].send(group, "/score")
        score = fake.last_message(group).text or ""  # type: ignore[union-attr]
        await users[0].send(group, "/stats")
        stats = fake.last_message(group).text or ""  # type: ignore[union-attr]
    scores = info.result.scores
    for text in (final, score, stats):
        assert "  " not in text and "\u00a0" not in text, text
    for seat, name in enumerate(info.names):
        points = tr.ngettext("{n} point", "{n} points", scores[seat])
        rows = [line for line in final.splitlines() if f". {name} — {points}" in line]
        assert len(rows) == 1, final
        assert any(f"{name} — {points}" in line for line in score.splitlines()), score
        assert any(f". {name}: " in line for line in stats.splitlines()), stats
    assert "🏆" in final
    # Average places in the reader's notation: 2.0 in English, 2,0 in Russian.
    average = r"среднее место \d+,\d" if lang == "ru" else r"average place \d+\.\d"
    assert re.search(average, stats), stats


async def test_log_in_a_group_is_a_summary_with_the_full_log_in_private(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=5500)
    stranger = fake.user(5599, "Stranger", language_code="en")
    group = fake.create_group("Log", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        while await tap_any_action(users):
            pass
        info = service.game_info(game_id)
        assert info.result is not None
        before = len(fake.bot_messages(group))
        await users[2].send(group, "/log")
        # One short message in the group: rules, years, the winner, the scores, a button.
        new = fake.bot_messages(group)[before:]
        assert len(new) == 1
        summary = new[0]
        text = summary.text or ""
        assert len(text.splitlines()) <= 6, text
        assert "Classic" in text and "5 years played" in text and "🏆" in text
        for seat, name in enumerate(info.names):
            assert f"{name} {info.result.scores[seat]}" in text
        button = summary.buttons[0][0]
        assert button.url is not None and button.url.endswith(f"start=log{game_id}")
        # The button opens the whole game, move by move, in private.
        reader = users[2]
        seen = len(fake.messages(reader))
        await reader.open_link(button.url)
        log = "\n".join(m.text or "" for m in fake.messages(reader)[seen:])
        assert "The log of game" in log and "Year 5 is over" in log
        # /log in private sends it too (the player's last finished game).
        seen = len(fake.messages(users[3]))
        await users[3].send(None, "/log")
        log = "\n".join(m.text or "" for m in fake.messages(users[3])[seen:])
        assert "The log of game" in log and "Year 5 is over" in log
        # Someone outside the group gets no log by the link.
        await stranger.open_link(button.url)
        got = "\n".join(m.text or "" for m in fake.messages(stranger))
        assert "The log of game" not in got and "not in" in got


async def test_log_of_a_game_called_off_is_a_summary_too(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, lang="ru", base=5600)
    group = fake.create_group("Отмена", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(6):
            assert await tap_any_action(users)
        await users[0].send(group, "/abort")
        confirm = fake.last_message(group)
        if confirm is not None and confirm.buttons:  # a confirmation, when asked for
            await users[0].tap(confirm, confirm.buttons[0][0].text)
        assert service.game_info(game_id).status == "aborted"
        await users[1].send(group, "/log")
        summary = fake.last_message(group)
        assert summary is not None
        assert "Партию отменили на 1-м году пятилетки." in (summary.text or "")
        assert summary.buttons[0][0].text == "📜 Полный журнал"
        seen = len(fake.messages(users[1]))
        await users[1].open_button(summary, "📜 Полный журнал")
        log = "\n".join(m.text or "" for m in fake.messages(users[1])[seen:])
        assert "Журнал партии" in log and "Начинается год 1." in log


async def due(app: Any, service: GameService) -> None:
    """Run the clock's sweep and deliver what it wrote, as the bot's jobs do."""
    result = await asyncio.to_thread(service.sweep)
    await app.bot_data[DEPS_KEY].deliverer.deliver(result.notifications)


async def test_unreachable_player_is_mentioned_once_near_the_deadline(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = players(fake, base=5700)
    group = fake.create_group("Near the deadline", users)
    shy = users[3]  # never opens the private chat
    app = make_app(fake, service)
    async with fake.running(app):
        for u in users[:3]:
            await u.start_bot()
        await users[0].send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), "Join")
        await users[0].tap(fake.message(group, lobby.message_id), "Start ▶")
        game_id = service.games_in_chat(group.id)[0].id
        reachable = users[:3]

        def mentions_of(user: FakeUser) -> list[StoredMessage]:
            return [m for m in fake.bot_messages(group)
                    if "time runs out" in (m.text or "") and str(user.id) in str(m.entities)]

        # The others play until the shy player must move (the bot mentions them once when
        # their turn comes, as before: that is not a reminder).
        while not service.seat_view(game_id, shy.id).to_act:
            assert await tap_any_action(reachable)
        deadline = service.game_info(game_id).deadline
        assert deadline is not None
        # Half time: the first reminder fails privately; the group hears nothing yet.
        clock.set(deadline - timedelta(hours=12) + timedelta(minutes=1))
        await due(app, service)
        assert not mentions_of(shy)
        # The last reminder, near the deadline: one mention with the button to the bot, and
        # only one however often the clock and the relay run.
        clock.set(deadline - timedelta(minutes=59))
        await due(app, service)
        await due(app, service)
        await app.bot_data[DEPS_KEY].relay.drain()
        mentions = mentions_of(shy)
        assert len(mentions) == 1, [m.text for m in fake.bot_messages(group)]
        link = next(b.url for row in mentions[0].buttons for b in row if b.url)
        assert link.endswith(f"start=g{game_id}")
        await shy.open_link(link)  # the button opens their cards
        assert action_buttons(shy.last_message())
        # A reachable player's last reminder goes out privately: nobody is mentioned.
        while not any(service.seat_view(game_id, u.id).to_act for u in reachable):
            clock.set((service.game_info(game_id).deadline or deadline) + timedelta(minutes=1))
            await due(app, service)
        waiting = next(u for u in reachable if service.seat_view(game_id, u.id).to_act)
        deadline = service.game_info(game_id).deadline
        assert deadline is not None
        clock.set(deadline - timedelta(minutes=30))
        await due(app, service)
        assert "Reminder" in (waiting.last_message().text or "")  # type: ignore[union-attr]
        assert not [m for m in fake.bot_messages(group) if str(waiting.id) in str(m.entities)]
