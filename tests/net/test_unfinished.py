"""A player's games in progress (``unfinished``) through a real server, on both backends:
practice games, today's daily and a racing room's game, newest started first, each with its
moves as the game counts them (an undo takes one back, a restart starts again); a finished
game, a race still counting down and another player's games are not among them, and each
one listed is taken up again by ``resume``."""

from __future__ import annotations

from typing import Any

from server.engine import Game
from tests.conftest import Backend
from tests.support.rooms import DEAL, room_clock, room_event, room_reply, signed_up
from tests.support.servers import Client, server_settings, serving

#: A 4-suit practice deal with moves to make.
PRACTICE = "SS1-S4-AAAAABD"


async def _play(client: Client, game: Game, count: int) -> None:
    """Play ``count`` legal moves of ``game`` (kept in step with the server's)."""
    for _ in range(count):
        move = game.resolve(next(game.legal_moves()))
        game.push(move)
        reply = await client.request({"type": "move", "move": move.text()})
        assert reply["type"] == "moved", reply


async def _started(client: Client, message: dict[str, Any]) -> dict[str, Any]:
    reply = await client.request({"type": "start", **message})
    assert reply["type"] == "state", reply
    state: dict[str, Any] = reply["state"]
    return state


async def _listed(client: Client, **asked: Any) -> list[dict[str, Any]]:
    reply = await client.request({"type": "unfinished", **asked})
    assert reply["type"] == "unfinished", reply
    games: list[dict[str, Any]] = reply["games"]
    return games


async def test_a_players_games_in_progress_are_listed_and_taken_up_again(
    backend: Backend,
) -> None:
    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        refused = await alice.request({"type": "unfinished"})
        assert refused["type"] == "error" and refused["code"] == "not-authenticated"
        token = (await signed_up(alice, "ann"))["token"]
        await signed_up(bob, "ben")
        assert await _listed(alice) == []

        # a practice game: three moves, one undone
        first = await _started(alice, {"mode": "practice", "code": PRACTICE})
        game = Game.from_code(PRACTICE)
        await _play(alice, game, 3)
        assert (await alice.request({"type": "undo"}))["state"]["moves"] == 2
        clock.advance(minutes=1)
        # today's daily of 2 suits: one move
        daily = await _started(alice, {"mode": "daily", "suits": 2})
        await _play(alice, Game.from_code(daily["code"]), 1)
        clock.advance(minutes=1)
        # a random practice deal: two moves, a restart, one move
        second = await _started(alice, {"mode": "practice", "suits": 1})
        game = Game.from_code(second["code"])
        await _play(alice, game, 2)
        assert (await alice.request({"type": "restart"}))["state"]["moves"] == 0
        await _play(alice, Game.from_code(second["code"]), 1)
        clock.advance(minutes=1)
        # a game resigned is finished: not listed
        await _started(alice, {"mode": "practice", "suits": 2})
        assert (await alice.request({"type": "resign"}))["state"]["finished"]
        clock.advance(minutes=1)

        # a race room: not while it counts down, listed from its reveal
        code = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
        await room_reply(bob, {"type": "race_join", "code": code})
        await room_reply(alice, {"type": "race_start", "code": code})
        assert len(await _listed(alice)) == 3
        clock.advance(seconds=10)
        await room_event(alice, "started", code)

        listed = await _listed(alice)
        assert [(g["mode"], g["suits"], g.get("race"), g["moves"]) for g in listed] == [
            ("practice", 1, code, 0),
            ("practice", 1, None, 1),
            ("daily", 2, None, 1),
            ("practice", 4, None, 2),
        ]
        race, random_deal, today, practice = listed
        assert race["code"] == DEAL
        assert random_deal["game"] == second["game"] and random_deal["code"] == second["code"]
        # today's deal is told only by its state: not here
        assert today["game"] == daily["game"] and "code" not in today
        assert today["day"] == daily["day"]
        assert practice["game"] == first["game"] and practice["code"] == PRACTICE
        assert practice["started"] < today["started"] < random_deal["started"]
        assert "day" not in practice
        assert await _listed(alice, limit=2) == listed[:2]
        # the other racer sees his own race game, and none of hers
        (his,) = await _listed(bob)
        assert his["race"] == code and his["game"] != race["game"]

        # each is taken up again, on another connection, as it stood
        async with Client.connect(server.url) as again:
            assert (await again.request({"type": "auth", "token": token}))["type"] == (
                "authenticated"
            )
            for listed_game in listed:
                resumed = await again.request({"type": "resume", "game": listed_game["game"]})
                assert resumed["type"] == "state", resumed
                assert resumed["state"]["moves"] == listed_game["moves"]
                assert not resumed["state"]["finished"]

        # a race over is no longer in progress
        for racer in (alice, bob):
            await racer.request({"type": "resume", "game": (await _listed(racer))[0]["game"]})
            assert (await racer.request({"type": "resign"}))["state"]["finished"]
        await room_event(alice, "over", code)
        assert [g["game"] for g in await _listed(alice)] == [g["game"] for g in listed[1:]]
        assert await _listed(bob) == []
