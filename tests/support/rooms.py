"""Race rooms through the websocket protocol, for the tests of rooms on one node, on two
nodes, and across a node's kill."""

from __future__ import annotations

from typing import Any

from server.engine import Game
from server.play.clock import ManualClock
from server.solver import Verdict, solve
from tests.support.servers import Client, fresh_clock, unique_name

#: A 1-suit deal for rooms that race a chosen code (winnable: the solver wins it).
DEAL = "SS1-S1-AAAAABD"


def room_clock() -> ManualClock:
    """A clock whose timers run only when the test moves it (a room's countdown, time limit
    and a public room's wait), on a far-future day of the test's own."""
    return ManualClock(fresh_clock().now())


async def signed_up(client: Client, prefix: str, *, bot: bool = False) -> dict[str, Any]:
    """Register a fresh player on ``client``; returns the ``registered`` reply."""
    reply = await client.request({"type": "register", "name": unique_name(prefix), "bot": bot})
    assert reply["type"] == "registered", reply
    return reply


async def room_reply(client: Client, message: dict[str, Any]) -> dict[str, Any]:
    """Send a ``race_*`` request; returns the room of its ``race_room`` reply."""
    reply = await client.request(message)
    assert reply["type"] == "race_room", f"{message} answered {reply}"
    room: dict[str, Any] = reply["room"]
    return room


async def refused(client: Client, message: dict[str, Any]) -> str:
    """Send a request that must be refused; returns the error code."""
    reply = await client.request(message)
    assert reply["type"] == "error", f"{message} answered {reply}"
    code: str = reply["code"]
    return code


async def room_event(
    client: Client, event: str, code: str | None = None, timeout: float = 10.0
) -> dict[str, Any]:
    """The next pushed ``race_room`` with ``event`` (of room ``code``); returns its room."""
    frame = await client.pushed_event(
        lambda f: (
            f["type"] == "race_room"
            and f.get("event") == event
            and (code is None or f["room"]["code"] == code)
        ),
        timeout,
    )
    room: dict[str, Any] = frame["room"]
    return room


async def revealed(client: Client, timeout: float = 10.0) -> dict[str, Any]:
    """The racer's game pushed at the reveal: the ``state`` of a race game."""
    frame = await client.pushed_event(
        lambda f: f["type"] == "state" and f["state"].get("race") is not None, timeout
    )
    state: dict[str, Any] = frame["state"]
    return state


async def update_of(
    client: Client, player: str, event: str, timeout: float = 10.0, **fields: Any
) -> dict[str, Any]:
    """The next pushed ``race_update`` of ``player`` with ``event`` (and ``fields`` in its
    entry); returns the entry."""
    frame = await client.pushed_event(
        lambda f: (
            f["type"] == "race_update"
            and f["event"] == event
            and f["entry"]["player"] == player
            and all(f["entry"].get(key) == value for key, value in fields.items())
        ),
        timeout,
    )
    entry: dict[str, Any] = frame["entry"]
    return entry


def solution(code: str, played: list[str] | None = None) -> list[str]:
    """The solver's winning line of ``code`` (from where ``played`` leaves it)."""
    game = Game.from_code(code)
    for move in played or ():
        game.play(move)
    found = solve(game, shorten=False)
    assert found.verdict is Verdict.WINNABLE, code
    return [move.text() for move in found.moves]


async def play_out(client: Client, moves: list[str]) -> dict[str, Any]:
    """Play ``moves`` (the last one wins); returns the ``finished`` that follows."""
    for index, move in enumerate(moves):
        reply = await client.request({"type": "move", "move": move})
        assert reply["type"] == "moved", f"move {index} {move}: {reply}"
    assert reply["won"], "the moves did not win"
    return await client.pushed_event(lambda f: f["type"] == "finished")


__all__ = [
    "DEAL",
    "play_out",
    "refused",
    "revealed",
    "room_clock",
    "room_event",
    "room_reply",
    "signed_up",
    "solution",
    "update_of",
]
