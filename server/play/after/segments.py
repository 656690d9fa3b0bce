"""A review judged in parts shares its positions out as the parts go (work stealing): a
worker done with its part takes the later half of what the other part has left, so both
cores judge until the review is done, whatever each part's positions cost (cut at equal
estimated shares, one part took up to three times the other).

Each part starts as a segment of positions (:func:`~server.play.after.judging.part_cuts`);
its worker writes, into a few bytes of shared memory, the position it judges next (its
frontier) and stops at the segment's limit, read before each position. A worker done with
its segments lowers the limit of the segment with the most left, and judges the positions
from the new limit to the old one as a segment of its own (its first position searched
afresh). A limit is only lowered, and only by the other worker (two parts at most:
:data:`MOST_PARTS`), so nothing is locked: at worst a position is judged by both, the same
search twice. Every position is judged by someone: a segment's worker judges it up to its
last limit, and each range taken is a segment of the taker's.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from multiprocessing.shared_memory import SharedMemory
from typing import Final

from .progress import SharedBlock, attached, buffer_of

#: Workers sharing a review's positions at most: a limit has a single writer.
MOST_PARTS: Final = 2
#: Segments a review may have: its parts', and those taken from them.
MOST_SEGMENTS: Final = 16
#: The fewest positions a segment must have left for the other worker to take half (the
#: first taken costs a search afresh, which the segment's worker may have done without).
LEAST_LEFT: Final = 6
#: A segment in the shared memory: its limit (its positions end before it; 0: unused),
#: written by the taker only, and its frontier (the position its worker judges now), by its
#: worker only: each field has one writer.
_SEGMENT: Final = struct.Struct("<ii")
_FIELD: Final = struct.Struct("<i")
_FRONTIER: Final = _FIELD.size


class Segments(SharedBlock):
    """In the server: the shared memory of a review's segments, one review at a time (the
    fair line sees to it), reset for each. Where the system gives none, each part is judged
    by its own worker alone."""

    def __init__(self) -> None:
        super().__init__(_SEGMENT.size * MOST_SEGMENTS, "reviews' parts not shared out")

    def start(self, cuts: Sequence[int]) -> None:
        """A review's parts as its first segments (``cuts``: ``[0, ..., positions]``)."""
        self.reset()
        buffer = self.buffer()
        if buffer is None:
            return
        for index in range(len(cuts) - 1):
            _SEGMENT.pack_into(buffer, index * _SEGMENT.size, cuts[index + 1], cuts[index])


class Shared:
    """In a worker: the segments of the review it judges a part of."""

    def __init__(self, memory: SharedMemory, slot: int) -> None:
        self._buffer = buffer_of(memory)
        self._memory = memory  # holds it open
        self.slot = slot

    @classmethod
    def of(cls, name: str | None, slot: int) -> Shared | None:
        """The segments named ``name`` as part ``slot``'s worker sees them (None: not
        shared, or gone: the part is judged alone)."""
        if name is None or slot >= MOST_PARTS:
            return None
        memory = attached(name)
        return None if memory is None else cls(memory, slot)

    def claim(self, segment: int) -> Callable[[int], bool]:
        """Before each position of ``segment``: whether it is still the segment's (the
        position written as its frontier)."""
        offset = segment * _SEGMENT.size
        buffer = self._buffer

        def mine(position: int) -> bool:
            _FIELD.pack_into(buffer, offset + _FRONTIER, position)
            limit: int = _FIELD.unpack_from(buffer, offset)[0]
            return position < limit

        return mine

    def take(self) -> tuple[int, int, int] | None:
        """The later half of the segment with the most positions left, as a new segment of
        this worker's: (segment, first, last); None if none has :data:`LEAST_LEFT` left."""
        segments = [
            _SEGMENT.unpack_from(self._buffer, index * _SEGMENT.size)
            for index in range(MOST_SEGMENTS)
        ]
        # this worker's segments: its slot's, then every MOST_PARTS-th after it
        free = next(
            (
                index
                for index in range(self.slot, MOST_SEGMENTS, MOST_PARTS)
                if segments[index][0] == 0
            ),
            None,
        )
        left, victim = max(
            (limit - frontier - 1, index)
            for index, (limit, frontier) in enumerate(segments)
            if index % MOST_PARTS != self.slot
        )
        if free is None or left < LEAST_LEFT:
            return None
        limit = segments[victim][0]
        first = limit - left // 2
        _SEGMENT.pack_into(self._buffer, free * _SEGMENT.size, limit, first)
        # lowered once the new segment is written: its positions are never nobody's
        _FIELD.pack_into(self._buffer, victim * _SEGMENT.size, first)
        return free, first, limit
