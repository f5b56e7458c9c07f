"""Games stored by the engine before RULES.md revision 3 load and play to the end.

Such a game's stored rules lack ``trump_wins``, ``final_year_short`` and ``reveal``, and its
snapshot is format version 1. It keeps the reading it was started under for those options
(trump wins, no short year, reveal matching); see docs/operators.md, "Upgrading".
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import FORMAT_VERSION, Game, Reveal, Rules
from kolkhoz_tg.service import GameService, WrongState
from kolkhoz_tg.storage.models import GameRow
from tests.service.helpers import new_game, play_out, random_chooser, step

NEW_OPTIONS = ("trump_wins", "final_year_short", "reveal")


def _as_stored_before_revision_3(state: dict[str, Any]) -> dict[str, Any]:
    old = dict(state, version=1)
    old["rules"] = {k: v for k, v in state["rules"].items() if k not in NEW_OPTIONS}
    old["state"] = {k: v for k, v in state["state"].items() if k not in ("short", "tricks")}
    return old


def _downgrade(service: GameService, game_id: int) -> None:
    with service.db.write() as s:
        row = s.get(GameRow, game_id)
        assert row is not None and row.state is not None
        row.state = _as_stored_before_revision_3(row.state)
        row.rules = {k: v for k, v in row.rules.items() if k not in NEW_OPTIONS}
    service.kernel.engine_cache.clear()


@pytest.mark.parametrize("preset", ["original", "kolkhoznik", "zone"])
def test_a_game_stored_before_revision_3_finishes(service: GameService, preset: str) -> None:
    game, _ = new_game(service, preset=preset, seed=4)
    chooser = random_chooser(4)
    for _ in range(25):
        assert step(service, game.id, chooser)
    _downgrade(service, game.id)
    loaded = service.snapshot(game.id)
    assert loaded is not None
    assert loaded.rules.trump_wins and not loaded.rules.final_year_short
    assert loaded.rules.reveal is Reveal.MATCHING
    play_out(service, game.id, chooser)
    info = service.game_info(game.id)
    assert info.status == "finished"
    final = service.snapshot(game.id)
    assert final is not None and final.is_over and final.to_json()["version"] == FORMAT_VERSION
    # The move-by-move log either replays or says plainly that it cannot; never a crash.
    try:
        moves = service.history(game.id)
    except WrongState as exc:
        assert exc.code == "log_unreadable"
    else:
        assert len(moves) == len(service.action_log(game.id))


def test_an_unknown_snapshot_version_is_refused_clearly() -> None:
    g = Game.new(Rules(), 4, 1)
    data = dict(g.to_json(), version=99)
    with pytest.raises(ValueError, match="unsupported snapshot version 99"):
        Game.from_json(data)
