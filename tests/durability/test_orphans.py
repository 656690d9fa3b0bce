"""A ``simon-server`` killed without its own stop leaves no process of its behind.

``kill -9`` (or the OOM killer) gives the server no chance to kill its solver workers,
which ignore the stop signals: re-parented to init, they would live on for good, a few
hundred MB each, with multiprocessing's resource tracker. The server runs as a real process
in a session of its own; only the server itself is killed (not its group), and every other
process of its group must be gone within a deadline (against a hang, not a speed target).
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from tests.durability.test_stop import logging_server, until
from tests.support.rooms import signed_up
from tests.support.servers import Client, first_legal

#: Every process the server started must be gone within this after its kill.
ORPHAN_DEADLINE = 20.0


async def test_kill_9_of_the_server_ends_its_solver_workers(tmp_path: Path) -> None:
    # a long review keeps its worker searching; the daily deals' worker waits, idle
    server = logging_server(tmp_path, SIMON_REVIEW_SECONDS="120")
    await server.start()
    assert server.process is not None
    group = server.process.pid
    try:
        async with Client.connect(server.url) as ann:
            await signed_up(ann, "ann")
            start = {"type": "start", "mode": "practice", "code": "SS1-S4-QWERTYU"}
            state = (await ann.request(start))["state"]
            actions: list[str] = []
            for _ in range(20):
                actions.append(first_legal(state["code"], actions))
                assert (await ann.request({"type": "move", "move": actions[-1]}))["type"] == "moved"
            assert (await ann.request({"type": "resign"}))["state"]["finished"]
            await ann.send({"id": "review", "type": "review", "game": state["game"]})
            # being made (the review workers run from the server's start, today's deals proven)
            await ann.pushed_event(lambda frame: frame.get("type") == "review_progress", 60)
            # the server alone, as the OOM killer does: not its group
            server.process.send_signal(signal.SIGKILL)
            server.process.wait()
        await until(
            lambda: not server.others_in_group(),
            "end of the killed server's processes",
            ORPHAN_DEADLINE,
        )
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)  # whatever is left, once the test has failed
