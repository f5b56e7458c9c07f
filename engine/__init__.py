"""Kolkhoz rules engine: pure, deterministic, standard library only.

Quick use::

    from engine import Game, preset
    g = Game.new(preset("classic"), players=4, seed=7)
    seat = g.to_act[0]
    events = g.apply(seat, g.legal_actions(seat)[0])
    g.view(seat)       # what that seat may see
    g.view(None)       # the public view (no hand, no face-down card)

The reference rules are ``shared/spec/RULES.md``; ``docs/RULES.md`` explains them to players.
"""

from engine.actions import Action, ActionError, ActionKind, IllegalAction, InvalidAction
from engine.cards import CARDS, Card, Suit, parse_card
from engine.codec import FORMAT_VERSION
from engine.events import Event, event_from_dict, event_to_dict
from engine.phase import Phase
from engine.rules import (
    PRESETS,
    Assignment,
    FirstLead,
    Losers,
    Requisition,
    Reveal,
    Reward,
    Rules,
    Theme,
    preset,
    preset_name,
)
from engine.state import Game

__all__ = [
    "CARDS",
    "FORMAT_VERSION",
    "PRESETS",
    "Action",
    "ActionError",
    "ActionKind",
    "Assignment",
    "Card",
    "Event",
    "FirstLead",
    "Game",
    "IllegalAction",
    "InvalidAction",
    "Losers",
    "Phase",
    "Requisition",
    "Reveal",
    "Reward",
    "Rules",
    "Suit",
    "Theme",
    "event_from_dict",
    "event_to_dict",
    "parse_card",
    "preset",
    "preset_name",
]
