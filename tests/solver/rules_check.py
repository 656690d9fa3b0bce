"""An independent, minimal statement of the rules (RULES.md) to check solutions against.

Written from the rules text alone, not from the engine's move logic: cards are
(rank, suit) pairs here, columns plain lists, and every check is spelt out.
"""

from __future__ import annotations

import itertools

RANKS = "A23456789TJQK"


def card(text: str) -> tuple[int, str]:
    return RANKS.index(text[0]) + 1, text[1]


def parse(board_text: str) -> list[list[tuple[int, str]]]:
    lines = board_text.splitlines()
    lines += [""] * (10 - len(lines))
    return [[card(token) for token in line.split()] for line in lines]


def play(board_text: str, moves: list[str]) -> bool:
    """Play ``FROM-TOxN`` moves; raise AssertionError on an illegal one; return whether won."""
    columns = parse(board_text)
    for text in moves:
        route, count_text = text.split("x")
        source, target = (int(part) - 1 for part in route.split("-"))
        count = int(count_text)
        assert source != target, text
        column, destination = columns[source], columns[target]
        assert 1 <= count <= len(column), f"{text}: not that many cards"
        group = column[-count:]
        for upper, lower in itertools.pairwise(group):
            assert lower[0] == upper[0] - 1, f"{text}: group not descending"
            assert lower[1] == upper[1], f"{text}: group not one suit"
        if destination:
            assert destination[-1][0] == group[0][0] + 1, f"{text}: target not one higher"
        del column[-count:]
        destination.extend(group)
        tail = destination[-13:]
        if len(tail) == 13 and all(c == (13 - i, tail[0][1]) for i, c in enumerate(tail)):
            del destination[-13:]  # a whole one-suit run K..A leaves the table
    return not any(columns)
