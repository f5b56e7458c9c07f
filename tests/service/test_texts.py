"""Every record of whole games renders in both languages, with no placeholder left over."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from engine import PRESETS, Card, Game
from kolkhoz_tg import present
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import GameService, Kind
from tests.service.helpers import new_game, random_chooser, step

_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def _clean(text: str) -> str:
    assert not _PLACEHOLDER.search(text), text
    return text


@pytest.mark.parametrize("name", list(PRESETS))
def test_whole_games_render(service: GameService, name: str) -> None:
    game, _ = new_game(service, humans=2, preset=name, seed=6, standin_after=1)
    chooser = random_chooser(6)
    trs = [translator("ru"), translator("en")]
    now = service.clock.now()
    rounds = 0
    while True:
        board = service.board(game.id)
        if board.game.status != "active":
            break
        assert board.view is not None
        for tr in trs:
            _clean(present.board_text(tr, board.game, board.view, now, board.deadline))
        view = service.seat_view(game.id, 1)
        for tr in trs:
            _clean(present.board_text(tr, view.game, view.view, now, view.deadline, view.seat))
            _clean(present.hand_text(tr, view.view))
            for action in view.legal:
                _clean(present.action_label(tr, view.view, action))
        rounds += 1
        if rounds % 7 == 0:
            # Let the clock play now and then: timeouts and stand-ins render too.
            service.clock.advance(86_401)  # type: ignore[attr-defined]
            service.sweep()
            service.back(game.id, 1)
            service.back(game.id, 2)
            continue
        if not step(service, game.id, chooser):
            break
    notes = service.pending_notifications(10_000)
    kinds = {n.kind for n in notes}
    assert Kind.GAME_OVER in kinds and Kind.TIMED_OUT in kinds
    for note in notes:
        for tr in trs:
            text = _clean(present.notification_text(tr, note, now))
            if note.kind not in (Kind.BOARD, Kind.YOUR_TURN):
                assert text, note.kind
            if note.kind is Kind.BOARD:
                for line in present.event_lines(tr, note.payload.game, note.payload.moves,
                                              note.payload.view.rules.theme.value,
                                              year_end=True):
                    _clean(line)


def test_reasons_and_errors_are_translated() -> None:
    ru, en = translator("ru"), translator("en")
    for code in present.REASONS:
        assert present.reason_text(ru, code) != present.reason_text(en, code)
    for code in ("game_full", "not_creator", "bad_duration", "conflict"):
        assert present.error_text(ru, code) != present.error_text(en, code)
    view = replace(Game.new(PRESETS["classic"], 4, 1).typed_view(None),
                   trick=((0, Card.parse("10H")),))
    assert "♥" in present.reason_text(en, "follow_suit", view)
