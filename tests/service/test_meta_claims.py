"""Claims on a game's meta value (GameService.claim_meta / fill_meta): of two processes that
claim the same key at once exactly one gets it; the others see who holds it until when, and
then the value; a claim lapses with its lease. On SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from kolkhoz_tg.service import GameService, MetaClaim, NotFound
from kolkhoz_tg.service.meta_claims import claim_key
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.conftest import make_settings
from tests.service.helpers import new_game

LEASE = timedelta(seconds=30)


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path / 'claims.sqlite3'}"


@pytest.fixture
def two(url: str, clock: FakeClock) -> Iterator[tuple[GameService, GameService]]:
    """Two services on one database, each with its own engine: two processes."""
    services = tuple(GameService(Database(url), clock=clock,
                                 settings=make_settings(database_url=url)) for _ in range(2))
    yield services[0], services[1]
    for s in services:
        s.db.dispose()


def test_claim_fill_and_lapse(two: tuple[GameService, GameService], clock: FakeClock) -> None:
    a, b = two
    game = new_game(a)[0].id
    first = a.claim_meta(game, "pmt:7", "a", LEASE)
    assert first.claimed and first.value is None and first.until == clock.now() + LEASE
    held = b.claim_meta(game, "pmt:7", "b", LEASE)
    assert held == MetaClaim(None, claimed=False, until=first.until)
    clock.advance(timedelta(seconds=10))
    assert a.claim_meta(game, "pmt:7", "a", LEASE).claimed  # its own: renewed
    assert a.fill_meta(game, "pmt:7", "a", 42) == MetaClaim(42)
    assert b.claim_meta(game, "pmt:7", "b", LEASE) == MetaClaim(42)
    meta = b.game_info(game).meta
    assert meta["pmt:7"] == 42 and claim_key("pmt:7") not in meta
    # A claimant that dies holds the key until its lease lapses, no longer.
    assert a.claim_meta(game, "pmt:8", "gone", LEASE).claimed
    assert not b.claim_meta(game, "pmt:8", "b", LEASE).claimed
    clock.advance(LEASE + timedelta(seconds=1))
    assert b.claim_meta(game, "pmt:8", "b", LEASE).claimed
    # Given up without a value (nothing was made): free for the next at once.
    assert b.fill_meta(game, "pmt:8", "b", None) == MetaClaim(None)
    assert a.claim_meta(game, "pmt:8", "a", LEASE).claimed
    # The late one of two that both made it (its lease had lapsed) keeps the first value.
    clock.advance(LEASE + timedelta(seconds=1))
    assert b.claim_meta(game, "pmt:8", "b", LEASE).claimed
    assert b.fill_meta(game, "pmt:8", "b", 5) == MetaClaim(5)
    assert a.fill_meta(game, "pmt:8", "a", 6) == MetaClaim(5)
    assert claim_key("pmt:8") not in a.game_info(game).meta


def test_two_processes_claiming_at_once(two: tuple[GameService, GameService]) -> None:
    a, b = two
    game = new_game(a)[0].id
    rounds = 40
    start = threading.Barrier(2)
    results: dict[str, list[MetaClaim]] = {"a": [], "b": []}
    errors: list[BaseException] = []

    def run(service: GameService, name: str) -> None:
        try:
            for n in range(rounds):
                start.wait(timeout=30)
                results[name].append(service.claim_meta(game, f"pmt:{n}", name, LEASE))
        except BaseException as e:  # reported below
            errors.append(e)
            start.abort()

    threads = [threading.Thread(target=run, args=(s, n)) for s, n in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    for n in range(rounds):
        pair = [results["a"][n], results["b"][n]]
        assert sum(c.claimed for c in pair) == 1, (n, pair)
        assert pair[0].until == pair[1].until  # the loser sees the winner's lease


def test_peek_reads_without_the_write_lock(
    two: tuple[GameService, GameService], clock: FakeClock
) -> None:
    """A look at a claim (the wait for another's value) takes no write lock: it answers
    while another process holds the game row (PostgreSQL) or SQLite's write lock."""
    a, b = two
    game = new_game(a)[0].id
    assert b.peek_meta(game, "pmt:7") == MetaClaim(None)
    until = a.claim_meta(game, "pmt:7", "a", LEASE).until
    assert b.peek_meta(game, "pmt:7") == MetaClaim(None, claimed=False, until=until)
    with a.kernel.write() as s:
        row = a.kernel.get_game(s, game)  # (locked on PostgreSQL)
        row.meta = {**row.meta, "other": 1}
        s.flush()  # (SQLite's write lock taken)
        assert b.peek_meta(game, "pmt:7").until == until
    clock.advance(LEASE + timedelta(seconds=1))
    assert b.peek_meta(game, "pmt:7") == MetaClaim(None)  # lapsed: free to claim
    assert a.fill_meta(game, "pmt:7", "a", 42) == MetaClaim(42)
    assert b.peek_meta(game, "pmt:7") == MetaClaim(42)
    with pytest.raises(NotFound):
        b.peek_meta(game + 1000, "pmt:7")
