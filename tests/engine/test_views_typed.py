"""The typed view, cheap copies and determinized games, over seeded playouts of every preset."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from engine import PRESETS, Game, Phase, preset
from engine.ai import default_action
from engine.cards import CARDS, Card, Suit
from engine.views import View
from tests.engine.invariants import check_conservation, secret_cards
from tests.engine.scripted import deal, play

PRESET_NAMES = sorted(PRESETS)


def _playout(name: str, players: int, seed: int):
    """Yield the game before every action of a seeded heuristic-and-random playout."""
    rng = random.Random(seed)
    g = Game.new(preset(name), players, seed)
    while not g.is_over:
        yield g
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        action = legal[rng.randrange(len(legal))] if rng.random() < 0.5 else default_action(g, seat)
        g.apply(seat, action)
    yield g


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_typed_view_round_trip_and_answers(name: str, players: int) -> None:
    for g in _playout(name, players, 11):
        for seat in [None, *range(players)]:
            view = g.view(seat)
            typed = g.typed_view(seat)
            assert typed.to_dict() == view
            assert View.from_dict(json.loads(json.dumps(view)), typed.legal) == typed
            legal = [] if seat is None else g.legal_actions(seat)
            assert list(typed.legal) == legal
            if seat is not None:
                assert typed.forced == g.forced_action(seat)
                me = typed.me
                assert me is not None and me.hand is not None
                assert sorted(c.id for c in me.hand) == sorted(g.hands[seat])
            for p in typed.players:
                shown = sum(c.points for c in p.plot_revealed)
                medals = p.medals if g.rules.medals_score else 0
                assert p.points_in_sight == shown + medals
            for job in typed.jobs:
                for c in range(52):
                    card = CARDS[c]
                    if not card.is_worker:
                        continue
                    assert job.hours_after(card) == job.hours + g.hours_of(c)
                    assert job.completes(card) == (
                        not job.complete and job.hours + g.hours_of(c) >= job.threshold
                    )


def test_job_answers_for_the_trump_jack_and_rewards() -> None:
    """The trump Jack works no hours (nomenklatura); a completing card wins the visible
    rewards with ``reward = brigadier``."""
    g = deal(preset("classic"), 4, 3, trump="S", trump_played=True,
             hands={0: "JS 6H", 1: "KS 7H", 2: "QH 8H", 3: "10S 9H"},
             workers={"S": "KC QC JC"}, rewards={"S": "3S"}, lead=0)
    view = g.typed_view(0)
    spades = view.job(Suit.S)
    jack, ten, king = Card.parse("JS"), Card.parse("10S"), Card.parse("KS")
    assert spades.hours == 36
    assert spades.hours_of(jack) == 0 and spades.hours_after(jack) == 36
    assert not spades.completes(jack) and spades.rewards_won(jack) == ()
    assert spades.hours_after(ten) == 46
    assert spades.completes(ten) and spades.rewards_won(ten) == (Card.parse("3S"),)
    assert view.job("H").hours_after(Card.parse("QH")) == 12
    play(g, "JS", "KS", "QH", "10S")
    assert g.brigadier == 1
    by_card = g.typed_view(1).actions_by_card()
    assert len(by_card[jack]) == 4  # a trump goes to any job
    assert len(by_card[Card.parse("QH")]) == 1
    assert g.typed_view(1).forced == g.forced_action(1)
    assert str(g.forced_action(1)) == "assign:QH>H"
    assert king.suit is Suit.S


def test_copy_is_independent_and_equal() -> None:
    for g in _playout("kolkhoznik", 4, 3):
        if g.is_over:
            break
        c = g.copy()
        assert c == g and c.to_json() == g.to_json()
        seat = c.to_act[0]
        c.apply(seat, c.legal_actions(seat)[0])
        assert c != g or g.phase is Phase.SWAP


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_determinized_game_keeps_what_the_seat_saw(name: str, players: int) -> None:
    rng = random.Random(5)
    for step, g in enumerate(_playout(name, players, 21)):
        if g.is_over or step % 3:
            continue
        seat = g.to_act[0]
        view = g.view(seat)
        d = Game.determinize(view, rng)
        check_conservation(d)
        # Even this year's tricks, with the cards now out of sight in the same places.
        assert d.view(seat) == view
        assert d.legal_actions(seat) == g.legal_actions(seat)
        # What the seat could not see was dealt again: the secret cards are the same set.
        assert secret_cards(d, seat) == secret_cards(g, seat)
        # Voids shown this year are respected.
        for trick in [t["cards"] for t in view["tricks"]] + [view["trick"]]:
            if trick and trick[0][1]:
                led = trick[0][1][-1]
                for s, c in trick[1:]:
                    if c and c[-1] != led and s != seat:
                        assert all("HDCS"[x // 13] != led for x in d.hands[s])
        # The determinized game plays to the end.
        while not d.is_over:
            s = d.to_act[0]
            d.apply_fast(s, default_action(d, s))


def test_determinize_differs_only_in_unseen_cards() -> None:
    g = Game.new(preset("classic"), 4, 8)
    seat = g.to_act[0]
    view = g.view(seat)
    hands = Counter()
    for k in range(40):
        d = Game.determinize(view, random.Random(k))
        hands[tuple(sorted(d.hands[(seat + 1) % 4]))] += 1
        assert d.hands[seat] == g.hands[seat]
    assert len(hands) > 30  # other hands really are dealt anew


def test_determinize_refuses_the_public_view() -> None:
    g = Game.new(preset("zone"), 3, 1)
    with pytest.raises(ValueError):
        Game.determinize(g.view(None), random.Random(1))
