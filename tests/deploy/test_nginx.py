"""deploy/nginx.conf, the very file shipped, run by Debian's nginx in front of two real
``simon-server`` nodes sharing PostgreSQL and Redis: a player's node is killed, the player
reconnects through nginx, lands on the other node and resumes the game where it stood.

The file is only templated for addresses: its listening port, its resolver (a DNS server
the test owns, answering the nodes' shared name with both nodes' addresses, as Docker's
does for a network alias) and the nodes' port. The nodes listen on 127.0.0.2 and
127.0.0.3; nginx is the trusted proxy, so they count clients by ``X-Forwarded-For``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.support.dns import StubDns
from tests.support.kills import ROOT, server_command, services_environment
from tests.support.players import registered, resume, signed_in, started, step
from tests.support.servers import Client, unique_name

NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NODES = ("127.0.0.2", "127.0.0.3")
NODE_NAME = "simon-node"


def nginx_binary() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None:
        pytest.fail("nginx is not installed (Debian package nginx; scripts/test installs it)")
    return found


def templated(*, listen: int, resolver: int, node_port: int) -> str:
    """deploy/nginx.conf with the test's addresses; each replaced text must be there once."""
    text = NGINX_CONF.read_text()
    for old, new in (
        ("listen 8080 ", f"listen 127.0.0.1:{listen} "),
        ("resolver 127.0.0.11 ", f"resolver 127.0.0.1:{resolver} "),
        ("http://$simon_nodes:8765;", f"http://$simon_nodes:{node_port};"),
    ):
        assert text.count(old) == 1, f"deploy/nginx.conf no longer has {old!r} once"
        text = text.replace(old, new)
    return text


def shared_port() -> int:
    """A port free on every node address."""
    for _ in range(50):
        with socket.socket() as first:
            first.bind((NODES[0], 0))
            port: int = first.getsockname()[1]
            try:
                with socket.socket() as second:
                    second.bind((NODES[1], port))
            except OSError:
                continue
            return port
    raise RuntimeError("no port free on both node addresses")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def http_json(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except (OSError, ValueError):
        return 0, None


async def until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await asyncio.to_thread(check):
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        await asyncio.sleep(0.05)


class Process:
    def __init__(self, command: list[str], env: dict[str, str] | None, log: Path) -> None:
        with log.open("ab") as out:
            self.popen = subprocess.Popen(
                command,
                env=env,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )
        self.log = log

    def kill(self) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()

    def tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])


async def test_a_player_resumes_through_nginx_after_their_node_is_killed(
    tmp_path: Path, postgres_url: str, redis_url: str, run_id: str
) -> None:
    nginx = nginx_binary()
    node_port, listen = shared_port(), free_port()
    env = services_environment(postgres_url, redis_url, f"simon-test-{run_id}-nginx")
    env.update(
        SIMON_SECRET=f"nginx-{uuid.uuid4().hex}",  # the same on both nodes
        SIMON_TRUSTED_PROXIES="127.0.0.1",
        SIMON_LIMITS_EXEMPT="",
        SIMON_MAX_CONNECTIONS_PER_ADDRESS="2",
    )
    processes: list[Process] = []
    async with StubDns({NODE_NAME: list(NODES)}) as dns:
        try:
            nodes = {}
            for host in NODES:  # one after the other: the first migrates the database
                node = Process(
                    [*server_command(), "--host", host, "--port", str(node_port)],
                    env,
                    tmp_path / f"node-{host}.log",
                )
                processes.append(node)
                nodes[host] = node

                def healthy(host: str = host) -> bool:
                    return http_json(f"http://{host}:{node_port}/healthz")[0] == 200

                await until(
                    healthy,
                    60,
                    f"node {host} starts:\n{node.tail()}",
                )
            conf = tmp_path / "nginx.conf"
            conf.write_text(templated(listen=listen, resolver=dns.port, node_port=node_port))
            arguments = ["-p", str(tmp_path), "-c", str(conf)]
            globals_ = f"daemon off; pid {tmp_path / 'nginx.pid'};"
            checked = subprocess.run(
                [nginx, "-t", *arguments, "-g", globals_], capture_output=True, text=True
            )
            assert checked.returncode == 0, checked.stderr
            balancer = Process([nginx, *arguments, "-g", globals_], None, tmp_path / "nginx.log")
            processes.append(balancer)
            through = f"http://127.0.0.1:{listen}"
            await until(
                lambda: http_json(f"{through}/healthz")[0] == 200,
                30,
                f"nginx answers:\n{balancer.tail()}",
            )
            assert dns.questions.get(NODE_NAME, 0) >= 1  # resolved at run time, by nginx
            with urllib.request.urlopen(f"http://{NODES[0]}:{node_port}/metrics") as direct:
                assert direct.status == 200 and b"simon_connections" in direct.read()
            try:
                urllib.request.urlopen(f"{through}/metrics", timeout=5)
                raise AssertionError("/metrics is served through the balancer")
            except urllib.error.HTTPError as error:
                assert error.code == 404

            url = f"ws://127.0.0.1:{listen}"
            rng = random.Random(12)
            async with Client.connect(url) as player:
                token = await registered(player, unique_name("lb"))
                ledger = await started(player, {"mode": "practice", "suits": 1})
                for _ in range(8):
                    await step(player, ledger, rng)
                serving = [
                    host
                    for host in NODES
                    if http_json(f"http://{host}:{node_port}/healthz")[1]["connections"] == 1
                ]
                assert len(serving) == 1, serving
                nodes[serving[0]].kill()
                with pytest.raises(ConnectionClosed):
                    async with asyncio.timeout(20):
                        while True:
                            await player.receive(timeout=20)
            survivor = next(host for host in NODES if host != serving[0])

            # Every reconnection lands on the surviving node (nginx skips the dead one).
            for _ in range(6):
                async with Client.connect(url) as again:
                    await signed_in(again, token)
            async with Client.connect(url) as again:
                again.count_ids_from(1000)  # on from the first connection's: resends by id
                await signed_in(again, token)
                state = await resume(again, ledger.game_id, ledger.seq)
                assert state["seq"] == ledger.seq and ledger.check(state) == [], state
                await step(again, ledger, rng)
                health = http_json(f"http://{survivor}:{node_port}/healthz")[1]
                assert health["connections"] == 1, health

            # The nodes count clients by the address nginx saw, whatever the client claims.
            spoof = {"additional_headers": {"X-Forwarded-For": "198.51.100.99"}}
            async with (
                Client.connect(url, local_addr=("127.0.0.5", 0), **spoof),
                Client.connect(url, local_addr=("127.0.0.5", 0), **spoof),
            ):
                with pytest.raises(InvalidStatus) as refused:
                    async with Client.connect(url, local_addr=("127.0.0.5", 0), **spoof):
                        pass
                assert refused.value.response.status_code == 429
                body = json.loads(refused.value.response.body)
                assert body["error"]["code"] == "too-many-connections", body
                async with Client.connect(url, local_addr=("127.0.0.6", 0)) as other:
                    assert (await other.request({"type": "ping"}))["type"] == "pong"

            # A page of the balancer's own origin opens a websocket (nginx forwards the
            # Host it was sent, port and all); another site's page is refused.
            async with Client.connect(url, origin=f"http://127.0.0.1:{listen}") as page:
                assert (await page.request({"type": "ping"}))["type"] == "pong"
            with pytest.raises(InvalidStatus) as refused:
                async with Client.connect(url, origin="http://evil.example"):
                    pass
            assert refused.value.response.status_code == 403
            assert json.loads(refused.value.response.body)["error"]["code"] == "bad-origin"
        finally:
            for process in reversed(processes):
                process.kill()
