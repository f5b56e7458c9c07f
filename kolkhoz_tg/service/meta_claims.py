"""Claims on a front end's value in a game's meta that an outside call makes, and that must
be made once: the game's topic in a player's private chat, say. Two processes (two replicas
on one database) that both find the value missing would both make it; so the one that makes
it claims the key first, and the others wait for the value it stores.

A claim is a lease, kept in the game's meta next to the value (``claim:<key>``: who holds
it and until when), taken and given up in one write transaction each, with the game row
locked on PostgreSQL (SQLite's write lock serializes them): so of two processes that claim
the same key at once exactly one gets it. A claimant that dies does not block the others
for ever: once its lease has lapsed the next claim takes it over, and sooner where the
caller can tell it is gone (``gone``: a process of this host that is no longer running).

One that waits for another's value looks with :meth:`MetaClaims.peek_meta`, a read that
takes no write lock, and claims again (a write) only once the claim looks given up or
lapsed: a wait does not hold up the game's other writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import select

from kolkhoz_tg.service.common import possible_id
from kolkhoz_tg.service.errors import NotFound
from kolkhoz_tg.service.kernel import Kernel
from kolkhoz_tg.storage.models import GameRow


def claim_key(key: str) -> str:
    """The meta key of the claim on the meta value ``key``."""
    return f"claim:{key}"


@dataclass(frozen=True, slots=True)
class MetaClaim:
    """What a claim on a meta value found: the value stored already (``value``), or that
    the caller holds the claim now (``claimed``, until ``until``: it makes the value and
    stores it with :meth:`MetaClaims.fill_meta`), or that another holds it until ``until``
    (wait for its value; claim again once that time has passed)."""

    value: int | str | None
    claimed: bool = False
    until: datetime | None = None


def _value(stored: Any) -> int | str | None:
    if stored is None or isinstance(stored, int | str):
        return stored
    return str(stored)


def _until(claim: Any) -> datetime | None:
    """Until when a stored claim runs (None: no claim, or not one this reads)."""
    if not isinstance(claim, dict) or not isinstance(claim.get("until"), str):
        return None
    try:
        until = datetime.fromisoformat(claim["until"])
    except ValueError:
        return None
    return until if until.tzinfo is not None else until.replace(tzinfo=UTC)


def _held_until(claim: Any, now: datetime, gone: Callable[[str], bool] | None) -> datetime | None:
    """Until when a stored claim holds off others: None when there is none, its lease has
    lapsed, or ``gone`` says its holder is no longer there."""
    until = _until(claim)
    if until is None or until <= now:
        return None
    if gone is not None and gone(str(claim.get("by", ""))):
        return None
    return until


class MetaClaims:
    """Claim, fill and give up a game's meta value (see the module docstring)."""

    def __init__(self, kernel: Kernel) -> None:
        self.kernel = kernel

    def claim_meta(
        self, game_id: int, key: str, owner: str, lease: timedelta,
        gone: Callable[[str], bool] | None = None,
    ) -> MetaClaim:
        """The game's meta value ``key`` if it is stored; else the claim on it for ``owner``
        for ``lease`` (taken when nobody holds it, its holder's lease lapsed, ``gone`` says
        its holder is no longer there, or ``owner`` holds it already: then renewed), or who
        holds it until when. Raises :class:`~kolkhoz_tg.service.errors.NotFound`."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            meta = row.meta
            if meta.get(key) is not None:
                return MetaClaim(_value(meta[key]))
            now = self.kernel.clock.now()
            held = meta.get(claim_key(key))
            until = _held_until(held, now, gone)
            if until is not None and isinstance(held, dict) and held.get("by") != owner:
                return MetaClaim(None, claimed=False, until=until)
            until = now + lease
            row.meta = {**meta, claim_key(key): {"by": owner, "until": until.isoformat()}}
            return MetaClaim(None, claimed=True, until=until)

    def peek_meta(
        self, game_id: int, key: str, gone: Callable[[str], bool] | None = None
    ) -> MetaClaim:
        """A look at the game's meta value ``key`` in a read-only transaction (no write
        lock taken, the game row not locked): the value if it is stored; else who holds
        the claim on it until when (``until``), or ``until`` None when nobody does, its
        lease has lapsed or ``gone`` says its holder is no longer there (claim it then
        with :meth:`claim_meta`). Raises
        :class:`~kolkhoz_tg.service.errors.NotFound`."""
        meta = None
        if possible_id(game_id):
            with self.kernel.db.read() as s:
                meta = s.exec(select(GameRow.meta).where(
                    GameRow.id == game_id)).first()
        if meta is None:
            raise NotFound(f"no game {game_id}", "game_not_found")
        if meta.get(key) is not None:
            return MetaClaim(_value(meta[key]))
        until = _held_until(meta.get(claim_key(key)), self.kernel.clock.now(), gone)
        return MetaClaim(None, claimed=False, until=until)

    def fill_meta(
        self, game_id: int, key: str, owner: str, value: int | str | None
    ) -> MetaClaim:
        """Store the value ``owner`` made for its claim on ``key`` and give the claim up; a
        value stored meanwhile (``owner``'s lease lapsed and another made it) is kept, and
        returned, instead. ``value`` None: give the claim up only (nothing was made). Raises
        :class:`~kolkhoz_tg.service.errors.NotFound`."""
        with self.kernel.write() as s:
            row = self.kernel.get_game(s, game_id)
            meta = dict(row.meta)
            held = meta.get(claim_key(key))
            if isinstance(held, dict) and held.get("by") == owner:
                del meta[claim_key(key)]
            if meta.get(key) is None and value is not None:
                meta[key] = value
            if meta != row.meta:
                row.meta = meta
            return MetaClaim(_value(meta.get(key)))


__all__ = ["MetaClaim", "MetaClaims", "claim_key"]
