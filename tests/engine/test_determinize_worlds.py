"""The worlds a search deals (engine.determinize): each one is a game the seat cannot tell from
the real one, and it honours what the seat knows of the hidden cards.

The property (a world's view from the seat is the view it was dealt from) over positions of
every preset with 3, 4 and 5 players, also with the house rule ``pass_cards`` (the card a seat
passed, while unseen, in its receiver's hand in every world); Колхозик stacks that need the
same high cards, of one seat or two; and the seed 002 trump lead that tells the leader held
only trumps.
``benchmarks/worlds_check.py`` runs the property over thousands of positions.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from engine import PRESETS, Game, preset
from engine.ai import default_action
from engine.cards import CARD_TEXT, SUIT_OF
from engine.determinize import Determinizer
from tests.engine.invariants import check_conservation, secret_cards
from tests.engine.scripted import assign, cards, deal, play

PRESET_NAMES = sorted(PRESETS)


def _positions(name: str, players: int, seed: int, every: int,
               house: dict[str, bool] | None = None) -> Iterator[tuple[Game, int]]:
    """(game, seat) at every ``every``-th move of a heuristic game with 30% random moves,
    the seat going round the table (whoever is to act or not); ``house``: rules changed."""
    rng = random.Random(seed)
    g = Game.new(replace(preset(name), **(house or {})), players, seed)
    step = 0
    while not g.is_over:
        if step % every == 0:
            yield g, step // every % players
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        g.apply(seat, legal[rng.randrange(len(legal))] if rng.random() < 0.3
                else default_action(g, seat))
        step += 1


def _check_world(world: Game, real: Game, seat: int, view: dict[str, object],
                 det: Determinizer[Game]) -> None:
    check_conservation(world)
    assert world.view(seat) == view
    assert secret_cards(world, seat) == secret_cards(real, seat)
    for s in range(real.n):
        if s != seat:
            assert not any(SUIT_OF[x] in det.voids[s] for x in world.hands[s])
    if det.pass_placed is not None:  # pass_cards: the card sent, unseen since, is received
        receiver, card = det.pass_placed
        assert card == real.passes[seat] and card in world.hands[receiver]
        assert card in real.hands[receiver] or card in real.plots[receiver]


HOUSE = [{}, {"pass_cards": True}, {"pass_cards": True, "hero": True}]


@pytest.mark.parametrize("house", HOUSE,
                         ids=lambda h: "-".join(h) or "preset")
@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_world_looks_to_the_seat_like_the_real_game(name: str, players: int,
                                                          house: dict[str, bool]) -> None:
    """About 35 positions a setup (over 500 in all, each preset also with the pass and with
    the pass and the Hero), 6 worlds each and 50 where two stacks or more hide cards: the
    world's view from the seat is the view it was dealt from, card for card (stacks' tops,
    this year's tricks with the same places out of sight, every count, the card passed and
    received), it keeps every card once, what the seat cannot see is the same set of cards
    and the voids the seat knows of hold; they hold in the real game too."""
    rng = random.Random(players)
    positions = 0
    for g, seat in _positions(name, players, seed=40 + players, every=4, house=house):
        view = g.view(seat)
        det = Determinizer(Game, view)
        for s in range(players):
            if s != seat:  # what the view tells is true of the real game
                assert not any(SUIT_OF[x] in det.voids[s] for x in g.hands[s])
        for _ in range(50 if len(det.stack_fills) > 1 else 6):
            _check_world(det.sample(rng), g, seat, view, det)
        positions += 1
    assert positions >= 20


def _two_high_stacks(owner_of_low: int) -> Game:
    """Колхозник, 5 players, year 1, the 4th trick to be led by seat 4, built like the reported
    position (seed 102, seen from seat 2): a stack topped 9♥ (4 cards above it hidden) taken
    first by
    ``owner_of_low``, then one topped J♠ by seat 4 whose 4 hidden cards are queens and kings.
    Seat 2 sees QC and KC in its hand, so only 6 cards it cannot place rank above J♠: a 9♥
    stack dealt first from everything above 9♥ often leaves fewer than 4 for the J♠ one."""
    rules = preset("kolkhoznik")
    if owner_of_low == 4:
        g = deal(rules, 5, 4, trump="H",
                 hands={0: "9H JS 7C 9D 10S", 1: "10H QS 8D 9C 6S", 2: "JH QD QC KC 6C",
                        3: "QH KD 6D 7D 8C", 4: "KH KS 10D JD 10C"})
        play(g, "KH", "9H", "10H", "JH", "QH")  # seat 4 wins with the top trump
        assign(g, "KH>H", "9H>H", "10H>H", "JH>H", "QH>H")  # ♥ complete: a stack, 9H on top
        play(g, "KS", "JS", "QS", "QD", "KD")  # seats 2 and 3 show out of spades
        assign(g, "KS>S", "JS>S", "QS>S", "QD>S", "KD>S")  # ♠ complete: JS on top
        play(g, "10D", "9D", "8D", "6C", "7D")
        assign(g, "10D>D", "9D>D", "8D>D", "6C>C", "7D>C")  # nothing completes
    else:
        assert owner_of_low == 3
        g = deal(rules, 5, 3, trump="H",
                 hands={0: "10H QS 9D 7C 10S", 1: "JH QD 8D 6D JC", 2: "QH KD QC KC 6C",
                        3: "KH JS 7D 8C 10C", 4: "9H KS 10D 9C 6S"})
        play(g, "KH", "9H", "10H", "JH", "QH")  # seat 3 wins
        assign(g, "KH>H", "9H>H", "10H>H", "JH>H", "QH>H")
        play(g, "JS", "KS", "QS", "QD", "KD")  # seat 4 wins with the top spade
        assign(g, "JS>S", "KS>S", "QS>S", "QD>S", "KD>S")
        play(g, "10D", "9D", "8D", "6C", "7D")  # seat 4 wins
        assign(g, "10D>D", "9D>D", "8D>D", "6C>C", "7D>C")
    assert g.year == 1 and g.tricks_done == 3 and g.to_act == [4]
    tops = sorted((CARD_TEXT[st[0]], len(st)) for s in range(5) for st in g.stacks[s])
    assert tops == [("9H", 5), ("JS", 5)]
    return g


@pytest.mark.parametrize("owner_of_low", [4, 3], ids=["one seat", "two seats"])
def test_stacks_needing_the_same_high_cards_keep_their_tops(owner_of_low: int) -> None:
    """Filled one after another in the order they were taken, the 9♥ stack took the queens
    and kings the J♠ stack needed, which then got a lower card on top in one world in seven
    (56 of these 400); filled highest top first, every world keeps both tops."""
    g = _two_high_stacks(owner_of_low)
    seat = 2
    view = g.view(seat)
    det = Determinizer(Game, view)
    rng = random.Random(102)
    high = set(cards("QH QD QS KH KD KS"))
    spade_stack_high = 0
    for _ in range(400):
        world = det.sample(rng)
        _check_world(world, g, seat, view, det)
        assert sorted(CARD_TEXT[st[0]] for s in range(5) for st in world.stacks[s]) == \
            ["9H", "JS"]
        spade_stack_high += set(world.stacks[4][-1][1:]) <= high
    assert spade_stack_high == 400  # the J♠ stack always holds 4 of the 6 cards above it


def test_a_view_whose_stacks_cannot_be_filled_is_refused() -> None:
    """No world keeps a stack's top when too few cards the seat cannot place rank above it:
    such a view is not of a real game, and the determinizer says so instead of dealing a
    world with another top."""
    g = _two_high_stacks(4)
    view = g.view(2)
    view["players"][4]["stacks"][1] = ["KS", None, None, None, None]
    with pytest.raises(ValueError, match="stacks"):
        Determinizer(Game, view)


def _trump_led_first() -> Game:
    """Classic, 4 players, spades trump and none played yet: seat 0, holding only spades,
    leads one (it may: nothing else in hand), then seat 1 follows."""
    g = deal(preset("classic"), 4, 3, trump="S",
             hands={0: "6S 7S 8S QS KS", 1: "9S 6H 7H 8H 9H", 2: "10H JH QH KH 6D",
                    3: "7D 8D 9D 10D JD"})
    assert g.to_act == [0] and not g.trump_played
    play(g, "7S", "9S")
    return g


def test_a_trump_led_before_any_was_played_means_only_trumps() -> None:
    """With ``trump_lead_restricted`` a trump led before any trump was played this year tells
    every seat that the leader held nothing else: its hand is all trumps in every world."""
    g = _trump_led_first()
    for seat in (1, 2, 3):
        view = g.view(seat)
        det = Determinizer(Game, view)
        assert det.voids[0] == {0, 1, 2}
        rng = random.Random(seat)
        for _ in range(200):
            world = det.sample(rng)
            _check_world(world, g, seat, view, det)
            assert all(SUIT_OF[x] == 3 for x in world.hands[0])
    # Still so in the next trick, and until the year ends: the cards it holds were in that hand.
    play(g, "10H", "8D")
    assign(g, "7S>S", "9S>S", "10H>H", "8D>D")
    assert g.to_act == [1]
    play(g, "6H", "JH", "7D", "KS")  # seat 0 shows out of hearts
    det = Determinizer(Game, g.view(2))
    assert det.voids[0] == {0, 1, 2}
    world = det.sample(random.Random(5))
    assert all(SUIT_OF[x] == 3 for x in world.hands[0])


def test_a_trump_led_after_a_trump_was_played_tells_nothing() -> None:
    """Once a trump was played this year anyone may lead trump: no void follows; nor without
    the restriction (seed 001's presets); nor when a card out of sight in an earlier trick
    (now in a stack) may have been a trump."""
    g = deal(preset("classic"), 4, 3, trump="S",
             hands={0: "6H 7S 8C QD KS", 1: "9S 10S 7C 8D 9C", 2: "10H JH QH KH 6D",
                    3: "7D 8H 9D 10D JD"})
    play(g, "6H", "9S", "10H", "8H")  # seat 1 trumps a heart (a void in hearts shown)
    assign(g, "6H>H", "9S>S", "10H>H", "8H>H")
    play(g, "10S")  # seat 1 leads a trump, holding 7C 8D 9C too
    assert Determinizer(Game, g.view(2)).voids[1] == {0}
    # The same lead in a game without the restriction (kolkhoz) tells nothing.
    free = deal(preset("kolkhoz"), 4, 0, trump="S",
                hands={0: "6S 7H 8C QD KS", 1: "9S 6C 7C 8D 9H", 2: "10H JH QH KH 6D",
                       3: "7D 8H 9D 10D JD"})
    play(free, "6S")
    assert Determinizer(Game, free.view(1)).voids[0] == set()
    # Колхозник with the restriction: the first trick, trumped by seat 3, completes ♦ and
    # becomes seat 3's stack (JD on top, QH among the hidden cards); seat 3 then leads a
    # trump, holding other suits. Seat 1 saw QH, but its view no longer shows it.
    rules = replace(preset("kolkhoznik"), trump_lead_restricted=True)
    g = deal(rules, 4, 0, trump="H",
             hands={0: "KD 6C 7C 8C 9C", 1: "QD 6S 7S 8S 9S", 2: "JD 10C JC QC KC",
                    3: "QH KH 6H 10S JS"})
    play(g, "KD", "QD", "JD", "QH")
    assign(g, "KD>D", "QD>D", "JD>D", "QH>D")
    assert [CARD_TEXT[x] for x in g.stacks[3][0]] == ["JD", "QH", "QD", "KD"]
    play(g, "KH")
    view = g.view(1)
    assert view["trump_played"] and view["tricks"][0]["cards"][3] == [3, None]
    det = Determinizer(Game, view)
    assert det.voids[3] == set()
    rng = random.Random(3)
    for _ in range(50):
        _check_world(det.sample(rng), g, 1, view, det)
