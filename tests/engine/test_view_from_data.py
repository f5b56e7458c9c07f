"""The view built straight from the game's data: its JSON form (:meth:`engine.Game.view`,
``View.of(...).to_dict()``) is byte for byte what the former dict builder gave, in every
phase (the pass and the swap included), for every seat and the public, and
``View.from_dict`` of that JSON is the same typed view."""

from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest

from engine import PRESETS, Game, Phase, preset
from engine.ai import default_action
from engine.cards import CARD_TEXT, SUITS
from engine.data import GameData
from engine.views import View

PRESET_NAMES = sorted(PRESETS)


# The former ``engine.views.build_view``, kept verbatim as the reference: the JSON view was
# built here first and the typed view parsed from it.
def _cards(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def legacy_build_view(game: GameData, seat: int | None) -> dict[str, Any]:
    """See :meth:`engine.Game.view`. Raises :class:`ValueError` for a seat not in the game."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < game.n):
        raise ValueError(f"no seat {seat!r} in a {game.n}-player game")
    face_up = game.face_up
    # Cards this reader may not see wherever they are now; only used to mask the history of
    # the last trick (its cards may have gone face-down into a stack, or back into the deck).
    # Once the game is over every plot is scored in the open, so nothing is masked.
    secret: set[int] = set()
    if not game.is_over:
        secret.update(game.deck)
        for s in range(game.n):
            if s != seat:
                secret.update(game.hands[s])
                secret.update(c for c in game.plots[s] if c not in face_up)
    sent = received = None
    if seat is not None and game.passes:
        x = game.pass_sent(seat)
        sent = None if x is None else CARD_TEXT[x]
        x = game.pass_received(seat)
        received = None if x is None else CARD_TEXT[x]
    players: list[dict[str, Any]] = []
    for s in range(game.n):
        own = s == seat
        plot = game.plots[s]
        hidden = [c for c in plot if c not in face_up]
        players.append(
            {
                "seat": s,
                "hand": _cards(game.hands[s]) if own else None,
                "hand_count": len(game.hands[s]),
                # Others' face-up cards in card order: a plot's own order tells which
                # card a swap replaced, which only its owner saw.
                "plot_revealed": _cards([c for c in plot if c in face_up] if own
                                        else sorted(c for c in plot if c in face_up)),
                "plot_hidden": _cards(hidden) if own else len(hidden),
                "medals": game.medals[s],
                "brigadier": game.brigadier_year[s],
                "completed_job": game.completed_year[s],
                # This year's Колхозик stacks: the top card is face-up; the rest only the
                # owner may see.
                "stacks": [
                    [CARD_TEXT[c] if own or i == 0 else None for i, c in enumerate(stack)]
                    for stack in game.stacks[s]
                ],
                # pass_cards: the card the reader passes (passed) this year and the card it
                # received once the cards moved; only in the reader's own entry.
                "pass_sent": sent if own else None,
                "pass_received": received if own else None,
            }
        )
    jobs: dict[str, Any] = {}
    for j in SUITS:
        jobs[j.letter] = {
            "hours": game.hours[j],
            "threshold": game.rules.threshold,
            "rewards": _cards(game.rewards[j]),
            "workers": _cards(game.workers[j]),
            "complete": game.completed_by[j] is not None,
            "completed_by": game.completed_by[j],
            "reward_pile": len(game.reward_piles[j]),
        }
    view: dict[str, Any] = {
        "viewer": seat,
        "rules": dict(game.rules.to_dict()),
        "players_count": game.n,
        "year": game.year,
        "years": game.rules.years,
        "phase": game.phase.value,
        "planner": game.planner,
        "lead": game.lead,
        "trump": None if game.trump is None else "HDCS"[game.trump],
        "trump_played": game.trump_played,
        "lean": game.lean,
        "famine": game.famine,
        "short": game.short,
        "hand_size": game.hand_size,
        "tricks_played": game.tricks_done,
        "tricks_total": game.tricks_total,
        "to_act": game.to_act,
        "jobs": jobs,
        "trick": [[s, CARD_TEXT[c]] for s, c in game.trick],
        "pending": _cards(game.pending),
        "brigadier": game.brigadier,
        # A card of the last trick that has since gone where the reader may not look (face-down
        # into another seat's Колхозик stack, or back into the deck) shows as null.
        "last_trick": [
            [s, CARD_TEXT[c] if c not in secret else None] for s, c in game.last_trick
        ],
        "last_trick_winner": game.last_trick_winner,
        # This year's finished tricks in order, masked like the last trick: what a careful
        # player remembers (who led what, who showed out of a suit).
        "tricks": [
            {
                "cards": [[s, CARD_TEXT[c] if c not in secret else None] for s, c in trick],
                "winner": winner,
            }
            for trick, winner in game.tricks
        ],
        "players": players,
        "north": _cards(game.north),
        "deck_count": len(game.deck),
        "discarded_rewards": _cards(game.discarded),
        "swap_pending": list(game.swap_pending),
        "pass_pending": list(game.pass_pending),
        "ended_early": game.ended_early,
    }
    if game.is_over:
        view["scores"] = game.scores()
        view["winners"] = game.winners()
    return view




def _playout(rules: Any, players: int, seed: int):
    """Yield the game before every action of a seeded heuristic-and-random playout."""
    rng = random.Random(seed)
    g = Game.new(rules, players, seed)
    while not g.is_over:
        yield g
        seat = g.to_act[0]
        legal = g.legal_actions(seat)
        action = legal[rng.randrange(len(legal))] if rng.random() < 0.5 else default_action(g, seat)
        g.apply(seat, action)
    yield g


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("pass_cards", [False, True])
def test_the_view_is_byte_for_byte_the_former_one(
    name: str, players: int, pass_cards: bool,
) -> None:
    rules = dataclasses.replace(preset(name), pass_cards=pass_cards, hero=pass_cards)
    phases = set()
    for seed in (3,):
        for g in _playout(rules, players, seed):
            phases.add(g.phase)
            for seat in [None, *range(players)]:
                former = legacy_build_view(g, seat)
                view = g.view(seat)
                assert json.dumps(view) == json.dumps(former)
                if seat is not None and seat not in g.to_act[:1]:
                    continue
                typed = View.of(g, seat)
                assert json.dumps(typed.to_dict()) == json.dumps(former)
                assert View.from_dict(json.loads(json.dumps(former)), typed.legal) == typed
                assert View.of(g, seat, legal=False) == dataclasses.replace(typed, legal=())
    assert Phase.PLAY in phases and Phase.ASSIGN in phases and Phase.OVER in phases
    if rules.swap:
        assert Phase.SWAP in phases
    if pass_cards and rules.years > 1:
        assert Phase.PASS in phases


def test_a_seat_not_in_the_game_is_refused() -> None:
    g = Game.new(preset("classic"), 4, seed=1)
    for seat in (4, -1, "0", True):
        with pytest.raises(ValueError):
            View.of(g, seat)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            g.view(seat)  # type: ignore[arg-type]
