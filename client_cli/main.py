"""The ``simon`` command: play, race and browse leaderboards; offline tools too.

``--server URL`` and ``--json`` may come before the command or after it (the
command's own wins). With ``--json`` every outcome is one JSON object on
standard output, failures included: ``{"error": {"code": ..., "message": ...}}``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from server.i18n import Language

from . import (
    account_data,
    accounts,
    after,
    boards,
    credentials,
    offline,
    play,
    race,
    social,
    solve,
)
from .config import Config
from .errors import (
    ArgumentsError,
    BotAccountNeeded,
    ClientError,
    NetworkError,
    NoAccountError,
    NoTerminalError,
    ServerError,
    UsageError,
)
from .online import add_server_argument, print_json
from .words import _, language_code, start


class Parser(argparse.ArgumentParser):
    """An argument parser that raises instead of exiting, so ``--json`` can report it."""

    def error(self, message: str) -> NoReturn:
        raise ArgumentsError(message, self.format_usage())


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="simon", description=_("Simple Simon Online: the terminal client."))
    add_server_argument(parser, shared=True)
    parser.add_argument("--json", action="store_true", help=_("print JSON (commands that can)"))
    parser.add_argument(
        "--lang",
        type=language_code,
        metavar=_("CODE"),
        help=_("the language: en, pl or ru (default: $LC_ALL, $LC_MESSAGES or $LANG)"),
    )
    # Any: argparse's action is generic in the parser class, and ours is a subclass
    subparsers: Any = parser.add_subparsers(dest="command", required=True, metavar=_("COMMAND"))
    offline.register(subparsers)
    solve.register(subparsers)
    play.register(subparsers)
    race.register(subparsers)
    accounts.register(subparsers)
    credentials.register(subparsers)
    account_data.register(subparsers)
    boards.register(subparsers)
    social.register(subparsers)
    after.register(subparsers)
    return parser


def error_code(error: Exception) -> str:
    """A stable code for a failure, for ``--json``."""
    if isinstance(error, UsageError):
        return "usage"
    if isinstance(error, ServerError):
        return error.code
    if isinstance(error, NoAccountError):
        return "no-account"
    if isinstance(error, BotAccountNeeded):
        return "bot-account-needed"
    if isinstance(error, NetworkError):
        return "network"
    if isinstance(error, NoTerminalError):
        return "no-terminal"
    return "client"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``simon ARGV``; return its exit status. A reader that goes away (``simon ... |
    head``) ends it quietly with status 1, as Python's docs advise for SIGPIPE."""
    try:
        status = _run(argv)
        sys.stdout.flush()  # here, so a closed pipe is caught here, not at exit
    except BrokenPipeError:
        # Nothing more can be written: point stdout at devnull so the flush at exit is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status


def _run(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    start(argv, account=_account_language())  # before the parser: its help and errors too
    parser = build_parser()
    json_wanted = "--json" in argv  # known before parsing, for errors in the options too
    try:
        args = parser.parse_args(argv)
        json_wanted = bool(getattr(args, "json", False))
        return int(args.handler(args))
    except ClientError as error:
        status = 2 if isinstance(error, UsageError) else 1
        if json_wanted:
            print_json({"error": {"code": error_code(error), "message": str(error)}})
        else:
            if isinstance(error, ArgumentsError):
                print(error.usage, end="", file=sys.stderr)
            print(f"simon: {error}", file=sys.stderr)
        return status
    except KeyboardInterrupt:
        return 130


def _account_language() -> Language | None:
    """The language of the account last signed in, kept in the config folder (an unreadable
    file is said by the command that needs it)."""
    try:
        return Config().account_language
    except (ClientError, OSError):
        return None


if __name__ == "__main__":
    sys.exit(main())
