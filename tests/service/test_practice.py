"""Practice games in the service: dealt at once against bots in the player's private chat,
no clock ever, not rated, hints only there and only on the player's own view."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kolkhoz_tg.service import GameService, NotAllowed, WrongState
from kolkhoz_tg.timeutil import FakeClock


def _play_out(service: GameService, game_id: int, user_id: int) -> None:
    for _ in range(500):
        info = service.game_info(game_id)
        if info.status != "active":
            return
        assert info.deadline is None
        sv = service.seat_view(game_id, user_id)
        assert sv.to_act, "the bots play at once: the game waits only for its player"
        assert service.act(game_id, user_id, sv.legal[-1], sv.game.version).ok
    raise AssertionError("the game did not end")


def test_a_practice_game_runs_without_a_clock_and_is_not_rated(
    service: GameService, clock: FakeClock
) -> None:
    result = service.start_practice(7, "Anna", preset="zone", players=3, level="normal", seed=3)
    game_id = result.game_id
    info = service.game_info(game_id)
    assert info.practice and info.chat_id == 7 and info.status == "active"
    assert [s.level for s in info.seats if s.is_ai] == ["normal", "normal"]
    assert info.deadline is None and service.practice_game(7) is not None
    with pytest.raises(NotAllowed):
        service.start_practice(7, "Anna")
    clock.advance(timedelta(days=30))
    service.sweep()
    assert service.game_info(game_id).status == "active"
    assert all(m["actor"] != "timeout" for m in service.action_log(game_id))
    _play_out(service, game_id, 7)
    assert service.game_info(game_id).status == "finished"
    assert service.practice_game(7) is None
    assert service.user_ratings(7) == []
    assert service.user_stats(7).games == 0


def test_hints_only_in_practice_and_only_on_the_players_turn(service: GameService) -> None:
    game_id = service.start_practice(8, "Boris", level="random", seed=1).game_id
    turn = service.hint_turn(game_id, 8)
    assert turn.level == "normal"  # random bots: the hint still thinks
    assert turn.view["viewer"] == turn.seat == 0
    assert all(p["hand"] is None for p in turn.view["players"] if p["seat"] != 0)
    group = service.create_game(-50, 9, creator_name="Vera")
    service.start(group.id, 9, fill_with_ai=True)
    with pytest.raises(NotAllowed):
        service.hint_turn(group.id, 9)
    service.abort(game_id, 8)
    with pytest.raises(WrongState):
        service.hint_turn(game_id, 8)


def test_a_hint_is_worked_out_on_the_players_view_alone(service: GameService) -> None:
    """What a worker runs for the 💡: plain values in, a frozen record out (both cross
    processes), a legal move, and the same advice for the same turn."""
    import pickle

    from engine.ai import Reason
    from kolkhoz_tg.aiplay import advise

    game_id = service.start_practice(9, "Gleb", level="strong", seed=4).game_id
    turn = service.hint_turn(game_id, 9)
    assert turn.level == "strong"
    args = pickle.loads(pickle.dumps((turn.level, turn.seed, turn.view, None, 4)))
    first = advise(*args)
    assert pickle.loads(pickle.dumps(first)) == first == advise(*args)
    assert first.action.text in service.seat_view(game_id, 9).legal
    assert isinstance(first.reason, Reason)
