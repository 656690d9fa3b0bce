"""The command line's bounded numbers: read, checked, and refused with a reason."""

from __future__ import annotations

import argparse

import pytest

from client_cli.arguments import bounded
from client_cli.errors import ArgumentsError
from client_cli.main import build_parser


def test_a_bounded_number_is_read_checked_and_refused_with_its_rule() -> None:
    racers = bounded(int, noun="a whole number", rule="2 to 10", accept=lambda v: 2 <= v <= 10)
    assert racers("4") == 4
    with pytest.raises(argparse.ArgumentTypeError, match=r"'4\.5' is not a whole number"):
        racers("4.5")
    with pytest.raises(argparse.ArgumentTypeError, match=r"^2 to 10$"):
        racers("11")


@pytest.mark.parametrize(
    ("argv", "refusal"),
    [
        (["race", "new", "--capacity", "1"], "a room holds 2 to 10 racers"),
        (["race", "new", "--minutes", "soon"], "'soon' is not a number of minutes"),
        (["play", "--pace", "-1"], "give 0 to 3600 seconds"),
        (["leaderboard", "--top", "0"], "give a positive number"),
        (["history", "--limit", "0"], "^argument --limit: give 1 to 100$"),
        (["history", "--limit", "101"], "^argument --limit: give 1 to 100$"),
        (["leaderboard", "--around", "26"], "^argument --around: give 0 to 25$"),
    ],
)
def test_the_commands_refuse_numbers_out_of_range(argv: list[str], refusal: str) -> None:
    with pytest.raises(ArgumentsError, match=refusal):
        build_parser().parse_args(argv)
