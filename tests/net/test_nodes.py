"""Two server nodes sharing PostgreSQL and Redis: races and resumes cross between them."""

from __future__ import annotations

import asyncio

from server.engine import Game, Move
from tests.conftest import Backend
from tests.support.players import review_share_spent, signed_in
from tests.support.servers import (
    Client,
    first_legal,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)


async def test_race_events_and_resume_cross_nodes(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)  # one Redis prefix and secret for both nodes
    clock = fresh_clock()
    async with (
        serving(settings, clock=clock) as node_a,
        serving(settings, clock=clock) as node_b,
    ):
        async with Client.connect(node_a.url) as alice, Client.connect(node_b.url) as bob:
            registered = await alice.request({"type": "register", "name": unique_name("a")})
            await bob.request({"type": "register", "name": unique_name("b")})
            state = (await alice.request({"type": "start", "suits": 1}))["state"]
            following = await bob.request({"type": "race", "suits": 1})
            assert [p["player"] for p in following["players"]] == [registered["player"]["name"]]
            move = first_legal(state["code"])
            moved = await alice.request({"type": "move", "move": move, "id": "a-1"})
            # node B's digest (within a second) shows the move made on node A
            digest = await bob.pushed_event(
                lambda f: f["type"] == "race_digest" and f["players"][0]["moves"] == 1
            )
            assert digest["players"][0]["player"] == registered["player"]["name"]
        # alice's connection to node A dropped; she comes back through node B
        async with Client.connect(node_b.url) as alice:
            await alice.request({"type": "auth", "token": registered["token"]})
            resumed = await alice.request({"type": "resume", "game": state["game"], "seq": 1})
            assert resumed["state"]["seq"] == 1 and resumed["state"]["moves"] == 1
            assert await alice.request({"type": "move", "move": move, "id": "a-1"}) == moved
            daily = await alice.request({"type": "start", "suits": 1})
            assert daily["state"]["game"] == state["game"]


async def test_a_node_left_behind_does_not_overwrite_the_game(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)
    async with serving(settings) as node_a, serving(settings) as node_b:
        code = "SS1-S2-AAAAABD"
        async with Client.connect(node_a.url) as on_a:
            registered = await on_a.request({"type": "register", "name": unique_name("c")})
            state = (await on_a.request({"type": "start", "mode": "practice", "code": code}))[
                "state"
            ]
            first = first_legal(code)
            await on_a.request({"type": "move", "move": first})
            # the player comes back through node B while node A still holds the game
            async with Client.connect(node_b.url) as on_b:
                await on_b.request({"type": "auth", "token": registered["token"]})
                resumed = await on_b.request({"type": "resume", "game": state["game"], "seq": 1})
                assert resumed["state"]["seq"] == 1
                second = first_legal(code, [first])
                # the same id (3) as the move sent to node A, another move: not a resend
                moved = await on_b.request({"type": "move", "move": second})
                assert moved["seq"] == 2
                # node A's copy is one move behind: its append of seq 2 fails, it reloads
                # the game and plays the move against it (where it no longer fits)
                again = await on_a.request({"type": "move", "move": second})
                expected = Game.from_code(code)
                expected.play(first)
                expected.play(second)
                if expected.is_legal(Move.from_text(second)):
                    assert again["type"] == "moved" and again["seq"] == 3
                else:
                    assert again["type"] == "error" and again["code"] == "illegal-move"
                assert (await on_a.request({"type": "resume", "game": state["game"]}))["state"][
                    "seq"
                ] == (3 if again["type"] == "moved" else 2)
                await on_a.websocket.close()
                async with asyncio.timeout(5):
                    # node A lets go when it sees the close, in its own time
                    while state["game"] in node_a.hub.live:  # noqa: ASYNC110
                        await asyncio.sleep(0.01)
            logged = await node_b.hub.store.load_game(state["game"])
            assert logged is not None and logged.actions[:2] == [first, second]


async def test_an_accounts_reviews_of_the_day_are_counted_across_nodes(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)
    clock = fresh_clock()
    async with (
        serving(settings, clock=clock) as node_a,
        serving(settings, clock=clock) as node_b,
    ):
        node_a.hub.reviews.per_day = node_b.hub.reviews.per_day = 2
        async with Client.connect(node_a.url) as on_a:
            token, games = await review_share_spent(on_a, 2)
        # the account's share is spent on node A: node B has none of its own to give
        async with Client.connect(node_b.url) as on_b:
            await signed_in(on_b, token)
            over = await on_b.request({"type": "review", "game": games[2]})
            assert over["type"] == "error" and over["code"] == "rate-limited", over
