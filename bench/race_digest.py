"""The daily race at scale: thousands of players and followers on one daily across 2 nodes.

Run from the repository root::

    python -m bench.race_digest                         # 2,500 then 10,000 of each
    python -m bench.race_digest --sizes 1000,4000 --seconds 30     # smaller, quicker
    python -m bench.race_digest --via nginx             # through deploy/nginx.conf
    python -m bench.race_digest ... --json race.json    # every figure, for the docs
    python -m bench.race_digest --client-processes 2 --follower-processes 2  # readers apart

The deployment is the soak's (bench/cluster.py): a fresh PostgreSQL database and Redis
prefix, two ``simon-server`` nodes with the production limits but for
``SIMON_MAX_CONNECTIONS`` (raised to 15,000: a node holds half of all the clients), and
nginx. The clients (bench/crowd.py, ``--client-processes`` processes, each with its soft
descriptor limit raised to the hard one) connect from loopback addresses of their own,
``--via direct`` (the default) to the two nodes in turn, or ``--via nginx`` through nginx.
Through nginx every client holds two of nginx's descriptors; with a hard limit of 20,000
per process and two workers, this machine's nginx holds some 19,000 proxied websockets at
most, so the full 10,000 + 10,000 goes to the nodes directly.

For each size in ``--sizes`` (growing the same race, in order): that many players and that
many followers. Every player registers (a bot account), starts today's 1-suit daily (which
makes it follow the race too: it gets the digests) and plays at ``--rate`` actions a
second; every follower registers and follows the race with ``race`` and only reads. After
``--warmup`` seconds the window of ``--seconds`` is measured in intervals of
``--interval``: the nodes' CPU (user + system, from /proc) per move and per player-second,
the CPU of nginx, of the PostgreSQL backends and of Redis, digests a second per follower
(mean, most, the shortest gap between two), the move round trip p50/p99 as the players
see it (and apart, for the moves sent within 0.25 s after a burst of digests began), the
moves the nodes themselves took over 25 and 50 ms on (``simon_round_trip_seconds``), and
every error. With one follower per player, nodes' CPU per player-second that stays flat
while the race grows is CPU linear in players (each move costs the same whatever the
race's size, and each follower gets a digest at most once a second, not one frame per
racer's move).

On one machine the clients share the cores with the nodes, and the followers' processes
(all they do is read digests) take as much CPU as a node: a player's move then waits for
its own process, busy reading digests, and for the cores. ``--follower-processes N`` runs
the followers in N processes of their own, at ``--follower-nice`` (10) added to their
niceness, and the players in the ``--client-processes``: the nodes and the timed players
come first, as they would with the followers on machines of their own. The followers'
digests a second then show whether they were still told; the shortest gap between two is
what a follower read, and a reader held back reads two close together.

Sign-ins and starts answered ``unavailable`` while clients connect are sent again, as a
client should, and counted (see ``bench/crowd.py``).

Exit status 1 on any unexpected answer or a node's ERROR line; the targets (CPU linear,
at most 2 frames a second per follower, p99 under 50 ms) are reported, met or not.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.cluster import (  # noqa: E402
    POSTGRES_ADMIN,
    REDIS,
    Cluster,
    cpu_between,
    nginx_problems,
    over,
    round_trip_buckets,
)
from bench.crowd_fleet import Fleet  # noqa: E402
from bench.crowd_tally import Share, Takes, merged  # noqa: E402
from bench.server_load_bots import merge, percentile  # noqa: E402

MIB = 2**20
#: The targets of the daily race at scale (docs/performance.md).
MOST_FRAMES_PER_SECOND = 2.0
P99_TARGET_MS = 50.0


def say(message: str) -> None:
    print(message, flush=True)


async def measure_size(
    cluster: Cluster,
    fleet: Fleet,
    *,
    players: int,
    followers: int,
    have: tuple[int, int],
    warmup: float,
    seconds: float,
    interval: float,
) -> dict[str, Any]:
    """Grow the race to ``players`` and ``followers``, warm up, and measure a window."""
    started = time.monotonic()
    groups = cluster.groups(await cluster.service_pids(), fleet.pids)
    before = cluster.sample(groups)
    # followers first, as in the first runs, when each one's `race` sorted the whole race
    await fleet.add(0, followers - have[1])
    await fleet.add(players - have[0], 0)
    connected = cluster.sample(groups)
    connect_seconds = time.monotonic() - started
    added = (players - have[0]) + (followers - have[1])
    connect_cpu = {
        name: cpu_between(before, connected, name) for name in connected.cpu if "node" in name
    }
    say(
        f"{players:,} players and {followers:,} followers: the last {added:,} connected in "
        f"{connect_seconds:.0f} s (nodes' CPU "
        f"{sum(v or 0 for v in connect_cpu.values()) / max(added, 1) * 1000:.2f} ms a client)"
    )
    await asyncio.sleep(warmup)
    count = max(1, round(seconds / interval))
    start = time.monotonic() + 1.0
    await fleet.window(start, interval, count)
    await asyncio.sleep(max(0.0, start - time.monotonic()))
    groups = cluster.groups(await cluster.service_pids(), fleet.pids)
    first = previous = cluster.sample(groups)
    scraped = await cluster.scrape()
    tallies, rows = [], []
    for k in range(count):
        await asyncio.sleep(max(0.0, start + (k + 1) * interval - time.monotonic()))
        now = cluster.sample(groups)
        tally = await fleet.interval(k, interval + 60)
        if tally is None:
            raise RuntimeError(f"interval {k}: not every client process reported it")
        tallies.append(tally)
        histogram = merge([tally["histogram"]])
        node_cpu = sum(
            cpu_between(previous, now, name) or 0 for name in now.cpu if name.startswith("node")
        )
        rows.append(
            {
                "moves_per_second": tally["moves"] / (now.at - previous.at),
                "p50_ms": percentile(histogram, 0.5),
                "p99_ms": percentile(histogram, 0.99),
                "nodes_cpu_percent": node_cpu / (now.at - previous.at) * 100,
                "follower_digests_per_second": tally["follower_digests"]
                / max(tally["followers"], 1)
                / interval,
                "follower_max_per_second": tally["follower_max"] / interval,
                "load_average": os.getloadavg()[0],
            }
        )
        say(
            f"  {(k + 1) * interval:>5.0f} s: {rows[-1]['moves_per_second']:>7.0f} moves/s, "
            f"p50 {rows[-1]['p50_ms']:.1f} ms, p99 {rows[-1]['p99_ms']:.1f} ms, nodes' CPU "
            f"{rows[-1]['nodes_cpu_percent']:.0f}%, digests/s per follower "
            f"{rows[-1]['follower_digests_per_second']:.2f} (most "
            f"{rows[-1]['follower_max_per_second']:.1f}), load {rows[-1]['load_average']:.1f}"
        )
        previous = now
    last = previous
    # the nodes' own time for a move, from reading it to its reply sent (the commit included)
    slow: dict[str, list[int]] = {"25": [0, 0], "50": [0, 0]}
    for host, text in (await cluster.scrape()).items():
        opening, closing = round_trip_buckets(scraped.get(host, "")), round_trip_buckets(text)
        for bound, key in ((0.025, "25"), (0.05, "50")):
            counted = over(opening, closing, bound)
            if counted is not None:
                slow[key][0] += counted[0]
                slow[key][1] += counted[1]
    wall = last.at - first.at
    total = merged(tallies)
    histogram = merge([total["histogram"]])
    burst = merge([total["burst_histogram"]])
    calm = histogram.copy()
    calm.subtract(burst)
    moves = total["moves"]
    cpu = {name: cpu_between(first, last, name) for name in last.cpu}
    nodes_cpu = sum(v or 0 for name, v in cpu.items() if name.startswith("node"))
    followers_seen = total["followers"] / count  # followers through each interval, averaged
    return {
        "players": players,
        "followers": followers,
        "connect_seconds": connect_seconds,
        "connect_cpu_ms_per_client": sum(v or 0 for v in connect_cpu.values())
        / max(added, 1)
        * 1000,
        "seconds": wall,
        "moves": moves,
        "moves_per_second": moves / wall,
        "p50_ms": percentile(histogram, 0.5),
        "p99_ms": percentile(histogram, 0.99),
        "p999_ms": percentile(histogram, 0.999),
        "burst_moves": sum(burst.values()),
        "burst_p50_ms": percentile(burst, 0.5),
        "burst_p99_ms": percentile(burst, 0.99),
        "calm_p50_ms": percentile(+calm, 0.5),
        "calm_p99_ms": percentile(+calm, 0.99),
        "server_moves_over_25_ms": slow["25"][0],
        "server_moves_over_50_ms": slow["50"][0],
        "server_moves": slow["50"][1],
        "client_moves_over_50_ms": sum(n for us, n in histogram.items() if us >= 50_000),
        "nodes_cpu_seconds_per_second": nodes_cpu / wall,
        "nodes_cpu_us_per_move": nodes_cpu / moves * 1e6 if moves else None,
        "nodes_cpu_us_per_player_second": nodes_cpu / players / wall * 1e6,
        "cpu_percent": {name: (v or 0) / wall * 100 for name, v in cpu.items()},
        "rss_mib": {name: last.rss[name] / MIB for name in last.rss},
        "follower_digests_per_second": total["follower_digests"] / max(followers_seen, 1) / wall,
        "follower_max_per_second": max(row["follower_max_per_second"] for row in rows),
        "follower_min_per_second": total["follower_min"] / interval,
        "follower_min_gap_seconds": total["min_gap"],
        "player_digests_per_second": total["player_digests"]
        / max(total["daily_players"] / count, 1)
        / wall,
        "digests_checked": total["digests_checked"],
        "expected": total["expected"],
        "unexpected": total["unexpected"],
        "resent_unavailable": total["resent_unavailable"],
        "examples": total["examples"],
        "intervals": rows,
    }


def client_shares(args: argparse.Namespace, urls: list[str], run: str) -> list[Share]:
    """The client processes: ``--client-processes`` of players and followers alike or, with
    ``--follower-processes``, of players only, and the followers in processes of their own
    at ``--follower-nice``."""
    apart = args.follower_processes > 0
    together: Takes = "players" if apart else "all"
    kinds: list[tuple[Takes, int]] = [(together, 0)] * args.client_processes + [
        ("followers", args.follower_nice)
    ] * args.follower_processes
    return [
        Share(
            worker=w,
            urls=urls,
            run=run,
            seed=args.seed,
            rate=args.rate,
            daily=1.0,
            connect_at_once=args.connect_at_once,
            takes=takes,
            nice=nice,
        )
        for w, (takes, nice) in enumerate(kinds)
    ]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    sizes = [int(size) for size in args.sizes.split(",")]
    settings = {"SIMON_MAX_CONNECTIONS": str(args.max_connections)}
    problems: list[str] = []
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="simon-race-") as temporary:
        folder = Path(temporary)
        async with Cluster(
            folder, postgres=args.postgres, redis_url=args.redis, node_settings=settings, say=say
        ) as cluster:
            urls = cluster.node_urls if args.via == "direct" else [cluster.url]
            fleet = Fleet(client_shares(args, urls, cluster.run[:6]))
            have = (0, 0)
            try:
                await fleet.start()
                for size in sizes:
                    followers = round(size * args.followers_per_player)
                    try:
                        result = await measure_size(
                            cluster,
                            fleet,
                            players=size,
                            followers=followers,
                            have=have,
                            warmup=args.warmup,
                            seconds=args.seconds,
                            interval=args.interval,
                        )
                    except RuntimeError as error:  # the machine could not take this size
                        failed = f"{size:,} players and {followers:,} followers: {error}"
                        say(f"stopped: {failed}")
                        problems.append(failed)
                        break
                    results.append(result)
                    have = (result["players"], result["followers"])
                outside = await fleet.stop()
            finally:
                await fleet.close()
            problems.extend(f"client process: {failure}" for failure in fleet.failures)
        for host, code in cluster.exit_codes.items():
            if code != 0:
                problems.append(f"node {host} exited with {code} on SIGTERM")
        for node in cluster.nodes:
            problems.extend(f"node {node.host} log: {line}" for line in node.problems()[:20])
        failures, _known = nginx_problems(folder / "nginx.log")
        problems.extend(f"nginx: {line}" for line in failures[:20])
        warnings = {node.host: node.warnings() for node in cluster.nodes}
        drops = {
            node.host: node.info_count("dropped") for node in cluster.nodes
        }  # "dropped N pushed frames for a slow client" lines
    unexpected: Counter[str] = Counter(outside["unexpected"])
    for result in results:
        unexpected.update(result["unexpected"])
    problems.extend(f"unexpected: {what} ({n})" for what, n in unexpected.items())
    return {
        "command": ["python", "-m", "bench.race_digest", *sys.argv[1:]],
        "via": args.via,
        "rate": args.rate,
        "client_processes": args.client_processes,
        "follower_processes": args.follower_processes,
        "follower_nice": args.follower_nice if args.follower_processes else 0,
        "node_settings": settings,
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(),
        },
        "sizes": results,
        "linear": _linear(results),
        "targets": _targets(results),
        "outside_windows": {"expected": outside["expected"], "unexpected": outside["unexpected"]},
        "resent_unavailable": outside["resent_unavailable"]
        + sum(result["resent_unavailable"] for result in results),
        "node_warnings": warnings,
        "node_log_drop_lines": drops,
        "problems": problems,
        "passed": not problems,
    }


def _linear(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    if len(results) < 2:
        return None
    small, big = results[0], results[-1]
    return {
        "players": [small["players"], big["players"]],
        "players_ratio": big["players"] / small["players"],
        "cpu_ratio": big["nodes_cpu_seconds_per_second"] / small["nodes_cpu_seconds_per_second"],
        "moves_ratio": big["moves_per_second"] / small["moves_per_second"],
        "cpu_per_move_ratio": (
            big["nodes_cpu_us_per_move"] / small["nodes_cpu_us_per_move"]
            if big["nodes_cpu_us_per_move"] and small["nodes_cpu_us_per_move"]
            else None
        ),
    }


def _targets(results: list[dict[str, Any]]) -> dict[str, Any]:
    biggest = results[-1] if results else None
    if biggest is None:
        return {}
    return {
        "players": biggest["players"],
        "followers": biggest["followers"],
        "most_frames_per_follower_second": biggest["follower_max_per_second"],
        "frames_met": biggest["follower_max_per_second"] <= MOST_FRAMES_PER_SECOND,
        "p99_ms": biggest["p99_ms"],
        "p99_met": biggest["p99_ms"] < P99_TARGET_MS,
    }


def summary(report: dict[str, Any]) -> str:
    lines = [
        f"{'players':>8} {'followers':>9} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'nodes CPU':>9} {'us/move':>8} {'us/player-s':>11} {'dig/s f':>8} {'most':>5} "
        f"{'gap s':>6} {'dig/s p':>8} {'nginx%':>7} {'pg%':>5} {'redis%':>7} {'clients%':>9}"
    ]
    for r in report["sizes"]:
        cpu = r["cpu_percent"]
        lines.append(
            f"{r['players']:>8,} {r['followers']:>9,} {r['moves_per_second']:>8.0f} "
            f"{r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f} "
            f"{r['nodes_cpu_seconds_per_second'] * 100:>8.0f}% "
            f"{r['nodes_cpu_us_per_move'] or 0:>8.0f} {r['nodes_cpu_us_per_player_second']:>11.1f} "
            f"{r['follower_digests_per_second']:>8.2f} {r['follower_max_per_second']:>5.1f} "
            f"{r['follower_min_gap_seconds'] or 0:>6.3f} {r['player_digests_per_second']:>8.2f} "
            f"{cpu.get('nginx', 0):>7.1f} {cpu.get('postgres', 0):>5.1f} "
            f"{cpu.get('redis', 0):>7.1f} {cpu.get('clients', 0):>9.1f}"
        )
    # a burst is seen by the followers of the players' own process: none when apart
    apart = report["follower_processes"] > 0
    lines.extend(
        f"{r['players']:,}: "
        + (
            "moves near a digest burst not told apart (the followers read in processes of "
            f"their own, at niceness {report['follower_nice']})"
            if apart
            else f"moves sent within 0.25 s of a digest burst: {r['burst_moves']:,}, "
            f"p99 {r['burst_p99_ms']:.1f} ms; the others p99 {r['calm_p99_ms']:.1f} ms"
        )
        + f"; over 50 ms: {r['client_moves_over_50_ms']:,} as the players saw it, "
        f"{r['server_moves_over_50_ms']:,} of {r['server_moves']:,} by the nodes' own "
        "clock (read to reply)"
        for r in report["sizes"]
    )
    linear = report["linear"]
    if linear:
        lines.append(
            f"{linear['players_ratio']:.1f}x the players: {linear['moves_ratio']:.2f}x the moves, "
            f"{linear['cpu_ratio']:.2f}x the nodes' CPU, "
            f"{linear['cpu_per_move_ratio'] or float('nan'):.2f}x the CPU per move"
        )
    targets = report["targets"]
    if targets:
        lines.append(
            f"at {targets['players']:,} players and {targets['followers']:,} followers: at most "
            f"{targets['most_frames_per_follower_second']:.1f} frames/s per follower "
            f"({'met' if targets['frames_met'] else 'NOT met'}: at most 2), p99 "
            f"{targets['p99_ms']:.1f} ms ({'met' if targets['p99_met'] else 'NOT met'}: under 50)"
        )
    if report["resent_unavailable"]:
        lines.append(
            "sign-ins and starts answered unavailable (the database too busy) and sent again: "
            f"{report['resent_unavailable']:,}"
        )
    if report["problems"]:
        lines.append("FAILED:")
        lines.extend(f"  {problem}" for problem in report["problems"])
    return "\n".join(lines)


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--sizes 4 --warmup 1 --seconds 2 --interval 1 --client-processes 1 --rate 2"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="2500,10000", help="players (and followers) per step, growing"
    )
    parser.add_argument(
        "--followers-per-player", type=float, default=1.0, help="followers per player (1)"
    )
    parser.add_argument("--rate", type=float, default=0.2, help="actions a second per player (0.2)")
    parser.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window per size")
    parser.add_argument("--interval", type=float, default=10.0, help="seconds per report line")
    parser.add_argument("--via", choices=("direct", "nginx"), default="direct")
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument(
        "--follower-processes",
        type=int,
        default=0,
        help="run the followers in this many processes of their own (0: with the players)",
    )
    parser.add_argument(
        "--follower-nice",
        type=int,
        default=10,
        help="niceness added to the followers' own processes (10)",
    )
    parser.add_argument("--connect-at-once", type=int, default=25, help="per client process")
    parser.add_argument("--max-connections", type=int, default=15_000, help="per node")
    parser.add_argument("--postgres", default=POSTGRES_ADMIN, help="admin URL")
    parser.add_argument("--redis", default=REDIS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure here")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    report = asyncio.run(run(args))
    print(summary(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"figures written to {args.json}")
    sys.exit(0 if report["passed"] else 1)


if __name__ == "__main__":
    main()
