"""Rough edges of a real group, smoothed (issue 12): /board pins the board it sends anew, /log
in a group is a short summary with the full log one tap away in private, tables read on a
phone, the year's summary says each failure once with the cards sent north and whose they
were, and a player the bot cannot write to hears of the deadline in the group."""

from __future__ import annotations

import pytest

from kolkhoz_tg import texts
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService
from tests.bot.conftest import make_app
from tests.bot.driver import open_game, players, tap_any_action
from tests.faketg import FakeTelegram


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
    for move in service.history(game_id):
        ended = [e["year"] for e in move["events"] if e["type"] == "YearEnded"]
        if not ended:
            continue
        text = next(t for t in summaries if t.startswith(
            tr.gettext("Year {year}: the plan's results", year=ended[0])))
        lines = text.splitlines()
        for e in move["events"]:
            job = texts.job_name(tr, "jobs", e.get("job") or "H")
            if e["type"] == "JobFailed":
                # Said once: one line names the job's failure.
                told = [line for line in lines if line.startswith("❌ " + job)]
                assert len(told) == 1, text
            if e["type"] == "CardSentNorth":
                sent += 1
                who, card = info.names[e["seat"]], texts.card(tr, e["card"])
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
    scores = info.result["scores"]
    for text in (final, score, stats):
        assert "  " not in text and "\u00a0" not in text, text
    for seat, name in enumerate(info.names):
        points = tr.ngettext("{n} point", "{n} points", scores[seat])
        rows = [line for line in final.splitlines() if f". {name} — {points}" in line]
        assert len(rows) == 1, final
        assert any(f"{name} — {points}" in line for line in score.splitlines()), score
        assert any(f". {name}: " in line for line in stats.splitlines()), stats
    assert "🏆" in final
