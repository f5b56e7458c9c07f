"""Snapshot format 3: the state without the move log.

A game restored from ``to_json()`` must be indistinguishable from the original for everything
but the moves it no longer lists: every seat's view and the public one, the legal and forced
actions, and every later transition (events, views, the next snapshot). Checked on seeded
random games of every preset with 3, 4 and 5 players, restored at many points (every phase of
every year) and played to the end side by side. Formats 1 and 2, which listed the moves,
still load.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import FORMAT_VERSION, PRESETS, Action, Game, Phase, preset
from engine.ai import default_action
from engine.data import MoveLog

COMBOS = [(name, n) for name in PRESETS for n in (3, 4, 5)]


def _restore(g: Game) -> Game:
    """Through JSON text, as the service stores it."""
    return Game.from_json(json.loads(json.dumps(g.to_json())))


def _choose(g: Game, rng: random.Random) -> tuple[int, Action]:
    seat = rng.choice(g.to_act)
    if rng.random() < 0.5:
        return seat, default_action(g, seat)
    return seat, rng.choice(g.legal_actions(seat))


def _assert_same(a: Game, b: Game, where: str) -> None:
    """Everything a front end, an AI player or the rules can ask of the two games is the same."""
    assert a.to_json() == b.to_json(), where
    assert a.to_act == b.to_act and a.phase is b.phase and a.is_over == b.is_over, where
    for seat in [*range(a.n), None]:
        assert a.view(seat) == b.view(seat), (where, seat)
    for seat in range(a.n):
        assert a.legal_actions(seat) == b.legal_actions(seat), (where, seat)
        assert a.forced_action(seat) == b.forced_action(seat), (where, seat)
        if seat in a.to_act:
            assert default_action(a, seat) == default_action(b, seat), (where, seat)
    assert a.scores() == b.scores() and len(a.log) == len(b.log), where


def _play_side_by_side(name: str, players: int, seed: int) -> int:
    """One seeded game, restored at the first move of every phase of every year and at
    every 20th move; each restored copy is played to the end next to the original, with the
    same moves, and compared with it after every move (events, every view, legal actions,
    the next snapshot). Returns how many restore points were checked."""
    rng = random.Random(f"{name}/{players}/{seed}")
    g = Game.new(preset(name), players, seed)
    forks: list[Game] = []
    seen: set[tuple[int, Phase]] = set()
    step = 0
    while not g.is_over:
        here = (g.year, g.phase)
        if here not in seen or step % 20 == 0:
            seen.add(here)
            restored = _restore(g)
            _assert_same(g, restored, f"restored at move {step}")
            if step % 3 == 0:  # a restored game restores again: its count carries over
                restored = _restore(restored)
            forks.append(restored)
        seat, action = _choose(g, rng)
        events = g.apply(seat, action)
        step += 1
        snapshot = g.to_json()
        views = [g.view(s) for s in [*range(g.n), None]]
        legal = [g.legal_actions(s) for s in range(g.n)]
        for fork in forks:
            assert fork.apply(seat, action) == events, (step, seat, action)
            assert fork.log[-1] == g.log[-1] == (seat, action.text)
            assert len(fork.log) == len(g.log) == step
            assert fork.to_json() == snapshot, step
            assert [fork.view(s) for s in [*range(g.n), None]] == views, step
            assert [fork.legal_actions(s) for s in range(g.n)] == legal, step
    for fork in forks:
        _assert_same(g, fork, "the end")
    return len(forks)


@pytest.mark.parametrize(("name", "players"), COMBOS)
def test_restored_games_play_on_identically(name: str, players: int) -> None:
    assert _play_side_by_side(name, players, players) >= 12


@pytest.mark.parametrize(("name", "players"), COMBOS)
def test_restored_at_every_move(name: str, players: int) -> None:
    """Cheaper and denser: at every move of a game, the restored state equals the original
    and its next move gives the same events and state."""
    rng = random.Random(f"every/{name}/{players}")
    g = Game.new(preset(name), players, 100 + players)
    while not g.is_over:
        h = _restore(g)
        assert h == g
        for seat in [*range(g.n), None]:
            assert h.view(seat) == g.view(seat)
        for seat in range(g.n):
            assert h.legal_actions(seat) == g.legal_actions(seat)
        seat, action = _choose(g, rng)
        assert h.apply(seat, action) == g.apply(seat, action)
        assert h == g
        for seat in [*range(g.n), None]:
            assert h.view(seat) == g.view(seat)


def test_format_3_counts_the_moves_instead_of_listing_them() -> None:
    g = Game.new(preset("kolkhoz"), 4, 9)
    for _ in range(30):
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    data = g.to_json()
    assert FORMAT_VERSION == 3 and data["version"] == 3
    assert "log" not in data and data["moves"] == 30
    old = _as_format_2(g)
    assert len(json.dumps(data)) < len(json.dumps(old)) - 30 * 10


def test_the_log_of_a_restored_game() -> None:
    g = Game.new(preset("classic"), 4, 3)
    for _ in range(12):
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    h = _restore(g)
    log = h.log
    assert isinstance(log, MoveLog) and len(log) == 12 and log.start == 12 and not log.whole
    assert log.kept == [] and log != g.log
    with pytest.raises(LookupError, match="before this game was restored"):
        log[-1]
    with pytest.raises(LookupError):
        log[0]
    with pytest.raises(LookupError):
        list(log)
    with pytest.raises(LookupError):
        Game.replay(g.rules, 4, 3, log)
    seat = h.to_act[0]
    action = default_action(h, seat)
    h.apply(seat, action)
    g.apply(seat, action)
    # What the service logs: the latest move and its number in the whole game.
    assert h.log[-1] == g.log[-1] == (seat, action.text)
    assert len(h.log) - 1 == len(g.log) - 1 == 12
    assert h.log[12] == g.log[12] and h.log[12:] == g.log[12:] == [(seat, action.text)]
    assert h.log.kept == [(seat, action.text)]
    with pytest.raises(IndexError):
        h.log[13]
    with pytest.raises(LookupError):
        h.log[11:]
    # A copy keeps the same count; the original's log is whole and replays.
    assert len(h.copy().log) == 13 and h.copy().log.start == 12
    assert g.log.whole and list(g.log) == g.log.kept and len(list(g.log)) == 13
    assert Game.replay(g.rules, 4, 3, g.log) == g == h


def _as_format_2(g: Game) -> dict[str, Any]:
    """The snapshot format 2 wrote: the same state, with the whole log listed."""
    data = g.to_json()
    data = {k: v for k, v in data.items() if k != "moves"}
    return dict(data, version=2, log=[[s, t] for s, t in g.log])


@pytest.mark.parametrize("name", list(PRESETS))
def test_format_2_still_loads_with_its_log(name: str) -> None:
    g = Game.new(preset(name), 5, 21)
    rng = random.Random(name)
    for _ in range(40):
        g.apply(*_choose(g, rng))
    h = Game.from_json(json.loads(json.dumps(_as_format_2(g))))
    assert h.log.whole and h.log == g.log and h == g
    _assert_same(g, h, "format 2")
    while not g.is_over:
        seat, action = _choose(g, rng)
        assert h.apply(seat, action) == g.apply(seat, action)
    _assert_same(g, h, "format 2, the end")
    assert h.to_json()["version"] == 3 and h.to_json()["moves"] == len(g.log)


def test_format_1_still_loads() -> None:
    g = Game.new(preset("original"), 4, 5)
    for _ in range(25):
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    old = _as_format_2(g)
    old["version"] = 1
    old["state"] = {k: v for k, v in old["state"].items() if k not in ("short", "tricks")}
    h = Game.from_json(old)
    assert h.log == g.log and h.tricks == [] and not h.short
    assert h.legal_actions(h.to_act[0]) == g.legal_actions(g.to_act[0])


@pytest.mark.parametrize(
    "broken",
    [
        {"moves": None},
        {"moves": "many"},
        {"log": 5},
        {"state": {"hands": [["XX"]]}},
        {"state": {"hands": [[7]]}},
        {"state": {"trick": [[0]]}},
    ],
)
def test_malformed_snapshots_are_refused_as_value_errors(broken: dict[str, Any]) -> None:
    data = Game.new(preset("classic"), 4, 1).to_json()
    for key, value in broken.items():
        if key == "state":
            data["state"] = {**data["state"], **value}
        else:
            data[key] = value
    with pytest.raises(ValueError):
        Game.from_json(data)


def test_cards_in_another_notation_still_read() -> None:
    g = Game.new(preset("classic"), 4, 2)
    data = g.to_json()
    data["state"]["hands"] = [[c.replace("10", "T") for c in h] for h in data["state"]["hands"]]
    assert Game.from_json(data) == g


def test_rules_are_read_and_written_the_same_with_the_cache() -> None:
    g = Game.new(preset("kolkhoz"), 4, 8)
    data = g.to_json()
    data["rules"]["swap"] = "changed"  # the dict handed out is the caller's own
    assert g.to_json()["rules"] == g.rules.to_dict()
    good = g.to_json()
    assert Game.from_json(good).rules is Game.from_json(good).rules == g.rules
    # A value equal to a valid one but of the wrong type is refused even when the valid
    # rules were read before (1 == True, 40.0 == 40).
    for option, value in (("swap", 1), ("threshold", 40.0), ("nomenklatura", 1)):
        bad = dict(good, rules={**good["rules"], option: value})
        with pytest.raises(ValueError):
            Game.from_json(bad)
    with pytest.raises(ValueError, match="unknown rule options"):
        Game.from_json(dict(good, rules={**good["rules"], "extra": 1}))
    with pytest.raises(ValueError):
        Game.from_json(dict(good, rules={**good["rules"], "deck": [52]}))
