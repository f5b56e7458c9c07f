"""Bot levels in the service: a level per bot seat, stand-ins at the chat's level, search
bots left to a worker (never thinking in a transaction, in an act or in the sweep), their
moves played at the version they were thought about, and old bot seats playing as before.
Each test runs on SQLite and, when a server is given, on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from engine import Game, preset
from engine.ai import default_action
from kolkhoz_tg.aiplay import AIPolicy, think
from kolkhoz_tg.service import ActStatus, BadRequest, GameInfo, GameService
from kolkhoz_tg.storage.models import Actor
from kolkhoz_tg.timeutil import FakeClock
from tests.service.helpers import step


@pytest.fixture(params=["sqlite", "postgres"])
def any_service(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[GameService]:
    if request.param == "sqlite":
        yield request.getfixturevalue("service")
    else:
        yield request.getfixturevalue("pg_service")


@pytest.fixture
def no_search_inside(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search inside a service transaction fails the test."""
    import kolkhoz_tg.service.gametx as gametx

    def refuse(level: str, *args: Any, **kwargs: Any) -> str:
        raise AssertionError(f"a {level} bot thought inside a transaction")

    monkeypatch.setattr(gametx, "think", refuse)


def worker(service: GameService, game_id: int, limit: int = 400) -> int:
    """What the Telegram bot's thinker does, in this thread: think on the view, play at the
    version thought about, until no bot waits. Returns the bot moves made."""
    for moves in range(limit):
        turn = service.ai_turn(game_id)
        if turn is None:
            return moves
        action = think(turn.level, turn.seed, turn.view, None, 4)
        result = service.ai_act(game_id, turn.seat, action, turn.version)
        assert result.status is ActStatus.APPLIED, result
    raise AssertionError("the bots never stopped")


def _stand_in_waiting(service: GameService, clock: FakeClock) -> GameInfo:
    """A 3-player game of three people in chat -100 who all go silent, swept until a
    stand-in waits for a worker."""
    game = service.create_game(-100, 1, creator_name="U1", players=3, seed=3, standin_after=1)
    service.join(game.id, 2, "U2")
    service.join(game.id, 3, "U3")
    service.start(game.id, 1)
    for _ in range(6):
        clock.advance(timedelta(days=2))
        service.sweep()
        if service.ai_turn(game.id) is not None:
            break
    return game


def test_search_bots_wait_for_a_worker_and_play_at_their_version(
    any_service: GameService, clock: FakeClock, no_search_inside: None
) -> None:
    service = any_service
    service.ai_policy = AIPolicy(default_level="strong", defer=True)
    game = service.create_game(-100, 1, creator_name="U1", players=3, seed=11)
    service.add_ai_player(game.id, 1, level="hard")
    with pytest.raises(BadRequest):
        service.add_ai_player(game.id, 1, level="genius")
    service.start(game.id, 1, fill_with_ai=True)
    info = service.game_info(game.id)
    assert [s.level for s in info.seats] == [None, "hard", "strong"]  # the fill: the default
    waited = 0
    while service.game_info(game.id).status == "active":
        if service.ai_turn(game.id) is not None:
            waited += 1
            assert service.games_waiting_for_ai() == [game.id]
            # Nobody thought for it for 30 s: a worker is gone (the periodic look).
            idle = timedelta(seconds=30)
            assert service.games_waiting_for_ai(idle_for=idle) == []
            clock.advance(timedelta(seconds=31))
            assert service.games_waiting_for_ai(idle_for=idle) == [game.id]
            turn = service.ai_turn(game.id)
            assert turn is not None and turn.seat in (1, 2) and turn.searchers == 2
            assert turn.view["viewer"] == turn.seat  # the seat's own view, nothing more
            # A move thought about at an older version is refused as stale.
            action = think(turn.level, turn.seed, turn.view, None, 4)
            stale = service.ai_act(game.id, turn.seat, action, turn.version - 1)
            assert stale.status is ActStatus.STALE
            worker(service, game.id)
        else:
            assert step(service, game.id)
    assert waited > 5
    assert service.game_info(game.id).status == "finished"
    assert service.games_waiting_for_ai() == []
    assert service.replay(game.id) == service.snapshot(game.id)
    actors = {m["actor"] for m in service.action_log(game.id) if m["seat"] != 0}
    assert actors == {Actor.BOT.value}


def test_a_bot_decision_is_seeded_by_the_game_and_the_move(any_service: GameService) -> None:
    """The seed is the game id, the number of moves so far and the seat: asked twice, the
    worker gets the same question and gives the same answer (tests can rely on it)."""
    service = any_service
    service.ai_policy = AIPolicy(defer=True)
    game = service.create_game(-100, 1, creator_name="U1", players=3, seed=5)
    service.add_ai_player(game.id, 1, level="strong")
    service.add_ai_player(game.id, 1, level="strong")
    service.start(game.id, 1)
    while service.ai_turn(game.id) is None:
        assert step(service, game.id)
    first, again = service.ai_turn(game.id), service.ai_turn(game.id)
    assert first is not None and first == again
    moves = len(service.action_log(game.id))
    assert first.seed == f"{game.id}:{moves}:{first.seat}"
    assert (think(first.level, first.seed, first.view, None, 4)
            == think(first.level, first.seed, first.view, None, 4))


def test_a_stand_in_plays_at_the_chats_level_and_the_sweep_never_thinks(
    any_service: GameService, clock: FakeClock, no_search_inside: None
) -> None:
    service = any_service
    service.ai_policy = AIPolicy(default_level="strong", defer=True)
    assert service.chat_ai_level(-100) == "strong"
    service.set_chat_ai_level(-100, "hard")
    with pytest.raises(BadRequest):
        service.set_chat_ai_level(-100, "genius")
    assert service.chat_ai_level(-100) == "hard"
    # Everyone goes silent: the sweep plays the cheap default move, and with the stand-in
    # that follows, the game waits for a worker; the sweep itself thought about nothing.
    game = _stand_in_waiting(service, clock)
    info = service.game_info(game.id)
    assert any(s.standin for s in info.seats)
    turn = service.ai_turn(game.id)
    assert turn is not None and turn.level == "hard"
    # (Stand-ins may have played forced moves meanwhile: those cost nothing. A search
    # would have failed the test.)
    # The player comes back before the worker is done: its move is no longer wanted.
    standin = next(s for s in info.seats if s.standin and s.seat == turn.seat)
    assert standin.user_id is not None
    service.back(game.id, standin.user_id)
    action = think(turn.level, turn.seed, turn.view, None, 4)
    late = service.ai_act(game.id, turn.seat, action, service.game_info(game.id).version)
    assert late.status is ActStatus.STALE


def test_bot_seats_from_before_levels_play_as_they_always_did(
    any_service: GameService,
) -> None:
    """A bot seat with no level (stored before migration 0003) plays the heuristic inside
    the transaction, even under a deferring policy."""
    service = any_service
    service.ai_policy = AIPolicy(default_level="hard", defer=True)
    game = service.create_game(-100, 1, creator_name="U1", players=3, seed=9)
    service.add_ai_player(game.id, 1, level="normal")
    service.add_ai_player(game.id, 1, level="normal")
    with service.db.write() as s:
        s.execute(sa.text("UPDATE seats SET level = NULL WHERE user_id IS NULL"))
    service.start(game.id, 1)
    assert [s.level for s in service.game_info(game.id).seats] == [None, None, None]
    while step(service, game.id):
        assert service.ai_turn(game.id) is None
    assert service.game_info(game.id).status == "finished"
    # Exactly the heuristic's moves.
    log = service.action_log(game.id)
    replay = Game.new(preset("classic"), 3, 9)
    for m in log:
        if m["actor"] == Actor.BOT.value:
            assert default_action(replay, m["seat"]).text == m["action"]
        replay.apply(m["seat"], m["action"])


def test_a_waiting_stand_in_plays_at_once_when_the_chat_level_drops(
    any_service: GameService, clock: FakeClock, no_search_inside: None
) -> None:
    """A stand-in waits for a worker at ``hard``; the chat's level goes to ``normal``: the
    bot listeners hear of the game, and settling it plays the stand-in's move at once (no
    game sits until the turn's deadline)."""
    service = any_service
    service.ai_policy = AIPolicy(default_level="strong", defer=True)
    service.set_chat_ai_level(-100, "hard")
    game = _stand_in_waiting(service, clock)
    turn = service.ai_turn(game.id)
    assert turn is not None and turn.level == "hard"
    assert service.settle_ai(game.id) is None  # a worker has thinking to do
    heard: list[int] = []
    service.add_ai_listener(heard.append)
    try:
        service.set_chat_ai_level(-100, "normal")
    finally:
        service.remove_ai_listener(heard.append)
    assert heard == [game.id]
    assert service.ai_turn(game.id) is None
    moves = len(service.action_log(game.id))
    settled = service.settle_ai(game.id)
    assert settled is not None and settled.status is ActStatus.APPLIED
    assert settled.notifications
    log = service.action_log(game.id)
    assert len(log) > moves and log[moves]["seat"] == turn.seat
    assert log[moves]["actor"] == Actor.STANDIN.value
    assert service.games_waiting_for_ai() == []
    assert service.settle_ai(game.id) is None  # nothing left to settle


def test_a_search_bot_no_worker_played_gets_the_heuristic_at_the_deadline(
    any_service: GameService, clock: FakeClock, no_search_inside: None
) -> None:
    """Workers that keep failing (or none at all) must not hold a game for ever: at the
    turn's deadline the heuristic plays for the waiting search bot, logged as the bot's."""
    service = any_service
    service.ai_policy = AIPolicy(default_level="strong", defer=True)
    game = service.create_game(-100, 1, creator_name="U1", players=3, seed=11)
    service.add_ai_player(game.id, 1, level="hard")
    service.add_ai_player(game.id, 1, level="strong")
    service.start(game.id, 1)
    for _ in range(100):
        if service.ai_turn(game.id) is not None:
            break
        assert step(service, game.id)
    turn = service.ai_turn(game.id)
    assert turn is not None
    moves = len(service.action_log(game.id))
    clock.advance(timedelta(hours=1))
    service.sweep()
    assert len(service.action_log(game.id)) == moves  # not yet: a worker may be slow
    clock.advance(timedelta(days=3))
    service.sweep()
    log = service.action_log(game.id)
    assert len(log) > moves
    assert log[moves]["seat"] == turn.seat and log[moves]["actor"] == Actor.BOT.value
