"""Race rooms on a real server (both backends): a private race from its room to its
results and rematch, the time limit, quick rooms, a racer coming back, and refusals.

The server's clock is a ManualClock: the countdown, the time limit and a public room's
wait pass when the test moves it.
"""

from __future__ import annotations

import asyncio
import re

from server.engine import Game
from tests.conftest import Backend
from tests.support.rooms import (
    DEAL,
    play_out,
    refused,
    revealed,
    room_clock,
    room_event,
    room_reply,
    signed_up,
    solution,
    update_of,
)
from tests.support.servers import Client, get_json, server_settings, serving


async def test_a_private_race_from_the_room_to_the_results_and_a_rematch(
    backend: Backend,
) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        ann = (await signed_up(alice, "ann"))["player"]["name"]
        ben = (await signed_up(bob, "ben"))["player"]["name"]
        room = await room_reply(alice, {"type": "race_new", "code": DEAL})
        code = room["code"]
        assert re.fullmatch(r"[0-9A-Z]{5}-[0-9A-Z]{5}", code)
        assert room["state"] == "open" and room["owner"] == ann and room["capacity"] == 10
        assert [r["player"] for r in room["racers"]] == [ann]
        assert "deal" not in room  # the deal stays secret until the reveal

        joined = await room_reply(bob, {"type": "race_join", "code": code.lower()})
        assert joined["code"] == code and {r["player"] for r in joined["racers"]} == {ann, ben}
        pushed = await room_event(alice, "joined", code)
        assert len(pushed["racers"]) == 2 and pushed["revision"] > room["revision"]

        counting = await room_reply(alice, {"type": "race_start", "code": code})
        assert counting["state"] == "countdown" and counting["starts_in"] == 10.0
        assert "deal" not in counting
        assert (await room_event(bob, "countdown", code))["starts_at"] == counting["starts_at"]

        clock.advance(seconds=10)  # the reveal, on every racer's connection at once
        game_a, game_b = await revealed(alice), await revealed(bob)
        assert game_a["code"] == game_b["code"] == DEAL and game_a["board"] == game_b["board"]
        assert game_a["race"] == game_b["race"] == code
        assert game_a["game"] != game_b["game"] and game_a["seq"] == 0
        started = await room_event(bob, "started", code)
        assert started["state"] == "racing" and started["deal"] == DEAL

        line = solution(DEAL)
        await alice.request({"type": "move", "move": line[0]})
        entry = await update_of(bob, ann, "moved", moves=1)
        assert entry["score"] == 499 and not entry["finished"]
        clock.advance(seconds=42)
        finished = await play_out(alice, line[1:])
        assert finished["won"] and finished["elapsed"] == 42.0
        won = await update_of(bob, ann, "finished")
        assert won["won"] and won["elapsed"] == 42.0

        resigned = await bob.request({"type": "resign"})
        assert resigned["type"] == "state" and resigned["state"]["finished"]
        over = await room_event(alice, "over", code)
        assert over["state"] == "over" and over["deal"] == DEAL
        places = [(r["place"], r["player"], r["won"], r["resigned"]) for r in over["racers"]]
        assert places == [(1, ann, True, False), (2, ben, False, True)]
        assert over["racers"][0]["elapsed"] == 42.0

        status, page = await get_json(f"{server.http_url}/race/{code}")
        assert status == 200 and page["type"] == "race_room"
        assert page["room"]["racers"] == over["racers"]
        assert (await get_json(f"{server.http_url}/race/QQQQQ"))[0] == 404
        history = await alice.request({"type": "history"})
        assert [(g["race"], g["place"], g["won"]) for g in history["games"]] == [(code, 1, True)]

        # a rematch: a new room with the same options for whoever joins it
        assert await refused(alice, {"type": "race_rematch", "code": "ZZZZZ"}) == "no-such-race"
        again = await room_reply(bob, {"type": "race_rematch", "code": code})
        assert again["code"] != code and again["previous"] == code and again["owner"] == ben
        assert again["state"] == "open" and again["capacity"] == 10
        told = await room_event(alice, "rematch", code)
        assert "next" not in told  # a private room's rematch: its code only by race_rematch
        joined_again = await room_reply(alice, {"type": "race_rematch", "code": code})
        assert joined_again["code"] == again["code"]
        assert {r["player"] for r in joined_again["racers"]} == {ann, ben}
        await room_reply(bob, {"type": "race_start", "code": again["code"]})
        clock.advance(seconds=10)
        fresh = await revealed(alice)
        assert fresh["race"] == again["code"]
        assert fresh["code"] != DEAL and Game.from_code(fresh["code"]).suits == 1


async def test_the_time_limit_ends_the_race_and_ranks_by_runs_then_moves(
    backend: Backend,
) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
        Client.connect(server.url) as watcher,
    ):
        ann = (await signed_up(alice, "ann"))["player"]["name"]
        ben = (await signed_up(bob, "ben"))["player"]["name"]
        room = await room_reply(alice, {"type": "race_new", "code": DEAL, "time_limit": 60})
        code = room["code"]
        assert room["time_limit"] == 60.0
        await room_reply(bob, {"type": "race_join", "code": code})
        assert await refused(watcher, {"type": "race_watch", "code": code}) == (
            "not-authenticated"  # following needs an account
        )
        await signed_up(watcher, "cat")
        watched = await room_reply(watcher, {"type": "race_watch", "code": code})
        assert len(watched["racers"]) == 2
        await room_reply(alice, {"type": "race_start", "code": code})
        clock.advance(seconds=10)
        await revealed(alice)
        await revealed(bob)
        line = solution(DEAL)
        for move in line[:2]:
            assert (await alice.request({"type": "move", "move": move}))["type"] == "moved"
        assert (await bob.request({"type": "move", "move": line[0]}))["type"] == "moved"
        await update_of(watcher, ben, "moved", moves=1)  # spectators see the race too
        clock.advance(seconds=60)
        over = await room_event(watcher, "over", code)
        lines = [(r["place"], r["player"], r["moves"], r["finished"]) for r in over["racers"]]
        assert lines == [(1, ben, 1, True), (2, ann, 2, True)]  # no runs: fewer moves first
        late = await alice.request({"type": "move", "move": line[2]})
        assert late["type"] == "error" and late["code"] == "game-over"


async def test_quick_races_count_down_by_themselves(backend: Backend) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as one,
        Client.connect(server.url) as two,
        Client.connect(server.url) as three,
        Client.connect(server.url) as four,
    ):
        for client, name in ((one, "q1"), (two, "q2"), (three, "q3"), (four, "q4")):
            await signed_up(client, name)
        # two racers: the countdown begins by itself after the wait
        room = await room_reply(one, {"type": "race_quick", "suits": 2})
        assert room["public"] and room["suits"] == 2 and room["state"] == "open"
        second = await room_reply(two, {"type": "race_quick", "suits": 2})
        assert second["code"] == room["code"] and "auto_start_at" in second
        clock.advance(seconds=30)
        counting = await room_event(one, "countdown", room["code"])
        assert counting["state"] == "countdown" and counting["suits"] == 2
        # that room is racing: the next quick racers get another, and at 3 it counts down
        other = await room_reply(three, {"type": "race_quick", "suits": 2})
        assert other["code"] != room["code"]
        assert (await room_reply(four, {"type": "race_quick", "suits": 2}))["code"] == other["code"]
        code = other["code"]
        async with Client.connect(server.url) as five:
            await signed_up(five, "q5")
            assert (await room_reply(five, {"type": "race_quick", "suits": 2}))["code"] == code
            assert (await room_event(three, "countdown", code))["racers"][2]["player"]


async def test_a_racer_who_drops_comes_back_to_the_race(backend: Backend) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as alice,
    ):
        ann = (await signed_up(alice, "ann"))["player"]["name"]
        code = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
        line = solution(DEAL)
        async with Client.connect(server.url) as bob:
            registered = await signed_up(bob, "ben")
            ben = registered["player"]["name"]
            await room_reply(bob, {"type": "race_join", "code": code})
            await room_reply(alice, {"type": "race_start", "code": code})
            clock.advance(seconds=10)
            await revealed(alice)
            game = await revealed(bob)
            assert (await bob.request({"type": "move", "move": line[0]}))["type"] == "moved"
            await update_of(alice, ben, "moved", moves=1)
        await update_of(alice, ben, "left")  # the racer stays in the race
        async with Client.connect(server.url) as bob:
            await bob.request({"type": "auth", "token": registered["token"]})
            # back through the room: its view, and the racer's game as it stands
            reply = await bob.request({"type": "race_join", "code": code})
            assert reply["type"] == "race_room" and reply["room"]["state"] == "racing"
            state = await bob.pushed_event(lambda f: f["type"] == "state")
            assert state["state"]["game"] == game["game"] and state["state"]["seq"] == 1
            await update_of(alice, ben, "joined")  # the others see the racer back
            racers = {r["player"]: r for r in reply["room"]["racers"]}
            assert racers[ben]["moves"] == 1 and racers[ann]["moves"] == 0
            clock.advance(seconds=1)
            # ids counted afresh by the new connection: "back-1" is no resend of id 3
            moved = await bob.request({"type": "move", "move": line[1], "id": "back-1"})
            assert moved["seq"] == 2
            await update_of(alice, ben, "moved", moves=2)
        async with Client.connect(server.url) as bob:
            # or by the game's id, as after any reconnect
            await bob.request({"type": "auth", "token": registered["token"]})
            again = await bob.request({"type": "resume", "game": game["game"]})
            assert again["state"]["race"] == code and again["state"]["seq"] == 2
            await update_of(alice, ben, "joined")
            clock.advance(seconds=1)
            moved = await bob.request({"type": "move", "move": line[2], "id": "back-2"})
            assert moved["seq"] == 3
            await update_of(alice, ben, "moved", moves=3)


async def test_bots_have_quick_races_of_their_own(backend: Backend) -> None:
    """A declared bot's quick race is in the bots' own room (which takes bots); a person's
    never is."""
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as robo,
        Client.connect(server.url) as droid,
        Client.connect(server.url) as person,
    ):
        await signed_up(robo, "robo", bot=True)
        await signed_up(droid, "droid", bot=True)
        await signed_up(person, "pat")
        bots = await room_reply(robo, {"type": "race_quick", "suits": 4})
        assert bots["public"] and bots["allow_bots"] and bots["state"] == "open"
        assert (await room_reply(droid, {"type": "race_quick", "suits": 4}))["code"] == bots["code"]
        people = await room_reply(person, {"type": "race_quick", "suits": 4})
        assert people["code"] != bots["code"] and not people["allow_bots"]


async def test_bad_room_requests_are_refused_with_stable_codes(backend: Backend) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
        Client.connect(server.url) as carol,
        Client.connect(server.url) as robo,
        Client.connect(server.url) as stranger,
    ):
        assert await refused(stranger, {"type": "race_new"}) == "not-authenticated"
        for client, name in ((alice, "ann"), (bob, "ben"), (carol, "cat")):
            await signed_up(client, name)
        await signed_up(robo, "robo", bot=True)
        assert await refused(alice, {"type": "race_join", "code": "QQQQQ"}) == "no-such-race"
        assert await refused(alice, {"type": "race_join", "code": "Q1"}) == "no-such-race"
        assert await refused(alice, {"type": "race_watch", "code": "QQQQQ"}) == "no-such-race"
        assert await refused(alice, {"type": "race_new", "capacity": 11}) == "invalid-message"
        assert await refused(alice, {"type": "race_new", "code": "SS1-S9-A"}) == "bad-code"
        assert await refused(robo, {"type": "race_new"}) == "bots-not-allowed"

        room = await room_reply(alice, {"type": "race_new", "capacity": 2})
        code = room["code"]
        start = {"type": "race_start", "code": code}
        assert await refused(alice, start) == "not-enough-racers"  # alone
        assert await refused(robo, {"type": "race_join", "code": code}) == "bots-not-allowed"
        assert await refused(bob, start) == "not-in-race"
        await room_reply(bob, {"type": "race_join", "code": code})
        assert await refused(carol, {"type": "race_join", "code": code}) == "race-full"
        assert await refused(bob, start) == "not-race-owner"
        rematch = {"type": "race_rematch", "code": code}
        assert await refused(bob, rematch) == "race-not-over"
        await room_reply(alice, start)
        assert await refused(alice, start) == "race-started"
        assert await refused(bob, {"type": "race_leave", "code": code}) == "race-started"
        assert await refused(carol, {"type": "race_join", "code": code}) == "race-started"
        assert (await room_reply(carol, {"type": "race_watch", "code": code}))["state"] == (
            "countdown"
        )
        # a bot joins only a room whose owner allows bots
        bots = await room_reply(carol, {"type": "race_new", "allow_bots": True})
        joined = await room_reply(robo, {"type": "race_join", "code": bots["code"]})
        assert [r["bot"] for r in joined["racers"]] == [False, True]
        # a racer's game cannot be taken up before the reveal, even by its id
        stored = await server.hub.rooms.races.get(code)
        assert stored is not None
        game_id = stored.entrants[0].game_id
        assert game_id is not None
        assert await refused(alice, {"type": "resume", "game": game_id}) == "not-found"
        clock.advance(seconds=10)
        assert (await revealed(alice))["game"] == game_id


async def test_rooms_nobody_follows_still_end_and_expire(backend: Backend) -> None:
    clock = room_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        async with Client.connect(server.url) as alice, Client.connect(server.url) as bob:
            await signed_up(alice, "ann")
            await signed_up(bob, "ben")
            code = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
            idle = (await room_reply(bob, {"type": "race_new"}))["code"]
            await room_reply(bob, {"type": "race_join", "code": code})
            await room_reply(alice, {"type": "race_start", "code": code})
            clock.advance(seconds=10)
            await revealed(alice)
            await revealed(bob)
            await alice.request({"type": "move", "move": solution(DEAL)[0]})
        # every racer is gone: no node follows either room, and no timer runs for them
        async with asyncio.timeout(5):
            # the server lets go when it sees the closes, in its own time
            while server.hub.rooms.follower_count:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        clock.advance(minutes=15)
        await server.hub.rooms.sweep()
        status, page = await get_json(f"{server.http_url}/race/{code}")
        assert status == 200 and page["room"]["state"] == "over"
        assert [(r["place"], r["moves"], r["finished"]) for r in page["room"]["racers"]] == [
            (1, 0, True),
            (2, 1, True),
        ]
        assert (await get_json(f"{server.http_url}/race/{idle}"))[1]["room"]["state"] == "open"
        clock.advance(minutes=46)  # an hour since it opened, and nobody started it
        await server.hub.rooms.sweep()
        assert (await get_json(f"{server.http_url}/race/{idle}"))[1]["room"]["state"] == "expired"
