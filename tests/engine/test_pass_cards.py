"""RULES.md revision 4, "One year" step 5: the pass (house rule ``pass_cards``).

From year 2 on, after trump (straight after the deal in a lean year) and before the swap, every
player chooses one card of their hand face-down, simultaneously and independently; when all
have chosen every card moves at once, to the left neighbour (seat + 1) in even years and to the
right one (seat - 1) in odd years. A passed card is known to its sender and its receiver only.
"""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine import PRESETS, Action, ActionKind, Game, IllegalAction, InvalidAction, Phase, preset
from engine import events as ev
from engine.actions import N_CODES, PASSES, SWAP_PASS_CODE
from engine.ai import LEVELS, AIPlayer, Reason, default_action
from engine.ai.heuristic import decide, describe
from engine.cards import CARD_TEXT, CARDS, SUIT_OF
from engine.determinize import Determinizer
from engine.views import View
from tests.engine.invariants import check_conservation, check_view, secret_cards
from tests.engine.oracle import checked_apply, requisition_snapshots
from tests.engine.scripted import (
    act,
    c,
    cards,
    deal,
    events_of,
    hidden_texts,
    play,
    stexts,
)

CLASSIC = dataclasses.replace(preset("classic"), pass_cards=True)  # no swap, left of planner
KOLKHOZ = dataclasses.replace(preset("kolkhoz"), pass_cards=True)  # swap on, planner leads

HANDS = {
    0: "6H 7H 8H 9H 10H",
    1: "6D 7D 8D 9D 10D",
    2: "6C 7C 8C 9C 10C",
    3: "6S 7S 8S 9S 10S",
    4: "JH QH JD QD JC",
}
#: The card each seat passes.
PASSED = {0: "9H", 1: "7D", 2: "10C", 3: "8S", 4: "QD"}
#: Which card ends in which hand: by players, then year parity (even: left, odd: right).
AFTER = {
    (3, "even"): {0: "6H 7H 8H 10H 10C", 1: "6D 8D 9D 10D 9H", 2: "6C 7C 8C 9C 7D"},
    (3, "odd"): {0: "6H 7H 8H 10H 7D", 1: "6D 8D 9D 10D 10C", 2: "6C 7C 8C 9C 9H"},
    (4, "even"): {0: "6H 7H 8H 10H 8S", 1: "6D 8D 9D 10D 9H", 2: "6C 7C 8C 9C 7D",
                  3: "6S 7S 9S 10S 10C"},
    (4, "odd"): {0: "6H 7H 8H 10H 7D", 1: "6D 8D 9D 10D 10C", 2: "6C 7C 8C 9C 8S",
                 3: "6S 7S 9S 10S 9H"},
    (5, "even"): {0: "6H 7H 8H 10H QD", 1: "6D 8D 9D 10D 9H", 2: "6C 7C 8C 9C 7D",
                  3: "6S 7S 9S 10S 10C", 4: "JH QH JD JC 8S"},
    (5, "odd"): {0: "6H 7H 8H 10H 7D", 1: "6D 8D 9D 10D 10C", 2: "6C 7C 8C 9C 8S",
                 3: "6S 7S 9S 10S QD", 4: "JH QH JD JC 9H"},
}


def _year(players: int, year: int, rules: Any = CLASSIC, **kw: Any) -> Game:
    """A normal year ``year`` of ``players`` seats, seat 0 the Planner, waiting for trump."""
    return deal(rules, players, 0, year=year, phase="trump",
                hands={s: HANDS[s] for s in range(players)}, **kw)


def _pass_all(g: Game, order: list[int] | None = None) -> list[Any]:
    events: list[Any] = []
    for s in order if order is not None else list(range(g.n)):
        events += act(g, (s, f"pass:{PASSED[s]}"))
    return events


# ---------------------------------------------------------------------- the actions


def test_the_pass_action_text_codes_and_constructor() -> None:
    """``pass:9H`` is a card passed; ``swap:pass`` stays "no swap"; the codes of every earlier
    action are unchanged, the 52 passes come after them."""
    a = Action.parse("pass:9H")
    assert a.kind is ActionKind.PASS and a.card == CARDS[c("9H")] and str(a) == "pass:9H"
    assert a is Action.pass_card(c("9H")) is Action.pass_card(CARDS[c("9H")]) is PASSES[c("9H")]
    assert Action.parse("pass:T♥") is Action.parse("pass:10H")
    assert a.code == SWAP_PASS_CODE + 1 + c("9H") and N_CODES == SWAP_PASS_CODE + 1 + 52
    assert SWAP_PASS_CODE == 4 + 52 + 52 * 4 + 52 * 52  # as before the pass existed
    assert Action.parse("swap:pass") is Action.swap_pass()
    assert Action.swap_pass().kind is ActionKind.SWAP
    assert Action.from_code(a.code) is a
    for bad in ("pass", "pass:", "pass:pass", "pass:1H", "pass:9H<KC"):
        with pytest.raises(InvalidAction):
            Action.parse(bad)


# ---------------------------------------------------------------------- where it comes


def test_no_pass_in_year_one() -> None:
    g = Game.new(CLASSIC, 4, seed=3, planner=0)
    assert g.year == 1 and g.phase is Phase.TRUMP
    act(g, "trump:S")
    assert g.phase is Phase.PLAY and g.to_act == [1]
    assert g.passes == [] and g.pass_pending == []


def test_no_pass_when_the_rule_is_off() -> None:
    g = _year(4, 2, preset("classic"))
    act(g, "trump:S")
    assert g.phase is Phase.PLAY and g.to_act == [1]


def test_the_pass_after_trump_from_year_two() -> None:
    g = _year(4, 2)
    events = act(g, "trump:S")
    assert g.phase is Phase.PASS
    assert g.to_act == [0, 1, 2, 3] and g.pass_pending == [0, 1, 2, 3]
    assert not events_of(events, ev.PassChosen)
    assert {str(a) for a in g.legal_actions(2)} == {f"pass:{t}" for t in HANDS[2].split()}


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("year", [2, 3, 4, 5], ids=lambda y: f"year{y}")
def test_every_card_moves_at_once_left_in_even_years_right_in_odd(players: int,
                                                                   year: int) -> None:
    """Choices in any order, nothing moves until the last; then exactly the expected hands."""
    g = _year(players, year)
    act(g, "trump:S")
    order = list(reversed(range(players)))
    for k, s in enumerate(order):
        before = [h[:] for h in g.hands]
        events = act(g, (s, f"pass:{PASSED[s]}"))
        if k < players - 1:
            assert [type(e) for e in events] == [ev.PassChosen] and events[0].seat == s
            assert g.hands == before  # the choice stays face-down until everyone has chosen
            assert g.phase is Phase.PASS and g.to_act == sorted(order[k + 1:])
    (moved,) = events_of(events, ev.CardsPassed)
    assert moved == ev.CardsPassed(year, year % 2 == 0)
    expected = AFTER[(players, "even" if year % 2 == 0 else "odd")]
    assert {s: stexts(g.hands[s]) for s in range(players)} == {
        s: stexts(cards(t)) for s, t in expected.items()}
    assert all(h == sorted(h) for h in g.hands)
    assert all(len(h) == 5 for h in g.hands)  # hand sizes do not change
    assert g.phase is Phase.PLAY and g.to_act == [1]  # classic: left of the Planner leads
    assert g.pass_pending == []


def test_the_pass_in_a_lean_year_comes_straight_after_the_deal() -> None:
    """Five players: year 3 deals 4 cards, a lean year with no trump; the pass comes at once
    (year 3 is odd: to the right) and then the tricks."""
    g = Game.new(CLASSIC, 5, seed=1)
    while g.year < 3:
        seat = g.to_act[0]
        events = g.apply(seat, default_action(g, seat))
    (started,) = events_of(events, ev.YearStarted)
    assert started.year == 3 and started.lean and started.hand_size == 4
    assert g.trump is None and g.phase is Phase.PASS and g.to_act == [0, 1, 2, 3, 4]
    hands = [h[:] for h in g.hands]
    chosen = {s: hands[s][s % 4] for s in range(5)}
    for s in (2, 0, 4, 1, 3):
        events = g.apply(s, Action.pass_card(chosen[s]))
    assert events_of(events, ev.CardsPassed) == [ev.CardsPassed(3, False)]
    for s in range(5):
        giver = (s + 1) % 5  # odd year: every card goes right, so each comes from the left
        assert sorted(g.hands[s]) == sorted([x for x in hands[s] if x != chosen[s]]
                                            + [chosen[giver]])
    assert g.phase is Phase.PLAY


def test_a_scripted_lean_year_passes_too() -> None:
    g = deal(CLASSIC, 4, 0, year=4, hand_size=4, phase="pass",
             hands={0: "6H 7H 8H 9H", 1: "6D 7D 8D 9D", 2: "6C 7C 8C 9C", 3: "6S 7S 8S 9S"})
    assert g.lean and g.trump is None and g.to_act == [0, 1, 2, 3]
    act(g, (0, "pass:6H"), (1, "pass:9D"), (2, "pass:7C"), (3, "pass:8S"))
    assert stexts(g.hands[1]) == stexts(cards("6D 7D 8D 6H"))  # year 4: to the left
    assert stexts(g.hands[0]) == stexts(cards("7H 8H 9H 8S"))
    assert g.phase is Phase.PLAY


def test_the_pass_then_the_swap() -> None:
    """With ``swap`` the swap follows the pass, and a card received may be swapped."""
    g = _year(4, 2, KOLKHOZ, plots={0: "KH", 1: "KD", 2: "KC", 3: "KS"})
    act(g, "trump:S")
    assert g.phase is Phase.PASS
    events = _pass_all(g, [1, 3, 0, 2])
    assert events_of(events, ev.CardsPassed) == [ev.CardsPassed(2, True)]
    assert g.phase is Phase.SWAP and g.to_act == [0, 1, 2, 3]
    # Seat 1 received 9H from seat 0 and hides it in its plot for KD.
    assert "swap:9H<KD" in {str(a) for a in g.legal_actions(1)}
    act(g, (1, "swap:9H<KD"), (0, "swap:pass"), (2, "swap:pass"), (3, "swap:pass"))
    assert g.phase is Phase.PLAY and g.to_act == [0]  # kolkhoz: the Planner leads
    assert "9H" in hidden_texts(g, 1) and "KD" in stexts(g.hands[1])
    play(g, "6H", "KD")  # the card received and swapped is played like any other


def test_a_real_game_passes_every_year_from_the_second() -> None:
    g = Game.new(KOLKHOZ, 4, seed=21, planner=0)
    seen: list[int] = []
    while not g.is_over:
        seat = g.to_act[0]
        for e in g.apply(seat, default_action(g, seat)):
            if isinstance(e, ev.CardsPassed):
                seen.append(e.year)
                assert e.left == (e.year % 2 == 0)
    assert seen == list(range(2, g.year + 1)) and len(seen) >= 3


# ---------------------------------------------------------------------- refused


def test_illegal_passes_are_refused_and_change_nothing() -> None:
    g = _year(4, 2)
    before_trump = g.to_json()
    err = g.why_illegal(1, "pass:7D")  # before trump: only the Planner acts
    assert err is not None and err.reason == "not_your_turn"
    err = g.why_illegal(0, "pass:9H")
    assert err is not None and err.reason == "wrong_phase"
    assert g.to_json() == before_trump
    act(g, "trump:S")
    act(g, (0, "pass:9H"))
    before = g.to_json()
    cases = [
        (1, "pass:9H", "not_in_hand"),  # another seat's card
        (1, "pass:KS", "not_in_hand"),  # in the deck
        (0, "pass:7H", "already_chosen"),  # a second choice
        (0, "pass:9H", "already_chosen"),  # the same one again
        (1, "play:7D", "wrong_phase"),
        (1, "swap:pass", "wrong_phase"),
        (1, "trump:H", "wrong_phase"),
    ]
    for seat, text, reason in cases:
        assert not g.is_legal(seat, text)
        err = g.why_illegal(seat, text)
        assert err is not None and err.reason == reason, (seat, text, err)
        with pytest.raises(IllegalAction) as raised:
            g.apply(seat, text)
        assert raised.value.reason == reason
        assert g.to_json() == before
    assert g.legal_actions(0) == []
    act(g, (1, "pass:7D"), (2, "pass:10C"), (3, "pass:8S"))
    assert g.phase is Phase.PLAY
    played = g.to_json()
    err = g.why_illegal(1, "pass:6D")  # outside the phase, the seat to play
    assert err is not None and err.reason == "wrong_phase"
    err = g.why_illegal(2, "pass:6C")  # outside the phase, another seat
    assert err is not None and err.reason == "not_your_turn"
    for seat, text in ((1, "pass:6D"), (2, "pass:6C"), (0, "pass:6H")):
        with pytest.raises(IllegalAction):
            g.apply(seat, text)
    assert g.to_json() == played


# ---------------------------------------------------------------------- events and views


def _card_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value in CARD_TEXT else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _card_strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _card_strings(v)]
    return []


def test_events_of_the_pass_name_no_card() -> None:
    g = _year(4, 3)
    act(g, "trump:S")
    events = _pass_all(g)
    assert [type(e) for e in events] == [ev.PassChosen] * 4 + [ev.CardsPassed]
    assert ev.PassChosen._fields == ("seat",)
    assert ev.CardsPassed._fields == ("year", "left")
    for e in events:
        assert not _card_strings(ev.event_to_dict(e))
    assert ev.event_to_dict(events[-1]) == {"type": "CardsPassed", "year": 3, "left": False}


def test_views_before_the_move_show_only_the_own_choice_and_who_chose() -> None:
    g = _year(4, 2)
    act(g, "trump:S")
    act(g, (2, "pass:10C"), (0, "pass:9H"))
    public = g.view(None)
    assert public["pass_pending"] == [1, 3] and public["to_act"] == [1, 3]
    assert all(p["pass_sent"] is None and p["pass_received"] is None
               for p in public["players"])
    for seat in range(4):
        view = check_view(g, seat)
        assert view["pass_pending"] == [1, 3]
        mine = view["players"][seat]
        assert mine["pass_sent"] == {0: "9H", 2: "10C"}.get(seat)
        assert mine["pass_received"] is None
        assert mine["hand"] == HANDS[seat].split()  # the chosen card is still in the hand
        for p in view["players"]:
            if p["seat"] != seat:
                assert p["pass_sent"] is None and p["pass_received"] is None
        typed = g.typed_view(seat)
        assert typed.to_dict() == view
        assert typed.pass_pending == (1, 3)
        assert typed.me is not None
        assert typed.me.pass_sent == (None if mine["pass_sent"] is None
                                      else CARDS[c(mine["pass_sent"])])
        assert typed.pass_to == (seat + 1) % 4 and typed.pass_from == (seat - 1) % 4
        if seat in (1, 3):
            hand = {CARDS[x] for x in cards(HANDS[seat])}
            assert typed.passable == hand
            assert typed.actions_by_card() == {card: (Action.pass_card(card),)
                                               for card in hand}
        else:
            assert typed.passable == frozenset() and typed.actions_by_card() == {}
    assert g.typed_view(None).pass_to is None


def test_after_the_move_sender_and_receiver_know_the_card_nobody_else() -> None:
    g = _year(4, 3)  # odd year: to the right
    act(g, "trump:S")
    _pass_all(g)
    # Seat 1 sent 7D to seat 0; seat 2 sent 10C to seat 1.
    public = g.view(None)
    assert public["pass_pending"] == []
    assert not {"7D", "10C", "9H", "8S"} & set(_card_strings(public))
    for seat in range(4):
        view = check_view(g, seat)  # no card the seat may not see, the sent one aside
        mine = view["players"][seat]
        assert mine["pass_sent"] == PASSED[seat]
        assert mine["pass_received"] == PASSED[(seat + 1) % 4]
        assert g.typed_view(seat).to_dict() == view
        assert View.from_dict(json.loads(json.dumps(view)), g.legal_actions(seat)) == \
            g.typed_view(seat)
    # 7D went from seat 1 to seat 0: seats 2 and 3 do not see it anywhere.
    for seat in (2, 3):
        assert "7D" not in _card_strings(g.view(seat))
        assert "7D" in secret_cards(g, seat)
    assert "7D" not in secret_cards(g, 1)  # its sender knows it
    # Once the cards are played the pass stays in the own entry for the rest of the year.
    play(g, "6D")
    assert g.view(1)["players"][1]["pass_sent"] == "7D"


def test_a_view_stored_before_the_pass_existed_still_reads() -> None:
    g = Game.new(preset("classic"), 4, seed=5)
    view = g.view(1)
    del view["pass_pending"]
    for p in view["players"]:
        del p["pass_sent"], p["pass_received"]
    typed = View.from_dict(view, g.legal_actions(1))
    assert typed.pass_pending == () and typed.me is not None and typed.me.pass_sent is None
    assert typed.to_dict() == g.view(1)


# ---------------------------------------------------------------------- snapshots and replay


def test_a_snapshot_stored_before_the_pass_existed_loads() -> None:
    g = Game.new(preset("kolkhoz"), 4, seed=9)
    for _ in range(7):
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
    data = json.loads(json.dumps(g.to_json()))
    del data["state"]["pass_pending"], data["state"]["passes"]
    del data["rules"]["pass_cards"]
    restored = Game.from_json(data)
    assert restored == g and restored.passes == [] and restored.pass_pending == []


def test_snapshots_round_trip_in_the_middle_of_the_pass() -> None:
    g = _year(4, 2, KOLKHOZ, plots={0: "KH", 1: "KD", 2: "KC", 3: "KS"})
    act(g, "trump:S", (3, "pass:8S"), (1, "pass:7D"))
    data = g.to_json()
    assert data["state"]["pass_pending"] == [0, 2]
    assert data["state"]["passes"] == [None, "7D", None, "8S"]
    fork = Game.from_json(json.loads(json.dumps(data)))
    assert fork == g and fork.to_json() == data
    for seat in [None, 0, 1, 2, 3]:
        assert fork.view(seat) == g.view(seat)
    for seat, text in ((2, "pass:10C"), (0, "pass:9H"), (0, "swap:pass")):
        assert fork.apply(seat, text) == g.apply(seat, text)
        assert fork == g
    assert fork.view(1) == g.view(1)


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games_with_the_pass_finish_replay_and_keep_the_rules(name: str,
                                                                     players: int) -> None:
    """Every preset × 3/4/5 players with ``pass_cards`` on (and the Hero on too in every
    other game): every step held against the oracle, cards conserved and views leak-free;
    the log replays the game, and a snapshot taken during a pass plays on identically."""
    for seed in range(4):
        rules = dataclasses.replace(preset(name), pass_cards=True, hero=seed % 2 == 1)
        rng = random.Random(f"pass/{name}/{players}/{seed}")
        g = Game.new(rules, players, seed)
        fork: Game | None = None
        passes = 0
        with requisition_snapshots() as snapshots:
            while not g.is_over:
                seat = rng.choice(g.to_act)
                legal = g.legal_actions(seat)
                action = (legal[rng.randrange(len(legal))] if seed % 2 == 0
                          else default_action(g, seat))
                if fork is None and g.phase is Phase.PASS and len(g.pass_pending) < players:
                    fork = Game.from_json(json.loads(json.dumps(g.to_json())))
                events = checked_apply(g, seat, action, snapshots)
                if fork is not None:
                    assert fork.apply(seat, action) == events
                passes += len(events_of(events, ev.CardsPassed))
                check_conservation(g)
                if g.phase is Phase.PASS or events_of(events, ev.CardsPassed):
                    for s in [None, *range(players)]:
                        check_view(g, s)
        assert passes == g.year - 1 and passes >= 1
        assert g.winners()
        assert Game.replay(rules, players, seed, g.log, planner=g.planner0) == g
        assert fork is not None and fork == g


# ---------------------------------------------------------------------- determinized worlds


def _sent_card_placed(g: Game, seat: int, samples: int, rng: random.Random) -> int:
    """Deal worlds from ``seat``'s view: each looks to the seat like the real game; returns
    how many had the card the seat sent in its receiver's hand."""
    view = g.view(seat)
    det = Determinizer(Game, view)
    sent = g.passes[seat]
    receiver = (seat + 1) % g.n if g.year % 2 == 0 else (seat - 1) % g.n
    placed = 0
    for _ in range(samples):
        world = det.sample(rng)
        check_conservation(world)
        assert world.view(seat) == view
        assert secret_cards(world, seat) == secret_cards(g, seat)
        placed += sent in world.hands[receiver]
    return placed


def test_worlds_put_the_card_sent_in_the_receivers_hand() -> None:
    g = _year(4, 2)
    act(g, "trump:S")
    _pass_all(g)
    rng = random.Random(1)
    for seat in range(4):
        assert _sent_card_placed(g, seat, 100, rng) == 100
    # Seat 0's 9H went to seat 1, which leads it: seen on the table, it is placed no more.
    play(g, "9H")
    assert Determinizer(Game, g.view(0)).pass_placed is None
    assert _sent_card_placed(g, 0, 20, rng) == 0
    assert _sent_card_placed(g, 2, 50, rng) == 50  # 7D, sent by seat 2, is still unseen


def test_worlds_while_the_cards_are_chosen() -> None:
    """In the pass phase the seats that chose hold their choice in their dealt hand; the
    seat's own choice is its own; the worlds play on to the move and look the same."""
    g = _year(5, 2)
    act(g, "trump:S", (3, "pass:8S"), (0, "pass:9H"))
    view = g.view(0)
    det = Determinizer(Game, view)
    rng = random.Random(2)
    for _ in range(100):
        world = det.sample(rng)
        assert world.view(0) == view
        assert world.passes[0] == c("9H") and world.passes[1] is None
        assert world.passes[3] in world.hands[3]
        for s in (1, 2, 4):
            world.apply(s, default_action(world, s))
        assert world.phase is Phase.PLAY and c("9H") in world.hands[1]
        check_conservation(world)


def test_a_card_sent_then_hidden_by_a_receiver_who_shows_out_of_its_suit_is_left_free() -> None:
    """Kolkhoz with the swap: seat 0 passes 9H to seat 1, which swaps it into its plot and
    later shows out of hearts. From seat 0's view 9H is not in seat 1's hand (the void is a
    hard fact), so the worlds leave it free; each still looks to seat 0 like the real game."""
    g = _year(4, 2, KOLKHOZ, plots={0: "KH", 1: "KD", 2: "KC", 3: "KS"})
    act(g, "trump:S")
    _pass_all(g)
    act(g, (1, "swap:9H<KD"), (0, "swap:pass"), (2, "swap:pass"), (3, "swap:pass"))
    play(g, "6H", "KD")  # seat 1 shows out of hearts
    view = g.view(0)
    det = Determinizer(Game, view)
    assert 0 in det.voids[1] and det.pass_placed is None
    rng = random.Random(3)
    in_plot = 0
    for _ in range(200):
        world = det.sample(rng)
        assert world.view(0) == view
        assert c("9H") not in world.hands[1]
        in_plot += c("9H") in world.plots[1]
    assert 0 < in_plot < 200  # anywhere unseen: sometimes the plot it really went to


@pytest.mark.parametrize("name", sorted(PRESETS))
@pytest.mark.parametrize("players", [3, 4, 5])
def test_worlds_from_games_with_the_pass(name: str, players: int) -> None:
    """Positions of heuristic games with 30% random moves: every world dealt from a seat's
    view is a view-for-view copy to that seat, and the card it sent this year, while unseen,
    is in its receiver's hand in every world (or left free when a void or a stack says it
    may not be)."""
    rules = dataclasses.replace(preset(name), pass_cards=True)
    rng = random.Random(players)
    g = Game.new(rules, players, seed=60 + players)
    step = placed = 0
    while not g.is_over:
        if step % 3 == 0 and g.year >= 2:
            seat = step // 3 % players
            view = g.view(seat)
            det = Determinizer(Game, view)
            for _ in range(5):
                world = det.sample(rng)
                check_conservation(world)
                assert world.view(seat) == view
                assert secret_cards(world, seat) == secret_cards(g, seat)
                if det.pass_placed is not None:
                    receiver, card = det.pass_placed
                    assert card == g.passes[seat] and card in world.hands[receiver]
                    assert card in g.hands[receiver] or card in g.plots[receiver]
                    placed += 1
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[rng.randrange(len(legal))] if rng.random() < 0.3
                else default_action(g, seat))
        step += 1
    assert placed > 0


# ---------------------------------------------------------------------- the AI players


def test_the_heuristic_passes_a_low_side_card() -> None:
    g = deal(CLASSIC, 4, 0, year=2, phase="trump",
             hands={0: "6S 7H KH QD 8C", 1: "7D 8H 7C QS KS", 2: "6H 9H 6C 10C JC",
                    3: "8D 9D 10D JD JS"})
    act(g, "trump:S")
    choice = {s: decide(g, s) for s in range(4)}
    assert {s: str(a) for s, (a, _) in choice.items()} == {
        0: "pass:7H",  # 6S is a trump: kept
        1: "pass:7D",  # 7D and 7C: the same points, diamonds the shorter suit (a void)
        2: "pass:6H",  # 6H and 6C: hearts the shorter suit
        3: "pass:8D",  # the lowest side card
    }
    assert all(reason is Reason.PASS_LOW for _, reason in choice.values())
    assert describe(g, 0, Action.parse("pass:KH")) is Reason.PASS_CARD
    assert describe(g, 0, Action.parse("pass:7H")) is Reason.PASS_LOW


@pytest.mark.parametrize("level", LEVELS)
def test_every_ai_level_passes_a_chosen_card_not_a_random_one(level: str) -> None:
    """The ``random`` level too passes the heuristic's card; the search levels search it.
    Each gives a legal pass with a reason, whatever its seed."""
    g = deal(CLASSIC, 4, 0, year=2, phase="trump",
             hands={0: "6S 7H KH QD 8C", 1: "7D 8H 7C QS KS", 2: "6H 9H 6C 10C JC",
                    3: "8D 9D 10D JD JS"})
    act(g, "trump:S")
    for seed in range(8):
        ai = AIPlayer(level, seed=seed, iterations=8 if level in ("strong", "hard") else None)
        advice = ai.advise(g.view(0))
        assert advice.action in g.legal_actions(0)
        assert isinstance(advice.reason, Reason)
        if level in ("random", "normal"):
            assert advice.action == Action.parse("pass:7H") and advice.reason is Reason.PASS_LOW


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_level_plays_a_game_with_the_pass_on_views_alone(players: int) -> None:
    """AI players of every level round the table, each asked on its own view only; the normal
    level's choice is the heuristic's on the real game at every decision."""
    g = Game.new(dataclasses.replace(preset("kolkhoz"), pass_cards=True), players, seed=players)
    ais = [AIPlayer(LEVELS[(s + players) % len(LEVELS)], seed=s,
                iterations=2 if LEVELS[(s + players) % len(LEVELS)] in ("strong", "hard")
                else None) for s in range(players)]
    normal = AIPlayer("normal")
    phases = set()
    while not g.is_over:
        seat = g.to_act[-1]
        view = g.view(seat)
        assert normal.choose(view) == default_action(g, seat)
        action = ais[seat].choose(view)
        assert action in g.legal_actions(seat)
        phases.add(g.phase)
        g.apply(seat, action)
    assert Phase.PASS in phases and g.winners()


def test_the_search_plays_out_a_pass() -> None:
    """A search level's playouts get through the pass of the others (the seat to pass
    first in every world, the rest chosen in the playout)."""
    g = _year(4, 2)
    act(g, "trump:S", (1, "pass:7D"))
    advice = AIPlayer("strong", seed=1, iterations=12).advise(g.view(2))
    assert advice.action in g.legal_actions(2)
    assert advice.value is not None and advice.worlds > 0
    check_conservation(g)
    assert SUIT_OF[advice.action.card_id] in range(4)
