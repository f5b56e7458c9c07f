"""One-tap rematch and new-game notices in the service (issue #31): the rematch lobby keeps
the last game's rules, clock, bots and seats; its players answer with join or leave; the
creator starts once all answered or the time for answers ran out; notices go out once per
lobby, never to its creator or seated players, and wait for the end of quiet hours."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from kolkhoz_tg.service import GameService, Kind, ServiceError
from kolkhoz_tg.service.payloads import NewLobby
from kolkhoz_tg.storage.models import NotificationRow
from kolkhoz_tg.timeutil import FakeClock
from tests.service.helpers import play_out

CHAT = -500


def finished_game(service: GameService) -> int:
    """Anna (1), Boris (2) and Vera (3) and a hard bot, one year, played out."""
    game = service.create_game(CHAT, 1, creator_name="Anna", seed=3, turn_timeout="2h",
                               options={"years": 1, "hero": True})
    service.join(game.id, 2, "Boris")
    service.join(game.id, 3, "Vera")
    service.add_ai_player(game.id, 1, level="hard")
    service.start(game.id, 1)
    play_out(service, game.id)
    assert service.game_info(game.id).status == "finished"
    return game.id


def notices(service: GameService, game_id: int) -> list[NotificationRow]:
    with service.db.read() as s:
        return list(s.exec(select(NotificationRow).where(
            NotificationRow.game_id == game_id, NotificationRow.kind == "new_lobby")).all())


def code(call: object) -> str:
    with pytest.raises(ServiceError) as e:
        call()  # type: ignore[operator]
    return e.value.code


def test_rematch_keeps_the_table_and_waits_for_answers(
    service: GameService, clock: FakeClock
) -> None:
    old_id = finished_game(service)
    old = service.game_info(old_id)
    # Vera asks; strangers and a second tap get nothing.
    assert code(lambda: service.rematch(old_id, 99)) == "not_seated"
    new = service.rematch(old_id, 3)
    assert code(lambda: service.rematch(old_id, 2)) == "rematch_done"
    assert new.creator_id == 3 and new.status == "lobby" and new.chat_id == CHAT
    assert new.rules == old.rules and new.turn_timeout == old.turn_timeout
    assert new.players == old.players
    by_seat = {s.seat: s for s in new.seats}
    bot = next(s for s in old.seats if s.is_ai)
    assert by_seat[bot.seat].is_ai and by_seat[bot.seat].level == "hard"
    assert by_seat[old.seat_of(3)].user_id == 3  # type: ignore[index]
    assert {(i.user_id, i.seat) for i in new.invitations} == {(1, old.seat_of(1)),
                                                              (2, old.seat_of(2))}
    # Nobody else may take a kept seat, and the creator may not start yet.
    assert code(lambda: service.join(new.id, 7, "Gleb")) == "game_full"
    assert code(lambda: service.start(new.id, 3, True)) == "rematch_waiting"
    # Boris confirms (his old seat), Anna declines: her seat is free for anyone.
    service.join(new.id, 2, "Boris")
    service.leave(new.id, 1)
    info = service.game_info(new.id)
    assert info.seat_of(2) == old.seat_of(2) and info.invitations == ()
    assert info.free_seats == [old.seat_of(1)]
    result = service.start(new.id, 3, True)
    assert result.ok and service.game_info(new.id).status == "active"


def test_the_creator_starts_once_the_time_for_answers_ran_out(
    service: GameService, clock: FakeClock
) -> None:
    old_id = finished_game(service)
    new = service.rematch(old_id, 1)
    assert len(new.invitations) == 2
    clock.advance(timedelta(hours=2, seconds=1))  # the time per move: 2 hours
    # A late answer still takes the kept seat; the silent player's seat goes to a bot.
    service.join(new.id, 2, "Boris")
    assert service.start(new.id, 1, True).ok
    info = service.game_info(new.id)
    assert sum(1 for s in info.seats if s.is_ai) == 2 and info.seat_of(3) is None


def test_notices_once_per_lobby_to_subscribers_only(
    service: GameService, clock: FakeClock
) -> None:
    for uid, name in ((1, "Anna"), (2, "Boris"), (5, "Dasha"), (6, "Egor")):
        service.ensure_user(uid, name, "en")
        service.set_notify(CHAT, uid, True)
    for uid in (1, 2, 5):
        service.set_can_pm(uid, True)
    assert service.set_notify(CHAT, 6, None) is False  # None: switched (the 🔔 button)
    assert service.set_notify(CHAT, 6, None) is True
    # Dasha's quiet hours are 11:00-14:00 in Moscow; it is 09:00 UTC (12:00 there) now.
    service.set_quiet_hours(5, "Europe/Moscow", "11:00", "14:00")
    game = service.create_game(CHAT, 1, creator_name="Anna")
    rows = notices(service, game.id)
    # Not Anna (she opened it), not Egor (the bot cannot write to him).
    assert sorted(n.user_id for n in rows if n.user_id) == [2, 5]
    dasha = next(n for n in rows if n.user_id == 5)
    assert dasha.next_attempt_at is not None
    assert dasha.next_attempt_at - clock.now() == timedelta(hours=2)
    boris = next(n for n in rows if n.user_id == 2)
    assert boris.next_attempt_at is None
    assert service.claim_notifications("relay") and all(
        n.user_id != 5 for n in service.claim_notifications("other"))
    # Joining, leaving and other changes to the lobby tell nobody again.
    service.join(game.id, 2, "Boris")
    service.leave(game.id, 2)
    assert len(notices(service, game.id)) == 2
    # Off again: the next lobby tells Boris nothing.
    assert service.set_notify(CHAT, 2, False) is False
    service.abort(game.id, 1)
    later = service.create_game(CHAT, 1, creator_name="Anna")
    assert [n.user_id for n in notices(service, later.id)] == [5]
    record = service.pending_notifications()
    note = next(n for n in record if n.game_id == later.id)
    assert note.kind is Kind.NEW_LOBBY and isinstance(note.payload, NewLobby)
    assert note.payload.locale == "en"
    # Dasha, whose notice waits for her quiet hours to end, says /notify off: it never goes.
    assert service.set_notify(CHAT, 5, False) is False
    clock.advance(timedelta(hours=3))
    assert not [n for n in service.claim_notifications("relay") if n.kind is Kind.NEW_LOBBY]


def test_a_rematch_tells_subscribers_but_not_the_last_games_players(
    service: GameService
) -> None:
    for uid in (1, 2, 3, 8):
        service.ensure_user(uid, f"U{uid}", "ru")
        service.set_can_pm(uid, True)
        service.set_notify(CHAT, uid, True)
    old_id = finished_game(service)
    new = service.rematch(old_id, 2)
    assert [n.user_id for n in notices(service, new.id)] == [8]


def test_no_rematch_where_a_game_is_open_or_of_a_game_not_over(service: GameService) -> None:
    old_id = finished_game(service)
    other = service.create_game(CHAT, 5, creator_name="Dasha")
    assert code(lambda: service.rematch(old_id, 1)) == "place_taken"
    service.abort(other.id, 5)
    running = service.create_game(CHAT, 1, creator_name="Anna")
    assert code(lambda: service.rematch(running.id, 1)) == "not_finished"
    service.abort(running.id, 1)
    assert service.rematch(old_id, 1).status == "lobby"


def test_an_ai_player_never_takes_a_seat_kept_for_an_invited_player(
    service: GameService,
) -> None:
    new = service.rematch(finished_game(service), 3)
    assert {inv.user_id for inv in new.invitations} == {1, 2}  # their seats wait for them
    assert code(lambda: service.add_ai_player(new.id, 3)) == "game_full"
    # and each invited player still finds their seat
    service.join(new.id, 1, "Anna")
    info = service.join(new.id, 2, "Boris")
    assert {s.user_id for s in info.seats if not s.is_ai} == {1, 2, 3}


def test_once_the_time_for_answers_ran_out_the_kept_seats_read_as_free(
    service: GameService, clock: FakeClock
) -> None:
    """Review finding L2 of #32: after the time for answers, the lobby shows no seat kept
    (no ⏳, no waiting line, a notice may go out) and the creator may make the table
    smaller over a silent player's seat; a late answer still finds its old seat."""
    game = service.create_game(CHAT, 1, creator_name="Anna", seed=5, turn_timeout="2h",
                               options={"years": 1})
    service.join(game.id, 2, "Boris")
    service.add_ai_player(game.id, 1, level="normal")
    service.join(game.id, 3, "Vera")  # the last seat
    service.start(game.id, 1)
    play_out(service, game.id)
    new = service.rematch(game.id, 1)
    assert {i.seat for i in new.invitations} == {1, 3}
    assert code(lambda: service.configure_lobby(new.id, 1, players=3)) == "seat_taken"
    clock.advance(timedelta(hours=2, seconds=1))
    info = service.game_info(new.id)
    assert info.invitations == () and info.free_seats == [1, 3]
    # Boris answers late and gets his old seat back all the same.
    service.join(new.id, 2, "Boris")
    assert service.game_info(new.id).seat_of(2) == 1
    # Vera never answered: the table may shrink over her seat.
    assert service.configure_lobby(new.id, 1, players=3).players == 3
