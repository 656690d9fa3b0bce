"""The network layer's errors, kinds of the server's edge root (:mod:`server.edge`, shared
with the pages and the command line).

::

    EdgeError
    ├── BadQuery         an HTTP request's path or parameters the server cannot take: answered
    │                    400 ``invalid_message`` with the message
    └── CannotListen     the server cannot listen where it was told (an OSError too: its
                         errno and strerror say why); ``simon-server`` says so in a line

The errors of the layers below keep their own roots (``PlayError``, ``StoreError``,
``BusError``, ``EngineError``); what they tell a client is looked up once, in
:func:`server.play.errors.refusal_of`.
"""

from __future__ import annotations

import errno

from server.edge import EdgeError


class BadQuery(EdgeError):
    """An HTTP request's path or parameters the server cannot take; the message says which."""


class CannotListen(EdgeError, OSError):
    """The server cannot listen where it was told: the port is taken, the address is not
    this machine's, ... The message says where and why, in a line."""

    def __init__(self, host: str, port: int, error: OSError) -> None:
        if error.errno == errno.EADDRINUSE:
            why = "the port is in use (is another server running there?)"
        else:
            why = error.strerror or str(error)
        super().__init__(error.errno, f"cannot listen on {host or '*'}:{port}: {why}")
