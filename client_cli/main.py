"""The ``simon`` command: play, race and browse leaderboards; offline tools too."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import accounts, boards, offline, play, solve
from .connection import ClientError
from .offline import UsageError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simon", description="Simple Simon Online: the terminal client."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    offline.register(subparsers)
    solve.register(subparsers)
    play.register(subparsers)
    accounts.register(subparsers)
    boards.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except UsageError as error:
        print(f"simon: {error}", file=sys.stderr)
        return 2
    except ClientError as error:
        print(f"simon: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
