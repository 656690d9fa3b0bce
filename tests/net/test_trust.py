"""Trust at the top of the board, through a real server on both backends: the new players'
board and graduating from it, the day's leaders queued for review and shown verified once
cleared, and the account-level hold."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from server.engine import Game
from server.play.clock import ManualClock
from server.play.fairplay.difficulty import choices
from tests.conftest import Backend
from tests.support.servers import (
    HOLD_NOTHING,
    Client,
    first_legal,
    fresh_clock,
    get_json,
    server_settings,
    serving,
    store_of,
    unique_name,
)
from tests.support.web import no_cache, page

#: Nothing held for its evidence, and the gate of two earlier days of dailies alone.
GATED = dataclasses.replace(HOLD_NOTHING, new_account_days=2, new_account_follow_z=0.0)
#: The same, with the default evidence condition: think times that follow difficulty.
GATED_BY_EVIDENCE = dataclasses.replace(HOLD_NOTHING, new_account_days=2)


async def register(client: Client, name: str | None = None, **more: Any) -> dict[str, Any]:
    reply = await client.request({"type": "register", "name": name or unique_name(), **more})
    assert reply["type"] == "registered", reply
    return reply


async def resign_daily(client: Client, suits: int = 1) -> dict[str, Any]:
    """Start today's daily, play one move and resign it: its ``finished``."""
    state = (await client.request({"type": "start", "suits": suits}))["state"]
    await client.request({"type": "move", "move": first_legal(state["code"])})
    await client.request({"type": "resign"})
    return await client.pushed_event(lambda frame: frame["type"] == "finished")


async def test_a_new_account_plays_on_the_new_players_board_until_its_third_day(
    backend: Backend,
) -> None:
    """Day 1 and day 2 of a new human account go on the new players' board, each saying
    from which day its dailies count (day 3); day 3's goes on the public board. A result
    stays on the board it was placed on; a bot's goes on the bots' board as before."""
    clock = fresh_clock()
    first = clock.now().date()
    async with serving(server_settings(backend, fairplay=GATED), clock=clock) as server:
        base = server.http_url
        async with Client.connect(server.url) as client, Client.connect(server.url) as robot:
            registered = await register(client)
            name, token = registered["player"]["name"], registered["token"]
            await register(robot, unique_name("r"), bot=True)
            finished = await resign_daily(client)
            assert finished["board"] == "new" and finished["rank"] == 1
            # the shared link finds the result where it is
            assert finished["share"].endswith(f"/day/{first}?suits=1&board=new"), finished
            assert finished["counts_from"] == (first + timedelta(days=2)).isoformat()
            assert (await resign_daily(robot))["board"] == "bots"
            new = await client.request({"type": "leaderboard", "suits": 1, "board": "new"})
            assert [row["player"] for row in new["rows"]] == [name]
            public = await client.request({"type": "leaderboard", "suits": 1})
            assert public["rows"] == [] and public["total"] == 0
            rank = await client.request({"type": "rank", "suits": 1, "board": "new"})
            assert rank["rank"] == 1 and rank["board"] == "new"
            history = await client.request({"type": "history"})
            assert history["counts_from"] == (first + timedelta(days=2)).isoformat()
            assert [(g["board"], g["rank"]) for g in history["games"]] == [("new", 1)]
        status, board = await get_json(f"{base}/leaderboard?suits=1&board=new")
        assert status == 200 and [row["player"] for row in board["rows"]] == [name]
        no_cache(server)
        shown = await page(f"{base}/?board=new")
        assert shown.status == 200 and name in shown.text and "new players" in shown.text.lower()
        shown = await page(f"{base}/player/{name}")
        assert f'data-counts-from="{first + timedelta(days=2)}"' in shown.text

        for day_number in (2, 3):
            clock.advance(days=1)
            assert await server.hub.days.check_day()
            async with Client.connect(server.url) as client:
                await client.request({"type": "auth", "token": token})
                finished = await resign_daily(client)
                today = clock.now().date().isoformat()
                new = await client.request({"type": "leaderboard", "suits": 1, "board": "new"})
                public = await client.request({"type": "leaderboard", "suits": 1})
                history = await client.request({"type": "history"})
            if day_number == 2:
                assert finished["board"] == "new"
                assert finished["counts_from"] == (first + timedelta(days=2)).isoformat()
                assert [row["player"] for row in new["rows"]] == [name] and public["total"] == 0
            else:
                assert finished["board"] == "humans" and "counts_from" not in finished
                assert finished["share"].endswith(f"/day/{today}?suits=1"), finished
                assert finished["rank"] == 1
                assert new["total"] == 0 and [row["player"] for row in public["rows"]] == [name]
                assert "counts_from" not in history
                assert [g["board"] for g in history["games"]] == ["humans", "new", "new"]
            assert (await get_json(f"{base}/leaderboard?day={today}&suits=1"))[1]["total"] == (
                1 if day_number == 3 else 0
            )
        # the first day's result stayed on the new players' board of its day
        status, board = await get_json(f"{base}/leaderboard?day={first}&suits=1&board=new")
        assert status == 200 and [row["player"] for row in board["rows"]] == [name]


async def play_daily_thinking(
    client: Client, clock: ManualClock, think: Callable[[Game], float], moves: int = 30
) -> dict[str, Any]:
    """Start today's daily and play up to ``moves`` moves that each reach a new position,
    moving the server's clock by ``think(position)`` before each; resign unless that won:
    the game's ``finished``."""
    state = (await client.request({"type": "start", "suits": 1}))["state"]
    game = Game.from_code(state["code"])
    seen = {game.position_key()}
    for _ in range(moves):
        fresh = []
        for move in game.legal_moves():
            game.push(move)
            if game.position_key() not in seen:
                fresh.append(move)
            game.undo()
        if not fresh:
            break
        clock.advance(seconds=think(game))
        reply = await client.request({"type": "move", "move": fresh[0].text()})
        assert reply["type"] == "moved", reply
        game.push(fresh[0])
        seen.add(game.position_key())
        if game.is_won:
            break
    if not game.is_won:
        await client.request({"type": "resign"})
    return await client.pushed_event(lambda frame: frame["type"] == "finished")


async def test_an_account_graduates_once_its_think_times_follow_difficulty(
    backend: Backend,
) -> None:
    """Past its two days, an account whose think times follow how hard each position is
    goes on the public board on its third day; one whose think times run against it (a
    replayed line's rhythm) stays on the new players' board, told it counts from tomorrow
    at the earliest, and its result is on no public board."""
    clock = fresh_clock()
    first = clock.now().date()
    async with serving(server_settings(backend, fairplay=GATED_BY_EVIDENCE), clock=clock) as server:
        async with Client.connect(server.url) as person, Client.connect(server.url) as paced:
            person_name = (await register(person))["player"]["name"]
            paced_name = (await register(paced))["player"]["name"]
            following = lambda game: 1.0 + 1.5 * choices(game)  # noqa: E731
            against = lambda game: max(0.6, 8.0 - 1.5 * choices(game))  # noqa: E731
            for day_number in (1, 2, 3):
                if day_number > 1:
                    clock.advance(days=1)
                    assert await server.hub.days.check_day()
                by_person = await play_daily_thinking(person, clock, following)
                by_paced = await play_daily_thinking(paced, clock, against)
                if day_number < 3:
                    assert by_person["board"] == by_paced["board"] == "new"
            today = clock.now().date()
            assert by_person["board"] == "humans" and "counts_from" not in by_person
            assert by_paced["board"] == "new"
            assert by_paced["counts_from"] == (today + timedelta(days=1)).isoformat()
            history = await paced.request({"type": "history"})
            assert history["counts_from"] == (today + timedelta(days=1)).isoformat()
            public = await person.request({"type": "leaderboard", "suits": 1})
            assert [row["player"] for row in public["rows"]] == [person_name]
            new = await person.request({"type": "leaderboard", "suits": 1, "board": "new"})
            assert [row["player"] for row in new["rows"]] == [paced_name]
        assert today == first + timedelta(days=2)


async def test_a_cleared_leader_shows_as_verified_on_the_boards_pages_and_json(
    backend: Backend,
) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend, fairplay=HOLD_NOTHING), clock=clock) as server:
        base = server.http_url
        no_cache(server)
        async with Client.connect(server.url) as client:
            name = (await register(client))["player"]["name"]
            finished = await resign_daily(client)
            queue = {
                game.id: screening for game, screening in await store_of(server).review_queue()
            }
            assert queue[finished["game"]].status == "queued"  # the day's leader, checked first
            board = await client.request({"type": "leaderboard", "suits": 1})
            assert [(row["player"], row["verified"]) for row in board["rows"]] == [(name, False)]
            cleared = await store_of(server).review(
                game_id=finished["game"], decision="cleared", note=None, at=clock.now()
            )
            await server.hub.store.rank_again(cleared)
            board = await client.request({"type": "leaderboard", "suits": 1})
            assert [(row["player"], row["verified"]) for row in board["rows"]] == [(name, True)]
            history = await client.request({"type": "history"})
            assert [game["verified"] for game in history["games"]] == [True]
        status, page_json = await get_json(f"{base}/leaderboard?suits=1")
        assert status == 200 and page_json["rows"][0]["verified"] is True
        shown = await page(f"{base}/day/{clock.now().date()}?suits=1")
        assert shown.status == 200 and 'class="badge verified"' in shown.text
