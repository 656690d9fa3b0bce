"""Reading whole text frames off the socket (server/net/inbox.py) changes nothing a client
can see: for any stream of frames, cut into reads anywhere, a server that reads them with
``TextReading`` gets the same messages, answers with the same bytes and closes with the
same codes as the library's own connection."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.protocol import SERVER, Protocol, State

from server.net.inbox import Inbox, TextReading, library_between_frames, take_texts

MAX_SIZE = 1024


def wire(*frames: Frame) -> bytes:
    """Frames as a client sends them (masked)."""
    return b"".join(frame.serialize(mask=True) for frame in frames)


def reserved_bit_set(frame: Frame) -> bytes:
    data = frame.serialize(mask=True)  # the library makes none: set RSV1 on the wire
    return bytes([data[0] | 0x40]) + data[1:]


texts = st.text(max_size=40).map(lambda text: wire(Frame(Opcode.TEXT, text.encode())))
long_texts = st.integers(100, MAX_SIZE + 20).map(  # two bytes of length; some over the limit
    lambda n: wire(Frame(Opcode.TEXT, b"x" * n))
)
others = st.sampled_from(
    [
        wire(Frame(Opcode.PING, b"are you there")),
        wire(Frame(Opcode.PONG, b"")),
        wire(Frame(Opcode.BINARY, b"\x00\x01binary")),
        wire(Frame(Opcode.TEXT, b"\xff\xfenot utf-8")),
        wire(Frame(Opcode.TEXT, b'{"type": "pi', fin=False), Frame(Opcode.CONT, b'ng"}')),
        wire(
            Frame(Opcode.TEXT, b'{"type"', fin=False),
            Frame(Opcode.PING, b"between"),
            Frame(Opcode.CONT, b': "ping"}'),
        ),
        reserved_bit_set(Frame(Opcode.TEXT, b"reserved bit")),
        Frame(Opcode.TEXT, b"not masked").serialize(mask=False),
        wire(Frame(Opcode.CLOSE, b"\x03\xe8bye")),
    ]
)
streams = st.lists(texts | long_texts | others, min_size=1, max_size=8).map(b"".join)


@dataclass
class Seen:
    """What the server saw and did."""

    messages: list[str | bytes]
    close: tuple[int | None, int | None]  # the codes received and sent
    answered: bytes  # every byte the server wrote after its handshake


async def serve_and_send(connection_class: type[ServerConnection], chunks: list[bytes]) -> Seen:
    messages: list[str | bytes] = []
    closed: list[tuple[int | None, int | None]] = []

    async def handler(websocket: ServerConnection) -> None:
        try:
            while True:
                if isinstance(websocket, TextReading):
                    messages.append(await websocket.receive())
                else:
                    messages.append(await websocket.recv())
        except ConnectionClosed as closing:
            closed.append(
                (
                    closing.rcvd.code if closing.rcvd else None,
                    closing.sent.code if closing.sent else None,
                )
            )

    async with serve(
        handler,
        "127.0.0.1",
        0,
        create_connection=connection_class,
        compression=None,
        max_size=MAX_SIZE,
        ping_interval=None,
        close_timeout=0.5,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        writer.write(
            (
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert b" 101 " in await reader.readuntil(b"\r\n\r\n")
        for chunk in chunks:
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(0.002)  # its own read, most often
        writer.write(Frame(Opcode.CLOSE, b"\x03\xe8").serialize(mask=True))
        await writer.drain()
        answered = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        for _ in range(500):
            if closed:
                break
            await asyncio.sleep(0.01)
    return Seen(messages, closed[0], answered)


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({point % (len(data) + 1) for point in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams, st.lists(st.integers(0, 10_000), max_size=6))
def test_any_stream_in_any_reads_is_seen_as_the_library_sees_it(
    data: bytes, cuts: list[int]
) -> None:
    chunks = cut(data, cuts)

    async def both() -> tuple[Seen, Seen]:
        return await serve_and_send(ServerConnection, chunks), await serve_and_send(
            TextReading, chunks
        )

    library, ours = asyncio.run(both())
    assert ours.messages == library.messages
    assert ours.close == library.close
    assert ours.answered == library.answered


def test_a_frame_sent_a_byte_at_a_time_arrives_whole() -> None:
    data = wire(Frame(Opcode.TEXT, b"y" * 300), Frame(Opcode.PING, b"p"), Frame(Opcode.TEXT, b"z"))
    chunks = [data[i : i + 1] for i in range(len(data))]

    async def both() -> tuple[Seen, Seen]:
        return await serve_and_send(ServerConnection, chunks), await serve_and_send(
            TextReading, chunks
        )

    library, ours = asyncio.run(both())
    assert ours.messages == library.messages == ["y" * 300, "z"]
    assert ours.answered == library.answered  # the pong, the close


def test_a_frame_the_library_began_is_left_to_it() -> None:
    # A binary frame whose payload looks like a whole masked text frame ("hi"), its mask all
    # zeros so the payload goes on the wire as it is. The ping takes the first read to the
    # library, with the binary frame's header: the next read, its payload, is the library's
    # to finish, not a text frame to read here.
    inner = bytes((0x81, 0x82, 0, 0, 0, 0)) + b"hi"
    outer = bytes((0x82, 0x80 | len(inner), 0, 0, 0, 0)) + inner
    head = wire(Frame(Opcode.PING, b"p")) + outer[:6]
    chunks = [head, outer[6:] + wire(Frame(Opcode.TEXT, b"next"))]

    async def both() -> tuple[Seen, Seen]:
        return await serve_and_send(ServerConnection, chunks), await serve_and_send(
            TextReading, chunks
        )

    library, ours = asyncio.run(both())
    assert ours.messages == library.messages == [inner, "next"]
    assert ours.answered == library.answered


async def test_whole_text_frames_are_taken_and_a_partial_one_waits() -> None:
    frames = [Frame(Opcode.TEXT, text.encode()).serialize(mask=True) for text in ("a", "b" * 200)]
    data = b"".join(frames)
    inbox = Inbox()
    assert take_texts(data, MAX_SIZE, inbox) == (len(data), 0)
    assert list(inbox.order) == ["a", "b" * 200]
    whole = len(frames[1])  # 2 bytes of header, 2 of length, 4 of mask, 200 of text
    for end in range(1, whole):  # any start of a frame it would take: kept, for what it needs
        needs = 2 if end < 2 else 4 if end < 4 else whole
        assert take_texts(frames[1][:end], MAX_SIZE, Inbox()) == (0, needs)
    ping = Frame(Opcode.PING, b"").serialize(mask=True)
    assert take_texts(frames[0] + ping, MAX_SIZE, Inbox()) == (len(frames[0]), 0)
    too_big = Frame(Opcode.TEXT, b"x" * (MAX_SIZE + 1)).serialize(mask=True)
    assert take_texts(too_big[:10], MAX_SIZE, Inbox()) == (0, 0)
    not_utf8 = Frame(Opcode.TEXT, b"\xff").serialize(mask=True)
    assert take_texts(not_utf8, MAX_SIZE, Inbox()) == (0, 0)


def test_the_library_is_between_frames_only_when_it_waits_for_a_first_byte() -> None:
    protocol = Protocol(SERVER, state=State.OPEN)
    assert library_between_frames(protocol)
    frame = Frame(Opcode.TEXT, b"0123456789").serialize(mask=True)
    protocol.receive_data(frame[:2])  # the header's two bytes are read: mid-frame
    assert not protocol.reader.buffer and not library_between_frames(protocol)
    protocol.receive_data(frame[2:])
    assert library_between_frames(protocol)
    protocol.receive_data(frame[:5])
    assert not library_between_frames(protocol)
