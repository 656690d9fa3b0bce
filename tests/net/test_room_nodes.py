"""Race rooms across two server nodes sharing PostgreSQL and Redis: racers of one room on
different nodes, and a race that goes on while a node has lost Redis.

Both nodes run in the test process on one ManualClock, so the countdown ends on both at
the same instant when the test moves it.
"""

from __future__ import annotations

from server.engine import Game
from tests.conftest import Backend
from tests.support.proxy import TcpProxy, proxied_redis_url, target_of
from tests.support.rooms import (
    DEAL,
    play_out,
    revealed,
    room_clock,
    room_event,
    room_reply,
    signed_up,
    solution,
    update_of,
)
from tests.support.servers import Client, get_json, server_settings, serving


async def test_two_racers_on_two_nodes_race_one_deal(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)  # one Redis prefix and secret for both nodes
    clock = room_clock()
    async with (
        serving(settings, clock=clock) as node_a,
        serving(settings, clock=clock) as node_b,
        Client.connect(node_a.url) as alice,
        Client.connect(node_b.url) as bob,
        Client.connect(node_b.url) as watcher,
    ):
        ann = (await signed_up(alice, "ann"))["player"]["name"]
        ben = (await signed_up(bob, "ben"))["player"]["name"]
        code = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
        joined = await room_reply(bob, {"type": "race_join", "code": code})  # on node B
        assert {r["player"] for r in joined["racers"]} == {ann, ben}
        assert len((await room_event(alice, "joined", code))["racers"]) == 2  # through Redis
        await signed_up(watcher, "cat")
        await room_reply(watcher, {"type": "race_watch", "code": code})

        counting = await room_reply(alice, {"type": "race_start", "code": code})
        assert (await room_event(bob, "countdown", code))["starts_at"] == counting["starts_at"]
        clock.advance(seconds=10)
        game_a, game_b = await revealed(alice), await revealed(bob)
        assert game_a["code"] == game_b["code"] == DEAL and game_a["board"] == game_b["board"]
        assert (await room_event(watcher, "started", code))["deal"] == DEAL

        line = solution(DEAL)
        await alice.request({"type": "move", "move": line[0]})
        assert (await update_of(bob, ann, "moved", moves=1))["score"] == 499
        await update_of(watcher, ann, "moved", moves=1)
        clock.advance(seconds=20)
        await play_out(alice, line[1:])
        assert (await update_of(bob, ann, "finished"))["elapsed"] == 20.0
        await bob.request({"type": "move", "move": line[0]})
        await update_of(alice, ben, "moved", moves=1)
        await bob.request({"type": "resign"})

        over_a, over_b = await room_event(alice, "over", code), await room_event(bob, "over", code)
        assert over_a == over_b
        assert [(r["place"], r["player"], r["won"]) for r in over_a["racers"]] == [
            (1, ann, True),
            (2, ben, False),
        ]
        for node in (node_a, node_b):
            status, page = await get_json(f"{node.http_url}/race/{code}")
            assert status == 200 and page["room"]["racers"] == over_a["racers"]

        # the rematch, asked on node B and joined from node A
        again = await room_reply(bob, {"type": "race_rematch", "code": code})
        assert "next" not in await room_event(alice, "rematch", code)  # a private room's
        joined = await room_reply(alice, {"type": "race_rematch", "code": code})
        assert joined["code"] == again["code"]
        await room_event(bob, "joined", again["code"])
        await room_reply(bob, {"type": "race_start", "code": again["code"]})
        await room_event(alice, "countdown", again["code"])
        clock.advance(seconds=10)
        fresh_a, fresh_b = await revealed(alice), await revealed(bob)
        assert fresh_a["race"] == fresh_b["race"] == again["code"]
        assert fresh_a["code"] == fresh_b["code"] != DEAL
        assert Game.from_code(fresh_a["code"]).suits == 1


async def test_a_race_goes_on_when_a_node_loses_redis(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    prefix = f"simon-test-{run_id}"
    clock = room_clock()
    async with TcpProxy(*target_of(redis_url, 6379)) as redis:
        direct = server_settings(Backend("services", postgres_url, redis_url, prefix))
        cut_off = direct.model_copy(update={"redis_url": proxied_redis_url(redis_url, redis)})
        async with (
            serving(cut_off, clock=clock) as node_a,
            serving(direct, clock=clock) as node_b,
            Client.connect(node_a.url) as alice,
            Client.connect(node_b.url) as bob,
        ):
            ann = (await signed_up(alice, "ann"))["player"]["name"]
            ben = (await signed_up(bob, "ben"))["player"]["name"]
            code = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
            await room_reply(bob, {"type": "race_join", "code": code})
            await room_event(alice, "joined", code)
            redis.cut()  # node A's events reach no other node now
            try:
                await room_reply(alice, {"type": "race_start", "code": code})
                # node B learns of the countdown from the database, at its next sweep
                await node_b.hub.rooms.sweep()
                caught_up = await bob.pushed_event(
                    lambda f: f["type"] == "race_room" and f["room"]["state"] == "countdown"
                )
                assert caught_up["room"]["code"] == code
                clock.advance(seconds=10)
                game_a, game_b = await revealed(alice), await revealed(bob)
                assert game_a["code"] == game_b["code"] == DEAL
                await bob.request({"type": "move", "move": solution(DEAL)[0]})
                await alice.request({"type": "resign"})
                await bob.request({"type": "resign"})
                over = await room_event(bob, "over", code)  # ended by node B
                await node_a.hub.rooms.sweep()
                late = await alice.pushed_event(
                    lambda f: f["type"] == "race_room" and f["room"]["state"] == "over"
                )
                assert late["room"]["racers"] == over["racers"]
                assert [(r["place"], r["player"]) for r in over["racers"]] == [(1, ann), (2, ben)]
            finally:
                redis.restore()
