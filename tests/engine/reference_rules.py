"""A second, independent reading of docs/rules.md, used to check the engine.

Nothing here comes from ``server.engine``: cards are ``(rank, suit letter)`` pairs,
columns are plain lists, and every rule is written again from the rules page, as
directly as possible rather than as fast as possible. Where the engine and this
module disagree on a move, one of them misreads the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

RANKS = "A23456789TJQK"
SUITS = "SHDC"
COLUMNS = 10
RUN = 13
START, PER_MOVE, PER_RUN = 500, 1, 100

Card = tuple[int, str]


class NotationError(ValueError):
    """Text that is not a move in FROM-TO or FROM-TOxN notation."""


def read_card(token: str) -> Card:
    """``"TH"`` as ``(10, "H")``."""
    token = token.upper()
    if token.startswith("10"):
        token = "T" + token[2:]
    if len(token) != 2 or token[0] not in RANKS or token[1] not in SUITS:
        raise ValueError(f"not a card: {token!r}")
    return RANKS.index(token[0]) + 1, token[1]


def write_card(card: Card) -> str:
    return RANKS[card[0] - 1] + card[1]


def read_move(text: str) -> tuple[int, int, int | None]:
    """``"3-7x2"`` as 0-based ``(2, 6, 2)``; ``"3-7"`` as ``(2, 6, None)``."""
    match = re.fullmatch(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*(?:[xX]\s*([0-9]+))?\s*", text)
    if match is None:
        raise NotationError(text)
    source, target = int(match[1]), int(match[2])
    count = None if match[3] is None else int(match[3])
    if not (1 <= source <= COLUMNS and 1 <= target <= COLUMNS) or count == 0:
        raise NotationError(text)
    return source - 1, target - 1, count


def is_one_suit_run(cards: list[Card]) -> bool:
    """Descending consecutive ranks, all of one suit (a single card is one)."""
    return all(
        upper[0] == lower[0] + 1 and upper[1] == lower[1] for upper, lower in pairwise(cards)
    )


def is_full_run(cards: list[Card]) -> bool:
    """King down to ace, all of one suit."""
    return len(cards) == RUN and cards[0][0] == RUN and is_one_suit_run(cards)


def group_faults(cards: list[Card]) -> set[str]:
    """The rule codes a group breaks by its own shape."""
    faults = set()
    for upper, lower in pairwise(cards):
        if upper[0] != lower[0] + 1:
            faults.add("group-not-descending")
        if upper[1] != lower[1]:
            faults.add("group-not-one-suit")
    return faults


@dataclass
class Verdict:
    """Whether a move is legal, how many cards it moves, and which rules a refusal may name."""

    legal: bool
    count: int = 0
    rules: set[str] = field(default_factory=set)


@dataclass
class ReferenceGame:
    columns: list[list[Card]]
    moves: int = 0
    removed: list[str] = field(default_factory=list)

    @classmethod
    def from_text(cls, text: str, runs_removed: int = 0) -> ReferenceGame:
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        lines += [""] * (COLUMNS - len(lines))
        assert len(lines) == COLUMNS
        game = cls([[read_card(token) for token in line.split()] for line in lines])
        game.removed = ["?"] * runs_removed
        return game

    def text(self) -> str:
        return "".join(" ".join(write_card(c) for c in column) + "\n" for column in self.columns)

    @property
    def score(self) -> int:
        return START - PER_MOVE * self.moves + PER_RUN * len(self.removed)

    @property
    def won(self) -> bool:
        return all(not column for column in self.columns)

    def movable(self, source: int) -> int:
        """The longest one-suit descending group at the end of a column."""
        column = self.columns[source]
        longest = 0
        for n in range(1, len(column) + 1):
            if is_one_suit_run(column[-n:]):
                longest = n
        return longest

    def judge(self, source: int, target: int, count: int | None) -> Verdict:
        """Judge a move in 0-based columns; ``count`` None means the implied count."""
        if self.won:
            return Verdict(False, rules={"game-over"})
        if not (0 <= source < COLUMNS and 0 <= target < COLUMNS):
            return Verdict(False, rules={"no-such-column"})
        column, destination = self.columns[source], self.columns[target]
        if not column:
            return Verdict(False, rules={"empty-source"})
        if source == target:
            return Verdict(False, rules={"same-column"})
        if count is not None:
            if count > len(column):
                return Verdict(False, rules={"too-many-cards"})
            group = column[-count:]
            rules = group_faults(group)
            if destination:
                rules |= landing_faults(group[0], destination[-1])
            return Verdict(not rules, count, rules)
        if not destination:
            return Verdict(True, self.movable(source))
        top = destination[-1]
        run = self.movable(source)
        for n in range(1, run + 1):
            if column[-n][0] == top[0] - 1:
                return Verdict(True, n)
        # Refused: it may name the landing, or the shape of the group that would
        # have to move for a card one rank lower than the target (one that is there) to
        # go on it; never a group whose deepest card would not fit either.
        rules = {"target-not-one-higher"}
        if top[0] == 1:
            rules.add("nothing-on-an-ace")
        if column[-1][0] == RUN:
            rules.add("king-needs-empty-column")
        for n in range(1, len(column) + 1):
            if column[-n][0] == top[0] - 1:
                rules |= group_faults(column[-n:])
        return Verdict(False, rules=rules)

    def legal_moves(self) -> list[tuple[int, int, int]]:
        """Every legal move with its count, from the rules alone."""
        return [
            (source, target, count)
            for source in range(COLUMNS)
            for target in range(COLUMNS)
            for count in range(1, len(self.columns[source]) + 1)
            if self.judge(source, target, count).legal
        ]

    def play(self, source: int, target: int, count: int | None) -> Verdict:
        """Play a move if legal, then take away any one-suit K..A now at a column's end."""
        verdict = self.judge(source, target, count)
        if not verdict.legal:
            return verdict
        column, destination = self.columns[source], self.columns[target]
        destination.extend(column[-verdict.count :])
        del column[-verdict.count :]
        self.moves += 1
        for changed in (target, source):
            cards = self.columns[changed]
            while (
                len(cards) >= RUN
                and [c[0] for c in cards[-RUN:]] == list(range(RUN, 0, -1))
                and len({c[1] for c in cards[-RUN:]}) == 1
            ):
                self.removed.append(cards[-1][1])
                del cards[-RUN:]
        return verdict

    def play_text(self, text: str) -> Verdict:
        return self.play(*read_move(text))


def landing_faults(head: Card, top: Card) -> set[str]:
    """The rule codes broken by putting a group headed by ``head`` on ``top``."""
    faults = set()
    if top[0] == 1:
        faults.add("nothing-on-an-ace")
    if head[0] == RUN:
        faults.add("king-needs-empty-column")
    if top[0] != head[0] + 1:
        faults.add("target-not-one-higher")
    return faults


def play_to_end(board_text: str, moves: list[str]) -> bool:
    """Play ``moves`` from a board by these rules alone; return whether the game is won.

    An illegal move raises AssertionError naming the rules it breaks.
    """
    game = ReferenceGame.from_text(board_text)
    for text in moves:
        verdict = game.play_text(text)
        assert verdict.legal, f"{text}: refused ({', '.join(sorted(verdict.rules))})"
    return game.won
