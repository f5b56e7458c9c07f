"""Two replicas and one slow delivery: a game's final table is posted once even when the
replica that made the last move takes longer than the outbox lease to deliver it (a Bot API
call in flight, a delivery stuck behind others), while the other replica's relay looks for
lapsed claims. Deterministic: a clock moved by hand, a send held at a gate."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import Application

from kolkhoz_tg.bot.app import DEPS_KEY, Deps, shutdown
from kolkhoz_tg.bot.delivery import Deliverer, Relay
from kolkhoz_tg.service import ActResult, GameService, Kind
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import players
from tests.conftest import make_settings
from tests.faketg import FakeChat, FakeTelegram

App = Application[Any, Any, Any, Any, Any, Any]
FINAL = "plan is complete"


class GatedBot:
    """The application's bot, except that the first group message matching ``match`` waits
    at a gate (a call in flight) until the test opens it."""

    def __init__(self, bot: Any, chat_id: int, match: str) -> None:
        self._bot = bot
        self._chat_id = chat_id
        self._match = match
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bot, name)

    async def send_message(self, chat_id: int, text: str, **kwargs: Any) -> Any:
        if chat_id == self._chat_id and self._match in text and not self.entered.is_set():
            self.entered.set()
            await self.gate.wait()
        return await self._bot.send_message(chat_id, text, **kwargs)


def replica(fake: FakeTelegram, url: str, clock: FakeClock, name: str) -> App:
    """A bot process of its own: its own service (and connections), its own relay name."""
    service = GameService(Database(url), clock=clock, settings=make_settings(database_url=url))
    app = make_app(fake, service)
    deps: Deps = app.bot_data[DEPS_KEY]
    relay: Relay = deps.relay
    relay.owner = relay.deliverer.owner = service.outbox_owner = name
    return app


def deps(app: App) -> Deps:
    return app.bot_data[DEPS_KEY]  # type: ignore[no-any-return]


def last_move(service: GameService, group: FakeChat, user_ids: list[int]) -> ActResult:
    """A game in ``group`` played through ``service`` up to its last move, whose result is
    returned undelivered (everything before it is settled as if delivered)."""
    game = service.create_game(group.id, user_ids[0], creator_name="Anna")
    for user in user_ids[1:]:
        service.join(game.id, user, f"P{user}")
    service.start(game.id, by_user=user_ids[0])
    for _ in range(1000):
        service.settle_notifications([n.id for n in service.pending_notifications(1000)])
        who = next(u for u in user_ids if service.seat_view(game.id, u).to_act)
        sv = service.seat_view(game.id, who)
        result = service.act(game.id, who, sv.legal[0], sv.game.version)
        assert result.ok
        if any(n.kind is Kind.GAME_OVER for n in result.notifications):
            return result
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.parametrize("slow", ["final_post", "board_before_it"])
async def test_a_final_table_is_posted_once_when_its_delivery_outlives_the_lease(
    fake: FakeTelegram, clock: FakeClock, backend: str, slow: str,
    request: pytest.FixtureRequest, tmp_path: Path,
) -> None:
    url = (request.getfixturevalue("pg_url") if backend == "postgres"
           else f"sqlite:///{tmp_path / 'replicas.sqlite3'}")
    users = players(fake, base=7700)
    group = fake.create_group("Slow final", users)
    a, b = replica(fake, url, clock, "replica-a"), replica(fake, url, clock, "replica-b")
    service = deps(a).service
    result = last_move(service, group, [u.id for u in users])
    deliverer: Deliverer = deps(a).deliverer
    # final_post: the final table's own sendMessage is in flight longer than the lease (the
    # claims are renewed meanwhile). board_before_it: the call before it (the board) is, and
    # the process is too busy to renew anything: the other relay takes the game over.
    match = FINAL if slow == "final_post" else "five-year plan is over"
    gated = GatedBot(deliverer.bot, group.id, match)
    deliverer.bot = gated  # type: ignore[assignment]
    deliverer.heartbeat = 0.01 if slow == "final_post" else 3600.0
    try:
        async with fake.running(a), fake.running(b):
            sending = asyncio.create_task(
                deliverer.deliver(result.notifications, scene=result.scene))
            await asyncio.wait_for(gated.entered.wait(), 10)
            for _ in range(8):  # 40 s pass while the call is in flight
                clock.advance(timedelta(seconds=5))
                await asyncio.sleep(0.05)
            await deps(b).relay.tick(wait=True)  # the other replica looks for lapsed claims
            gated.gate.set()
            await asyncio.wait_for(sending, 10)
            await deps(b).relay.drain()
            await deps(a).relay.drain()
    finally:
        await shutdown(a)
        await shutdown(b)
        for app in (a, b):
            deps(app).service.db.dispose()
    finals = [m for m in fake.bot_messages(group) if FINAL in (m.text or "")]
    assert len(finals) == 1, [m.text for m in finals]
    check = GameService(Database(url), clock=clock, settings=make_settings(database_url=url))
    assert check.outbox_backlog() == 0
    check.db.dispose()


def test_a_relay_of_this_host_that_is_gone_is_known_as_dead() -> None:
    """Claims name their relay by host, process id and start: a process of this host whose
    id no process has now, or this process's own id with another start (a container's
    process 1 restarted), is gone; a live process or another host is never judged so."""
    import os
    import subprocess
    import sys

    from kolkhoz_tg.bot.delivery import dead_here, relay_name

    me = relay_name()
    host = me.split(":")[0]
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert dead_here(f"{host}:{gone.pid}:1", me)
    assert dead_here(f"{host}:{gone.pid}", me)  # named before start times were
    assert dead_here(f"{host}:{os.getpid()}:1", me)  # our id, an earlier start
    assert not dead_here(me, me)
    assert not dead_here(f"{host}:{os.getppid()}:1", me)  # alive
    assert not dead_here(f"other-host:{gone.pid}:1", me)
    assert not dead_here("nonsense", me)


async def test_a_restarted_process_takes_over_the_claims_of_the_one_that_died(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    """kill -9 during a delivery: the dead process's claims still had most of their lease
    to run. The process started in its place takes them over at start-up, so what was owed
    goes out at once, not after the lease."""
    from kolkhoz_tg.bot.app import startup
    from kolkhoz_tg.bot.delivery import relay_name

    users = players(fake, base=9700)
    group = fake.create_group("Killed", users)
    result = last_move(service, group, [u.id for u in users])
    host, pid, _start = relay_name().split(":")
    dead = f"{host}:{pid}:1"  # this process id, an earlier life
    claimed = service.claim_notifications(dead, 1000)
    assert {n.id for n in claimed} >= {n.id for n in result.notifications}
    app = make_app(fake, service, schedule=False)
    async with fake.running(app):
        await startup(app)  # the start-up takes the claims over; the relay delivers
        await deps(app).relay.drain()
        await fake.wait_idle()
        assert any(FINAL in (m.text or "") for m in fake.messages(group)), (
            "what the dead process owed waited for its lease")
        await shutdown(app)
