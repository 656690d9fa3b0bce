"""Leases: work that one node of many does at a time (proving the day's deals).

A lease is held for the length of an ``async with`` block and is let go when the block
ends or the holder dies: on PostgreSQL a session advisory lock (released with its
connection), in embedded mode an exclusive ``flock`` on a file beside the database
(released with the process). Nobody waits for a lease: a node that does not get it goes
on without, typically to wait for the holder's stored result.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

try:
    import fcntl
except ImportError:  # no flock here: one process is the only node
    fcntl = None  # type: ignore[assignment]


class Leases(Protocol):
    def hold(self, name: str) -> contextlib.AbstractAsyncContextManager[bool]:
        """``async with leases.hold(name) as held``: ``held`` says whether this node has it."""
        ...


def _advisory_key(name: str) -> int:
    """A stable signed 64-bit key for ``name`` (PostgreSQL advisory locks take a bigint)."""
    return int.from_bytes(hashlib.sha256(f"simon:{name}".encode()).digest()[:8], "big", signed=True)


class AdvisoryLeases:
    """Leases as PostgreSQL session advisory locks, one pooled connection per held lease."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    @contextlib.asynccontextmanager
    async def hold(self, name: str) -> AsyncIterator[bool]:
        key = _advisory_key(name)
        async with self._engine.connect() as connection:
            held = bool(
                await connection.scalar(sa.text("SELECT pg_try_advisory_lock(:key)"), {"key": key})
            )
            await connection.commit()  # the lock is the session's, not the transaction's
            try:
                yield held
            finally:
                if held:
                    await connection.execute(
                        sa.text("SELECT pg_advisory_unlock(:key)"), {"key": key}
                    )
                    await connection.commit()


class FileLeases:
    """Leases as exclusive ``flock``s on files in ``folder`` (every node shares the folder
    of the SQLite database, so the lock is theirs to share too)."""

    def __init__(self, folder: Path, stem: str) -> None:
        self._folder = folder
        self._stem = stem

    @contextlib.asynccontextmanager
    async def hold(self, name: str) -> AsyncIterator[bool]:
        if fcntl is None:
            yield True
            return
        safe = "".join(c if c.isalnum() else "-" for c in name)
        path = self._folder / f"{self._stem}.{safe}.lease"
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)
        finally:
            os.close(descriptor)


class ProcessLeases:
    """Leases among the tasks of this process only (an in-memory database has no peers)."""

    def __init__(self) -> None:
        self._held: set[str] = set()

    @contextlib.asynccontextmanager
    async def hold(self, name: str) -> AsyncIterator[bool]:
        if name in self._held:
            yield False
            return
        self._held.add(name)
        try:
            yield True
        finally:
            self._held.discard(name)


def leases_for(engine: AsyncEngine) -> Leases:
    """The leases that the nodes sharing ``engine``'s database share."""
    if engine.dialect.name == "postgresql":
        return AdvisoryLeases(engine)
    database = engine.url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return ProcessLeases()
    path = Path(database).expanduser()
    return FileLeases(path.parent, path.name)
