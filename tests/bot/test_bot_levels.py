"""Bot levels in play: "+ Bot" picks a level, the chat picks the stand-ins' level, search
bots think in a worker after the commit (never in the transaction), a restart picks up a
game left waiting for a bot, and the thinking between two human moves is capped."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from kolkhoz_tg.aiplay import AIPolicy
from kolkhoz_tg.bot.app import startup
from kolkhoz_tg.bot.thinking import THINKER_KEY, Thinker
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.models import Actor
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, players, tap_any_action
from tests.faketg import FakeTelegram


def no_thinking_in_transactions(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search inside a service transaction fails the test."""
    import kolkhoz_tg.service.gametx as gametx

    def refuse(level: str, *args: Any, **kwargs: Any) -> str:
        raise AssertionError(f"a {level} bot thought inside a transaction")

    monkeypatch.setattr(gametx, "think", refuse)


async def test_plus_bot_picks_a_level_and_search_bots_play_off_the_transaction(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_thinking_in_transactions(monkeypatch)
    [anna, *_] = users = players(fake, base=4000)
    group = fake.create_group("Levels", users)
    async with fake.running(make_app(fake, service)):
        await anna.start_bot()
        await anna.send(group, "/newgame 3")
        lobby = fake.last_message(group)
        assert lobby is not None
        game_id = service.games_in_chat(group.id)[0].id
        await anna.tap(lobby, "+ Bot")
        menu = fake.message(group, lobby.message_id)
        assert menu.button_texts == ["Normal", "Strong", "Hard", "« Back"]
        await anna.tap(menu, "Hard")
        await anna.tap(fake.message(group, lobby.message_id), "+ Bot")
        await anna.tap(fake.message(group, lobby.message_id), "Strong")
        lobby = fake.message(group, lobby.message_id)
        assert "Bot 1 (hard)" in (lobby.text or "") and "Bot 2 (strong)" in (lobby.text or "")
        assert [s.level for s in service.game_info(game_id).seats] == [None, "hard", "strong"]
        await anna.tap(lobby, "Start ▶")
        # Anna plays by tapping whatever she is offered; the bots answer in between.
        taps = 0
        while service.game_info(game_id).status == "active":
            assert await tap_any_action([anna]), "Anna has nothing to tap, yet the game runs"
            taps += 1
            assert taps < 300
        assert service.game_info(game_id).status == "finished"
        log = service.action_log(game_id)
        bot_moves = [m for m in log if m["seat"] != 0]
        assert bot_moves and all(m["actor"] in (Actor.BOT.value,) for m in bot_moves)
        # Nothing is left waiting, and the final table went out.
        assert service.games_waiting_for_ai() == []
        assert any("🏁" in (m.text or "") for m in fake.messages(group))


async def test_the_chat_sets_the_stand_in_level_and_a_stand_in_thinks_off_the_sweep(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    no_thinking_in_transactions(monkeypatch)
    users = players(fake, base=4100)
    anna, boris, vera, _gleb = users
    group = fake.create_group("Stand-ins", users, admins=[vera])
    app = make_app(fake, service)
    async with fake.running(app):
        for u in users[:3]:
            await u.start_bot()
        await anna.send(group, "/newgame 3")
        lobby = fake.last_message(group)
        assert lobby is not None
        game_id = service.games_in_chat(group.id)[0].id
        assert "🤖 Stand-in: strong" in lobby.button_texts  # the default
        # Only the creator or an admin sets it; an admin may.
        answer = await boris.tap(lobby, "🤖 Stand-in: strong")
        assert answer is not None and answer.show_alert
        await vera.tap(lobby, "🤖 Stand-in: strong")
        menu = fake.message(group, lobby.message_id)
        assert menu.button_texts[:3] == ["Normal", "✅ Strong", "Hard"]
        await vera.tap(menu, "Hard")
        assert service.chat_ai_level(group.id) == "hard"
        assert "🤖 Stand-in: hard" in fake.message(group, lobby.message_id).button_texts
        await boris.send(group, "/settings bots normal")  # neither creator nor admin
        assert service.chat_ai_level(group.id) == "hard"
        await anna.send(group, "/settings bots strong")
        assert service.chat_ai_level(group.id) == "strong"
        for u in (boris, vera):
            await u.tap(fake.message(group, lobby.message_id), "Join")
        await anna.tap(fake.message(group, lobby.message_id), "Start ▶")
        assert service.game_info(game_id).status == "active"
        # Whoever is to move goes silent and gets a strong stand-in: it plays through the
        # worker, while the kick itself returned at once.
        mover = next(u for u in users[:3] if service.seat_view(game_id, u.id).to_act)
        seat = service.game_info(game_id).seat_of(mover.id)
        assert seat is not None
        before = len(service.action_log(game_id))
        await anna.send(group, f"/kick {seat + 1}")
        await fake.wait_idle()
        log = service.action_log(game_id)
        assert any(m["actor"] == Actor.STANDIN.value for m in log[before:])
        assert not service.seat_view(game_id, mover.id).to_act or service.game_info(
            game_id).status != "active"
        assert service.games_waiting_for_ai() == []


async def test_a_game_left_waiting_for_a_bot_is_picked_up_at_start(
    fake: FakeTelegram, service: GameService
) -> None:
    [anna] = players(fake, base=4200)[:1]
    group = fake.create_group("Restart", [anna])
    # Another process started the game and stopped before its bots thought.
    service.ai_policy = AIPolicy(default_level="strong", defer=True)
    game = service.create_game(group.id, anna.id, creator_name="Anna", players=3, seed=5)
    service.start(game.id, anna.id, fill_with_ai=True)
    while not service.games_waiting_for_ai():
        # Anna's own moves until a bot is the one to move (the deal decides who starts).
        sv = service.seat_view(game.id, anna.id)
        assert sv.to_act
        assert service.act(game.id, anna.id, sv.legal[0], sv.game.version).ok
    assert service.games_waiting_for_ai() == [game.id]
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        await startup(app)
        await fake.wait_idle()
        assert service.games_waiting_for_ai() == []
        assert any(m["actor"] == Actor.BOT.value for m in service.action_log(game.id))
        assert service.seat_view(game.id, anna.id).to_act
        assert action_buttons(anna.last_message())


class _Recording(ThreadPoolExecutor):
    """Records the time each decision was given."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.seconds: list[float] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.seconds.append(args[3])
        return super().submit(fn, *args[:3], None, 4)


async def test_thinking_between_two_human_moves_is_capped(
    fake: FakeTelegram, service: GameService
) -> None:
    [anna] = players(fake, base=4300)[:1]
    group = fake.create_group("Cap", [anna])
    app = make_app(fake, service)
    async with fake.running(app):
        recording = _Recording()
        thinker: Thinker = app.bot_data[THINKER_KEY]
        thinker.iterations = None  # timed, as in production
        thinker.budget = 1.5
        thinker._make_executor = lambda: recording
        await anna.start_bot()
        game = await asyncio.to_thread(service.create_game, group.id, anna.id,
                                       creator_name="Anna", players=4, seed=3)
        for _ in range(3):
            await asyncio.to_thread(service.add_ai_player, game.id, anna.id, None, "hard")
        result = await asyncio.to_thread(service.start, game.id, anna.id)
        await app.bot_data["kolkhoz"].deliverer.deliver(result.notifications)
        await fake.wait_idle()
        for _ in range(6):  # Anna may be the first to choose (trump, a lead)
            if recording.seconds:
                break
            assert await tap_any_action([anna])
        assert recording.seconds, "the hard bots never thought"
        # Three hard bots share 1.5 s: each decision gets at most 0.5 s, not its 1 s.
        assert all(s <= 0.5 + 1e-9 for s in recording.seconds), recording.seconds
        recording.shutdown()


async def test_a_worker_process_thinks_on_the_view_alone() -> None:
    from engine import Action, Game, preset
    from kolkhoz_tg.aiplay import think
    from kolkhoz_tg.bot.thinking import process_pool

    game = Game.new(preset("classic"), 4, 7)
    seat = game.to_act[0]
    pool = process_pool(1)
    try:
        loop = asyncio.get_running_loop()
        text = await loop.run_in_executor(pool, think, "strong", "1:0:0", game.view(seat),
                                          None, 4)
    finally:
        pool.shutdown()
    assert Action.parse(text) in game.legal_actions(seat)
    assert text == think("strong", "1:0:0", game.view(seat), None, 4)  # same seed, same move


async def test_a_game_against_bots_thinking_in_worker_processes(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The production path: a spawned process pool thinks, the bot plays what it chose."""
    no_thinking_in_transactions(monkeypatch)
    [anna] = players(fake, base=4400)[:1]
    group = fake.create_group("Processes", [anna])
    app = make_app(fake, service, bot_workers=1, bot_iterations=4)
    async with fake.running(app):
        await anna.start_bot()
        await anna.send(group, "/newgame 3")
        game_id = service.games_in_chat(group.id)[0].id
        lobby = fake.message(group, service.game_info(game_id).meta["board"])
        await anna.tap(lobby, "Start ▶")  # two bots at the chat's level: strong
        assert [s.level for s in service.game_info(game_id).seats] == [None, "strong",
                                                                        "strong"]
        for _ in range(15):  # (Anna's moves are often forced: the game may end sooner)
            if service.game_info(game_id).status != "active":
                break
            assert await tap_any_action([anna])
        bots = [m for m in service.action_log(game_id) if m["actor"] == Actor.BOT.value]
        assert len(bots) >= 10
    app.bot_data[THINKER_KEY].close()


class _Gated(ThreadPoolExecutor):
    """A worker that thinks only once the test opens the gate."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.gate = threading.Event()
        self.asked = threading.Event()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        def gated() -> Any:
            self.asked.set()
            assert self.gate.wait(10), "the test never opened the gate"
            return fn(*args, **kwargs)

        return super().submit(gated)


async def test_a_thinking_bot_never_holds_a_tap_or_a_command(
    fake: FakeTelegram, service: GameService
) -> None:
    users = players(fake, base=4500)
    anna, boris = users[:2]
    group = fake.create_group("Not held", users[:2])
    app = make_app(fake, service)
    async with fake.running(app):
        gated = _Gated()
        thinker: Thinker = app.bot_data[THINKER_KEY]
        thinker._make_executor = lambda: gated
        for u in (anna, boris):
            await u.start_bot()
        await anna.send(group, "/newgame 3")
        game_id = service.games_in_chat(group.id)[0].id
        lobby = fake.message(group, service.game_info(game_id).meta["board"])
        await boris.tap(lobby, "Join")

        async def until_idle_or_thinking() -> None:
            """Idle, unless the bot is thinking (then it would never be)."""
            for _ in range(80):
                if gated.asked.is_set():
                    return
                try:
                    await fake.wait_idle(timeout=0.25)
                    return
                except TimeoutError:
                    continue

        await anna.tap(lobby, "Start ▶", wait=False)  # the third seat: a strong bot
        await until_idle_or_thinking()
        # The humans play until the bot must think; each tap is answered at once.
        for _ in range(40):
            if gated.asked.is_set():
                break
            mover = next(u for u in (anna, boris) if action_buttons(u.last_message()))
            msg = mover.last_message()
            assert msg is not None
            queries = len(fake.callback_queries)
            await mover.tap(msg, action_buttons(msg)[0], wait=False)
            for _ in range(200):  # answered while the bot may be thinking
                record = list(fake.callback_queries.values())[queries]
                if record.answered:
                    break
                await asyncio.sleep(0.01)
            assert record.answered, "a tap waited for a bot"
            await until_idle_or_thinking()
        assert gated.asked.is_set(), "the bot never had to think"
        assert service.ai_turn(game_id) is not None  # it waits, the game is saved
        # A command is answered meanwhile too.
        await asyncio.wait_for(boris.send(group, "/score", wait=False), 5)
        for _ in range(200):
            if "face-down" in (fake.last_message(group).text or ""):  # type: ignore[union-attr]
                break
            await asyncio.sleep(0.01)
        assert "face-down" in (fake.last_message(group).text or "")  # type: ignore[union-attr]
        gated.gate.set()
        await fake.wait_idle()
        assert service.ai_turn(game_id) is None
        assert any(m["actor"] == Actor.BOT.value for m in service.action_log(game_id))
    gated.shutdown()


class _FailingOnce(ThreadPoolExecutor):
    """A worker whose first decision fails (a crash in the worker)."""

    def __init__(self) -> None:
        super().__init__(max_workers=1)
        self.calls = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.calls += 1
        if self.calls == 1:
            failed: Future[Any] = Future()
            failed.set_exception(RuntimeError("the worker crashed"))
            return failed
        return super().submit(fn, *args, **kwargs)


async def test_a_failed_decision_is_tried_again(
    fake: FakeTelegram, service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    [anna] = players(fake, base=4600)[:1]
    group = fake.create_group("Retry", [anna])
    app = make_app(fake, service)
    async with fake.running(app):
        failing = _FailingOnce()
        thinker: Thinker = app.bot_data[THINKER_KEY]
        thinker._make_executor = lambda: failing
        await anna.start_bot()
        game = await asyncio.to_thread(service.create_game, group.id, anna.id,
                                       creator_name="Anna", players=3, seed=4)
        for _ in range(2):
            await asyncio.to_thread(service.add_ai_player, game.id, anna.id, None, "strong")
        result = await asyncio.to_thread(service.start, game.id, anna.id)
        await app.bot_data["kolkhoz"].deliverer.deliver(result.notifications)
        await fake.wait_idle()
        for _ in range(6):
            if failing.calls:
                break
            assert await tap_any_action([anna])
        await fake.wait_idle()
        assert failing.calls >= 2 and service.games_waiting_for_ai() == []
        assert "could not think" in caplog.text
    failing.shutdown()


async def test_a_hung_worker_is_given_up_and_the_pool_replaced(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision that never comes back (a hung worker) fails after its time and a margin,
    and the next decision gets a fresh pool."""
    from kolkhoz_tg.bot import thinking

    release = threading.Event()

    def hung(*args: object) -> str:
        release.wait(10)
        return "play:10H"

    pools: list[ThreadPoolExecutor] = []

    def make() -> ThreadPoolExecutor:
        pools.append(ThreadPoolExecutor(1))
        return pools[-1]

    monkeypatch.setattr(thinking, "think", hung)
    monkeypatch.setattr(thinking, "HUNG_AFTER", 0.2)
    thinker = Thinker(service, lambda coro: None, _no_delivery, make)
    try:
        with pytest.raises(TimeoutError):
            await thinker._think("strong", "1:0:1", {}, 0.01)
        monkeypatch.setattr(thinking, "think", lambda *args: "play:9H")
        assert await thinker._think("strong", "1:0:1", {}, 0.01) == "play:9H"
        assert len(pools) == 2
    finally:
        release.set()
        thinker.close()


async def _no_delivery(result: object) -> None:
    return None


async def test_a_search_bot_left_waiting_thinks_when_polling_starts(
    fake: FakeTelegram, service: GameService
) -> None:
    """A restart in polling mode: PTB runs the start-up (``post_init``) before the
    application counts as running, so the wake-up of the games waiting for a search bot
    must not be dropped then; the bot thinks as soon as the application runs, not at the
    next look a sweep interval later."""
    users = players(fake, base=5900)[:3]
    group = fake.create_group("Woken", users)
    app = make_app(fake, service)  # search bots left to the application's thinker
    info = service.create_game(group.id, users[0].id, creator_name="Anna", seed=4)
    for u in users[1:]:
        service.join(info.id, u.id, u.first_name)
    service.add_ai_player(info.id, users[0].id, level="strong")
    service.start(info.id, users[0].id)
    for _ in range(60):  # humans move (through the service) until the bot is to think
        if service.games_waiting_for_ai(10, None) == [info.id]:
            break
        who = next(u for u in users if service.seat_view(info.id, u.id).to_act)
        sv = service.seat_view(info.id, who.id)
        assert service.act(info.id, who.id, sv.legal[0], sv.game.version).ok
    assert service.games_waiting_for_ai(10, None) == [info.id]
    version = service.game_info(info.id).version
    async with fake.running(app, mode="manual"):
        await startup(app)  # as run_polling does: before the application runs
        await app.start()
        try:
            for _ in range(500):
                if service.game_info(info.id).version > version:
                    break
                await asyncio.sleep(0.01)
            assert service.game_info(info.id).version > version, "the bot was not woken"
        finally:
            await app.stop()
