"""The network layer's errors, under one root.

::

    NetError
    ├── BadQuery         an HTTP request's path or parameters the server cannot take: answered
    │                    400 ``invalid_message`` with the message
    └── CannotListen     the server cannot listen where it was told (an OSError too: its
                         errno and strerror say why); ``simon-server`` says so in a line

The errors of the layers below keep their own roots (``PlayError``, ``StoreError``,
``BusError``, ``EngineError``, ``PageError``); what they tell a client is looked up once, in
:func:`server.play.errors.refusal_of`.
"""

from __future__ import annotations

import errno


class NetError(Exception):
    """The root of what the network layer raises."""


class BadQuery(NetError):
    """An HTTP request's path or parameters the server cannot take; the message says which."""


class CannotListen(NetError, OSError):
    """The server cannot listen where it was told: the port is taken, the address is not
    this machine's, ... The message says where and why, in a line."""

    def __init__(self, host: str, port: int, error: OSError) -> None:
        if error.errno == errno.EADDRINUSE:
            why = "the port is in use (is another server running there?)"
        else:
            why = error.strerror or str(error)
        super().__init__(error.errno, f"cannot listen on {host or '*'}:{port}: {why}")
