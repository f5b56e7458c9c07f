"""RULES.md "One year" step 7 (assignment, hours, completion) and "Rewards"."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import IllegalAction, Phase, preset
from engine import events as ev
from tests.engine.invariants import check_conservation
from tests.engine.scripted import (
    act,
    assign,
    cards,
    deal,
    events_of,
    face_up_texts,
    hidden_texts,
    play,
    stexts,
)

CLASSIC = preset("classic")
KOLKHOZ = preset("kolkhoz")
KOLKHOZNIK = preset("kolkhoznik")


def _jobs(g, card: str) -> set[str]:
    """The jobs the Brigadier may give ``card`` now."""
    b = g.to_act[0]
    return {a.suit.letter for a in g.legal_actions(b) if str(a.card) == card}


# ---------------------------------------------------------------- where cards may go


def test_assignment_suit_own_job_and_trump_anywhere() -> None:
    """assignment = suit: each card to its own suit's job; a trump card to any job."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H", 1: "KD", 2: "7S", 3: "QH"})
    play(g, "6H", "KD", "7S", "QH")
    assert g.brigadier == 2
    assert _jobs(g, "6H") == {"H"}
    assert _jobs(g, "KD") == {"D"}
    assert _jobs(g, "QH") == {"H"}
    assert _jobs(g, "7S") == {"H", "D", "C", "S"}
    err = g.why_illegal(2, "assign:KD>H")
    assert err is not None and err.reason == "wrong_job"


def test_assignment_present_jobs_of_suits_in_trick() -> None:
    """assignment = present: each card to any job whose suit is present in this trick."""
    g = deal(KOLKHOZ, 4, 0, trump="S",
             hands={0: "6H", 1: "KD", 2: "7H", 3: "QH"})
    play(g, "6H", "KD", "7H", "QH")
    assert g.brigadier == 3
    for card in ("6H", "KD", "7H", "QH"):
        assert _jobs(g, card) == {"H", "D"}
    err = g.why_illegal(3, "assign:KD>C")
    assert err is not None and err.reason == "wrong_job"


def test_assignment_present_trump_gives_no_extra_freedom() -> None:
    """Under 'present' a trump card goes only to jobs of suits present (its own is present)."""
    g = deal(KOLKHOZ, 4, 0, trump="S",
             hands={0: "6H", 1: "7S", 2: "7H", 3: "QH"})
    play(g, "6H", "7S", "7H", "QH")
    assert g.brigadier == 1
    assert _jobs(g, "7S") == {"H", "S"}
    assert _jobs(g, "QH") == {"H", "S"}


def test_assignment_present_single_suit_trick() -> None:
    g = deal(KOLKHOZ, 4, 0, trump="S",
             hands={0: "6C", 1: "7C", 2: "KC", 3: "QC"})
    play(g, "6C", "7C", "KC", "QC")
    for card in ("6C", "7C", "KC", "QC"):
        assert _jobs(g, card) == {"C"}


@pytest.mark.parametrize("name", ["classic", "original"])
def test_lean_year_any_card_to_any_job_with_suit_assignment(name: str) -> None:
    """``assignment = suit``: in a lean year any card may go to any job (seed 000)."""
    g = deal(preset(name), 4, 3, year=5, hand_size=4,
             hands={0: "6H", 1: "KD", 2: "7H", 3: "QH"}, lead=0)
    play(g, "6H", "KD", "7H", "QH")
    for card in ("6H", "KD", "7H", "QH"):
        assert _jobs(g, card) == {"H", "D", "C", "S"}


@pytest.mark.parametrize("name", ["kolkhoz", "kolkhoznik", "zone"])
@pytest.mark.parametrize("famine", [False, True])
def test_lean_year_keeps_present_suit_rule(name: str, famine: bool) -> None:
    """``assignment = present``: a lean or famine year keeps the present-suit rule."""
    g = deal(preset(name), 4, 3, year=4, hand_size=4, famine=famine,
             hands={0: "6H", 1: "KD", 2: "7H", 3: "QH"}, lead=0)
    assert g.lean and g.trump is None
    play(g, "6H", "KD", "7H", "QH")
    for card in ("6H", "KD", "7H", "QH"):
        assert _jobs(g, card) == {"H", "D"}
    with pytest.raises(IllegalAction) as err:
        g.apply(g.brigadier, "assign:6H>S")
    assert err.value.reason == "wrong_job"


def test_only_brigadier_assigns_one_card_at_a_time_in_any_order() -> None:
    """The Brigadier assigns every card of the trick, one card at a time."""
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 6C 6D", 1: "KH 7C 7D", 2: "7H 8C 8D", 3: "QH 9C 9D"})
    play(g, "6H", "KH", "7H", "QH")
    assert g.to_act == [1]
    for s in (0, 2, 3):
        assert g.legal_actions(s) == []
        err = g.why_illegal(s, "assign:6H>H")
        assert err is not None and err.reason == "not_your_turn"
    assign(g, "QH>H")
    assert stexts(g.pending) == stexts(cards("6H 7H KH"))
    err = g.why_illegal(1, "assign:QH>H")
    assert err is not None and err.reason == "not_in_trick"
    assign(g, "7H>H", "KH>H")
    assert g.phase is Phase.ASSIGN
    assign(g, "6H>H")
    assert g.phase is Phase.PLAY and g.to_act == [1]


# ---------------------------------------------------------------- hours


def test_hours_accumulate_face_value() -> None:
    """Work hours: 6-10 face value, J 11, Q 12, K 13; they accumulate over the year."""
    g = deal(CLASSIC, 4, 3, trump="S", workers={"H": "8H"},
             hands={0: "6H 6C 6D", 1: "JH 7C 7D", 2: "QH 8C 8D", 3: "KH 9C 9D"})
    assert g.hours[0] == 8
    play(g, "6H", "JH", "QH", "KH")
    events = assign(g, "6H>H", "JH>H", "QH>H")
    assert [e.hours for e in events_of(events, ev.CardAssigned)] == [14, 25, 37]
    events = assign(g, "KH>H")
    assert g.hours[0] == 50


@pytest.mark.parametrize(("nomenklatura", "jack_hours"), [(True, 0), (False, 11)])
def test_trump_jack_adds_zero_hours_with_nomenklatura(nomenklatura: bool, jack_hours: int) -> None:
    """The trump Jack (Пьяница) adds 0 hours with nomenklatura, 11 without."""
    rules = replace(CLASSIC, nomenklatura=nomenklatura)
    g = deal(rules, 4, 3, trump="S",
             hands={0: "6H", 1: "JS", 2: "JH", 3: "7H"})
    play(g, "6H", "JS", "JH", "7H")
    assign(g, "JS>H")
    assert g.hours[0] == jack_hours
    assign(g, "JH>H")  # a non-trump Jack is 11 either way
    assert g.hours[0] == jack_hours + 11


# ---------------------------------------------------------------- completion


def test_completion_only_when_last_card_of_trick_placed() -> None:
    """Jobs complete only when the Brigadier has placed the last card of the trick."""
    g = deal(CLASSIC, 4, 3, trump="S", workers={"H": "KH QH"},  # 25 hours
             rewards={"H": "4H"},
             hands={0: "6H 6C 6D", 1: "JH 7C 7D", 2: "7H 8C 8D", 3: "10H 9C 9D"})
    play(g, "6H", "JH", "7H", "10H")
    assert g.brigadier == 1
    events = assign(g, "10H>H", "JH>H")  # 46 hours, trick not finished
    assert g.hours[0] == 46
    assert g.completed_by[0] is None
    assert not events_of(events, ev.JobCompleted)
    assert stexts(g.rewards[0]) == ["4H"]
    events = assign(g, "6H>H", "7H>H")
    (done,) = events_of(events, ev.JobCompleted)
    assert done.job.letter == "H" and done.seat == 1
    assert g.completed_by[0] == 1
    check_conservation(g)


def test_threshold_exactly_reached_completes() -> None:
    """A job completes when hours >= threshold (40 here)."""
    g = deal(CLASSIC, 4, 3, trump="S", workers={"D": "KD 8D"},  # 21
             hands={0: "6D 6H 6S", 1: "QD 7H 7S", 2: "7C 8H 8S", 3: "8C 9H 9S"})
    play(g, "6D", "QD", "7C", "8C")
    events = assign(g, "6D>D", "QD>D", "7C>C", "8C>C")  # 21 + 6 + 12 = 39 < 40
    assert g.hours[1] == 39
    assert g.completed_by[1] is None and not events_of(events, ev.JobCompleted)


def test_threshold_forty_met() -> None:
    g = deal(CLASSIC, 4, 3, trump="S", workers={"D": "KD 9D"},  # 22
             hands={0: "6D 6H 6S", 1: "QD 7H 7S", 2: "7C 8H 8S", 3: "8C 9H 9S"})
    play(g, "6D", "QD", "7C", "8C")
    assign(g, "6D>D", "QD>D", "7C>C", "8C>C")  # 22 + 18 = 40
    assert g.hours[1] == 40 and g.completed_by[1] == 1


@pytest.mark.parametrize(("threshold", "complete"), [(36, True), (37, False)])
def test_threshold_option(threshold: int, complete: bool) -> None:
    """threshold: the work hours that complete a job (original preset: 36)."""
    rules = replace(CLASSIC, threshold=threshold)
    g = deal(rules, 4, 3, trump="S", workers={"C": "KC 10C"},  # 23
             hands={0: "6C 6H 6S", 1: "7C 7H 7S", 2: "6D 8H 8S", 3: "7D 9H 9S"})
    play(g, "6C", "7C", "6D", "7D")
    assign(g, "6C>C", "7C>C", "6D>D", "7D>D")  # 36
    assert (g.completed_by[2] is not None) == complete


def test_original_threshold_is_36() -> None:
    assert preset("original").threshold == 36
    for name in ("classic", "kolkhoz", "kolkhoznik", "zone"):
        assert preset(name).threshold == 40


def test_several_jobs_complete_in_one_trick() -> None:
    g = deal(CLASSIC, 4, 3, trump="S",
             workers={"H": "KH QH JH", "D": "KD QD JD"},  # 36 each
             rewards={"H": "2H", "D": "3D"},
             hands={0: "6H 6C 6S", 1: "6D 7C 7S", 2: "7H 8C 8S", 3: "7D 9C 9S"})
    play(g, "6H", "6D", "7H", "7D")
    assert g.brigadier == 2
    events = assign(g, "6H>H", "6D>D", "7H>H", "7D>D")
    assert [e.job.letter for e in events_of(events, ev.JobCompleted)] == ["H", "D"]
    assert g.completed_by[:2] == [2, 2]
    assert face_up_texts(g, 2) == stexts(cards("2H 3D"))


def test_complete_job_still_takes_workers_without_effect() -> None:
    """Workers may still go to a complete job; they change nothing (no second reward)."""
    g = deal(CLASSIC, 4, 3, trump="S", completed_by={"H": 0},
             workers={"H": "KH QH JH 10H"}, rewards={"H": "5H"},
             hands={0: "6H 6C 6S", 1: "8H 7C 7S", 2: "7H 8C 8S", 3: "9H 9C 9S"})
    play(g, "6H", "8H", "7H", "9H")
    events = assign(g, "6H>H", "8H>H", "7H>H", "9H>H")
    assert not events_of(events, ev.JobCompleted)
    assert g.completed_by[0] == 0
    assert stexts(g.rewards[0]) == ["5H"]
    assert g.plots[3] == []


# ---------------------------------------------------------------- reward = brigadier


@pytest.mark.parametrize("visible", ["3S", "AS 4S 2S"])
def test_reward_brigadier_takes_visible_rewards_face_up(visible: str) -> None:
    """reward = brigadier: the completing Brigadier takes all visible reward cards of that
    job face-up into their plot."""
    g = deal(CLASSIC, 4, 3, trump="H", workers={"S": "KS QS"},  # 25
             rewards={"S": visible, "D": "5D"},
             hands={0: "6S 6C 6D", 1: "7S 7C 7D", 2: "10S 8C 8D", 3: "9S 9C 9D"})
    play(g, "6S", "7S", "10S", "9S")
    assert g.brigadier == 2
    events = assign(g, "6S>S", "7S>S", "10S>S", "9S>S")
    (done,) = events_of(events, ev.JobCompleted)
    assert stexts(x.id for x in done.rewards) == stexts(cards(visible))
    assert g.rewards[3] == [] and stexts(g.rewards[1]) == ["5D"]
    assert face_up_texts(g, 2) == stexts(cards(visible))
    assert hidden_texts(g, 2) == []


def test_reward_none_completion_gives_nothing() -> None:
    """reward = none: completing a job gives nothing."""
    rules = replace(CLASSIC, reward="none")
    g = deal(rules, 4, 3, trump="H", workers={"S": "KS QS"},
             rewards={"S": "3S"},
             hands={0: "6S 6C 6D", 1: "7S 7C 7D", 2: "10S 8C 8D", 3: "9S 9C 9D"})
    play(g, "6S", "7S", "10S", "9S")
    events = assign(g, "6S>S", "7S>S", "10S>S", "9S>S")
    (done,) = events_of(events, ev.JobCompleted)
    assert done.rewards == () and done.stack_top is None
    assert g.completed_by[3] == 2
    assert g.plots == [[], [], [], []]
    assert stexts(g.workers[3]) == stexts(cards("KS QS 6S 7S 10S 9S"))


# ---------------------------------------------------------------- reward = stack


def test_reward_stack_workers_become_stack_lowest_face_up() -> None:
    """reward = stack: the Brigadier takes all workers of the job (they leave it) into the
    plot as one stack, lowest card face-up on top, the rest face-down."""
    g = deal(KOLKHOZNIK, 4, 0, trump="H", workers={"S": "KS QS"},
             hands={0: "6S 6C 6D", 1: "7S 7C 7D", 2: "10S 8C 8D", 3: "9S 9C 9D"})
    play(g, "6S", "7S", "10S", "9S")
    assert g.brigadier == 2
    events = assign(g, "9S>S", "7S>S", "10S>S", "6S>S")
    (done,) = events_of(events, ev.JobCompleted)
    assert done.seat == 2 and str(done.stack_top) == "6S" and done.stack_size == 6
    assert g.workers[3] == []
    assert g.completed_year == [False, False, True, False]
    assert face_up_texts(g, 2) == ["6S"]
    assert hidden_texts(g, 2) == stexts(cards("7S 9S 10S QS KS"))
    assert [stexts(st) for st in g.stacks[2]] == [stexts(cards("6S 7S 9S 10S QS KS"))]
    check_conservation(g)


def test_reward_stack_returns_to_deck_except_top_at_end_of_year() -> None:
    """At the end of the year's requisition every stack goes back to the deck except its top
    card, which stays face-up in the plot."""
    g = deal(KOLKHOZNIK, 4, 0, trump="H", workers={"S": "KS QS"},
             completed_by={"H": 1, "D": 1, "C": 1},
             hands={0: "6S", 1: "7S", 2: "10S", 3: "9S"})
    play(g, "6S", "7S", "10S", "9S")
    events = assign(g, "9S>S", "7S>S", "10S>S", "6S>S")
    (back,) = events_of(events, ev.StacksReturned)
    assert back.seat == 2 and back.returned == 5
    assert g.year == 2
    assert g.plots[2] == cards("6S") and g.face_up == set(cards("6S"))
    assert g.stacks == [[], [], [], []]
    in_play = sorted(x for h in g.hands for x in h) + sorted(g.deck)
    for x in cards("7S 9S 10S QS KS"):
        assert x in in_play
    check_conservation(g)


def test_reward_stack_empty_job_workers_after_completion_stay_on_job() -> None:
    """Workers assigned to the job after it was completed stay on the job (change nothing)."""
    g = deal(KOLKHOZNIK, 4, 0, trump="H", completed_by={"S": 1},
             hands={0: "6S 6C 6D", 1: "7S 7C 7D", 2: "10S 8C 8D", 3: "9S 9C 9D"})
    play(g, "6S", "7S", "10S", "9S")
    events = assign(g, "9S>S", "7S>S", "10S>S", "6S>S")
    assert not events_of(events, ev.JobCompleted)
    assert g.plots == [[], [], [], []]
    assert len(g.workers[3]) == 4


def test_kolkhoznik_preset_has_no_reward_cards() -> None:
    """36-card deck: no reward cards; the Aces only mark the jobs."""
    from engine import Game

    for name in ("kolkhoznik", "zone"):
        g = Game.new(preset(name), players=4, seed=4)
        assert g.rewards == [[], [], [], []] and g.reward_piles == [[], [], [], []]
        while not g.is_over:
            seat = g.to_act[0]
            act(g, (seat, str(g.legal_actions(seat)[-1])))
        assert all(x % 13 >= 5 for p in g.plots for x in p)


def test_two_stacks_in_one_trick() -> None:
    """reward = stack: completing two jobs with one trick gives two stacks; each returns to
    the deck at the end of the year except its top card."""
    g = deal(KOLKHOZNIK, 4, 0, trump="C",
             workers={"H": "KH QH JH", "D": "KD QD JD"},  # 36 hours each
             hands={0: "6H 6C", 1: "7D 7C", 2: "8H 8C", 3: "9D 9C"})
    play(g, "6H", "7D", "8H", "9D")  # Hearts led: 8H wins
    assert g.brigadier == 2
    events = assign(g, "6H>H", "7D>D", "8H>H", "9D>D")
    done = events_of(events, ev.JobCompleted)
    assert [(e.job.letter, str(e.stack_top), e.stack_size) for e in done] == [
        ("H", "6H", 5), ("D", "7D", 5)]
    assert g.year == 2  # that was the last trick
    # Clubs failed and seat 2 (who completed jobs) lost its 8C to the north.
    assert stexts(g.plots[2]) == stexts(cards("6H 7D"))
    assert face_up_texts(g, 2) == stexts(cards("6H 7D"))
    check_conservation(g)


def test_lean_year_jack_has_full_hours() -> None:
    """No trump in a lean year, hence no Пьяница: every Jack works 11 hours."""
    g = deal(CLASSIC, 4, 3, year=5, hand_size=4, lead=0,
             hands={0: "JS 6C 6D", 1: "JH 7C 7D", 2: "JD 8C 8D", 3: "JC 9C 9D"})
    play(g, "JS", "JH", "JD", "JC")
    assign(g, "JS>S", "JH>S", "JD>D", "JC>D")
    assert g.hours == [0, 22, 0, 22]


def test_stack_top_is_lowest_rank_in_mixed_suit_stack() -> None:
    """reward = stack: "lowest card face-up on top" by rank (6 < ... < K); with assignment =
    present a stack can mix suits, and KH must not count as lower than 6S."""
    g = deal(KOLKHOZNIK, 4, 0, trump="D", workers={"S": "QS 9S"},  # 21 hours
             hands={0: "6S 6C 6D", 1: "KH 7C 7D", 2: "7S 8C 8D", 3: "8S 9C 9D"})
    play(g, "6S", "KH", "7S", "8S")  # seat 1 has no Spades; 8S wins
    assert g.brigadier == 3
    events = assign(g, "6S>S", "KH>S", "7S>S", "8S>S")  # 21 + 34 = 55 hours
    (done,) = events_of(events, ev.JobCompleted)
    assert str(done.stack_top) == "6S"
    assert face_up_texts(g, 3) == ["6S"]
    assert hidden_texts(g, 3) == stexts(cards("7S 8S 9S QS KH"))
    check_conservation(g)


def test_stack_top_is_lowest_rank_two_mixed_stacks() -> None:
    """A Hearts card on the Diamonds job does not become that stack's top when a
    lower-ranked Diamond is in it."""
    g = deal(KOLKHOZNIK, 4, 0, trump="C",
             workers={"H": "KH QH JH", "D": "KD QD JD"},  # 36 hours each
             hands={0: "6H 6C", 1: "7D 7C", 2: "8H 8C", 3: "9D 9C"})
    play(g, "6H", "7D", "8H", "9D")  # Hearts led: 8H wins
    events = assign(g, "6H>H", "7D>D", "8H>D", "9D>H")
    done = events_of(events, ev.JobCompleted)
    # Hearts stack KH QH JH 6H 9D: lowest is 6H. Diamonds stack KD QD JD 7D 8H: 7D.
    assert [(e.job.letter, str(e.stack_top)) for e in done] == [("H", "6H"), ("D", "7D")]
    # End of year: the tops stay face-up, the rest went back; Clubs failed and seat 2 (who
    # completed jobs) lost its 8C.
    assert stexts(g.plots[2]) == stexts(cards("6H 7D"))
    assert face_up_texts(g, 2) == stexts(cards("6H 7D"))
    check_conservation(g)
