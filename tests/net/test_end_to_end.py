"""The whole server over real websockets, on both backends (the ``backend`` fixture)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.engine import Game, GameCode
from server.play.clock import ManualClock
from server.play.daily.deals import Proof, SolverProver
from tests.conftest import Backend
from tests.support.servers import (
    Client,
    first_legal,
    fresh_clock,
    get_json,
    quick_prover,
    running_server,
    server_settings,
    serving,
    unique_name,
)


async def register(client: Client, name: str | None = None) -> dict[str, Any]:
    reply = await client.request({"type": "register", "name": name or unique_name()})
    assert reply["type"] == "registered", reply
    return reply


async def test_register_then_authenticate_with_the_token(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        name = unique_name("Ann")
        async with Client.connect(server.url) as first:
            welcome = await first.request({"type": "hello", "version": 1})
            assert welcome["type"] == "welcome" and welcome["version"] == 1
            token = (await register(first, name))["token"]
        async with Client.connect(server.url) as second:
            taken = await second.request({"type": "register", "name": name.upper()})
            assert taken["code"] == "name-taken"
            wrong = await second.request({"type": "auth", "token": token + "x"})
            assert wrong["code"] == "bad-token"
            authenticated = await second.request({"type": "auth", "token": token})
            assert authenticated["type"] == "authenticated"
            assert authenticated["player"]["name"] == name


async def test_practice_move_undo_restart_over_the_socket(backend: Backend) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as client,
    ):
        await register(client)
        code = "SS1-S4-AAAAABD"
        state = (await client.request({"type": "start", "mode": "practice", "code": code}))["state"]
        assert state["code"] == code and state["seq"] == 0
        assert state["board"] == Game.from_code(code).board_text().splitlines()
        move = first_legal(code)
        moved = await client.request({"type": "move", "move": move})
        assert moved["type"] == "moved" and moved["seq"] == 1 and moved["moves"] == 1
        undone = await client.request({"type": "undo"})
        assert undone["type"] == "state" and undone["state"]["moves"] == 0
        assert undone["state"]["seq"] == 2
        auto = await client.request({"type": "auto", "column": int(move.split("-")[0])})
        assert auto["type"] in ("moved", "error")
        restarted = await client.request({"type": "restart"})
        assert restarted["state"]["moves"] == 0 and restarted["state"]["board"] == state["board"]


async def test_resume_after_reconnect_same_game_same_seq_no_double_move(backend: Backend) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        async with Client.connect(server.url) as client:
            token = (await register(client))["token"]
            state = (await client.request({"type": "start", "suits": 1}))["state"]
            move = first_legal(state["code"])
            moved = await client.request({"type": "move", "move": move, "id": "m-1"})
            assert moved["seq"] == 1
        async with Client.connect(server.url) as client:
            await client.request({"type": "auth", "token": token})
            resumed = await client.request({"type": "resume", "game": state["game"], "seq": 1})
            assert resumed["state"]["game"] == state["game"]
            assert resumed["state"]["seq"] == 1 and resumed["state"]["moves"] == 1
            again = await client.request({"type": "move", "move": move, "id": "m-1"})
            assert again == moved
            view = await client.request({"type": "start", "suits": 1})
            assert view["state"]["moves"] == 1 and view["state"]["seq"] == 1


async def test_race_events_reach_a_second_player(backend: Backend) -> None:
    async with (
        serving(server_settings(backend), clock=fresh_clock()) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        alice_name = (await register(alice))["player"]["name"]
        await register(bob)
        state = (await alice.request({"type": "start", "suits": 2}))["state"]
        standings = await bob.request({"type": "race", "suits": 2})
        assert [p["player"] for p in standings["players"]] == [alice_name]
        await alice.request({"type": "move", "move": first_legal(state["code"])})
        digest = await bob.pushed_event(
            lambda f: f["type"] == "race_digest" and f["players"][0]["moves"] == 1
        )
        assert digest["players"][0]["player"] == alice_name and digest["playing"] == 1
        await alice.request({"type": "resign"})
        ended = await bob.pushed_event(
            lambda f: f["type"] == "race_digest" and f["finished"] + f["total"] != 1
        )  # finished (1 of 1), or, held for fair-play review, out of the race (0 of 0)
        assert ended["playing"] == 0
        assert [p["resigned"] for p in ended["players"]] in ([], [True])
        again = await alice.request({"type": "start", "suits": 2})
        assert again["type"] == "error" and again["code"] == "already-played"


async def test_bad_input_gets_errors_and_changes_nothing(backend: Backend) -> None:
    settings = server_settings(backend, max_message_bytes=1024)
    async with serving(settings) as server, Client.connect(server.url) as client:
        await register(client)
        code = "SS1-S1-AAAAAAC"
        state = (await client.request({"type": "start", "mode": "practice", "code": code}))["state"]
        for frame, error in [
            ("{not json", "bad-json"),
            ("[1, 2]", "bad-json"),
            ('{"type": "teleport", "id": 1}', "unknown-type"),
            ('{"id": 2}', "invalid-message"),
            ('{"type": "move", "id": 3, "move": 37}', "invalid-message"),
            ('{"type": "start", "id": 4, "suits": 3}', "invalid-message"),
            ('{"type": "move", "id": 5, "move": "1-2", "extra": true}', "invalid-message"),
            ('{"type": "move", "id": 6, "move": "1-100"}', "bad-move"),
            ('{"type": "move", "id": 7, "move": "4-4"}', "illegal-move"),
            (
                '{"type": "start", "id": 8, "mode": "practice", "code": "XX9-S1-AAAAAAA"}',
                "bad-code",
            ),
            ('{"type": "resume", "id": 9, "game": "no-such-game"}', "not-found"),
            # Wrong types are refused, never coerced: true is not 1 suit, "1" is no column.
            ('{"type": "start", "id": 10, "mode": "daily", "suits": true}', "invalid-message"),
            ('{"type": "auto", "id": 11, "column": 1.0}', "invalid-message"),
            ('{"type": "auto", "id": 12, "column": "1"}', "invalid-message"),
            ('{"type": "hello", "id": 13, "version": "1"}', "invalid-message"),
        ]:
            await client.send(frame)
            reply = await client.receive()
            assert reply["type"] == "error" and reply["code"] == error, (frame, reply)
            sent = json.loads(frame) if frame.startswith('{"') else {}
            assert reply.get("id") == sent.get("id")
        await client.send('{"type": "ping", "id": true}')
        reply = await client.receive()
        assert reply["code"] == "invalid-message" and "id" not in reply
        assert reply["detail"] == {"field": "id"}
        after = await client.request({"type": "start", "mode": "practice", "code": code})
        assert after["state"]["board"] == state["board"] and after["state"]["moves"] == 0
    async with serving(settings) as server, Client.connect(server.url) as client:
        unauthenticated = await client.request({"type": "move", "move": "1-2"})
        assert unauthenticated["code"] == "not-authenticated"
        await client.send("x" * 2000)
        with pytest.raises(ConnectionClosed) as closed:
            await client.receive()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        status, health = await get_json(server.http_url + "/healthz")
        assert status == 200 and health["ok"] and health["daily"] == "ready"
        assert health["race_followers"] == 0
        assert health["connections"] >= 0 and health["games"] >= 0


async def test_over_budget_messages_are_refused_and_a_flood_is_closed_with_1008(
    backend: Backend,
) -> None:
    settings = server_settings(backend, rate_limit_messages=20, rate_limit_window_seconds=2)
    clock = ManualClock()  # the budget refills on this clock, not the system's
    async with serving(settings, clock=clock) as server, Client.connect(server.url) as client:
        for number in range(25):
            await client.send(json.dumps({"type": "ping", "id": number}))
        replies = [await client.receive() for _ in range(25)]
        assert [reply["type"] for reply in replies] == ["pong"] * 20 + ["error"] * 5
        assert {reply["code"] for reply in replies[20:]} == {"rate-limited"}
        assert [reply["id"] for reply in replies[20:]] == [20, 21, 22, 23, 24]
        clock.advance(seconds=0.5)  # the budget refills at 10 a second: a patient client goes on
        assert (await client.request({"type": "ping"}))["type"] == "pong"

        for number in range(60):  # one that keeps on regardless is closed
            await client.send(json.dumps({"type": "ping", "id": number}))
        flood: list[dict[str, Any]] = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                flood.append(await client.receive())
        refused = [reply for reply in flood if reply["type"] == "error"]
        assert len(refused) == 11 and all(r["code"] == "rate-limited" for r in refused)
        assert "closing" in refused[-1]["message"] and "id" not in refused[-1]
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        async with Client.connect(server.url) as other:
            assert (await other.request({"type": "ping"}))["type"] == "pong"


async def test_a_new_day_is_announced_to_connected_players(backend: Backend) -> None:
    clock = fresh_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as client,
    ):
        before = await client.request({"type": "daily"})
        clock.advance(days=1)
        assert await server.hub.days.check_day()
        changed = await client.pushed_event(lambda f: f["type"] == "daily_changed")
        assert changed["day"] > before["day"]
        assert changed["deals"] == [{"suits": 1}, {"suits": 2}, {"suits": 4}]  # no codes
        assert {d["suits"] for d in changed["yesterday"]} == {1, 2, 4}
        assert [d["code"] for d in changed["yesterday"]] == [
            (await server.hub.daily.deal(clock.now().date() - timedelta(days=1), s)).code
            for s in (1, 2, 4)
        ]
        after = await client.request({"type": "daily"})
        assert after["day"] == changed["day"] and after["deals"] == changed["deals"]


async def test_http_endpoints_and_bad_parameters(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        day = clock.now().date().isoformat()
        async with Client.connect(server.url) as client:
            name = (await register(client))["player"]["name"]
            await client.request({"type": "start", "suits": 4})
            finished = await client.request({"type": "resign"})
            assert finished["type"] == "state"
        base = server.http_url
        status, daily = await get_json(f"{base}/daily")
        assert status == 200 and daily["day"] == day
        assert daily["deals"] == [{"suits": 1}, {"suits": 2}, {"suits": 4}]  # no codes
        status, page = await get_json(f"{base}/leaderboard?day={day}&suits=4&limit=5")
        assert status == 200 and [r["player"] for r in page["rows"]] == [name]
        status, rank = await get_json(f"{base}/rank?day={day}&suits=4&player={name}")
        assert status == 200 and rank["rank"] == 1 and rank["total"] == 1
        status, history = await get_json(f"{base}/history?player={name}")
        assert status == 200 and history["stats"]["games"] == 1
        for query in [
            "/leaderboard?suits=3",
            "/leaderboard?day=yesterday",
            "/leaderboard?limit=0",
            "/leaderboard?limit=abc",
            "/leaderboard?after=not-a-cursor",
            "/leaderboard?colour=blue",
            "/rank?suits=1",
            "/history",
        ]:
            status, body = await get_json(base + query)
            assert status == 400 and body["error"]["code"], (query, body)
        status, body = await get_json(f"{base}/history?player={unique_name()}")
        assert status == 404 and body["error"]["code"] == "not-found"
        status, body = await get_json(f"{base}/nowhere")
        assert status == 404


async def test_daily_by_the_solver_held_for_a_human_and_ranked_for_a_bot(
    backend: Backend,
) -> None:
    """The 1-suit daily proven by the real solver, won with its solution at machine speed:
    from a human account the result is held for review, off the public board; from a
    declared bot account it is ranked on the bots' board."""
    solver = SolverProver(30.0, processes=False)
    proofs: dict[str, tuple[str, ...]] = {}

    async def prover(code: str) -> Proof:
        if GameCode.parse(code).suits != 1:
            return await quick_prover(code)  # the other suit counts are not played here
        proof = await solver(code)
        proofs[code] = proof.moves
        return proof

    clock = fresh_clock()

    async def solve_daily(client: Client) -> tuple[dict[str, Any], dict[str, Any]]:
        state = (await client.request({"type": "start", "suits": 1}))["state"]
        reply: dict[str, Any] = {}
        for move in proofs[state["code"]]:
            reply = await client.request({"type": "move", "move": move})
            assert reply["type"] == "moved", reply
        assert reply["won"]
        return state, await client.pushed_event(lambda f: f["type"] == "finished")

    async with serving(server_settings(backend), clock=clock, prover=prover) as server:
        day = clock.now().date().isoformat()
        async with Client.connect(server.url) as human, Client.connect(server.url) as bot:
            registered = await register(human)
            name, token = registered["player"]["name"], registered["token"]
            robot = await bot.request({"type": "register", "name": unique_name("r"), "bot": True})
            state, finished = await solve_daily(human)
            moves = proofs[state["code"]]
            assert finished["won"] and finished["score"] == 900 - len(moves)
            assert finished["review"] == "held" and "rank" not in finished
            practice = {"type": "start", "mode": "practice", "code": state["code"]}
            assert (await human.request(practice))["code"] == "daily-not-over"
            board = await human.request({"type": "leaderboard", "day": day, "suits": 1})
            assert board["rows"] == [] and board["total"] == 0
            unranked = await human.request({"type": "rank", "suits": 1})
            assert "rank" not in unranked and unranked["review"] == "held"  # told why
            history = await human.request({"type": "history"})
            # its player sees it under review; today's code stays secret until the day is over
            assert [(g.get("code"), g.get("rank"), g["review"]) for g in history["games"]] == [
                (None, None, "held")
            ]
            seen_by_others = await bot.request({"type": "history", "player": name})
            assert [("review" in g, "rank" in g) for g in seen_by_others["games"]] == [
                (False, False)
            ]
            assert (await human.request({"type": "start", "suits": 1}))["code"] == "already-played"
            _, ranked = await solve_daily(bot)
            assert ranked["rank"] == 1 and "review" not in ranked
            bots = await bot.request({"type": "leaderboard", "suits": 1, "board": "bots"})
            assert [r["player"] for r in bots["rows"]] == [robot["player"]["name"]]
        status, page = await get_json(f"{server.http_url}/leaderboard?day={day}&suits=1")
        assert status == 200 and page["rows"] == []
        status, page = await get_json(f"{server.http_url}/leaderboard?day={day}&suits=1&board=bots")
        assert status == 200 and page["rows"][0]["player"] == robot["player"]["name"]
        clock.advance(days=1)
        async with Client.connect(server.url) as client:
            await client.request({"type": "auth", "token": token})
            resumed = await client.request({"type": "resume", "game": state["game"]})
            assert resumed["state"]["par"] == len(moves) and resumed["state"]["won"]
            result = await client.pushed_event(lambda f: f["type"] == "finished")
            assert result["par"] == len(moves) and result["review"] == "held"
            history = await client.request({"type": "history"})
            assert [game["code"] for game in history["games"]] == [state["code"]]
            # Yesterday's deal is open for practice.
            reopened = await client.request(practice)
            assert reopened["type"] == "state" and reopened["state"]["mode"] == "practice"


async def test_running_server_yields_the_url(backend: Backend) -> None:
    async with running_server(server_settings(backend)) as url, Client.connect(url) as client:
        assert url.startswith("ws://127.0.0.1:")
        assert (await client.request({"type": "ping"}))["type"] == "pong"


async def test_bot_accounts_have_their_own_board_over_the_socket_and_http(
    backend: Backend,
) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        day = clock.now().date().isoformat()
        async with Client.connect(server.url) as bot, Client.connect(server.url) as human:
            robo = await bot.request({"type": "register", "name": unique_name("bot"), "bot": True})
            assert robo["player"]["bot"] is True
            name = (await register(human))["player"]["name"]
            await human.request({"type": "race", "suits": 2})
            await bot.request({"type": "start", "suits": 2})
            joined = await human.pushed_event(lambda f: f.get("type") == "race_digest")
            assert joined["players"][0]["bot"] is True and "code" not in json.dumps(joined)
            await bot.request({"type": "resign"})
            state = (await human.request({"type": "start", "suits": 2}))["state"]
            await human.request({"type": "move", "move": first_legal(state["code"])})
            await human.request({"type": "resign"})
            page = await human.request({"type": "leaderboard", "suits": 2, "board": "bots"})
            assert [(r["player"], r["bot"]) for r in page["rows"]] == [
                (robo["player"]["name"], True)
            ]
            wrong = await human.request({"type": "leaderboard", "board": "robots"})
            assert wrong["code"] == "invalid-message" and wrong["detail"] == {"field": "board"}
            standings = await human.request({"type": "race", "suits": 2})
            assert "code" not in json.dumps(standings) and "board" not in json.dumps(standings)
        base = f"{server.http_url}"
        status, humans = await get_json(f"{base}/leaderboard?day={day}&suits=2")
        assert status == 200 and humans["board"] == "humans"
        assert [(r["player"], r["won"], r["removed"], r["bot"]) for r in humans["rows"]] == [
            (name, False, 0, False)
        ]
        robo_name = robo["player"]["name"]
        status, rank = await get_json(
            f"{base}/rank?day={day}&suits=2&board=bots&player={robo_name}"
        )
        assert status == 200 and rank["rank"] == 1 and rank["board"] == "bots"
        status, rank = await get_json(f"{base}/rank?day={day}&suits=2&player={robo_name}")
        assert status == 200 and "rank" not in rank and rank["total"] == 1  # the humans' board
        status, body = await get_json(f"{base}/leaderboard?board=robots")
        assert status == 400 and body["error"]["code"] == "invalid-message"
        assert "board" in body["error"]["message"]
