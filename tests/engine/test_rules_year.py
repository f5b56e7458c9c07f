"""RULES.md "Players, seats, years" and "One year" steps 1-4, 8, 10: deal, lean years, plan,
famine, trump, plot, end of year, planner rotation, early end of the plan."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, Phase, preset
from engine import events as ev
from engine.ai import default_action
from tests.engine.invariants import WORKERS, check_conservation
from tests.engine.scripted import (
    act,
    assign,
    cards,
    deal,
    events_of,
    hidden_texts,
    play,
    stexts,
)

ALL_JOBS_DONE = {"H": 0, "D": 0, "C": 0, "S": 0}


def _last_trick_4p(rules, *, year: int, planner: int, **kw) -> Game:
    """Seat 0 leads the last trick of ``year`` (2 cards in every hand); by default all four
    jobs are already complete, so the requisition does nothing."""
    kw.setdefault("completed_by", ALL_JOBS_DONE)
    kw.setdefault("trump", "S")
    return deal(
        rules, 4, planner,
        year=year,
        hands={0: "6H 7D", 1: "8H 8D", 2: "9H 9D", 3: "10H 10D"},
        lead=0,
        **kw,
    )


def _finish_last_trick(g: Game) -> list:
    out = play(g, "6H", "8H", "9H", "10H")  # seat 3 wins with 10H
    out += assign(g, "6H>H", "8H>H", "9H>H", "10H>H")
    return out


# ---------------------------------------------------------------- deal


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("name", ["classic", "original", "kolkhoz", "kolkhoznik", "zone"])
def test_first_year_deals_five_cards_each(name: str, players: int) -> None:
    """Hand size min(5, deck // n) = 5 in year 1 for 3, 4 and 5 players (4 if famine)."""
    g = Game.new(preset(name), players=players, seed=11, planner=0)
    assert g.year == 1
    size = 4 if g.famine else 5
    assert g.hand_size == size and g.lean == g.famine
    assert all(len(h) == size for h in g.hands)
    assert len(g.deck) == 32 - size * players
    check_conservation(g)


def test_first_year_has_trump_phase_for_the_planner() -> None:
    """Step 4: in a normal year the Planner declares trump, any of the four suits."""
    g = Game.new(preset("classic"), players=4, seed=3, planner=2)
    assert g.phase is Phase.TRUMP
    assert g.to_act == [2]
    assert sorted(map(str, g.legal_actions(2))) == ["trump:C", "trump:D", "trump:H", "trump:S"]
    for s in (0, 1, 3):
        assert g.legal_actions(s) == []
    g.apply(2, "trump:C")
    assert g.trump == 2
    assert g.phase is Phase.PLAY


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("name", ["classic", "original", "kolkhoz", "kolkhoznik", "zone"])
def test_hand_size_formula_every_year(name: str, players: int, seed: int) -> None:
    """Every year: hand size = min(5, available // n) (4 in famine), lean iff below 5,
    lean years have no trump phase; the Planner passes left each year."""
    rules = preset(name)
    g = Game.new(rules, players=players, seed=seed)
    planners = []
    while not g.is_over:
        seat = g.to_act[0]
        events = g.apply(seat, default_action(g, seat))
        for e in events_of(events, ev.YearStarted):
            available = sum(len(h) for h in g.hands) + len(g.deck)
            short = rules.final_year_short and e.year == rules.years
            assert e.short == g.short == short
            cap = 4 if e.famine or short else 5
            assert e.hand_size == g.hand_size == min(cap, available // players)
            assert e.lean == g.lean == (g.hand_size < 5)
            assert all(len(h) == g.hand_size for h in g.hands)
            if g.lean:
                assert g.trump is None and g.phase is not Phase.TRUMP
            else:
                assert g.phase in (Phase.TRUMP,)
            planners.append(e.planner)
        check_conservation(g)
    first = planners[0] if planners else g.planner0
    assert planners == [(first + k) % players for k in range(len(planners))]


def test_classic_four_players_year_five_is_lean_by_itself() -> None:
    """Step 1: 4 players, year 5: 16 workers left -> 4 cards each, lean, no trump phase, any
    card to any job ("Перебои со снабжением")."""
    plots = {0: "6S 7S 8S", 1: "9S 10S JS", 2: "QS KS 6C", 3: "7C 8C 9C"}
    g = _last_trick_4p(preset("classic"), year=4, planner=3, plots=plots)
    events = _finish_last_trick(g)
    started = events_of(events, ev.YearStarted)
    assert len(started) == 1
    y5 = started[0]
    assert y5.year == 5 and y5.hand_size == 4 and y5.lean and not y5.famine
    assert g.year == 5 and g.hand_size == 4 and g.lean
    assert g.trump is None
    assert g.phase is Phase.PLAY  # no trump phase
    assert g.planner == 0
    assert g.to_act == [1]  # left of the Planner leads
    assert all(len(h) == 4 for h in g.hands)
    assert g.deck == []
    # Lean: any card to any job.
    for _ in range(4):
        play(g, _first(g, g.turn))
    b = g.brigadier
    for x in g.pending:
        jobs = {a.suit.letter for a in g.legal_actions(b) if a.card.id == x}
        assert jobs == {"H", "D", "C", "S"}


def _first(g: Game, seat: int) -> str:
    """A legal card for ``seat`` (its first legal play)."""
    return str(g.legal_actions(seat)[0].card)


def test_lean_year_trick_has_no_trump() -> None:
    """A lean year has no trump: the highest card of the led suit wins, whatever the suits."""
    g = deal(preset("classic"), 4, 0, year=5, hand_size=4,
             hands={0: "6S 7S 8S 9S", 1: "6H 7H 8H 9H", 2: "KS QS JS 10S", 3: "6D 7D 8D 9D"})
    assert g.lean and g.trump is None
    play(g, "6H", "KS", "6D", "6S")  # seat 1 leads hearts; nobody else has hearts
    assert g.brigadier == 1


def test_kolkhoz_lean_year_first_lead_is_planner() -> None:
    """first_lead = planner also holds in a lean year."""
    g = deal(preset("kolkhoz"), 4, 2, year=5, hand_size=4, phase="play",
             hands={0: "6S 7S 8S 9S", 1: "6H 7H 8H 9H", 2: "KS QS JS 10S", 3: "6D 7D 8D 9D"})
    assert g.to_act == [2]


# ---------------------------------------------------------------- plan, rewards


def test_plan_reveals_top_card_of_each_reward_pile() -> None:
    """Step 2: at the start of a year the top card of each pile joins the visible rewards."""
    g = _last_trick_4p(
        preset("classic"), year=1, planner=0,
        reward_piles={"H": "AH 2H 3H 4H 5H", "D": "5D 4D 3D 2D AD", "C": "AC 2C 3C 5C 4C",
                      "S": "5S 4S 3S AS 2S"},
    )
    events = _finish_last_trick(g)
    (y2,) = events_of(events, ev.YearStarted)
    assert [str(x) for x in y2.revealed] == ["5H", "AD", "4C", "2S"]
    assert [stexts(r) for r in g.rewards] == [["5H"], ["AD"], ["4C"], ["2S"]]
    assert [len(p) for p in g.reward_piles] == [4, 4, 4, 4]
    check_conservation(g)


@pytest.mark.parametrize("accumulate", [False, True])
def test_unclaimed_rewards_discarded_or_accumulated(accumulate: bool) -> None:
    """accumulate_rewards off: rewards not won are discarded at the end of the year; on: they
    stay and the new card stacks up on them."""
    rules = replace(preset("classic"), accumulate_rewards=accumulate)
    g = _last_trick_4p(
        rules, year=1, planner=0,
        completed_by={"D": 0, "C": 0, "S": 0},  # Hearts will fail
        rewards={"H": "3H"},
        reward_piles={"H": "AH 2H 4H 5H"},
    )
    events = _finish_last_trick(g)  # 6+8+9+10 = 33 hours < 40: Hearts fails
    assert events_of(events, ev.JobFailed)[0].job.letter == "H"
    if accumulate:
        assert stexts(g.rewards[0]) == ["3H", "5H"]
        assert g.discarded == []
    else:
        assert stexts(g.rewards[0]) == ["5H"]
        assert stexts(g.discarded) == ["3H"]
    check_conservation(g)


# ---------------------------------------------------------------- famine


def _famine_setup(rules) -> Game:
    return _last_trick_4p(
        rules, year=1, planner=0,
        reward_piles={"C": "2C 3C 4C 5C AC"},  # the Ace of Clubs is on top for year 2
    )


def test_famine_ace_of_clubs_revealed_makes_lean_year_of_four() -> None:
    """Step 3 (famine = true): the Ace of Clubs revealed -> hand size 4, lean, no trump."""
    g = _famine_setup(preset("kolkhoz"))
    events = _finish_last_trick(g)
    (y2,) = events_of(events, ev.YearStarted)
    assert "AC" in [str(x) for x in y2.revealed]
    assert y2.famine and y2.lean and y2.hand_size == 4
    assert g.famine and g.lean and g.hand_size == 4 and g.trump is None
    assert all(len(h) == 4 for h in g.hands)
    assert g.tricks_total == 3
    # kolkhoz has the swap from year 2: no trump phase, straight to the swap.
    assert g.phase is Phase.SWAP
    act(g, *[(s, "swap:pass") for s in range(4)])
    assert g.phase is Phase.PLAY and g.to_act == [1]  # first lead: the Planner (now seat 1)


def test_no_famine_when_option_off() -> None:
    """famine = false: the Ace of Clubs is just a reward card; year 2 is a normal year."""
    g = _famine_setup(replace(preset("kolkhoz"), famine=False))
    events = _finish_last_trick(g)
    (y2,) = events_of(events, ev.YearStarted)
    assert "AC" in [str(x) for x in y2.revealed]
    assert not y2.famine and not y2.lean and y2.hand_size == 5
    assert g.phase is Phase.TRUMP and g.to_act == [1]


def test_famine_only_when_ace_revealed_this_year() -> None:
    """An Ace of Clubs still visible from an earlier year (accumulate) does not starve again."""
    g = _last_trick_4p(
        preset("kolkhoz"), year=1, planner=0,
        completed_by={"H": 0, "D": 0, "S": 0},
        rewards={"C": "AC"},
        reward_piles={"C": "2C 3C 4C 5C"},
    )
    events = _finish_last_trick(g)
    (y2,) = events_of(events, ev.YearStarted)
    assert "AC" in stexts(g.rewards[2])
    assert not y2.famine and y2.hand_size == 5


# ---------------------------------------------------------------- plot and end of year


def test_last_card_goes_face_down_to_plot_and_jobs_return_to_deck() -> None:
    """Steps 8 and 10: each remaining card goes face-down into its owner's plot; all workers
    on jobs return to the deck; plots and north do not."""
    g = _last_trick_4p(
        preset("classic"), year=1, planner=0,
        plots={1: "KC"}, north="QC",
        workers={"D": "6D JD", "S": "KS"},
    )
    events = _finish_last_trick(g)
    assert events_of(events, ev.CardsToPlot)
    assert hidden_texts(g, 0) == ["7D"]
    assert hidden_texts(g, 1) == stexts(cards("8D KC"))
    assert hidden_texts(g, 2) == ["9D"]
    assert hidden_texts(g, 3) == ["10D"]
    assert stexts(g.north) == ["QC"]
    in_play = sorted(x for h in g.hands for x in h) + sorted(g.deck)
    expected = sorted(set(WORKERS) - set(cards("7D 8D KC 9D 10D QC")))
    assert sorted(in_play) == expected
    assert g.workers == [[], [], [], []] and g.hours == [0, 0, 0, 0]
    assert g.completed_by == [None, None, None, None]
    assert g.year == 2 and g.planner == 1


@pytest.mark.parametrize("players", [3, 4, 5])
def test_planner_passes_left_each_year(players: int) -> None:
    """The Planner passes left: seat (s + 1) mod n."""
    g = Game.new(preset("classic"), players=players, seed=5, planner=players - 1)
    seen = [g.planner]
    year = g.year
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
        if g.year != year and not g.is_over:
            year = g.year
            seen.append(g.planner)
    assert seen == [(players - 1 + k) % players for k in range(len(seen))]


def test_random_first_planner_comes_from_seed() -> None:
    """The first Planner is chosen at random from the seed (or given)."""
    a = Game.new(preset("classic"), players=4, seed="abc")
    b = Game.new(preset("classic"), players=4, seed="abc")
    assert a.planner == b.planner and a.to_json() == b.to_json()
    planners = {Game.new(preset("classic"), players=4, seed=s).planner for s in range(40)}
    assert planners == {0, 1, 2, 3}
    assert Game.new(preset("classic"), players=4, seed="abc", planner=3).planner == 3


@pytest.mark.parametrize("years", [1, 2, 3])
def test_years_option_sets_plan_length(years: int) -> None:
    """years: the length of the plan; the game ends after the last year."""
    g = Game.new(replace(preset("classic"), years=years), players=4, seed=2)
    started = 1
    while not g.is_over:
        seat = g.to_act[0]
        started += len(events_of(g.apply(seat, default_action(g, seat)), ev.YearStarted))
    assert started == years and g.year == years and not g.ended_early


def test_default_plan_is_five_years() -> None:
    assert preset("classic").years == 5
    g = Game.new(preset("classic"), players=3, seed=2)
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    assert g.year == 5


# ---------------------------------------------------------------- early end


def _five_player_year4_last_trick(north: str | None) -> Game:
    return deal(
        preset("classic"), 5, 0,
        year=4, hand_size=3, tricks_done=1,
        hands={0: "6H 6D", 1: "7H 7D", 2: "8H 8D", 3: "9H 9D", 4: "10H 10D"},
        plots={0: "6C 7C 8C", 1: "9C 10C JC", 2: "QC KC 6S", 3: "7S 8S 9S", 4: "10S JS QS"},
        north=north,
        lead=0,
        completed_by=ALL_JOBS_DONE,
    )


def test_plan_ends_early_when_fewer_than_two_cards_each() -> None:
    """'If fewer than 2 cards a player can be dealt, the plan ends early': 5 players, 20 plot
    cards and 3 north leave 9 workers -> 1 each -> the game ends after year 4."""
    g = _five_player_year4_last_trick(north="JH QH KH")
    events = play(g, "6H", "7H", "8H", "9H", "10H")
    events += assign(g, "6H>H", "7H>H", "8H>H", "9H>H", "10H>H")
    assert not events_of(events, ev.YearStarted)
    (over,) = events_of(events, ev.GameOver)
    assert over.early
    assert g.is_over and g.ended_early and g.year == 4
    assert g.to_act == []
    check_conservation(g)


def test_plan_goes_on_with_two_cards_each() -> None:
    """12 workers left for 5 players -> 2 cards each: year 5 is played (one trick)."""
    g = _five_player_year4_last_trick(north=None)
    events = play(g, "6H", "7H", "8H", "9H", "10H")
    events += assign(g, "6H>H", "7H>H", "8H>H", "9H>H", "10H>H")
    (y5,) = events_of(events, ev.YearStarted)
    assert y5.year == 5 and y5.hand_size == 2 and y5.lean
    assert g.tricks_total == 1
    assert not g.is_over
