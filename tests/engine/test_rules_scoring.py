"""RULES.md end of "One year": final scoring, medals_score, shared wins."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, preset
from engine import events as ev
from engine.ai import default_action
from tests.engine.scripted import assign, deal, events_of, play

ALL_DONE = {"H": 0, "D": 0, "C": 0, "S": 0}


def _final_trick(rules, plots: dict[int, str], medals: dict[int, int] | None = None) -> Game:
    """The last trick of the last year (year 5, lean, 4 cards dealt): seat 0 leads; every
    seat keeps one Diamond for its plot; all jobs complete so nothing is requisitioned."""
    return deal(
        rules, 4, 3, year=5, hand_size=4, lead=0,
        hands={0: "6C 6D", 1: "7C 7D", 2: "8C 8D", 3: "9C 9D"},
        plots=plots, medals=medals, completed_by=ALL_DONE,
    )


def _finish(g: Game) -> list:
    events = play(g, "6C", "7C", "8C", "9C")  # seat 3 wins: one more medal
    events += assign(g, "6C>C", "7C>C", "8C>C", "9C>C")
    return events


def test_score_is_plot_workers_and_rewards() -> None:
    """Each player scores the points of the cards in their plot: workers 6-13 (J 11, Q 12,
    K 13), rewards A-5 worth 1-5."""
    plots = {0: "KH AH", 1: "QS 5D 2C", 2: "JH 10H", 3: ""}
    g = _final_trick(preset("classic"), plots)
    events = _finish(g)
    (over,) = events_of(events, ev.GameOver)
    # plots + the Diamond kept: 6D, 7D, 8D, 9D
    expected = [13 + 1 + 6, 12 + 5 + 2 + 7, 11 + 10 + 8, 9]
    assert list(over.scores) == expected == g.scores()
    assert g.is_over and g.winners() == [2] and list(over.winners) == [2]
    assert not over.early


def test_medals_do_not_score_by_default() -> None:
    g = _final_trick(preset("classic"), {0: "KH"}, medals={0: 1, 1: 4, 2: 0, 3: 2})
    _finish(g)
    assert g.medals == [1, 4, 0, 3]
    assert g.scores() == [19, 7, 8, 9]


def test_medals_score_one_point_each() -> None:
    """medals_score: one point per medal (medals kept all game)."""
    rules = replace(preset("classic"), medals_score=True)
    g = _final_trick(rules, {0: "KH"}, medals={0: 1, 1: 4, 2: 0, 3: 2})
    _finish(g)
    assert g.scores() == [19 + 1, 7 + 4, 8, 9 + 3]
    assert g.winners() == [0]


@pytest.mark.parametrize("name", ["classic", "original", "kolkhoz", "kolkhoznik", "zone"])
def test_medals_score_combines_with_every_preset(name: str) -> None:
    """Any preset may be combined with medals_score."""
    rules = replace(preset(name), medals_score=True)
    g = Game.new(rules, players=4, seed=8)
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    plain = [sum(x % 13 + 1 for x in p) for p in g.plots]
    assert g.scores() == [plain[s] + g.medals[s] for s in range(4)]
    assert sum(g.medals) > 0


def test_equal_totals_share_the_win() -> None:
    """Highest total wins; equal totals share the win."""
    g = _final_trick(preset("classic"), {0: "KH 5S", 1: "QS 5H", 2: "JH 4H", 3: "10S AS"})
    events = _finish(g)
    # 13+5+6 = 24, 12+5+7 = 24, 11+4+8 = 23, 10+1+9 = 20
    assert g.scores() == [24, 24, 23, 20]
    assert g.winners() == [0, 1]
    (over,) = events_of(events, ev.GameOver)
    assert list(over.winners) == [0, 1]


def test_everyone_tied_all_win() -> None:
    g = _final_trick(preset("classic"), {0: "KH AH", 1: "KS", 2: "QH", 3: "JS"})
    _finish(g)
    assert g.scores() == [20, 20, 20, 20]
    assert g.winners() == [0, 1, 2, 3]


def test_single_winner() -> None:
    g = _final_trick(preset("classic"), {0: "KH 5S", 1: "QS 5H", 2: "JH 4H 2H", 3: "10S AS"})
    _finish(g)
    assert g.scores() == [24, 24, 25, 20]
    assert g.winners() == [2]


def test_no_winners_before_the_end() -> None:
    g = Game.new(preset("classic"), players=4, seed=1)
    assert g.winners() == []
    assert not g.is_over
