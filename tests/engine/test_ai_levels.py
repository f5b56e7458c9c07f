"""The AI levels: they play every setup from the seat's view alone, learn nothing hidden, and
the view carries what a careful player remembers. Strength is measured by
benchmarks/ai_bench.py, never here; the search levels run on tiny budgets."""

from __future__ import annotations

import copy
import json
import random
import time
from collections.abc import Iterator

import pytest

from engine import PRESETS, Game, Phase, preset
from engine.ai import LEVELS, AIPlayer, default_action
from engine.cards import card_id
from tests.engine.invariants import secret_cards
from tests.engine.scripted import assign, deal, decision_states, play

PRESET_NAMES = sorted(PRESETS)


def _ais(players: int, seed: int) -> list[AIPlayer]:
    """One AI player per seat, the levels in turn round the table (small search budgets)."""
    out = []
    for s in range(players):
        level = LEVELS[(s + seed) % len(LEVELS)]
        iterations = 2 if level in ("strong", "hard") else None
        out.append(AIPlayer(level, seed=seed, iterations=iterations))
    return out


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_level_plays_to_the_end_on_views_alone(name: str, players: int) -> None:
    g = Game.new(preset(name), players, seed=players)
    ais = _ais(players, players)
    phases = set()
    while not g.is_over:
        for seat in g.to_act:  # every seat that may act is asked, swaps included
            view = g.view(seat)
            before = json.dumps(view, sort_keys=True)
            action = ais[seat].choose(view)
            assert json.dumps(view, sort_keys=True) == before  # the view is not changed
            assert action in g.legal_actions(seat)
        phases.add(g.phase)
        g.apply(seat, action)  # the last seat asked
    assert g.winners()
    assert Phase.PLAY in phases and Phase.ASSIGN in phases


def test_levels_and_their_errors() -> None:
    assert LEVELS == ("random", "normal", "strong", "hard")
    with pytest.raises(ValueError):
        AIPlayer("grandmaster")
    g = Game.new(preset("classic"), 4, seed=1, planner=0)
    with pytest.raises(ValueError):
        AIPlayer("strong").choose(g.view(1))  # seat 1 has nothing to do
    with pytest.raises(ValueError):
        AIPlayer("normal").choose(g.view(None))


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_normal_on_the_view_is_the_heuristic_on_the_game(name: str, players: int) -> None:
    """The service plays ``normal`` AI players and stand-ins with ``default_action`` on the game;
    that is the same move as ``AIPlayer("normal")`` on the seat's view alone, at every decision
    of every setup (so the heuristic reads nothing the seat cannot see)."""
    ai = AIPlayer("normal")
    checked = 0
    for g, seat in decision_states(name, players, seed=players, every=1, random_share=0.3):
        assert ai.choose(g.view(seat)) == default_action(g, seat)
        checked += 1
    assert checked > 50


def _hidden_cards_exchanged(g: Game, seat: int, rng: random.Random) -> Game:
    """``g`` with the cards ``seat`` cannot see exchanged among their places, suit for
    suit (so every void shown stays true): other hands, others' face-down plot cards, the
    deck and the reward piles. Built from the game, not from the view, so a view that
    showed any of them would differ."""
    other = g.copy()
    places: dict[int, list[tuple[list[int], int]]] = {}
    lists = [other.deck, *other.reward_piles]
    for s in range(other.n):
        if s != seat:
            lists.append(other.hands[s])
    for lst in lists:
        for i, c in enumerate(lst):
            places.setdefault(c // 13, []).append((lst, i))
    for s in range(other.n):
        if s != seat:
            for i, c in enumerate(other.plots[s]):
                if c not in other.face_up:
                    places.setdefault(c // 13, []).append((other.plots[s], i))
    for spots in places.values():
        cards = [lst[i] for lst, i in spots]
        rng.shuffle(cards)
        for (lst, i), c in zip(spots, cards, strict=True):
            lst[i] = c
    other._legal = {}
    return other


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_exchanging_what_the_seat_cannot_see_changes_neither_view_nor_choice(
    name: str,
) -> None:
    """The no-leak test from the other side: the second game is the first with its hidden
    cards exchanged, not one dealt from the view, so a hidden card that the view showed in
    any field would tell the two apart."""
    changed = 0
    for n, (g, seat) in enumerate(_states(name, 4, seed=29, every=9)):
        other = _hidden_cards_exchanged(g, seat, random.Random(n))
        if secret_cards(other, seat) != secret_cards(g, seat) or any(
                other.hands[s] != g.hands[s] for s in range(4) if s != seat):
            changed += 1
        assert other.view(seat) == g.view(seat)
        for level in LEVELS:
            first = AIPlayer(level, seed=3, iterations=4).choose(g.view(seat))
            assert AIPlayer(level, seed=3, iterations=4).choose(other.view(seat)) == first
    assert changed >= 5


def test_normal_is_the_heuristic_and_forced_moves_are_free() -> None:
    g = Game.new(preset("kolkhoz"), 4, seed=3)
    ai = AIPlayer("normal")
    strong = AIPlayer("strong", seed=2, iterations=10**9)  # would take hours if it searched
    while not g.is_over:
        seat = g.to_act[0]
        view = g.view(seat)
        assert ai.choose(view) == default_action(g, seat)
        forced = g.forced_action(seat)
        if forced is not None:
            assert strong.choose(view) == forced
        g.apply(seat, default_action(g, seat))


def _states(name: str, players: int, seed: int, every: int) -> Iterator[tuple[Game, int]]:
    """(game, seat) at every ``every``-th decision of a heuristic-and-random game."""
    return decision_states(name, players, seed, every, random_share=0.3)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_no_level_learns_what_the_seat_cannot_see(name: str) -> None:
    """Two games that differ only in what the seat cannot see (other hands, face-down cards,
    the deck, the reward piles, the seed) give the seat equal views and every level the same
    decision for the same seed."""
    checked = 0
    for g, seat in _states(name, 4, seed=17, every=12):
        view = g.view(seat)
        other = Game.determinize(copy.deepcopy(view), random.Random(checked))
        assert other.view(seat) == view  # the seat cannot tell the two games apart
        assert secret_cards(other, seat) == secret_cards(g, seat)
        if any(other.hands[s] != g.hands[s] for s in range(4) if s != seat):
            checked += 1
        for level in LEVELS:
            first = AIPlayer(level, seed=5, iterations=6).choose(g.view(seat))
            second = AIPlayer(level, seed=5, iterations=6).choose(other.view(seat))
            assert first == second, (level, view["phase"])
            assert first in g.legal_actions(seat) and first in other.legal_actions(seat)
    assert checked >= 3


def test_a_decision_is_a_function_of_level_seed_and_view() -> None:
    g, seat = next(_states("classic", 4, seed=2, every=7))
    view = g.view(seat)
    ai = AIPlayer("strong", seed=9, iterations=40)
    first = ai.choose(view)
    assert ai.choose(view) == first  # asking again does not change the answer
    assert AIPlayer("strong", seed=9, iterations=40).choose(view) == first
    # The others' face-up plot cards in another order are the same view to the seat.
    shuffled = copy.deepcopy(view)
    for p in shuffled["players"]:
        if p["seat"] != seat:
            p["plot_revealed"].reverse()
    assert ai.choose(shuffled) == first


def test_the_view_remembers_the_years_tricks() -> None:
    """Who led what, who played what and who showed out of a suit stay in every seat's view
    for the rest of the year, with each trick's winner; the next year starts with none."""
    g = deal(preset("classic"), 4, 0, trump="S", trump_played=True,
             hands={0: "6H 7C 8C 9S 10H", 1: "7H 8D QC 10S JH", 2: "8H 9D 10C JS QH",
                    3: "9H 6D KC QS KH"}, lead=0)
    play(g, "6H", "7H", "8H", "9H")
    assign(g, "6H>H", "7H>H", "8H>H", "9H>H")
    play(g, "6D", "10H", "8D", "9D")  # seat 3 leads diamonds, seat 0 shows out of them
    assign(g, "6D>D", "10H>H", "8D>D", "9D>D")
    first = {"cards": [[0, "6H"], [1, "7H"], [2, "8H"], [3, "9H"]], "winner": 3}
    second = {"cards": [[3, "6D"], [0, "10H"], [1, "8D"], [2, "9D"]], "winner": 2}
    for seat in [None, 0, 1, 2, 3]:
        view = g.view(seat)
        assert view["tricks"] == [first, second]
        assert view["last_trick"] == second["cards"]
    while not g.is_over and g.year == 1:
        s = g.to_act[0]
        g.apply(s, default_action(g, s))
    assert g.view(1)["tricks"] == [] or g.is_over


def test_a_void_shown_is_kept_in_every_world() -> None:
    """A seat that did not follow a suit this year holds none of it in any dealt world."""
    g = deal(preset("classic"), 4, 0, trump="S", trump_played=True,
             hands={0: "6H 7H 8C 9S 10C", 1: "8H 8D QC 10S JC", 2: "9C 9D 10D JS QD",
                    3: "9H 6D KC QS KH"}, lead=0)
    play(g, "6H", "8H")
    g.apply(2, "play:9C")  # seat 2 shows out of hearts
    view = g.view(0)
    for k in range(30):
        world = Game.determinize(view, random.Random(k))
        assert not any(c // 13 == 0 for c in world.hands[2])
        assert world.view(0) == view


def test_seconds_sets_the_time_of_a_decision() -> None:
    """``seconds`` scales the budget and caps the wall time (checked between worlds)."""
    g = Game.new(preset("zone"), 4, seed=4)
    seat = g.to_act[0]
    start = time.perf_counter()
    action = AIPlayer("hard", seed=1, seconds=0.02).choose(g.view(seat))
    assert action in g.legal_actions(seat)
    assert time.perf_counter() - start < 1.0


def test_zone_value_ranks_each_suit_across_the_plots() -> None:
    """Where everyone is exposed and only a suit's highest plot card goes north, the year-end
    value keeps a card by its rank in the suit among all plots."""
    from engine.ai.search import _rank_margin
    from engine.ai.value import survival

    assert survival(3, 0.5) == [0.125, 0.5, 0.875]
    assert survival(1, 0.5) == [0.5]
    g = Game.new(preset("zone"), 3, seed=1)
    g.plots = [[card_id(13, 0)], [card_id(12, 0)], []]  # the Ace and the King of hearts
    # One requisition to come: the Ace goes half the time, the King stays.
    assert _rank_margin(g, 0, 1, 0.5) == 6.5 - 12
    assert _rank_margin(g, 1, 1, 0.5) == 12 - 6.5
