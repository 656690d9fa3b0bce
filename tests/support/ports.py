"""The port a server process listens on, read from the system once it listens.

A port found free and then handed to a new process may be taken by another process in
between (tests and benchmarks run side by side, each starting servers), and the caller
would then talk to someone else's server. So servers are started on port 0 and the port
the kernel gave them is read here (Linux: the process's sockets in ``/proc/net/tcp``)::

    process = subprocess.Popen([..., "--port", "0"])
    port = await wait_for_port(process)
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

_LISTEN = "0A"  # a socket's state in /proc/net/tcp: listening


def listening_ports(pid: int) -> list[int]:
    """The TCP ports process ``pid`` listens on, lowest first (none if it has gone)."""
    inodes = set()
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return []
    for descriptor in descriptors:
        try:
            target = os.readlink(descriptor)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == _LISTEN and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)


def port_of(process: subprocess.Popen[bytes] | subprocess.Popen[str], seconds: float) -> int:
    """The port ``process`` listens on, once it does; RuntimeError if it exits first or
    does not listen within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        ports = listening_ports(process.pid)
        if ports:
            return ports[0]
        if process.poll() is not None:
            raise RuntimeError(
                f"the server exited (status {process.returncode}) before it listened"
            )
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not listen within {seconds:g} s")
        time.sleep(0.05)  # a subprocess starting: real time


async def wait_for_port(
    process: subprocess.Popen[bytes] | subprocess.Popen[str], seconds: float
) -> int:
    """:func:`port_of`, off the event loop."""
    return await asyncio.to_thread(port_of, process, seconds)
