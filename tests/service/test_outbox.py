"""The outbox for a relay: claims with a lease, back-off after failures, settling."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from kolkhoz_tg.service import GameService
from kolkhoz_tg.service.outbox import backoff
from kolkhoz_tg.timeutil import FakeClock


def _started(service: GameService) -> int:
    game = service.create_game(-500, 1, creator_name="Anna")
    for user in (2, 3, 4):
        service.join(game.id, user, f"P{user}")
    service.start(game.id, by_user=1)
    return game.id


def test_a_claim_holds_until_settled_or_its_lease_lapses(
    service: GameService, clock: FakeClock
) -> None:
    _started(service)
    mine = service.claim_notifications("relay-a", 1000)
    assert mine
    assert service.claim_notifications("relay-b", 1000) == []  # held by relay-a's lease
    clock.advance(service.outbox_lease + timedelta(seconds=1))
    taken = service.claim_notifications("relay-b", 1000)  # relay-a died: the lease lapsed
    assert [n.id for n in taken] == [n.id for n in mine]
    service.settle_notifications([n.id for n in taken])
    assert service.outbox_backlog() == 0


def test_a_failed_message_waits_a_growing_back_off(
    service: GameService, clock: FakeClock
) -> None:
    _started(service)
    note = service.claim_notifications("relay", 1)[0]
    for attempt in range(1, 4):
        service.settle_notifications(retry=[note.id])
        assert service.claim_notifications("relay", 1000, skip_chats=[note.chat_id or 0]) == []
        clock.advance(backoff(attempt) - timedelta(seconds=1))
        assert all(n.id != note.id for n in service.claim_notifications("other", 1000))
        clock.advance(timedelta(seconds=1) + service.outbox_lease)
        again = service.claim_notifications("relay", 1000)
        assert note.id in [n.id for n in again]
        service.settle_notifications(retry=[n.id for n in again if n.id != note.id])
    assert backoff(1) < backoff(3) <= backoff(99)


def test_settling_survives_a_deadlock_abort(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    _started(service)
    ids = [n.id for n in service.claim_notifications("relay", 1000)]
    real = service.outbox._settle
    aborted = []

    class Deadlock(Exception):
        sqlstate = "40P01"

    def flaky(*args: Any) -> None:
        if not aborted:
            aborted.append(True)
            raise OperationalError("UPDATE notifications ...", {}, Deadlock())
        real(*args)

    monkeypatch.setattr(service.outbox, "_settle", flaky)
    service.settle_notifications(ids)
    assert aborted and service.outbox_backlog() == 0


def test_a_claim_is_held_while_ours_and_lost_once_another_relay_took_it(
    service: GameService, clock: FakeClock
) -> None:
    _started(service)
    ids = [n.id for n in service.claim_notifications("relay-a", 1000)]
    assert service.hold_notifications("relay-a", ids) == set(ids)  # renewed
    assert service.hold_notifications("relay-b", ids) == set()  # a live claim of relay-a
    clock.advance(service.outbox_lease + timedelta(seconds=1))
    # Lapsed but taken by nobody: still relay-a's to send (and renewed).
    assert service.hold_notifications("relay-a", ids) == set(ids)
    assert service.claim_notifications("relay-b", 1000) == []
    clock.advance(service.outbox_lease + timedelta(seconds=1))
    taken = [n.id for n in service.claim_notifications("relay-b", 1000)]
    assert taken == ids
    # relay-a was too slow: it holds nothing, and its retry or release leaves relay-b's
    # claim alone; what it did send is still recorded.
    assert service.hold_notifications("relay-a", ids) == set()
    service.settle_notifications(ids[:1], retry=ids[1:2], release=ids[2:], owner="relay-a")
    assert service.claim_notifications("relay-c", 1000) == []
    assert service.hold_notifications("relay-b", ids) == set(ids[1:])
    service.settle_notifications(ids[1:], owner="relay-b")
    assert service.outbox_backlog() == 0


def test_settling_survives_a_lost_connection(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    _started(service)
    ids = [n.id for n in service.claim_notifications("relay", 1000)]
    real = service.outbox._settle
    broken = []

    def flaky(*args: Any) -> None:
        if not broken:
            broken.append(True)
            raise OperationalError("UPDATE notifications ...", {}, Exception("gone"),
                                   connection_invalidated=True)
        real(*args)

    monkeypatch.setattr(service.outbox, "_settle", flaky)
    service.settle_notifications(ids)
    assert broken and service.outbox_backlog() == 0
