"""``simon-server``: run the server, or ``migrate`` the database, or ``verify`` stored games.

Settings come from the environment (``SIMON_*``, see server/settings.py); ``--host`` and
``--port`` override theirs. Logs go to stderr. SIGINT and SIGTERM shut down cleanly.

The command line is the server's edge as its operator sees it, and raises from the edge's
root (:mod:`server.edge`, shared with the net layer it runs and the pages): its one error is
:class:`AdminError` (a command that cannot go on: one line, exit status 1). It turns the
other errors it meets into lines: ``CannotListen`` and a refused review (``StoreError``)
become an ``AdminError``; a ``StoreError`` or ``BusError`` at start-up says the database or
Redis cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy.engine import make_url

from server.bus import BusError
from server.edge import EdgeError
from server.entry import STOP_SIGNALS, early_stop
from server.settings import Settings
from server.store import StoreError

if TYPE_CHECKING:
    from server.play.daily.deals import SolverProver
    from server.store import Store

log = logging.getLogger("server")


def _listen_options(parser: argparse.ArgumentParser, default: str | None) -> None:
    parser.add_argument("--host", default=default, help="address to listen on (SIMON_HOST)")
    parser.add_argument("--port", type=int, default=default, help="port to listen on (SIMON_PORT)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simon-server", description="The Simple Simon Online game server."
    )
    _listen_options(parser, default=None)
    commands = parser.add_subparsers(dest="command")
    serve = commands.add_parser("serve", help="run the server (the default)")
    # also after the command; SUPPRESS keeps one given before it from being overwritten
    _listen_options(serve, default=argparse.SUPPRESS)
    commands.add_parser("migrate", help="bring the database schema up to date, then exit")
    commands.add_parser(
        "verify", help="replay every finished game and report mismatches (exit 1 if any)"
    )
    review = commands.add_parser(
        "review",
        help="list the review queue (results held, and each day's leaders), or decide on one",
    )
    review.add_argument(
        "decision", nargs="?", choices=("clear", "confirm"), help="clear: rank it; confirm: "
        "keep it off the board and hold the account's later dailies too",
    )  # fmt: skip
    review.add_argument("game", nargs="?", help="the game id (from the list)")
    review.add_argument("--note", help="why, for the audit line")
    review.add_argument("--json", action="store_true", help="the list as JSON")
    review.add_argument(
        "--reports", action="store_true", help="only the results players reported, by rank"
    )
    return parser


def tune_gc() -> None:
    """Collect garbage less often: a server holds many long-lived objects (connections,
    games) that the collector would otherwise walk again and again."""
    gc.freeze()  # what start-up made lives for good
    gc.set_threshold(50_000, 20, 100)


def descriptor_limit_line(before: int, now: int) -> str:
    """The start-up line about the descriptor limit, e.g. ``descriptor limit 20000
    (raised from 1024)``."""
    return f"descriptor limit {now}" + (f" (raised from {before})" if now != before else "")


async def serve(settings: Settings) -> None:
    from server.net import run_server
    from server.net.errors import CannotListen
    from server.net.listen import raise_descriptor_limit

    log.info(descriptor_limit_line(*raise_descriptor_limit()))

    stop = asyncio.Event()
    received: list[signal.Signals] = []

    def stopping(signum: signal.Signals) -> None:
        received.append(signum)
        stop.set()

    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stopping, signum)
    if (early := early_stop()) is not None:  # came while the server loaded
        stopping(early)
    try:
        async with run_server(settings) as running:
            tune_gc()
            await stop.wait()
            connections = running.gate.total
    except CannotListen as error:
        raise AdminError(error.strerror) from None  # not a database or Redis failure
    log.info(stop_summary(received[0].name, connections, running.solvers))


def stop_summary(signal_name: str, connections: int, solvers: Sequence[SolverProver]) -> str:
    """The one line that says what a stop stopped, e.g. ``stopped on SIGTERM: 3
    connections closed, 1 solver search cut short (daily deals)``."""
    parts = [f"{connections} connection{'' if connections == 1 else 's'} closed"]
    for solver in solvers:
        if solver.cut_short:
            searches = "search" if solver.cut_short == 1 else "searches"
            parts.append(f"{solver.cut_short} solver {searches} cut short ({solver.name})")
    if len(parts) == 1:
        parts.append("no solver search under way")
    return f"stopped on {signal_name}: " + ", ".join(parts)


async def migrate(settings: Settings) -> None:
    from server.store import Store

    store = await Store.open(settings.effective_database_url, migrate=True)
    await store.close()
    log.info("the database schema is up to date")


class AdminError(EdgeError):
    """A command that cannot go on: printed as one line, exit status 1."""


async def _opened(settings: Settings) -> Store:
    """The store of an existing, up-to-date database (for the admin commands), with the rank
    cache in Redis when one is configured."""
    from server.bus import redis_client
    from server.store import Store
    from server.store.migrate import current, head_revision

    url = settings.effective_database_url
    sqlite_file = make_url(url).database if url.startswith("sqlite") else None
    if sqlite_file and not await asyncio.to_thread(Path(sqlite_file).exists):
        raise AdminError(f"no database at {sqlite_file}: no game has been stored there yet")
    revision, head = await current(url), head_revision()
    if revision != head:
        raise AdminError(
            f"the database schema is at revision {revision}, the server needs {head}: "
            "run simon-server migrate first"
        )
    redis = (
        redis_client(settings.redis_url, **settings.redis_timeouts) if settings.redis_url else None
    )
    return await Store.open(
        url, redis=redis, redis_prefix=settings.redis_prefix, migrate=False, owns_redis=True
    )


async def verify(settings: Settings) -> int:
    from server.play.games.verify import verify_store

    store = await _opened(settings)
    try:
        checked, mismatches = await verify_store(store)
    finally:
        await store.close()
    for mismatch in mismatches:
        print(f"MISMATCH game {mismatch.game_id} ({mismatch.player}): {mismatch.reason}")
    print(f"checked {checked} finished games: {len(mismatches)} mismatches")
    return 1 if mismatches else 0


async def review(settings: Settings, args: argparse.Namespace) -> int:
    """List the review queue with its evidence, or clear / confirm one (an audit line
    each)."""
    from datetime import UTC, datetime

    from server.store import CLEARED, CONFIRMED, Decision, StoreError

    if args.decision is not None and not args.game:
        raise AdminError(f"review {args.decision} needs a game id")
    store = await _opened(settings)
    try:
        if args.decision is None and args.reports:
            await _print_reports(store, as_json=args.json)
            return 0
        if args.decision is None:
            queue = await review_queue(store)
            if args.json:
                print(json.dumps(queue, indent=1))
            else:
                print_queue(queue)
                await _print_reports(store, as_json=False)
            return 0
        decision: Decision = CLEARED if args.decision == "clear" else CONFIRMED
        try:
            record = await store.review(
                game_id=args.game, decision=decision, note=args.note, at=datetime.now(UTC)
            )
        except StoreError as error:
            raise AdminError(str(error)) from None
        if decision == CLEARED:
            await store.rank_again(record)
        else:  # off its board (a leader was on it): the next one moves up, and is checked
            await store.unrank(record)
            board = record.board
            if board is not None and not record.bot:
                await store.queue_leaders(board, at=datetime.now(UTC))
        print(
            f"AUDIT {datetime.now(UTC).isoformat()} {decision} game {record.id} of "
            f"{record.player_name}" + (f": {args.note}" if args.note else "")
        )
        return 0
    finally:
        await store.close()


async def _print_reports(store: Store, *, as_json: bool) -> None:
    """The results players reported, in leaderboard order (day, suit count, board, rank),
    each with its reports."""
    reported = await store.reported_results()
    ranks = await store.ranks_of([game.id for game, _ in reported])
    rows = [
        {
            "game": game.id,
            "player": game.player_name,
            "day": str(game.day),
            "suits": game.suits,
            "bot": game.bot,
            "rank": ranks.get(game.id),
            "score": game.score,
            "won": game.won,
            "held": game.held,
            "reports": [
                {"by": report.player, "reason": report.reason, "at": report.at.isoformat()}
                for report in reports
            ],
        }
        for game, reports in reported
    ]
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    for game, reports in reported:
        rank = f"#{ranks[game.id]}" if game.id in ranks else "held"
        print(
            f"{game.id}  {game.player_name}  {game.day} {game.suits}-suit  {rank}  "
            f"score {game.score}  reported {len(reports)} times"
        )
        for report in reports:
            print(f"    {report.at:%Y-%m-%d %H:%M} {report.player}: {report.reason}")
    print(f"{len(rows)} results reported")


#: Where a game's replay is shown (a path of the server's pages).
REPLAY_PATH = "/replay/{game}"


async def review_queue(store: Store) -> list[dict[str, Any]]:
    """The review queue as rows: held results and the days' leaders, each with its game's
    and its account's evidence and its replay's path, ordered by rank (where it stands, or
    would stand, on its board) and then by the account's suspicion, highest first."""
    queue = await store.review_queue()
    trust = await store.trust(player_ids=sorted({game.player_id for game, _ in queue}))
    rows = []
    for game, screened in queue:
        rank, others = await store.place_of(game) or (None, 0)
        account = trust.get(game.player_id)
        rows.append(
            {
                "game": game.id,
                "player": game.player_name,
                "day": str(game.day),
                "suits": game.suits,
                "board": "new" if game.newcomer else "humans",
                "status": screened.status,
                "rank": rank,
                "board_results": others + 1,
                "score": game.score,
                "won": game.won,
                "screened_at": screened.screened_at.isoformat(),
                "reasons": screened.reasons,
                "evidence": screened.evidence,
                "suspicion": account.suspicion if account else 0.0,
                "account_reasons": account.reasons if account else [],
                "account_evidence": account.evidence if account else {},
                "replay": REPLAY_PATH.format(game=game.id),
            }
        )
    rows.sort(key=_queue_order)
    return rows


def _queue_order(row: dict[str, Any]) -> tuple[int, float, str]:
    """By rank (the top of a board first), then the most suspect account, then oldest."""
    return (row["rank"] or 1 << 30, -float(row["suspicion"]), str(row["screened_at"]))


def print_queue(rows: Sequence[dict[str, Any]]) -> None:
    for row in rows:
        where = "new players'" if row["board"] == "new" else "public"
        print(
            f"#{row['rank']} of {row['board_results']} ({where}, {row['day']} {row['suits']}-suit)"
            f"  {row['status']}  {row['game']}  {row['player']}  score {row['score']}"
            f"  suspicion {row['suspicion']:g}  replay {row['replay']}"
        )
        if row["reasons"]:
            print("    held: " + "; ".join(row["reasons"]))
        if row["account_reasons"]:
            print("    account: " + "; ".join(row["account_reasons"]))
        print("    " + json.dumps(row["evidence"], sort_keys=True))
        if row["account_evidence"]:
            print("    account " + json.dumps(row["account_evidence"], sort_keys=True))
    held = sum(row["status"] == "held" for row in rows)
    print(
        f"{len(rows)} in the review queue: {len(rows) - held} of the days' leaders, "
        f"{held} results held for review"
    )


def settings_faults(error: ValidationError, flags: Sequence[str] = ()) -> str:
    """What is wrong with the settings, on one line, by the variables' names (``--port``
    for a setting in ``flags``, given on the command line), and without their values (a
    secret would reach the log)."""
    faults = []
    for fault in error.errors(include_input=False, include_url=False):
        where = "__".join(str(part).upper() for part in fault["loc"])
        message = fault["msg"].removeprefix("Value error, ")
        if where.lower() in flags:
            where = f"--{where.lower()}"
        elif where:
            where = f"SIMON_{where}"
        faults.append(f"{where}: {message}" if where else message)
    return "; ".join(faults)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    overrides = {
        key: value for key in ("host", "port") if (value := getattr(args, key)) is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as error:
        print(
            f"simon-server: bad settings: {settings_faults(error, list(overrides))}",
            file=sys.stderr,
        )
        return 1
    from server.logs import configure

    configure(settings.log_level, settings.log_format)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)  # start-up noise
    if args.command in ("review", "verify"):
        # their output is the report: not the schema check's "Context impl SQLiteImpl."
        logging.getLogger("alembic.runtime.migration").setLevel(logging.WARNING)
    if early_stop() is not None:  # a stop while Python loaded the server: nothing to undo
        return 0
    try:
        if args.command == "migrate":
            asyncio.run(migrate(settings))
            return 0
        if args.command == "verify":
            return asyncio.run(verify(settings))
        if args.command == "review":
            return asyncio.run(review(settings, args))
        asyncio.run(serve(settings))
    except AdminError as error:
        print(f"simon-server: {error}", file=sys.stderr)
        return 1
    except (OSError, StoreError, BusError) as error:
        # Unreachable or misconfigured services at start-up: say which, without a traceback.
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        print(f"simon-server: cannot use the database or Redis: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
