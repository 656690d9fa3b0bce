"""The grace period before signing in, on a clock moved by hand and connections that only
record what they are sent."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, cast

from server.net.grace import CLOSE_POLICY, SignInGrace

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection


class Ticker:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Recorded:
    """A connection that keeps what it was sent and how it was closed."""

    def __init__(self) -> None:
        self.sent: list[dict[str, object]] = []
        self.closed: tuple[int, str] | None = None

    async def send(self, frame: str) -> None:
        self.sent.append(json.loads(frame))

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


def connection() -> tuple[Recorded, ServerConnection]:
    recorded = Recorded()
    return recorded, cast("ServerConnection", recorded)


async def settled() -> None:
    await asyncio.sleep(0)  # the closing tasks run
    await asyncio.sleep(0)


async def test_only_the_connections_past_their_grace_are_told_and_closed() -> None:
    clock = Ticker()
    grace = SignInGrace(10.0, monotonic=clock)
    (old, old_c), (young, young_c) = connection(), connection()
    grace.unauthenticated(old_c)
    clock.now += 6
    grace.unauthenticated(young_c)
    clock.now += 4
    assert grace.sweep() == 1 and grace.expired == 1
    await settled()
    assert old.closed == (CLOSE_POLICY, "sign in first")
    assert old.sent == [
        {
            "type": "error",
            "code": "not-authenticated",
            "message": "sign in (auth or register) within 10 s of connecting; closing",
        }
    ]
    assert young.closed is None and young.sent == []
    assert grace.sweep() == 0  # each connection is closed once
    clock.now += 6
    assert grace.sweep() == 1 and grace.expired == 2
    await grace.close()


async def test_a_connection_that_signs_in_or_leaves_is_never_closed() -> None:
    clock = Ticker()
    grace = SignInGrace(1.0, monotonic=clock)
    (signed, signed_c), (gone, gone_c) = connection(), connection()
    grace.unauthenticated(signed_c)
    grace.unauthenticated(gone_c)
    grace.authenticated(signed_c)
    grace.forget(gone_c)
    clock.now += 60
    assert grace.sweep() == 0 and grace.expired == 0
    await settled()
    assert signed.closed is None and gone.closed is None
    await grace.close()


async def test_without_a_grace_period_nobody_is_closed() -> None:
    clock = Ticker()
    grace = SignInGrace(None, monotonic=clock)
    recorded, connection_ = connection()
    grace.unauthenticated(connection_)
    grace.start()  # no sweeper to start
    clock.now += 10**6
    assert grace.sweep() == 0
    await settled()
    assert recorded.closed is None
    await grace.close()
