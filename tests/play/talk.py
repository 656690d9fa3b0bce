"""A session without a socket, talked to in messages as a client writes them: what the
session tests share."""

from __future__ import annotations

import json
from typing import Any

from server.play.hub import Hub
from server.play.session.session import Session
from server.protocol import encode_reply, parse_client_message


class Talk:
    """A session and what was pushed to it."""

    def __init__(self, hub: Hub) -> None:
        self.pushed: list[dict[str, Any]] = []
        self.session = Session(hub, lambda frame: self.pushed.append(json.loads(frame)))

    async def __call__(self, **message: Any) -> list[dict[str, Any]]:
        replies = await self.session.handle(parse_client_message(json.dumps(message)))
        return [json.loads(encode_reply(reply)) for reply in replies]

    async def one(self, **message: Any) -> dict[str, Any]:
        (reply,) = await self(**message)
        return reply


async def signed_in(hub: Hub, name: str) -> Talk:
    talk = Talk(hub)
    reply = await talk.one(type="register", name=name)
    assert reply["type"] == "registered"
    return talk
