"""``simon-server``: run the server, or ``migrate`` the database, or ``verify`` stored games.

Settings come from the environment (``SIMON_*``, see server/settings.py); ``--host`` and
``--port`` override theirs. Logs go to stderr. SIGINT and SIGTERM shut down cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from server.settings import Settings

log = logging.getLogger("server")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simon-server", description="The Simple Simon Online game server."
    )
    parser.add_argument("--host", help="address to listen on (SIMON_HOST)")
    parser.add_argument("--port", type=int, help="port to listen on (SIMON_PORT)")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("serve", help="run the server (the default)")
    commands.add_parser("migrate", help="bring the database schema up to date, then exit")
    commands.add_parser(
        "verify", help="replay every finished game and report mismatches (exit 1 if any)"
    )
    return parser


def tune_gc() -> None:
    """Collect garbage less often: a server holds many long-lived objects (connections,
    games) that the collector would otherwise walk again and again."""
    gc.freeze()  # what start-up made lives for good
    gc.set_threshold(50_000, 20, 100)


async def serve(settings: Settings) -> None:
    from server.net import run_server

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with run_server(settings):
        tune_gc()
        await stop.wait()
    log.info("stopped")


async def migrate(settings: Settings) -> None:
    from server.store import Store

    store = await Store.open(settings.effective_database_url, migrate=True)
    await store.close()
    log.info("the database schema is up to date")


async def verify(settings: Settings) -> int:
    from server.play.verify import verify_store
    from server.store import Store

    store = await Store.open(settings.effective_database_url, migrate=False)
    try:
        checked, mismatches = await verify_store(store)
    finally:
        await store.close()
    for mismatch in mismatches:
        print(f"MISMATCH game {mismatch.game_id} ({mismatch.player}): {mismatch.reason}")
    print(f"checked {checked} finished games: {len(mismatches)} mismatches")
    return 1 if mismatches else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    overrides = {
        key: value for key in ("host", "port") if (value := getattr(args, key)) is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as error:
        print(f"simon-server: bad settings: {error}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)  # start-up noise
    if args.command == "migrate":
        asyncio.run(migrate(settings))
        return 0
    if args.command == "verify":
        return asyncio.run(verify(settings))
    asyncio.run(serve(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
