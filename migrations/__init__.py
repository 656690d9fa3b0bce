"""The database schema's alembic migrations; run them with ``server.store.migrate``."""
