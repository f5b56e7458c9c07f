"""A player's own time: the time zone from a city or an offset, the quiet window, and going
away (a stand-in that plays without counting missed turns)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kolkhoz_tg.service import ActStatus, BadRequest, GameService, Kind
from kolkhoz_tg.timeutil import FakeClock, find_zone, parse_quiet_window, zone_label
from tests.service.helpers import new_game, step

DAY = timedelta(hours=24)


def _waiting_user(service: GameService, game_id: int) -> tuple[int, int]:
    board = service.board(game_id)
    assert board.view is not None
    seat = board.view.to_act[0]
    user = next(s.user_id for s in board.game.seats if s.seat == seat)
    assert user is not None
    return seat, user


@pytest.mark.parametrize(("typed", "zone"), [
    ("Europe/Moscow", "Europe/Moscow"), ("europe/moscow", "Europe/Moscow"),
    ("Moscow", "Europe/Moscow"), ("москва", "Europe/Moscow"),
    ("Санкт-Петербург", "Europe/Moscow"), ("Новосибирск", "Asia/Novosibirsk"),
    ("new york", "America/New_York"), ("Нью-Йорк", "America/New_York"),
    ("+3", "Etc/GMT-3"), ("UTC+03:00", "Etc/GMT-3"), ("-5", "Etc/GMT+5"),
    ("utc", "UTC"), ("GMT+0", "UTC"), ("+5:30", "Asia/Kolkata"), ("+14", "Etc/GMT-14"),
])
def test_a_zone_from_a_name_a_city_or_an_offset(typed: str, zone: str) -> None:
    assert find_zone(typed) == zone


@pytest.mark.parametrize("typed", ["Atlantis", "Europe/Atlantis", "+15", "+3:15", "3", ""])
def test_what_is_no_zone_is_refused(typed: str) -> None:
    with pytest.raises(ValueError):
        find_zone(typed)


def test_zone_labels_and_quiet_windows() -> None:
    assert zone_label("Etc/GMT-3") == "UTC+3" and zone_label("Etc/GMT+5") == "UTC-5"
    assert zone_label("Europe/Moscow") == "Europe/Moscow"
    assert parse_quiet_window("23:00-08:00") == (23 * 60, 8 * 60)
    assert parse_quiet_window("23-8") == parse_quiet_window("23:00 – 08:00") == (1380, 480)
    for bad in ("23:00", "25:00-08:00", "08:00-08:00", "night"):
        with pytest.raises(ValueError):
            parse_quiet_window(bad)


def test_time_zone_and_quiet_window_are_stored_and_kept_apart(service: GameService) -> None:
    service.ensure_user(1, "U1")
    with pytest.raises(BadRequest) as no_zone:
        service.set_quiet_window(1, "23:00-08:00")
    assert no_zone.value.code == "no_timezone"
    assert service.set_time_zone(1, "Москва").timezone == "Europe/Moscow"
    info = service.set_quiet_window(1, "23:00-08:00")
    assert (info.timezone, info.quiet_start, info.quiet_end) == ("Europe/Moscow", 1380, 480)
    # A new zone keeps the window; a bad one or a bad window changes nothing.
    assert service.set_time_zone(1, "+5").quiet_start == 1380
    with pytest.raises(BadRequest) as bad:
        service.set_time_zone(1, "Atlantis")
    assert bad.value.code == "bad_timezone"
    with pytest.raises(BadRequest) as bad:
        service.set_quiet_window(1, "soon")
    assert bad.value.code == "bad_quiet_hours"
    user = service.user(1)
    assert user is not None
    assert (user.timezone, user.quiet_start, user.quiet_end) == ("Etc/GMT-5", 1380, 480)
    info = service.set_quiet_window(1, None)
    assert info.timezone == "Etc/GMT-5" and info.quiet_start is None
    service.set_quiet_window(1, "23:00-08:00")
    info = service.set_time_zone(1, None)  # no zone: the window means nothing either
    assert info.timezone is None and info.quiet_start is None and info.quiet_end is None


def test_reminders_keep_to_the_window_set_by_city(service: GameService, clock: FakeClock) -> None:
    # As set by "/settings tz Москва" and "/settings quiet 23:00-08:00": 09:00 UTC is 12:00
    # in Moscow; half the day later is midnight there, so the reminder waits until 08:00.
    service.ensure_user(1, "U1")
    service.set_time_zone(1, "Москва")
    service.set_quiet_window(1, "23:00-08:00")
    game, _ = new_game(service, seed=3)
    for _ in range(50):
        if _waiting_user(service, game.id)[1] == 1:
            break
        assert step(service, game.id)
    planned = [j for j in service.scheduled_jobs() if j.kind == "reminder"]
    assert planned and planned[0].at == datetime(2026, 3, 3, 5, 0, tzinfo=UTC)


def test_away_plays_at_once_and_counts_no_missed_turn(
    service: GameService, clock: FakeClock
) -> None:
    game, _ = new_game(service, seed=5)
    seat, user = _waiting_user(service, game.id)
    result = service.away(game.id, user, meta={f"away:{user}": "2026-03-05T09:00:00+00:00"})
    assert result.status is ActStatus.APPLIED
    kinds = [(n.kind, n.user_id) for n in result.notifications]
    assert (Kind.STAND_IN, user) in kinds and (Kind.STAND_IN, None) in kinds
    assert all(n.payload.away for n in result.notifications if n.kind is Kind.STAND_IN)
    info = service.game_info(game.id)
    assert info.seats[seat].standin and info.meta[f"away:{user}"].startswith("2026-03-05")
    # It was their move: the stand-in made it at once.
    played = [e for e in service.action_log(game.id) if e["actor"] == "standin"]
    assert played and all(e["seat"] == seat for e in played)
    # A day passes: whoever is waited for times out, never the absent seat.
    clock.advance(DAY + timedelta(seconds=1))
    timed = [n.user_id for n in service.sweep().notifications if n.kind is Kind.TIMED_OUT]
    assert timed and user not in timed
    info = service.game_info(game.id)
    assert info.status == "active"
    assert info.seats[seat].timeouts == 0 and info.seats[seat].standin
    assert info.seats[seat].auto_moves >= 1
    assert service.away(game.id, user).status is ActStatus.DUPLICATE
    back = service.back(game.id, user)
    assert back.status is ActStatus.APPLIED
    assert Kind.PLAYER_BACK in [n.kind for n in back.notifications]
    assert not service.game_info(game.id).seats[seat].standin


def test_away_refuses_what_it_cannot_do(service: GameService) -> None:
    lobby = service.create_game(-7, 1, creator_name="U1")
    assert service.away(lobby.id, 1).status is ActStatus.NOT_ACTIVE
    game, _ = new_game(service, seed=5)
    assert service.away(game.id, 99).status is ActStatus.NOT_SEATED
    before = service.game_info(game.id).version
    # A later absence without an end clears the end stored for an earlier one.
    service.away(game.id, 2, meta={"away:2": "2026-03-05T09:00:00+00:00"})
    assert [(g, u) for g, u, _meta in service.stood_in()] == [(game.id, 2)]
    service.back(game.id, 2)
    assert service.stood_in() == []
    service.away(game.id, 2, meta={"away:2": None})
    assert "away:2" not in service.game_info(game.id).meta
    assert service.game_info(game.id).version > before
