"""The listening socket: an address that cannot be had, and the descriptor limit (one log
line per interval however many accepts or sends fail; a listener that rests the rest of a
burst)."""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from typing import Any

import pytest

from server.edge import EdgeError
from server.net.errors import CannotListen
from server.net.listen import (
    ACCEPT_OUT_OF_RESOURCES,
    SEND_FAILED,
    AcceptErrors,
    Listener,
    SendFailures,
    bind,
    listen,
)


class Ticker:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_port_in_use_cannot_be_listened_on_and_says_so_in_a_line() -> None:
    taken = listen("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        with pytest.raises(CannotListen) as refused:
            bind("127.0.0.1", port)
    finally:
        taken.close()
    error = refused.value
    assert isinstance(error, EdgeError) and isinstance(error, OSError)
    assert error.errno == errno.EADDRINUSE
    assert error.strerror == (
        f"cannot listen on 127.0.0.1:{port}: the port is in use (is another server running there?)"
    )


def test_an_address_that_is_not_this_machines_cannot_be_listened_on() -> None:
    with pytest.raises(CannotListen) as refused:
        bind("192.0.2.1", 0)  # TEST-NET-1: never a local address
    assert refused.value.strerror is not None
    assert refused.value.strerror.startswith("cannot listen on 192.0.2.1:0: ")


def test_a_bound_listener_refuses_until_it_listens_then_accepts() -> None:
    bound = bind("127.0.0.1", 0)
    try:
        port = bound.getsockname()[1]
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
        listener = listen("127.0.0.1", port, bound=bound)
        assert listener is bound
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass
    finally:
        bound.close()


def test_one_log_line_per_interval_however_many_accepts_fail() -> None:
    clock = Ticker()
    others: list[dict[str, Any]] = []
    handler = AcceptErrors(60.0, monotonic=clock, previous=lambda loop, ctx: others.append(ctx))
    loop = asyncio.new_event_loop()
    try:
        context = {"message": ACCEPT_OUT_OF_RESOURCES, "exception": OSError(errno.EMFILE, "x")}
        for _ in range(140_699):  # the finding: that many in 30 s
            clock.now += 30 / 140_699
            handler(loop, context)
        assert handler.lines == 1 and handler.total == 140_699
        clock.now += 31
        handler(loop, context)
        assert handler.lines == 2 and handler.failures == 0
        handler(loop, {"message": "something else"})
        assert others == [{"message": "something else"}]
    finally:
        loop.close()


def test_asyncio_send_failure_warnings_are_one_line_per_interval() -> None:
    clock = Ticker()
    failures = SendFailures(60.0, monotonic=clock)

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("asyncio", logging.WARNING, __file__, 1, message, None, None)

    passed = [failures.filter(record(SEND_FAILED)) for _ in range(37_444)]  # the finding
    assert passed.count(True) == 1 and failures.total == 37_444
    clock.now += 61
    again = record(SEND_FAILED)
    assert failures.filter(again)
    assert "37444 such writes" in again.getMessage()  # the 37,443 held back, and this one
    assert failures.filter(record("something else"))


def test_after_running_out_of_descriptors_the_listener_rests_the_rest_of_the_burst() -> None:
    class Exhausted(Listener):
        calls = 0

        def _accept(self) -> Any:
            type(self).calls += 1
            raise OSError(errno.EMFILE, "Too many open files")

    clock = Ticker()
    listener = Exhausted(2, monotonic=clock)  # AF_INET
    try:
        with pytest.raises(OSError) as first:
            listener.accept()
        assert first.value.errno == errno.EMFILE
        for _ in range(99):  # the rest of asyncio's burst of 100: nothing tried, nothing logged
            with pytest.raises(BlockingIOError):
                listener.accept()
        assert Exhausted.calls == 1
        clock.now += 1.0  # asyncio tries again a second later: a real accept
        with pytest.raises(OSError) as again:
            listener.accept()
        assert again.value.errno == errno.EMFILE and Exhausted.calls == 2
    finally:
        listener.close()
