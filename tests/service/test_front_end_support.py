"""Service calls the Telegram front end needs: lobby rules and seats, kicking a silent
player to a stand-in, a group upgraded to a supergroup."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kolkhoz_tg.service import ActStatus, BadRequest, GameService, Kind, NotAllowed, WrongState
from kolkhoz_tg.timeutil import FakeClock
from tests.service.helpers import new_game, step


def test_lobby_rules_and_seats_change_before_the_start(service: GameService) -> None:
    game = service.create_game(-5, 1, creator_name="Anna")
    version = game.version
    game = service.configure_lobby(game.id, 1, preset="zone")
    assert game.preset == "zone" and game.rules.deck == 36 and game.version > version
    game = service.configure_lobby(game.id, 1, options={"medals_score": True})
    assert game.preset == "zone" and game.rules.medals_score is True
    game = service.configure_lobby(game.id, 1, players=3)
    assert game.players == 3
    service.join(game.id, 2, "Boris")
    service.join(game.id, 3, "Vera")
    with pytest.raises(NotAllowed):
        service.configure_lobby(game.id, 2, players=5)  # not the creator
    with pytest.raises(BadRequest):
        service.configure_lobby(game.id, 1, players=6)
    with pytest.raises(BadRequest):
        service.configure_lobby(game.id, 1, preset="chess")
    with pytest.raises(BadRequest):
        service.configure_lobby(game.id, 1, options={"threshold": -1})
    game = service.configure_lobby(game.id, 1, players=5)
    service.join(game.id, 4, "Gleb")  # seat 3
    with pytest.raises(NotAllowed):
        service.configure_lobby(game.id, 1, players=3)  # seat 3 is taken
    service.start(game.id, 1, fill_with_ai=True)
    with pytest.raises(WrongState):
        service.configure_lobby(game.id, 1, preset="classic")
    assert len(service.game_info(game.id).seats) == 5


def test_a_kicked_seat_is_played_by_a_stand_in_until_its_player_returns(
    service: GameService,
) -> None:
    game, _users = new_game(service, humans=4)
    waiting = service.board(game.id).view.to_act[0]  # type: ignore[index]
    result = service.stand_in(game.id, waiting)
    assert result.status is ActStatus.APPLIED
    info = service.game_info(game.id)
    assert info.seats[waiting].standin
    assert waiting not in service.board(game.id).view.to_act  # type: ignore[index]
    kinds = {n.kind for n in result.notifications}
    assert Kind.STAND_IN in kinds and Kind.BOARD in kinds
    assert service.stand_in(game.id, waiting).status is ActStatus.DUPLICATE
    user = info.seats[waiting].user_id
    assert user is not None
    assert service.back(game.id, user).status is ActStatus.APPLIED
    assert not service.game_info(game.id).seats[waiting].standin
    while step(service, game.id):
        pass
    assert service.game_info(game.id).status == "finished"
    with pytest.raises(WrongState):
        service.stand_in(game.id, 0)


def test_a_group_upgraded_to_a_supergroup_keeps_its_games(service: GameService) -> None:
    service.ensure_chat(-10, "Dacha")
    service.set_chat_locale(-10, "en")
    game, _ = new_game(service, chat_id=-10)
    assert service.migrate_chat(-10, -1000000000010) == 1
    assert service.game_info(game.id).chat_id == -1000000000010
    assert [g.id for g in service.games_in_chat(-1000000000010)] == [game.id]
    assert service.games_in_chat(-10) == []
    chat = service.chat(-1000000000010)
    assert chat is not None and chat.locale == "en" and chat.title == "Dacha"
    assert all(n.chat_id == -1000000000010 for n in service.pending_notifications())
    assert service.migrate_chat(-10, -1000000000010) == 0


def test_chat_stats_and_the_history_of_a_finished_game(service: GameService) -> None:
    game, users = new_game(service, humans=2, chat_id=-20)
    with pytest.raises(WrongState):
        service.history(game.id)  # in play: the log would tell hidden cards
    while step(service, game.id):
        pass
    result = service.game_info(game.id)
    assert result.status == "finished"
    moves = [m.to_json() for m in service.history(game.id)]
    assert [m["action"] for m in moves] == [e["action"] for e in service.action_log(game.id)]
    assert moves[-1]["events"][-1]["type"] == "GameOver"
    stats = service.chat_stats(-20)
    assert {p.user_id for p in stats} == set(users)
    assert all(p.games == 1 and p.finished == 1 for p in stats)
    assert sum(p.wins for p in stats) <= 2
    assert service.chat_stats(-21) == []


def test_a_seat_played_for_by_a_timeout_is_told_when_it_must_act_again(
    service: GameService, clock: FakeClock
) -> None:
    """A whole game in which nobody ever moves: every deadline passes and the default move is
    played. Whoever must act next is told so, also when it is the very seat that timed out
    (its card won the trick, the assignment was forced, and it now leads)."""
    game, _ = new_game(service, humans=4, preset="classic", seed=5, standin_after=100)
    seats = {s.seat: s.user_id for s in service.game_info(game.id).seats}
    again = 0
    while service.game_info(game.id).status == "active":
        before = service.board(game.id).view.to_dict()
        assert before is not None
        clock.advance(timedelta(days=2))
        notes = service.process_due(game.id).notifications
        view = service.board(game.id).view.to_dict()
        assert view is not None
        if view["phase"] in ("over", "swap"):
            continue
        told = {n.user_id for n in notes if n.kind is Kind.YOUR_TURN}
        for seat in view["to_act"]:
            assert seats[seat] in told, (before["to_act"], view["to_act"], view["phase"])
            again += seat in before["to_act"]
    assert again > 0  # the case above did happen in this game
