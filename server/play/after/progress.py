"""How far a review being made has got, told to its asker while the worker judges it.

The worker process counts the positions it has judged, and the CPU seconds it has spent on
them, into a few bytes of shared memory
(:class:`ProgressMeter`, named to the worker with each review: a spawned worker cannot
inherit a ``multiprocessing.Value`` made after it started); the event loop reads them every
quarter second while the review runs (:func:`follow`): one read of four bytes, nothing sent
unless the count moved, so moves of other players wait for nothing.

How long a review will take is said from this node's recent pace (:class:`Pace`: wall
seconds per position of its last reviews), and from the review's own pace once it has
judged some: an estimate, never past what is left of the review's CPU budget (positions
left once it is spent are unknown at once).
"""

from __future__ import annotations

import asyncio
import logging
import struct
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from multiprocessing.shared_memory import SharedMemory
from typing import Final, NamedTuple

log = logging.getLogger(__name__)

#: How often the event loop reads the worker's count while a review runs (seconds): the
#: asker hears at most about 4 changes a second.
EVERY: Final = 0.25
#: A review whose estimate is at least this many seconds "will take long": its asker is told.
LONG_REVIEW_SECONDS: Final = 10.0
#: Recent reviews whose pace makes the estimate before a review starts.
RECENT_REVIEWS: Final = 8
#: Seconds of a review's own work before its own pace is trusted over the recent reviews'.
OWN_PACE_AFTER: Final = 1.0

#: The meter's layout in the shared memory: for each worker judging a part of the review
#: at once (a slot), its positions judged and its CPU milliseconds spent.
_COUNT: Final = struct.Struct("<II")
SLOTS: Final = 4

#: In the worker process: the shared memories attached, by name (a few: a meter and a
#: review's segments per node).
_attached: OrderedDict[str, SharedMemory] = OrderedDict()
_MOST_ATTACHED: Final = 8
_attaching = threading.Lock()


class Reading(NamedTuple):
    judged: int  # positions judged so far
    cpu_seconds: float  # the worker's CPU time spent on them


class SharedBlock:
    """A few bytes of shared memory the server makes for its review workers to attach to by
    name (:func:`attached`): made at the first review, unlinked at :meth:`close`."""

    def __init__(self, size: int, lacking: str) -> None:
        """``lacking``: what goes without where the system gives no shared memory."""
        self.size = size
        self._lacking = lacking
        self._memory: SharedMemory | None = None

    def name(self) -> str | None:
        """The name the workers attach to; None where the system gives no shared memory."""
        if self._memory is None:
            try:
                self._memory = SharedMemory(create=True, size=self.size)
            except OSError as error:
                log.warning("%s: no shared memory (%s)", self._lacking, error)
                return None
        return self._memory.name

    def buffer(self) -> memoryview | None:
        """Its bytes (None: not made)."""
        return None if self._memory is None else buffer_of(self._memory)

    def reset(self) -> None:
        """Every byte zero again (for the next review)."""
        buffer = self.buffer()
        if buffer is not None:
            buffer[:] = bytes(len(buffer))

    def close(self) -> None:
        memory, self._memory = self._memory, None
        if memory is not None:
            memory.close()
            memory.unlink()


class ProgressMeter(SharedBlock):
    """The shared count of positions judged by the review in the worker, and of the CPU
    seconds spent (one review at a time: the fair line sees to it). Where the system gives
    no shared memory, reviews are made all the same, untold."""

    def __init__(self) -> None:
        super().__init__(_COUNT.size * SLOTS, "reviews made without progress")

    def read(self) -> Reading:
        """The positions judged by every slot, and the CPU seconds of the one that spent
        the most (the slots' workers run side by side)."""
        buffer = self.buffer()
        if buffer is None:
            return Reading(0, 0.0)
        counts = [_COUNT.unpack_from(buffer, slot * _COUNT.size) for slot in range(SLOTS)]
        return Reading(sum(judged for judged, _ in counts), max(ms for _, ms in counts) / 1000)


def reporter(meter: str | None, slot: int = 0) -> Callable[[int], None] | None:
    """In the worker: writes the count of positions judged, and the CPU seconds spent since
    this call, into ``slot`` of the meter named ``meter`` (None: no meter, nothing
    written)."""
    memory = None if meter is None else attached(meter)
    if memory is None:
        return None
    started = time.process_time()
    offset = slot * _COUNT.size

    def report(judged: int) -> None:
        spent = round((time.process_time() - started) * 1000)
        _COUNT.pack_into(buffer_of(memory), offset, judged, spent)  # holds the memory open

    return report


def attached(name: str) -> SharedMemory | None:
    """In the worker: the server's shared memory named ``name`` (a meter, a review's
    segments), attached once; None if it is gone (the server is stopping: the review is
    made all the same)."""
    with _attaching:  # the parts of a review may judge side by side in one process's threads
        memory = _attached.get(name)
        if memory is None:
            try:
                memory = SharedMemory(name=name)
            except OSError:
                return None
            _attached[name] = memory
            while len(_attached) > _MOST_ATTACHED:
                _attached.popitem(last=False)  # closed once nothing of it is left
        _attached.move_to_end(name)
    return memory


def buffer_of(memory: SharedMemory) -> memoryview:
    buffer = memory.buf
    assert buffer is not None  # None once closed, and a closed one is never read
    return buffer


class Pace:
    """This node's recent reviews: how many wall seconds a position took them."""

    def __init__(self, recent: int = RECENT_REVIEWS) -> None:
        self._recent: deque[tuple[float, int]] = deque(maxlen=recent)

    def add(self, seconds: float, positions: int) -> None:
        """A review made in ``seconds`` (wall time, from its start in the worker)."""
        if positions > 0:
            self._recent.append((seconds, positions))

    def per_position(self) -> float | None:
        """Seconds per position of the recent reviews (None: none made yet)."""
        positions = sum(count for _, count in self._recent)
        if not positions:
            return None
        return sum(seconds for seconds, _ in self._recent) / positions

    def estimate(
        self, *, positions: int, done: Reading, elapsed: float, budget: float
    ) -> float | None:
        """Seconds until a review of ``positions`` is made, ``done`` of them after
        ``elapsed`` seconds: at its own pace once it has one, else at the recent reviews';
        no longer than its CPU budget's rest (positions left once it is spent are unknown at
        once). None: no pace known yet."""
        per = self.per_position()
        if done.judged > 0 and elapsed >= OWN_PACE_AFTER:
            per = elapsed / done.judged
        if per is None:
            return None
        left = per * max(0, positions - done.judged)
        return round(min(left, max(0.0, budget - done.cpu_seconds)), 1)


async def follow(
    meter: ProgressMeter, told: Callable[[Reading], None], every: float = EVERY, last: int = 0
) -> None:
    """Read ``meter`` every ``every`` seconds until cancelled; ``told`` each count of
    positions judged other than the last told (``last``: the caller's, before this starts,
    so that a count the worker wrote before the first read is told too)."""
    while True:
        await asyncio.sleep(every)
        reading = meter.read()
        if reading.judged != last:
            last = reading.judged
            told(reading)
