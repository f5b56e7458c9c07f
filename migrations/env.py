"""Alembic environment: the models' metadata, and the URL from the service's settings.

The service calls migrations itself with an open connection in ``config.attributes``
(``kolkhoz_tg.storage.database.migrate``); the ``alembic`` command line uses
KOLKHOZ_DATABASE_URL.
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import kolkhoz_tg.storage.models  # noqa: F401  (registers the tables)

config = context.config
if config.config_file_name is not None and config.attributes.get("connection") is None:
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = SQLModel.metadata


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations_offline() -> None:
    from kolkhoz_tg.config import get_settings
    from kolkhoz_tg.storage.database import normalize_url

    url = config.get_main_option("sqlalchemy.url") or get_settings().database_url
    context.configure(
        url=normalize_url(url),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    from kolkhoz_tg.config import get_settings
    from kolkhoz_tg.storage.database import make_engine

    url = config.get_main_option("sqlalchemy.url") or get_settings().database_url
    engine = make_engine(url)
    with engine.connect() as conn:
        _configure(conn)
        with context.begin_transaction():
            context.run_migrations()
        conn.commit()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
