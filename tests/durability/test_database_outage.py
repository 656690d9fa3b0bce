"""PostgreSQL goes away at the winning move: the move is refused (``unavailable``) and the
game stays as it was; once the database is back, the move sent again wins, once.

The server runs in the test process on the real PostgreSQL, reached through a TCP proxy
the test cuts and restores; Redis is the real one.
"""

from __future__ import annotations

import pytest

from tests.conftest import Backend
from tests.support.players import (
    SolvingProver,
    finished_of,
    registered,
    resume,
    solution_of,
    started,
)
from tests.support.proxy import TcpProxy, proxied_database_url, target_of
from tests.support.servers import (
    HOLD_NOTHING,
    Client,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)

#: How long a reply may take while the database is down (the server may try again a
#: little before it gives up).
OUTAGE_REPLY_SECONDS = 30.0
#: A 1-suit deal the solver wins in milliseconds.
PRACTICE_CODE = "SS1-S1-AAAAABD"


@pytest.mark.parametrize(
    ("mode", "resend_id"),
    [("daily", "win"), ("practice", "win-again")],
    ids=["daily-same-id", "practice-new-id"],
)
async def test_winning_move_while_the_database_is_down_wins_once_it_is_back(
    postgres_url: str, redis_url: str, run_id: str, mode: str, resend_id: str
) -> None:
    prover = SolvingProver()
    async with TcpProxy(*target_of(postgres_url, 5432)) as database:
        backend = Backend(
            "services",
            proxied_database_url(postgres_url, database),
            redis_url,
            f"simon-test-{run_id}",
        )
        async with (
            serving(
                server_settings(backend, fairplay=HOLD_NOTHING), clock=fresh_clock(), prover=prover
            ) as server,
            Client.connect(server.url) as client,
        ):
            name = unique_name("win")
            await registered(client, name)
            if mode == "daily":
                ledger = await started(client, {"mode": "daily", "suits": 1})
                solution = prover.solutions[ledger.code]
            else:
                ledger = await started(client, {"mode": "practice", "code": PRACTICE_CODE})
                solution = solution_of(PRACTICE_CODE)
            game_id = ledger.game_id
            for text in solution[:-1]:
                reply = await client.request({"type": "move", "move": text})
                ledger.acknowledge(reply, text)
            assert not ledger.engine.is_won
            winning = {"type": "move", "move": solution[-1], "id": "win"}

            database.cut()
            try:
                refused = await client.request(winning, timeout=OUTAGE_REPLY_SECONDS)
                assert refused["type"] == "error" and refused["code"] == "unavailable", (
                    f"the winning move with the database down was answered {refused}"
                )
                again = await client.request(winning, timeout=OUTAGE_REPLY_SECONDS)
                assert again["type"] == "error" and again["code"] == "unavailable", (
                    "the winning move sent again (same id) while the database is still down was "
                    f"answered {again}: the refused move was applied in memory"
                )
            finally:
                database.restore()  # also when the test fails: the server must stop
            state = await resume(client, game_id, ledger.seq)
            assert not state["finished"] and not state["won"], (
                f"after the refused winning move the game is {state}: it must be unchanged"
            )
            assert state["seq"] == ledger.seq, state
            assert ledger.check(state) == []

            won = await client.request({**winning, "id": resend_id})
            assert won["type"] == "moved" and won["won"], won
            ledger.acknowledge(won, solution[-1])
            finished = await finished_of(client, game_id)
            assert finished["won"] and not finished["resigned"], finished
            ledger.acknowledge(finished)
            # answered again, never applied twice
            assert await client.request({**winning, "id": resend_id}) == won
            state = await resume(client, game_id)
            assert state["finished"] and state["won"] and state["seq"] == ledger.seq, state

            record = await server.hub.store.get_game(game_id)
            assert record is not None and record.finished_at is not None, record
            assert record.won and record.moves == len(solution), record

            history = await client.request({"type": "history", "player": name})
            assert history["stats"]["games"] == 1 and history["stats"]["won"] == 1, history
            assert len(history["games"]) == 1, history
            if mode == "daily":
                board = await client.request({"type": "leaderboard", "suits": 1, "limit": 50})
                mine = [row for row in board["rows"] if row["player"] == name]
                assert len(mine) == 1 and board["total"] == 1, board
                assert mine[0]["won"] and mine[0]["moves"] == len(solution), board
                rank = await client.request({"type": "rank", "suits": 1})
                assert rank["rank"] == 1 and rank["total"] == 1, rank
