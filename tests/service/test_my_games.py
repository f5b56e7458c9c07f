"""``GameService.my_games``: a user's open games in one read, those where it is their move
first (the longest wait first), then the others (running, paused, lobbies); the topic names
the bot saw (``name_topic``); a practice game, whose clock never runs, waits since its last
move. The records carry no card."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from kolkhoz_tg.service import GameService, MyGame
from kolkhoz_tg.service.people import MAX_TOPIC_NAMES
from kolkhoz_tg.timeutil import FakeClock


def game_for(service: GameService, chat_id: int, users: list[int], *,
             topic_id: int | None = None, start: bool = True) -> int:
    """A game of ``users`` (the first creates it) and a bot, in ``chat_id``."""
    service.ensure_chat(chat_id, f"Chat {chat_id}")
    game = service.create_game(chat_id, users[0], creator_name=f"U{users[0]}", players=3,
                               topic_id=topic_id, seed=3)
    for uid in users[1:]:
        service.join(game.id, uid, f"U{uid}")
    if start:
        service.start(game.id, users[0], fill_with_ai=True)
    return game.id


def move_until(service: GameService, game_id: int, user_id: int, mine: bool) -> None:
    """Humans' first legal moves until it is ``user_id``'s move (``mine``) or someone
    else's."""
    for _ in range(40):
        info = service.game_info(game_id)
        views = {s.user_id: service.seat_view(game_id, s.user_id) for s in info.seats
                 if s.user_id is not None}
        if views[user_id].to_act == mine and any(v.to_act for v in views.values()):
            return
        uid = next(u for u, v in views.items() if v.to_act and (not mine or u != user_id))
        v = views[uid]
        assert service.act(game_id, uid, v.legal[0], v.game.version).ok
    raise AssertionError("the turn never came")


def test_the_longest_wait_first_then_the_others(
    service: GameService, clock: FakeClock
) -> None:
    t0 = clock.now()
    old = game_for(service, -101, [1, 2])
    move_until(service, old, 1, mine=True)
    clock.advance(timedelta(hours=3))
    theirs = game_for(service, -102, [1, 2])
    move_until(service, theirs, 1, mine=False)
    clock.advance(timedelta(hours=1))
    new = game_for(service, -103, [2, 1], topic_id=7)
    move_until(service, new, 1, mine=True)
    paused = game_for(service, -104, [1, 2])
    service.pause(paused, 1)
    lobby = game_for(service, -105, [1], start=False)
    finished = game_for(service, -106, [1, 2])
    service.abort(finished, 1)
    service.name_topic(-103, 7, "Cards")
    service.set_time_zone(1, "Europe/Moscow")
    service.set_can_pm(1, True)
    clock.advance(timedelta(hours=1))

    mine = service.my_games(1)
    assert (mine.user_id, mine.zone, mine.can_pm) == (1, "Europe/Moscow", True)
    assert [g.game.id for g in mine.mine] == [old, new]
    assert [g.game.id for g in mine.others] == [theirs, paused, lobby]
    first, second = mine.mine
    assert first.since == t0 and first.deadline == t0 + timedelta(days=1)
    assert first.chat_title == "Chat -101" and first.to_act and first.seat in first.waiting
    assert second.topic_name == "Cards" and second.game.topic_id == 7
    their, held, waiting = mine.others
    assert not their.to_act and their.waiting and their.seat not in their.waiting
    assert their.since == t0 + timedelta(hours=3)
    assert (held.since, held.waiting, held.game.status) == (None, (), "paused")
    assert (waiting.phase, waiting.since, waiting.game.status) == (None, None, "lobby")
    # Nothing about cards crosses: the record's fields are the header, places and times.
    assert {f.name for f in dataclasses.fields(MyGame)} == {
        "game", "seat", "chat_title", "topic_name", "to_act", "waiting", "phase", "since",
        "deadline"}
    # Another user sees only their own seats; a stranger has none.
    assert [g.game.id for g in service.my_games(2).mine + service.my_games(2).others] == [
        theirs, old, new, paused]
    assert service.my_games(99) == dataclasses.replace(
        service.my_games(99), mine=[], others=[], zone=None, can_pm=False)


def test_a_practice_game_waits_since_its_last_move(
    service: GameService, clock: FakeClock
) -> None:
    service.ensure_user(5, "Pat")
    result = service.start_practice(5, "Pat", level="normal", seed=11)
    clock.advance(timedelta(minutes=40))
    [game] = service.my_games(5).mine
    assert game.game.id == result.game_id and game.game.practice
    assert game.deadline is None
    log = service.action_log(result.game_id)
    assert game.since == (log[-1]["at"] if log else service.game_info(result.game_id).started_at)


def test_topic_names_are_the_latest_and_kept_within_bounds(service: GameService) -> None:
    service.name_topic(-200, 3, "Cards")
    service.name_topic(-200, 3, "Cards and more")
    for topic in range(10, 10 + MAX_TOPIC_NAMES):
        service.name_topic(-200, topic, f"T{topic}")
    chat = service.chat(-200)
    assert chat is not None
    names = chat.settings["topic_names"]
    assert len(names) == MAX_TOPIC_NAMES and "3" not in names  # the oldest went first
    service.name_topic(-200, 10 + MAX_TOPIC_NAMES - 1, "Renamed")
    chat = service.chat(-200)
    assert chat is not None and chat.settings["topic_names"][str(9 + MAX_TOPIC_NAMES)] == (
        "Renamed")
