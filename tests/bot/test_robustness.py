"""What must never happen: foreign, stale and double taps acting; malformed input crashing
or changing a game; a restart or a silent player stopping a game."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kolkhoz_tg.bot.app import DEPS_KEY, Deps, shutdown, startup, stopped
from kolkhoz_tg.bot.callbacks import action_button, lobby_button, to_base36, view_button
from kolkhoz_tg.service import GameService
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import (
    LeakScanner,
    action_buttons,
    group_texts,
    move_without_the_bot,
    open_game,
    players,
    tap_any_action,
)
from tests.faketg import FakeTelegram


async def test_restart_mid_game_carries_on(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake)
    group = fake.create_group("Restart club", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(30):
            assert await tap_any_action(users)
    version = service.game_info(game_id).version
    # A new process: a new application on the same database.
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        taps = 0
        while await tap_any_action(users):
            taps += 1
            assert taps < 400
    info = service.game_info(game_id)
    assert info.status == "finished" and info.version > version
    assert any("five-year plan is complete" in t for t in group_texts(fake, group))


async def test_restart_delivers_what_the_outbox_still_owes(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=350)
    group = fake.create_group("Outbox", users)
    first = make_app(fake, service)
    async with fake.running(first):
        game_id = await open_game(fake, users, group)
    await shutdown(first)  # what run_polling does when it stops
    # While the bot was down, a player acted through another front end.
    move_without_the_bot(service, game_id, users)
    assert service.pending_notifications()
    board = fake.message(group, service.game_info(game_id).meta["board"])
    edits = board.edits
    app = make_app(fake, service)
    async with fake.running(app):
        await startup(app)
        await app.bot_data[DEPS_KEY].relay.drain()
    assert fake.message(group, board.message_id).edits > edits
    assert not service.pending_notifications()


async def test_timeout_plays_for_the_silent_and_a_bot_stands_in(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    users = players(fake, base=400)
    group = fake.create_group("Sleepy", users)
    app = make_app(fake, service)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        d: Deps = app.bot_data[DEPS_KEY]
        sleeper = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        seat = service.game_info(game_id).seat_of(sleeper.id)
        misses = 0
        for _ in range(60):
            if service.game_info(game_id).seats[seat].standin:
                break
            waiting = [u for u in users if service.seat_view(game_id, u.id).to_act]
            if waiting and waiting[0] is not sleeper:
                await tap_any_action([waiting[0]])
                continue
            clock.advance(timedelta(hours=25))
            result = await asyncio.to_thread(service.sweep)
            await d.deliverer.deliver(result.notifications)
            misses += 1
        info = service.game_info(game_id)
        assert info.seats[seat].standin and misses == info.standin_after
        private = [m.text or "" for m in fake.messages(sleeper)]
        assert any("Time ran out" in t for t in private)
        board = fake.message(group, info.meta["board"])
        assert "stands in for" in (board.text or "")
        # The player comes back with /back and has their seat again.
        await sleeper.send(None, "/back")
        assert not service.game_info(game_id).seats[seat].standin


async def test_stale_double_and_foreign_taps_change_nothing(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=500)
    stranger = fake.user(599, "Mallory", language_code="en")
    group = fake.create_group("Careful", [*users, stranger])
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        actor = next(u for u in users if action_buttons(u.last_message()))
        msg = actor.last_message()
        assert msg is not None
        data = action_buttons(msg)[0]
        before = service.game_info(game_id).version
        # A double tap: two taps on the same button before the first is handled.
        await actor.tap(msg, data, wait=False)
        await actor.tap(msg, data, wait=False)
        await fake.wait_idle()
        after = service.game_info(game_id).version
        assert after > before
        log_after = service.action_log(game_id)
        # A stale tap: the same (old) button again, forged onto the current message.
        answer = await actor.tap(actor.last_message(), data, force=True)
        assert answer is not None and answer.text
        # A foreign tap: a stranger sends a player's button data (from the group's board).
        board = fake.message(group, service.game_info(game_id).meta["board"])
        answer = await stranger.tap(board, data, force=True)
        assert answer is not None and "not playing" in (answer.text or "")
        # A player taps a button of the right game but for a move that is not theirs now.
        other = next(u for u in users if u is not actor)
        forged = action_button(game_id, service.game_info(game_id).version, "play:10H")
        answer = await other.tap(other.last_message(), forged, force=True)
        assert answer is not None
        assert service.action_log(game_id) == log_after
    fake.assert_all_callbacks_answered()


async def test_a_refused_typed_move_tells_the_group_nothing_of_the_hand(
    fake: FakeTelegram, service: GameService
) -> None:
    """"You must follow the led suit" in the group would tell everyone the player holds
    that suit: the reason goes to the player in private, the group hears only no."""
    users = players(fake, base=560)
    group = fake.create_group("Tells", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        for _ in range(80):
            found = None
            for user in users:
                sv = service.seat_view(game_id, user.id)
                hand = sv.view.to_dict()["players"][sv.seat]["hand"]
                if sv.game.status == "active" and sv.view.phase == "play" and sv.view.trick:
                    wrong = [c for c in hand if f"play:{c}" not in sv.legal]
                    if sv.legal and wrong:
                        found = user, wrong[0]
            if found:
                break
            assert await tap_any_action(users)
        assert found, "no player had to follow suit in 80 moves"
        user, card = found
        before = service.action_log(game_id)
        await user.send(group, f"/play {card}")
        said = fake.last_message(group)
        assert said is not None and said.text is not None
        assert "follow" not in said.text and "private chat" in said.text
        private = user.last_message()
        assert private is not None and "You must follow the led suit" in (private.text or "")
        assert service.action_log(game_id) == before


async def test_an_edited_command_does_not_act_again(
    fake: FakeTelegram, service: GameService
) -> None:
    """Editing an old command message is not a new command: "/addbot" edited seats no
    second bot, and a typed move edited into another card plays nothing."""
    users = players(fake, base=580)
    group = fake.create_group("Edits", users)
    async with fake.running(make_app(fake, service)):
        await users[0].start_bot()
        sent = await users[0].send(group, "/newgame")
        (game,) = service.games_in_chat(group.id)
        added = await users[0].send(group, "/addbot")
        seats = service.game_info(game.id).seats
        assert len(seats) == 2
        messages = len(fake.messages(group))
        await users[0].edit(added, "/addbot normal")
        await users[0].edit(sent, "/newgame original")
        assert len(fake.messages(group)) == messages
        assert service.game_info(game.id).seats == seats
        assert len(service.games_in_chat(group.id)) == 1


async def test_newgame_with_a_word_it_does_not_know_opens_nothing(
    fake: FakeTelegram, service: GameService
) -> None:
    """"/newgame klassic" (a typo) must not open a Classic game: the bot names the rules
    it knows instead."""
    users = players(fake, base=590)
    group = fake.create_group("Typos", users)
    async with fake.running(make_app(fake, service)):
        await users[0].send(group, "/newgame klassic 3")
        said = fake.last_message(group)
        assert said is not None and '"klassic"' in (said.text or "")
        assert "/newgame kolkhoz 3" in (said.text or "")
        assert service.games_in_chat(group.id) == []
        await users[0].send(group, "/newgame original 3")
        (game,) = service.games_in_chat(group.id)
        assert game.preset == "original" and game.players == 3


async def test_a_move_typed_in_private_goes_to_the_game_where_it_is_legal(
    fake: FakeTelegram, service: GameService
) -> None:
    """A player waited for in two games types "/play 10H" to the bot in private: the move
    goes to the game where that card may be played, not to whichever game is first."""
    users = players(fake, base=620)
    groups = [fake.create_group(name, users) for name in ("One", "Two")]
    async with fake.running(make_app(fake, service)):
        games = [await open_game(fake, users, group) for group in groups]
        me = users[1]
        for game_id in games:
            # Until they are to play a card in it (a trump or a swap to choose is the same
            # choice in both games: no move would tell them apart).
            for _ in range(80):
                sv = service.seat_view(game_id, me.id)
                if sv.to_act and sv.legal[0].startswith("play:"):
                    break
                move_without_the_bot(service, game_id, users)
            assert service.seat_view(game_id, me.id).legal[0].startswith("play:")
        # The game a private command went to before: the first that waits for them.
        first = next(g.id for g in service.games_of_user(me.id) if g.id in games)
        other = next(g for g in games if g != first)
        moves = sorted(set(service.seat_view(other, me.id).legal)
                       - set(service.seat_view(first, me.id).legal))
        assert moves
        kind, _, what = moves[0].partition(":")
        before = {g: len(service.action_log(g)) for g in games}
        await me.send(None, f"/{kind} {what.replace('>', ' ')}")
        made = service.action_log(other)[before[other]]
        assert made["action"] == moves[0] and made["actor"] == "player"
        assert len(service.action_log(first)) == before[first]


MALFORMED_COMMANDS = [
    "/play", "/play 99Z", "/play 10H 9H", "/assign", "/assign 10H", "/assign 10H Moon",
    "/trump", "/trump X", "/swap", "/swap 9H", "/kick", "/kick 9", "/kick me", "/lang xx",
    "/settings timeout forever", "/settings players 9", "/settings nonsense", "/newgame 7",
    "/play " + "A" * 3000, "/join extra words", "/board now", "/hand 1", "/score x",
    "/pause", "/resume", "/abort", "/back", "/last", "/rules", "/help", "/start junk",
    # Characters that are digits to str.isdigit() but not to int(); an overflowing time.
    "/log ²", "/newgame ²", "/practice ²", "/kick ²", "/settings players ²", "/start log²",
    "/away 99999999999d", "/settings timeout 99999999999d", "/settings reminders 99999999999d",
]
MALFORMED_DATA = [
    "", "x", "a:", "a:zz", "a:1:1:", "a:1:1:play:99Z", "l:1:1:explode", "v:1:1:",
    "a:zzzzzzzzzz:1:play:10H", "q:1:1:join", "a:1:1:play:10H:extra", "💥",
]


async def test_malformed_commands_and_callback_data_change_nothing(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=600)
    group = fake.create_group("Chaos", users)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        scanner = LeakScanner(fake, service, group, users)
        state = service.snapshot(game_id)
        assert state is not None
        before = state.to_json()
        for text in MALFORMED_COMMANDS:
            for where in (group, None):
                await users[1].send(where, text)
        for data in MALFORMED_DATA:
            await users[2].tap(fake.last_message(group), data, force=True)
        after = service.snapshot(game_id)
        assert after is not None and after.to_json() == before
        assert service.game_info(game_id).status == "active"
        scanner.scan(game_id)
        assert not scanner.leaks
    fake.assert_all_callbacks_answered()


async def test_over_real_http_through_the_bot_api_url(
    fake: FakeTelegram, service: GameService, fake_server
) -> None:
    """The bot configured like ``KOLKHOZ_BOT_API_URL=http://127.0.0.1:PORT`` plays a game
    over real HTTP on 127.0.0.1."""
    from telegram.ext import ApplicationBuilder

    from kolkhoz_tg.bot.app import build_application
    from kolkhoz_tg.bot.main import bot_api_base_url

    url = fake_server.base_url.removesuffix("/bot")
    builder = ApplicationBuilder().token(fake.token).base_url(bot_api_base_url(url))
    app = build_application(builder, service, schedule=False, rate_limiter=False)
    users = players(fake, base=700)
    group = fake.create_group("HTTP", users)
    async with fake.running(app):
        game_id = await open_game(fake, users, group)
        for _ in range(40):
            assert await tap_any_action(users)
    assert service.game_info(game_id).version > 40
    assert all(c.transport == "http" for c in fake.sent_log)


async def test_player_who_never_opened_the_private_chat_gets_a_group_mention(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=800)
    group = fake.create_group("Shy", users)
    async with fake.running(make_app(fake, service)):
        await users[0].start_bot()
        await users[0].send(group, "/newgame")
        lobby = fake.last_message(group)
        assert lobby is not None
        for u in users[1:]:
            await u.tap(fake.message(group, lobby.message_id), "Join")
        await users[0].tap(fake.message(group, lobby.message_id), "Start ▶")
        game_id = service.games_in_chat(group.id)[0].id
        shy = [u for u in users[1:] if service.seat_view(game_id, u.id).to_act]
        while not shy:
            assert await tap_any_action(users[:1])
            shy = [u for u in users[1:] if service.seat_view(game_id, u.id).to_act]
        mentions = [m for m in fake.messages(group) if "it is your move" in (m.text or "")]
        assert mentions
        link = next(b.url for row in mentions[-1].buttons for b in row if b.url)
        assert link.endswith(f"start=g{game_id}")
        # The deep link opens the private chat on that game, with the cards.
        await shy[0].open_link(link)
        assert action_buttons(shy[0].last_message())


async def test_deadline_jobs_run_on_ptb_job_queue(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """At start the bot rebuilds one job per deadline (within reach: here a day, so at
    once) on PTB's job queue; a job that fires plays the timeout and its notifications
    reach Telegram, shown from the scene the job's transaction returned (as a tap's): the
    delivery does not read the game again."""
    users = players(fake, base=900)
    group = fake.create_group("Clockwork", users)
    # The service's clock ahead of the real one, so that the jobs wait for us to fire them.
    clock.set(datetime.now(UTC) + timedelta(days=365))
    app = make_app(fake, service, schedule=True)
    async with fake.running(app):
        await startup(app)
        d: Deps = app.bot_data[DEPS_KEY]
        assert d.scheduler is not None
        d.scheduler.ahead = timedelta(days=2)
        game_id = await open_game(fake, users, group)
        assert app.job_queue is not None
        jobs = {job.id for job in app.job_queue.scheduler.get_jobs()}
        assert f"game:{game_id}:timeout" in jobs and f"game:{game_id}:reminder" in jobs
        sleeper = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        version = service.game_info(game_id).version
        await fake.wait_idle()
        reads: list[int] = []
        read_scene = service.scene
        service.scene = lambda g: reads.append(g) or read_scene(g)  # type: ignore[method-assign]
        clock.advance(timedelta(days=2))
        await asyncio.to_thread(d.scheduler.fire, game_id)
        assert service.game_info(game_id).version > version
        for _ in range(200):  # the job hands its notifications to the event loop
            if any("Time ran out" in (m.text or "") for m in fake.messages(sleeper)):
                break
            await asyncio.sleep(0.01)
        await fake.wait_idle()
        assert any("Time ran out" in (m.text or "") for m in fake.messages(sleeper))
        assert reads == []
        # Stopping the bot (PTB's post_shutdown) detaches the jobs from the service.
        await shutdown(app)
        assert d.scheduler is None
        assert not any(j.id.startswith("game:") for j in app.job_queue.scheduler.get_jobs())


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_service(request: pytest.FixtureRequest) -> GameService:
    """The service on SQLite, and on PostgreSQL when one is given (whose INTEGER columns
    end at 2**31 - 1, where SQLite's go on)."""
    name = "service" if request.param == "sqlite" else "pg_service"
    service: GameService = request.getfixturevalue(name)
    return service


async def test_ids_beyond_the_database_and_forged_inline_choices_are_answered_or_ignored(
    fake: FakeTelegram, any_service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    service = any_service
    users = players(fake, base=1600)
    stranger = fake.user(1699, "Mallory", language_code="en")
    group = fake.create_group("Overflow", [*users, stranger])
    huge = to_base36(2**31)
    async with fake.running(make_app(fake, service)):
        game_id = await open_game(fake, users, group)
        gid = to_base36(game_id)
        actor = next(u for u in users if service.seat_view(game_id, u.id).to_act)
        before = service.action_log(game_id)
        caplog.set_level(logging.INFO)
        # Buttons naming a game or a version no database column can hold.
        for data in (f"a:{huge}:0:play:10H", f"x:{huge}:0:play:10H", f"v:{huge}:0:board",
                     f"l:{huge}:0:join", f"a:{gid}:{huge}:play:10H", f"x:{gid}:{huge}:play:10H",
                     f"a:{to_base36(2**63 - 1)}:0:play:10H", f"v:{gid}:0:explode"):
            msg = actor.last_message()
            assert msg is not None
            answer = await actor.tap(msg, data, force=True)
            assert answer is not None and answer.text == "That button is not mine.", data
            assert answer.show_alert
        # Deep links and inline queries naming such a game find nothing, quietly.
        await stranger.start_bot(f"g{2**31}")
        assert "Hello!" in (stranger.last_message().text or "")  # type: ignore[union-attr]
        answer = await actor.inline_query(f"g{2**40} ")
        assert answer is not None and not answer.results
        # A real inline choice, then forged ones into the same message: results this bot
        # could not have offered are ignored (Telegram expects no answer to them).
        answer = await actor.inline_query(f"g{game_id} ")
        assert answer is not None and answer.results
        posted = await actor.choose_inline_result(answer, answer.results[0]["id"], group)
        assert posted.inline_message_id is not None
        shown = fake.inline_messages[posted.inline_message_id].text
        version = to_base36(service.game_info(game_id).version)
        log = service.action_log(game_id)
        assert len(log) > len(before)
        for who in (actor, stranger):
            for result_id in ("junk", f"a:{huge}:0:play:10H", f"a:{gid}:{huge}:play:10H",
                              f"a:{to_base36(game_id + 999)}:0:play:10H",
                              f"a:{gid}:{version}:nonsense", f"a:{gid}:{version}:swap:9H<KC",
                              f"l:{gid}:{version}:join", "a:1:1:play:10H:extra"):
                fake.push_update("chosen_inline_result", {
                    "result_id": result_id, "from": who.to_json(), "query": f"g{game_id}",
                    "inline_message_id": posted.inline_message_id,
                })
                await fake.wait_idle()
        assert fake.inline_messages[posted.inline_message_id].text == shown
        assert service.action_log(game_id) == log
        assert service.game_info(game_id).status == "active"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]


async def test_forged_buttons_do_not_cross_chats(fake: FakeTelegram, service: GameService) -> None:
    users = players(fake, base=1700)
    stranger = fake.user(1799, "Mallory", language_code="en")
    lobby_group = fake.create_group("Lobby", users[:2])
    watcher = fake.user(1798, "Olga", language_code="en")
    game_group = fake.create_group("Playing", [*users, watcher])
    elsewhere = fake.create_group("Mallory's", [stranger, users[2]])
    async with fake.running(make_app(fake, service)):
        await stranger.start_bot()
        await stranger.send(elsewhere, "/help")
        foreign_msg = fake.last_message(elsewhere)
        assert foreign_msg is not None
        game_id = await open_game(fake, users, game_group)
        await users[0].send(lobby_group, "/newgame")
        lobby_id = service.games_in_chat(lobby_group.id)[0].id
        lobby_version = service.game_info(lobby_id).version
        sends = len(fake.calls("sendMessage"))

        # Lobby buttons sent from a private chat or from another group seat nobody.
        for who, where in ((stranger, stranger.last_message()), (stranger, foreign_msg),
                           (users[2], foreign_msg), (users[1], users[1].last_message())):
            assert where is not None
            for op in ("join", "bot", "leave", "start", "players"):
                answer = await who.tap(where, lobby_button(lobby_id, lobby_version, op),
                                       force=True)
                assert answer is not None and answer.show_alert
                assert answer.text == "That button belongs to another chat."
        lobby = service.game_info(lobby_id)
        assert lobby.status == "lobby" and lobby.version == lobby_version
        assert [s.user_id for s in lobby.seats] == [users[0].id]

        # Another group's board and last trick: not for an outsider, in private or not.
        version = service.game_info(game_id).version
        for what in ("board", "last"):
            data = view_button(game_id, version, what)
            answer = await stranger.tap(stranger.last_message(), data,  # type: ignore[arg-type]
                                        force=True)
            assert answer is not None and answer.text == "You are not playing in this game."
            answer = await stranger.tap(foreign_msg, data, force=True)
            assert answer is not None and answer.text == "That button belongs to another chat."
        assert len(fake.calls("sendMessage")) == sends
        # The running game's lobby buttons, tapped in private by its own player: refused too.
        answer = await users[3].tap(users[3].last_message(),  # type: ignore[arg-type]
                                    lobby_button(game_id, version, "leave"), force=True)
        assert answer is not None and answer.text == "That button belongs to another chat."
        # A seated player still gets the board in private, and the group its own buttons.
        player = users[1]
        answer = await player.tap(player.last_message(),  # type: ignore[arg-type]
                                  view_button(game_id, version, "board"), force=True)
        assert answer is not None and not answer.text
        assert len(fake.calls("sendMessage")) == sends + 1
        assert "year 1 of 5" in (player.last_message().text or "")  # type: ignore[union-attr]
        board = fake.message(game_group, service.game_info(game_id).meta["board"])
        answer = await watcher.tap(board, view_button(game_id, version, "last"), force=True)
        assert answer is not None and "trick" in (answer.text or "")
        assert service.game_info(game_id).version == version


async def test_deliveries_after_a_deadline_are_logged_when_they_fail_and_awaited_at_stop(
    fake: FakeTelegram, service: GameService, clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The deadline jobs run in the scheduler's thread and hand their notifications to the
    event loop: a delivery that fails there is logged (its notifications stay owed in the
    outbox), and stopping the bot waits for one still under way before the claims are
    given back."""
    users = players(fake, base=560)
    group = fake.create_group("Late deliveries", users)
    clock.set(datetime.now(UTC) + timedelta(days=365))
    app = make_app(fake, service, schedule=True)
    async with fake.running(app):
        await startup(app)
        d: Deps = app.bot_data[DEPS_KEY]
        assert d.scheduler is not None
        d.scheduler.ahead = timedelta(days=2)
        game_id = await open_game(fake, users, group)
        real = d.deliverer.deliver
        finished: list[str] = []

        async def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("the network fell over")

        d.deliverer.deliver = broken  # type: ignore[method-assign]
        clock.advance(timedelta(days=2))
        with caplog.at_level(logging.ERROR):
            await asyncio.to_thread(d.scheduler.fire, game_id)
            for _ in range(200):
                if not d.deliveries:
                    break
                await asyncio.sleep(0.01)
        assert not d.deliveries
        assert any("delivery after a deadline failed" in r.getMessage() for r in caplog.records)
        assert service.pending_notifications(), "what failed stays owed"
        # The relay sends it (a turn the outbox still owes plays no timeout: docs/bot.md,
        # "No penalty for our own faults").
        d.deliverer.deliver = real  # type: ignore[method-assign]
        clock.advance(timedelta(minutes=1))
        await d.relay.drain()
        assert not service.pending_notifications()

        async def slow(*args: Any, **kwargs: Any) -> None:
            await asyncio.sleep(0.3)
            await real(*args, **kwargs)
            finished.append("done")

        d.deliverer.deliver = slow  # type: ignore[method-assign]
        clock.advance(timedelta(days=2))
        await asyncio.to_thread(d.scheduler.fire, game_id)
        assert d.deliveries
        await stopped(app)
        assert finished == ["done"] and not d.deliveries
        await shutdown(app)
