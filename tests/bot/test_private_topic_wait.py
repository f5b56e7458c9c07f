"""Waiting for the game's topic in a player's private chat that another delivery is making
(see tests/bot/test_private_topic_race.py for the race itself): the wait looks with reads,
not write transactions, and gives up after a few seconds; a busy database passes (the relay
tries again) and does not lose a topic made; a topic made after this delivery's claim lapsed,
when another one's is stored meanwhile, is deleted rather than left empty in the chat."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from kolkhoz_tg.bot.delivery import private_topics
from kolkhoz_tg.bot.delivery.private_topics import CLAIM_LEASE
from kolkhoz_tg.service import Busy, GameService, MetaClaim
from kolkhoz_tg.service.meta_claims import claim_key
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.test_outbox_takeover import deps
from tests.bot.test_private_topic_race import anna_seated, started_game
from tests.faketg import FakeTelegram, FakeUser


def hands(fake: FakeTelegram, user: FakeUser) -> list[Any]:
    """The game's messages in the player's private chat."""
    return [m for m in user.private_messages() if m.from_id == fake.bot_id
            and "Dacha" in (m.text or "")]


def counting(service: GameService, name: str, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The calls of the service's method ``name`` from now on."""
    calls: list[Any] = []
    real = getattr(service, name)

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(service, name, counted)
    return calls


def busy_first(service: GameService, name: str, times: int,
               monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The service's method ``name`` finds the database busy its first ``times`` calls;
    returns the calls."""
    calls: list[Any] = []
    real = getattr(service, name)

    def busy(*args: Any) -> MetaClaim:
        calls.append(args)
        if len(calls) <= times:
            raise Busy("the database is locked by another process")
        result: MetaClaim = real(*args)
        return result

    monkeypatch.setattr(service, name, busy)
    return calls


async def test_a_wait_for_anothers_topic_reads_and_ends_within_seconds(
    fake: FakeTelegram, service: GameService, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with anna_seated(fake, service, 8800) as (app, anna, game_id, key):
        topics = deps(app).deliverer.private_topics
        # A wait holds the game's deliveries: a few seconds, well within the outbox lease.
        assert topics.wait <= 5 < service.outbox_lease.total_seconds()
        topics.wait = 0.6
        writes = counting(service, "claim_meta", monkeypatch)
        # Another replica holds the claim and makes nothing: one write (the first claim),
        # then reads only, until the message waits for the relay.
        assert service.claim_meta(game_id, key, "replica-b/1", CLAIM_LEASE).claimed
        writes.clear()
        assert not await deps(app).deliverer.refresh_private(game_id, anna.id, new=True)
        assert len(writes) == 1, writes
        assert fake.calls("createForumTopic") == [] and not hands(fake, anna)

        # It stores its topic while this delivery waits: read, and written into.
        async def other_replica() -> int:
            await asyncio.sleep(0.2)
            made = await deps(app).deliverer.bot.create_forum_topic(anna.id, "Kolkhoz (b)")
            service.fill_meta(game_id, key, "replica-b/1", made.message_thread_id)
            return int(made.message_thread_id)

        writes.clear()
        topic, shown = await asyncio.gather(
            other_replica(), deps(app).deliverer.refresh_private(game_id, anna.id, new=True))
        assert shown and len(writes) == 1, writes
        assert hands(fake, anna)[-1].thread_id == topic
        assert len(fake.calls("createForumTopic")) == 1  # (the other replica's)

        # A claim (of her next game) that lapses during the wait is taken over: a write
        # once a read saw it lapse, and her topic of that game made here.
        second, _started = started_game(service, fake, anna)
        assert service.claim_meta(second, key, "replica-b/2", CLAIM_LEASE).claimed

        async def lapse() -> None:
            await asyncio.sleep(0.2)
            clock.advance(CLAIM_LEASE + timedelta(seconds=1))

        topics.wait = 5
        writes.clear()
        _, shown = await asyncio.gather(
            lapse(), deps(app).deliverer.refresh_private(second, anna.id, new=True))
        assert shown and len(writes) == 2, writes
        made = fake.calls("createForumTopic", ok=True)[-1]
        assert hands(fake, anna)[-1].thread_id == int(made.result["message_thread_id"])


async def test_a_busy_database_passes_and_keeps_the_topic_made(
    fake: FakeTelegram, service: GameService, monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with anna_seated(fake, service, 8810) as (app, anna, game_id, key):
        deliverer = deps(app).deliverer
        # Busy at the claim: the message waits for the relay (no error escapes).
        busy_first(service, "claim_meta", 1, monkeypatch)
        assert not await deliverer.refresh_private(game_id, anna.id, new=True)
        assert fake.calls("createForumTopic") == [] and not hands(fake, anna)
        # Busy when the topic made is stored: stored on a second try, not lost.
        fills = busy_first(service, "fill_meta", 2, monkeypatch)
        monkeypatch.setattr(private_topics, "FILL_PAUSES", (0.01, 0.01, 0.01))
        assert await deliverer.refresh_private(game_id, anna.id, new=True)
        (made,) = fake.calls("createForumTopic", ok=True)
        topic = int(made.result["message_thread_id"])
        assert len(fills) == 3 and hands(fake, anna)[-1].thread_id == topic
        meta = service.game_info(game_id).meta
        assert meta[key] == topic and claim_key(key) not in meta


async def test_a_topic_that_stays_busy_is_stored_with_the_settle(
    fake: FakeTelegram, service: GameService, clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with anna_seated(fake, service, 8820) as (app, anna, game_id, key):
        busy_first(service, "fill_meta", 100, monkeypatch)
        monkeypatch.setattr(private_topics, "FILL_PAUSES", (0.01,))
        deliverer = deps(app).deliverer
        assert await deliverer.refresh_private(game_id, anna.id, new=True)
        (made,) = fake.calls("createForumTopic", ok=True)
        topic = int(made.result["message_thread_id"])
        assert hands(fake, anna)[-1].thread_id == topic
        assert service.game_info(game_id).meta[key] == topic
        # Once the claim lapsed, a second delivery (another replica) finds it: no new topic.
        clock.advance(CLAIM_LEASE + timedelta(seconds=1))
        deliverer.settler.meta.clear()
        assert await deliverer.refresh_private(game_id, anna.id, new=True)
        assert len(fake.calls("createForumTopic")) == 1
        assert hands(fake, anna)[-1].thread_id == topic


class LateTopics:
    """The application's bot, whose first ``createForumTopic`` is held back past the
    claim's lease (a rate limiter after an outage), while another replica takes the lapsed
    claim over, makes its own topic and stores it."""

    def __init__(self, bot: Any, service: GameService, clock: FakeClock, game_id: int,
                 key: str) -> None:
        self._bot = bot
        self._late = (service, clock, game_id, key)
        self.others: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bot, name)

    async def create_forum_topic(self, *args: Any, **kwargs: Any) -> Any:
        if not self.others:
            service, clock, game_id, key = self._late
            clock.advance(CLAIM_LEASE + timedelta(seconds=1))
            assert service.claim_meta(game_id, key, "replica-b/1", CLAIM_LEASE).claimed
            other = await self._bot.create_forum_topic(*args, **kwargs)
            self.others.append(int(other.message_thread_id))
            service.fill_meta(game_id, key, "replica-b/1", other.message_thread_id)
        return await self._bot.create_forum_topic(*args, **kwargs)


async def test_a_topic_made_after_the_lease_lapsed_is_deleted_when_anothers_is_kept(
    fake: FakeTelegram, service: GameService, clock: FakeClock,
) -> None:
    async with anna_seated(fake, service, 8830) as (app, anna, game_id, key):
        deliverer = deps(app).deliverer
        late = LateTopics(deliverer.bot, service, clock, game_id, key)
        deliverer.bot = late  # type: ignore[assignment]
        assert await deliverer.refresh_private(game_id, anna.id, new=True)
    (kept,) = late.others
    ours = [int(c.result["message_thread_id"]) for c in fake.calls("createForumTopic", ok=True)
            if int(c.result["message_thread_id"]) != kept]
    assert len(ours) == 1
    (deleted,) = fake.calls("deleteForumTopic", ok=True)
    assert int(deleted.params["message_thread_id"]) == ours[0]
    assert fake.chat(anna.id).topics[ours[0]].deleted
    assert not fake.chat(anna.id).topics[kept].deleted
    assert service.game_info(game_id).meta[key] == kept
    assert hands(fake, anna)[-1].thread_id == kept
