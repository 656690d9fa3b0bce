"""The messages a client sends, read off the socket without the library's frame machinery
when they are what nearly every message is: one whole masked text frame.

The websockets library parses each frame in a chain of generators, makes a ``Frame``,
queues it in an assembler and wakes the reading task through two more queues and three
coroutines. For a one-frame text message the work that matters is a header of 6 to 8
bytes, the unmasking (the library's C ``apply_mask``) and the UTF-8 check, so
:func:`take_texts` does only that, and :class:`Inbox` hands the text to the one task that
reads the connection.

Everything else still goes to the library, whole and in order: control frames (it answers
pings and counts them against the budget, see :mod:`server.net.gated`, and runs the closing
handshake), binary frames, text that is not UTF-8 (it fails the connection with 1007), and,
from the first such frame on, whatever follows in the same read. A fragmented message, a
frame over the size limit, or one with reserved bits goes to the library with the rest of
the stream, so its errors are the library's own. What the library is handed starts at a
frame's first byte, and this module reads again only once the library's parser has parsed
all it was given (:func:`library_between_frames`).
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Final

from websockets.asyncio.messages import Assembler
from websockets.asyncio.server import ServerConnection
from websockets.frames import CONT, Frame
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

try:  # the library's C unmasking, as its own frames use it
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - a build without its C extension
    from websockets.utils import apply_mask

#: The first byte of a whole text frame: FIN, no reserved bits, opcode 1.
_WHOLE_TEXT: Final = 0x81
_MASKED: Final = 0x80
_AT_EOF: Final = StreamReader.at_eof.__code__


class Inbox(Assembler):
    """The library's assembler, with whole text messages from :func:`take_texts` in the
    same order as the messages it assembles itself.

    ``order`` holds each message's text, or None where the library has the next message
    in its own queue (read it with the connection's ``recv``). The
    read-side flow control counts messages in ``order``: past ``high`` the transport stops
    reading until the reader is down to ``low``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order: collections.deque[str | None] = collections.deque()
        self.waiter: asyncio.Future[None] | None = None

    def put(self, frame: Frame) -> None:
        """A data frame the library parsed: queued in its assembler, its place kept here."""
        super().put(frame)
        if frame.opcode is not CONT:
            self._add(None)

    def put_text(self, text: str) -> None:
        if self.closed:
            raise EOFError("stream of frames ended")
        self._add(text)

    def _add(self, item: str | None) -> None:
        self.order.append(item)
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        if self.high is not None and len(self.order) > self.high and not self.paused:
            self.paused = True
            self.pause()

    def maybe_pause(self) -> None:
        pass  # counted in _add, by messages rather than frames

    def maybe_resume(self) -> None:
        if self.paused and self.low is not None and len(self.order) <= self.low:
            self.paused = False
            self.resume()

    def close(self) -> None:
        super().close()
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


def library_between_frames(protocol: Protocol) -> bool:
    """Whether the library's parser has every byte it was given parsed into whole frames
    (it waits for a frame's first byte), so the next bytes may be read here instead."""
    if protocol.reader.buffer:
        return False
    waiting = protocol.parser
    while (inner := getattr(waiting, "gi_yieldfrom", None)) is not None:
        waiting = inner
    return getattr(waiting, "gi_code", None) is _AT_EOF


def take_texts(data: bytes, max_size: int | None, inbox: Inbox) -> tuple[int, int]:
    """Put every whole masked text frame at the start of ``data`` into ``inbox``.

    Returns how many bytes they took, and, when what is left starts a frame of that kind
    not all here yet, how many bytes from there it needs before it is worth reading again
    (its whole length, or its header's), else 0. It stops at the first frame of any other
    kind, or over ``max_size``, and at text that is not UTF-8: those are the library's.
    """
    start = 0
    end = len(data)
    while start < end:
        if data[start] != _WHOLE_TEXT:
            return start, 0
        if end - start < 2:
            return start, 2
        second = data[start + 1]
        if not second & _MASKED:
            return start, 0
        length = second & 0x7F
        header = start + 2
        if length == 126:
            if end - start < 4:
                return start, 4
            length = int.from_bytes(data[header : header + 2], "big")
            header += 2
        elif length == 127:
            return start, 0  # 64-bit lengths: over any limit a server sets
        if max_size is not None and length > max_size:
            return start, 0
        payload = header + 4
        stop = payload + length
        if stop > end:
            return start, stop - start
        try:
            text = apply_mask(data[payload:stop], data[header:payload]).decode()
        except UnicodeDecodeError:
            return start, 0  # the library fails the connection with 1007
        inbox.put_text(text)
        start = stop
    return start, 0


class TextReading(ServerConnection):
    """A server connection that reads whole text frames itself (:func:`take_texts`) and
    hands every message, its own and the library's, to :meth:`receive` in order."""

    # slots: kept out of the library's instance dict (see GatedConnection)
    __slots__ = ("_library_fed", "_partial", "_wanted", "inbox")

    inbox: Inbox

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: A text frame's start, read here, the rest yet to come, and the bytes it needs
        #: before it is worth reading again (so a frame sent a byte at a time is not parsed
        #: again at every byte).
        self._partial = bytearray()
        self._wanted = 0
        #: Whether the library was handed bytes since its parser was last seen between
        #: frames (only then is it looked at again: most reads never reach it).
        self._library_fed = True

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        made = self.recv_messages
        self.recv_messages = self.inbox = Inbox(
            made.high, made.low, pause=made.pause, resume=made.resume
        )

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        if self._partial:
            self._partial += data
            if len(self._partial) < self._wanted:
                return
            data = bytes(self._partial)
            self._partial.clear()
        if (
            protocol.state is State.OPEN
            and not protocol.extensions
            and protocol.current_size is None
            and (not self._library_fed or library_between_frames(protocol))
        ):
            self._library_fed = False
            taken, wanted = take_texts(data, protocol.max_message_size, self.inbox)
            if wanted:
                self._partial += memoryview(data)[taken:]
                self._wanted = wanted
                return
            if taken == len(data):
                return
            data = data[taken:]
        self._library_fed = True
        super().data_received(data)

    async def receive(self) -> str | bytes:
        """The next message, as ``recv`` gives it; ConnectionClosed once the connection is
        closed (``async for`` and ``recv`` miss the messages read here)."""
        inbox = self.inbox
        order = inbox.order
        while not order:
            if inbox.closed:
                return await self.recv()  # raises the close's ConnectionClosed
            inbox.waiter = waiter = self.loop.create_future()
            try:
                await waiter
            finally:
                inbox.waiter = None
        message = order.popleft()
        inbox.maybe_resume()
        if message is None:
            return await self.recv()
        return message


__all__ = ["Inbox", "TextReading", "library_between_frames", "take_texts"]
