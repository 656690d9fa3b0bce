"""The group committer on its own, with a writer that records what it is given."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from server.play.clock import ManualClock
from server.store import ActionLog, GameEnd, LogEntry, StaleGame, StoreUnavailable


class RecordingWriter:
    def __init__(self) -> None:
        self.batches: list[list[tuple[str, int]]] = []
        self.fail_with: Exception | None = None
        self.closed = False

    async def write(self, entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        for _ in range(3):  # a commit takes a few turns of the loop: appends pile up meanwhile
            await asyncio.sleep(0)
        if self.fail_with is not None:
            raise self.fail_with
        self.batches.append([(entry.game_id, entry.seq) for entry in entries])

    async def close(self) -> None:
        self.closed = True


async def turns() -> None:
    """Let every task that can run do so (the committer, up to its wait)."""
    for _ in range(10):
        await asyncio.sleep(0)


def entry(game: str, seq: int) -> list[LogEntry]:
    return [LogEntry(game, seq, "1-2", 0)]


async def test_appends_within_the_window_share_one_commit() -> None:
    writer = RecordingWriter()
    clock = ManualClock()
    log = ActionLog(writer, window=0.3, clock=clock)
    appends = [asyncio.ensure_future(log.append(entry("a", 1)))]
    for game in "bc":  # 0.1 s apart: within the window of the first
        await turns()
        clock.advance(seconds=0.1)
        appends.append(asyncio.ensure_future(log.append(entry(game, 1))))
    await turns()
    assert writer.batches == [] and not any(append.done() for append in appends)
    clock.advance(seconds=0.1)  # the window of the first is over
    await asyncio.gather(*appends)
    assert writer.batches == [[("a", 1), ("b", 1), ("c", 1)]]
    assert (log.batches, log.appended) == (1, 3)
    await log.close()


async def test_appends_during_a_commit_go_in_the_next_one() -> None:
    writer = RecordingWriter()
    log = ActionLog(writer, window=0)
    first = asyncio.ensure_future(log.append(entry("a", 1)))
    await asyncio.sleep(0)  # the committer takes "a" and starts writing
    await asyncio.gather(first, log.append(entry("b", 1)), log.append(entry("c", 1)))
    assert writer.batches == [[("a", 1)], [("b", 1), ("c", 1)]]
    await log.close()


async def test_close_writes_what_is_pending_then_refuses() -> None:
    writer = RecordingWriter()
    # close() lets a window that has begun run out (here half a second), then writes
    log = ActionLog(writer, window=0.5)
    pending = asyncio.ensure_future(log.append(entry("a", 1)))
    await asyncio.sleep(0)
    await log.close()
    await pending
    assert writer.batches == [[("a", 1)]] and writer.closed
    with pytest.raises(StoreUnavailable):
        await log.append(entry("a", 2))


async def test_a_failed_commit_fails_every_append_in_it_and_the_log_goes_on() -> None:
    writer = RecordingWriter()
    log = ActionLog(writer, window=0)  # appends of one turn of the loop share a batch
    writer.fail_with = StoreUnavailable("down")
    outcomes = await asyncio.gather(
        log.append(entry("a", 1)), log.append(entry("b", 1)), return_exceptions=True
    )
    assert all(isinstance(outcome, StoreUnavailable) for outcome in outcomes)
    assert log.failing == "down" and log.refused == 2  # /healthz says so meanwhile
    writer.fail_with = RuntimeError("a bug in a writer")
    with pytest.raises(StoreUnavailable):  # never left waiting, whatever the writer does
        await log.append(entry("a", 1))
    assert log.failing is not None and "a bug in a writer" in log.failing
    writer.fail_with = None
    await log.append(entry("a", 1))
    assert writer.batches == [[("a", 1)]]
    assert log.failing is None and log.refused == 0  # a commit succeeded: healthy again
    await log.close()


async def test_a_stale_append_fails_alone() -> None:
    writer = RecordingWriter()
    log = ActionLog(writer, window=0)  # appends of one turn of the loop share a batch
    real_write = writer.write

    async def refuse_game_b(entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        if any(e.game_id == "b" for e in entries):
            raise StaleGame("b is stale")
        await real_write(entries, results)

    writer.write = refuse_game_b  # type: ignore[method-assign]
    outcomes = await asyncio.gather(
        *(log.append(entry(game, 1)) for game in "abc"), return_exceptions=True
    )
    assert outcomes[0] is None and isinstance(outcomes[1], StaleGame) and outcomes[2] is None
    assert writer.batches == [[("a", 1)], [("c", 1)]]
    await log.close()
