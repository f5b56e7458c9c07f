"""Ratings: the pure computation on scripted results, and the cached table in the service."""

from __future__ import annotations

import sqlalchemy as sa

from kolkhoz_tg.service import GameService
from kolkhoz_tg.service.ratings import (
    GLOBAL,
    FinishedGame,
    RatedSeat,
    ai_key,
    chat_scope,
    compute,
    display,
    places,
)
from tests.service.helpers import new_game, play_out


def seat(key: str, score: int, *, moves: int = 20, auto: int = 0,
         winner: bool = False) -> RatedSeat:
    return RatedSeat(key=key, score=score, moves=moves, auto_moves=auto, winner=winner)


def test_places_share_ties() -> None:
    assert places([50, 40, 40, 10]) == [1, 2, 2, 4]
    assert places([30, 30, 30, 30]) == [1, 1, 1, 1]


def test_a_win_raises_and_a_tie_is_even() -> None:
    game = FinishedGame(1, -1, (seat("user:1", 50, winner=True), seat("user:2", 40),
                                seat("user:3", 40), seat("user:4", 10)))
    out = compute([game])
    chat, overall = out.tables[chat_scope(-1)], out.tables[GLOBAL]
    assert out.games == 1
    assert chat["user:1"].mu > chat["user:2"].mu > chat["user:4"].mu
    assert chat["user:2"].mu == chat["user:3"].mu  # equal scores: a shared place
    assert chat["user:2"].average_place == 2.0 and chat["user:4"].average_place == 4.0
    assert chat["user:1"].wins == 1 and chat["user:2"].wins == 0
    assert {k: (r.mu, r.sigma) for k, r in chat.items()} == {
        k: (r.mu, r.sigma) for k, r in overall.items()}
    # A newcomer shows 1000; the winner more, the last less.
    assert display(25.0, 25 / 3) == 1000
    assert chat["user:1"].value > chat["user:4"].value


def test_a_seat_mostly_played_by_a_stand_in_is_not_rated() -> None:
    game = FinishedGame(1, -1, (seat("user:1", 50, winner=True), seat("user:2", 40),
                                seat("user:3", 30, moves=20, auto=11),
                                seat("user:4", 10, moves=20, auto=10)))
    table = compute([game]).tables[GLOBAL]
    assert "user:3" not in table  # 11 of 20 moves automatic
    assert table["user:4"].games == 1  # exactly half: still rated
    # The rest are ranked among themselves: user:4 is third of three.
    assert table["user:4"].average_place == 3.0
    # A game with one rated seat left rates nobody.
    lonely = FinishedGame(2, -2, (seat("user:5", 50), seat("user:6", 40, auto=20)))
    assert chat_scope(-2) not in compute([lonely]).tables


def test_a_practice_game_is_never_rated() -> None:
    practice = FinishedGame(1, 7, (seat("user:7", 60, winner=True), seat(ai_key("hard"), 20),
                                   seat(ai_key("hard"), 10)), practice=True)
    out = compute([practice])
    assert out.games == 1 and out.tables == {}


def test_bots_are_rated_per_level_and_chats_apart() -> None:
    g1 = FinishedGame(1, -1, (seat("user:1", 50, winner=True), seat(ai_key("strong"), 40),
                              seat(ai_key(None), 30), seat(ai_key(None), 20)))
    g2 = FinishedGame(2, -2, (seat("user:1", 10), seat(ai_key("strong"), 60, winner=True)))
    out = compute([g1, g2])
    assert set(out.tables[chat_scope(-1)]) == {"user:1", "bot:strong", "bot:normal"}
    assert out.tables[chat_scope(-1)]["bot:normal"].games == 2  # two seats of one level
    assert set(out.tables[chat_scope(-2)]) == {"user:1", "bot:strong"}
    overall = out.tables[GLOBAL]
    assert overall["user:1"].games == 2 and overall["user:1"].wins == 1
    assert overall["bot:strong"].games == 2 and overall["bot:strong"].last_game == 2
    # The order matters: the same results the other way round give other numbers.
    assert compute([g2, g1]).tables[GLOBAL]["user:1"].mu != overall["user:1"].mu


def test_the_service_table_follows_finished_games(service: GameService) -> None:
    assert service.chat_ratings(-100) == []
    game, _ = new_game(service, humans=2, seed=5, chat_id=-100)
    assert service.chat_ratings(-100) == []  # not finished yet
    play_out(service, game.id)
    lines = service.chat_ratings(-100)
    assert {x.user_id for x in lines if x.level is None} == {1, 2}
    assert [x.level for x in lines if x.level is not None] == ["normal"]
    assert all(x.games == (2 if x.level else 1) for x in lines)
    assert [x.rating for x in lines] == sorted((x.rating for x in lines), reverse=True)
    mine = service.user_ratings(1)
    assert [x.chat_id for x in mine] == [None, -100]
    # A second game in another chat: the cache notices and recomputes.
    other, _ = new_game(service, humans=1, seed=6, chat_id=-200)
    play_out(service, other.id)
    mine = service.user_ratings(1)
    assert mine[0].chat_id is None and mine[0].games == 2
    assert sorted(x.chat_id for x in mine[1:]) == [-200, -100]
    # rerate rebuilds the same table from scratch.
    before = service.chat_ratings(-100)
    with service.db.write() as s:
        s.execute(sa.text("DELETE FROM ratings"))
    assert service.rerate() == 2
    assert service.chat_ratings(-100) == before


def test_rerate_leaves_out_a_seat_a_stand_in_mostly_played(service: GameService) -> None:
    game, _ = new_game(service, humans=2, seed=5, chat_id=-100)
    play_out(service, game.id)
    assert 2 in {x.user_id for x in service.chat_ratings(-100)}
    # As if the clock and a stand-in had made every one of user 2's moves.
    with service.db.write() as s:
        s.execute(sa.text("UPDATE seats SET auto_moves = 1000 WHERE game_id = :g AND "
                          "user_id = 2"), {"g": game.id})
    service.rerate()
    assert {x.user_id for x in service.chat_ratings(-100)} == {1, None}
    assert service.user_ratings(2) == []
