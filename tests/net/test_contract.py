"""What an outside client written from the docs alone found the server doing otherwise,
each settled (docs/protocol-changes.md): over a real server, on both backends."""

from __future__ import annotations

from datetime import timedelta

from tests.conftest import Backend
from tests.support.servers import (
    Client,
    first_legal,
    fresh_clock,
    get_json,
    server_settings,
    serving,
    unique_name,
)

CODE = "SS1-S2-AAAAABD"


async def test_finished_echoes_the_id_and_carries_the_seq_of_the_end(backend: Backend) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as client,
    ):
        await client.request({"type": "register", "name": unique_name("fin")})
        state = (await client.request({"type": "start", "mode": "practice", "code": CODE}))["state"]
        await client.request({"type": "move", "move": first_legal(CODE), "id": "m1"})
        await client.send({"type": "resign", "id": "give-up"})
        replies = [await client.receive(), await client.receive()]
        assert [r["type"] for r in replies] == ["state", "finished"]
        finished = replies[1]
        assert finished["id"] == "give-up" and finished["seq"] == 2
        assert finished["finished_at"].endswith("+00:00")
        # the same after resume of the finished game
        await client.send({"type": "resume", "game": state["game"], "id": 7})
        again = [await client.receive(), await client.receive()]
        assert again[1]["type"] == "finished" and again[1]["id"] == 7


async def test_a_column_past_ten_is_refused_by_the_rule_that_names_it(backend: Backend) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as client,
    ):
        await client.request({"type": "register", "name": unique_name("col")})
        await client.request({"type": "start", "mode": "practice", "code": CODE})
        for move in ("11-2", "0-3", "3-12x2"):
            refused = await client.request({"type": "move", "move": move})
            assert refused["code"] == "illegal-move" and refused["rule"] == "no-such-column"
        junk = await client.request({"type": "move", "move": "100-1"})
        assert junk["code"] == "bad-move"
        field = await client.request({"type": "auto", "column": 11})
        assert field["code"] == "invalid-message"


async def test_an_id_used_before_for_another_move_is_a_new_move(backend: Backend) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as client,
    ):
        await client.request({"type": "register", "name": unique_name("ids")})
        await client.request({"type": "start", "mode": "practice", "code": CODE})
        first = first_legal(CODE)
        moved = await client.request({"type": "move", "move": first, "id": 1})
        again = await client.request({"type": "move", "move": first, "id": 1})
        assert again == moved  # a resend: answered again, not played again
        second = first_legal(CODE, [first])
        other = await client.request({"type": "move", "move": second, "id": 1})
        assert other["type"] == "moved" and other["seq"] == 2 and other["id"] == 1


async def test_a_day_not_begun_has_no_board_yet(backend: Backend) -> None:
    clock = fresh_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as client,
    ):
        tomorrow = (clock.now().date() + timedelta(days=1)).isoformat()
        name = (await client.request({"type": "register", "name": unique_name("tom")}))["player"][
            "name"
        ]
        board = await client.request({"type": "leaderboard", "day": tomorrow})
        assert board["code"] == "not-found"
        rank = await client.request({"type": "rank", "day": tomorrow, "player": name})
        assert rank["code"] == "not-found"
        status, body = await get_json(f"{server.http_url}/leaderboard?day={tomorrow}")
        assert status == 404 and body["error"]["code"] == "not-found"
        status, _ = await get_json(f"{server.http_url}/day/{tomorrow}/stats")
        assert status == 404


async def test_day_stats_place_you_and_a_replay_says_when_it_began(backend: Backend) -> None:
    clock = fresh_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as client,
    ):
        name = (await client.request({"type": "register", "name": unique_name("you")}))["player"][
            "name"
        ]
        state = (await client.request({"type": "start", "suits": 1}))["state"]
        await client.request({"type": "resign"})
        await client.receive()  # the finished that follows
        stats = await client.request({"type": "day_stats", "suits": 1})
        assert stats["you"]["player"] == name
        replay = await client.request({"type": "replay", "game": state["game"]})
        assert replay["started"] <= replay["moves"][0]["at"]
