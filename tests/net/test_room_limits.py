"""Race rooms against abuse, on a real server and both backends: codes nobody guesses,
private rooms joined only by their code, a few open rooms per account, a few rooms
followed per connection, and expired rooms deleted so that codes are never used up."""

from __future__ import annotations

import random
import string

from server.play.rooms.rules import room_code
from server.protocol import ROOM_ALPHABET, ROOM_CODE_SYMBOLS
from tests.conftest import Backend
from tests.support.rooms import (
    DEAL,
    refused,
    revealed,
    room_clock,
    room_reply,
    signed_up,
    solution,
)
from tests.support.servers import Client, get_json, server_settings, serving


async def test_an_account_opens_a_few_rooms_at_most(backend: Backend) -> None:
    settings = server_settings(backend, race_open_rooms_per_account=3)
    async with (
        serving(settings, clock=room_clock()) as server,
        Client.connect(server.url) as first,
        Client.connect(server.url) as second,
        Client.connect(server.url) as friend,
    ):
        token = (await signed_up(first, "many"))["token"]
        assert (await second.request({"type": "auth", "token": token}))["type"] == "authenticated"
        await signed_up(friend, "pal")
        codes = [(await room_reply(first, {"type": "race_new"}))["code"] for _ in range(3)]
        # the probe made 5,572 rooms in 25 s from one account; on any connection, 3 at most
        for client in (first, second, first):
            assert await refused(client, {"type": "race_new"}) == "too-many-rooms"
        reply = await second.request({"type": "race_new", "public": True})
        assert "3 open rooms" in reply["message"]
        # a room started (or left, or expired) is open no more
        await room_reply(friend, {"type": "race_join", "code": codes[0]})
        await room_reply(first, {"type": "race_start", "code": codes[0]})
        fourth = await room_reply(second, {"type": "race_new"})
        await room_reply(second, {"type": "race_leave", "code": fourth["code"]})  # expires it
        await room_reply(second, {"type": "race_new"})
        assert await refused(second, {"type": "race_new"}) == "too-many-rooms"
        # other accounts are not held back, and joining is not opening
        assert (await room_reply(friend, {"type": "race_new"}))["owner"] != "many"
        stored = await server.hub.rooms.races.get(codes[1])
        assert stored is not None and stored.state == "open"


async def test_guessing_codes_finds_no_private_room(backend: Backend) -> None:
    async with (
        serving(server_settings(backend), clock=room_clock()) as server,
        Client.connect(server.url) as owner,
        Client.connect(server.url) as guesser,
        Client.connect(server.url) as anonymous,
    ):
        await signed_up(owner, "host")
        await signed_up(guesser, "guess")
        opened = {(await room_reply(owner, {"type": "race_new"}))["code"] for _ in range(3)}
        # watching needs an account, as following any race does
        watch = {"type": "race_watch", "code": next(iter(opened))}
        assert await refused(anonymous, watch) == "not-authenticated"
        assert await refused(anonymous, {"type": "race_join", **watch}) == "not-authenticated"
        # the probe found 9 private rooms among 5-letter codes in 25 s; 50 bits leave a
        # guesser with one chance in 2**50 / rooms open
        assert len(ROOM_ALPHABET) ** ROOM_CODE_SYMBOLS == 2**50
        rng = random.Random(7)
        # (within one connection's message budget: the network's limits are tested apart)
        guesses = [room_code() for _ in range(40)]
        guesses += ["".join(rng.choices(string.ascii_uppercase, k=5)) for _ in range(40)]
        for code in opened:  # one symbol off is another code
            symbols = [s for s in code if s != "-"]
            symbols[-1] = next(s for s in ROOM_ALPHABET if s != symbols[-1])
            guesses.append("".join(symbols))
        answers = {await refused(guesser, {"type": "race_watch", "code": c}) for c in guesses}
        assert answers == {"no-such-race"}
        # a quick race never lands in a private room
        quick = await room_reply(guesser, {"type": "race_quick"})
        assert quick["public"] and quick["code"] not in opened
        # the owner's friend, given the code, types it loosely
        typed = next(iter(opened)).lower().replace("-", " ")
        assert (await room_reply(guesser, {"type": "race_join", "code": typed}))["code"] in opened


async def test_a_connection_follows_a_few_rooms_at_most(backend: Backend) -> None:
    settings = server_settings(backend, race_watches_per_connection=4)
    async with (
        serving(settings, clock=room_clock()) as server,
        Client.connect(server.url) as owners,
        Client.connect(server.url) as more,
        Client.connect(server.url) as fan,
    ):
        await signed_up(owners, "own")
        await signed_up(more, "more")
        await signed_up(fan, "fan")
        codes = [(await room_reply(owners, {"type": "race_new"}))["code"] for _ in range(3)]
        codes += [(await room_reply(more, {"type": "race_new"}))["code"] for _ in range(2)]
        for code in codes[:4]:
            await room_reply(fan, {"type": "race_watch", "code": code})
        # the probe watched 95 rooms on one connection
        assert await refused(fan, {"type": "race_watch", "code": codes[4]}) == "too-many-rooms"
        assert await refused(fan, {"type": "race_join", "code": codes[4]}) == "too-many-rooms"
        assert await refused(fan, {"type": "race_new"}) == "too-many-rooms"
        stored = await server.hub.rooms.races.get(codes[4])
        assert stored is not None and len(stored.entrants) == 1  # the refused join changed nothing
        await room_reply(fan, {"type": "race_watch", "code": codes[0]})  # one it follows: fine
        await room_reply(fan, {"type": "race_leave", "code": codes[0]})
        await room_reply(fan, {"type": "race_watch", "code": codes[4]})
        async with Client.connect(server.url) as other:  # the cap is per connection
            await signed_up(other, "other")
            await room_reply(other, {"type": "race_watch", "code": codes[0]})


async def test_expired_rooms_are_deleted_finished_ones_kept(backend: Backend) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        await signed_up(alice, "ann")
        await signed_up(bob, "ben")
        raced = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
        idle = (await room_reply(bob, {"type": "race_new"}))["code"]
        await room_reply(bob, {"type": "race_join", "code": raced})
        await room_reply(alice, {"type": "race_start", "code": raced})
        clock.advance(seconds=10)
        await revealed(alice)
        await revealed(bob)
        for move in solution(DEAL):
            await alice.request({"type": "move", "move": move})
        await bob.request({"type": "resign"})
        over = (await get_json(f"{server.http_url}/race/{raced}"))[1]["room"]
        assert over["state"] == "over"
        rematch = await room_reply(alice, {"type": "race_rematch", "code": raced})
        rooms = server.hub.rooms
        clock.advance(hours=1, seconds=1)  # nobody started them: they expire
        await rooms.sweep()
        for code in (idle, rematch["code"]):
            expired = await rooms.races.get(code)
            assert expired is not None and expired.state == "expired"
        clock.advance(hours=1, seconds=1)  # and a while later they are gone
        await rooms.sweep()
        assert await rooms.races.get(idle) is None
        assert await rooms.races.get(rematch["code"]) is None
        status, _ = await get_json(f"{server.http_url}/race/{idle}")
        assert status == 404
        assert await refused(bob, {"type": "race_watch", "code": idle}) == "no-such-race"
        # the race's results stay (histories link them), no longer naming a rematch gone
        kept = await rooms.races.get(raced)
        assert kept is not None and kept.state == "over" and kept.next is None
        history = await alice.request({"type": "history"})
        assert [game.get("race") for game in history["games"]] == [raced]
