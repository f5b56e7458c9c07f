"""SeatView.unplayable: the cards of a hand that may not be played now, with the reason code
the engine gives (what ``why_illegal`` answers for each), in the seat view and in the scene a
move returns; ``not_active`` while the game is paused."""

from __future__ import annotations

from kolkhoz_tg.service import GameService, SeatView
from tests.service.helpers import new_game, random_chooser, step


def _asked(service: GameService, game_id: int, user: int, sv: SeatView) -> dict[str, str]:
    out = {}
    for c in sv.view.players[sv.seat].hand or ():
        reason = service.why_illegal(game_id, user, f"play:{c}")
        if reason is not None:
            out[f"play:{c}"] = reason
    return out


def test_unplayable_cards_and_their_reasons(service: GameService) -> None:
    game, users = new_game(service, seed=4)
    seen: set[str] = set()
    choose = random_chooser(2)
    for _ in range(120):
        for user in users:
            sv = service.seat_view(game.id, user)
            assert sv.unplayable == _asked(service, game.id, user, sv)
            seen.update(sv.unplayable.values())
            if sv.to_act and sv.view.phase.value == "play":
                assert not set(sv.unplayable) & set(sv.legal)
        board = service.board(game.id)
        assert board.view is not None
        mover = next(s.user_id for s in board.game.seats if s.seat == board.view.to_act[0])
        assert mover is not None
        sv = service.seat_view(game.id, mover)
        result = service.act(game.id, mover, choose(sv), sv.game.version)
        assert result.scene is not None
        for user, scene_sv in result.scene.seats.items():
            assert scene_sv.unplayable == service.seat_view(game.id, user).unplayable
        if {"follow_suit", "not_your_turn"} <= seen or not step(service, game.id, choose):
            break
    assert {"follow_suit", "not_your_turn"} <= seen
    service.pause(game.id, users[0])
    sv = service.seat_view(game.id, users[1])
    assert set(sv.unplayable.values()) == {"not_active"}
    assert len(sv.unplayable) == len(sv.view.players[sv.seat].hand or ())
