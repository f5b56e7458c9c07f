"""The delivery plan: what a notification shows, decided against the game as it is when the
notification goes out (which, for one the outbox relay retries, may be much later)."""

from __future__ import annotations

from datetime import timedelta

from kolkhoz_tg.bot.plan import PrivateNote, plan
from kolkhoz_tg.service import GameService, Kind
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
    seat = board.view["to_act"][0]
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
