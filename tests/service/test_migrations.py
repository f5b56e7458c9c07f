"""The schema comes only from Alembic migrations, and they match the models."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import kolkhoz_tg.storage.models  # noqa: F401
from kolkhoz_tg.storage.database import Database, migrate


def _drift(db: Database) -> list[object]:
    with db.engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(ctx, SQLModel.metadata))


def test_sqlite_migrations_match_models(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    assert _drift(db) == []
    migrate(db.engine)  # applying again is a no-op
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    db.dispose()


def test_postgres_migrations_match_models(pg_url: str) -> None:
    db = Database(pg_url)
    assert _drift(db) == []
    db.dispose()


def _pending_index(db: Database) -> str:
    """How the database itself defines the outbox's index of undelivered rows."""
    query = ("SELECT sql FROM sqlite_master WHERE name = 'ix_notifications_pending'"
             if db.is_sqlite else
             "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_notifications_pending'"
             " AND schemaname = current_schema()")
    with db.engine.connect() as conn:
        return str(conn.exec_driver_sql(query).scalar_one())


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_the_outbox_index_is_partial_on_both_databases(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The model names the index but not its WHERE (that would load the PostgreSQL dialect
    into every SQLite bot), and Alembic's comparison does not look at a WHERE: the
    migrations must keep it partial themselves."""
    url = (f"sqlite:///{tmp_path / 'index.sqlite3'}" if kind == "sqlite"
           else request.getfixturevalue("pg_url"))
    db = Database(url)
    try:
        assert "WHERE DELIVERED_AT IS NULL" in _pending_index(db).upper().replace("(", "") \
            .replace(")", "")
    finally:
        db.dispose()


def test_downgrade_to_base_and_back(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'down.sqlite3'}")
    migrate_down(db)
    with db.engine.connect() as conn:
        tables = {r[0] for r in conn.exec_driver_sql(
            "SELECT name FROM sqlite_master WHERE type='table'")}
    assert "games" not in tables
    migrate(db.engine)
    assert _drift(db) == []
    db.dispose()


def migrate_down(db: Database) -> None:
    from alembic import command
    from alembic.config import Config

    from kolkhoz_tg.storage.database import MIGRATIONS_DIR

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with db.engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
        conn.commit()


def test_postgres_processes_starting_together_migrate_once(pg_url: str) -> None:
    import threading

    errors: list[BaseException] = []

    def start() -> None:
        try:
            Database(pg_url).dispose()
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    db = Database(pg_url)
    assert _drift(db) == []
    db.dispose()


def test_a_start_with_nothing_to_migrate_does_not_load_alembic(tmp_path: Path) -> None:
    """The newest migration is read from the scripts as Alembic reads it, and a start on a
    schema already there asks one query instead of loading Alembic (memory at start)."""
    import subprocess
    import sys

    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from kolkhoz_tg.storage.database import head_revision, migrations_dir

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    assert head_revision() == ScriptDirectory.from_config(cfg).get_current_head()
    url = f"sqlite:///{tmp_path / 'kolkhoz.sqlite3'}"
    Database(url).dispose()  # the first start migrates
    code = (
        "import sys\n"
        "from kolkhoz_tg.storage.database import Database\n"
        f"Database({url!r}).dispose()\n"
        "print('alembic' in sys.modules)\n"
    )
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, timeout=60)
    assert again.stdout.strip() == "False"
