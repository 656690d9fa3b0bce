"""Start and stop a whole server: store, bus, hub and the websocket listener.

::

    async with run_server(Settings(port=0)) as running:
        print(running.url)  # ws://127.0.0.1:54321
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from server.bus import Bus, open_bus, redis_client
from server.play.clock import Clock, SystemClock
from server.play.daily import Prover, SolverProver
from server.play.hub import Hub
from server.play.room_deals import verdict_of
from server.play.rooms import RoomSettings
from server.settings import Settings
from server.store import Store

from . import http
from .connection import serve_connection

log = logging.getLogger(__name__)


@dataclass
class RunningServer:
    settings: Settings
    hub: Hub
    server: Server
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"


async def _process_request(
    hub: Hub, connection: ServerConnection, request: Request
) -> Response | None:
    if request.headers.get("Upgrade", "").lower() == "websocket":
        return None
    return await http.respond(hub, request)


@asynccontextmanager
async def run_server(
    settings: Settings,
    *,
    clock: Clock | None = None,
    prover: Prover | None = None,
    store: Store | None = None,
    bus: Bus | None = None,
) -> AsyncIterator[RunningServer]:
    """Open the store and bus, listen, and on exit close everything in reverse order.

    ``clock`` and ``prover`` default to the system clock and the solver in a worker
    process; tests pass their own (a given ``prover`` proves race rooms' deals too).
    ``store`` and ``bus``, when given, are not closed here.
    """
    clock = clock or SystemClock()
    async with AsyncExitStack() as stack:
        if store is None:
            rank_redis = None
            if settings.redis_url:
                rank_redis = redis_client(settings.redis_url)
                stack.push_async_callback(rank_redis.aclose)
            store = await Store.open(
                settings.effective_database_url,
                redis=rank_redis,
                redis_prefix=settings.redis_prefix,
                migrate=True,
                commit_window=settings.commit_window_ms / 1000,
                commit_timeout=settings.commit_timeout_seconds,
            )
            stack.push_async_callback(store.close)
        if bus is None:
            bus = open_bus(settings.redis_url, prefix=settings.redis_prefix)
            await bus.start()
            stack.push_async_callback(bus.close)
        deal_prover = prover
        if prover is None:
            solver = SolverProver(settings.daily_solver_seconds)
            stack.callback(solver.close)
            prover = solver
            # race rooms' deals in a worker of their own: a verdict never waits for a daily
            verdicts = SolverProver(settings.race_solver_seconds, prove=verdict_of)
            stack.callback(verdicts.close)
            deal_prover = verdicts
        hub = Hub(
            store=store,
            bus=bus,
            clock=clock,
            secret=settings.secret,
            prover=prover,
            thresholds=settings.fairplay,
            room_settings=RoomSettings(
                countdown=settings.race_countdown_seconds,
                time_limit=settings.race_time_limit_seconds,
                quick_wait=settings.race_quick_wait_seconds,
                open_for=settings.race_open_seconds,
                sweep=settings.race_sweep_seconds,
            ),
            deal_prover=deal_prover,
        )
        hub.start()
        stack.push_async_callback(hub.close)
        server = await stack.enter_async_context(
            serve(
                partial(
                    _connection,
                    hub,
                    settings.rate_limit_messages,
                    settings.rate_limit_window_seconds,
                ),
                settings.host,
                settings.port,
                compression=None,  # small frames: deflate costs CPU and memory for nothing
                max_size=settings.max_message_bytes,
                ping_interval=settings.ping_interval_seconds,
                ping_timeout=settings.ping_timeout_seconds,
                process_request=partial(_process_request, hub),
                server_header=None,
            )
        )
        port = server.sockets[0].getsockname()[1] if server.sockets else settings.port
        running = RunningServer(
            settings=settings, hub=hub, server=server, host=settings.host, port=port
        )
        log.info("listening on %s (protocol HTTP on %s)", running.url, running.http_url)
        yield running
        log.info("shutting down")


async def _connection(hub: Hub, budget: int, window: float, websocket: ServerConnection) -> None:
    await serve_connection(hub, websocket, budget, window)
