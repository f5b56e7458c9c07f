"""RULES.md "One year" step 6: tricks — first lead, following suit, trump lead restriction,
the trick winner, medals and the Brigadier."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, Phase, preset
from engine import events as ev
from tests.engine.scripted import act, assign, deal, events_of, play

CLASSIC = preset("classic")
ORIGINAL = preset("original")


# ---------------------------------------------------------------- first lead


@pytest.mark.parametrize(("players", "planner"), [(4, 0), (4, 1), (4, 2), (4, 3), (3, 2),
                                                 (5, 4), (5, 1)])
def test_first_lead_left_of_planner(players: int, planner: int) -> None:
    """first_lead = left_of_planner (seeds 000/002): the player left of the Planner, seat
    (planner + 1) mod n, leads."""
    g = Game.new(CLASSIC, players=players, seed=1, planner=planner)
    g.apply(planner, "trump:S")
    assert g.to_act == [(planner + 1) % players]
    assert g.lead == (planner + 1) % players


@pytest.mark.parametrize("planner", [0, 2, 4])
def test_first_lead_planner(planner: int) -> None:
    """first_lead = planner (seed 001): the Planner leads the first trick."""
    rules = replace(CLASSIC, first_lead="planner")
    g = Game.new(rules, players=5, seed=1, planner=planner)
    g.apply(planner, "trump:S")
    assert g.to_act == [planner]


def test_first_lead_preset_values() -> None:
    assert preset("classic").first_lead == "left_of_planner"
    assert preset("original").first_lead == "left_of_planner"
    for name in ("kolkhoz", "kolkhoznik", "zone"):
        assert preset(name).first_lead == "planner"


def test_play_goes_clockwise() -> None:
    """Seats are clockwise; after a card the player on the left plays."""
    g = deal(CLASSIC, 4, 1, trump="S", lead=2,
             hands={0: "6H 7H", 1: "8H 9H", 2: "10H JH", 3: "QH KH"})
    order = []
    for card in ("10H", "QH", "6H", "8H"):
        order.append(g.to_act[0])
        play(g, card)
    assert order == [2, 3, 0, 1]


# ---------------------------------------------------------------- following suit


def test_must_follow_led_suit_if_able() -> None:
    """Players must follow the led suit if able."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7D 8S", 1: "8H 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    play(g, "6H")  # seat 0 leads hearts
    assert g.to_act == [1]
    assert [str(a) for a in g.legal_actions(1)] == ["play:8H"]
    err = g.why_illegal(1, "play:9C")
    assert err is not None and err.reason == "follow_suit"
    err = g.why_illegal(1, "play:10S")  # not even trump when one can follow
    assert err is not None and err.reason == "follow_suit"


def test_void_in_led_suit_may_play_anything() -> None:
    """... else may play anything (any suit, trump or not)."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7D 8S", 1: "8D 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    play(g, "6H")
    assert sorted(str(a) for a in g.legal_actions(1)) == ["play:10S", "play:8D", "play:9C"]


def test_leader_may_lead_any_suit_without_restriction() -> None:
    """Without trump_lead_restricted the leader may lead any card, trump included."""
    g = deal(ORIGINAL, 4, 3, trump="S",
             hands={0: "6H 7D 8S", 1: "8D 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    assert sorted(str(a) for a in g.legal_actions(0)) == ["play:6H", "play:7D", "play:8S"]


# ---------------------------------------------------------------- trump lead restriction


def test_trump_lead_restricted_before_trump_played() -> None:
    """trump_lead_restricted (seed 002): no trump lead until trump has been played this year."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7D 8S", 1: "8D 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    assert not g.trump_played
    assert sorted(str(a) for a in g.legal_actions(0)) == ["play:6H", "play:7D"]
    err = g.why_illegal(0, "play:8S")
    assert err is not None and err.reason == "trump_lead"


def test_trump_lead_allowed_when_hand_holds_only_trumps() -> None:
    """... unless the leader's hand holds only trumps."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6S 7S 8S", 1: "8D 9C 10H", 2: "9H JD QD", 3: "10D 6C KH"})
    assert sorted(str(a) for a in g.legal_actions(0)) == ["play:6S", "play:7S", "play:8S"]


def test_trump_lead_allowed_after_trump_discarded_earlier_this_year() -> None:
    """A trump played off-suit in an earlier trick lifts the restriction."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7S 8S", 1: "8D 9S 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    play(g, "6H", "9S", "9H", "10H")  # seat 1 is void in hearts and trumps: wins
    assert g.trump_played
    assert g.brigadier == 1
    assign(g, "6H>H", "9S>S", "9H>H", "10H>H")
    assert g.to_act == [1]
    assert "play:10S" in [str(a) for a in g.legal_actions(1)]


def test_trump_played_resets_each_year() -> None:
    """'this year': the flag starts false in every year."""
    g = deal(CLASSIC, 4, 0, trump="S", trump_played=True,
             completed_by={"H": 0, "D": 0, "C": 0, "S": 0},
             hands={0: "6H 7D", 1: "8H 8D", 2: "9H 9D", 3: "10S 10D"}, lead=0)
    play(g, "6H", "8H", "9H", "10S")
    assign(g, "6H>H", "8H>H", "9H>H", "10S>S")
    assert g.year == 2 and g.phase is Phase.TRUMP
    assert not g.trump_played


@pytest.mark.parametrize("name", ["original", "kolkhoz", "kolkhoznik", "zone"])
def test_trump_lead_free_when_option_off(name: str) -> None:
    """Presets without the restriction: trump may be led at once."""
    assert not preset(name).trump_lead_restricted
    g = deal(preset(name), 4, 3, trump="S", lead=0,
             hands={0: "6H 7D 8S", 1: "8D 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    assert "play:8S" in [str(a) for a in g.legal_actions(0)]


# ---------------------------------------------------------------- trick winner


@pytest.mark.parametrize(
    ("cards", "winner"),
    [
        # (seat 0 leads) ; trump is Spades
        (("6H", "KH", "7H", "8H"), 1),  # no trump: highest of led suit
        (("6H", "KD", "7H", "8H"), 3),  # off-suit King never wins
        (("6H", "KH", "6S", "8H"), 2),  # any trump beats the led suit
        (("6H", "7S", "KH", "6S"), 1),  # highest trump wins
        (("6H", "7S", "KS", "6S"), 2),
        (("KD", "6S", "JD", "QD"), 1),  # one low trump beats the King of the led suit
        (("6C", "7C", "KD", "8C"), 3),
    ],
)
def test_trick_winner(cards: tuple[str, ...], winner: int) -> None:
    """With ``trump_wins``: the highest trump played wins; if none, the highest card of the
    led suit."""
    hands = {s: c for s, c in enumerate(cards)}
    g = deal(CLASSIC, 4, 3, trump="S", hands=hands, hand_size=5, tricks_done=4)
    events = play(g, *cards)
    (won,) = events_of(events, ev.TrickWon)
    assert won.seat == winner
    assert g.brigadier == winner
    assert [str(x) for x in won.cards] == list(cards)


@pytest.mark.parametrize(
    ("cards", "winner"),
    [
        # (seat 0 leads) ; trump is Spades, but trump does not win tricks (seed 000)
        (("6H", "KH", "7H", "8H"), 1),
        (("6H", "KH", "6S", "8H"), 1),  # a trump does not beat the led suit
        (("6H", "7S", "KS", "6S"), 0),  # nor do three of them
        (("KD", "6S", "JD", "QD"), 0),
        (("6S", "7H", "8S", "KS"), 3),  # trump led: the highest of the led suit (trump)
        (("6C", "7C", "KD", "8C"), 3),
    ],
)
def test_trick_winner_without_trump_wins(cards: tuple[str, ...], winner: int) -> None:
    """``trump_wins = false`` (the ``original`` preset): the highest card of the led suit
    always wins."""
    assert not ORIGINAL.trump_wins
    hands = {s: c for s, c in enumerate(cards)}
    g = deal(ORIGINAL, 4, 3, trump="S", hands=hands, hand_size=5, tricks_done=4)
    events = play(g, *cards)
    (won,) = events_of(events, ev.TrickWon)
    assert won.seat == winner == g.brigadier


def test_trump_still_counts_for_assignment_without_trump_wins() -> None:
    """Without ``trump_wins`` a trump still goes to any job (``assignment = suit``)."""
    g = deal(ORIGINAL, 4, 3, trump="S", hands={0: "6H", 1: "KH", 2: "6S", 3: "8H"},
             hand_size=5, tricks_done=4)
    play(g, "6H", "KH", "6S", "8H")
    assert g.brigadier == 1
    jobs = {str(a).rsplit(">", 1)[1] for a in g.legal_actions(1) if str(a).startswith("assign:6S")}
    assert jobs == {"H", "D", "C", "S"}


def test_trump_led_highest_trump_wins() -> None:
    g = deal(CLASSIC, 4, 3, trump="D", hands={0: "9D", 1: "KH", 2: "QD", 3: "10D"},
             tricks_done=4)
    play(g, "9D", "KH", "QD", "10D")
    assert g.brigadier == 2


def test_off_suit_non_trump_never_wins_even_when_highest() -> None:
    g = deal(ORIGINAL, 4, 3, trump="C", hands={0: "6D", 1: "KS", 2: "KH", 3: "QS"},
             tricks_done=4)
    play(g, "6D", "KS", "KH", "QS")
    assert g.brigadier == 0


@pytest.mark.parametrize("players", [3, 5])
def test_trick_has_one_card_per_player(players: int) -> None:
    """Every player plays once per trick, then the Brigadier assigns."""
    hands = {s: c for s, c in enumerate(["6H", "7H", "8H", "9H", "10H"][:players])}
    g = deal(ORIGINAL, players, players - 1, trump="S", hands=hands, tricks_done=4)
    events = play(g, *[hands[s] for s in range(players)])
    assert len(events_of(events, ev.CardPlayed)) == players
    assert g.phase is Phase.ASSIGN and g.brigadier == players - 1
    assert len(g.pending) == players


# ---------------------------------------------------------------- Brigadier and medals


def test_winner_is_brigadier_gets_medal_and_leads_next() -> None:
    """The winner is this trick's Brigadier, gets a medal and leads the next trick."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7D 8C", 1: "8H 9D 10C", 2: "KH JD QC", 3: "10H 6D KC"})
    events = play(g, "6H", "8H", "KH", "10H")
    assert events_of(events, ev.TrickWon)[0].seat == 2
    assert g.phase is Phase.ASSIGN and g.to_act == [2]
    assert g.medals == [0, 0, 1, 0]
    assert g.brigadier_year == [False, False, True, False]
    assign(g, "6H>H", "8H>H", "KH>H", "10H>H")
    assert g.phase is Phase.PLAY and g.to_act == [2] and g.lead == 2
    play(g, "JD", "6D", "7D", "9D")
    assign(g, "JD>D", "6D>D", "7D>D", "9D>D")
    assert g.medals == [0, 0, 2, 0]


def test_medals_are_kept_all_game() -> None:
    """Medals are kept all game (brigadier flags are per year)."""
    g = deal(CLASSIC, 4, 0, trump="S", medals={0: 3, 1: 1}, brigadiers=[1],
             completed_by={"H": 0, "D": 0, "C": 0, "S": 0},
             hands={0: "6H 7D", 1: "8H 8D", 2: "9H 9D", 3: "10H 10D"}, lead=0)
    play(g, "6H", "8H", "9H", "10H")
    assign(g, "6H>H", "8H>H", "9H>H", "10H>H")
    assert g.year == 2
    assert g.medals == [3, 1, 0, 1]
    assert g.brigadier_year == [False, False, False, False]


def test_number_of_tricks_is_hand_size_minus_one() -> None:
    """hand_size - 1 tricks a year; the last card stays in hand for the plot."""
    g = Game.new(CLASSIC, players=4, seed=9, planner=0)
    act(g, "trump:H")
    tricks = 0
    while g.year == 1:
        seat = g.to_act[0]
        events = g.apply(seat, g.legal_actions(seat)[0])
        tricks += len(events_of(events, ev.TrickWon))
    assert tricks == 4
