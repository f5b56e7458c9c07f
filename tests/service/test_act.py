"""act(): seats, versions, idempotency, forced moves, notifications, whole games, replay."""

from __future__ import annotations

import random

import pytest

from engine import PRESETS, Game, Phase, preset
from engine.ai import default_action
from kolkhoz_tg.service import ActStatus, GameService, Kind, NotFound, SeatView
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.storage.database import Database
from tests.conftest import make_settings
from tests.service.helpers import new_game, play_out, random_chooser, step


def _waiting(service: GameService, game_id: int) -> tuple[int, SeatView]:
    board = service.board(game_id)
    assert board.view is not None
    seat = board.view.to_act[0]
    user = next(s.user_id for s in board.game.seats if s.seat == seat)
    assert user is not None
    return user, service.seat_view(game_id, user)


def _deterministic(view: SeatView) -> str:
    rng = random.Random(f"{view.game.id}/{view.game.version}/{view.seat}")
    return rng.choice(view.legal)


@pytest.mark.parametrize("name", list(PRESETS))
def test_whole_game_four_scripted_players(service: GameService, name: str) -> None:
    game, _ = new_game(service, preset=name, seed=11)
    moves = play_out(service, game.id, random_chooser(3))
    assert moves > 20
    info = service.game_info(game.id)
    assert info.status == "finished"
    assert info.deadline is None
    final = service.snapshot(game.id)
    assert final is not None and final.is_over
    # The stored log replays to the stored state.
    assert service.replay(game.id) == final
    kinds = [n.kind for n in service.pending_notifications(1000, game_id=game.id)]
    assert kinds[-1] is Kind.GAME_OVER
    assert Kind.YEAR_SUMMARY in kinds
    over = service.pending_notifications(1000, game_id=game.id)[-1]
    assert [row.score for row in over.payload.table] == sorted(final.scores(), reverse=True)
    assert service.user_stats(1).finished == 1


@pytest.mark.parametrize("players", [3, 5])
def test_three_and_five_players(service: GameService, players: int) -> None:
    game, _ = new_game(service, humans=2, players=players, preset="kolkhoz", seed=5)
    play_out(service, game.id, random_chooser(1))
    assert service.game_info(game.id).status == "finished"
    assert service.replay(game.id) == service.snapshot(game.id)


def test_bots_only_game_runs_to_the_end_at_start(service: GameService) -> None:
    game = service.create_game(-1, 1, creator_name="Host", seed=3, join=False)
    result = service.start(game.id, 1, fill_with_ai=True)
    assert result.ok
    info = service.game_info(game.id)
    assert info.status == "finished"
    reference = Game.new(preset("classic"), 4, 3)
    while not reference.is_over:
        seat = reference.to_act[0]
        reference.apply(seat, default_action(reference, seat))
    final = service.snapshot(game.id)
    assert final is not None
    assert final.scores() == reference.scores()
    assert {e["actor"] for e in service.action_log(game.id)} <= {"bot", "forced"}


def test_stale_duplicate_illegal_invalid_not_seated(service: GameService) -> None:
    game, _ = new_game(service, seed=2)
    user, view = _waiting(service, game.id)
    action = view.legal[0]
    first = service.act(game.id, user, action, view.game.version)
    assert first.status is ActStatus.APPLIED and first.version == view.game.version + 1
    again = service.act(game.id, user, action, view.game.version)
    assert again.status is ActStatus.DUPLICATE and again.ok
    log_len = len(service.action_log(game.id))
    other = next(a for a in view.legal if a != action) if len(view.legal) > 1 else "play:6H"
    stale = service.act(game.id, user, other, view.game.version)
    assert stale.status is ActStatus.STALE
    assert len(service.action_log(game.id)) == log_len
    user2, view2 = _waiting(service, game.id)
    nonsense = service.act(game.id, user2, "dance:now", view2.game.version)
    assert nonsense.status is ActStatus.INVALID
    outsider = service.act(game.id, 999, view2.legal[0], view2.game.version)
    assert outsider.status is ActStatus.NOT_SEATED
    idle = next(s.user_id for s in view2.game.seats if s.user_id not in (user2, None))
    assert idle is not None
    wrong = service.act(game.id, idle, view2.legal[0], view2.game.version)
    assert wrong.status is ActStatus.ILLEGAL and wrong.reason == "not_your_turn"
    assert service.game_info(game.id).version == view2.game.version
    assert service.why_illegal(game.id, idle, view2.legal[0]) == "not_your_turn"
    assert service.why_illegal(game.id, user2, view2.legal[0]) is None
    with pytest.raises(NotFound):
        service.act(12345, 1, "play:6H", 0)


def test_follow_suit_reason_and_unchanged_state(service: GameService) -> None:
    game, _ = new_game(service, seed=4)
    # Move on to a trick in progress where the next player holds an off-suit card.
    for _ in range(400):
        user, view = _waiting(service, game.id)
        trick = view.view.to_dict()["trick"]
        hand = view.view.to_dict()["players"][view.seat]["hand"]
        if view.view.phase == "play" and trick:
            led = trick[0][1][-1]
            offsuit = [c for c in hand if c[-1] != led]
            if offsuit and len(view.legal) < len(hand):
                before = service.snapshot(game.id)
                result = service.act(game.id, user, f"play:{offsuit[0]}", view.game.version)
                assert result.status is ActStatus.ILLEGAL
                assert result.reason == "follow_suit"
                assert service.snapshot(game.id) == before
                return
        assert step(service, game.id)
    pytest.fail("no follow-suit situation found")


def test_forced_moves_are_played_at_once(service: GameService) -> None:
    game, _ = new_game(service, seed=9)
    forced = 0
    while step(service, game.id, random_chooser(4)):
        board = service.board(game.id)
        if board.view is None or board.game.status != "active":
            break
        snapshot = service.snapshot(game.id)
        assert snapshot is not None
        for seat in snapshot.to_act:
            # Nobody is ever left waiting on a move without a choice.
            assert snapshot.forced_action(seat) is None
    forced = sum(1 for e in service.action_log(game.id) if e["actor"] == "forced")
    assert forced > 0


def test_forced_action_rules() -> None:
    g = Game.new(preset("classic"), 4, seed=1)
    seat = g.to_act[0]
    assert g.phase is Phase.TRUMP
    assert g.forced_action(seat) is None


def test_notifications_for_a_move(service: GameService) -> None:
    game, _ = new_game(service, seed=2)
    service.mark_delivered(n.id for n in service.pending_notifications(1000))
    user, view = _waiting(service, game.id)
    result = service.act(game.id, user, view.legal[0], view.game.version)
    kinds = [n.kind for n in result.notifications]
    assert Kind.BOARD in kinds
    board = next(n for n in result.notifications if n.kind is Kind.BOARD)
    assert board.user_id is None and board.chat_id == -100
    assert board.payload.moves[0].actor == "player"
    public = board.payload.to_json()["view"]
    assert "hand" not in str(public["players"][0]["hand"])  # public: hands hidden
    assert all(p.hand is None for p in board.payload.view.players)
    turn = [n for n in result.notifications if n.kind is Kind.YOUR_TURN]
    assert turn, "somebody must be told it is their turn"
    for n in turn:
        assert n.user_id is not None
        assert n.payload.view.players[n.seat].hand is not None
        assert n.payload.legal
    # Nothing is lost: the same records wait in the outbox until marked delivered.
    pending = {n.id for n in service.pending_notifications(100)}
    assert {n.id for n in result.notifications} <= pending
    assert service.mark_delivered([n.id for n in result.notifications]) == len(pending)
    assert service.mark_delivered([n.id for n in result.notifications]) == 0
    assert service.pending_notifications() == []


def test_board_notifications_supersede_undelivered_ones(service: GameService) -> None:
    game, _ = new_game(service, seed=2)
    for _ in range(6):
        step(service, game.id)
    boards = [n for n in service.pending_notifications(1000) if n.kind is Kind.BOARD]
    assert len(boards) == 1


def test_replay_of_every_stored_game(service: GameService) -> None:
    ids = []
    for seed, name in enumerate(PRESETS):
        game, _ = new_game(service, humans=2, preset=name, seed=seed, chat_id=-100 - seed)
        for _ in range(25):
            step(service, game.id, random_chooser(seed))
        ids.append(game.id)
    for game_id in ids:
        assert service.replay(game_id) == service.snapshot(game_id)
        log = service.action_log(game_id)
        assert [e["seq"] for e in log] == list(range(len(log)))


class _Crash(Exception):
    """The process dies in the middle of a transaction."""


def _play_interrupted(
    url: str, clock: object, preset_name: str, rng: random.Random | None,
    monkeypatch: pytest.MonkeyPatch,
) -> Game:
    from kolkhoz_tg.service.gametx import GameTx

    original = GameTx.set_clock

    def maybe_crash(tx: GameTx, moved: bool) -> None:
        # Dies after the moves were applied in memory, before anything is committed.
        if rng is not None and tx.moves and rng.random() < 0.05:
            raise _Crash
        original(tx, moved)

    monkeypatch.setattr(GameTx, "set_clock", maybe_crash)
    db = Database(url)
    service = GameService(db, clock=clock, settings=make_settings())  # type: ignore[arg-type]
    game, _ = new_game(service, preset=preset_name, seed=21)
    crashes = restarts = 0
    while True:
        if rng is not None and rng.random() < 0.05:
            restarts += 1
            db.dispose()  # the process stops between requests; a new one opens the file
            db = Database(url)
            service = GameService(db, clock=clock, settings=make_settings())  # type: ignore[arg-type]
        try:
            if not step(service, game.id, _deterministic):
                break
        except _Crash:
            crashes += 1
            db.dispose()
            db = Database(url)
            service = GameService(db, clock=clock, settings=make_settings())  # type: ignore[arg-type]
    monkeypatch.undo()
    final = service.snapshot(game.id)
    assert service.replay(game.id) == final
    db.dispose()
    assert final is not None
    if rng is not None:
        assert crashes and restarts
    return final


@pytest.mark.parametrize("name", list(PRESETS))
def test_interrupted_game_finishes_like_uninterrupted(
    tmp_path: object, clock: object, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pathlib import Path

    base = Path(str(tmp_path))
    whole = _play_interrupted(f"sqlite:///{base / 'a.sqlite3'}", clock, name, None, monkeypatch)
    broken = _play_interrupted(f"sqlite:///{base / 'b.sqlite3'}", clock, name,
                               random.Random(name), monkeypatch)
    assert whole.is_over and broken.is_over
    assert broken.log == whole.log
    assert broken.scores() == whole.scores()


def test_lost_race_behind_the_locks_changes_nothing(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If another writer bumped the version after we read it (what the row lock and SQLite's
    write lock normally prevent), the version compare-and-swap refuses the whole act()."""
    import sqlalchemy as sa

    from kolkhoz_tg.storage.models import GameRow

    game, _ = new_game(service, seed=2)
    user, view = _waiting(service, game.id)
    before = service.snapshot(game.id)
    log_len = len(service.action_log(game.id))
    original = Kernel.open_tx

    def sneaky(self: Kernel, s: object, row: GameRow, seats: object = None) -> object:
        s.execute(  # type: ignore[attr-defined]
            sa.update(GameRow).where(GameRow.id == row.id)  # type: ignore[arg-type]
            .values(version=row.version + 1)
            .execution_options(synchronize_session=False)
        )
        return original(self, s, row, seats)  # type: ignore[arg-type]

    monkeypatch.setattr(Kernel, "open_tx", sneaky)
    result = service.act(game.id, user, view.legal[0], view.game.version)
    assert result.status is ActStatus.STALE and result.reason == "conflict"
    monkeypatch.undo()
    assert service.game_info(game.id).version == view.game.version
    assert service.snapshot(game.id) == before
    assert len(service.action_log(game.id)) == log_len
    again = service.act(game.id, user, view.legal[0], view.game.version)
    assert again.status is ActStatus.APPLIED


def test_purge_keeps_pending_notifications(service: GameService) -> None:
    from datetime import timedelta

    game, _ = new_game(service, seed=2)
    step(service, game.id)
    pending = service.pending_notifications(1000)
    delivered = pending[:2]
    service.mark_delivered(n.id for n in delivered)
    clock = service.clock
    clock.advance(timedelta(days=8))  # type: ignore[attr-defined]
    removed = service.purge_notifications()
    assert removed >= 2
    left = {n.id for n in service.pending_notifications(1000)}
    assert left == {n.id for n in pending[2:]}


def test_a_swap_stands_while_only_others_swapped_and_not_in_a_later_phase(
    service: GameService,
) -> None:
    """Swaps are decided independently: another seat's swap moving the version on leaves a
    swap chosen before it good. A swap button kept from an earlier swap phase is stale, even
    if its cards would fit again; and a swap made twice is a duplicate."""
    game, users = new_game(service, preset="kolkhoz", seed=8)
    phases: list[dict[int, tuple[str, int]]] = []  # per swap phase: user -> (swap, version)
    for _ in range(600):
        snap = service.snapshot(game.id)
        assert snap is not None
        if snap.phase is Phase.SWAP and len(snap.to_act) >= 3:
            offers = {}
            for user in users:
                sv = service.seat_view(game.id, user)
                if sv.to_act:
                    offers[user] = next(a for a in reversed(sv.legal) if a != "swap:pass"), \
                        sv.game.version
            phases.append(offers)
            if len(phases) == 2:
                break
            (first, (swap, version)), (second, (other, _)) = list(offers.items())[:2]
            assert service.act(game.id, first, swap, version).status is ActStatus.APPLIED
            # The second player's button was made before the first swap: it still acts.
            result = service.act(game.id, second, other, version)
            assert result.status is ActStatus.APPLIED, result
            # Pressed again: a duplicate, whatever the version.
            assert service.act(game.id, second, other, version).status is ActStatus.DUPLICATE
        assert step(service, game.id)
    assert len(phases) == 2, "the game had fewer than two swap phases with three swappers"
    # A button from the first swap phase, never tapped there, tapped in the second: stale.
    (user, (swap, version)) = list(phases[0].items())[2]
    log = service.action_log(game.id)
    assert service.act(game.id, user, swap, version).status is ActStatus.STALE
    assert service.action_log(game.id) == log
