"""The client's errors, under one root: each is one line for the player.

::

    ClientError              one line for the player, exit status 1
    ├── UsageError           bad input from the user: exit status 2
    │   └── ArgumentsError   options argparse could not read (carries the usage line)
    ├── NetworkError         the server cannot be reached or the connection dropped
    ├── ServerError          the server refused a request: its code, message and rule
    ├── NoAccountError       the command needs an account on this server, and none is kept
    ├── BotAccountNeeded     bot mode on the ranked daily from an account that is no bot
    └── NoTerminalError      a full-screen command with no terminal to draw on

The engine's refusals (``EngineError``, a ValueError) reach the client's code too, for its
previews and offline commands; they are caught by that name where they are expected.
"""

from __future__ import annotations

from server.protocol import Error


class ClientError(Exception):
    """A failure to report to the player in one line."""


class UsageError(ClientError):
    """Bad input from the user: printed as one line, exit status 2."""


class ArgumentsError(UsageError):
    """Options argparse could not read; carries the usage line of the command."""

    def __init__(self, message: str, usage: str) -> None:
        super().__init__(message)
        self.usage = usage


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


class NoAccountError(ClientError):
    """The command needs an account on this server and there is none."""


class BotAccountNeeded(ClientError):
    """Bot mode on the ranked daily from an account that is not a declared bot."""


class NoTerminalError(ClientError):
    """A full-screen command (a game, a race) run with no terminal on its standard input
    and output: refused before anything reaches the server."""
