"""RULES.md revision 3: the options the first reading missed, and the decided points.

Each test is a scripted deal with its exact outcome. The requisition scenarios use the
last-trick set-up of ``test_rules_requisition`` (seat 0 leads Diamonds, the ``winner`` plays
KD; every seat keeps one more Diamond, which goes face-down into its plot).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, Losers, Phase, Requisition, Reveal, Rules, preset
from engine import events as ev
from engine.ai import default_action
from tests.engine.scripted import (
    assign,
    cards,
    deal,
    events_of,
    face_up_texts,
    hidden_texts,
    play,
    stexts,
)
from tests.engine.test_rules_requisition import finish, north_by_seat, year_end

CLASSIC = preset("classic")
ORIGINAL = preset("original")
KOLKHOZNIK = preset("kolkhoznik")
ZONE = preset("zone")


# ---------------------------------------------------------------- options and presets

PRESET_TABLE = {
    # name: trump_wins, final_year_short, reveal, losers, requisition, threshold, mice
    "classic": (True, False, "matching", "each", "brigadiers", 40, False),
    "original": (False, True, "plot", "highest", "brigadiers", 36, False),
    "kolkhoz": (True, False, "matching", "each", "brigadiers", 40, True),
    "kolkhoznik": (True, False, "matching", "each", "brigadiers", 40, True),
    "zone": (True, False, "highest", "highest", "everyone", 40, False),
}


@pytest.mark.parametrize("name", sorted(PRESET_TABLE))
def test_presets_take_the_values_of_the_presets_table(name: str) -> None:
    rules = preset(name)
    trump_wins, short, reveal, losers, requisition, threshold, mice = PRESET_TABLE[name]
    assert rules.trump_wins is trump_wins
    assert rules.final_year_short is short
    assert rules.reveal == reveal and isinstance(rules.reveal, Reveal)
    assert rules.losers == losers and isinstance(rules.losers, Losers)
    assert rules.requisition == requisition and isinstance(rules.requisition, Requisition)
    assert rules.threshold == threshold
    assert rules.mice_fallback is mice


def test_new_options_combine_with_any_preset() -> None:
    rules = replace(preset("zone"), reveal="plot", trump_wins=False, final_year_short=True)
    assert rules.reveal is Reveal.PLOT and not rules.trump_wins and rules.final_year_short
    assert Rules.from_dict(rules.to_dict()) == rules
    with pytest.raises(ValueError, match="reveal"):
        replace(CLASSIC, reveal="everything")
    with pytest.raises(ValueError, match="trump_wins"):
        replace(CLASSIC, trump_wins="no")


def test_rules_stored_before_revision_3_keep_their_first_reading() -> None:
    """A rules dict without the new options (a game stored by the older engine) loads with
    the values the game was played under: trump wins, no short year, reveal matching."""
    old = {k: v for k, v in ORIGINAL.to_dict().items()
           if k not in ("trump_wins", "final_year_short", "reveal")}
    rules = Rules.from_dict(old)
    assert rules.trump_wins and not rules.final_year_short and rules.reveal is Reveal.MATCHING


# ---------------------------------------------------------------- the short last year


def _play_to_year(g: Game, year: int) -> None:
    while not g.is_over and g.year < year:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_final_year_short_deals_four_cards_and_no_trump(players: int) -> None:
    """``final_year_short``: the last year deals at most 4 cards and has no trump, however
    many cards the deck still holds."""
    rules = replace(ORIGINAL, years=2)
    g = Game.new(rules, players, seed=3)
    assert g.hand_size == 5 and not g.short and g.phase is Phase.TRUMP
    _play_to_year(g, 2)
    assert g.year == 2 and g.short and g.lean
    assert g.hand_size == 4 and g.tricks_total == 3
    assert g.trump is None and g.phase is Phase.PLAY
    assert all(len(h) == 4 for h in g.hands)
    assert g.view(None)["short"] is True


def test_without_final_year_short_the_last_year_is_full() -> None:
    rules = replace(ORIGINAL, years=2, final_year_short=False)
    g = Game.new(rules, 3, seed=3)
    _play_to_year(g, 2)
    assert g.year == 2 and not g.short and g.hand_size == 5 and g.phase is Phase.TRUMP


def test_the_short_year_lets_any_worker_go_to_any_job() -> None:
    """The short year is lean: with ``assignment = suit`` any worker to any job."""
    g = deal(ORIGINAL, 4, 3, year=5, hand_size=4, hands={0: "6H", 1: "KD", 2: "7H", 3: "QH"},
             lead=0)
    play(g, "6H", "KD", "7H", "QH")
    assert g.brigadier == 3
    assert {str(a) for a in g.legal_actions(3) if str(a).startswith("assign:KD")} == {
        "assign:KD>H", "assign:KD>D", "assign:KD>C", "assign:KD>S"}


# ---------------------------------------------------------------- reveal


def test_reveal_plot_shows_the_whole_face_down_plot() -> None:
    """``reveal = plot`` (original): an exposed player shows every face-down card, matching or
    not; they stay face-up; the highest matching card goes north (losers = highest)."""
    plots = {2: "QS 8S 7H", 0: "KS"}
    g = year_end(ORIGINAL, plots=plots, winner=2, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == [(2, "S", "QS")]
    (shown,) = events_of(events, ev.CardsRevealed)
    assert shown.seat == 2 and sorted(map(str, shown.cards)) == ["7H", "8S", "JD", "QS"]
    assert face_up_texts(g, 2) == stexts(cards("7H 8S JD"))
    assert hidden_texts(g, 0) == stexts(cards("KS 9D"))  # seat 0 was not exposed
    # Next year they are still face-up, on the public board too.
    assert g.year == 2
    public = g.view(None)["players"][2]
    assert sorted(public["plot_revealed"]) == sorted(["7H", "8S", "JD"])
    assert public["plot_hidden"] == 0


def test_reveal_matching_shows_every_matching_card() -> None:
    plots = {2: "QS 8S 7H"}
    g = year_end(CLASSIC, plots=plots, winner=2, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == [(2, "S", "QS")]
    assert face_up_texts(g, 2) == ["8S"]
    assert hidden_texts(g, 2) == stexts(cards("7H JD"))


def test_reveal_highest_shows_only_the_highest_hidden_matching_card() -> None:
    """``reveal = highest``: only the highest hidden matching card is shown; the others stay
    hidden and cannot be requisitioned."""
    rules = replace(CLASSIC, reveal="highest")
    g = year_end(rules, plots={2: "QS 8S 6S"}, winner=2, completed="HDC", trump="H")
    events = finish(g)
    assert [(e.seat, list(map(str, e.cards))) for e in events_of(events, ev.CardsRevealed)] == [
        (2, ["QS"])]
    assert north_by_seat(events) == [(2, "S", "QS")]
    assert hidden_texts(g, 2) == stexts(cards("6S 8S JD"))


def test_reveal_highest_counts_cards_already_face_up() -> None:
    """A matching card face-up from an earlier year is seen, so it can be taken even when a
    lower card is the one revealed now."""
    rules = replace(CLASSIC, reveal="highest")
    g = year_end(rules, plots={2: "KS 8S 6S"}, face_up="KS", winner=2, completed="HDC",
                 trump="H")
    events = finish(g)
    assert [list(map(str, e.cards)) for e in events_of(events, ev.CardsRevealed)] == [["8S"]]
    assert north_by_seat(events) == [(2, "S", "KS")]
    assert face_up_texts(g, 2) == ["8S"] and hidden_texts(g, 2) == stexts(cards("6S JD"))


def test_reveal_highest_with_the_king_shows_two() -> None:
    """The trump King on the job: each exposed player shows their two highest hidden
    matching cards (and, with losers = each, loses both)."""
    rules = replace(CLASSIC, reveal="highest", requisition="everyone")
    g = year_end(rules, plots={2: "QS 8S 6S", 0: "9S"}, completed="HDC", trump="H",
                 workers={"S": "KH"})
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "9S"), (2, "S", "QS"), (2, "S", "8S")]
    assert hidden_texts(g, 2) == stexts(cards("6S JD"))


def test_reveal_highest_with_the_queen_shows_every_matching_card() -> None:
    """The trump Queen on the job makes everyone show every matching card (zone)."""
    g = year_end(ZONE, plots={0: "KS", 1: "7S 10S"}, winner=2, completed="HDC", trump="H",
                 workers={"S": "QH"})
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "KS")]
    assert face_up_texts(g, 1) == stexts(cards("7S 10S"))


# ---------------------------------------------------------------- stacks and the plan's end


@pytest.mark.parametrize("order", [("6S", "6H"), ("6H", "6S")])
def test_stack_top_on_a_tie_is_the_first_in_suit_order(order: tuple[str, str]) -> None:
    """Two cards of the lowest rank in a stack: the ♥ one lies face-up on top."""
    g = deal(KOLKHOZNIK, 4, 0, trump="D", hands={0: "6S 9D 6D", 1: "6H 10D 7D",
             2: "KS JD 8D", 3: "QS QD 8H"}, workers={"S": "10S 9S 8S"}, lead=0)
    play(g, "6S", "6H", "KS", "QS")
    assert g.brigadier == 2
    events = assign(g, *(f"{c}>S" for c in order), "KS>S", "QS>S")
    (done,) = events_of(events, ev.JobCompleted)
    assert str(done.stack_top) == "6H" and done.stack_size == 7
    assert face_up_texts(g, 2) == ["6H"]
    assert g.view(None)["players"][2]["stacks"] == [["6H"] + [None] * 6]


def test_plan_ending_early_still_lists_last_years_north() -> None:
    """Колхозик sends cards north only for a year; when the plan ends early the final view
    still lists the cards sent north in the last year played."""
    plots = {0: "6C 7C 8C 9C 10C JC QC KC", 1: "KH", 2: "6S 7S 8S 9S 10S JS QS KS",
             3: "6H 7H 8H 9H 10H"}
    g = year_end(KOLKHOZNIK, plots=plots, completed="DCS", trump="S", completed_year=(1,))
    events = finish(g)
    assert north_by_seat(events) == [(1, "H", "KH")]
    (over,) = events_of(events, ev.GameOver)
    assert over.early and g.is_over
    assert g.view(None)["north"] == ["KH"]
    assert g.view(1)["ended_early"] is True


def test_after_the_game_the_public_view_shows_the_last_trick() -> None:
    g = year_end(CLASSIC, plots={}, completed="DCS", trump="S", year=5)
    finish(g)
    assert g.is_over
    view = g.view(None)
    assert [c for _, c in view["last_trick"]] == ["6D", "7D", "KD", "8D"]
    assert view["last_trick_winner"] == 2
    assert all(c is not None for t in view["tricks"] for _, c in t["cards"])


def test_the_years_tricks_are_in_the_view_masked_once_out_of_sight() -> None:
    """A seat's view keeps this year's finished tricks; a card that went face-down into
    someone else's stack shows as unknown to everyone but its owner."""
    g = deal(KOLKHOZNIK, 4, 0, trump="D", hands={0: "6S 9D 6D", 1: "6H 10D 7D",
             2: "KS JD 8D", 3: "QS QD 8H"}, workers={"S": "10S 9S 8S"}, lead=0)
    play(g, "6S", "6H", "KS", "QS")
    assign(g, "6S>S", "6H>S", "KS>S", "QS>S")
    others = g.view(0)["tricks"]
    assert others == [{"cards": [[0, None], [1, "6H"], [2, None], [3, None]], "winner": 2}]
    assert g.view(2)["tricks"] == [
        {"cards": [[0, "6S"], [1, "6H"], [2, "KS"], [3, "QS"]], "winner": 2}]
