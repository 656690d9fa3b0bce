"""Play the three populations through a real server, and count the results held for review.

See the package's docstring for what is measured; ``python -m bench.fairplay --help`` for
the flags.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import itertools
import json
import logging
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path
from typing import Any, Final

from websockets.asyncio.client import ClientConnection, connect

from server.engine import SUIT_COUNTS, Game
from server.net import RunningServer, run_server
from server.play.clock import ManualClock
from server.play.daily.deals import Proof, solve_code
from server.settings import Settings
from tests.support.services import POSTGRES_ADMIN_DSN

from .traces import POPULATIONS, Plan, make_plan

log = logging.getLogger("bench.fairplay")

#: The share of results held that each population should reach (at least, or at most).
TARGETS: Final[dict[str, tuple[str, float]]] = {
    "machine": ("at least", 1.00),
    "paced": ("at least", 0.95),
    "human": ("at most", 0.01),
}
#: Players start their daily between these hours of their day (UTC), at random.
FIRST_START: Final = day_time(1, 0)
LAST_START: Final = day_time(14, 0)
POSTGRES_ADMIN: Final = POSTGRES_ADMIN_DSN


# -- the daily deals' solutions ------------------------------------------------------------


class BenchProver:
    """The server's prover for the bench: the solver in a thread of this process, for the
    suit count played (its solutions are kept: they are the traces of two populations);
    the deals of other suit counts, which nobody plays here, count as proven at once."""

    def __init__(self, suits: int, max_seconds: float) -> None:
        self.suits = suits
        self.max_seconds = max_seconds
        self.proofs: dict[str, Proof] = {}
        self.seconds = 0.0

    async def __call__(self, code: str) -> Proof:
        if not code.startswith(f"SS1-S{self.suits}-"):
            has_a_move = next(Game.from_code(code).legal_moves(), None) is not None
            return Proof(has_a_move, None)
        proof = self.proofs.get(code)
        if proof is None:
            started = time.perf_counter()
            proof = await asyncio.to_thread(solve_code, code, self.max_seconds)
            self.seconds += time.perf_counter() - started
            self.proofs[code] = proof
        return proof


# -- a player --------------------------------------------------------------------------------


class Refused(RuntimeError):
    """The server answered with an error where the bench expected play to go on."""


class Connection:
    """A websocket to the server: one request at a time, replies matched by id."""

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        self.ids = itertools.count(1)

    async def request(
        self, message: dict[str, Any], *, until: str | None = None
    ) -> list[dict[str, Any]]:
        """Send ``message``; return the frames answering it (through the frame of type
        ``until`` when given, else through the first reply)."""
        message = {"id": next(self.ids), **message}
        await self.websocket.send(json.dumps(message))
        frames = []
        async with asyncio.timeout(60):
            while True:
                frame = json.loads(await self.websocket.recv())
                if frame.get("id") != message["id"] and frame.get("type") != until:
                    continue  # a pushed event (race, new day)
                if frame.get("type") == "error":
                    raise Refused(f"{message} -> {frame}")
                frames.append(frame)
                if until is None or frame.get("type") == until:
                    return frames


@dataclass(slots=True)
class Player:
    """One synthetic person (or program) on a fresh human account."""

    index: int
    population: str
    day: date
    starts_at: datetime
    rng: random.Random
    connection: Connection | None = None
    plan: Plan | None = None
    step: int = 0
    code: str = ""
    game: str = ""
    finished: dict[str, Any] = field(default_factory=dict)
    screening: dict[str, Any] = field(default_factory=dict)
    error: str = ""

    @property
    def held(self) -> bool:
        return self.finished.get("review") == "held"


async def play_day(
    running: RunningServer,
    clock: ManualClock,
    prover: BenchProver,
    players: Sequence[Player],
    plan_seconds: float,
) -> None:
    """Play one day's players, interleaved in the order of the server's clock: every
    action is sent when its time comes, after the clock is set to that time."""
    async with _connections(running.url, len(players)) as connections:
        queue = [(player.starts_at, player.index, player) for player in players]
        heapq.heapify(queue)
        while queue:
            at, _, player = heapq.heappop(queue)
            if at > clock.now():
                clock.set(at)
            try:
                after = await _next(player, connections, prover, plan_seconds)
            except (Refused, OSError, TimeoutError, ValueError) as error:
                player.error = str(error)
                log.warning("player %d (%s): %s", player.index, player.population, error)
                after = None
            if after is not None:
                at = clock.now() + timedelta(seconds=after)
                heapq.heappush(queue, (at, player.index, player))


@asynccontextmanager
async def _connections(url: str, count: int) -> AsyncIterator[list[ClientConnection]]:
    """A pool of open websockets, handed out one per player of the day."""
    sockets: list[ClientConnection] = []
    try:
        for _ in range(count):  # one at a time: a burst of handshakes is not the point
            sockets.append(await connect(url, compression=None, ping_interval=None))  # noqa: PERF401
        yield sockets
    finally:
        await asyncio.gather(*(socket.close() for socket in sockets), return_exceptions=True)


async def _next(
    player: Player,
    connections: list[ClientConnection],
    prover: BenchProver,
    plan_seconds: float,
) -> float | None:
    """Take the player's next action; return the seconds until the one after (None: done)."""
    if player.connection is None:  # arrives: a fresh human account, then today's daily
        player.connection = Connection(connections.pop())
        await player.connection.request(
            {"type": "register", "name": f"fb{player.index}-{uuid.uuid4().hex[:8]}"}
        )
        (state,) = await player.connection.request(
            {"type": "start", "mode": "daily", "suits": prover.suits}
        )
        player.code = state["state"]["code"]
        player.game = state["state"]["game"]
        proof = await prover(player.code)
        player.plan = make_plan(
            player.population, player.code, proof.moves, player.rng, plan_seconds
        )
        if not player.plan.trace:
            raise Refused(f"no trace for {player.code}: the solver found no line")
        return player.plan.trace[0][0]
    assert player.plan is not None
    trace = player.plan.trace
    _, action = trace[player.step]
    player.step += 1
    last = player.step == len(trace)
    if action in ("undo", "restart"):
        await player.connection.request({"type": action})
    else:
        frames = await player.connection.request(
            {"type": "move", "move": action}, until="finished" if last else None
        )
        if last:
            player.finished = frames[-1]
    if last:
        if not player.finished.get("won"):
            raise Refused(f"the trace ended without a win: {player.finished}")
        await player.connection.websocket.close()
        return None
    return trace[player.step][0]


# -- the run ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    players: int = 100
    seed: int = 1
    suits: int = 1
    days: int = 4
    database: str | None = None  # a PostgreSQL admin URL; None: SQLite in a temp folder
    solver_seconds: float = 20.0  # per daily deal
    plan_seconds: float = 2.0  # per look ahead of a human-like player


async def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    rng = random.Random(options.seed)
    first_day = date(2200, 1, 1) + timedelta(days=rng.randrange(100_000))
    days = [first_day + timedelta(days=n) for n in range(options.days)]
    roster = [
        population for population in POPULATIONS for _ in range(options.players)
    ]  # every population in full, shuffled over the days
    rng.shuffle(roster)
    players = []
    for index, population in enumerate(roster):
        day = days[index % len(days)]
        spread = (LAST_START.hour - FIRST_START.hour) * 3600
        starts_at = datetime.combine(day, FIRST_START, UTC) + timedelta(
            seconds=rng.uniform(0, spread)
        )
        players.append(
            Player(index, population, day, starts_at, random.Random(rng.getrandbits(64)))
        )
    prover = BenchProver(options.suits, options.solver_seconds)
    clock = ManualClock(datetime.combine(days[0], day_time(0, 0, 30), UTC))
    deals: list[dict[str, Any]] = []
    async with _database(options.database) as (url, where):
        settings = Settings(
            host="127.0.0.1",
            port=0,
            database_url=url,
            redis_url=None,
            secret=f"fairbench-{options.seed}",
            # every player of a day is one after another on the server's clock, but a
            # player's whole game goes by in a fraction of a real second: lift the budget
            rate_limit_messages=1_000_000,
            limits_exempt="127.0.0.0/8",  # every player from one address
            ping_interval_seconds=None,
            # one action in flight at a time: waiting for others to commit with is no use
            commit_window_ms=0.0,
            log_level="WARNING",
        )
        async with run_server(settings, clock=clock, prover=prover) as running:
            for day in days:
                clock.set(datetime.combine(day, day_time(0, 0, 30), UTC))
                await running.hub.days.check_day()
                await running.hub.daily.deal(day, options.suits)  # a daily opens once proven
                today = [player for player in players if player.day == day]
                for player in today:
                    player.starts_at = max(player.starts_at, clock.now())
                await play_day(running, clock, prover, today, options.plan_seconds)
                code = next((player.code for player in today if player.code), "")
                proof = prover.proofs.get(code)
                deals.append(
                    {
                        "day": day.isoformat(),
                        "code": code,
                        "par": proof.par if proof else None,
                        "players": len(today),
                    }
                )
                log.info("day %s (%s): %d players", day, code, len(today))
            for player in players:
                if player.game:
                    record = await running.hub.store.screening(player.game)
                    if record is not None:
                        player.screening = {"reasons": record.reasons, **record.evidence}
            thresholds = asdict(settings.fairplay)
    return report(options, players, deals, thresholds, where, prover, time.perf_counter() - started)


@asynccontextmanager
async def _database(admin: str | None) -> AsyncIterator[tuple[str, str]]:
    """The database URL the server is given, and a label: an SQLite file in a temporary
    folder, or a fresh database on a PostgreSQL server (dropped at the end)."""
    if admin is None:
        with tempfile.TemporaryDirectory(prefix="simon-fairbench-") as folder:
            yield f"sqlite:///{Path(folder) / 'simon.sqlite3'}", "SQLite"
        return
    import asyncpg

    name = f"simon_fairbench_{uuid.uuid4().hex[:10]}"
    plain = admin.replace("postgresql+asyncpg://", "postgresql://", 1)
    connection = await asyncpg.connect(plain, timeout=10)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    try:
        yield f"{plain.rsplit('/', 1)[0]}/{name}", "PostgreSQL"
    finally:
        connection = await asyncpg.connect(plain, timeout=10)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()


# -- the figures -----------------------------------------------------------------------------

#: Each reason the server gives, by the words it starts with (server/play/fairplay/evidence.py).
REASON_KINDS: Final = (
    ("replays", "agreement"),
    ("median think", "median think"),
    ("flat think", "flatness"),
    ("machine play", "flagged account"),
)


def reason_kind(reason: str) -> str:
    for start, kind in REASON_KINDS:
        if reason.startswith(start):
            return kind
    if "of think times under" in reason:
        return "fast share"
    if " moves in " in reason:
        return "pace"
    return "other"


def _quantiles(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    values = sorted(values)

    def pick(q: float) -> float:
        return values[min(len(values) - 1, int(q * len(values)))]

    return {
        "min": round(values[0], 3),
        "p10": round(pick(0.1), 3),
        "median": round(statistics.median(values), 3),
        "p90": round(pick(0.9), 3),
        "max": round(values[-1], 3),
    }


def report(
    options: Options,
    players: Sequence[Player],
    deals: list[dict[str, Any]],
    thresholds: dict[str, Any],
    where: str,
    prover: BenchProver,
    wall: float,
) -> dict[str, Any]:
    populations = {}
    for population in POPULATIONS:
        group = [player for player in players if player.population == population]
        played = [player for player in group if player.finished]
        held = [player for player in played if player.held]
        screened = [player for player in played if player.screening]
        direction, target = TARGETS[population]
        share = len(held) / len(played) if played else 0.0
        met = share >= target if direction == "at least" else share <= target
        notes: Counter[str] = Counter()
        for player in group:
            if player.plan is not None:
                notes.update(player.plan.notes)
        figures: dict[str, Any] = {
            "players": len(group),
            "finished": len(played),
            "won": sum(bool(player.finished.get("won")) for player in played),
            "failed": sum(bool(player.error) for player in group),
            "held": len(held),
            "held_share": round(share, 4),
            "target": f"{direction} {target:.0%} held",
            "target_met": met,
            "reasons": dict(
                Counter(
                    reason_kind(reason)
                    for player in held
                    for reason in set(player.screening.get("reasons", []))
                ).most_common()
            ),
        }
        for name in ("agreement", "median_think", "fast_share", "flatness", "decisions"):
            figures[name] = _quantiles([float(p.screening[name]) for p in screened])
        if notes:
            figures["policy_totals"] = dict(notes)
        populations[population] = figures
    return {
        "command": "python -m bench.fairplay " + " ".join(_flags(options)),
        "options": asdict(options) | {"database": where},
        "thresholds": thresholds,
        "deals": deals,
        "populations": populations,
        "all_targets_met": all(figures["target_met"] for figures in populations.values()),
        "solver_seconds": round(prover.seconds, 1),
        "wall_seconds": round(wall, 1),
    }


def _flags(options: Options) -> list[str]:
    flags = [f"--players {options.players}", f"--seed {options.seed}"]
    defaults = Options()
    flags.extend(
        f"--{name.replace('_', '-')} {getattr(options, name)}"
        for name in ("suits", "days", "solver_seconds", "plan_seconds")
        if getattr(options, name) != getattr(defaults, name)
    )
    if options.database:
        flags.append("--database URL")
    return flags


def print_report(figures: dict[str, Any]) -> None:
    print(f"{figures['command']}  ({figures['options']['database']})")
    for deal in figures["deals"]:
        print(f"  {deal['day']}  {deal['code']}  par {deal['par']}  {deal['players']} players")
    print(f"  {'population':<10} {'held':>9} {'share':>7}  target              met   reasons")
    for name, population in figures["populations"].items():
        held = f"{population['held']}/{population['finished']}"
        reasons = ", ".join(f"{kind} {count}" for kind, count in population["reasons"].items())
        print(
            f"  {name:<10} {held:>9} {population['held_share']:>7.1%}  "
            f"{population['target']:<19} {'yes' if population['target_met'] else 'NO':<5} "
            f"{reasons}"
        )
        if population["failed"]:
            print(f"  {'':<10} {population['failed']} players failed (see the log)")
    for name, population in figures["populations"].items():
        agreement = population["agreement"] or {}
        think = population["median_think"] or {}
        print(
            f"  {name:<10} agreement median {agreement.get('median')} max {agreement.get('max')}"
            f"; median think p10 {think.get('p10')} median {think.get('median')} s"
        )
    print(
        f"  solver {figures['solver_seconds']} s, wall {figures['wall_seconds']} s; "
        f"all targets met: {'yes' if figures['all_targets_met'] else 'NO'}"
    )


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--players 1 --days 1 --solver-seconds 5 --plan-seconds 0.5"


def configure_logging(verbose: bool) -> None:
    """The benches' log lines: warnings, or progress too when ``verbose``."""
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s %(name)s %(message)s",
    )
    logging.getLogger("websockets").setLevel(logging.WARNING)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fairplay",
        description="Fair-play screening against synthetic players, through a real server.",
    )
    parser.add_argument("--players", type=int, default=100, help="per population (100)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, default=1)
    parser.add_argument("--days", type=int, default=4, help="days, hence deals (4)")
    parser.add_argument(
        "--database",
        nargs="?",
        const=POSTGRES_ADMIN,
        help=f"a PostgreSQL admin URL (alone: {POSTGRES_ADMIN}); a fresh database is made on "
        "it and dropped at the end (default: an SQLite file in a temporary folder)",
    )
    parser.add_argument("--solver-seconds", type=float, default=20.0, help="per daily deal")
    parser.add_argument(
        "--plan-seconds", type=float, default=2.0, help="per look ahead of a human-like player"
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.players < 1 or args.days < 1:
        parser.error("--players and --days take at least 1")
    configure_logging(args.verbose)
    options = Options(
        players=args.players,
        seed=args.seed,
        suits=args.suits,
        days=args.days,
        database=args.database,
        solver_seconds=args.solver_seconds,
        plan_seconds=args.plan_seconds,
    )
    figures = asyncio.run(run(options))
    print_report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0 if figures["all_targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
