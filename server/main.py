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
from pathlib import Path

from pydantic import ValidationError
from redis.exceptions import RedisError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

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


class AdminError(Exception):
    """A command that cannot go on: printed as one line, exit status 1."""


async def verify(settings: Settings) -> int:
    from server.play.verify import verify_store
    from server.store import Store
    from server.store.migrate import current, head_revision

    url = settings.effective_database_url
    sqlite_file = make_url(url).database if url.startswith("sqlite") else None
    if sqlite_file and not Path(sqlite_file).exists():
        raise AdminError(f"no database at {sqlite_file}: no game has been stored there yet")
    revision, head = await current(url), head_revision()
    if revision != head:
        raise AdminError(
            f"the database schema is at revision {revision}, the server needs {head}: "
            "run simon-server migrate first"
        )
    store = await Store.open(url, migrate=False)
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
    try:
        if args.command == "migrate":
            asyncio.run(migrate(settings))
            return 0
        if args.command == "verify":
            return asyncio.run(verify(settings))
        asyncio.run(serve(settings))
    except AdminError as error:
        print(f"simon-server: {error}", file=sys.stderr)
        return 1
    except (OSError, SQLAlchemyError, RedisError) as error:
        # Unreachable or misconfigured services at start-up: say which, without a traceback.
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"simon-server: cannot use the database or Redis: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
