"""Playing through the websocket protocol with a :class:`~tests.support.ledger.Ledger`, for
the fault tests that run servers in the test process (``tests.support.servers.serving``)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from server.engine import Game, GameCode
from server.play.daily.deals import Proof
from server.solver import Verdict, solve
from tests.support.ledger import Ledger
from tests.support.servers import Client, quick_prover, unique_name


async def act(
    client: Client, ledger: Ledger, message: dict[str, Any], action: str | None = None
) -> dict[str, Any]:
    """Send an action and acknowledge its reply (and the ``finished`` after a win or a
    resign) in ``ledger``; returns the reply. An ``error`` reply fails the test."""
    reply = await client.request(message)
    assert reply["type"] != "error", f"{message} was refused: {reply}"
    ledger.acknowledge(reply, action if action is not None else message.get("move"))
    if ends_game(reply):
        ledger.acknowledge(await finished_of(client, ledger.game_id))
    return reply


async def step(client: Client, ledger: Ledger, rng: random.Random) -> dict[str, Any]:
    """Play a random legal move (or undo when there is none); returns the reply."""
    message, action = ledger.step(rng)
    return await act(client, ledger, message, action)


def ends_game(reply: dict[str, Any]) -> bool:
    """Whether a ``finished`` frame follows this reply."""
    ends: bool = (reply["type"] == "moved" and reply["won"]) or (
        reply["type"] == "state" and reply["state"]["finished"]
    )
    return ends


async def finished_of(client: Client, game_id: str) -> dict[str, Any]:
    return await client.pushed_event(
        lambda frame: frame["type"] == "finished" and frame.get("game") == game_id
    )


async def resume(client: Client, game_id: str, seq: int | None = None) -> dict[str, Any]:
    """``resume`` a game; returns its ``state`` (the ``state`` field of the reply)."""
    message: dict[str, Any] = {"type": "resume", "game": game_id}
    if seq is not None:
        message["seq"] = seq
    reply = await client.request(message)
    assert reply["type"] == "state", f"resume of {game_id} answered {reply}"
    if reply["state"]["finished"]:
        await finished_of(client, game_id)
    state: dict[str, Any] = reply["state"]
    return state


async def signed_in(client: Client, token: str) -> None:
    reply = await client.request({"type": "auth", "token": token})
    assert reply["type"] == "authenticated", reply


async def registered(client: Client, name: str) -> str:
    """Register ``name`` on this connection; returns the token."""
    reply = await client.request({"type": "register", "name": name})
    assert reply["type"] == "registered", reply
    token: str = reply["token"]
    return token


async def started(client: Client, message: dict[str, Any]) -> Ledger:
    """Start a game (``message`` is the ``start``); returns its ledger."""
    reply = await client.request({"type": "start", **message})
    assert reply["type"] == "state", reply
    return Ledger.started(reply["state"])


async def resigned_practice_games(
    client: Client, count: int, code: str = "SS1-S1-AAAAABD"
) -> list[str]:
    """The ids of ``count`` practice games of ``code`` (by default a deal the solver wins
    at once: quick to review), each resigned at once."""
    games = []
    for _ in range(count):
        start = await client.request({"type": "start", "mode": "practice", "code": code})
        games.append(start["state"]["game"])
        await client.request({"type": "resign"})
    return games


async def review_share_spent(client: Client, share: int) -> tuple[str, list[str]]:
    """A new account on ``client`` that has asked for ``share`` reviews (the day's share the
    server is set to): its token, and its ``share + 1`` resigned games' ids, the last one not
    reviewed."""
    token = await registered(client, unique_name("rev"))
    games = await resigned_practice_games(client, share + 1)
    for game in games[:share]:
        made = await client.request({"type": "review", "game": game}, timeout=120)
        assert made["type"] == "review", made
    return token, games


def solution_of(code: str, *, shorten: bool = False) -> list[str]:
    """A winning list of moves (counts explicit) for a deal, from the bundled solver: its
    first solution, or with ``shorten`` its shortened line."""
    solution = solve(Game.from_code(code), max_seconds=30, shorten=shorten)
    assert solution.verdict is Verdict.WINNABLE, f"{code}: {solution.verdict}"
    return [played.text() for played in solution.moves]


class SolvingProver:
    """A daily prover for tests that win the daily: 1-suit deals are solved for real (a
    first solution, in milliseconds) and the solution kept; other suit counts are taken
    as proven, as :func:`~tests.support.servers.quick_prover` does.

    With ``shorten`` the solutions are the solver's shortened lines (about a second each):
    the lines a game review follows, so a game played on one is reviewed in about a second;
    off those lines the review solves each position afresh (a quarter of a second each).
    """

    def __init__(self, *, shorten: bool = False) -> None:
        self.solutions: dict[str, list[str]] = {}
        self.shorten = shorten

    async def __call__(self, code: str) -> Proof:
        if GameCode.parse(code).suits != 1:
            return await quick_prover(code)
        try:
            moves = await asyncio.to_thread(solution_of, code, shorten=self.shorten)
        except AssertionError:
            return Proof(False)
        self.solutions[code] = moves
        return Proof(True, len(moves), tuple(moves))


__all__ = [
    "SolvingProver",
    "act",
    "ends_game",
    "finished_of",
    "registered",
    "resume",
    "signed_in",
    "solution_of",
    "started",
    "step",
]
