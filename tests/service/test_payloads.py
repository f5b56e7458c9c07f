"""The outbox's JSON is unchanged by the typed payloads: a row stored in the shape the outbox
has always written (the dicts the service built before :mod:`kolkhoz_tg.service.payloads`)
decodes, for every kind, and encodes back to the very same JSON; and every row a played
game writes does too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlmodel import select

from engine import Game, event_to_dict, preset
from engine import events as ev
from engine.cards import Card, Suit
from kolkhoz_tg.service import GameService, Kind
from kolkhoz_tg.service.payloads import decode
from kolkhoz_tg.storage.models import NotificationRow
from tests.service.helpers import new_game, play_out, random_chooser


def _game() -> Game:
    game = Game.new(preset("kolkhoz"), 4, 7)
    for _ in range(6):
        seat = game.to_act[0]
        game.apply(seat, game.legal_actions(seat)[0])
    return game


def _header() -> dict[str, Any]:
    return {
        "id": 3, "chat_id": -100, "status": "active", "preset": "kolkhoz", "players": 4,
        "version": 12, "turn_timeout": 3600,
        "seats": [
            {"seat": s, "user_id": None if s == 3 else 100 + s, "name": f"P{s}",
             "is_bot": s == 3, "level": "normal" if s == 3 else None, "standin": s == 2,
             "timeouts": 1 if s == 2 else 0, "auto_moves": s}
            for s in range(4)
        ],
    }


def _move(seat: int, actor: str, events: list[ev.Event]) -> dict[str, Any]:
    return {"seat": seat, "action": "play:10H", "actor": actor,
            "events": [event_to_dict(e) for e in events]}


DEADLINE = "2026-11-27T20:00:00+00:00"
H10, KC, JS, C9 = (Card.parse(t) for t in ("10H", "KC", "JS", "9C"))


def old_rows() -> list[tuple[Kind, dict[str, Any]]]:
    """One stored row of each kind, as the service wrote them before payloads were typed."""
    game = _game()
    seat = game.to_act[0]
    year_end = [
        ev.CardsToPlot(1), ev.HeroNamed(1, 2), ev.JobFailed(Suit.C, 8),
        ev.DrunkardSentNorth(Suit.C, JS), ev.CardsRevealed(1, Suit.C, (KC, C9)),
        ev.CardSentNorth(1, Suit.C, KC), ev.NothingRequisitioned(Suit.D),
        ev.StacksReturned(0, 2), ev.YearEnded(1),
    ]
    return [
        (Kind.GAME_STARTED, {"game": _header(), "view": game.view(None)}),
        (Kind.BOARD, {
            "moves": [_move(0, "player", [ev.CardPlayed(0, H10)]),
                      _move(1, "forced", [ev.CardPlayed(1, KC), ev.TrickWon(1, (H10, KC))]),
                      _move(2, "timeout", year_end)],
            "view": game.view(None), "game": _header(), "deadline": DEADLINE,
        }),
        (Kind.BOARD, {"moves": [], "view": game.view(None), "game": _header(),
                      "deadline": None}),
        (Kind.YOUR_TURN, {
            "view": game.view(seat), "legal": [a.text for a in game.legal_actions(seat)],
            "phase": game.phase.value, "deadline": DEADLINE, "game": _header(),
        }),
        (Kind.REMINDER, {"deadline": DEADLINE, "last": False, "can_pm": True,
                         "phase": "play"}),
        (Kind.REMINDER, {"deadline": None, "last": True, "can_pm": False, "phase": "swap"}),
        (Kind.NEW_HAND, {"year": 2}),
        (Kind.TIMED_OUT, {"actions": ["play:10H", "assign:KC>S"], "timeouts": 2,
                          "standin_after": 3}),
        (Kind.STAND_IN, {"timeouts": 3, "name": "Vera"}),
        (Kind.STAND_IN, {"timeouts": 0, "name": "Vera", "away": True}),
        (Kind.PLAYER_BACK, {"name": "Vera"}),
        (Kind.TOOK_BACK, {"name": "Vera"}),
        (Kind.YEAR_SUMMARY, {
            "year": 1, "completed": [{"job": "H", "seat": 0}, {"job": "S", "seat": 2}],
            "events": [event_to_dict(e) for e in year_end], "medals": [1, 0, 2, 0],
            "theme": "jobs", "game": _header(),
            "last_trick": {"winner": 1, "cards": [[0, "10H"], [1, "KC"]], "jobs": ["S", None],
                           "earlier": [{"cards": [[2, "9C"], [3, None]], "winner": 2}]},
        }),
        (Kind.YEAR_SUMMARY, {
            "year": 2, "completed": [], "events": [], "medals": [0, 0, 0, 0],
            "theme": "fields", "game": _header(), "last_trick": None,
        }),
        (Kind.GAME_OVER, {
            "table": [{"rank": 1, "seat": 2, "name": "P2", "user_id": 102, "is_bot": False,
                       "score": 40, "plot": ["10H", "KC"], "medals": 2, "auto_moves": 1},
                      {"rank": 2, "seat": 3, "name": "Bot 1", "user_id": None,
                       "is_bot": True, "score": 12, "plot": [], "medals": 0,
                       "auto_moves": 0}],
            "winners": [2], "early": True, "years": 4,
        }),
        (Kind.PAUSED, {"by": 100, "remaining": 1800}),
        (Kind.PAUSED, {"by": None, "remaining": None}),
        (Kind.RESUMED, {"by": 100, "deadline": DEADLINE}),
        (Kind.ABORTED, {"by": 101}),
        (Kind.NEW_LOBBY, {"locale": "ru"}),
        (Kind.TIME_EXTENDED, {"names": ["Anna", "Boris"], "deadline": DEADLINE}),
    ]


def _stored(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True)


@pytest.mark.parametrize(("kind", "data"), old_rows(), ids=lambda x: str(x)[:12])
def test_an_old_row_decodes_and_encodes_back_the_same(kind: Kind, data: dict[str, Any]) -> None:
    payload = decode(kind, json.loads(json.dumps(data)))
    assert payload.kind is kind
    assert _stored(payload.to_json()) == _stored(data)


def test_every_kind_has_an_old_row() -> None:
    assert {k for k, _ in old_rows()} == set(Kind) - {Kind.LOBBY}


def test_the_rows_a_game_writes_decode_and_encode_back_the_same(service: GameService) -> None:
    game, _ = new_game(service, preset="kolkhoz", seed=5)
    play_out(service, game.id, random_chooser(2))
    with service.kernel.db.read() as s:
        rows = list(s.exec(select(NotificationRow).where(NotificationRow.game_id == game.id)))
    assert {Kind.GAME_STARTED, Kind.BOARD, Kind.YOUR_TURN, Kind.YEAR_SUMMARY,
            Kind.GAME_OVER} <= {Kind(r.kind) for r in rows}
    for row in rows:
        assert _stored(decode(Kind(row.kind), row.data).to_json()) == _stored(row.data)
