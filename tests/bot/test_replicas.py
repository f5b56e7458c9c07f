"""Two bot replicas behind a load balancer share one PostgreSQL: 50 games played to the end
by tapping buttons, every update going to a replica chosen at random, the deadline sweeps
running in both; no game corrupted, no move applied twice, no timeout fired twice.

The replicas are real ``kolkhoz bot --webhook`` processes talking to the fake Telegram over
HTTP; the fake POSTs every update to a small proxy (:class:`tests.bot.replicas.LoadBalancer`)
that forwards it to one of them. Bots and people: two of each per game. In three games the
second person goes silent on a trick until the one-minute deadline passes; a timeout then
plays for them, exactly once. Takes about two and a half minutes on two cores.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import col, select

from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.storage.models import NotificationRow
from tests.bot.replicas import POLL, STEP_TIMEOUT, Driver, LoadBalancer, Replica, Table
from tests.conftest import make_settings
from tests.faketg import FakeBotApiServer, FakeTelegram
from tests.helpers import until

pytestmark = pytest.mark.postgres

GAMES = 50
SILENT_TABLES = (3, 21, 38)
TURN_TIMEOUT = 60  # seconds: the shortest time limit there is
SILENCE = 70.0  # how long a silent player stays silent at least
PLAY_BUDGET = 300.0  # seconds for playing every game to the end


@pytest.fixture
def shared_service(pg_url: str) -> Iterator[GameService]:
    """The test's own view of the shared database (it also migrates the fresh schema)."""
    db = Database(pg_url)
    yield GameService(db, settings=make_settings(database_url=pg_url, turn_timeout="1m"))
    db.dispose()


async def test_two_replicas_play_50_games_on_one_postgres(
    pg_url: str, shared_service: GameService, tmp_path: Path, fake: FakeTelegram
) -> None:
    began = time.monotonic()
    service = shared_service
    balancer = LoadBalancer(seed=7)
    replicas: list[Replica] = []
    async with FakeBotApiServer(fake) as server:
        env = {
            "KOLKHOZ_BOT_TOKEN": fake.token,
            "KOLKHOZ_BOT_API_URL": server.base_url,
            "KOLKHOZ_DATABASE_URL": pg_url,
            "KOLKHOZ_SWEEP_INTERVAL": "1s",
            "KOLKHOZ_TURN_TIMEOUT": "1m",
            "KOLKHOZ_LOCALE": "en",
            "KOLKHOZ_LOG_FORMAT": "json",
            # The scheduler's "Running job" lines, which show the sweeps ran, are DEBUG now.
            "KOLKHOZ_LOG_LEVEL": "DEBUG",
        }
        replicas = [Replica(f"replica {i}", tmp_path / f"replica{i}", balancer.url, env)
                    for i in range(2)]
        for r in replicas:
            balancer.add(r.url)
        balancer.start()
        try:
            for r in replicas:
                r.start()
            await asyncio.gather(*(r.wait_healthy() for r in replicas))
            await until(lambda: sum(w["action"] == "set" for w in fake.webhook_log) == 2,
                        "both replicas to register the webhook", timeout=STEP_TIMEOUT, poll=POLL)
            assert fake.webhook is not None
            assert fake.webhook["url"] == balancer.url + "/telegram"
            started = time.monotonic()

            tables = []
            for i in range(GAMES):
                humans = [fake.user(10_000 + 2 * i + k, name, language_code="en")
                          for k, name in enumerate(("Anna", "Boris"))]
                group = fake.create_group(f"Replicas {i}", humans)
                tables.append(Table(i, group, humans, silent=i in SILENT_TABLES))
            driver = Driver(fake, service, seed=11)

            async def run(t: Table) -> None:
                await driver.open(t)
                await driver.play(t, silent_after=SILENCE)

            await asyncio.wait_for(asyncio.gather(*(run(t) for t in tables)), PLAY_BUDGET)
            played = time.monotonic()
            # Everything was answered; give the sweeps a few more rounds in both replicas:
            # nothing may be due any more, so nothing may change.
            versions = {t.game_id: (await driver.info(t.game_id)).version for t in tables}
            await asyncio.sleep(3)
            codes = [await r.stop() for r in replicas]
        finally:
            for r in replicas:
                r.kill()
            await balancer.stop()
    logs = {r.name: r.log_text() for r in replicas}
    assert codes == [0, 0], logs
    assert all('"message": "stopped"' in text for text in logs.values())

    # ------------------------------------------------------------------ the fake Telegram
    assert not fake.internal_errors and not fake.unknown_methods
    fake.assert_all_callbacks_answered()
    assert all(q.answer_count == 1 for q in fake.callback_queries.values())
    assert not fake.pending_updates
    assert fake.webhook_deliveries and all(s == 200 for _, s in fake.webhook_deliveries)
    shares = [sum(c.values()) for c in balancer.statuses]
    assert all(n > 0.3 * sum(shares) for n in shares), shares
    sweeps = []
    for name, text in logs.items():
        problems = [line for line in text.splitlines() if _is_problem(line)]
        assert not problems, (name, problems[:5])
        # The deadline sweep ran every second in each replica.
        sweeps.append(text.count('Running job \\"DeadlineScheduler.sweep'))
        assert sweeps[-1] > 0.5 * (played - started), (name, sweeps[-1])

    # ------------------------------------------------------------------ every game
    timeouts = 0
    longest = 0.0  # the longest a move was waited for in a game without silence
    player_moves = 0
    moves = 0
    notes = _notifications(service, [t.game_id for t in tables])
    for t in tables:
        gid = t.game_id
        info = service.game_info(gid)
        assert info.status == "finished", (t.index, info.status)
        assert info.version == versions[gid], (t.index, "changed after the end")
        log = service.action_log(gid)
        moves += len(log)
        # One log: seq 0, 1, 2, ... with no gap or repeat; versions never go back.
        assert [e["seq"] for e in log] == list(range(len(log))), t.index
        assert all(a["version"] <= b["version"] for a, b in itertools.pairwise(log))
        # The stored game is exactly the replay of its log, over and scored.
        stored, replayed = service.snapshot(gid), service.replay(gid)
        assert stored is not None and stored.is_over
        assert replayed == stored, t.index
        scores = replayed.scores()
        over = [n for n in notes[gid] if n.kind == "game_over"]
        assert len(over) == 1, (t.index, len(over))
        assert {r["seat"]: r["score"] for r in over[0].data["table"]} == dict(enumerate(scores))
        for stats in service.chat_stats(t.group.id):
            seat = info.seat_of(stats.user_id)
            assert seat is not None and stats.finished == 1
            assert stats.total_score == scores[seat], (t.index, stats)
        finals = [m for m in fake.bot_messages(t.group) if "plan is complete" in (m.text or "")]
        assert len(finals) == 1, (t.index, len(finals))
        # Each accepted tap is one move of that person, and no other move is theirs.
        seat_user = {s.seat: s.user_id for s in info.seats}
        by_user = Counter(e["user_id"] for e in log if e["actor"] == "player")
        for e in log:
            if e["actor"] == "player":
                assert seat_user[e["seat"]] == e["user_id"], (t.index, e)
        assert by_user == t.accepted, (t.index, by_user, t.accepted)
        player_moves += sum(by_user.values())
        # Timeouts: one per deadline that passed, for the silent seat, not before its time.
        timed_out = [e for e in log if e["actor"] in ("timeout", "standin")]
        if not t.silent:
            assert not timed_out, (t.index, timed_out)
            assert not t.silences
            longest = max([longest, *((b["at"] - a["at"]).total_seconds()
                                      for a, b in itertools.pairwise(log))])
            continue
        [silence] = t.silences
        assert timed_out, (t.index, "no timeout")
        assert {e["actor"] for e in timed_out} == {"timeout"}
        assert {(e["seat"], e["version"]) for e in timed_out} == {
            (silence.seat, silence.version)}, (t.index, timed_out)
        assert len(timed_out) == 1, (t.index, timed_out)  # a trick card: one move
        first = timed_out[0]["seq"]
        gap = (log[first]["at"] - log[first - 1]["at"]).total_seconds()
        assert TURN_TIMEOUT <= gap < TURN_TIMEOUT + 15, (t.index, gap)
        timeouts += 1
    assert timeouts == len(SILENT_TABLES)
    # Reminders (half the time limit) are due only in a silent turn; never twice.
    reminders = [(n.game_id, n.user_id, n.version, n.data.get("last"))
                 for ns in notes.values() for n in ns if n.kind == "reminder"]
    assert len(reminders) == len(set(reminders)), Counter(reminders).most_common(3)
    silent_ids = {t.game_id for t in tables if t.silent}
    assert {g for g, *_ in reminders} <= silent_ids
    pairs = [pair for t in tables for pair in t.double_taps]
    routes = balancer.callback_routes
    split = sum(routes[a] != routes[b] for a, b in pairs)  # one query to each replica
    assert len(pairs) >= 50 and split >= 20, (len(pairs), split)
    # A double tap's second query was refused as done already (or as stale, when it was
    # handled while the first one held the game).
    assert set(driver.refusals) <= {"Already done.", "The game has moved on; look again."}
    silent_for = [round(s.waited) for t in tables for s in t.silences]
    finished = time.monotonic()
    print(
        f"\n{GAMES} games, {moves} moves, {player_moves} by {driver.taps} taps; "
        f"{len(pairs)} double taps ({split} split over the replicas): "
        f"{dict(driver.refusals)}; {timeouts} timeouts after {silent_for} s of silence; "
        f"updates per replica {shares}, "
        f"sweeps {sweeps}; slowest answer {driver.slowest:.1f}s, longest turn {longest:.1f}s; "
        f"start {started - began:.1f}s, play {played - started:.1f}s, "
        f"total {finished - began:.1f}s"
    )


def _is_problem(line: str) -> bool:
    try:
        record = json.loads(line)
    except ValueError:
        return "Traceback" in line or "Error" in line
    return record.get("level") in ("ERROR", "CRITICAL")


def _notifications(service: GameService, ids: list[int]) -> dict[int, list[NotificationRow]]:
    out: dict[int, list[NotificationRow]] = defaultdict(list)
    with service.db.read() as s:
        for n in s.exec(select(NotificationRow).where(col(NotificationRow.game_id).in_(ids))):
            assert n.game_id is not None
            out[n.game_id].append(n)
    return out
