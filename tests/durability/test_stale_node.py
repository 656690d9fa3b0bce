"""Two nodes on one PostgreSQL and Redis never fork a game: a node whose copy is out of
date takes the game up from the log, and every action lands on one linear history.

The client keeps a :class:`~tests.support.ledger.Ledger` of every acknowledged action in
seq order: that is the single linear history the game must be, on every node.
"""

from __future__ import annotations

import random
from typing import Any

from tests.conftest import Backend
from tests.support.ledger import Ledger
from tests.support.players import registered, resume, signed_in, started, step
from tests.support.servers import Client, server_settings, serving, unique_name

CODE = "SS1-S2-AAAAABD"


def shared_settings(postgres_url: str, redis_url: str, run_id: str) -> Any:
    """One set of settings (Redis prefix, secret) for both nodes."""
    return server_settings(Backend("services", postgres_url, redis_url, f"simon-test-{run_id}"))


async def test_a_stale_node_answers_with_the_newest_state(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    rng = random.Random(8)
    settings = shared_settings(postgres_url, redis_url, run_id)
    async with serving(settings) as node_a, serving(settings) as node_b:
        async with Client.connect(node_a.url) as on_a, Client.connect(node_b.url) as on_b:
            token = await registered(on_a, unique_name("s"))
            ledger = await started(on_a, {"mode": "practice", "code": CODE})
            for _ in range(3):
                await step(on_a, ledger, rng)
            # the player comes back through node B (A's connection stays open)
            await signed_in(on_b, token)
            state = await resume(on_b, ledger.game_id, ledger.seq)
            assert state["seq"] == 3 and ledger.check(state) == []
            for _ in range(5):
                await step(on_b, ledger, rng)
            assert ledger.seq == 8
            # and back to node A, on the connection it kept open all along
            state = await resume(on_a, ledger.game_id, 3)
            assert state["seq"] == 8, (
                f"node A answered seq {state['seq']} from its own out-of-date copy; "
                "the game is at seq 8 (5 moves on node B)"
            )
            assert ledger.check(state) == []
            # further moves on either node go on from the newest seq
            for client in (on_a, on_b, on_b, on_a, on_b):
                reply = await step(client, ledger, rng)
                assert reply["type"] in ("moved", "state"), reply
            assert ledger.seq == 13
        # nothing lost: fresh connections on both nodes see the same linear history
        await same_everywhere(token, ledger, node_a.url, node_b.url)


async def test_two_connections_on_two_nodes_never_fork_the_game(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    rng = random.Random(9)
    settings = shared_settings(postgres_url, redis_url, run_id)
    async with serving(settings) as node_a, serving(settings) as node_b:
        async with Client.connect(node_a.url) as on_a, Client.connect(node_b.url) as on_b:
            token = await registered(on_a, unique_name("f"))
            ledger = await started(on_a, {"mode": "practice", "code": CODE})
            await signed_in(on_b, token)
            assert (await resume(on_b, ledger.game_id, 0))["seq"] == 0
            # the same player on both connections at once, turn about: each action is
            # chosen from the newest position, wherever the last one was played
            for turn in range(12):
                client = on_a if turn % 2 == 0 else on_b
                message, action = ledger.step(rng)
                reply = await client.request(message)
                node = "A" if client is on_a else "B"
                assert reply["type"] != "error", (
                    f"turn {turn} on node {node}: {message} refused at seq {ledger.seq}: {reply}"
                )
                ledger.acknowledge(reply, action)  # seq must be one more: no fork
            finals = [await resume(client, ledger.game_id, ledger.seq) for client in (on_a, on_b)]
            for state in finals:
                assert ledger.check(state) == [] and state["seq"] == ledger.seq == 12
            assert comparable(finals[0]) == comparable(finals[1])
        await same_everywhere(token, ledger, node_a.url, node_b.url)


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state without its clock reading."""
    return {key: value for key, value in state.items() if key != "elapsed"}


async def same_everywhere(token: str, ledger: Ledger, *urls: str) -> None:
    """A fresh connection to each node resumes the game at the ledger's seq and state."""
    states = []
    for url in urls:
        async with Client.connect(url) as client:
            await signed_in(client, token)
            state = await resume(client, ledger.game_id, 0)
            assert state["seq"] == ledger.seq, (url, state["seq"], ledger.seq)
            assert ledger.check(state) == [], url
            states.append(comparable(state))
    assert all(state == states[0] for state in states), states
