"""RULES.md "Requisition, for one failed job of suit X" and step 9 of "One year".

Every scenario is the last trick of a year: seat 0 leads Diamonds, the chosen ``winner``
plays KD and wins; every seat keeps one more Diamond, which goes face-down into its plot.
By default the Diamonds job is already complete, so only the scripted plots and jobs matter.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, preset
from engine import events as ev
from tests.engine.invariants import check_conservation
from tests.engine.scripted import (
    assign,
    cards,
    deal,
    events_of,
    face_up_texts,
    hidden_texts,
    play,
    plot_texts,
    stexts,
    texts,
)

CLASSIC = preset("classic")  # brigadiers / each, nomenklatura
ORIGINAL = preset("original")  # brigadiers / highest, nomenklatura
KOLKHOZNIK = preset("kolkhoznik")  # stack reward, brigadiers / each, mice fallback
ZONE = preset("zone")  # reward none, everyone / highest

LEFTOVER = ["9D", "10D", "JD", "QD"]


def year_end(
    rules,
    *,
    plots: dict[int, str],
    winner: int = 2,
    brigadiers: tuple[int, ...] = (),
    completed: str = "DCS",
    workers: dict[str, str] | None = None,
    trump: str | None = "S",
    **kw,
) -> Game:
    """The last trick of year 1 (4 players), ready to be played with :func:`finish`."""
    low = iter(["6D", "7D", "8D"])
    played = {s: ("KD" if s == winner else next(low)) for s in range(4)}
    hands = {s: f"{played[s]} {LEFTOVER[s]}" for s in range(4)}
    g = deal(
        rules, 4, 3,
        hands=hands,
        plots=plots,
        trump=trump,
        lean=None if trump else True,
        hand_size=5 if trump else 4,
        lead=0,
        brigadiers=brigadiers,
        completed_by={j: 0 for j in completed},
        workers=workers,
        **kw,
    )
    return g


def finish(g: Game) -> list:
    """Play the scripted last trick (all Diamonds) and put every card on Diamonds."""
    kd = cards("KD")[0]
    order = [texts([kd if kd in g.hands[s] else min(g.hands[s])])[0] for s in range(4)]
    events = play(g, *order)
    events += assign(g, *(f"{x}>D" for x in order))
    check_conservation(g)
    return events


def north_by_seat(events) -> list[tuple[int, str, str]]:
    return [(e.seat, e.job.letter, str(e.card)) for e in events_of(events, ev.CardSentNorth)]


def revealed(events) -> list[tuple[int, str, list[str]]]:
    return [(e.seat, e.job.letter, [str(x) for x in e.cards])
            for e in events_of(events, ev.CardsRevealed)]


# ---------------------------------------------------------------- which jobs, in what order


def test_only_failed_jobs_requisitioned_in_suit_order() -> None:
    """Requisition runs for each job not complete, in suit order H D C S."""
    g = year_end(CLASSIC, plots={}, completed="D")
    events = finish(g)
    assert [e.job.letter for e in events_of(events, ev.JobFailed)] == ["H", "C", "S"]
    # Events come in suit order and the requisition comes after the plot step.
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("CardsToPlot") < kinds.index("JobFailed")
    assert kinds.index("JobFailed") < kinds.index("YearEnded")


def test_requisition_order_visible_in_losses() -> None:
    """With several failed jobs, losses are reported job by job in order H D C S."""
    g = year_end(CLASSIC, plots={2: "KS 6H KC"}, completed="D")
    events = finish(g)
    assert north_by_seat(events) == [(2, "H", "6H"), (2, "C", "KC"), (2, "S", "KS")]


# ---------------------------------------------------------------- who is exposed


def test_brigadiers_only_are_exposed() -> None:
    """requisition = brigadiers: players who were Brigadier at least once this year reveal
    their matching cards; the others keep theirs hidden."""
    plots = {0: "KH 7C", 1: "QH 8H 9C", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(CLASSIC, plots=plots, winner=2, brigadiers=(1,), completed="DCS")
    events = finish(g)
    assert revealed(events) == [(1, "H", ["8H", "QH"]), (2, "H", ["10H"])]
    assert north_by_seat(events) == [(1, "H", "QH"), (2, "H", "10H")]
    assert plot_texts(g, 0) == stexts(cards("KH 7C 9D"))
    assert face_up_texts(g, 0) == []
    assert face_up_texts(g, 1) == ["8H"]
    assert plot_texts(g, 1) == stexts(cards("8H 9C 10D"))
    assert plot_texts(g, 2) == stexts(cards("6C JD"))
    assert face_up_texts(g, 3) == [] and "JH" in plot_texts(g, 3)
    assert stexts(g.north) == stexts(cards("QH 10H"))


def test_everyone_is_exposed_with_requisition_everyone() -> None:
    """requisition = everyone ("Разговоры вели даже с мышами"): all players are exposed."""
    rules = replace(CLASSIC, requisition="everyone")
    plots = {0: "KH 7C", 1: "QH 8H 9C", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(rules, plots=plots, winner=2, completed="DCS")
    events = finish(g)
    assert north_by_seat(events) == [(0, "H", "KH"), (1, "H", "QH"), (2, "H", "10H"),
                                     (3, "H", "JH")]
    assert face_up_texts(g, 1) == ["8H"]


def test_reward_none_exposes_everyone() -> None:
    """reward = none: requisition does not depend on who was Brigadier: every player."""
    rules = replace(CLASSIC, reward="none")  # requisition stays "brigadiers"
    assert rules.requisition == "brigadiers"
    plots = {0: "KH 7C", 1: "QH 8H 9C", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(rules, plots=plots, winner=2, completed="DCS")
    events = finish(g)
    assert [s for s, _, _ in north_by_seat(events)] == [0, 1, 2, 3]


def test_queen_of_trump_exposes_everyone() -> None:
    """nomenklatura: the trump Queen (Информатор) on the failed job exposes all players."""
    plots = {0: "KH 7C", 1: "8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(CLASSIC, plots=plots, winner=2, completed="DCS", workers={"H": "QS 7H"})
    events = finish(g)
    assert north_by_seat(events) == [(0, "H", "KH"), (1, "H", "8H"), (2, "H", "10H"),
                                     (3, "H", "JH")]


def test_queen_not_trump_has_no_effect() -> None:
    """A Queen that is not of the trump suit is an ordinary worker."""
    plots = {0: "KH 7C", 1: "8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(CLASSIC, plots=plots, winner=2, completed="DCS", workers={"H": "QH 7H"})
    events = finish(g)
    assert north_by_seat(events) == [(2, "H", "10H")]


def test_queen_on_another_job_has_no_effect_here() -> None:
    """The Queen exposes everyone only for the job she works on."""
    plots = {0: "KH 7C", 1: "8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(CLASSIC, plots=plots, winner=2, completed="DS", workers={"C": "QS"})
    events = finish(g)
    assert [x for x in north_by_seat(events) if x[1] == "H"] == [(2, "H", "10H")]
    assert [x for x in north_by_seat(events) if x[1] == "C"] == [
        (0, "C", "7C"), (2, "C", "6C"), (3, "C", "10C")]


def test_queen_without_nomenklatura_has_no_effect() -> None:
    rules = replace(CLASSIC, nomenklatura=False)
    plots = {0: "KH 7C", 1: "8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(rules, plots=plots, winner=2, completed="DCS", workers={"H": "QS"})
    events = finish(g)
    assert north_by_seat(events) == [(2, "H", "10H")]


# ---------------------------------------------------------------- drunkard


def test_drunkard_goes_north_and_nothing_else_happens() -> None:
    """nomenklatura: the trump Jack (Пьяница) on a failed job is sent north and nothing else
    happens for that job — no reveal, no loss (even with the trump Queen/King there)."""
    plots = {0: "KH 7C", 1: "QH 8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(CLASSIC, plots=plots, winner=2, brigadiers=(1,), completed="DCS",
                 workers={"H": "JS QS KS 7H"})
    events = finish(g)
    (drunk,) = events_of(events, ev.DrunkardSentNorth)
    assert drunk.job.letter == "H" and str(drunk.card) == "JS"
    assert revealed(events) == []
    assert north_by_seat(events) == []
    assert stexts(g.north) == ["JS"]
    assert hidden_texts(g, 1) == stexts(cards("QH 8H 10D"))


def test_drunkard_only_on_its_own_job() -> None:
    """Other failed jobs are requisitioned normally."""
    plots = {2: "10H 6C"}
    g = year_end(CLASSIC, plots=plots, winner=2, completed="DS", workers={"H": "JS"})
    events = finish(g)
    assert [e.job.letter for e in events_of(events, ev.DrunkardSentNorth)] == ["H"]
    assert north_by_seat(events) == [(2, "C", "6C")]
    assert stexts(g.north) == stexts(cards("JS 6C"))


def test_jack_without_nomenklatura_is_no_drunkard() -> None:
    rules = replace(CLASSIC, nomenklatura=False)
    g = year_end(rules, plots={2: "10H"}, winner=2, completed="DCS", workers={"H": "JS"})
    events = finish(g)
    assert events_of(events, ev.DrunkardSentNorth) == []
    assert north_by_seat(events) == [(2, "H", "10H")]
    assert cards("JS")[0] not in g.north


def test_drunkard_on_complete_job_stays() -> None:
    """A complete job is not requisitioned: the Jack there simply returns to the deck."""
    g = year_end(CLASSIC, plots={}, completed="HDCS", workers={"H": "JS"})
    events = finish(g)
    assert events_of(events, ev.DrunkardSentNorth) == [] and g.north == []


def test_lean_year_has_no_nomenklatura() -> None:
    """A lean year has no trump, hence no trump Jack/Queen/King effects."""
    g = year_end(CLASSIC, plots={0: "KH", 2: "10H"}, winner=2, completed="DCS",
                 workers={"H": "JS QS KS"}, trump=None)
    events = finish(g)
    assert events_of(events, ev.DrunkardSentNorth) == []
    assert north_by_seat(events) == [(2, "H", "10H")]  # only the Brigadier, one card


# ---------------------------------------------------------------- who loses


def test_losers_each_sends_each_players_highest() -> None:
    """losers = each: every exposed player sends north their highest matching card."""
    rules = replace(CLASSIC, requisition="everyone")
    plots = {0: "6S 9S KS", 1: "7S", 2: "QS 8S", 3: "10C"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "KS"), (1, "S", "7S"), (2, "S", "QS")]
    assert face_up_texts(g, 0) == stexts(cards("6S 9S"))
    assert face_up_texts(g, 2) == ["8S"]


def test_losers_highest_sends_single_highest_overall() -> None:
    """losers = highest: only the single highest matching card among exposed players."""
    rules = replace(ORIGINAL, requisition="everyone", reveal="matching")
    plots = {0: "6S 9S", 1: "7S", 2: "QS 8S", 3: "10C"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == [(2, "S", "QS")]
    # Everyone exposed reveals all matching cards, which stay face-up.
    assert face_up_texts(g, 0) == stexts(cards("6S 9S"))
    assert face_up_texts(g, 1) == ["7S"]
    assert face_up_texts(g, 2) == ["8S"]


def test_losers_highest_among_brigadiers_only() -> None:
    """With brigadiers, the highest is taken among exposed players only."""
    plots = {0: "KS", 1: "7S", 2: "QS 8S", 3: "10C"}
    g = year_end(ORIGINAL, plots=plots, winner=1, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == [(1, "S", "7S")]
    assert hidden_texts(g, 0) == stexts(cards("KS 9D"))


def test_king_doubles_each() -> None:
    """nomenklatura + each: the trump King on the job -> each exposed player also sends their
    second-highest matching card."""
    rules = replace(CLASSIC, requisition="everyone")
    plots = {0: "6S 9S KS", 1: "7S", 2: "QS 8S", 3: "10C"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H", workers={"S": "KH"})
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "KS"), (0, "S", "9S"), (1, "S", "7S"),
                                     (2, "S", "QS"), (2, "S", "8S")]
    assert face_up_texts(g, 0) == ["6S"]


def test_king_doubles_highest() -> None:
    """nomenklatura + highest: the trump King -> the second-highest card overall goes too."""
    rules = replace(ORIGINAL, requisition="everyone")
    plots = {0: "6S 9S KS", 1: "7S", 2: "QS 8S", 3: "10C"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H", workers={"S": "KH"})
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "KS"), (2, "S", "QS")]


def test_king_doubles_highest_both_from_one_player() -> None:
    rules = replace(ORIGINAL, requisition="everyone")
    plots = {0: "QS KS", 1: "7S", 2: "8S"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H", workers={"S": "KH"})
    events = finish(g)
    assert sorted(north_by_seat(events)) == [(0, "S", "KS"), (0, "S", "QS")]


def test_king_not_trump_does_not_double() -> None:
    rules = replace(CLASSIC, requisition="everyone")
    plots = {0: "6S 9S KS"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H", workers={"S": "KC"})
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "KS")]


def test_no_matching_card_loses_nothing() -> None:
    """A player with no matching card loses nothing for X (others still lose)."""
    rules = replace(CLASSIC, requisition="everyone")
    plots = {0: "6C 7C", 1: "8S", 2: "QC"}
    g = year_end(rules, plots=plots, completed="HDC", trump="H", workers={"S": "KH"})
    events = finish(g)
    assert north_by_seat(events) == [(1, "S", "8S")]  # King: second card, but there is none
    assert plot_texts(g, 0) == stexts(cards("6C 7C 9D"))
    assert face_up_texts(g, 0) == []


def test_nobody_with_matching_cards() -> None:
    g = year_end(CLASSIC, plots={0: "6C"}, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == []
    assert revealed(events) == []
    assert g.north == []


# ---------------------------------------------------------------- matching cards


def test_reward_cards_are_never_requisitioned() -> None:
    """Matching cards are worker cards of suit X; reward cards (A-5) are never taken."""
    rules = replace(CLASSIC, requisition="everyone")
    plots = {0: "AH 5H", 1: "3H 6H", 2: "4H"}
    g = year_end(rules, plots=plots, completed="DCS", workers={"H": "KS"})  # King doubles
    events = finish(g)
    assert north_by_seat(events) == [(1, "H", "6H")]
    assert stexts(x for x in g.plots[0] if x % 13 < 5) == stexts(cards("AH 5H"))
    assert "3H" in plot_texts(g, 1) and "4H" in plot_texts(g, 2)
    check_conservation(g)


def test_already_revealed_cards_count_as_matching() -> None:
    """Matching cards include cards already face-up from an earlier requisition."""
    g = year_end(CLASSIC, plots={2: "KH 7H"}, face_up="KH", completed="DCS")
    events = finish(g)
    assert north_by_seat(events) == [(2, "H", "KH")]
    assert revealed(events) == [(2, "H", ["7H"])]  # only the newly revealed card is reported


def test_revealed_cards_stay_face_up_for_rest_of_game() -> None:
    """Exposed players' revealed cards stay face-up for the rest of the game."""
    rules = replace(preset("classic"), years=2)
    g = year_end(rules, plots={2: "KH 7H 8H"}, completed="DCS")
    finish(g)
    assert face_up_texts(g, 2) == stexts(cards("7H 8H"))
    assert g.year == 2
    # Play year 2 through; the cards stay face-up to the end.
    from engine.ai import default_action

    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
        for x in cards("7H 8H"):
            if x in g.plots[2]:
                assert x in g.face_up


def test_sent_north_cards_leave_the_game() -> None:
    """Cards sent north are out of the game (52-card setups): not dealt in later years."""
    g = year_end(CLASSIC, plots={2: "KH"}, completed="DCS")
    finish(g)
    kh = cards("KH")[0]
    assert kh in g.north
    assert all(kh not in h for h in g.hands) and kh not in g.deck


# ---------------------------------------------------------------- mice fallback and stacks


def _kolkhoznik_all_fail(rules, plots: dict[int, str]) -> Game:
    """Kolkhoznik last trick where all four jobs fail and nobody completed a job."""
    return year_end(rules, plots=plots, completed="", trump="H")


def test_mice_fallback_everyone_when_all_fail_and_nobody_exposed() -> None:
    """mice_fallback: all four jobs failed and the requisition option exposes nobody (stack:
    nobody completed a job) -> the whole mice rule this year: everyone exposed, each reveals
    their highest hidden matching card, and only the highest of them goes north."""
    plots = {0: "KS", 1: "7S", 2: "QC", 3: "9H"}
    g = _kolkhoznik_all_fail(KOLKHOZNIK, plots)
    events = finish(g)
    assert [e.year for e in events_of(events, ev.MiceRuleApplied)] == [1]
    assert [e.job.letter for e in events_of(events, ev.JobFailed)] == ["H", "D", "C", "S"]
    # Diamonds: every seat keeps its leftover Diamond; only the Queen (seat 3) goes.
    assert north_by_seat(events) == [(3, "H", "9H"), (3, "D", "QD"), (2, "C", "QC"),
                                     (0, "S", "KS")]
    # Every other seat showed its highest hidden Diamond and Spade, which stay face-up.
    assert face_up_texts(g, 1) == stexts(cards("7S 10D"))
    assert face_up_texts(g, 0) == ["9D"]


def test_no_mice_fallback_when_option_off() -> None:
    rules = replace(KOLKHOZNIK, mice_fallback=False)
    plots = {0: "KS", 1: "7S", 2: "QC", 3: "9H"}
    g = _kolkhoznik_all_fail(rules, plots)
    events = finish(g)
    assert north_by_seat(events) == []
    assert revealed(events) == []


def test_mice_fallback_not_when_a_job_was_completed() -> None:
    """If not all four failed, the fallback does not apply: the completer alone is exposed."""
    plots = {0: "KS", 1: "7S", 2: "QC"}
    g = year_end(KOLKHOZNIK, plots=plots, completed="H", trump="H", completed_year=(1,))
    events = finish(g)
    assert [x for x in north_by_seat(events) if x[1] == "S"] == [(1, "S", "7S")]
    assert [x for x in north_by_seat(events) if x[1] == "C"] == []


def test_mice_fallback_never_fires_in_52_card_game() -> None:
    """With brigadier rewards the trick winner is always exposed, so only Brigadiers lose."""
    rules = replace(CLASSIC, mice_fallback=True)
    plots = {0: "KS", 1: "7S", 2: "QC", 3: "9H"}
    g = year_end(rules, plots=plots, winner=2, completed="", trump="H")
    events = finish(g)
    assert {s for s, _, _ in north_by_seat(events)} == {2}


def test_stack_brigadiers_are_those_who_completed() -> None:
    """reward = stack: only players who completed a job this year are exposed — winning a
    trick is not enough."""
    plots = {0: "KS", 1: "7S", 2: "QS 8S"}
    g = year_end(KOLKHOZNIK, plots=plots, winner=2, brigadiers=(0, 2), completed="HDC",
                 trump="H", completed_year=(1,))
    events = finish(g)
    assert north_by_seat(events) == [(1, "S", "7S")]
    assert hidden_texts(g, 0) == stexts(cards("KS 9D"))


def test_stack_cards_open_to_requisition_and_top_stays_unless_sent_north() -> None:
    """Stack cards face-down are open to requisition like any face-down worker; after the
    requisition each stack returns to the deck except its top card (face-up)."""
    # Seat 1 completed Spades earlier this year (assignment = present let Hearts in):
    # its stack is 6H 8H 10H QS, 6H face-up on top. Hearts fails.
    plots = {1: "6H 8H 10H QS"}
    g = year_end(KOLKHOZNIK, plots=plots, winner=2, completed="DCS", trump="S",
                 completed_year=(1,), stacks={1: ["6H 8H 10H QS"]})
    assert face_up_texts(g, 1) == ["6H"]
    events = finish(g)
    assert north_by_seat(events) == [(1, "H", "10H")]
    assert plot_texts(g, 1) == stexts(cards("6H 10D"))
    assert face_up_texts(g, 1) == ["6H"]
    in_play = {x for h in g.hands for x in h} | set(g.deck)
    assert set(cards("8H QS")) <= in_play


def test_stack_top_sent_north() -> None:
    """The top card stays '(unless it was sent north)'."""
    plots = {1: "6H 10S QS KS"}
    g = year_end(KOLKHOZNIK, plots=plots, winner=2, completed="DCS", trump="D",
                 completed_year=(1,), stacks={1: ["6H 10S QS KS"]})
    events = finish(g)
    assert north_by_seat(events) == [(1, "H", "6H")]
    assert plot_texts(g, 1) == ["10D"]
    in_play = {x for h in g.hands for x in h} | set(g.deck)
    assert set(cards("10S QS KS")) <= in_play


def test_stack_setup_north_returns_next_year() -> None:
    """reward = stack: cards sent north return to the deck at the start of the next year."""
    g = year_end(KOLKHOZNIK, plots={1: "KH"}, completed="DCS", trump="S",
                 completed_year=(1,), north="QC")
    finish(g)
    assert g.year == 2
    assert g.north == []
    in_play = {x for h in g.hands for x in h} | set(g.deck)
    assert set(cards("KH QC")) <= in_play
    check_conservation(g)


def test_north_is_permanent_without_stack() -> None:
    """In the other setups cards sent north stay there for the rest of the game."""
    g = year_end(CLASSIC, plots={2: "KH"}, completed="DCS", north="QC")
    finish(g)
    assert g.year == 2
    assert stexts(g.north) == stexts(cards("QC KH"))


def test_zone_everyone_highest() -> None:
    """zone: reward none, everyone exposed, each reveals only their highest hidden matching
    card, and the single highest card goes north."""
    plots = {0: "KS", 1: "7S 10S", 2: "QC"}
    g = year_end(ZONE, plots=plots, winner=2, completed="HDC", trump="H")
    events = finish(g)
    assert north_by_seat(events) == [(0, "S", "KS")]
    assert face_up_texts(g, 1) == ["10S"]
    assert hidden_texts(g, 1) == stexts(cards("7S 10D"))


@pytest.mark.parametrize("players", [3, 5])
def test_requisition_everyone_with_three_and_five_players(players: int) -> None:
    rules = replace(CLASSIC, requisition="everyone")
    hands = {s: f"{6 + s}D" for s in range(players)}
    g = deal(rules, players, 0, trump="S", tricks_done=3, hand_size=5,
             hands={s: f"{6 + s}D {6 + s}C" for s in range(players)},
             plots={s: f"{6 + s}H" for s in range(players)},
             completed_by={"D": 0, "C": 0, "S": 0}, lead=1)
    order = [(1 + k) % players for k in range(players)]
    play(g, *[hands[s] for s in order])
    assign(g, *[f"{hands[s]}>D" for s in order])
    assert all(cards(f"{6 + s}H")[0] in g.north for s in range(players))


# ---------------------------------------------------------------- drunkard = replaces


def test_original_drunkard_replaces_one_card_reveal_goes_on() -> None:
    """revision 4, seed 000 (``original``: drunkard = replaces, reveal = plot, losers =
    highest): the Jack goes north *instead of* the one player's card; the exposed Brigadier
    still shows the whole plot, and nobody's card goes north."""
    assert ORIGINAL.drunkard == "replaces" and CLASSIC.drunkard == "cancels"
    plots = {0: "KH 7C", 1: "QH 8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(ORIGINAL, plots=plots, winner=2, brigadiers=(1,), completed="DCS",
                 workers={"H": "JS 7H"})
    events = finish(g)
    (drunk,) = events_of(events, ev.DrunkardSentNorth)
    assert drunk.job.letter == "H" and str(drunk.card) == "JS"
    # Seats 1 and 2 were Brigadiers: each shows the whole face-down plot.
    assert {s for s, _job, _cards in revealed(events)} == {1, 2}
    assert north_by_seat(events) == []
    assert events_of(events, ev.NothingRequisitioned) == []
    assert cards("JS")[0] in g.north and cards("QH")[0] not in g.north


def test_original_drunkard_with_the_king_one_card_still_goes() -> None:
    """With the Party official on the job too, two would go: the Jack is one, the single
    highest matching card among the exposed is the other."""
    plots = {0: "KH 7C", 1: "QH 8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(ORIGINAL, plots=plots, winner=2, brigadiers=(1,), completed="DCS",
                 workers={"H": "JS KS 7H"})
    events = finish(g)
    assert [str(e.card) for e in events_of(events, ev.DrunkardSentNorth)] == ["JS"]
    assert north_by_seat(events) == [(1, "H", "QH")]


def test_stored_original_games_keep_the_drunkard_that_cancels() -> None:
    """Rules stored before revision 4 have no ``drunkard``: they finish as they began."""
    from engine import Rules

    old = ORIGINAL.to_dict()
    del old["drunkard"]
    rules = Rules.from_dict(old)
    assert rules.drunkard == "cancels"
    plots = {0: "KH 7C", 1: "QH 8H", 2: "10H 6C", 3: "JH 10C"}
    g = year_end(rules, plots=plots, winner=2, brigadiers=(1,), completed="DCS",
                 workers={"H": "JS KS 7H"})
    events = finish(g)
    assert [str(e.card) for e in events_of(events, ev.DrunkardSentNorth)] == ["JS"]
    assert revealed(events) == [] and north_by_seat(events) == []


# ---------------------------------------------------------------- hero (house rule)

HERO = replace(CLASSIC, hero=True)
HERO_PLOTS = {0: "KH 7C", 1: "QH 8H", 2: "10H 6C", 3: "JH 10C"}


def hero_year(rules, winners: list[int], workers: dict[str, str]) -> Game:
    """Year 1's last trick, won by seat 2, after three earlier tricks won by ``winners``."""
    g = year_end(rules, plots=HERO_PLOTS, winner=2, brigadiers=tuple(set(winners) | {2}),
                 completed="DCS", workers=workers)
    g.tricks = [([], w) for w in winners]
    return g


def test_the_hero_is_searched_for_nothing_and_everyone_else_loses_their_own() -> None:
    """Seat 2 won every trick: for the failed ♥ the other three are searched, each losing
    their highest heart (losers = each), and the Hero keeps 10♥."""
    g = hero_year(HERO, [2, 2, 2], {"H": "7H"})
    events = finish(g)
    (hero,) = events_of(events, ev.HeroNamed)
    assert (hero.year, hero.seat) == (1, 2)
    assert sorted(north_by_seat(events)) == [(0, "H", "KH"), (1, "H", "QH"), (3, "H", "JH")]
    assert cards("10H")[0] in g.plots[2]
    # Without the house rule only the Brigadier (seat 2) is searched.
    plain = hero_year(CLASSIC, [2, 2, 2], {"H": "7H"})
    assert north_by_seat(finish(plain)) == [(2, "H", "10H")]


def test_the_informer_does_not_expose_the_hero() -> None:
    g = hero_year(HERO, [2, 2, 2], {"H": "QS 7H"})
    events = finish(g)
    assert sorted(north_by_seat(events)) == [(0, "H", "KH"), (1, "H", "QH"), (3, "H", "JH")]
    assert all(seat != 2 for seat, _job, _cards in revealed(events))


def test_no_hero_when_another_seat_took_a_trick_or_without_reward_cards() -> None:
    g = hero_year(HERO, [2, 1, 2], {"H": "7H"})
    events = finish(g)
    assert events_of(events, ev.HeroNamed) == []
    assert sorted(north_by_seat(events)) == [(1, "H", "QH"), (2, "H", "10H")]
    zone = year_end(replace(ZONE, hero=True), plots={2: "10H"}, winner=2, completed="DCS")
    zone.tricks = [([], 2)] * 3
    assert events_of(finish(zone), ev.HeroNamed) == []
