"""Two real ``simon-server`` nodes on a fresh PostgreSQL database and Redis prefix, behind
Debian's nginx running deploy/nginx.conf: the deployment the soak benches load.

::

    async with Cluster(folder, postgres=ADMIN, redis_url=REDIS) as cluster:
        cluster.url            # ws://127.0.0.1:<port>, through nginx
        cluster.node_urls      # ws://127.0.0.2:<port>, ws://127.0.0.3:<port>, direct
        sample = cluster.sample()   # CPU seconds and RSS of every process, now

What is made, and removed at the end (also when a step fails): a database
``simon_soak_<run>`` on the PostgreSQL server that ``postgres`` (an admin URL) names, a
Redis key prefix ``simon-soak-<run>``, the nodes (``simon-server`` on 127.0.0.2 and
127.0.0.3, one port), a stub DNS on 127.0.0.1 that answers ``simon-node`` with both
addresses, and nginx on 127.0.0.1 with deploy/nginx.conf templated for those addresses only
(tests/support/nginx.py, as tests/deploy/test_nginx.py does).

The nodes run with the production limits, and nginx is their trusted proxy
(``SIMON_TRUSTED_PROXIES=127.0.0.1``, the address nginx connects to them from): every limit
per client address is counted on the address nginx saw, which the bench's clients spread
over many loopback addresses of their own (bench/crowd.py), so that the load
of one machine is not throttled as if it were one client, and nothing is exempt.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.dns import StubDns
from tests.support.kills import ROOT, free_port, server_command
from tests.support.nginx import NODE_NAME, NODES, Nginx, shared_port
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL

from .server_load_servers import cpu_seconds, database_url, rss_bytes

POSTGRES_ADMIN = POSTGRES_ADMIN_DSN
REDIS = REDIS_URL
#: nginx's address as the nodes see it (its upstream connections come from 127.0.0.1).
PROXY = "127.0.0.1"
START_SECONDS = 90.0
#: Log lines that are a failure whatever they say.
_BAD_LOG = re.compile(r"\b(ERROR|CRITICAL)\b|Traceback \(most recent call last\)")
#: nginx's own levels: [warn] is configuration advice, [error] and worse a failure, except
#: the lines listed by :func:`nginx_problems` as this machine's known limits.
_NGINX_LEVEL = re.compile(r"\[(emerg|alert|crit|error|warn|notice|info)\]")


def node_environment(
    *, database: str, redis_url: str, prefix: str, secret: str, extra: dict[str, str]
) -> dict[str, str]:
    """A node's environment: ours less every ``SIMON_*`` setting, then the deployment's.
    Limits stay at their defaults (docs/operations.md) unless ``extra`` says otherwise."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIMON_")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(
        SIMON_DATABASE_URL=database,
        SIMON_REDIS_URL=redis_url,
        SIMON_REDIS_PREFIX=prefix,
        SIMON_SECRET=secret,
        SIMON_TRUSTED_PROXIES=PROXY,
        SIMON_DAILY_SOLVER_SECONDS="2",
        SIMON_LOG_LEVEL="INFO",
    )
    env.update(extra)
    return env


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


_METRIC = re.compile(r'^simon_errors_total\{code="([^"]+)"\} ([0-9.e+]+)$', re.MULTILINE)


def errors_by_code(metrics: str) -> dict[str, int]:
    """``simon_errors_total`` by code, from a node's ``/metrics`` text."""
    return {code: int(float(value)) for code, value in _METRIC.findall(metrics)}


_LABELS = re.compile(r'(\w+)="([^"]*)"')


def round_trip_buckets(metrics: str, message_type: str = "move") -> dict[float, int]:
    """``simon_round_trip_seconds`` of one message type: cumulative counts by upper bound."""
    found = {}
    for line in metrics.splitlines():
        if not line.startswith("simon_round_trip_seconds_bucket{"):
            continue
        labels_text, _, value = line.partition("} ")
        labels = dict(_LABELS.findall(labels_text))
        if labels.get("type") == message_type:
            found[float(labels["le"])] = int(float(value))
    return found


def over(
    before: dict[float, int], after: dict[float, int], seconds: float
) -> tuple[int, int] | None:
    """Between two readings of :func:`round_trip_buckets`: how many took longer than
    ``seconds`` (a bucket bound), and how many there were."""
    if seconds not in after or float("inf") not in after:
        return None
    total = after[float("inf")] - before.get(float("inf"), 0)
    within = after[seconds] - before.get(seconds, 0)
    return total - within, total


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def cpu_and_rss(pids: list[int]) -> tuple[dict[int, float], int]:
    """CPU seconds so far of each process still there, and their resident bytes together."""
    cpu: dict[int, float] = {}
    rss = 0
    for pid in pids:
        try:
            cpu[pid] = cpu_seconds(pid)
            rss += rss_bytes(pid)
        except (OSError, IndexError, ValueError):
            continue
    return cpu, rss


@dataclass
class Sample:
    """Every process's CPU seconds so far and resident bytes, at one moment."""

    at: float
    cpu: dict[str, dict[int, float]] = field(default_factory=dict)
    rss: dict[str, int] = field(default_factory=dict)


def cpu_between(before: Sample, after: Sample, group: str) -> float | None:
    """CPU seconds a group's processes used between two samples (those in both)."""
    first, last = before.cpu.get(group), after.cpu.get(group)
    if first is None or last is None:
        return None
    return sum(last[pid] - first[pid] for pid in last if pid in first)


class Node:
    """One ``simon-server`` process on one address."""

    def __init__(self, host: str, port: int, env: dict[str, str], log: Path) -> None:
        self.host = host
        self.port = port
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.returncode: int | None = None

    @property
    def http(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [*server_command(), "--host", self.host, "--port", str(self.port)],
                env=self.env,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,  # its solver worker goes with it
            )

    async def healthy(self, seconds: float = START_SECONDS) -> None:
        deadline = time.monotonic() + seconds
        while True:
            status, body = await asyncio.to_thread(http_get, f"{self.http}/healthz", 2)
            if status == 200 and json.loads(body).get("daily") == "ready":  # deals proven
                return
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"node {self.host} exited at start:\n{self.tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"node {self.host} not healthy in {seconds:g} s:\n{self.tail()}")
            await asyncio.sleep(0.2)

    async def stop(self) -> int | None:
        """SIGTERM, as an operator drains a node; its exit status (None: it had to be killed)."""
        process = self.process
        if process is None:
            return self.returncode
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                self.returncode = await asyncio.to_thread(process.wait, 60)
            except subprocess.TimeoutExpired:
                self.returncode = None
        else:
            self.returncode = process.returncode
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # its solver worker, and itself if stuck
        process.wait()
        return self.returncode

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def problems(self) -> list[str]:
        """Its log's ERROR and CRITICAL lines and tracebacks."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return [f"node {self.host}: no log"]
        return [line for line in text.splitlines() if _BAD_LOG.search(line)]

    def warnings(self) -> dict[str, int]:
        """Its log's WARNING lines, by what they say (numbers blanked)."""
        found: dict[str, int] = {}
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return found
        for line in text.splitlines():
            if "WARNING" in line:
                key = re.sub(r"\d+", "N", line.split("WARNING", 1)[1]).strip()[:120]
                found[key] = found.get(key, 0) + 1
        return found

    def info_count(self, text: str) -> int:
        try:
            return sum(text in line for line in self.log.read_text(errors="replace").splitlines())
        except OSError:
            return 0


#: nginx lines this machine is known to print: its hard descriptor limit (20,000 here) is
#: below deploy/nginx.conf's worker_rlimit_nofile and worker_connections.
KNOWN_NGINX = (
    "setrlimit(RLIMIT_NOFILE",
    "worker_connections exceed open file resource limit",
)


def nginx_problems(log: Path) -> tuple[list[str], list[str]]:
    """nginx's lines of level error or worse: (failures, known lines of this machine)."""
    failures, known = [], []
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return [f"no nginx log at {log}"], []
    for line in text.splitlines():
        level = _NGINX_LEVEL.search(line)
        if level is None or level.group(1) in ("notice", "info"):
            continue
        if any(marker in line for marker in KNOWN_NGINX):
            known.append(line)
        elif level.group(1) != "warn":
            failures.append(line)
    return failures, known


class Cluster:
    """The deployment: services made fresh, two nodes, a stub DNS and nginx."""

    def __init__(
        self,
        folder: Path,
        *,
        postgres: str = POSTGRES_ADMIN,
        redis_url: str = REDIS,
        node_settings: dict[str, str] | None = None,
        say: Any = print,
    ) -> None:
        self.folder = folder
        self.postgres = postgres
        self.redis_url = redis_url
        self.node_settings = node_settings or {}
        self.say = say
        self.run = uuid.uuid4().hex[:10]
        self.database = f"simon_soak_{self.run}"
        self.prefix = f"simon-soak-{self.run}"
        self.nodes: list[Node] = []
        self.nginx: Nginx | None = None
        self._dns: StubDns | None = None
        self._database_made = False
        self.exit_codes: dict[str, int | None] = {}

    # -- setting up and tearing down -----------------------------------------------------

    async def __aenter__(self) -> Cluster:
        try:
            await self._start()
        except BaseException:
            await self.close()
            raise
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def _start(self) -> None:
        import asyncpg

        admin = await asyncpg.connect(self.postgres, timeout=10)
        try:
            await admin.execute(f'CREATE DATABASE "{self.database}"')
            self._database_made = True
        finally:
            await admin.close()
        self._dns = StubDns({NODE_NAME: list(NODES)})
        await self._dns.__aenter__()
        port = shared_port(NODES)
        env = node_environment(
            database=database_url(self.postgres, self.database),
            redis_url=self.redis_url,
            prefix=self.prefix,
            secret=f"soak-{uuid.uuid4().hex}",  # the same on both nodes
            extra=self.node_settings,
        )
        for host in NODES:  # one after the other: the first migrates and proves the deals
            node = Node(host, port, env, self.folder / f"node-{host}.log")
            self.nodes.append(node)
            node.start()
            await node.healthy()
            self.say(f"node {host}:{port} is up (pid {node.pid})")
        self.nginx = Nginx(self.folder, listen=free_port(), resolver=self._dns.port, node_port=port)
        self.nginx.start()
        deadline = time.monotonic() + 30
        while (await asyncio.to_thread(http_get, f"{self.http}/healthz", 2))[0] != 200:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx does not answer:\n{self.nginx.tail()}")
            await asyncio.sleep(0.2)
        self.say(f"nginx (deploy/nginx.conf) listens on {self.url}")

    async def close(self) -> None:
        if self.nginx is not None:
            self.nginx.stop()
        for node in self.nodes:
            self.exit_codes[node.host] = await node.stop()
        if self._dns is not None:
            await self._dns.__aexit__(None, None, None)
            self._dns = None
        if self._database_made:
            import asyncpg

            admin = await asyncpg.connect(self.postgres, timeout=10)
            try:
                await admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            finally:
                await admin.close()
            self._database_made = False
        from tests.support.services import delete_redis_prefix

        with contextlib.suppress(OSError, ConnectionError):
            await delete_redis_prefix(self.redis_url, self.prefix)

    # -- addresses -----------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self.nginx is not None
        return f"ws://127.0.0.1:{self.nginx.listen}"

    @property
    def http(self) -> str:
        assert self.nginx is not None
        return f"http://127.0.0.1:{self.nginx.listen}"

    @property
    def node_urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    # -- measuring -----------------------------------------------------------------------

    async def service_pids(self) -> dict[str, list[int]]:
        """PostgreSQL's backends serving our database, and the Redis server."""
        import asyncpg
        import redis.asyncio as redis

        admin = await asyncpg.connect(self.postgres, timeout=10)
        try:
            rows = await admin.fetch(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1", self.database
            )
        finally:
            await admin.close()
        client = redis.Redis.from_url(self.redis_url)
        try:
            redis_pid = int((await client.info("server"))["process_id"])
        finally:
            await client.aclose()
        return {"postgres": [row["pid"] for row in rows], "redis": [redis_pid]}

    def groups(self, services: dict[str, list[int]], clients: list[int]) -> dict[str, list[int]]:
        """The processes measured, by group: each node, nginx's workers, the services, and
        the bench's client processes."""
        found = {f"node {node.host}": [node.pid] for node in self.nodes}
        if self.nginx is not None and self.nginx.pid is not None:
            found["nginx"] = children(self.nginx.pid)
        found.update(services)
        found["clients"] = clients
        return found

    @staticmethod
    def sample(groups: dict[str, list[int]]) -> Sample:
        sample = Sample(at=time.monotonic())
        for name, pids in groups.items():
            sample.cpu[name], sample.rss[name] = cpu_and_rss(pids)
        return sample

    async def scrape(self) -> dict[str, str]:
        """Each node's ``/metrics`` text (read directly: nginx answers 404 for it)."""
        found = {}
        for node in self.nodes:
            status, body = await asyncio.to_thread(http_get, f"{node.http}/metrics")
            found[node.host] = body.decode(errors="replace") if status == 200 else ""
        return found

    async def metrics(self) -> dict[str, dict[str, int]]:
        """Each node's ``simon_errors_total`` by code."""
        return {host: errors_by_code(text) for host, text in (await self.scrape()).items()}

    async def health(self) -> dict[str, Any]:
        found = {}
        for node in self.nodes:
            status, body = await asyncio.to_thread(http_get, f"{node.http}/healthz")
            try:
                found[node.host] = json.loads(body) if status else None
            except ValueError:
                found[node.host] = None
        return found


__all__ = [
    "POSTGRES_ADMIN",
    "REDIS",
    "Cluster",
    "Node",
    "Sample",
    "cpu_between",
    "errors_by_code",
    "nginx_problems",
    "over",
    "round_trip_buckets",
]
