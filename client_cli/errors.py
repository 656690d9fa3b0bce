"""The client's errors, under one root: each is one line for the player.

::

    ClientError              one line for the player, exit status 1
    ├── UsageError           bad input from the user: exit status 2
    ├── NetworkError         the server cannot be reached or the connection dropped
    └── ServerError          the server refused a request: its code, message and rule
"""

from __future__ import annotations

from server.protocol import Error


class ClientError(Exception):
    """A failure to report to the player in one line."""


class UsageError(ClientError):
    """Bad input from the user: printed as one line, exit status 2."""


class NetworkError(ClientError):
    """The server cannot be reached, or the connection dropped."""


class ServerError(ClientError):
    """The server answered a request with an ``error``."""

    def __init__(self, error: Error) -> None:
        self.error = error
        super().__init__(error.message)

    @property
    def code(self) -> str:
        return str(self.error.code)
