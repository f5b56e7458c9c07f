"""Inline mode: results for the one game the query names, legal now; a chosen card is played
whenever it still can be, and a posted card that cannot be played is taken back from view."""

from __future__ import annotations

from typing import Any

import pytest

from kolkhoz_tg import present
from kolkhoz_tg.bot.callbacks import Callback
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import Busy, GameService
from tests.bot.conftest import make_app
from tests.bot.driver import LeakScanner, action_buttons, open_game, players
from tests.faketg import FakeTelegram, FakeUser
from tests.helpers import until


def actor_of(service: GameService, game_id: int, users: list[FakeUser]) -> FakeUser:
    return next(u for u in users if service.seat_view(game_id, u.id).to_act)


async def test_results_are_the_named_games_moves_legal_now(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3300)
    first = fake.create_group("First", users)
    second = fake.create_group("Second", users)
    async with fake.running(make_app(fake, service)):
        one = await open_game(fake, users, first)
        two = await open_game(fake, users, second)
        actor = actor_of(service, two, users)
        for game_id in (one, two):
            sv = service.seat_view(game_id, actor.id)
            answer = await actor.inline_query(f"g{game_id} ")
            assert answer is not None
            offered = [Callback.decode(r["id"]) for r in answer.results]
            assert {(c.game_id, c.version) for c in offered} <= {(game_id, sv.game.version)}
            assert sorted(c.payload for c in offered) == sorted(
                a for a in sv.legal if not a.startswith("swap"))
            assert all(r.get("reply_markup") for r in answer.results)  # editable once posted
        # A query naming no game, or one the user is not playing, offers nothing to post.
        for text in ("", "hello", f"g{one + two + 1}"):
            answer = await actor.inline_query(text)
            assert answer is not None and not answer.results, text
            assert answer.params.get("button")  # the way to the cards in private


async def test_a_chosen_card_still_legal_after_the_game_moved_on_is_played(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3400)
    group = fake.create_group("Moved on", users, admins=[users[3]])
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        actor = actor_of(service, game_id, users)
        answer = await actor.inline_query(f"g{game_id} ")
        assert answer is not None and answer.results
        chosen = answer.results[-1]["id"]
        offered_at = Callback.decode(chosen).version
        # Another player changes the game's version (a pause and a resume by whoever may)
        # while the actor's list is open; the card they then pick is as legal as it was.
        other = users[0] if actor is not users[0] else users[3]
        await other.send(group, "/pause")
        await other.send(group, "/resume")
        assert service.game_info(game_id).version > offered_at
        log = service.action_log(game_id)
        posted = await actor.choose_inline_result(answer, chosen, group)
        played = service.action_log(game_id)[len(log)]
        assert played["action"] == Callback.decode(chosen).payload
        assert played["actor"] == "player"
        assert posted.inline_message_id is not None
        text = fake.inline_messages[posted.inline_message_id].text or ""
        assert "✅" in text and present.card_action(translator("en"), played["action"]) in text


async def test_a_chosen_card_no_longer_legal_is_not_played_and_not_named(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=3500)
    group = fake.create_group("Too late", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        scanner = LeakScanner(fake, service, group, users)
        actor = actor_of(service, game_id, users)
        answer = await actor.inline_query(f"g{game_id} ")
        assert answer is not None and len(answer.results) > 1
        # Meanwhile the actor moves from the private chat: the list's other moves are
        # no longer theirs to make.
        message = actor.last_message()
        tapped = action_buttons(message)[0]
        assert message is not None
        await actor.tap(message, tapped)
        chosen = next(r["id"] for r in answer.results
                      if Callback.decode(r["id"]).payload != Callback.decode(tapped).payload)
        action = Callback.decode(chosen).payload
        assert action not in service.seat_view(game_id, actor.id).legal
        before = service.snapshot(game_id)
        version = service.game_info(game_id).version
        # What Telegram posts for a result names no card: it may yet be refused.
        for result in answer.results:
            card = present.card_action(translator("en"), Callback.decode(result["id"]).payload)
            assert card not in result["input_message_content"]["message_text"]
        posted = await actor.choose_inline_result(answer, chosen, group)
        # The bot turns the posted message into a note that names no card.
        assert posted.inline_message_id is not None
        text = fake.inline_messages[posted.inline_message_id].text or ""
        assert "not played" in text and actor.first_name in text
        assert present.card_action(translator("en"), action) not in text
        assert service.game_info(game_id).version == version
        assert service.snapshot(game_id) == before
        scanner.scan(game_id)
        assert not scanner.leaks


@pytest.mark.parametrize("freed", [True, False])
async def test_a_card_chosen_while_the_database_is_locked_is_played_once_it_is_free(
    fake: FakeTelegram, service: GameService, sqlite_url: str, freed: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Telegram posts a chosen card before the bot hears of it; when another process holds
    SQLite's write lock then, the move is made in the background once the lock is gone and
    the posted message gets its ✅. If the lock never goes, the posted message says the move
    was not played (without naming the card): a posted card is never left unplayed
    silently."""
    import sqlite3

    from kolkhoz_tg.bot import context as bot_context

    users = players(fake, base=3600 if freed else 3650)
    group = fake.create_group("Locked inline", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        actor = actor_of(service, game_id, users)
        answer = await actor.inline_query(f"g{game_id} ")
        assert answer is not None and answer.results
        chosen = answer.results[0]["id"]
        action = Callback.decode(chosen).payload
        version = service.game_info(game_id).version
        busy: list[Busy] = []
        act = service.act

        def spied(*args: Any, **kwargs: Any) -> Any:
            try:
                return act(*args, **kwargs)
            except Busy as e:
                busy.append(e)
                raise

        monkeypatch.setattr(service, "act", spied)
        other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        saved = bot_context.LATER
        bot_context.LATER = (0.2,) * (40 if freed else 3)
        try:
            posted = await actor.choose_inline_result(answer, chosen, group, wait=False)
            assert posted.inline_message_id is not None

            def text() -> str:
                return fake.inline_messages[str(posted.inline_message_id)].text or ""

            await until(lambda: bool(busy))  # the bot met the lock (after its timeout)
            assert busy and service.game_info(game_id).version == version
            if freed:
                other.execute("ROLLBACK")
            await until(lambda: "✅" in text() or "✖" in text())
            await fake.wait_idle()
        finally:
            bot_context.LATER = saved
            if not freed:
                other.execute("ROLLBACK")
            other.close()
        card = present.card_action(translator("en"), action)
        if freed:
            assert "✅" in text() and card in text()
            played = service.action_log(game_id)[-1]
            assert played["action"] == action and played["actor"] == "player"
            assert service.game_info(game_id).version > version
        else:
            assert "not played" in text() and card not in text()
            assert service.game_info(game_id).version == version
