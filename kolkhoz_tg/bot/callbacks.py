"""Compact callback data for inline buttons: ``kind:game:version:payload``, ASCII, ≤ 64 bytes.

Every button names its game and the state version it was drawn for, so a stale or repeated
tap is recognised and answered politely instead of acting on a newer state. Game ids and
versions are written in base 36 to keep the data short, and bounded by :data:`MAX_ID`: they
reach SQL, where PostgreSQL's INTEGER ends at 2**31 - 1 (a larger number is an error there,
not an empty result).

Kinds: ``a`` an action (payload: the engine action text, e.g. ``play:10H``), ``x`` explain why a
shown card may not be played now, ``l`` a lobby operation, ``v`` show something (``board``,
``hand``, ``last``, ``score``, ``hint``), ``p`` a practice game's setup (game 0 before the
game exists), ``q`` a move queued ahead of the player's turn (payload: the action text, tapped
again to cancel; ``auto:1`` / ``auto:0``: the Brigadier's "assign for me" on or off).
"""

from __future__ import annotations

import string
from dataclasses import dataclass

MAX_BYTES = 64
#: The largest game id or version there can be (``games.id`` and ``version`` are INTEGER).
MAX_ID = 2**31 - 1
KINDS = frozenset("axlvpq")
_DIGITS = string.digits + string.ascii_lowercase
_PAYLOAD_CHARS = frozenset(string.ascii_letters + string.digits + ":<>._-")


def to_base36(value: int) -> str:
    if value < 0:
        raise ValueError("negative")
    out = ""
    while True:
        value, rem = divmod(value, 36)
        out = _DIGITS[rem] + out
        if not value:
            return out


def from_base36(text: str) -> int:
    if not text or len(text) > 12 or any(ch not in _DIGITS for ch in text):
        raise ValueError(f"not a base-36 number: {text!r}")
    return int(text, 36)


@dataclass(frozen=True, slots=True)
class Callback:
    kind: str
    game_id: int
    version: int
    payload: str

    def encode(self) -> str:
        """The callback data string; raises ValueError if it would be invalid for Telegram."""
        if self.kind not in KINDS:
            raise ValueError(f"unknown callback kind {self.kind!r}")
        if not (0 <= self.game_id <= MAX_ID and 0 <= self.version <= MAX_ID):
            raise ValueError(f"game id or version out of range: {self.game_id}, {self.version}")
        if not self.payload or any(ch not in _PAYLOAD_CHARS for ch in self.payload):
            raise ValueError(f"bad callback payload {self.payload!r}")
        data = f"{self.kind}:{to_base36(self.game_id)}:{to_base36(self.version)}:{self.payload}"
        if len(data.encode("ascii")) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @classmethod
    def decode(cls, data: str | None) -> Callback:
        """Read callback data; raises ValueError for anything this bot did not write."""
        if not data or len(data) > MAX_BYTES or not data.isascii():
            raise ValueError("malformed callback data")
        parts = data.split(":", 3)
        if len(parts) != 4 or parts[0] not in KINDS:
            raise ValueError("malformed callback data")
        kind, gid, ver, payload = parts
        if not payload or any(ch not in _PAYLOAD_CHARS for ch in payload):
            raise ValueError("malformed callback data")
        game_id, version = from_base36(gid), from_base36(ver)
        if game_id > MAX_ID or version > MAX_ID:
            raise ValueError("callback data names no possible game")
        return cls(kind, game_id, version, payload)


def action_button(game_id: int, version: int, action: str) -> str:
    return Callback("a", game_id, version, action).encode()


def explain_button(game_id: int, version: int, action: str) -> str:
    return Callback("x", game_id, version, action).encode()


def lobby_button(game_id: int, version: int, op: str) -> str:
    return Callback("l", game_id, version, op).encode()


def view_button(game_id: int, version: int, what: str) -> str:
    return Callback("v", game_id, version, what).encode()


def practice_button(game_id: int, version: int, op: str) -> str:
    return Callback("p", game_id, version, op).encode()


def queue_button(game_id: int, version: int, action: str) -> str:
    return Callback("q", game_id, version, action).encode()
