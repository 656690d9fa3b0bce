"""deploy/nginx.conf run by Debian's nginx in front of real nodes, for benches (the soak).

The file is templated for addresses only, the way tests/deploy/test_nginx.py does it: its
listening address, its resolver (a :class:`~tests.support.dns.StubDns` answering the nodes'
shared name) and the nodes' port::

    async with StubDns({NODE_NAME: list(NODES)}) as dns:
        balancer = Nginx(folder, listen=port, resolver=dns.port, node_port=node_port)
        balancer.start()              # `nginx -t` first; raises with its output if refused
        ...                           # ws://127.0.0.1:<port>
        balancer.stop()

nginx runs in the foreground (``daemon off``) in a process group of its own, its prefix,
pid file, logs and temporary files in ``folder``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
#: The nodes' addresses, and the name the stub DNS gives both (a Docker network alias).
NODES = ("127.0.0.2", "127.0.0.3")
NODE_NAME = "simon-node"


def nginx_binary() -> str | None:
    """Debian's nginx (``/usr/sbin`` is often not on a user's PATH), or None."""
    found = shutil.which("nginx")
    if found is None and Path("/usr/sbin/nginx").exists():
        found = "/usr/sbin/nginx"
    return found


def templated(*, listen: int, resolver: int, node_port: int, host: str = "127.0.0.1") -> str:
    """deploy/nginx.conf with these addresses; each replaced text must be there once."""
    text = NGINX_CONF.read_text()
    for old, new in (
        ("listen 8080 ", f"listen {host}:{listen} "),
        ("resolver 127.0.0.11 ", f"resolver 127.0.0.1:{resolver} "),
        ("http://$simon_nodes:8765;", f"http://$simon_nodes:{node_port};"),
    ):
        if text.count(old) != 1:
            raise RuntimeError(f"deploy/nginx.conf no longer has {old!r} once")
        text = text.replace(old, new)
    return text


def shared_port(hosts: tuple[str, ...] = NODES) -> int:
    """A port free on every one of ``hosts``."""
    for _ in range(50):
        with socket.socket() as first:
            first.bind((hosts[0], 0))
            port = int(first.getsockname()[1])
            try:
                for host in hosts[1:]:
                    with socket.socket() as other:
                        other.bind((host, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no port free on all of {hosts}")


class Nginx:
    """One nginx running the templated deploy/nginx.conf from ``folder``."""

    def __init__(self, folder: Path, *, listen: int, resolver: int, node_port: int) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (Debian package nginx)")
        self.binary = binary
        self.folder = folder
        self.listen = listen
        self.conf = folder / "nginx.conf"
        self.conf.write_text(templated(listen=listen, resolver=resolver, node_port=node_port))
        self.log = folder / "nginx.log"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def arguments(self) -> list[str]:
        return [
            "-p", str(self.folder), "-c", str(self.conf),
            "-g", f"daemon off; pid {self.folder / 'nginx.pid'};",
        ]  # fmt: skip

    def start(self) -> None:
        checked = subprocess.run(
            [self.binary, "-t", *self.arguments], capture_output=True, text=True, check=False
        )
        if checked.returncode != 0:
            raise RuntimeError(f"nginx -t refused the configuration:\n{checked.stderr}")
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [self.binary, *self.arguments],
                cwd=self.folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
            )

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def stop(self) -> None:
        """Stop nginx (a quick TERM, then KILL for the whole group)."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(10)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


__all__ = ["NGINX_CONF", "NODES", "NODE_NAME", "Nginx", "nginx_binary", "shared_port", "templated"]
