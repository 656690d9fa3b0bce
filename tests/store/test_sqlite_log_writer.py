"""The SQLite writer of the action log, on a real file: its write-ahead log starts over."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from server.store.action_log import SqliteLogWriter
from server.store.records import LogEntry

GAMES = 300


def make_log_table(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(
        "CREATE TABLE game_actions (game_id TEXT, seq INTEGER, action TEXT, at_ms INTEGER, "
        "request_id TEXT, request TEXT, PRIMARY KEY (game_id, seq)) WITHOUT ROWID"
    )
    db.close()


def wal_salt(path: Path) -> bytes:
    """The salts of the WAL's header: SQLite draws new ones each time the log starts over."""
    with open(f"{path}-wal", "rb") as wal:
        return wal.read(24)[16:24]


async def write_batch(writer: SqliteLogWriter, path: Path, seqs: list[int], commit: int) -> bytes:
    """Commit one action of each of ten games (as a 5 ms window gathers), give the checkpoint
    thread's end a turn to be seen, and return the log's salts after it."""
    batch = []
    for index in range(10):
        game = (commit * 10 + index * 37) % GAMES
        seqs[game] += 1
        batch.append(LogEntry(f"g{game}", seqs[game], "1-2x1", 0, None, None))
    await writer.write(batch, [])  # StoreUnavailable would fail the test
    salt = wal_salt(path)
    await asyncio.sleep(0)  # the checkpoint's end is seen, the next one started
    return salt


async def test_the_write_ahead_log_starts_over_while_writes_never_pause(tmp_path: Path) -> None:
    # Checkpoints copy the log in a thread while the writes go on; a log that is never all
    # copied never starts over, and grows by every page written for as long as play goes on.
    path = tmp_path / "log.sqlite3"
    make_log_table(path)
    writer = SqliteLogWriter(path)
    writer.CHECKPOINT_EVERY = 0.0  # a checkpoint as soon as the last one is done
    seqs = [0] * GAMES
    salts: set[bytes] = set()
    commits = 0
    try:
        # until the log has started over twice (some hundreds of commits, how many depends
        # on how fast the disk syncs), or for long enough that it plainly never does
        while len(salts) < 3 and commits < 4000:
            salts.add(await write_batch(writer, path, seqs, commits))
            commits += 1
    finally:
        await writer.close()
    assert len(salts) >= 3, "the write-ahead log never started over: it grows without end"
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM game_actions").fetchone() == (commits * 10,)
    db.close()


async def test_a_reader_holding_the_log_delays_its_start_over_but_no_write(
    tmp_path: Path,
) -> None:
    # A reader in the middle of a transaction keeps the log's frames in use: the checkpoint
    # gives up waiting for it (writers held off a moment at most), and every write goes in.
    path = tmp_path / "log.sqlite3"
    make_log_table(path)
    writer = SqliteLogWriter(path)
    writer.CHECKPOINT_EVERY = 0.0
    reader = sqlite3.connect(path, isolation_level=None)
    seqs = [0] * GAMES

    async def write_some(commits: int) -> set[bytes]:
        return {await write_batch(writer, path, seqs, commit) for commit in range(commits)}

    try:
        await write_some(20)
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM game_actions").fetchone() == (200,)
        held = await write_some(200)
        assert len(held) == 1, "the log started over under a reader that still reads it"
        assert reader.execute("SELECT count(*) FROM game_actions").fetchone() == (200,)
        reader.execute("COMMIT")
        released: set[bytes] = set()
        while len(released) < 2 and sum(seqs) < 20000:  # started over once let go
            released |= await write_some(50)
    finally:
        reader.close()
        await writer.close()
    assert len(released) >= 2
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM game_actions").fetchone() == (sum(seqs),)
    db.close()
