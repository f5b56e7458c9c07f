"""The database connection: SQLite by default, PostgreSQL by URL; schema via Alembic only.

SQLite is tuned for a small always-on service: WAL (readers never block the writer), a busy
timeout (writers queue instead of failing), foreign keys on, and write transactions opened
with ``BEGIN IMMEDIATE`` so two writers never both read a version and then collide on
upgrading their lock (SQLite's ``SQLITE_BUSY_SNAPSHOT``, which no timeout can wait out).
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import sessionmaker
from sqlmodel import Session

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent.parent / "migrations"

log = logging.getLogger(__name__)


def migrations_dir() -> Path:
    """Where the Alembic scripts are: beside the package in a checkout or editable install,
    else ``KOLKHOZ_MIGRATIONS_DIR`` or ``./migrations`` (for a plain ``pip install``).
    Raises :class:`FileNotFoundError` naming the places looked at."""
    candidates = [MIGRATIONS_DIR, Path.cwd() / "migrations"]
    if os.environ.get("KOLKHOZ_MIGRATIONS_DIR"):
        candidates.insert(0, Path(os.environ["KOLKHOZ_MIGRATIONS_DIR"]))
    for path in candidates:
        if (path / "env.py").is_file():
            return path
    raise FileNotFoundError(
        "Alembic migrations not found in " + ", ".join(map(str, candidates))
        + " (set KOLKHOZ_MIGRATIONS_DIR)"
    )
_WRITE_OPTION = "kolkhoz_write"
_MIGRATION_LOCK = 0x6B6F6C6B  # "kolk": the advisory lock taken while migrating PostgreSQL


def normalize_url(url: str) -> str:
    """Accept plain ``postgresql://`` and ``postgres://`` URLs and use psycopg 3 for them."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def schema_url(url: str, schema: str) -> str:
    """``url`` (PostgreSQL) with its connections' search path set to ``schema``."""
    sep = "&" if "?" in url else "?"
    return f"{normalize_url(url)}{sep}options=-csearch_path%3D{schema}"


@contextmanager
def scratch_schema(url: str, schema: str) -> Iterator[str]:
    """A new schema ``schema`` on the PostgreSQL at ``url`` for a test or a benchmark:
    yields :func:`schema_url` for it and drops it, with everything in it, at the end."""
    admin = sa.create_engine(normalize_url(url))
    try:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        try:
            yield schema_url(url, schema)
        finally:
            with admin.begin() as conn:
                conn.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    finally:
        admin.dispose()


#: How long a SQLite write waits for another process's write lock before it gives up (the
#: service then says ``busy`` and the bot retries in the background): short, because a
#: handler waiting here holds a player's tap.
BUSY_TIMEOUT = 2.0


def make_engine(
    url: str, busy_timeout: float = BUSY_TIMEOUT, *, durable_commits: bool = False,
    **kwargs: Any,
) -> Engine:
    """An engine for ``url``: SQLite with the settings above on every connection (WAL,
    ``synchronous=NORMAL``); PostgreSQL with ``synchronous_commit`` off unless
    ``durable_commits`` (see ``Settings.pg_durable_commits``): the same durability."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        connect_args = {"timeout": busy_timeout, "check_same_thread": False}
        engine = sa.create_engine(url, connect_args=connect_args, **kwargs)
        _tune_sqlite(engine, busy_timeout)
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    engine = sa.create_engine(url, **kwargs)
    if not durable_commits and engine.dialect.name == "postgresql":

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:
            with dbapi_conn.cursor() as cur:
                cur.execute("SET synchronous_commit TO off")
            dbapi_conn.commit()

    return engine


def _tune_sqlite(engine: Engine, busy_timeout: float) -> None:
    memory = engine.url.database in (None, "", ":memory:")

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event below decide how transactions start.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        if not memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(_WRITE_OPTION):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


_REVISION = re.compile(r"^(down_revision|revision)\b[^=]*=\s*['\"]?([\w-]+|None)['\"]?",
                       re.MULTILINE)


def head_revision() -> str | None:
    """The newest migration's id, read from the scripts' ``revision`` / ``down_revision``
    lines (the one no other script names as its predecessor), without importing Alembic;
    None if the scripts cannot be read so (then Alembic decides)."""
    revisions: set[str] = set()
    previous: set[str] = set()
    try:
        for script in (migrations_dir() / "versions").glob("*.py"):
            for kind, value in _REVISION.findall(script.read_text(encoding="utf-8")):
                (revisions if kind == "revision" else previous).add(value)
    except OSError:
        return None
    heads = revisions - previous
    return heads.pop() if len(heads) == 1 else None


def up_to_date(engine: Engine) -> bool:
    """Whether the schema is at the newest migration already: one query, and no Alembic
    import (some 12 MB a start that has nothing to migrate never needs)."""
    head = head_revision()
    if head is None:
        return False
    try:
        with engine.connect() as conn:
            current = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
    except sa.exc.DBAPIError:  # no table yet: a first start
        return False
    return [row[0] for row in current] == [head]


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` with the Alembic migrations in ``migrations/``."""
    if revision == "head" and up_to_date(engine):
        return
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    with engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            # Two processes starting at once: the second waits, then finds nothing to do.
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
        cfg.attributes["connection"] = conn
        current = MigrationContext.configure(conn).get_current_revision()
        head = ScriptDirectory.from_config(cfg).get_current_head()
        if current != head:
            # A first start or an upgrade: say so, it is the one slow step of a start.
            log.info("database schema: %s -> %s ...", current or "empty", head)
        command.upgrade(cfg, revision)
        conn.commit()
        if current != head:
            log.info("database schema ready (%s)", head)


class Database:
    """An engine plus the two kinds of session the service uses.

    ``write()`` opens a write transaction (``BEGIN IMMEDIATE`` on SQLite; on PostgreSQL the
    service takes row locks itself) and commits on success; ``read()`` a read-only one.
    """

    def __init__(
        self, url: str, *, run_migrations: bool = True, busy_timeout: float = BUSY_TIMEOUT,
        durable_commits: bool = False, **engine_kwargs: Any,
    ) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url, busy_timeout, durable_commits=durable_commits,
                                  **engine_kwargs)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        self.is_postgres = self.engine.dialect.name == "postgresql"
        write_engine = self.engine.execution_options(**{_WRITE_OPTION: True})
        self._write = sessionmaker(
            write_engine, class_=Session, expire_on_commit=False, autoflush=False
        )
        self._read = sessionmaker(
            self.engine, class_=Session, expire_on_commit=False, autoflush=False
        )
        if run_migrations:
            migrate(self.engine)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session in one write transaction: committed if the block succeeds."""
        with self._write() as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._read() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()
