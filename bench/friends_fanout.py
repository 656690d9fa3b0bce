"""A friend's finish told to their followers: the fan-out of ``friend_finished`` across two
nodes, its cost per finish and its latency.

Run from the repository root::

    python -m bench.friends_fanout                    # 10,000 players x 50 follows, 2,000 online
    python -m bench.friends_fanout --online 4000 --finishes 600 --rate 20
    python -m bench.friends_fanout --json fanout.json # every figure, for the docs

What is measured
----------------
A fresh PostgreSQL database (the migrations applied with ``server.store.migrate.upgrade``)
is filled with SQL: ``--players`` accounts, each following ``--follows`` others chosen at
random (seeded), and ``--baseline`` more accounts that follow nobody and nobody follows.
Two ``simon-server`` nodes (processes of their own, as bench/race.py starts them: no
message budget, no solver) share it and a fresh Redis key prefix. ``--online`` of the
players, at random, and the baseline accounts sign in (``auth`` with a token whose hash the
fill wrote) from ``--client-processes`` client processes, to the two nodes in turn, and stay
connected: the followers online. This 2-core machine carries a few thousand websockets
beside the nodes, not 10,000; the follow graph in the database is the whole one.

Then, paced at ``--rate`` finishes a second: first every baseline account finishes today's
1-suit daily (``start`` then ``resign``, the cheapest real finish: no follower, so no
fan-out), then ``--finishes`` of the online players, at random. Each finish on a board
reads the finisher's followers (and league-mates: none here) and publishes one bus message
naming those recipients; each node pushes ``friend_finished`` to those connected to it.

Figures: the nodes' CPU (user + system, /proc) per finish in each phase, less the CPU of
as long idle with the same connections, and the difference (the fan-out's own cost), with
the PostgreSQL backends' and Redis's; the latency from a finisher sending ``resign`` to each
online follower receiving ``friend_finished`` (one machine: one monotonic clock for every
process), p50/p99, beside the resign's own round trip (the node tells the followers before
it answers the finisher: screening, then the fan-out, then the reply); the pushes expected
(every online follower of every finisher) and received.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing import get_context
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.server_load_bots import bucket, percentile  # noqa: E402
from bench.server_load_servers import (  # noqa: E402
    Backend,
    cpu_seconds,
    raise_file_limit,
    services_cpu,
    start_node,
    stop_server,
)
from tests.support.kills import free_port  # noqa: E402
from tests.support.services import POSTGRES_ADMIN_DSN as POSTGRES_ADMIN  # noqa: E402
from tests.support.services import REDIS_URL as REDIS  # noqa: E402

MAX_SIZE = 1 << 16
REPLY_SECONDS = 60.0
#: Sign-ins a client process has in flight at once.
SIGNING_IN_AT_ONCE = 25
#: Seconds after a phase's last finish before its window closes (the pushes arrive).
TAIL_SECONDS = 2.0
IDLE_SECONDS = 3.0
FRIEND_FINISHED = '{"type":"friend_finished"'


def say(message: str) -> None:
    print(message, flush=True)


# -- the nodes ---------------------------------------------------------------------------


async def serve(port: int, database: str, redis_url: str, prefix: str) -> None:
    import signal

    from server.main import tune_gc
    from server.net import run_server
    from server.play.daily.deals import Proof
    from server.settings import Settings

    async def no_solver(code: str) -> Proof:  # the finishers resign: no proof needed
        return Proof(True, None)

    settings = Settings(
        host="127.0.0.1",
        port=port,
        database_url=database,
        redis_url=redis_url,
        redis_prefix=prefix,
        rate_limit_messages=1_000_000,
        limits_exempt="127.0.0.0/8",  # thousands of players from one address
        max_connections=15_000,
        ping_interval_seconds=None,
        log_level="WARNING",
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with run_server(settings, prover=no_solver):
        tune_gc()
        print("READY", flush=True)
        await stop.wait()


# -- the database ------------------------------------------------------------------------


def token_of(run: str, player_id: int) -> str:
    return f"bench-{run}-{player_id}"


def name_of(player_id: int) -> str:
    return f"fan{player_id}"


async def fill(
    dsn: str, run: str, *, players: int, baseline: int, follows: int, online: list[int], seed: int
) -> dict[int, list[int]]:
    """The accounts, the online ones' credentials and the follows; who follows whom."""
    import asyncpg

    rng = random.Random(seed)
    now = datetime.now(UTC)
    followers: dict[int, list[int]] = {}
    connection = await asyncpg.connect(dsn)
    try:
        total = players + baseline
        await connection.execute(
            "INSERT INTO players (id, name, name_key, look_key, created_at) "
            "SELECT n, 'fan' || n, 'fan' || n, 'fan' || n, $1 "
            "FROM generate_series(1, $2::int) AS n",
            now,
            total,
        )
        await connection.execute(f"SELECT setval('players_id_seq', {total})")
        await connection.copy_records_to_table(
            "credentials",
            records=(
                (
                    player,
                    "registration",
                    "bench",
                    hashlib.sha256(token_of(run, player).encode()).hexdigest(),
                    now,
                    "127.0.0.1",
                    now,
                    "127.0.0.1",
                )
                for player in online
            ),
            columns=[
                "player_id",
                "kind",
                "label",
                "secret_hash",
                "created_at",
                "created_from",
                "last_used_at",
                "last_used_from",
            ],
        )
        edges = []
        for follower in range(1, players + 1):
            chosen = [p for p in rng.sample(range(1, players + 1), follows + 1) if p != follower]
            for followed in chosen[:follows]:
                edges.append((follower, followed, now))
                followers.setdefault(followed, []).append(follower)
        await connection.copy_records_to_table(
            "follows", records=edges, columns=["follower_id", "followed_id", "created_at"]
        )
        for table in ("players", "credentials", "follows"):
            await connection.execute(f"VACUUM ANALYZE {table}")
    finally:
        await connection.close()
    return followers


# -- the clients -------------------------------------------------------------------------


@dataclass
class Share:
    """One client process's accounts: those it keeps signed in, and those of them that
    finish (in the baseline phase, then the fan-out phase) and when, in seconds from the
    start both phases are timed from."""

    urls: list[str]
    run: str
    online: list[int]
    baseline: list[tuple[int, float]]
    finishing: list[tuple[int, float]]


@dataclass
class Tally:
    sent: dict[str, float] = field(default_factory=dict)  # finisher -> resign sent
    replied: dict[str, float] = field(default_factory=dict)  # finisher -> its reply read
    arrivals: list[tuple[str, int, float]] = field(default_factory=list)  # (finisher, to, at)
    errors: Counter[str] = field(default_factory=Counter)


class Client:
    def __init__(self, websocket: ClientConnection, player_id: int, tally: Tally) -> None:
        self.websocket = websocket
        self.player_id = player_id
        self.tally = tally
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 1
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        clock = time.monotonic
        arrivals = self.tally.arrivals
        async for frame in self.websocket:
            assert isinstance(frame, str)
            if frame.startswith(FRIEND_FINISHED):
                now = clock()
                arrivals.append((json.loads(frame)["name"], self.player_id, now))
                continue
            message = json.loads(frame)
            waiter = self.waiting.pop(message.get("id", -1), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        message_id = self.next_id
        self.next_id += 1
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[message_id] = waiter
        await self.websocket.send(json.dumps({**message, "id": message_id}))
        return await asyncio.wait_for(waiter, REPLY_SECONDS)

    async def finish(self, due: float) -> None:
        """Start today's 1-suit daily at ``due`` and resign it."""
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        tally = self.tally
        started = await self.request({"type": "start", "mode": "daily", "suits": 1})
        if started["type"] != "state":
            tally.errors[f"start: {started.get('code', started['type'])}"] += 1
            return
        name = name_of(self.player_id)
        tally.sent[name] = time.monotonic()
        ended = await self.request({"type": "resign"})
        tally.replied[name] = time.monotonic()
        if ended["type"] == "error":
            tally.errors[f"resign: {ended.get('code')}"] += 1


async def drive(share: Share, pipe: Connection) -> dict[str, Any]:
    tally = Tally()
    clients: dict[int, Client] = {}
    at_once = asyncio.Semaphore(SIGNING_IN_AT_ONCE)

    async def sign_in(index: int, player_id: int) -> None:
        async with at_once:
            websocket = await connect(
                share.urls[index % len(share.urls)],
                compression=None,
                max_size=MAX_SIZE,
                ping_interval=None,
                open_timeout=REPLY_SECONDS,
            )
            client = Client(websocket, player_id, tally)
            reply = await client.request({"type": "auth", "token": token_of(share.run, player_id)})
            if reply["type"] != "authenticated":
                raise RuntimeError(f"auth of {player_id}: {reply}")
            clients[player_id] = client

    await asyncio.gather(*(sign_in(i, p) for i, p in enumerate(share.online)))
    loop = asyncio.get_running_loop()
    pipe.send(("ready", len(clients)))
    start: float = await loop.run_in_executor(None, pipe.recv)
    await asyncio.gather(
        *(clients[p].finish(start + at) for p, at in share.baseline),
        *(clients[p].finish(start + at) for p, at in share.finishing),
    )
    done: float = await loop.run_in_executor(None, pipe.recv)  # the driver's last window shut
    assert done
    for client in clients.values():
        client.reader.cancel()
        await client.websocket.close()
    return {
        "sent": tally.sent,
        "replied": tally.replied,
        "arrivals": tally.arrivals,
        "errors": dict(tally.errors),
    }


def worker(share: Share, pipe: Connection) -> None:
    raise_file_limit()
    try:
        pipe.send(("done", asyncio.run(drive(share, pipe))))
    except Exception as error:  # told to the driver, which stops
        pipe.send(("failed", repr(error)))


# -- the run -----------------------------------------------------------------------------


def schedule(players: list[int], rate: float, offset: float) -> list[tuple[int, float]]:
    return [(player, offset + k / rate) for k, player in enumerate(players)]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from server.store.migrate import upgrade

    rng = random.Random(args.seed)
    backend = Backend(admin=args.postgres, redis_url=args.redis)
    await backend.open()
    nodes: list[subprocess.Popen[str]] = []
    processes = []
    try:
        assert backend.database_url is not None
        run_id = backend.prefix.rsplit("-", 1)[1]
        dsn = backend.database_url
        await upgrade(dsn.replace("postgresql://", "postgresql+asyncpg://", 1))
        online = sorted(rng.sample(range(1, args.players + 1), min(args.online, args.players)))
        baseline = list(range(args.players + 1, args.players + args.baseline + 1))
        finishing = rng.sample(online, min(args.finishes, len(online)))
        started = time.monotonic()
        followers = await fill(
            dsn,
            run_id,
            players=args.players,
            baseline=args.baseline,
            follows=args.follows,
            online=online + baseline,
            seed=args.seed,
        )
        say(
            f"filled {args.players + args.baseline:,} players and "
            f"{args.players * args.follows:,} follows in {time.monotonic() - started:.1f} s"
        )
        nodes.extend(start_node(__file__, port, backend) for port in args.ports)
        urls = [f"ws://127.0.0.1:{port}" for port in args.ports]
        node_pids = [node.pid for node in nodes]
        # the day's deal made on each node before anything is timed
        for url in urls:
            async with connect(url, compression=None, max_size=MAX_SIZE) as websocket:
                await websocket.send(json.dumps({"type": "register", "name": f"warm{url[-5:]}"}))
                await websocket.recv()
                await websocket.send(json.dumps({"type": "start", "mode": "daily", "suits": 1}))
                await websocket.recv()

        # the phases, in seconds from the start
        idle_end = IDLE_SECONDS
        baseline_end = idle_end + len(baseline) / args.rate + TAIL_SECONDS
        fanout_end = baseline_end + len(finishing) / args.rate + TAIL_SECONDS
        parts = max(1, args.client_processes)
        shares = [
            Share(
                urls=urls,
                run=run_id,
                online=(online + baseline)[k::parts],
                baseline=[],
                finishing=[],
            )
            for k in range(parts)
        ]
        place = {p: k for k in range(parts) for p in shares[k].online}
        for player, at in schedule(baseline, args.rate, idle_end):
            shares[place[player]].baseline.append((player, at))
        for player, at in schedule(finishing, args.rate, baseline_end):
            shares[place[player]].finishing.append((player, at))
        context = get_context("spawn")
        pipes = []
        started = time.monotonic()
        for share in shares:
            ours, theirs = context.Pipe()
            process = context.Process(target=worker, args=(share, theirs))
            process.start()
            processes.append(process)
            pipes.append(ours)
        loop = asyncio.get_running_loop()
        connected = 0
        for pipe in pipes:
            kind, value = await loop.run_in_executor(None, pipe.recv)
            if kind != "ready":
                raise RuntimeError(f"a client process: {value}")
            connected += value
        say(
            f"{connected:,} players signed in over {len(urls)} nodes in "
            f"{time.monotonic() - started:.1f} s"
        )
        start = time.monotonic() + 0.5
        for pipe in pipes:
            pipe.send(start)
        services = await backend.service_pids()
        marks = []
        for boundary in (0.0, idle_end, baseline_end, fanout_end):
            await asyncio.sleep(max(0.0, start + boundary - time.monotonic()))
            marks.append(
                (
                    time.monotonic(),
                    sum(cpu_seconds(pid) for pid in node_pids),
                    services_cpu(services),
                )
            )
        for pipe in pipes:
            pipe.send(1.0)
        results = []
        for pipe in pipes:
            kind, value = await loop.run_in_executor(None, pipe.recv)
            if kind != "done":
                raise RuntimeError(f"a client process: {value}")
            results.append(value)
    finally:
        for process in processes:
            process.join(30)
            if process.is_alive():
                process.kill()
        for node in nodes:
            stop_server(node)
        await backend.close()
    return figures(args, marks, results, followers, set(online), finishing, len(baseline))


def figures(
    args: argparse.Namespace,
    marks: list[tuple[float, float, dict[str, float | None]]],
    results: list[dict[str, Any]],
    followers: dict[int, list[int]],
    online: set[int],
    finishing: list[int],
    baseline: int,
) -> dict[str, Any]:
    sent: dict[str, float] = {}
    replied: dict[str, float] = {}
    errors: Counter[str] = Counter()
    for result in results:
        sent.update(result["sent"])
        replied.update(result["replied"])
        errors.update(result["errors"])
    from_resign: Counter[int] = Counter()
    resigns: Counter[int] = Counter(bucket(replied[f] - sent[f]) for f in sent if f in replied)
    before_reply = 0
    received: set[tuple[str, int]] = set()
    duplicates = 0
    for result in results:
        for finisher, to, at in result["arrivals"]:
            if (finisher, to) in received:
                duplicates += 1
                continue
            received.add((finisher, to))
            if finisher in sent:
                from_resign[bucket(at - sent[finisher])] += 1
                before_reply += at < replied.get(finisher, at)
    expected = {(name_of(f), to) for f in finishing for to in followers.get(f, ()) if to in online}

    def phase(k: int, count: int) -> dict[str, Any]:
        (t0, cpu0, services0), (t1, cpu1, services1) = marks[k], marks[k + 1]
        idle_rate = (marks[1][1] - marks[0][1]) / (marks[1][0] - marks[0][0])
        node = cpu1 - cpu0
        net = node - idle_rate * (t1 - t0)
        out: dict[str, Any] = {
            "finishes": count,
            "seconds": round(t1 - t0, 2),
            "nodes_cpu_ms_per_finish": round(node / count * 1000, 3) if count else None,
            "nodes_cpu_ms_per_finish_less_idle": round(net / count * 1000, 3) if count else None,
        }
        for service, before in services0.items():
            after = services1.get(service)
            if before is not None and after is not None and count:
                out[f"{service}_cpu_ms_per_finish"] = round((after - before) / count * 1000, 3)
        return out

    idle = marks[1][1] - marks[0][1]
    base = phase(1, baseline)
    fan = phase(2, len(finishing))
    if base["nodes_cpu_ms_per_finish_less_idle"] is not None and fan["finishes"]:
        fan_cost = (
            fan["nodes_cpu_ms_per_finish_less_idle"] - base["nodes_cpu_ms_per_finish_less_idle"]
        )
    else:
        fan_cost = None
    pushes = len(received & expected)
    return {
        "command": ["python", "-m", "bench.friends_fanout", *sys.argv[1:]],
        "players": args.players,
        "follows_each": args.follows,
        "online": len(online),
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(),
        },
        "idle_nodes_cpu_percent": round(idle / (marks[1][0] - marks[0][0]) * 100, 2),
        "baseline": base,
        "fanout": fan,
        "fanout_cpu_ms_per_finish": None if fan_cost is None else round(fan_cost, 3),
        "pushes_expected": len(expected),
        "pushes_received": pushes,
        "pushes_per_finish": round(pushes / len(finishing), 2) if finishing else 0,
        "pushes_unexpected": len(received - expected),
        "pushes_duplicated": duplicates,
        "fanout_cpu_us_per_push": (
            round(fan_cost * 1000 / (pushes / len(finishing)), 1)
            if fan_cost is not None and pushes
            else None
        ),
        "latency_from_resign_ms": {
            "p50": percentile(from_resign, 0.5),
            "p99": percentile(from_resign, 0.99),
            "max": max(from_resign) / 1000 if from_resign else None,
        },
        "resign_round_trip_ms": {
            "p50": percentile(resigns, 0.5),
            "p99": percentile(resigns, 0.99),
        },
        "pushes_before_finishers_reply": before_reply,
        "errors": dict(errors),
        "passed": not errors and pushes == len(expected) and not (received - expected),
    }


def summary(report: dict[str, Any]) -> str:
    base, fan = report["baseline"], report["fanout"]
    resign, trip = report["latency_from_resign_ms"], report["resign_round_trip_ms"]
    lines = [
        f"{report['players']:,} players following {report['follows_each']} each, "
        f"{report['online']:,} online on 2 nodes; idle nodes' CPU "
        f"{report['idle_nodes_cpu_percent']:.1f}%",
        f"baseline (no follower): {base['finishes']} finishes, nodes' CPU "
        f"{base['nodes_cpu_ms_per_finish_less_idle']} ms a finish (less idle)",
        f"with followers: {fan['finishes']} finishes, nodes' CPU "
        f"{fan['nodes_cpu_ms_per_finish_less_idle']} ms a finish (less idle); the fan-out's "
        f"own {report['fanout_cpu_ms_per_finish']} ms a finish, "
        f"{report['fanout_cpu_us_per_push']} us a push",
        f"pushes: {report['pushes_received']:,} of {report['pushes_expected']:,} expected "
        f"({report['pushes_per_finish']} a finish), {report['pushes_unexpected']} unexpected, "
        f"{report['pushes_duplicated']} twice",
        f"friend_finished after the resign was sent: p50 {resign['p50']:.1f} ms, p99 "
        f"{resign['p99']:.1f} ms; the resign's own round trip p50 {trip['p50']:.1f} ms, p99 "
        f"{trip['p99']:.1f} ms ({report['pushes_before_finishers_reply']:,} pushes arrived "
        "before the finisher's reply: the fan-out is done before it)",
    ]
    if report["errors"]:
        lines.append(f"errors: {report['errors']}")
    if not report["passed"]:
        lines.append("FAILED: pushes missing, unexpected, or errors")
    return "\n".join(lines)


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = (
    "--players 200 --follows 10 --online 60 --finishes 10 --baseline 5 --rate 20 "
    "--client-processes 1"
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=10_000, help="accounts in the graph")
    parser.add_argument("--follows", type=int, default=50, help="players each one follows")
    parser.add_argument("--online", type=int, default=2_000, help="players signed in")
    parser.add_argument("--finishes", type=int, default=400, help="online players who finish")
    parser.add_argument("--baseline", type=int, default=200, help="finishers without followers")
    parser.add_argument("--rate", type=float, default=20.0, help="finishes a second")
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--ports", type=int, nargs=2, help="the nodes' ports (free ones)")
    parser.add_argument("--postgres", default=POSTGRES_ADMIN, help="admin URL")
    parser.add_argument("--redis", default=REDIS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure here")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.port, args.database, args.redis, args.prefix))
        return
    if not args.ports:
        args.ports = [free_port(), free_port()]
    report = asyncio.run(run(args))
    print(summary(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"figures written to {args.json}")
    sys.exit(0 if report["passed"] else 1)


if __name__ == "__main__":
    main()
