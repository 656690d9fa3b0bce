"""Friends and leagues (docs/client.md, "Friends and leagues"): ``simon follow``,
``unfollow``, ``block``, ``unblock``, ``following``, the friends' board of ``simon
leaderboard --friends``, and ``simon league ...``."""

from __future__ import annotations

import argparse

from . import friends, leagues


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    friends.register(subparsers)
    leagues.register(subparsers)


__all__ = ["register"]
