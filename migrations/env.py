"""alembic's environment: runs migrations on a connection the caller shares (the server,
inside its running event loop: ``config.attributes["connection"]``), or on its own async
engine when run from the ``alembic`` command line."""

from __future__ import annotations

import asyncio
import logging.config
import warnings

from alembic import context
from sqlalchemy.engine import Connection
from sqlalchemy.pool import NullPool

from server.settings import Settings
from server.store.database import create_engine
from server.store.migrate import context_options
from server.store.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or Settings().effective_database_url


def run_migrations_offline() -> None:
    """Emit SQL instead of running it (``alembic upgrade --sql``)."""
    url = _url()
    dialect = url.split(":", 1)[0].split("+", 1)[0]
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=dialect == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(connection=connection, **context_options(connection))
    with warnings.catch_warnings():
        # SQLite cannot reflect expression indexes: they are compared on PostgreSQL only.
        warnings.filterwarnings("ignore", message=".*expression-based index.*")
        with context.begin_transaction():
            context.run_migrations()


async def run_async_migrations() -> None:
    engine = create_engine(_url(), poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await engine.dispose()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        do_run_migrations(connection)
        return
    if config.config_file_name is not None:
        logging.config.fileConfig(config.config_file_name, disable_existing_loggers=False)
    asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
