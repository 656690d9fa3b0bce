"""The network layer's pieces without a server: rate limits, the push queue, frame errors."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError

from server.net.connection import PUSH_QUEUE, Outbox, RateLimit, refusal
from server.play.clock import ManualClock
from server.protocol import ErrorCode, parse_client_message


class StuckSocket:
    """A websocket whose peer never reads: every send waits forever."""

    def __init__(self) -> None:
        self.started = 0

    async def send(self, frame: str) -> None:
        self.started += 1
        await asyncio.Event().wait()


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


def test_the_budget_allows_so_many_messages_per_window_and_refills() -> None:
    clock = ManualClock()
    limit = RateLimit(3, 60.0, clock.monotonic)
    assert [limit.allow() for _ in range(5)] == [True, True, True, False, False]
    clock.advance(seconds=19)  # a third of the window: not yet a whole message back
    assert not limit.allow()
    clock.advance(seconds=1)
    assert [limit.allow() for _ in range(2)] == [True, False]
    clock.advance(seconds=600)  # a long pause refills the burst, no more
    assert [limit.allow() for _ in range(4)] == [True, True, True, False]


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
