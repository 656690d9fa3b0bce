"""A node killed mid-race: its racer comes back through another node, inside the same race.

Two real ``simon-server`` processes share PostgreSQL and Redis; two racers race a fresh
deal, one on each node. The first node is killed with SIGKILL in the middle of the race;
its racer connects to the other node, resumes the same game at the seq it last saw, and
wins; the race ends with both racers in its results.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from tests.support.kills import ServerProcess, services_environment
from tests.support.rooms import (
    play_out,
    revealed,
    room_event,
    room_reply,
    signed_up,
    solution,
    update_of,
)
from tests.support.servers import Client, get_json

#: A short countdown: the test waits for the reveal (it never sleeps).
COUNTDOWN = "1"
#: The reveal and replies may take a while on a loaded machine (the processes are real).
WAIT = 30.0


async def test_a_racer_of_a_killed_node_finishes_the_race_on_another(
    postgres_url: str, redis_url: str, run_id: str, tmp_path: Path
) -> None:
    prefix = f"simon-test-{run_id}-rooms-{uuid.uuid4().hex[:8]}"
    env = services_environment(postgres_url, redis_url, prefix)
    env["SIMON_RACE_COUNTDOWN_SECONDS"] = COUNTDOWN
    node_a = ServerProcess(env, tmp_path / "node-a.log")
    node_b = ServerProcess(env, tmp_path / "node-b.log")
    await node_a.start()  # one after the other: the first migrates a fresh database
    try:
        await node_b.start()
        async with Client.connect(node_b.url) as bob:
            ben = (await signed_up(bob, "ben"))["player"]["name"]
            async with Client.connect(node_a.url) as alice:
                registered = await signed_up(alice, "ann")
                ann = registered["player"]["name"]
                code = (await room_reply(alice, {"type": "race_new", "suits": 1}))["code"]
                await room_reply(bob, {"type": "race_join", "code": code})
                await room_reply(alice, {"type": "race_start", "code": code})
                game = await revealed(alice, WAIT)
                assert (await revealed(bob, WAIT))["code"] == game["code"]
                line = await asyncio.to_thread(solution, game["code"])
                half = len(line) // 2
                for move in line[:half]:
                    reply = await alice.request({"type": "move", "move": move}, WAIT)
                    assert reply["type"] == "moved", reply
                await update_of(bob, ann, "moved", WAIT)
                node_a.kill()  # mid-race, with alice connected to it
            # a killed node tells nobody; the race goes on as the database has it
            still = await room_reply(bob, {"type": "race_watch", "code": code})
            assert still["state"] == "racing"
            assert {r["player"]: r["moves"] for r in still["racers"]} == {ann: half, ben: 0}

            async with Client.connect(node_b.url) as alice:
                await alice.request({"type": "auth", "token": registered["token"]})
                resumed = await alice.request(
                    {"type": "resume", "game": game["game"], "seq": half}, WAIT
                )
                state = resumed["state"]
                assert state["race"] == code and state["seq"] == half
                assert state["moves"] == half
                await update_of(bob, ann, "joined", WAIT)
                finished = await play_out(alice, line[half:])
                assert finished["won"] and finished["moves"] == len(line)
                await update_of(bob, ann, "finished", WAIT)
                await bob.request({"type": "resign"}, WAIT)
                over = await room_event(alice, "over", code, WAIT)
        assert [(r["place"], r["player"], r["won"]) for r in over["racers"]] == [
            (1, ann, True),
            (2, ben, False),
        ]
        status, page = await get_json(f"http://127.0.0.1:{node_b.port}/race/{code}")
        assert status == 200 and page["room"]["state"] == "over"
    finally:
        node_a.kill()
        await node_b.stop()
