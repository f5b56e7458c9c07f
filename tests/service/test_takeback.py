"""Taking back a card just played: the game exactly as before, the log keeping both entries,
refusals that change nothing, the chat's setting, practice games, ratings that do not count
a move taken back."""

from __future__ import annotations

from datetime import timedelta

from engine import Phase
from kolkhoz_tg.service import ActStatus, GameService, Kind
from kolkhoz_tg.service.takeback import (
    NOTHING,
    OFF,
    ONCE,
    TAKEBACK,
    TOO_LATE,
    TRICK_CLOSED,
    effective_log,
)
from kolkhoz_tg.timeutil import FakeClock
from tests.service.helpers import new_game, play_out, step


def _to_lead(service: GameService, game_id: int) -> tuple[int, int]:
    """Play the first choices until a trick is to be led; the leader's (user, seat)."""
    while True:
        board = service.board(game_id)
        assert board.view is not None
        if board.view.phase is Phase.PLAY and not board.view.trick:
            seat = board.view.to_act[0]
            user = next(s.user_id for s in board.game.seats if s.seat == seat)
            assert user is not None
            return user, seat
        assert step(service, game_id)


def _play(service: GameService, game_id: int, user: int, index: int = 0) -> str:
    sv = service.seat_view(game_id, user)
    card = sv.legal[index]
    assert service.act(game_id, user, card, sv.game.version).status is ActStatus.APPLIED
    return card


def test_take_back_restores_the_game_exactly(service: GameService, clock: FakeClock) -> None:
    game, _ = new_game(service, seed=5)
    user, seat = _to_lead(service, game.id)
    before = service.snapshot(game.id)
    assert before is not None
    seen = service.seat_view(game.id, user)
    card = _play(service, game.id, user)
    played = service.seat_view(game.id, user)
    assert played.can_take_back and not played.to_act
    clock.advance(timedelta(hours=5))
    result = service.take_back(game.id, user, played.game.version, name="U", locale="en")
    assert result.status is ActStatus.APPLIED, result
    # exactly the state before the card, the same choices, a fresh clock
    after = service.snapshot(game.id)
    assert after is not None and after.to_json() == before.to_json()
    again = service.seat_view(game.id, user)
    assert again.to_act and again.legal == seen.legal and again.view == seen.view
    assert not again.can_take_back
    assert again.game.version == played.game.version + 1
    assert again.deadline == clock.now() + timedelta(seconds=game.turn_timeout)
    kinds = {(n.kind, n.user_id) for n in result.notifications}
    assert (Kind.TOOK_BACK, None) in kinds and (Kind.YOUR_TURN, user) in kinds
    took = next(n for n in result.notifications if n.kind is Kind.TOOK_BACK)
    assert took.payload.name and card.split(":")[1] not in str(took.payload)
    # the scene shows the player their turn again
    assert result.scene is not None and result.scene.seats[user].to_act
    # the log keeps the card and the take-back; a replay skips both
    log = service.action_log(game.id)
    assert [(e["seat"], e["action"], e["actor"]) for e in log[-2:]] == [
        (seat, card, "player"), (seat, TAKEBACK, "takeback")]
    assert [e["seq"] for e in log] == list(range(len(log)))
    assert service.replay(game.id) == after
    # the game goes on to its end and still replays
    other = _play(service, game.id, user, index=-1)
    assert other != card and other in [e["action"] for e in service.action_log(game.id)[-4:]]
    play_out(service, game.id)
    final = service.snapshot(game.id)
    assert final is not None and final.is_over
    assert service.replay(game.id) == final
    assert len(effective_log(service.action_log(game.id))) == len(final.log)


def test_refused_after_the_next_player_acted(service: GameService) -> None:
    game, _ = new_game(service, seed=5)
    user, _ = _to_lead(service, game.id)
    _play(service, game.id, user)
    version = service.seat_view(game.id, user).game.version
    assert step(service, game.id)  # the next player plays
    now = service.snapshot(game.id)
    assert now is not None
    for tapped in (version, version + 1):
        result = service.take_back(game.id, user, tapped)
        assert (result.status, result.reason) == (ActStatus.ILLEGAL, TOO_LATE)
        assert not result.notifications
    assert service.snapshot(game.id) == now
    assert service.game_info(game.id).version == version + 1
    assert not service.seat_view(game.id, user).can_take_back


def test_refused_for_the_card_that_closed_the_trick(service: GameService) -> None:
    game, _ = new_game(service, seed=5)
    _to_lead(service, game.id)
    for _ in range(3):
        assert step(service, game.id)
    board = service.board(game.id)
    assert board.view is not None and len(board.view.trick) == 3
    last = next(s.user_id for s in board.game.seats if s.seat == board.view.to_act[0])
    assert last is not None
    _play(service, game.id, last)
    sv = service.seat_view(game.id, last)
    assert not sv.can_take_back
    result = service.take_back(game.id, last, sv.game.version)
    assert (result.status, result.reason) == (ActStatus.ILLEGAL, TRICK_CLOSED)
    assert service.game_info(game.id).version == sv.game.version


def test_refused_after_an_automatic_move(service: GameService) -> None:
    """A bot played after the card: somebody acted since."""
    game, _ = new_game(service, humans=1, seed=3)
    user, _ = _to_lead(service, game.id)
    _play(service, game.id, user)
    sv = service.seat_view(game.id, user)
    result = service.take_back(game.id, user, sv.game.version)
    assert result.status is ActStatus.ILLEGAL and result.reason in (TOO_LATE, TRICK_CLOSED)


def test_setting_off_stale_duplicate_and_once_a_turn(service: GameService) -> None:
    game, _ = new_game(service, seed=5)
    user, _ = _to_lead(service, game.id)
    _play(service, game.id, user)
    version = service.seat_view(game.id, user).game.version
    service.set_chat_takeback(game.chat_id, False)
    result = service.take_back(game.id, user, version)
    assert (result.status, result.reason) == (ActStatus.ILLEGAL, OFF)
    service.set_chat_takeback(game.chat_id, True)
    # a button of another version: stale, nothing changes
    stale = service.take_back(game.id, user, version - 1)
    assert stale.status is ActStatus.STALE and stale.scene is not None
    assert service.game_info(game.id).version == version
    # someone else has no card to take back
    other = next(s.user_id for s in game.seats if s.user_id not in (None, user))
    assert other is not None
    assert service.take_back(game.id, other, version).reason == NOTHING
    assert service.take_back(game.id, user, version).status is ActStatus.APPLIED
    # the same tap again: done already
    assert service.take_back(game.id, user, version).status is ActStatus.DUPLICATE
    # the card played again is final in a game with others
    _play(service, game.id, user)
    sv = service.seat_view(game.id, user)
    result = service.take_back(game.id, user, sv.game.version)
    assert (result.status, result.reason) == (ActStatus.ILLEGAL, ONCE)


def test_practice_allows_any_number_and_undoes_the_bots_answers(
    service: GameService,
) -> None:
    started = service.start_practice(5, "Pat", level="normal", seed=5)
    game_id, user = started.game_id, 5
    service.set_chat_takeback(5, False)  # a practice game ignores the chat's setting
    for _ in range(400):  # the player leads a trick that does not end the year
        sv = service.seat_view(game_id, user)
        if (sv.view.phase is Phase.PLAY and sv.to_act and not sv.view.trick
                and len(sv.view.tricks) < 2):
            break
        assert step(service, game_id)
    before = service.snapshot(game_id)
    assert before is not None
    for index in (0, -1, 0):
        sv = service.seat_view(game_id, user)
        move = service.act(game_id, user, sv.legal[index], sv.game.version)
        assert move.status is ActStatus.APPLIED
        answered = service.snapshot(game_id)
        assert answered is not None and len(answered.log) > len(before.log) + 1  # bots played
        assert service.seat_view(game_id, user).can_take_back
        result = service.take_back(game_id, user, move.version)
        assert result.status is ActStatus.APPLIED, result
        assert service.snapshot(game_id) == before
    assert service.replay(game_id) == before
    assert len(effective_log(service.action_log(game_id))) == len(before.log)


def test_ratings_and_stats_do_not_count_a_move_taken_back(service: GameService) -> None:
    from kolkhoz_tg.service.rating_store import _load_games

    game, _ = new_game(service, seed=5)
    user, seat = _to_lead(service, game.id)
    _play(service, game.id, user)
    version = service.seat_view(game.id, user).game.version
    assert service.take_back(game.id, user, version).status is ActStatus.APPLIED
    play_out(service, game.id)
    final = service.snapshot(game.id)
    assert final is not None and final.is_over
    with service.db.read() as s:
        rated = next(g for g in _load_games(s) if g.game_id == game.id)
    log = effective_log(service.action_log(game.id))
    assert len(log) == len(final.log)
    moves = [sum(1 for e in log if e["seat"] == r) for r in range(4)]
    assert [r.moves for r in rated.seats] == moves
    assert sum(1 for e in service.action_log(game.id) if e["seat"] == seat) == moves[seat] + 2


def test_a_take_back_drops_the_moves_queued_in_answer_to_the_card(service: GameService) -> None:
    """A card queued by a later seat after the card came down goes with the card: its
    player is told why, and nothing is played into a trick they never saw."""
    game, _ = new_game(service, humans=4, seed=11)
    for _trick in range(30):
        user, seat = _to_lead(service, game.id)
        _play(service, game.id, user)
        board = service.board(game.id)
        assert board.view is not None
        if service.seat_view(game.id, user).can_take_back and len(board.view.trick) == 1:
            break
        while service.board(game.id).view.trick:  # type: ignore[union-attr]
            assert step(service, game.id)
    else:
        raise AssertionError("no trick to take a lead back from")
    nxt = board.view.to_act[0]
    third_seat = next(s for s in (nxt + 1, nxt - 1) if s % 4 not in (seat, nxt)) % 4
    third = next(s.user_id for s in board.game.seats if s.seat == third_seat)
    assert third is not None
    hand = service.seat_view(game.id, third).view.players[third_seat].hand
    assert hand
    queued = service.premove(game.id, third, f"play:{hand[0]}")
    assert queued.ok and service.seat_view(game.id, third).premove.queued == f"play:{hand[0]}"
    version = service.seat_view(game.id, user).game.version
    assert service.take_back(game.id, user, version).status is ActStatus.APPLIED
    assert service.seat_view(game.id, third).premove.queued is None


def test_a_card_made_from_the_queue_can_be_taken_back(service: GameService) -> None:
    """``/premove`` of the card to play now is a move like a tap: ↩ is offered for it."""
    game, _ = new_game(service, seed=5)
    user, _seat = _to_lead(service, game.id)
    card = service.seat_view(game.id, user).legal[0]
    assert service.premove(game.id, user, card).status is ActStatus.APPLIED
    assert service.seat_view(game.id, user).can_take_back
