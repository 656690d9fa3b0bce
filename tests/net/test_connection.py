"""The network layer's pieces without a game server: rate limits, pushed frames (on fakes,
and on a bare websocket), frame errors."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode

from server.net.connection import PUSH_QUEUE, Outbox, refusal, text_frame
from server.net.limits import Bucket
from server.play.clock import ManualClock
from server.protocol import ErrorCode, MovedFrame, parse_client_message


class Transport:
    def __init__(self, buffered: int) -> None:
        self.buffered = buffered

    def get_write_buffer_size(self) -> int:
        return self.buffered


class StuckSocket:
    """A websocket whose peer does not read: bytes wait in its buffer, and every send waits
    until ``unstuck`` is set."""

    def __init__(self) -> None:
        self.started = 0
        self.sent: list[str] = []
        self.transport = Transport(buffered=1)
        self.unstuck = asyncio.Event()

    async def send(self, frame: str) -> None:
        self.started += 1
        await self.unstuck.wait()
        self.sent.append(frame)


async def test_pushes_to_a_client_that_does_not_read_are_dropped_not_queued() -> None:
    socket = StuckSocket()
    outbox = Outbox(socket)  # type: ignore[arg-type]
    for n in range(PUSH_QUEUE + 50):
        outbox.push(f"event {n}")  # never blocks
    assert outbox.dropped == 50
    await asyncio.sleep(0)
    assert socket.started == 1  # one frame stuck in send, the queue full behind it
    outbox.push("one more")
    outbox.push("and another")
    assert outbox.dropped == 51
    outbox.close()


async def test_a_push_behind_queued_ones_waits_its_turn() -> None:
    socket = StuckSocket()
    outbox = Outbox(socket)  # type: ignore[arg-type]
    outbox.push("first")  # the client is behind: queued
    await asyncio.sleep(0)
    socket.transport.buffered = 0  # it caught up, but "first" is still being sent
    outbox.push("second")
    socket.unstuck.set()
    for _ in range(3):
        await asyncio.sleep(0)
    assert socket.sent == ["first", "second"] and outbox.dropped == 0
    outbox.close()


async def test_a_reply_to_a_client_that_is_behind_waits_for_it() -> None:
    socket = StuckSocket()
    outbox = Outbox(socket)  # type: ignore[arg-type]
    replying = asyncio.create_task(outbox.reply(MovedFrame("answer")))
    await asyncio.sleep(0)
    assert socket.started == 1 and not replying.done()  # the reading task waits with it
    socket.unstuck.set()
    await replying
    assert socket.sent == ["answer"]


@pytest.mark.parametrize("compression", [None, "deflate"])
async def test_pushes_are_written_at_once_while_the_client_keeps_up(
    compression: str | None,
) -> None:
    # framed here without an extension, by the library with one; lengths on each side of
    # the frame header's sizes
    frames = [json.dumps({"type": "race_digest", "n": n}) for n in range(50)] + [
        json.dumps({"type": "race_digest", "pad": "é" * size}) for size in (40, 60, 33_000)
    ]
    tasks: list[int] = []

    async def handler(websocket: ServerConnection) -> None:
        outbox = Outbox(websocket)
        before = len(asyncio.all_tasks())
        for frame in frames:
            outbox.push(frame)
        tasks.append(len(asyncio.all_tasks()) - before)  # no sender task was needed
        await websocket.wait_closed()
        outbox.close()

    async with (
        serve(handler, "127.0.0.1", 0, compression=compression) as server,
        connect(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}") as client,
    ):
        received = [await client.recv() for _ in frames]
    assert received == frames and tasks == [0]


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_reply_is_framed_as_the_library_frames_it(size: int) -> None:
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False)
    assert text_frame(payload) == expected


def test_the_budget_allows_so_many_messages_per_window_and_refills() -> None:
    clock = ManualClock()
    limit = Bucket(3, 3 / 60.0, clock.monotonic())

    def allow() -> bool:
        return limit.take(clock.monotonic()) == 0.0

    assert [allow() for _ in range(5)] == [True, True, True, False, False]
    clock.advance(seconds=19)  # a third of the window: not yet a whole message back
    assert not allow()
    clock.advance(seconds=1)
    assert [allow() for _ in range(2)] == [True, False]
    clock.advance(seconds=600)  # a long pause refills the burst, no more
    assert [allow() for _ in range(4)] == [True, True, True, False]


@pytest.mark.parametrize(
    ("frame", "code", "message_id"),
    [
        ("{", ErrorCode.BAD_JSON, None),
        ('"move"', ErrorCode.BAD_JSON, None),
        ('{"type": "warp", "id": "a"}', ErrorCode.UNKNOWN_TYPE, "a"),
        ('{"id": 3}', ErrorCode.INVALID_MESSAGE, 3),
        ('{"type": "auto", "id": 4, "column": 11}', ErrorCode.INVALID_MESSAGE, 4),
        ('{"type": "ping", "id": [1]}', ErrorCode.INVALID_MESSAGE, None),
    ],
)
def test_refusals_of_bad_frames(frame: str, code: ErrorCode, message_id: object) -> None:
    with pytest.raises(ValidationError) as error:
        parse_client_message(frame)
    reply = refusal(frame, error.value)
    assert reply.code == code and reply.id == message_id
    assert json.loads(reply.model_dump_json())["message"]
