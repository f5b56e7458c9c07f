"""The delivery plan: what a notification shows, decided against the game as it is when the
notification goes out (which, for one the outbox relay retries, may be much later)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from kolkhoz_tg.bot.plan import plan
from kolkhoz_tg.bot.steps import Private, PrivateNote
from kolkhoz_tg.service import GameService, Kind, Notification
from kolkhoz_tg.timeutil import FakeClock
from tests.service.helpers import new_game


def _reminders(steps: list[object]) -> list[PrivateNote]:
    return [s for s in steps if isinstance(s, PrivateNote)]


def test_a_reminder_that_goes_out_after_the_move_is_dropped(
    service: GameService, clock: FakeClock
) -> None:
    """A reminder held up (flood control, the network, a restart) until after the player
    moved, or until the game was paused, must not tell them to hurry."""
    game, _ = new_game(service, seed=3)
    board = service.board(game.id)
    assert board.view is not None
    seat = board.view.to_act[0]
    user = next(s.user_id for s in board.game.seats if s.seat == seat)
    assert user is not None
    clock.advance(timedelta(hours=12))
    notes = [n for n in service.sweep().notifications if n.kind is Kind.REMINDER]
    assert [n.user_id for n in notes] == [user]
    now = plan(notes, service.scene(game.id), clock.now(), "kolkhoz_bot")
    assert [s.user_id for s in _reminders(now.steps)] == [user]
    # Paused meanwhile: dropped; going on an hour later (so an hour later deadline): still.
    service.pause(game.id, 1)
    paused = plan(notes, service.scene(game.id), clock.now(), "kolkhoz_bot")
    assert not _reminders(paused.steps) and notes[0].id in paused.free
    clock.advance(timedelta(hours=1))  # the clock stops while paused
    service.resume(game.id, 1)
    resumed = plan(notes, service.scene(game.id), clock.now(), "kolkhoz_bot")
    assert not _reminders(resumed.steps)
    # Moved meanwhile: dropped.
    sv = service.seat_view(game.id, user)
    assert service.act(game.id, user, sv.legal[0], sv.game.version).ok
    later = plan(notes, service.scene(game.id), clock.now(), "kolkhoz_bot")
    assert not _reminders(later.steps) and notes[0].id in later.free


def _new_messages(notes: list[Notification], service: GameService, game_id: int,
                  clock: FakeClock) -> dict[int, tuple[int, ...]]:
    """Who gets a new game message for ``notes`` planned alone (as the relay retries
    them), and the notes each settles."""
    steps = plan(notes, service.scene(game_id), clock.now(), "kolkhoz_bot").steps
    return {s.user_id: s.notes for s in steps if isinstance(s, Private) and s.edit is None}


@pytest.mark.parametrize("backend", ["service", "pg_service"])
def test_every_fresh_hand_is_in_the_outbox_not_only_the_first_to_act(
    backend: str, request: pytest.FixtureRequest, clock: FakeClock
) -> None:
    """At the start and at each new year every player gets a new game message with their
    hand. Those not to act have a NEW_HAND note for it, so a send that fails is made good by
    the relay like a turn's; their turn's message replaces one still owed (the outbox
    writes differ on SQLite and PostgreSQL), and one the game has since moved a year past
    is dropped."""
    service: GameService = request.getfixturevalue(backend)
    game = service.create_game(-100, 1, creator_name="U1", players=4, seed=7)
    for uid in (2, 3, 4):
        service.join(game.id, uid, f"U{uid}")
    notes = service.start(game.id, 1).notifications
    hands = [n for n in notes if n.kind is Kind.NEW_HAND]
    turns = [n for n in notes if n.kind is Kind.YOUR_TURN]
    assert hands and turns
    assert sorted(n.user_id or 0 for n in hands + turns) == [1, 2, 3, 4]
    assert _new_messages(hands, service, game.id, clock) == {
        n.user_id: (n.id,) for n in hands}
    # Paused before it went out: it goes out all the same (the message says "paused").
    service.pause(game.id, 1)
    assert _new_messages(hands, service, game.id, clock) == {
        n.user_id: (n.id,) for n in hands}
    service.resume(game.id, 1)
    # Still owed when its player's turn comes: the turn's message replaces it.
    owed = {n.user_id: n.id for n in hands}
    while True:
        board = service.board(game.id)
        assert board.view is not None
        user = next(s.user_id or 0 for s in board.game.seats
                    if s.seat == board.view.to_act[0])
        if user in owed:
            break
        sv = service.seat_view(game.id, user)
        assert service.act(game.id, user, sv.legal[0], sv.game.version).ok
    pending = service.pending_notifications(1000, game_id=game.id)
    assert any(n.kind is Kind.YOUR_TURN and n.user_id == user for n in pending)
    assert owed.pop(user) not in {n.id for n in pending}
    pending_ids = {n.id for n in pending}
    assert set(owed.values()) <= pending_ids  # the others' are still owed
    # The next year's deal: again a note for each player, a turn or a fresh hand.
    year_two: list[Notification] = []
    while not year_two:
        board = service.board(game.id)
        assert board.view is not None and board.view.year == 1
        seat = board.view.to_act[0]
        user = next(s.user_id for s in board.game.seats if s.seat == seat)
        assert user is not None
        sv = service.seat_view(game.id, user)
        result = service.act(game.id, user, sv.legal[0], sv.game.version)
        assert result.ok
        if service.board(game.id).view.year == 2:  # type: ignore[index]
            year_two = [n for n in result.notifications
                        if n.kind in (Kind.NEW_HAND, Kind.YOUR_TURN)]
    assert sorted(n.user_id or 0 for n in year_two) == [1, 2, 3, 4]
    assert any(n.kind is Kind.NEW_HAND for n in year_two)
    # A fresh hand replaces its player's turn of the year before, still owed here (nothing
    # was delivered): one new message each, not two.
    owed = service.pending_notifications(1000, game_id=game.id)
    for note in year_two:
        assert [n.id for n in owed if n.user_id == note.user_id and n.kind in (
            Kind.YOUR_TURN, Kind.NEW_HAND)] == [note.id]
    # The first year's hands, delivered only now, would show the second year's: dropped.
    late = plan(hands, service.scene(game.id), clock.now(), "kolkhoz_bot")
    assert not late.steps and sorted(late.free) == sorted(n.id for n in hands)
