"""Redis loses every key of the servers' prefix mid-game: nothing is lost. Games resume
from the database on any node, and ranks and leaderboards are right again within about
a second (Redis holds only race events and the rank cache, rebuildable)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from tests.conftest import Backend
from tests.support.ledger import RESIGN, Ledger
from tests.support.players import act, registered, resume, signed_in, started, step
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name
from tests.support.services import delete_redis_prefix

#: How long ranks may take to be right again after the flush.
RANKS_SETTLE_SECONDS = 2.0


async def test_nothing_is_lost_when_redis_is_flushed(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    rng = random.Random(31)
    clock = fresh_clock()
    settings = server_settings(Backend("services", postgres_url, redis_url, f"simon-test-{run_id}"))
    async with serving(settings, clock=clock) as node_a, serving(settings, clock=clock) as node_b:
        # three players finish the daily (they resign after 1, 2 and 3 moves)
        finishers: list[str] = []
        for moves in (1, 2, 3):
            async with Client.connect(node_a.url) as client:
                name = unique_name(f"d{moves}")
                await registered(client, name)
                ledger = await started(client, {"mode": "daily", "suits": 1})
                for _ in range(moves):
                    await step(client, ledger, rng)
                clock.advance(seconds=7)
                await act(client, ledger, {"type": "resign"}, RESIGN)
                finishers.append(name)
        async with Client.connect(node_a.url) as asking:
            before = await standings(asking, finishers)
            assert before["total"] == 3, before

        # two players mid-game on node A, their connections open
        async with Client.connect(node_a.url) as racer, Client.connect(node_a.url) as practising:
            players: list[tuple[str, str, Ledger]] = []
            for client, start, moves in (
                (racer, {"mode": "daily", "suits": 1}, 4),
                (practising, {"mode": "practice", "code": "SS1-S2-AAAAABD"}, 6),
            ):
                name = unique_name("m")
                token = await registered(client, name)
                ledger = await started(client, start)
                for _ in range(moves):
                    await step(client, ledger, rng)
                players.append((name, token, ledger))

            deleted = await delete_redis_prefix(redis_url, settings.redis_prefix)
            assert deleted > 0  # there was something to lose

            # every player resumes, on either node, with nothing lost
            for name, token, ledger in players:
                for node in (node_a, node_b):
                    async with Client.connect(node.url) as client:
                        await signed_in(client, token)
                        state = await resume(client, ledger.game_id, ledger.seq)
                        assert state["seq"] == ledger.seq, (
                            f"{ledger.mode} game of {name} resumed on node "
                            f"{'A' if node is node_a else 'B'} at seq {state['seq']} after "
                            f"Redis was flushed; seq {ledger.seq} was acknowledged"
                        )
                        assert ledger.check(state) == []
            # the finished dailies rank as before, on both nodes
            for node in (node_a, node_b):
                async with Client.connect(node.url) as asking:
                    seen = await settled(asking, finishers)
                    assert (seen["order"], seen["ranks"]) == (before["order"], before["ranks"])
            # and play goes on, on node B
            racer_name, racer_token, racer_ledger = players[0]
            async with Client.connect(node_b.url) as client:
                await signed_in(client, racer_token)
                await resume(client, racer_ledger.game_id, racer_ledger.seq)
                await step(client, racer_ledger, rng)
                clock.advance(seconds=7)
                await act(client, racer_ledger, {"type": "resign"}, RESIGN)
                finishers.append(racer_name)

        # ranks and the leaderboard are right again, on both nodes, within about a second
        for node in (node_a, node_b):
            async with Client.connect(node.url) as asking:
                seen = await settled(asking, finishers)
                assert seen["total"] == 4, seen
                earlier = [name for name in seen["order"] if name in before["ranks"]]
                assert earlier == before["order"], (before, seen)


async def standings(client: Client, names: list[str]) -> dict[str, Any]:
    """The day's 1-suit leaderboard and each player's rank answer, checked against each
    other: a rank is the player's place on the leaderboard, the totals agree."""
    board = await client.request({"type": "leaderboard", "suits": 1, "limit": 50})
    assert board["type"] == "leaderboard", board
    order = [row["player"] for row in board["rows"]]
    ranks: dict[str, int | None] = {}
    totals = {board["total"]}
    for name in names:
        rank = await client.request({"type": "rank", "suits": 1, "player": name, "around": 0})
        assert rank["type"] == "rank", rank
        ranks[name] = rank.get("rank")
        totals.add(rank["total"])
    return {
        "order": order,
        "ranks": ranks,
        "total": board["total"],
        "consistent": len(totals) == 1
        and sorted(order) == sorted(names)
        and all(ranks[name] == order.index(name) + 1 for name in names if name in order),
    }


async def settled(client: Client, names: list[str]) -> dict[str, Any]:
    """The standings, once consistent with every player on them (polled for a while)."""
    deadline = asyncio.get_running_loop().time() + RANKS_SETTLE_SECONDS
    while True:
        seen = await standings(client, names)
        if seen["consistent"] or asyncio.get_running_loop().time() > deadline:
            assert seen["consistent"], f"ranks not right {RANKS_SETTLE_SECONDS} s after: {seen}"
            return seen
        await asyncio.sleep(0.05)
