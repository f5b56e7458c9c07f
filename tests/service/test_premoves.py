"""Moves queued ahead (pre-moves) in the service: queueing changes nothing anyone else sees,
the queued card is played in the transaction that brings the turn, or dropped with the
reason when it is not allowed then; the Brigadier's "assign for me"; swaps queued."""

from __future__ import annotations

from engine import Phase
from kolkhoz_tg import present
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import ActStatus, GameService, Kind
from kolkhoz_tg.storage.models import Actor
from tests.service.helpers import new_game


def _user_of(service: GameService, game_id: int, seat: int) -> int:
    info = service.game_info(game_id)
    user = next(s.user_id for s in info.seats if s.seat == seat)
    assert user is not None
    return user


def _to_play(service: GameService, game_id: int) -> None:
    """Play on (first legal moves) until the first trick of the year waits for its lead."""
    for _ in range(50):
        board = service.board(game_id)
        assert board.view is not None
        if board.view.phase is Phase.PLAY and not board.view.trick:
            return
        seat = board.view.to_act[0]
        user = _user_of(service, game_id, seat)
        sv = service.seat_view(game_id, user)
        assert service.act(game_id, user, sv.legal[0], sv.game.version).ok
    raise AssertionError("no trick began")


def _setup(service: GameService) -> tuple[int, int, list[int]]:
    """A 4-human game at its first lead: (game id, leader's seat, the seats after it)."""
    game, _ = new_game(service, humans=4, seed=21)
    _to_play(service, game.id)
    view = service.board(game.id).view
    assert view is not None
    leader = view.to_act[0]
    return game.id, leader, [(leader + i) % 4 for i in range(1, 4)]


def test_queued_cards_play_in_the_leaders_transaction(service: GameService) -> None:
    game_id, leader, others = _setup(service)
    version = service.game_info(game_id).version
    lead_user = _user_of(service, game_id, leader)
    lead_view = service.seat_view(game_id, lead_user)
    lead = lead_view.legal[0]
    queued = {}
    for seat in others:
        user = _user_of(service, game_id, seat)
        sv = service.seat_view(game_id, user)
        hand = sv.view.players[seat].hand
        assert hand
        # A card of the led suit when there is one (so it stays legal), else any.
        lead_card = lead.split(":")[1]
        same = [c for c in hand if str(c)[-1] == lead_card[-1]]
        card = str((same or list(hand))[0])
        result = service.premove(game_id, user, f"play:{card}")
        assert result.status is ActStatus.APPLIED, result
        assert result.scene is not None and not result.notifications
        assert result.scene.seats[user].premove.queued == f"play:{card}"
        queued[seat] = card
    # Queueing changed no version and wrote nothing to the outbox.
    assert service.game_info(game_id).version == version
    result = service.act(game_id, lead_user, lead, version)
    assert result.status is ActStatus.APPLIED
    # One transaction: the version moved once, and the trick is complete.
    assert service.game_info(game_id).version == version + 1
    board = [n for n in result.notifications if n.kind is Kind.BOARD]
    assert len(board) == 1
    moves = board[0].payload.moves  # type: ignore[union-attr]
    played = [(m.seat, m.action, m.actor) for m in moves if m.action.startswith("play:")]
    assert played[0] == (leader, lead, Actor.PLAYER)
    for seat, action, actor in played[1:]:
        assert action == f"play:{queued[seat]}"
        assert actor is Actor.PLAYER  # nobody can tell it from a tap
    assert len(played) == 4
    for seat in others:
        user = _user_of(service, game_id, seat)
        assert result.scene is not None
        premove = result.scene.seats[user].premove
        assert premove.queued is None and premove.played == (f"play:{queued[seat]}",)
    assert service.replay(game_id) == service.snapshot(game_id)


def test_a_queued_card_made_illegal_by_the_lead_is_dropped(service: GameService) -> None:
    game_id, leader, others = _setup(service)
    lead_user = _user_of(service, game_id, leader)
    lead_view = service.seat_view(game_id, lead_user)
    nxt = others[0]
    user = _user_of(service, game_id, nxt)
    hand = [str(c) for c in service.seat_view(game_id, user).view.players[nxt].hand]
    # A lead whose suit the next player holds, and a queued card of another suit.
    lead = next(a for a in lead_view.legal
                if any(c[-1] == a[-1] for c in hand) and any(c[-1] != a[-1] for c in hand))
    wrong = next(c for c in hand if c[-1] != lead[-1])
    assert service.premove(game_id, user, f"play:{wrong}").status is ActStatus.APPLIED
    result = service.act(game_id, lead_user, lead, lead_view.game.version)
    assert result.status is ActStatus.APPLIED and result.scene is not None
    sv = result.scene.seats[user]
    assert sv.to_act
    assert sv.premove.dropped == f"play:{wrong}" and sv.premove.reason == "follow_suit"
    assert sv.premove.queued is None
    assert any(n.kind is Kind.YOUR_TURN and n.user_id == user for n in result.notifications)


def test_queue_toggles_cancels_and_refuses(service: GameService) -> None:
    game_id, leader, others = _setup(service)
    user = _user_of(service, game_id, others[1])
    card = str(service.seat_view(game_id, user).view.players[others[1]].hand[0])
    assert service.premove(game_id, user, f"play:{card}", toggle=True).ok
    again = service.premove(game_id, user, f"play:{card}", toggle=True)
    assert again.status is ActStatus.APPLIED and again.scene is not None
    assert again.scene.seats[user].premove.queued is None
    assert service.premove(game_id, user, None).status is ActStatus.DUPLICATE
    assert service.premove(game_id, user, "play:zz").status is ActStatus.INVALID
    lead_user = _user_of(service, game_id, leader)
    lead_card = str(service.seat_view(game_id, lead_user).view.players[leader].hand[0])
    refused = service.premove(game_id, user, f"play:{lead_card}")
    assert refused.status is ActStatus.ILLEGAL and refused.reason == "not_in_hand"
    swap = service.premove(game_id, user, "swap:pass")
    assert swap.status is ActStatus.ILLEGAL and swap.reason == "cannot_queue"
    assert service.premove(game_id, 999, f"play:{card}").status is ActStatus.NOT_SEATED


def test_queued_answer_to_the_decision_now_is_a_move(service: GameService) -> None:
    game_id, leader, _ = _setup(service)
    lead_user = _user_of(service, game_id, leader)
    sv = service.seat_view(game_id, lead_user)
    version = sv.game.version
    result = service.premove(game_id, lead_user, sv.legal[0])
    assert result.status is ActStatus.APPLIED
    assert service.game_info(game_id).version == version + 1
    assert any(n.kind is Kind.BOARD for n in result.notifications)


def test_auto_assign_places_the_brigadiers_tricks(service: GameService) -> None:
    game_id, _, _ = _setup(service)
    for user in range(1, 5):
        assert service.set_auto_assign(game_id, user, True).status is ActStatus.APPLIED
    assert service.set_auto_assign(game_id, 1, True).status is ActStatus.DUPLICATE
    # Play tricks by taps: no human ever waits in the assignment phase.
    for _ in range(12):
        board = service.board(game_id)
        assert board.view is not None
        assert board.view.phase is not Phase.ASSIGN
        if board.view.phase is not Phase.PLAY:
            break
        seat = board.view.to_act[0]
        user = _user_of(service, game_id, seat)
        sv = service.seat_view(game_id, user)
        assert service.act(game_id, user, sv.legal[0], sv.game.version).ok
    assert service.replay(game_id) == service.snapshot(game_id)
    assert service.set_auto_assign(game_id, 1, False).status is ActStatus.APPLIED


def test_swap_queued_while_the_planner_chooses(service: GameService) -> None:
    game, _ = new_game(service, humans=4, seed=21, preset="kolkhoz")
    # Play the first year out quickly: everyone assigns by the heuristic.
    for user in range(1, 5):
        service.set_auto_assign(game.id, user, True)
    for _ in range(200):
        board = service.board(game.id)
        assert board.view is not None
        if board.view.year == 2:
            break
        seat = board.view.to_act[0]
        user = _user_of(service, game.id, seat)
        sv = service.seat_view(game.id, user)
        assert service.act(game.id, user, sv.legal[0], sv.game.version).ok
    board = service.board(game.id)
    assert board.view is not None and board.view.phase is Phase.TRUMP
    planner = board.view.to_act[0]
    others = [s for s in range(4) if s != planner]
    for seat in others:
        user = _user_of(service, game.id, seat)
        assert service.premove(game.id, user, "swap:pass").status is ActStatus.APPLIED
    planner_user = _user_of(service, game.id, planner)
    sv = service.seat_view(game.id, planner_user)
    result = service.act(game.id, planner_user, sv.legal[0], sv.game.version)
    assert result.ok
    board = service.board(game.id)
    assert board.view is not None
    # The others' swaps were answered from their queues: only the planner may still decide.
    assert board.view.phase is not Phase.SWAP or set(board.view.to_act) <= {planner}
    swaps = {m.seat: m.action for n in result.notifications if n.kind is Kind.BOARD
             for m in n.payload.moves if m.action.startswith("swap:")}  # type: ignore[union-attr]
    assert all(swaps[s] == "swap:pass" for s in others)


def _twin(service: GameService, chat_id: int) -> int:
    game, _ = new_game(service, humans=4, seed=21, chat_id=chat_id)
    _to_play(service, game.id)
    return game.id


def _seen_by_others(service: GameService, game_id: int, but: int) -> tuple[object, ...]:
    """What the group and every seat but ``but`` see of a game (views, moves, deadlines,
    the board as the group reads it in both languages)."""
    board = service.board(game_id)
    others = tuple((service.seat_view(game_id, u).view, service.seat_view(game_id, u).legal)
                   for u in range(1, 5) if u != but)
    now = service.clock.now()
    texts = tuple(present.board_message(translator(lang), board, now, "kolkhoz_bot").text
                  for lang in ("en", "ru"))
    return board.view, board.deadline, others, texts


def test_a_queued_move_shows_nothing_to_anyone_else(service: GameService) -> None:
    """Twin games (same seed, same moves): in one a player queues their card, in the other
    they tap it when their turn comes. Every other reader sees the same before, and the
    same after; the group reads the same moves by the same actors."""
    queued, tapped = _twin(service, -100), _twin(service, -200)
    view = service.board(queued).view
    assert view is not None and view == service.board(tapped).view
    leader = view.to_act[0]
    lead_user = _user_of(service, queued, leader)
    nxt = (leader + 1) % 4
    user = _user_of(service, queued, nxt)
    lead = service.seat_view(queued, lead_user).legal[0]
    hand = [str(c) for c in service.seat_view(queued, user).view.players[nxt].hand]
    card = next((c for c in hand if c[-1] == lead[-1]), hand[0])
    notes_before = len(service.pending_notifications(1000, game_id=queued))
    assert service.premove(queued, user, f"play:{card}").ok
    # Queued: the same for everyone else, no version, no outbox row.
    assert _seen_by_others(service, queued, user) == _seen_by_others(service, tapped, user)
    assert service.game_info(queued).version == service.game_info(tapped).version
    assert len(service.pending_notifications(1000, game_id=queued)) == notes_before
    a = service.act(queued, lead_user, lead, service.game_info(queued).version)
    b = service.act(tapped, lead_user, lead, service.game_info(tapped).version)
    c = service.act(tapped, user, f"play:{card}", service.game_info(tapped).version)
    assert a.ok and b.ok and c.ok
    # Played: the same for everyone (the queuer too), and the group's moves read the same.
    assert _seen_by_others(service, queued, 0) == _seen_by_others(service, tapped, 0)

    def moves(notes: list[object]) -> list[tuple[int, str, object]]:
        return [(m.seat, m.action, m.actor) for n in notes
                if getattr(n, "kind", None) is Kind.BOARD
                for m in n.payload.moves]  # type: ignore[attr-defined]

    assert moves(a.notifications) == moves(b.notifications) + moves(c.notifications)
    group_a = [n.payload.view for n in a.notifications if n.kind is Kind.BOARD]  # type: ignore[union-attr]
    group_c = [n.payload.view for n in c.notifications if n.kind is Kind.BOARD]  # type: ignore[union-attr]
    assert group_a == group_c

