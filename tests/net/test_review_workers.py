"""The review workers of a server with the real solver start by themselves once today's
deals are known: not with the server (their start, a process each and its imports, would
slow a first start's proofs), and not at the first review (which would wait for it)."""

from __future__ import annotations

import asyncio
import time

from tests.conftest import Backend
from tests.support.servers import fresh_clock, server_settings, serving

#: Seconds a first start may take to prove today's three deals and start the workers.
MOST_SECONDS = 120.0


async def test_the_review_workers_start_once_todays_deals_are_known(backend: Backend) -> None:
    async with serving(server_settings(backend), clock=fresh_clock(), prover=None) as server:
        reviews = next(worker for worker in server.solvers if worker.name == "game reviews")
        today = server.hub.today()
        deadline = time.monotonic() + MOST_SECONDS
        while reviews.started < reviews.workers:
            assert reviews.started == 0 or server.hub.daily.ready(today)
            assert time.monotonic() < deadline, f"{reviews.started} review workers running"
            await asyncio.sleep(0.01)
        assert server.hub.daily.ready(today)
