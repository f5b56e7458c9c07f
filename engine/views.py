"""Per-seat and public views: the only window a front end has on a game.

A view holds exactly what RULES.md ("Hidden information") lets its reader see: their own hand
and whole plot, every face-up card, the table and the jobs, visible rewards, trump, medals and
counts. The public view (``seat=None``) is what any seat may see, so it fits a group message.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from engine.cards import CARD_TEXT, SUITS
from engine.rules import Rules

if TYPE_CHECKING:
    from engine.state import Game


@lru_cache(maxsize=64)
def _rules_frozen(rules: Rules) -> tuple[tuple[str, Any], ...]:
    return tuple(rules.to_dict().items())


def _rules_dict(rules: Rules) -> dict[str, Any]:
    # Rules are frozen and hashable: convert each distinct setup once.
    return dict(_rules_frozen(rules))


def _cards(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [CARD_TEXT[c] for c in cards]


def build_view(game: Game, seat: int | None) -> dict[str, Any]:
    """See :meth:`engine.Game.view`. Raises :class:`ValueError` for a seat not in the game."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < game.n):
        raise ValueError(f"no seat {seat!r} in a {game.n}-player game")
    face_up = game.face_up
    # Cards this reader may not see wherever they are now; only used to mask the history of
    # the last trick (its cards may have gone face-down into a stack, or back into the deck).
    secret = set(game.deck)
    for s in range(game.n):
        if s != seat:
            secret.update(game.hands[s])
            secret.update(c for c in game.plots[s] if c not in face_up)
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
                "plot_revealed": _cards([c for c in plot if c in face_up]),
                "plot_hidden": _cards(hidden) if own else len(hidden),
                "medals": game.medals[s],
                "brigadier": game.brigadier_year[s],
                "completed_job": game.completed_year[s],
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
        "rules": _rules_dict(game.rules),
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
        "players": players,
        "north": _cards(game.north),
        "deck_count": len(game.deck),
        "discarded_rewards": _cards(game.discarded),
        "swap_pending": list(game.swap_pending),
        "ended_early": game.ended_early,
    }
    if game.is_over:
        view["scores"] = game.scores()
        view["winners"] = game.winners()
    return view
