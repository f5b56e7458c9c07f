"""The phases of a year (what the game waits for)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    TRUMP = "trump"
    PASS = "pass"  # pass_cards (house rule): each player passes one card to a neighbour
    SWAP = "swap"
    PLAY = "play"
    ASSIGN = "assign"
    OVER = "over"


PLAY: Final = Phase.PLAY
ASSIGN: Final = Phase.ASSIGN
TRUMP: Final = Phase.TRUMP
PASS: Final = Phase.PASS
SWAP: Final = Phase.SWAP
OVER: Final = Phase.OVER
