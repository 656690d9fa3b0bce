"""The port a server process listens on, read from the system (tests/support/ports.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tests.support.ports import listening_ports, port_of


def test_the_ports_a_process_listens_on_and_not_those_it_only_holds() -> None:
    with socket.socket() as listening, socket.socket() as bound:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        bound.bind(("127.0.0.1", 0))  # bound, not listening
        port = listening.getsockname()[1]
        ports = listening_ports(os.getpid())
        assert port in ports
        assert bound.getsockname()[1] not in ports
    assert port not in listening_ports(os.getpid())  # closed


def test_the_port_of_a_process_once_it_listens_or_why_not() -> None:
    listener = (
        "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
        "print(s.getsockname()[1], flush=True); sys.stdin.read()"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", listener], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        said = int(process.stdout.readline())
        assert port_of(process, 30) == said
    finally:
        process.communicate("")
    quitter = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(RuntimeError, match=r"exited \(status 3\) before it listened"):
        port_of(quitter, 30)
