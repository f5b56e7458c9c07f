"""The phases of a year (what the game waits for)."""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    TRUMP = "trump"
    SWAP = "swap"
    PLAY = "play"
    ASSIGN = "assign"
    OVER = "over"


PLAY: Final = Phase.PLAY
ASSIGN: Final = Phase.ASSIGN
TRUMP: Final = Phase.TRUMP
SWAP: Final = Phase.SWAP
OVER: Final = Phase.OVER
