"""Shared fixtures: a fake clock, a migrated SQLite service per test, PostgreSQL when given.

PostgreSQL tests run when ``KOLKHOZ_TEST_POSTGRES_URL`` is set (CI sets it when a server is
reachable); each gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from kolkhoz_tg.config import Settings
from kolkhoz_tg.service import GameService
from kolkhoz_tg.storage.database import Database
from kolkhoz_tg.timeutil import FakeClock

POSTGRES_ENV = "KOLKHOZ_TEST_POSTGRES_URL"


def make_settings(**overrides: object) -> Settings:
    """Settings that ignore the developer's .env and environment."""
    values: dict[str, object] = {"database_url": "sqlite://", "locale": "en"}
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once per session; tests copy it instead of migrating again."""
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    db = Database(f"sqlite:///{path}")
    with db.engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    db.dispose()
    return path


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    path = tmp_path / "kolkhoz.sqlite3"
    shutil.copy(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))


@pytest.fixture
def service(sqlite_url: str, clock: FakeClock) -> Iterator[GameService]:
    db = Database(sqlite_url, run_migrations=False)
    yield GameService(db, clock=clock, settings=make_settings())
    db.dispose()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose connections use a fresh schema; skips without a server."""
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"PostgreSQL tests need {POSTGRES_ENV} (e.g. postgresql+psycopg://...)")
    import sqlalchemy as sa

    from kolkhoz_tg.storage.database import scratch_schema

    with contextlib.ExitStack() as stack:
        try:
            url = stack.enter_context(scratch_schema(base, f"t_{uuid.uuid4().hex[:12]}"))
        except sa.exc.OperationalError as e:  # pragma: no cover - depends on the machine
            pytest.skip(f"PostgreSQL at {POSTGRES_ENV} is not reachable: {e}")
        yield url


@pytest.fixture
def pg_service(pg_url: str, clock: FakeClock) -> Iterator[GameService]:
    db = Database(pg_url)
    yield GameService(db, clock=clock, settings=make_settings())
    db.dispose()
