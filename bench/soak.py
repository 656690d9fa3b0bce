"""Soak bench: mixed load on two nodes behind nginx for a long while, reported per interval.

Run from the repository root::

    python -m bench.soak                          # 30 minutes, a line a minute
    python -m bench.soak --minutes 5              # shorter: a line every 10 s
    python -m bench.soak --minutes 5 --json soak.json   # every figure, for the docs

The deployment (bench/cluster.py): a fresh PostgreSQL database and Redis key prefix, two
``simon-server`` nodes (127.0.0.2 and 127.0.0.3, one port) with the production limits, and
Debian's nginx running deploy/nginx.conf (templated for addresses only) as their trusted
proxy: the nodes count every limit per client address on the address nginx puts in
``X-Forwarded-For``, and the clients connect from many loopback addresses of their own, so
one machine's load is spread over many "clients" and nothing is exempt from the limits.
Everything is removed at the end, also when a step fails or the run is stopped (Ctrl-C).

The load (bench/crowd.py, in ``--client-processes`` processes): ``--players`` bots play at
``--rate`` actions a second each (a share ``--daily`` of them on today's 1-suit daily, the
rest practice deals; moves, a few undos, a restart after each sequence), ``--followers``
accounts follow the daily race and only read its digests, ``--registrations`` new accounts
a second go through sign-up with the refusals on the way (``not-authenticated``,
``name-taken``, ``bad-name``, ``already-authenticated``, ``bad-token``), and ``--vandals``
connections send ``--bad-rate`` bad frames a second each (broken JSON, unknown types and
fields, control characters, a float for a number, invalid UTF-8, and now and then a frame
over the size limit, which must close the connection with 1009).

Reported per interval (``--interval``, default a minute, 10 s for runs under 10 minutes):
each node's resident memory and CPU (and nginx's workers', the PostgreSQL backends of the
database, Redis's and the clients'), moves a second and their round trip p50/p99 as the
players see it, digests a second per follower (mean and most), and refusals by code: the
expected ones (what was provoked got the code it must get; the nodes' own
``simon_errors_total`` counted alongside) and anything else.

The run fails (exit status 1) on any unexpected answer or closed connection, on a node
counting an error no client provoked (or not counting one that was), on an ERROR line or a
traceback in a node's log, on an nginx error, on a node that does not exit cleanly on
SIGTERM at the end, or on a node's resident memory growing by more than ``--max-growth``
MiB from the end of the warm-up (``--warmup`` minutes) to the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.cluster import (  # noqa: E402
    POSTGRES_ADMIN,
    REDIS,
    Cluster,
    Sample,
    cpu_between,
    nginx_problems,
)
from bench.crowd_fleet import Fleet  # noqa: E402
from bench.crowd_tally import Share  # noqa: E402
from bench.server_load_bots import merge, percentile  # noqa: E402

MIB = 2**20


@dataclass
class Options:
    minutes: float = 30.0
    interval: float | None = None
    warmup: float | None = None
    players: int = 300
    followers: int = 200
    daily: float = 0.5
    rate: float = 1.0
    registrations: float = 0.5
    vandals: int = 4
    bad_rate: float = 2.0
    client_processes: int = 2
    max_growth: float = 32.0
    postgres: str = POSTGRES_ADMIN
    redis: str = REDIS
    seed: int = 1
    json_path: Path | None = None
    node_settings: dict[str, str] = field(default_factory=dict)

    @property
    def seconds_per_interval(self) -> float:
        if self.interval is not None:
            return self.interval
        return 60.0 if self.minutes >= 10 else 10.0

    @property
    def intervals(self) -> int:
        return max(1, round(self.minutes * 60 / self.seconds_per_interval))

    @property
    def warmup_intervals(self) -> int:
        """Intervals before the memory baseline: ``--warmup`` minutes, by default a fifth of
        the run up to 3 minutes; at least one, and at most all but one."""
        minutes = self.warmup if self.warmup is not None else min(3.0, self.minutes / 5)
        count = math.ceil(minutes * 60 / self.seconds_per_interval)
        return max(1, min(count, self.intervals - 1)) if self.intervals > 1 else 0


def say(message: str) -> None:
    print(message, flush=True)


def cpu_percent(before: Sample, after: Sample, group: str) -> float | None:
    used = cpu_between(before, after, group)
    wall = after.at - before.at
    return None if used is None or wall <= 0 else used / wall * 100


def subtract(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {code: n - before.get(code, 0) for code, n in after.items() if n - before.get(code, 0)}


def server_total(metrics: dict[str, dict[str, int]]) -> Counter[str]:
    total: Counter[str] = Counter()
    for codes in metrics.values():
        total.update(codes)
    return total


def slope_mib_per_minute(times: list[float], values: list[float]) -> float | None:
    """Least-squares slope of ``values`` (MiB) over ``times`` (s), per minute."""
    if len(times) < 2:
        return None
    mean_t, mean_v = sum(times) / len(times), sum(values) / len(values)
    den = sum((t - mean_t) ** 2 for t in times)
    if den == 0:
        return None
    return sum((t - mean_t) * (v - mean_v) for t, v in zip(times, values, strict=True)) / den * 60


def _f(value: float | None, spec: str, width: int) -> str:
    """A figure in a column, ``-`` when there is none."""
    missing = value is None or (isinstance(value, float) and math.isnan(value))
    return f"{'-' if missing else format(value, spec):>{width}}"


async def soak(options: Options) -> dict[str, Any]:
    interval, count = options.seconds_per_interval, options.intervals
    settings = {"SIMON_MAX_CONNECTIONS": "10000", **options.node_settings}
    problems: list[str] = []
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="simon-soak-") as temporary:
        folder = Path(temporary)
        async with Cluster(
            folder,
            postgres=options.postgres,
            redis_url=options.redis,
            node_settings=settings,
            say=say,
        ) as cluster:
            baseline = await cluster.metrics()
            processes = max(1, options.client_processes)
            shares = [
                Share(
                    worker=w,
                    urls=[cluster.url],
                    run=cluster.run[:6],
                    seed=options.seed,
                    rate=options.rate,
                    daily=options.daily,
                    registrations=options.registrations / processes,
                    bad_rate=options.bad_rate,
                )
                for w in range(processes)
            ]
            fleet = Fleet(shares)
            try:
                await fleet.start()
                started = time.monotonic()
                added = await fleet.add(options.players, options.followers, options.vandals)
                say(
                    f"{options.players} players, {options.followers} followers and "
                    f"{options.vandals} vandals connected through nginx in "
                    f"{time.monotonic() - started:.1f} s, from {processes} client processes"
                )
                start = time.monotonic() + 1.0
                await fleet.window(start, interval, count)
                say(
                    f"{count} intervals of {interval:g} s; warm-up: the first "
                    f"{options.warmup_intervals}"
                )
                say(_header())
                await asyncio.sleep(max(0.0, start - time.monotonic()))
                groups = cluster.groups(await cluster.service_pids(), fleet.pids)
                previous = cluster.sample(groups)
                previous_metrics = await cluster.metrics()
                for k in range(count):
                    boundary = start + (k + 1) * interval
                    await asyncio.sleep(max(0.0, boundary - time.monotonic()))
                    now = cluster.sample(groups)
                    groups = cluster.groups(await cluster.service_pids(), fleet.pids)
                    metrics = await cluster.metrics()
                    tally = await fleet.interval(k, interval + 30)
                    row = _row(k, interval, previous, now, tally, metrics, previous_metrics)
                    rows.append(row)
                    say(_line(row))
                    if tally is None:
                        problems.append(f"interval {k}: not every client process reported it")
                    previous, previous_metrics = cluster.sample(groups), metrics
                outside = await fleet.stop()
            finally:
                await fleet.close()
            problems.extend(f"client process: {failure}" for failure in fleet.failures)
            final = await cluster.metrics()
            health = await cluster.health()
        # the cluster is down: its nodes' exit codes and logs are final
        for host, code in cluster.exit_codes.items():
            if code != 0:
                problems.append(f"node {host} exited with {code} on SIGTERM")
        node_logs = {}
        for node in cluster.nodes:
            bad = node.problems()
            node_logs[node.host] = {"errors": bad[:20], "warnings": node.warnings()}
            problems.extend(f"node {node.host} log: {line}" for line in bad[:20])
        nginx_failures, nginx_known = nginx_problems(folder / "nginx.log")
        problems.extend(f"nginx: {line}" for line in nginx_failures[:20])
    return _report(
        options, rows, outside, baseline, final, health, node_logs, nginx_known, problems, added
    )


def _header() -> str:
    return (
        f"{'t s':>6} {'RSS MiB a':>10} {'b':>6} {'CPU% a':>7} {'b':>5} {'nginx':>6} "
        f"{'pg':>5} {'redis':>6} {'clients':>8} {'moves/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'dig/s f':>8} {'max':>5} {'dig/s p':>8} {'regs':>5} {'bad':>5} {'expected':>9} "
        f"{'unexpected':>11} {'load':>5}"
    )


def _row(
    k: int,
    interval: float,
    before: Sample,
    after: Sample,
    tally: dict[str, Any] | None,
    metrics: dict[str, dict[str, int]],
    previous_metrics: dict[str, dict[str, int]],
) -> dict[str, Any]:
    wall = after.at - before.at
    nodes = sorted(name for name in after.cpu if name.startswith("node "))
    row: dict[str, Any] = {
        "interval": k,
        "end_seconds": (k + 1) * interval,
        "rss_mib": {name: after.rss[name] / MIB for name in nodes},
        "cpu_percent": {name: cpu_percent(before, after, name) for name in after.cpu},
        "nginx_rss_mib": after.rss.get("nginx", 0) / MIB,
        "load_average": os.getloadavg()[0],
        "server_errors": {
            host: subtract(codes, previous_metrics.get(host, {})) for host, codes in metrics.items()
        },
    }
    if tally is None:
        return row
    histogram = merge([tally["histogram"]])
    followers = tally["followers"]
    row.update(
        moves=tally["moves"],
        moves_per_second=tally["moves"] / wall,
        p50_ms=percentile(histogram, 0.5),
        p99_ms=percentile(histogram, 0.99),
        p999_ms=percentile(histogram, 0.999),
        histogram=tally["histogram"],
        follower_digests_per_second=(
            tally["follower_digests"] / followers / interval if followers else None
        ),
        follower_max_per_second=tally["follower_max"] / interval if followers else None,
        follower_min_per_second=tally["follower_min"] / interval if followers else None,
        followers=followers,
        follower_min_gap_seconds=tally["min_gap"],
        player_digests=tally["player_digests"],
        daily_players=tally["daily_players"],
        player_digests_per_second=(
            tally["player_digests"] / tally["daily_players"] / interval
            if tally["daily_players"]
            else None
        ),
        digests_checked=tally["digests_checked"],
        registrations=tally["registrations"],
        bad_frames=tally["bad_frames"],
        resent_unavailable=tally["resent_unavailable"],
        actions=tally["actions"],
        expected=tally["expected"],
        unexpected=tally["unexpected"],
        examples=tally["examples"],
    )
    return row


def _line(row: dict[str, Any]) -> str:
    rss = [*row["rss_mib"].values(), math.nan, math.nan]
    cpu = row["cpu_percent"]
    nodes = [cpu[name] for name in sorted(cpu) if name.startswith("node ")] + [None, None]
    line = (
        f"{row['end_seconds']:>6.0f} {rss[0]:>10.1f} {rss[1]:>6.1f} {_f(nodes[0], '.1f', 7)} "
        f"{_f(nodes[1], '.1f', 5)} {_f(cpu.get('nginx'), '.1f', 6)} "
        f"{_f(cpu.get('postgres'), '.1f', 5)} {_f(cpu.get('redis'), '.1f', 6)} "
        f"{_f(cpu.get('clients'), '.1f', 8)}"
    )
    if "moves" not in row:
        return line + "  (no report from the clients)"
    expected = sum(row["expected"].values())
    unexpected = sum(row["unexpected"].values())
    return line + (
        f" {row['moves_per_second']:>8.1f} {_f(row['p50_ms'], '.2f', 7)} "
        f"{_f(row['p99_ms'], '.2f', 7)} {_f(row['follower_digests_per_second'], '.2f', 8)} "
        f"{_f(row['follower_max_per_second'], '.1f', 5)} "
        f"{_f(row['player_digests_per_second'], '.2f', 8)} "
        f"{row['registrations']:>5} {row['bad_frames']:>5} {expected:>9} {unexpected:>11} "
        f"{row['load_average']:>5.1f}"
    )


def _report(
    options: Options,
    rows: list[dict[str, Any]],
    outside: dict[str, Any],
    baseline: dict[str, dict[str, int]],
    final: dict[str, dict[str, int]],
    health: dict[str, Any],
    node_logs: dict[str, Any],
    nginx_known: list[str],
    problems: list[str],
    added: list[dict[str, Any]],
) -> dict[str, Any]:
    measured = [row for row in rows if "moves" in row]
    expected: Counter[str] = Counter(outside["expected"])
    unexpected: Counter[str] = Counter(outside["unexpected"])
    examples: dict[str, list[str]] = dict(outside["examples"])
    for row in measured:
        expected.update(row["expected"])
        unexpected.update(row["unexpected"])
        for what, kept in row["examples"].items():
            examples.setdefault(what, []).extend(kept)
    for what, n in unexpected.items():
        problems.append(f"unexpected: {what} ({n}): {examples.get(what, [''])[:2]}")
    # every refusal the nodes counted was provoked and seen by a client, and the reverse
    counted = server_total({h: subtract(c, baseline.get(h, {})) for h, c in final.items()})
    provoked = Counter({code: n for code, n in expected.items() if code != "close-1009"})
    problems.extend(
        f"refusals of code {code}: the nodes counted {counted[code]}, the clients got "
        f"{provoked[code]}"
        for code in sorted(set(counted) | set(provoked))
        if counted[code] != provoked[code]
    )
    # memory after the warm-up
    w = options.warmup_intervals
    memory: dict[str, Any] = {}
    if rows:
        for name in rows[-1]["rss_mib"]:
            series = [row["rss_mib"][name] for row in rows]
            base = series[w - 1] if w >= 1 else series[0]
            times = [row["end_seconds"] for row in rows][max(0, w - 1) :]
            growth = series[-1] - base
            memory[name] = {
                "after_warmup_mib": base,
                "end_mib": series[-1],
                "max_mib": max(series),
                "growth_mib": growth,
                "slope_mib_per_minute": slope_mib_per_minute(times, series[max(0, w - 1) :]),
            }
            if growth > options.max_growth:
                problems.append(
                    f"{name}: resident memory grew {growth:.1f} MiB after the warm-up "
                    f"({base:.1f} to {series[-1]:.1f} MiB), over the bound of "
                    f"{options.max_growth:g} MiB"
                )
    histogram = merge(row["histogram"] for row in measured)
    follower_rates = [
        row["follower_digests_per_second"]
        for row in measured
        if row.get("follower_digests_per_second") is not None
    ]
    load = os.getloadavg()
    return {
        "command": ["python", "-m", "bench.soak", *sys.argv[1:]],
        "minutes": options.minutes,
        "interval_seconds": options.seconds_per_interval,
        "warmup_intervals": w,
        "load": {
            "players": options.players,
            "daily_share": options.daily,
            "actions_per_second_per_player": options.rate,
            "followers": options.followers,
            "registrations_per_second": options.registrations,
            "vandals": options.vandals,
            "bad_frames_per_second_per_vandal": options.bad_rate,
            "client_processes": options.client_processes,
            "connected": added,
        },
        "deployment": {
            "nodes": 2,
            "balancer": "nginx, deploy/nginx.conf templated for addresses only",
            "limits": "production defaults; nginx is the trusted proxy "
            "(SIMON_TRUSTED_PROXIES=127.0.0.1), clients spread over loopback addresses, "
            "nothing exempt",
            "node_settings": {"SIMON_MAX_CONNECTIONS": "10000", **options.node_settings},
        },
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_end": [round(x, 2) for x in load],
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "intervals": rows,
        "totals": {
            "moves": sum(row["moves"] for row in measured),
            "p50_ms": percentile(histogram, 0.5),
            "p99_ms": percentile(histogram, 0.99),
            "p999_ms": percentile(histogram, 0.999),
            "worst_interval_p99_ms": max((row["p99_ms"] for row in measured), default=None),
            "follower_digests_per_second_mean": (
                sum(follower_rates) / len(follower_rates) if follower_rates else None
            ),
            "follower_digests_per_second_max": max(
                (row["follower_max_per_second"] or 0 for row in measured), default=None
            ),
            "follower_min_gap_seconds": min(
                (gap for row in measured if (gap := row.get("follower_min_gap_seconds"))),
                default=None,
            ),
            "registrations": sum(row["registrations"] for row in measured),
            "bad_frames": sum(row["bad_frames"] for row in measured),
            "resent_unavailable": outside["resent_unavailable"]
            + sum(row["resent_unavailable"] for row in measured),
            "expected": dict(expected),
            "unexpected": dict(unexpected),
            "server_errors": dict(counted),
        },
        "memory": memory,
        "max_growth_mib": options.max_growth,
        "health_at_end": health,
        "node_logs": node_logs,
        "nginx_known_lines": nginx_known[:10],
        "problems": problems,
        "passed": not problems,
    }


def summary(report: dict[str, Any]) -> str:
    totals = report["totals"]
    lines = [
        f"moves: {totals['moves']:,}, round trip p50 {totals['p50_ms']:.2f} ms, "
        f"p99 {totals['p99_ms']:.2f} ms (worst interval {totals['worst_interval_p99_ms']:.2f} ms)",
    ]
    if totals["follower_digests_per_second_mean"] is not None:
        mean = totals["follower_digests_per_second_mean"]
        lines.append(
            f"digests per follower per second: mean {mean:.2f}, most "
            f"{totals['follower_digests_per_second_max']:.2f}, shortest gap between two "
            f"{totals['follower_min_gap_seconds'] or float('nan'):.3f} s"
        )
    lines.append(
        f"expected refusals: {dict(sorted(totals['expected'].items()))}; unexpected: "
        f"{totals['unexpected'] or 'none'}; sign-ins and starts answered unavailable and sent "
        f"again: {totals['resent_unavailable']:,}"
    )
    for name, figures in report["memory"].items():
        slope = figures["slope_mib_per_minute"]
        lines.append(
            f"{name}: RSS {figures['after_warmup_mib']:.1f} MiB after warm-up, "
            f"{figures['end_mib']:.1f} at the end ({figures['growth_mib']:+.1f} MiB; bound "
            f"{report['max_growth_mib']:g}), slope "
            f"{'-' if slope is None else f'{slope:+.2f}'} MiB/min"
        )
    if report["problems"]:
        lines.append("FAILED:")
        lines.extend(f"  {problem}" for problem in report["problems"])
    else:
        lines.append("passed: no unexpected error, memory within its bound")
    return "\n".join(lines)


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = (
    "--minutes 0.1 --interval 3 --players 3 --followers 2 --vandals 1 --bad-rate 4 "
    "--registrations 1 --client-processes 1"
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    defaults = Options()
    parser.add_argument("--minutes", type=float, default=defaults.minutes, help="default 30")
    parser.add_argument(
        "--interval", type=float, help="seconds per report line (60; 10 under 10 minutes)"
    )
    parser.add_argument(
        "--warmup", type=float, help="minutes before the memory baseline (a fifth, at most 3)"
    )
    parser.add_argument("--players", type=int, default=defaults.players)
    parser.add_argument("--followers", type=int, default=defaults.followers)
    parser.add_argument("--daily", type=float, default=defaults.daily, help="share on the daily")
    parser.add_argument(
        "--rate", type=float, default=defaults.rate, help="actions a second per player"
    )
    parser.add_argument(
        "--registrations", type=float, default=defaults.registrations, help="new accounts a second"
    )
    parser.add_argument("--vandals", type=int, default=defaults.vandals)
    parser.add_argument(
        "--bad-rate", type=float, default=defaults.bad_rate, help="bad frames a second per vandal"
    )
    parser.add_argument("--client-processes", type=int, default=defaults.client_processes)
    parser.add_argument(
        "--max-growth",
        type=float,
        default=defaults.max_growth,
        help="MiB a node's RSS may grow after the warm-up (default 32)",
    )
    parser.add_argument("--postgres", default=POSTGRES_ADMIN, help="admin URL")
    parser.add_argument("--redis", default=REDIS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure here")
    args = parser.parse_args()
    if args.minutes <= 0 or args.players < 1 or args.client_processes < 1:
        parser.error("give a positive --minutes, at least one player and one client process")
    options = Options(
        minutes=args.minutes,
        interval=args.interval,
        warmup=args.warmup,
        players=args.players,
        followers=args.followers,
        daily=args.daily,
        rate=args.rate,
        registrations=args.registrations,
        vandals=args.vandals,
        bad_rate=args.bad_rate,
        client_processes=args.client_processes,
        max_growth=args.max_growth,
        postgres=args.postgres,
        redis=args.redis,
        seed=args.seed,
        json_path=args.json,
    )
    # stopped early (Ctrl-C, or TERM): the cluster still goes down and its data is removed
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    report = asyncio.run(soak(options))
    print(summary(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
        print(f"figures written to {args.json}")
    sys.exit(0 if report["passed"] else 1)


__all__ = ["Options", "soak", "summary"]

if __name__ == "__main__":
    main()
