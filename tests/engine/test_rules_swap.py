"""RULES.md "One year" step 5: the swap ("Поменять шило на мыло", option ``swap``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine import Game, IllegalAction, Phase, preset
from engine import events as ev
from tests.engine.invariants import check_conservation
from tests.engine.scripted import (
    act,
    cards,
    deal,
    events_of,
    face_up_texts,
    hidden_texts,
    stexts,
)

KOLKHOZ = preset("kolkhoz")  # swap on, first lead planner

HANDS = {0: "6H 7H 8H 9H 10H", 1: "6D 7D 8D 9D 10D", 2: "6C 7C 8C 9C 10C",
         3: "6S 7S 8S 9S 10S"}
PLOTS = {0: "KH QD", 1: "KD", 2: "KC JC", 3: ""}


def _year2(rules=KOLKHOZ, **kw) -> Game:
    kw.setdefault("plots", PLOTS)
    return deal(rules, 4, 1, year=2, hands=HANDS, phase="trump", **kw)


def test_no_swap_in_year_one() -> None:
    """The swap exists from year 2 on: year 1 goes from trump straight to the tricks."""
    g = Game.new(KOLKHOZ, players=4, seed=3, planner=0)
    if g.phase is Phase.TRUMP:
        act(g, "trump:S")
    assert g.phase is Phase.PLAY and g.to_act == [0]


def test_swap_phase_after_trump_from_year_two() -> None:
    """From year 2, after trump, every player may swap or pass."""
    g = _year2()
    events = act(g, "trump:S")
    assert g.phase is Phase.SWAP
    assert sorted(g.to_act) == [0, 1, 2, 3]
    assert not events_of(events, ev.CardPlayed)


def test_no_swap_phase_when_option_off() -> None:
    g = _year2(replace(KOLKHOZ, swap=False))
    act(g, "trump:S")
    assert g.phase is Phase.PLAY and g.to_act == [1]  # first lead: the Planner (seat 1)


def test_swap_legal_actions_hand_times_face_down_plot_plus_pass() -> None:
    """A player may swap one hand card with one face-down worker of their own plot."""
    g = _year2(face_up="QD")
    act(g, "trump:S")
    legal0 = {str(a) for a in g.legal_actions(0)}
    expected = {f"swap:{h}<KH" for h in HANDS[0].split()} | {"swap:pass"}
    assert legal0 == expected  # QD is face-up: not swappable
    assert {str(a) for a in g.legal_actions(3)} == {"swap:pass"}  # nothing face-down


def test_swap_exchanges_cards_and_keeps_them_private() -> None:
    g = _year2()
    act(g, "trump:S")
    events = act(g, (2, "swap:6C<KC"))
    (dec,) = events_of(events, ev.SwapDecided)
    assert dec.seat == 2 and dec.swapped
    assert stexts(g.hands[2]) == stexts(cards("KC 7C 8C 9C 10C"))
    assert hidden_texts(g, 2) == stexts(cards("6C JC"))
    assert face_up_texts(g, 2) == []
    assert g.hands[2] == sorted(g.hands[2])
    # The event names no card (hidden information).
    assert all(not hasattr(dec, f) for f in ("card", "target"))
    check_conservation(g)


def test_swap_independent_any_order_phase_ends_when_all_decided() -> None:
    """Players decide independently and in any order; the phase ends when all have decided."""
    g = _year2()
    act(g, "trump:S")
    act(g, (3, "swap:pass"))
    assert sorted(g.to_act) == [0, 1, 2] and g.phase is Phase.SWAP
    act(g, (1, "swap:10D<KD"))
    act(g, (0, "swap:pass"))
    assert g.to_act == [2] and g.phase is Phase.SWAP
    act(g, (2, "swap:pass"))
    assert g.phase is Phase.PLAY
    assert g.to_act == [1]  # kolkhoz: the Planner leads
    assert "KD" in stexts(g.hands[1]) and "10D" in hidden_texts(g, 1)


def test_decided_player_cannot_swap_again() -> None:
    g = _year2()
    act(g, "trump:S")
    act(g, (0, "swap:6H<KH"))
    err = g.why_illegal(0, "swap:7H<6H")
    assert err is not None and err.reason == "not_your_turn"
    with pytest.raises(IllegalAction):
        g.apply(0, "swap:pass")


def test_swap_only_face_down_plot_cards_of_own_plot() -> None:
    """Face-up plot cards and other players' cards cannot be taken."""
    g = _year2(face_up="QD")
    act(g, "trump:S")
    err = g.why_illegal(0, "swap:6H<QD")  # face-up
    assert err is not None and err.reason == "not_in_plot"
    err = g.why_illegal(0, "swap:6H<KD")  # seat 1's plot
    assert err is not None and err.reason == "not_in_plot"
    err = g.why_illegal(0, "swap:6D<KH")  # not in hand
    assert err is not None and err.reason == "not_in_hand"


def test_swap_reward_cards_are_not_swappable() -> None:
    """Reward cards lie face-up in the plot: not swappable."""
    g = _year2(plots={0: "AH KH", 1: "KD", 2: "KC", 3: ""})
    act(g, "trump:S")
    assert {str(a) for a in g.legal_actions(0)} == {f"swap:{h}<KH" for h in HANDS[0].split()} | {
        "swap:pass"}


def test_no_play_during_swap_phase() -> None:
    g = _year2()
    act(g, "trump:S")
    err = g.why_illegal(1, "play:6D")
    assert err is not None and err.reason == "wrong_phase"


def test_swap_in_lean_year_two() -> None:
    """A lean year from year 2 on has no trump; the swap phase still comes first."""
    g = deal(KOLKHOZ, 4, 1, year=5, hand_size=4, phase="swap", plots=PLOTS,
             hands={0: "6H 7H 8H 9H", 1: "6D 7D 8D 9D", 2: "6C 7C 8C 9C", 3: "6S 7S 8S 9S"})
    assert g.lean and g.trump is None
    act(g, (0, "swap:pass"), (1, "swap:pass"), (2, "swap:pass"), (3, "swap:pass"))
    assert g.phase is Phase.PLAY


def test_real_game_reaches_swap_in_year_two() -> None:
    """Played for real: kolkhoz year 2 shows the swap phase after trump (or at once if lean)."""
    from engine.ai import default_action

    g = Game.new(KOLKHOZ, players=4, seed=21, planner=0)
    while g.year < 2:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    if g.phase is Phase.TRUMP:
        act(g, (g.planner, "trump:H"))
    assert g.phase is Phase.SWAP and sorted(g.to_act) == [0, 1, 2, 3]
    for s in range(4):
        hidden = [x for x in g.plots[s] if x not in g.face_up]
        assert len(g.legal_actions(s)) == len(g.hands[s]) * len(hidden) + 1
