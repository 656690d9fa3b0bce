"""Resends through a real server, as the browser client makes them: a client pipelines its
moves, loses the connection before it reads their replies, connects again, signs in,
resumes, and sends again, with the same ids, everything it was waiting for. Each resend is
answered as it was the first time and the game does not move, however many there are, on
another connection, and on a new server over the same database."""

from __future__ import annotations

import random
from typing import Any

import pytest

from server.engine import Game
from server.net import RunningServer
from tests.conftest import Backend
from tests.support.servers import Client, server_settings, serving, unique_name

#: A practice deal with four suits: a hundred moves around its board win nothing.
CODE = "SS1-S4-AAAAABD"
#: Long enough for any machine, however loaded.
DEADLINE = 60.0
#: Room for a hundred moves and their resends in one connection's message budget.
BUDGET = 1000


def wandering_moves(code: str, count: int, seed: int = 1) -> list[str]:
    """``count`` legal moves of the deal ``code`` played one after the other, none of them
    winning the game or leaving it with no move."""
    rng = random.Random(seed)
    played: list[str] = []
    for _ in range(count):
        game = Game.from_code(code)
        for move in played:
            game.play(move)
        options = [move.text() for move in game.legal_moves()]
        rng.shuffle(options)
        for option in options:
            trial = Game.from_code(code)
            for move in [*played, option]:
                trial.play(move)
            if not trial.is_won and next(trial.legal_moves(), None) is not None:
                played.append(option)
                break
        else:
            raise AssertionError(f"the deal {code} ran out of moves after {len(played)}")
    return played


async def _pipelined(client: Client, moves: list[str], prefix: str) -> list[dict[str, Any]]:
    """Send every move at once, each with an id of its own, then read their replies."""
    for number, move in enumerate(moves, 1):
        await client.send({"type": "move", "move": move, "id": f"{prefix}{number}"})
    return [await client.reply_to(f"{prefix}{n}", DEADLINE) for n in range(1, len(moves) + 1)]


async def _resent(
    server: RunningServer, token: str, game_id: str, moves: list[str], prefix: str
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Connect again, sign in, resume at seq 0 (the client saw only the start), resend
    every move with its id; the replies, and the game's state after them."""
    async with Client.connect(server.url) as client:
        assert (await client.request({"type": "auth", "token": token}))["type"] == "authenticated"
        resumed = await client.request({"type": "resume", "game": game_id, "seq": 0})
        assert resumed["state"]["seq"] == len(moves)
        answers = await _pipelined(client, moves, prefix)
        state = await client.request({"type": "resume", "game": game_id, "seq": len(moves)})
        return answers, state["state"]


async def _played(
    server: RunningServer, moves: list[str], prefix: str
) -> tuple[str, str, list[dict[str, Any]]]:
    """A new player's practice game on ``CODE`` with ``moves`` pipelined; its token, its
    game's id and the replies (read, then the connection dropped)."""
    async with Client.connect(server.url) as client:
        registered = await client.request({"type": "register", "name": unique_name("r")})
        start = {"type": "start", "mode": "practice", "code": CODE}
        game_id = (await client.request(start))["state"]["game"]
        replies = await _pipelined(client, moves, prefix)
    assert [reply["seq"] for reply in replies] == list(range(1, len(moves) + 1))
    return registered["token"], game_id, replies


@pytest.mark.parametrize("count", [12, 50, 100])
async def test_every_resend_after_a_resume_is_answered_again_and_never_played(
    backend: Backend, count: int
) -> None:
    moves = wandering_moves(CODE, count)
    prefix = "k3x9qz-"  # as the browser counts: a page's prefix, then 1, 2, 3...
    async with serving(server_settings(backend, rate_limit_messages=BUDGET)) as server:
        token, game_id, replies = await _played(server, moves, prefix)
        answers, state = await _resent(server, token, game_id, moves, prefix)
        assert answers == replies  # the same `moved` as the first time, seq and all
        assert state["seq"] == count and state["moves"] == replies[-1]["moves"]
        logged = await server.hub.store.load_game(game_id)
        assert logged is not None and logged.actions == [r["move"] for r in replies]


async def test_a_resend_to_a_new_server_on_the_same_database_is_answered_again(
    backend: Backend,
) -> None:
    moves = wandering_moves(CODE, 30, seed=2)
    prefix = "p7w2ma-"
    settings = server_settings(backend, rate_limit_messages=BUDGET)
    async with serving(settings) as server:
        token, game_id, replies = await _played(server, moves, prefix)
    # the server stopped; the player comes back to another one over the same database
    async with serving(settings) as server:
        answers, state = await _resent(server, token, game_id, moves, prefix)
        assert answers == replies
        assert state["seq"] == len(moves)
        logged = await server.hub.store.load_game(game_id)
        assert logged is not None and len(logged.entries) == len(moves)


async def _late_frames(old: Client, new: Client, game_id: str, token: str) -> None:
    """The old connection plays three moves; the player comes back on ``new``, resumes at
    3 and sends the next seventeen (the old connection had them but had not played them);
    then the old connection's copies of those seventeen are read at last."""
    moves = wandering_moves(CODE, 20, seed=3)
    prefix = "late-"
    await _pipelined(old, moves[:3], prefix)
    assert (await new.request({"type": "auth", "token": token}))["type"] == "authenticated"
    assert (await new.request({"type": "resume", "game": game_id, "seq": 3}))["state"]["seq"] == 3
    for number, move in enumerate(moves[3:], 4):
        await new.send({"type": "move", "move": move, "id": f"{prefix}{number}"})
    first = [await new.reply_to(f"{prefix}{n}", DEADLINE) for n in range(4, 21)]
    assert [reply["seq"] for reply in first] == list(range(4, 21))
    for number, move in enumerate(moves[3:], 4):
        await old.send({"type": "move", "move": move, "id": f"{prefix}{number}"})
    late = [await old.reply_to(f"{prefix}{n}", DEADLINE) for n in range(4, 21)]
    assert late == first  # each answered as it was on the new connection: none played again
    state = await new.request({"type": "resume", "game": game_id, "seq": 20})
    assert state["state"]["seq"] == 20


async def _started(client: Client) -> tuple[str, str]:
    registered = await client.request({"type": "register", "name": unique_name("l")})
    start = {"type": "start", "mode": "practice", "code": CODE}
    return registered["token"], (await client.request(start))["state"]["game"]


async def test_a_dropped_connections_late_frames_are_not_played_after_their_resends(
    backend: Backend,
) -> None:
    async with (
        serving(server_settings(backend, rate_limit_messages=BUDGET)) as server,
        Client.connect(server.url) as old,
        Client.connect(server.url) as new,
    ):
        token, game_id = await _started(old)
        await _late_frames(old, new, game_id, token)


async def test_late_frames_on_a_node_left_behind_are_not_played_again(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared, rate_limit_messages=BUDGET)
    async with (
        serving(settings) as node_a,
        serving(settings) as node_b,
        Client.connect(node_a.url) as old,
        Client.connect(node_b.url) as new,
    ):
        token, game_id = await _started(old)
        # node A's copy stays at seq 3: its commit of the first late frame finds the seq
        # taken, it reloads the game, and finds the frame among the log's requests
        await _late_frames(old, new, game_id, token)
