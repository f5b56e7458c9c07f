"""The operator's metrics (issue: run it like a service): with ``KOLKHOZ_METRICS_PORT`` set,
the running bot answers ``GET /metrics`` in Prometheus's text format with the figures
docs/operators.md alerts on, and they move as the game does."""

from __future__ import annotations

import asyncio
import re

import httpx

from kolkhoz_tg import metrics
from kolkhoz_tg.bot.app import shutdown, startup
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock
from tests.bot.conftest import make_app
from tests.bot.driver import action_buttons, open_game, players
from tests.conftest import make_settings
from tests.faketg import FakeTelegram
from tests.faketg.fixtures import fake, no_real_telegram  # noqa: F401


def value(text: str, name: str) -> float:
    """A sample's value in a scrape (the first line that names it exactly)."""
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match is not None, f"{name} not in the scrape"
    return float(match.group(1))


async def scrape(port: int) -> str:
    async with httpx.AsyncClient() as client:
        answer = await client.get(f"http://127.0.0.1:{port}/metrics")
    assert answer.status_code == 200
    return answer.text


async def test_the_metrics_endpoint_is_scraped_while_a_game_is_played(
    fake: FakeTelegram, sqlite_url: str, clock: FakeClock,  # noqa: F811
) -> None:
    settings = make_settings(database_url=sqlite_url, metrics_port=0)
    service = GameService(Database(sqlite_url, run_migrations=False), clock=clock,
                          settings=settings)
    users = players(fake, base=9800)
    group = fake.create_group("Watched", users)
    app = make_app(fake, service)
    try:
        async with fake.running(app):
            await startup(app)
            port = metrics.served_port()
            assert port is not None
            before = await scrape(port)
            assert value(before, "kolkhoz_games_active") == 0
            assert value(before, "kolkhoz_engine_compiled") == 0  # the tests run it plain
            for name in ("kolkhoz_outbox_owed", "kolkhoz_outbox_oldest_seconds",
                         "kolkhoz_deadlines_due", "kolkhoz_deadlines_late",
                         "process_start_time_seconds"):
                value(before, name)
            # (Families with labels show once they have a sample: moves, failures…)
            assert "# TYPE kolkhoz_tap_seconds histogram" in before
            taps = value(before, "kolkhoz_tap_seconds_count")
            game_id = await open_game(fake, users, group)
            actor = next(u for u in users if service.seat_view(game_id, u.id).to_act)
            msg = actor.last_message()
            assert msg is not None
            await actor.tap(msg, action_buttons(msg)[0])
            await asyncio.sleep(0)
            after = await scrape(port)
            assert value(after, "kolkhoz_games_active") == 1
            assert value(after, "kolkhoz_tap_seconds_count") >= taps + 4  # joins, start, move
            assert value(after, 'kolkhoz_moves_total{actor="player"}') >= 1
            await shutdown(app)
        assert metrics.served_port() is None
    finally:
        metrics.stop()
        service.db.dispose()
