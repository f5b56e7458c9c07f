"""Refused actions: InvalidAction for malformed input, IllegalAction (with a reason code) for
well-formed actions the rules do not allow now; in both cases the game is left unchanged."""

from __future__ import annotations

import random

import pytest

from engine import ActionError, Game, IllegalAction, InvalidAction, preset
from engine.ai import default_action
from tests.engine.scripted import act, deal, play, texts

CLASSIC = preset("classic")


def _mid_trick() -> Game:
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7D 8S", 1: "8H 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    play(g, "6H")  # seat 0 led hearts; seat 1 to play
    return g


def _refused(g: Game, seat, action, exc: type[ActionError], reason: str | None = None):
    before = g.to_json()
    with pytest.raises(exc) as info:
        g.apply(seat, action)
    assert g.to_json() == before, "a refused action must leave the game exactly as it was"
    if reason is not None:
        assert info.value.reason == reason  # type: ignore[attr-defined]
        why = g.why_illegal(seat, action)
        assert why is not None and why.reason == reason
    return info.value


@pytest.mark.parametrize("text", ["", "play", "play:", "play:1H", "play:10X", "bid:10H",
                                  "assign:10H", "assign:10H>Q", "swap:9H", "trump:",
                                  "hello world"])
def test_malformed_action_is_invalid_and_changes_nothing(text: str) -> None:
    g = _mid_trick()
    _refused(g, 1, text, InvalidAction)
    with pytest.raises(InvalidAction):
        g.why_illegal(1, text)


def test_not_your_turn() -> None:
    g = _mid_trick()
    _refused(g, 2, "play:9H", IllegalAction, "not_your_turn")


def test_card_not_in_hand() -> None:
    g = _mid_trick()
    _refused(g, 1, "play:KH", IllegalAction, "not_in_hand")


def test_must_follow_suit() -> None:
    g = _mid_trick()
    _refused(g, 1, "play:9C", IllegalAction, "follow_suit")


def test_trump_lead_refused() -> None:
    g = deal(CLASSIC, 4, 3, trump="S",
             hands={0: "6H 7D 8S", 1: "8H 9C 10S", 2: "9H JD QS", 3: "10H 6C KS"})
    _refused(g, 0, "play:8S", IllegalAction, "trump_lead")


def test_wrong_phase() -> None:
    g = _mid_trick()
    _refused(g, 1, "assign:8H>H", IllegalAction, "wrong_phase")
    _refused(g, 1, "trump:H", IllegalAction, "wrong_phase")
    _refused(g, 1, "swap:pass", IllegalAction, "wrong_phase")


def test_trump_only_by_planner() -> None:
    g = Game.new(CLASSIC, players=4, seed=1, planner=2)
    _refused(g, 1, "trump:H", IllegalAction, "not_your_turn")
    card = texts(g.hands[2])[0]
    _refused(g, 2, f"play:{card}", IllegalAction, "wrong_phase")


def test_assignment_errors() -> None:
    g = _mid_trick()
    play(g, "8H", "9H", "10H")  # seat 3 wins
    _refused(g, 3, "assign:8H>D", IllegalAction, "wrong_job")
    _refused(g, 3, "assign:KS>S", IllegalAction, "not_in_trick")
    _refused(g, 0, "assign:8H>H", IllegalAction, "not_your_turn")
    _refused(g, 3, "play:6C", IllegalAction, "wrong_phase")


def test_no_such_seat() -> None:
    g = _mid_trick()
    for seat in (-1, 4, 99):
        _refused(g, seat, "play:8H", IllegalAction, "no_seat")


def test_game_over_refuses_everything() -> None:
    g = Game.new(CLASSIC, players=3, seed=4)
    while not g.is_over:
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    assert g.to_act == [] and all(g.legal_actions(s) == [] for s in range(3))
    _refused(g, 0, "play:6H", IllegalAction, "game_over")
    _refused(g, 0, "trump:H", IllegalAction, "game_over")


def test_illegal_action_is_action_error() -> None:
    assert issubclass(IllegalAction, ActionError) and issubclass(InvalidAction, ActionError)
    g = _mid_trick()
    with pytest.raises(ActionError):
        g.apply(2, "play:9H")


def test_legal_action_has_no_objection() -> None:
    g = _mid_trick()
    assert g.why_illegal(1, "play:8H") is None
    assert g.is_legal(1, "play:8H") and not g.is_legal(1, "play:9C")
    assert not g.is_legal(1, "nonsense")


@pytest.mark.parametrize("name", ["classic", "kolkhoz", "kolkhoznik", "zone", "original"])
def test_legal_actions_agree_with_apply(name: str) -> None:
    """At every step of random games: each listed action is accepted; a sample of unlisted
    actions of the same seat is refused with IllegalAction and leaves the game unchanged."""
    from engine.actions import N_CODES, Action

    rng = random.Random(name)
    g = Game.new(preset(name), players=4, seed=name)
    steps = 0
    while not g.is_over:
        seat = rng.choice(g.to_act)
        legal = g.legal_actions(seat)
        assert legal
        legal_codes = {a.code for a in legal}
        for _ in range(5):
            other = Action.from_code(rng.randrange(N_CODES))
            if other.code not in legal_codes:
                before = g.to_json()
                with pytest.raises(IllegalAction):
                    g.apply(seat, other)
                assert g.to_json() == before
        for s in range(4):
            if s not in g.to_act:
                assert g.legal_actions(s) == []
        choice = rng.choice(legal)
        probe = g.copy()
        probe.apply(seat, choice)  # every listed action is accepted
        act(g, (seat, str(choice)))
        steps += 1
    assert steps > 20


def test_log_records_only_accepted_actions() -> None:
    g = _mid_trick()
    n = len(g.log)
    with pytest.raises(IllegalAction):
        g.apply(1, "play:9C")
    assert len(g.log) == n
    g.apply(1, "play:8H")
    assert g.log[-1] == (1, "play:8H")


@pytest.mark.parametrize("seat", ["1", 1.0, True, None])
def test_seat_must_be_an_int(seat) -> None:
    g = _mid_trick()
    _refused(g, seat, "play:8H", IllegalAction)
