"""Lobby: create, join, leave, bots, start, abort, settings."""

from __future__ import annotations

import sqlite3

import pytest

from kolkhoz_tg.service import (
    BadRequest,
    Busy,
    GameService,
    Kind,
    NotAllowed,
    WrongState,
)
from kolkhoz_tg.storage.database import Database
from tests.conftest import make_settings


def test_create_join_leave_and_start(service: GameService) -> None:
    game = service.create_game(-5, 1, creator_name="Anna", preset="original", players=3)
    assert game.status == "lobby"
    assert [s.name for s in game.seats] == ["Anna"]
    assert game.preset == "original"
    game = service.join(game.id, 2, "Boris")
    with pytest.raises(NotAllowed) as e:
        service.join(game.id, 2, "Boris")
    assert e.value.code == "already_seated"
    game = service.join(game.id, 3, "Vera", seat=2)
    with pytest.raises(NotAllowed) as e:
        service.join(game.id, 4, "Gleb")
    assert e.value.code == "game_full"
    game = service.leave(game.id, 3)
    assert game.free_seats == [2]
    with pytest.raises(WrongState) as e:
        service.start(game.id, 1)
    assert e.value.code == "not_full"
    with pytest.raises(NotAllowed):
        service.start(game.id, 2, fill_with_ai=True)
    result = service.start(game.id, 1, fill_with_ai=True)
    assert result.ok
    info = service.game_info(game.id)
    assert info.status == "active"
    assert [s.is_ai for s in info.seats] == [False, False, True]
    assert info.deadline is not None
    assert Kind.GAME_STARTED in {n.kind for n in result.notifications}
    with pytest.raises(WrongState):
        service.join(game.id, 9, "Late")


def test_bots_and_seat_removal(service: GameService) -> None:
    game = service.create_game(-5, 1, creator_name="Anna")
    game = service.add_ai_player(game.id, 1, seat=3)
    assert game.seats[-1].is_ai and game.seats[-1].seat == 3
    with pytest.raises(NotAllowed) as e:
        service.add_ai_player(game.id, 1, seat=3)
    assert e.value.code == "seat_taken"
    with pytest.raises(BadRequest):
        service.add_ai_player(game.id, 1, seat=7)
    with pytest.raises(NotAllowed):
        service.add_ai_player(game.id, 99)  # not a member
    game = service.remove_seat(game.id, 1, 3)
    assert len(game.seats) == 1


def test_bad_settings_are_refused(service: GameService) -> None:
    with pytest.raises(BadRequest) as e:
        service.create_game(-5, 1, preset="nope")
    assert e.value.code == "bad_preset"
    with pytest.raises(BadRequest) as e:
        service.create_game(-5, 1, options={"deck": 40})
    assert e.value.code == "bad_option"
    with pytest.raises(BadRequest) as e:
        service.create_game(-5, 1, turn_timeout="10s")
    assert e.value.code == "bad_duration"
    with pytest.raises(BadRequest):
        service.create_game(-5, 1, players=6)
    with pytest.raises(BadRequest):
        service.create_game(-5, 1, reminders=["150%"])


def test_chat_defaults_apply_to_new_games(service: GameService) -> None:
    service.set_chat_defaults(-5, preset="zone", turn_timeout="2h", reminders=["30m"],
                              standin_after=3, options={"medals_score": True})
    game = service.create_game(-5, 1, creator_name="Anna")
    assert game.preset == "zone"
    assert game.rules.medals_score is True
    assert game.turn_timeout == 7200
    assert game.reminders == ["30m"]
    assert game.standin_after == 3
    game = service.configure(game.id, 1, turn_timeout="90m")
    assert game.turn_timeout == 5400
    with pytest.raises(NotAllowed):
        service.configure(game.id, 2, turn_timeout="1h")


def test_abort(service: GameService) -> None:
    game = service.create_game(-5, 1, creator_name="Anna")
    service.join(game.id, 2, "Boris")
    with pytest.raises(NotAllowed):
        service.abort(game.id, 2)
    result = service.abort(game.id, 2, force=True)
    assert [n.kind for n in result.notifications] == [Kind.ABORTED]
    assert service.game_info(game.id).status == "aborted"
    with pytest.raises(WrongState):
        service.abort(game.id, 1)
    assert service.games_in_chat(-5) == []
    assert [g.id for g in service.games_in_chat(-5, open_only=False)] == [game.id]


def test_locales(service: GameService) -> None:
    service.ensure_user(1, "Anna", "en-US")
    service.ensure_chat(-5, "Dacha", "ru")
    assert service.locale_for(1, -5) == "en"
    assert service.locale_for(2, -5) == "ru"
    assert service.locale_for(None, -6, fallback="en") == "en"
    service.set_user_locale(1, "ru")
    assert service.user(1) is not None and service.user(1).locale == "ru"  # type: ignore[union-attr]
    with pytest.raises(BadRequest):
        service.set_user_locale(1, "de")


def test_a_known_user_unchanged_is_not_written(sqlite_url: str) -> None:
    """Every command records its user's name and language; when neither changed nothing is
    written, so a command does not wait for (or fail on) another process's write lock."""
    db = Database(sqlite_url, busy_timeout=0.05, run_migrations=False)
    service = GameService(db, settings=make_settings())
    service.ensure_user(1, "Anna", "en")
    service.ensure_user(2, "Boris")
    other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        assert service.ensure_user(1, "Anna", "ru").locale == "en"  # her own stays
        assert service.ensure_user(1, "", None).name == "Anna"
        with pytest.raises(Busy):
            service.ensure_user(1, "Anna K.")  # a new name is a write
        with pytest.raises(Busy):
            service.ensure_user(2, "Boris", "ru")  # a first language is a write
        with pytest.raises(Busy):
            service.ensure_user(3, "Vera")
        other.execute("ROLLBACK")
        assert service.ensure_user(2, "Boris", "ru").locale == "ru"
        assert service.ensure_user(1, "Anna K.").name == "Anna K."
    finally:
        other.close()
        db.dispose()


def test_games_of_a_forum_topic(service: GameService) -> None:
    """Each forum topic of a chat holds its own games; None is "General" (or no topics)."""
    general = service.create_game(-7, 1, creator_name="Anna")
    first = service.create_game(-7, 1, topic_id=11, creator_name="Anna")
    second = service.create_game(-7, 2, topic_id=12, creator_name="Boris")
    assert (first.topic_id, second.topic_id, general.topic_id) == (11, 12, None)
    assert [g.id for g in service.games_in_chat(-7)] == [general.id]
    assert [g.id for g in service.games_in_chat(-7, 11)] == [first.id]
    assert [g.id for g in service.games_in_chat(-7, topic_id=12)] == [second.id]
    assert service.games_in_chat(-7, 13) == []
    assert [g.id for g in service.games_in_chat(-7, all_topics=True)] == [
        second.id, first.id, general.id]
    # One open game per place: no second one in a topic or in General, created or moved.
    for topic in (None, 11):
        with pytest.raises(NotAllowed) as refused:
            service.create_game(-7, 3, topic_id=topic, creator_name="Vera")
        assert refused.value.code == "place_taken"
    with pytest.raises(NotAllowed):
        service.move_game(first.id, None)
    with pytest.raises(NotAllowed):
        service.move_game(first.id, 12)
    assert service.move_game(first.id, 11).topic_id == 11  # where it is: no change
    # A game moves (its topic was deleted): from then on it is General's, once General's
    # own game is over.
    service.abort(general.id, 1)
    moved = service.move_game(first.id, None, meta={"why": "gone"})
    assert moved.topic_id is None and moved.meta["why"] == "gone"
    assert moved.version == first.version
    assert [g.id for g in service.games_in_chat(-7)] == [first.id]
    # A game that is over moves anywhere (it addresses nothing any more).
    assert service.move_game(general.id, None).topic_id is None
    service.abort(second.id, 2)
    assert service.games_in_chat(-7, 12) == []
    assert [g.id for g in service.games_in_chat(-7, 12, open_only=False)] == [second.id]
