"""The day ends at midnight for every action, however many dailies are still open: a real
server on both backends, its clock moved past midnight before the day ticker has closed
anything (with hundreds of open dailies it closes them one by one); and two nodes on one
database, each ending the day by itself, closing the game once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, time, timedelta

from server.kinds import DayBoard
from server.play.clock import day_end
from server.play.hub import Hub
from tests.conftest import Backend
from tests.support.players import SolvingProver, ends_game, finished_of
from tests.support.servers import (
    Client,
    first_legal,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)

#: Dailies left open by others when the day ends (the ticker closes them one by one).
OPEN_DAILIES = 300


async def open_dailies(hub: Hub, count: int) -> None:
    """``count`` players with today's 1-suit daily started and left unfinished."""

    async def one() -> None:
        player = (await hub.accounts.register(unique_name("idle"))).player
        hub.starts.release(await hub.starts.daily(player, 1))

    for _ in range(count // 50):
        await asyncio.gather(*(one() for _ in range(50)))


async def test_no_action_after_midnight_with_hundreds_of_open_dailies(backend: Backend) -> None:
    clock = fresh_clock()
    today = clock.now().date()
    clock.set(datetime.combine(today, time(23, 58), UTC))
    prover = SolvingProver()
    async with (
        serving(server_settings(backend), clock=clock, prover=prover) as server,
        Client.connect(server.url) as human,
        Client.connect(server.url) as bot,
    ):
        await open_dailies(server.hub, OPEN_DAILIES)
        assert (await human.request({"type": "register", "name": unique_name("h")}))["token"]
        state = (await human.request({"type": "start", "suits": 1}))["state"]
        move = first_legal(state["code"])
        assert (await human.request({"type": "move", "move": move, "id": "before"}))["seq"] == 1
        registered = await bot.request({"type": "register", "name": unique_name("b"), "bot": True})
        bot_name = registered["player"]["name"]
        bot_game = (await bot.request({"type": "start", "suits": 1}))["state"]
        *line, winning = prover.solutions[bot_game["code"]]
        for played in line:
            assert (await bot.request({"type": "move", "move": played}))["type"] == "moved"

        clock.set(day_end(today) + timedelta(seconds=0.3))  # the ticker has closed nothing yet

        refused = await bot.request({"type": "move", "move": winning, "id": "late"})
        assert refused["code"] == "day-over", refused
        closed = await bot.pushed_event(lambda frame: frame["type"] == "state")
        assert closed["state"]["finished"] and not closed["state"]["won"]
        assert closed["state"]["moves"] == len(line)
        for n in range(24):  # the probe saw 24 of these accepted
            message = {"type": "undo"} if n % 2 else {"type": "move", "move": move}
            reply = await human.request(message)
            assert reply["type"] == "error" and reply["code"] == "day-over", (n, reply)
        # a resend of an action taken before midnight is answered again, as it was
        again = await human.request({"type": "move", "move": move, "id": "before"})
        assert again["type"] == "moved" and again["seq"] == 1

        # closed by the refusals themselves, at midnight, whether or not the day ticker (which
        # wakes every 30 s) has begun on the open dailies
        store = server.hub.store
        bots_board = await store.leaderboard_page(DayBoard(today, 1, "bots"), limit=100)
        (row,) = [row for row in bots_board.rows if row.player == bot_name]
        assert not row.won and row.finished_at == day_end(today)
        tomorrow = await store.leaderboard_page(
            DayBoard(today + timedelta(days=1), 1, "bots"), limit=100
        )
        assert tomorrow.rows == []
        human_game = await store.get_game(state["game"])
        assert human_game is not None and human_game.finished_at == day_end(today)
        assert human_game.moves == 1 and not human_game.won


async def test_a_game_won_before_midnight_stays_won_and_is_over(backend: Backend) -> None:
    clock = fresh_clock()
    today = clock.now().date()
    clock.set(datetime.combine(today, time(23, 59), UTC))
    prover = SolvingProver()
    async with (
        serving(server_settings(backend), clock=clock, prover=prover) as server,
        Client.connect(server.url) as bot,
    ):
        await bot.request({"type": "register", "name": unique_name("b"), "bot": True})
        game = (await bot.request({"type": "start", "suits": 1}))["state"]
        for played in prover.solutions[game["code"]]:
            reply = await bot.request({"type": "move", "move": played})
        assert ends_game(reply) and reply["won"]
        await finished_of(bot, game["game"])
        clock.set(day_end(today) + timedelta(seconds=1))
        after = await bot.request({"type": "undo"})
        assert after["code"] == "game-over"  # over by a win, not by the day's end
        stored = await server.hub.store.get_game(game["game"])
        assert stored is not None and stored.won and stored.finished_at is not None
        assert stored.finished_at < day_end(today)


async def test_every_node_ends_the_day_and_closes_the_game_once(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)  # one Redis prefix and secret for both nodes
    clock = fresh_clock()
    today = clock.now().date()
    async with (
        serving(settings, clock=clock) as node_a,
        serving(settings, clock=clock) as node_b,
        Client.connect(node_a.url) as on_a,
        Client.connect(node_b.url) as on_b,
    ):
        token = (await on_a.request({"type": "register", "name": unique_name("n")}))["token"]
        await on_b.request({"type": "auth", "token": token})
        state = (await on_a.request({"type": "start", "suits": 1}))["state"]
        move = first_legal(state["code"])
        await on_a.request({"type": "move", "move": move})
        resumed = await on_b.request({"type": "resume", "game": state["game"]})
        assert resumed["state"]["seq"] == 1  # both nodes hold the game, unfinished
        clock.set(day_end(today) + timedelta(seconds=1))
        for client in (on_b, on_a):  # node A's copy is behind: node B closed the game
            refused = await client.request({"type": "undo"})
            assert refused["code"] == "day-over", refused
            closed = await client.pushed_event(lambda frame: frame["type"] == "state")
            assert closed["state"]["finished"] and closed["state"]["seq"] == 2
        logged = await node_a.hub.store.load_game(state["game"])
        assert logged is not None
        assert [entry.action for entry in logged.entries] == [move, "closed"]
