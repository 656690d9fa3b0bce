"""Redis goes away mid-game: moves are still answered ``moved`` (Redis carries only race
events and the rank cache); once it is back, an old id sent again is answered again and
not applied twice.

The server runs in the test process on the real PostgreSQL and on the real Redis reached
through a TCP proxy the test cuts and restores.
"""

from __future__ import annotations

import random
from typing import Any

from tests.conftest import Backend
from tests.support.ledger import RESTART, UNDO, Ledger
from tests.support.players import registered, resume, started, step
from tests.support.proxy import TcpProxy, proxied_redis_url, target_of
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name

#: A racer's moves reach the race at most twice a second, the last one always following
#: (docs/protocol.md, Races): once the clock moved this far the trailing event of the
#: moves before it has gone, the events waiting to be sent went to the bus, and the next
#: move's event goes out at once.
RACE_EVENTS_SETTLED = 1.1
#: How long a reply may take while Redis is down.
OUTAGE_REPLY_SECONDS = 30.0


async def test_moves_are_answered_while_redis_is_down(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    rng = random.Random(20261)
    async with TcpProxy(*target_of(redis_url, 6379)) as redis:
        backend = Backend(
            "services", postgres_url, proxied_redis_url(redis_url, redis), f"simon-test-{run_id}"
        )
        clock = fresh_clock(real_intervals=False)
        async with (
            serving(server_settings(backend), clock=clock) as server,
            Client.connect(server.url) as racer,
            Client.connect(server.url) as practising,
        ):
            players: list[tuple[Client, Ledger]] = []
            for client, start in (
                (racer, {"mode": "daily", "suits": 1}),
                (practising, {"mode": "practice", "code": "SS1-S2-AAAAABD"}),
            ):
                await registered(client, unique_name("r"))
                players.append((client, await started(client, start)))
            for client, ledger in players:
                for _ in range(3):
                    await step(client, ledger, rng)

            redis.cut()
            try:
                clock.advance(seconds=RACE_EVENTS_SETTLED)
                during: list[tuple[Client, dict[str, Any], dict[str, Any]]] = []
                for turn in range(6):
                    for client, ledger in players:
                        if turn == 3:
                            message, action = {"type": "undo"}, UNDO
                        elif turn == 4 and client is practising:
                            message, action = {"type": "restart"}, RESTART
                        else:
                            message, action = ledger.step(rng)
                        reply = await client.request(message, timeout=OUTAGE_REPLY_SECONDS)
                        assert reply["type"] != "error", (
                            f"{ledger.mode} game: {message} answered {reply} while Redis was down"
                        )
                        ledger.acknowledge(reply, action)
                        during.append((client, {**message, "id": reply["id"]}, reply))
                        clock.advance(seconds=RACE_EVENTS_SETTLED)  # its race event is sent
                assert server.hub.standings.dropped > 0  # the race's events met the outage
            finally:
                redis.restore()  # also when the test fails: the server must stop
            for client, message, reply in during[:4]:  # ids answered during the outage
                assert await client.request(message) == reply, f"{message} sent again"
            for client, ledger in players:
                state = await resume(client, ledger.game_id, ledger.seq)
                assert state["seq"] == ledger.seq, (ledger.mode, state["seq"], ledger.seq)
                assert ledger.check(state) == []
                await step(client, ledger, rng)  # and play goes on
