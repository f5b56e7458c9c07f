"""A game's topic in a player's private chat is made once, even when two replicas on one
database both find none yet and write to the player at the same moment: the one that claims
it in the database makes it, the other waits for its id and writes into the same topic. A
replica that claimed it and died holds the others off only until its claim lapses. On SQLite
and PostgreSQL (``KOLKHOZ_TEST_POSTGRES_URL``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from kolkhoz_tg.bot.app import shutdown
from kolkhoz_tg.bot.delivery.private_topics import CLAIM_LEASE, pm_topic_key
from kolkhoz_tg.service import GameService
from kolkhoz_tg.service.meta_claims import claim_key
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.test_outbox_takeover import App, deps, replica
from tests.conftest import make_settings
from tests.faketg import FakeTelegram, FakeUser


class SlowTopics:
    """The application's bot, except that ``createForumTopic`` takes a while (a slow Bot
    API): time enough for the other replica to look for the topic meanwhile."""

    def __init__(self, bot: Any, seconds: float = 0.3) -> None:
        self._bot = bot
        self._seconds = seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bot, name)

    async def create_forum_topic(self, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(self._seconds)
        return await self._bot.create_forum_topic(*args, **kwargs)


def db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if backend == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path / 'replicas.sqlite3'}"


def started_game(service: GameService, fake: FakeTelegram, anna: FakeUser) -> tuple[int, Any]:
    """Anna and three computer players at a game in a supergroup, started through the
    service: (its id, the start's result, not delivered yet)."""
    group = fake.create_group("Dacha", [anna], supergroup=True)
    service.ensure_chat(group.id, "Dacha")
    info = service.create_game(group.id, anna.id, creator_name="Anna", seed=5)
    for _ in range(3):
        service.add_ai_player(info.id, anna.id, level="normal")
    return info.id, service.start(info.id, anna.id)


@contextlib.asynccontextmanager
async def anna_seated(
    fake: FakeTelegram, service: GameService, user_id: int
) -> AsyncIterator[tuple[App, FakeUser, int, str]]:
    """Topic mode on, the bot running, and Anna (``user_id``) at a game started through the
    service (not delivered yet): the app, Anna, the game's id and her topic's meta key."""
    fake.private_topics = True
    anna = fake.user(user_id, "Anna", language_code="en")
    app = make_app(fake, service)
    async with fake.running(app):
        await anna.start_bot()
        game_id, _started = started_game(service, fake, anna)
        yield app, anna, game_id, pm_topic_key(anna.id)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_two_replicas_make_one_topic_for_a_player(
    fake: FakeTelegram, clock: FakeClock, backend: str, request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:
    fake.private_topics = True
    url = db_url(backend, request, tmp_path)
    anna = fake.user(8600, "Anna", language_code="en")
    a, b = replica(fake, url, clock, "replica-a"), replica(fake, url, clock, "replica-b")
    apps: list[App] = [a, b]
    try:
        async with fake.running(a), fake.running(b):
            await anna.start_bot()
            game_id, started = started_game(deps(a).service, fake, anna)
            for app in apps:
                deps(app).deliverer.bot = SlowTopics(deps(app).deliverer.bot)
            # Replica A delivers the start (her first game message) while replica B sends
            # her the game anew (/mygames tapped on it, say): both find no topic yet.
            await asyncio.gather(
                deps(a).deliverer.deliver(started.notifications, scene=started.scene),
                deps(b).deliverer.refresh_private(game_id, anna.id, new=True))
            await fake.wait_idle()
    finally:
        for app in apps:
            await shutdown(app)
    made = [c for c in fake.calls("createForumTopic") if int(c.params["chat_id"]) == anna.id]
    assert len(made) == 1, made
    topic = int(made[0].result["message_thread_id"])
    hands = [m for m in anna.private_messages() if m.from_id == fake.bot_id
             and "Dacha" in (m.text or "")]
    assert len(hands) >= 2 and all(m.thread_id == topic for m in hands)
    check = GameService(Database(url), clock=clock, settings=make_settings(database_url=url))
    meta = check.game_info(game_id).meta
    assert meta[pm_topic_key(anna.id)] == topic
    assert claim_key(pm_topic_key(anna.id)) not in meta  # the claim given up once filled
    for app in apps:
        deps(app).service.db.dispose()
    check.db.dispose()


async def test_a_claim_of_a_replica_that_died_holds_off_only_until_it_lapses(
    fake: FakeTelegram, service: GameService, clock: FakeClock
) -> None:
    async with anna_seated(fake, service, 8700) as (app, anna, game_id, key):
        # Another replica claimed her topic and died before it made it.
        assert service.claim_meta(game_id, key, "replica-gone/1", CLAIM_LEASE).claimed
        deliverer = deps(app).deliverer
        deliverer.private_topics.wait = 0.2
        # While its claim runs, her message waits (for the relay) rather than make a
        # second topic or go to the plain chat.
        assert not await deliverer.refresh_private(game_id, anna.id, new=True)
        assert fake.calls("createForumTopic") == []
        assert not [m for m in anna.private_messages() if "Dacha" in (m.text or "")]
        clock.advance(CLAIM_LEASE + timedelta(seconds=1))
        assert await deliverer.refresh_private(game_id, anna.id, new=True)
        (made,) = fake.calls("createForumTopic", ok=True)
        topic = int(made.result["message_thread_id"])
        hand = [m for m in anna.private_messages() if "Dacha" in (m.text or "")][-1]
        assert hand.thread_id == topic
        assert service.game_info(game_id).meta[key] == topic

async def test_a_claim_of_a_process_of_this_host_that_died_is_taken_over_at_once(
    fake: FakeTelegram, service: GameService
) -> None:
    """A claimant named as a process of this host that no longer runs (killed mid-claim,
    the process restarted in its container) holds nothing: the next delivery makes the
    topic at once, without waiting out its lease; a live claimant is still waited for."""
    import subprocess
    import sys

    from kolkhoz_tg.bot.delivery import relay_name

    async with anna_seated(fake, service, 8701) as (app, anna, game_id, key):
        host = relay_name().split(":")[0]
        alive = f"{host}:{os.getppid()}:1/alive"
        assert service.claim_meta(game_id, key, alive, CLAIM_LEASE).claimed
        deliverer = deps(app).deliverer
        deliverer.private_topics.wait = 0.2
        assert not await deliverer.refresh_private(game_id, anna.id, new=True)
        assert fake.calls("createForumTopic") == []
        gone = subprocess.Popen([sys.executable, "-c", "pass"])
        gone.wait()
        service.fill_meta(game_id, key, alive, None)
        assert service.claim_meta(game_id, key, f"{host}:{gone.pid}:1/dead", CLAIM_LEASE).claimed
        assert await deliverer.refresh_private(game_id, anna.id, new=True)
        (made,) = fake.calls("createForumTopic", ok=True)
        assert service.game_info(game_id).meta[key] == int(made.result["message_thread_id"])
        assert claim_key(key) not in service.game_info(game_id).meta
