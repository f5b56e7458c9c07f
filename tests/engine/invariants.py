"""Invariant checks shared by the random playout tests."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from engine import Game, Phase
from engine.cards import (
    CARD_TEXT,
    SUITS,
    card_id,
    is_worker,
    parse_card,
    reward_cards,
    worker_cards,
)

WORKERS: tuple[int, ...] = tuple(worker_cards())
REWARDS: tuple[int, ...] = tuple(c for s in SUITS for c in reward_cards(s))


def card_places(g: Game) -> dict[str, list[int]]:
    """Every place a card can be, each as a list of card ids."""
    places: dict[str, list[int]] = {
        "deck": list(g.deck),
        "north": list(g.north),
        "discarded": list(g.discarded),
    }
    for s in range(g.n):
        places[f"hand{s}"] = list(g.hands[s])
        places[f"plot{s}"] = list(g.plots[s])
    for j in range(4):
        places[f"workers{j}"] = list(g.workers[j])
        places[f"rewards{j}"] = list(g.rewards[j])
        places[f"pile{j}"] = list(g.reward_piles[j])
    if g.phase is Phase.ASSIGN:
        places["pending"] = list(g.pending)
    else:
        places["trick"] = [c for _, c in g.trick]
    if g.rules.deck == 36:
        places["job markers"] = [card_id(1, s) for s in range(4)]  # the Aces mark the jobs
    return places


def check_conservation(g: Game) -> None:
    """Every card of the deck in use is in exactly one place: each of the 32 worker cards
    (6 to King) in a hand, a plot, the deck, the north, a job or the trick (in the
    assignment, the cards to assign, all from the trick); each reward card (A-5) of the
    52-card deck in a plot, a job's rewards, a pile or the discard, and none in the 36-card
    game (its Aces mark the jobs); face-up cards lie in plots."""
    seen: dict[int, str] = {}
    for place, cards in card_places(g).items():
        for c in cards:
            assert c not in seen, f"{CARD_TEXT[c]} is in {seen[c]} and in {place}"
            seen[c] = place
    expected = 52 if g.rules.deck == 52 else 36
    assert len(seen) == expected, f"{len(seen)} cards in play, expected {expected}"
    if g.rules.deck == 36:
        assert all(c % 13 == 0 or c % 13 >= 5 for c in seen), "a 2-5 in the 36-card game"
    for c in g.face_up:
        assert any(c in plot for plot in g.plots), f"face-up {CARD_TEXT[c]} not in a plot"
    _check_workers(g)
    _check_rewards(g)


def _check_workers(g: Game) -> None:
    where: list[int] = []
    for h in g.hands:
        where += h
    for p in g.plots:
        where += [x for x in p if is_worker(x)]
    where += g.deck + g.north
    for w in g.workers:
        where += w
    if g.phase is Phase.ASSIGN:
        where += g.pending
        trick_cards = {x for _, x in g.trick}
        assert set(g.pending) <= trick_cards, "pending cards must come from the trick"
    else:
        where += [x for _, x in g.trick]
    counts = Counter(where)
    missing = [CARD_TEXT[x] for x in WORKERS if counts[x] == 0]
    twice = [CARD_TEXT[x] for x in WORKERS if counts[x] > 1]
    stray = [CARD_TEXT[x] for x in counts if x not in WORKERS]
    assert not missing and not twice and not stray, (
        f"worker conservation broken: missing={missing} twice={twice} stray={stray}"
    )


def _check_rewards(g: Game) -> None:
    rewards: list[int] = []
    for p in g.plots:
        rewards += [x for x in p if not is_worker(x)]
    for v in g.rewards:
        rewards += v
    for p in g.reward_piles:
        rewards += p
    rewards += g.discarded
    rc = Counter(rewards)
    if g.rules.has_rewards:
        missing = [CARD_TEXT[x] for x in REWARDS if rc[x] == 0]
        twice = [CARD_TEXT[x] for x in REWARDS if rc[x] > 1]
        assert not missing and not twice, (
            f"reward conservation broken: missing={missing} twice={twice}"
        )
    else:
        assert not rewards, f"reward cards in a 36-card game: {[CARD_TEXT[x] for x in rewards]}"


def secret_cards(g: Game, seat: int | None) -> set[str]:
    """Cards ``seat`` may not see (None: the public, who may see nothing private). With
    ``pass_cards`` the card a seat passed this year stays known to it wherever it went."""
    # Once the game is over the deck holds only cards everyone saw on the table.
    hidden: set[int] = set() if g.is_over else set(g.deck)
    for j in range(4):
        hidden.update(g.reward_piles[j])
    for s in range(g.n):
        if s == seat:
            continue
        hidden.update(g.hands[s])
        hidden.update(c for c in g.plots[s] if c not in g.face_up)
    if seat is not None and g.passes and g.passes[seat] is not None:
        hidden.discard(g.passes[seat])
    return {CARD_TEXT[c] for c in hidden}


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)] + [
            s for k in value for s in _strings(k)
        ]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


def check_view(g: Game, seat: int | None) -> dict[str, Any]:
    """The view is JSON data, holds no card its reader may not see, and has the required keys."""
    view = g.view(seat)
    json.dumps(view)
    leaked = secret_cards(g, seat) & set(_strings(view))
    assert not leaked, f"view of {seat} shows {sorted(leaked)}"
    for key in (
        "year", "years", "phase", "planner", "lead", "trump", "lean", "to_act", "jobs",
        "trick", "pending", "players", "north", "deck_count",
    ):
        assert key in view, key
    for s, p in enumerate(view["players"]):
        if s == seat:
            assert p["hand"] == [CARD_TEXT[c] for c in g.hands[s]]
            assert isinstance(p["plot_hidden"], list)
            # pass_cards: the card it chose (or sent) this year, and the one it received.
            sent = g.passes[s] if g.passes else None
            giver = (s - 1) % g.n if g.year % 2 == 0 else (s + 1) % g.n
            received = g.passes[giver] if g.passes and g.phase is not Phase.PASS else None
            assert p["pass_sent"] == (None if sent is None else CARD_TEXT[sent])
            assert p["pass_received"] == (None if received is None else CARD_TEXT[received])
        else:
            assert p["hand"] is None
            assert isinstance(p["plot_hidden"], int)
        assert p["hand_count"] == len(g.hands[s])
        revealed = [parse_card(text) for text in p["plot_revealed"]]
        assert all(c in g.face_up for c in revealed)
        if s != seat:  # the plot's own order would tell which card a swap replaced
            assert revealed == sorted(revealed)
            # A passed card: only its sender and its receiver know it, each in their own entry.
            assert p["pass_sent"] is None and p["pass_received"] is None
    assert view["pass_pending"] == g.pass_pending
    assert view["to_act"] == g.to_act
    assert ("scores" in view) == g.is_over
    return view
