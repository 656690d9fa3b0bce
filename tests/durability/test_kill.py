"""``kill -9`` of a ``simon-server`` process loses no acknowledged action.

Bots play flat out on a real server process; it is killed at a random moment, restarted
on the same data, and every bot resumes every game it played: the state must show at
least the last acknowledged seq, with the board, moves and score of the acknowledged
actions. The action in flight at the kill is sent again with its id and applied once.
In services mode the second kill also takes Redis's data (the server's keys deleted
while it is down): the database alone must hold every game. ``python -m bench.kill``
runs the same with 20 kills per mode.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from tests.conftest import Backend
from tests.support.kills import (
    ServerProcess,
    embedded_environment,
    run_kills,
    services_environment,
)
from tests.support.services import delete_redis_prefix

KILLS = 3
BOTS = 4


async def test_kill_9_loses_no_acknowledged_action(backend: Backend, tmp_path: Path) -> None:
    after_kill = None
    if backend.name == "embedded":
        env = embedded_environment(tmp_path / "data")
    else:
        assert backend.redis_url is not None
        redis_url = backend.redis_url
        prefix = f"{backend.redis_prefix}-kill-{uuid.uuid4().hex[:8]}"
        env = services_environment(backend.database_url, redis_url, prefix)

        async def after_kill(kill: int) -> None:
            if kill == 2:  # Redis loses its data along with the node
                await delete_redis_prefix(redis_url, prefix)

    server = ServerProcess(env, tmp_path / "server.log")
    report = await run_kills(
        server, mode=backend.name, kills=KILLS, bots=BOTS, after_kill=after_kill
    )
    assert report.kills == KILLS
    assert not report.problems, "\n".join(
        [report.summary(), *report.problems, "server log:", server.log_tail()]
    )
    assert report.acknowledged > 0 and report.lost == 0, report.summary()
