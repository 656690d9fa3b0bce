"""A complete Simple Simon Online bot (docs/bots.md): it signs up as a bot, plays today's
1-suit daily by double-click moves (``auto``) on the columns the server's placement help
(``legal``) says can move, resigns when none is left, and prints its result.

    python examples/bot.py [ws://127.0.0.1:8765] [NAME]

Only ``websockets`` and the standard library. Save the token it prints to sign in next time
(``{"type": "auth", "token": ...}``): a daily is one attempt per account and day.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import sys
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

MOST_ACTIONS = 150  # then resign: auto moves can go back and forth for ever
ids = itertools.count(1)


async def ask(socket: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` with a fresh id; the reply that echoes it (pushed frames skipped).
    Over the message budget it waits and sends it again, with the same id."""
    message["id"] = next(ids)
    while True:
        await socket.send(json.dumps(message))
        reply = json.loads(await socket.recv())
        while reply.get("id") != message["id"]:
            reply = json.loads(await socket.recv())
        if reply.get("code") != "rate-limited":
            return reply  # type: ignore[no-any-return]
        await asyncio.sleep(float((reply.get("detail") or {}).get("retry_after") or 1))


async def finished(socket: ClientConnection) -> dict[str, Any]:
    """The ``finished`` that follows a winning ``moved`` or a resignation's ``state``."""
    while True:
        frame = json.loads(await socket.recv())
        if frame["type"] == "finished":
            return frame  # type: ignore[no-any-return]


async def play(url: str, name: str) -> dict[str, Any]:
    async with connect(url) as socket:
        hello = {"type": "hello", "version": 1, "client": "example-bot", "legal": True}
        welcome = await ask(socket, hello)
        assert welcome["type"] == "welcome", welcome
        registered = await ask(socket, {"type": "register", "name": name, "bot": True})
        if registered["type"] == "error":
            raise SystemExit(f"cannot register {name}: {registered['message']}")
        print(f"registered {name}; token {registered['token']}", file=sys.stderr)
        started = await ask(socket, {"type": "start", "mode": "daily", "suits": 1})
        if started["type"] == "error":
            raise SystemExit(f"cannot start: {started['message']}")
        legal = started["state"]["legal"]  # legal[c][n - 1]: where column c+1's last n go
        for _ in range(MOST_ACTIONS):
            movable = [c + 1 for c, groups in enumerate(legal) if any(groups)]
            for column in movable:
                reply = await ask(socket, {"type": "auto", "column": column})
                if reply["type"] == "moved":
                    break
            else:
                break  # no column has a move left
            if reply["won"]:
                return await finished(socket)
            legal = reply["legal"]
        await ask(socket, {"type": "resign"})
        return await finished(socket)


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:8765"
    name = sys.argv[2] if len(sys.argv) > 2 else f"bot-{secrets.token_hex(3)}"
    result = asyncio.run(play(url, name))
    outcome = "won" if result["won"] else "resigned"
    print(f"{name} {outcome} in {result['moves']} moves, score {result['score']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
