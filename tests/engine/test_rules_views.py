"""RULES.md "Hidden information" (MUST): what view(seat) and view(None) show."""

from __future__ import annotations

import json

import pytest

from engine import Game, preset
from engine import events as ev
from engine.ai import default_action
from engine.events import event_to_dict
from tests.engine.scripted import act, assign, cards, deal, events_of, play, stexts, texts

CLASSIC = preset("classic")


def _scene() -> Game:
    """Mid-trick in year 2: plots with face-up and face-down cards, jobs with workers,
    visible rewards, piles and a deck."""
    return deal(
        CLASSIC, 4, 3, year=2, trump="D",
        hands={0: "6H 7H 8H", 1: "6C 7C", 2: "8C 9C 10C", 3: "6S 7S 8S"},
        trick=[(1, "9H")],
        lead=1,
        plots={0: "KH AS", 1: "QC JC", 2: "KS", 3: "10S 9S"},
        face_up="QC 10S",
        workers={"H": "10H", "S": "JS QS"},
        rewards={"H": "2H", "S": "4S"},
        medals={1: 2, 3: 1},
        brigadiers=(3,),
    )


def _secret(g: Game, seat: int | None) -> set[str]:
    hidden = set(g.deck)
    for pile in g.reward_piles:
        hidden.update(pile)
    for s in range(g.n):
        if s != seat:
            hidden.update(g.hands[s])
            hidden.update(x for x in g.plots[s] if x not in g.face_up)
    return set(texts(hidden))


def _strings(obj) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= _strings(k) | _strings(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            out |= _strings(v)
    return out


def test_own_hand_and_counts_of_others() -> None:
    """A player sees their own hand and how many cards each player holds — no other hand."""
    g = _scene()
    v = g.view(0)
    players = v["players"]
    assert players[0]["hand"] == ["6H", "7H", "8H"]
    for s in (1, 2, 3):
        assert players[s]["hand"] is None
    assert [p["hand_count"] for p in players] == [3, 2, 3, 3]


def test_own_whole_plot_and_others_face_up_only() -> None:
    """Own whole plot; every face-up card in every plot; others' face-down: only the count."""
    g = _scene()
    v = g.view(3)
    me = v["players"][3]
    assert sorted(me["plot_hidden"]) == ["9S"] and me["plot_revealed"] == ["10S"]
    other = v["players"][1]
    assert other["plot_revealed"] == ["QC"] and other["plot_hidden"] == 1
    assert v["players"][0]["plot_revealed"] == ["AS"]  # reward cards are face-up
    assert v["players"][0]["plot_hidden"] == 1
    assert v["players"][2]["plot_hidden"] == 1 and v["players"][2]["plot_revealed"] == []


def test_public_view_has_no_private_card() -> None:
    """view(None): no hand at all, no face-down plot card, only counts."""
    g = _scene()
    v = g.view(None)
    assert v["viewer"] is None
    for p in v["players"]:
        assert p["hand"] is None
        assert isinstance(p["plot_hidden"], int)
    assert [p["plot_revealed"] for p in v["players"]] == [["AS"], ["QC"], [], ["10S"]]


def test_table_jobs_rewards_trump_medals_are_public() -> None:
    """Everyone sees the table, the jobs, visible rewards, trump and medals."""
    g = _scene()
    for seat in (None, 0, 2):
        v = g.view(seat)
        assert v["trump"] == "D"
        assert v["trick"] == [[1, "9H"]]
        assert v["jobs"]["H"]["workers"] == ["10H"] and v["jobs"]["H"]["hours"] == 10
        assert sorted(v["jobs"]["S"]["workers"]) == ["JS", "QS"]
        assert v["jobs"]["H"]["rewards"] == ["2H"] and v["jobs"]["S"]["rewards"] == ["4S"]
        assert [p["medals"] for p in v["players"]] == [0, 2, 0, 1]
        assert v["deck_count"] == len(g.deck)
        assert v["jobs"]["H"]["reward_pile"] == 4  # AH 3H 4H 5H: only the count is shown


@pytest.mark.parametrize("seat", [None, 0, 1, 2, 3])
def test_no_secret_card_anywhere_in_view(seat: int | None) -> None:
    """Not other hands, not other face-down plot cards, not the deck, not future rewards."""
    g = _scene()
    shown = _strings(json.loads(json.dumps(g.view(seat))))
    leaked = _secret(g, seat) & shown
    assert not leaked, f"view({seat}) shows {sorted(leaked)}"


@pytest.mark.parametrize("name", ["classic", "kolkhoz", "kolkhoznik", "zone"])
def test_no_secret_card_in_views_during_a_game(name: str) -> None:
    g = Game.new(preset(name), players=4, seed=17)
    step = 0
    while not g.is_over:
        if step % 3 == 0:
            for seat in (None, 0, 1, 2, 3):
                shown = _strings(g.view(seat))
                leaked = _secret(g, seat) & shown
                assert not leaked, f"step {step}: view({seat}) shows {sorted(leaked)}"
        seat = g.to_act[0]
        g.apply(seat, default_action(g, seat))
        step += 1


def test_view_rejects_unknown_seat() -> None:
    g = _scene()
    for seat in (4, -1, "0"):
        with pytest.raises(ValueError):
            g.view(seat)  # type: ignore[arg-type]


def test_events_of_plot_and_swap_name_no_card() -> None:
    """Events are public: the card going face-down into a plot and swapped cards stay
    private."""
    g = deal(preset("kolkhoz"), 4, 1, year=2, phase="swap",
             hands={0: "6H 7H", 1: "8H 8D", 2: "9H 9D", 3: "10H 10D"},
             plots={0: "KH"}, lead=0, trump="S", completed_by={"H": 0, "D": 0, "C": 0, "S": 0})
    events = act(g, (0, "swap:7H<KH"), (1, "swap:pass"), (2, "swap:pass"), (3, "swap:pass"))
    for e in events_of(events, ev.SwapDecided):
        d = event_to_dict(e)
        assert set(d) == {"type", "seat", "swapped"}
    g.lead = g.turn = 0
    g._legal = {}
    events = play(g, "6H", "8H", "9H", "10H") + assign(g, "6H>H", "8H>H", "9H>H", "10H>H")
    (to_plot,) = events_of(events, ev.CardsToPlot)
    assert set(event_to_dict(to_plot)) == {"type", "year"}
    # 7H went face-down by the swap; KH (swapped into the hand) was kept to the end.
    assert stexts(g.plots[0]) == stexts(cards("7H KH"))
    assert all(x not in g.face_up for x in g.plots[0])


def test_others_face_up_plot_cards_come_in_card_order() -> None:
    """A swap puts the card from the hand where the plot card was: the plot's own order
    would tell others which face-up card came in by a swap. Only the owner sees it."""
    g = deal(preset("kolkhoz"), 4, 1, year=2, phase="swap",
             hands={0: "6H 7H", 1: "8H 8D", 2: "9H 9D", 3: "10H 10D"},
             plots={1: "KS 9C 2C 5D"}, face_up="KS 2C 5D", lead=0, trump="S",
             completed_by={"H": 0, "D": 0, "C": 0, "S": 0})
    in_order = stexts(sorted(cards("KS 2C 5D")))
    assert in_order != ["KS", "2C", "5D"]
    for seat in (None, 0, 2):
        assert g.view(seat)["players"][1]["plot_revealed"] == in_order
    assert g.view(1)["players"][1]["plot_revealed"] == ["KS", "2C", "5D"]


def test_no_scores_in_view_before_the_end() -> None:
    """Running scores would reveal the sum of face-down plot cards: views show scores and
    winners only once the game is over; final plots likewise."""
    g = _scene()
    for seat in (None, 0):
        v = g.view(seat)
        assert "scores" not in v and "winners" not in v
    with pytest.raises(RuntimeError):
        g.final_plots()
    g2 = Game.new(CLASSIC, players=3, seed=2)
    while not g2.is_over:
        seat = g2.to_act[0]
        g2.apply(seat, default_action(g2, seat))
    v = g2.view(None)
    assert v["scores"] == g2.scores() and v["winners"] == g2.winners()
    assert [sorted(p) for p in g2.final_plots()] == [sorted(texts(p)) for p in g2.plots]
