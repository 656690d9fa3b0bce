"""One deal in play: the board, every action checked against the rules, undo and score.

>>> game = Game.from_code("SS1-S4-AAAAABD")
>>> game.score
500
>>> move = next(game.legal_moves())
>>> game.push(move) == move, game.moves, game.score
(True, 1, 499)
>>> game.undo() == move, game.moves
(True, 0)
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise
from typing import Final

from .board import Columns, board_text, check_cards, parse_board, removed_runs
from .cards import ACE, KING, RUN_LENGTH, Card, Suit, rank, suit
from .codes import DEALS_PER_SUIT_COUNT, GameCode
from .errors import IllegalMoveError, InvalidBoardError, InvalidSnapshotError
from .moves import COLUMNS, Move
from .rules import Rule

START_SCORE: Final = 500
MOVE_COST: Final = 1
RUN_BONUS: Final = 100
RUNS_PER_GAME: Final = 4
UNDO_LIMIT: Final = 100

_NO_SUIT: Final = 255  # in the undo record: the move removed no run
_UNDO_RECORD: Final = 3  # bytes: source << 4 | target, count, removed suit or _NO_SUIT


class Termination(Enum):
    WON = "won"
    NO_MOVES = "no-moves"


@dataclass(frozen=True, slots=True)
class Outcome:
    termination: Termination

    @property
    def won(self) -> bool:
        return self.termination is Termination.WON


class Game:
    """A deal in play. Columns are numbered 0 to 9 here and 1 to 10 in move text."""

    __slots__ = (
        "_columns",
        "_history",
        "_initial",
        "_initial_removed",
        "_removed",
        "code",
        "moves",
        "suits",
    )

    def __init__(
        self,
        columns: Sequence[Sequence[Card]],
        suits: int | None = None,
        *,
        code: GameCode | None = None,
    ) -> None:
        if len(columns) != COLUMNS:
            raise InvalidBoardError(f"a board has {COLUMNS} columns, not {len(columns)}")
        checked = check_cards(columns, suits)
        self._lay_out(columns, checked, code, removed_runs(columns, checked))

    def _lay_out(
        self,
        columns: Sequence[Sequence[Card]],
        suits: int,
        code: GameCode | None,
        removed: list[Suit],
    ) -> None:
        self.suits: int = suits
        self.code: GameCode | None = code
        # packed (a byte a card): a server holds one per game in play, and only restart reads it
        self._initial: bytes = _pack_columns(columns)
        self._columns: Columns = [list(c) for c in columns]
        self._removed: list[Suit] = removed
        self._initial_removed: tuple[Suit, ...] = tuple(removed)  # for restart
        self._history = bytearray()
        self.moves: int = 0

    # -- construction -------------------------------------------------------

    @classmethod
    def from_code(cls, code: GameCode | str) -> Game:
        if isinstance(code, str):
            code = GameCode.parse(code)
        # A code's deal is a whole pack by making, and no column of a deal holds the 13 cards
        # of a run: the checks a given board needs would cost more than the deal itself.
        game = cls.__new__(cls)
        game._lay_out(code.deal(), code.suits, code, [])
        return game

    @classmethod
    def from_board(cls, text: str, suits: int | None = None) -> Game:
        columns, suits = parse_board(text, suits)
        return cls(columns, suits)

    def copy(self) -> Game:
        clone = Game.__new__(Game)
        clone.suits, clone.code, clone._initial = self.suits, self.code, self._initial
        clone._initial_removed = self._initial_removed
        clone._columns = [list(c) for c in self._columns]
        clone._removed = list(self._removed)
        clone._history = bytearray(self._history)
        clone.moves = self.moves
        return clone

    # -- reading the position -------------------------------------------------

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(c) for c in self._columns)

    def column(self, index: int) -> Sequence[Card]:
        return tuple(self._columns[index])

    @property
    def removed(self) -> tuple[Suit, ...]:
        """The suits of the runs removed so far, in order."""
        return tuple(self._removed)

    @property
    def removed_count(self) -> int:
        """How many runs have been removed: ``len(game.removed)`` without the copy."""
        return len(self._removed)

    @property
    def score(self) -> int:
        return START_SCORE - MOVE_COST * self.moves + RUN_BONUS * len(self._removed)

    @property
    def is_won(self) -> bool:
        return not any(self._columns)

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def board_text(self) -> str:
        return board_text(self._columns)

    def outcome(self) -> Outcome | None:
        """``WON`` when no card is left, ``NO_MOVES`` when no legal move is left, else None."""
        if self.is_won:
            return Outcome(Termination.WON)
        if next(self.legal_moves(), None) is None:
            return Outcome(Termination.NO_MOVES)
        return None

    def movable_count(self, source: int) -> int:
        """How many cards at the end of a column form a one-suit descending run."""
        column = self._columns[source]
        if not column:
            return 0
        count = 1
        below = column[-1]
        for card in reversed(column[:-1]) if len(column) > 1 else ():
            if card != below + 1:  # one rank higher and the same suit: suit << 4 | rank
                break
            count += 1
            below = card
        return count

    # -- legal moves ----------------------------------------------------------

    def legal_moves(self) -> Iterator[Move]:
        """Every legal move, counts explicit, source by source and target by target."""
        columns = self._columns
        for source, column in enumerate(columns):
            if not column:
                continue
            run = self.movable_count(source)
            bottom_rank = rank(column[-1])
            for target, destination in enumerate(columns):
                if target == source:
                    continue
                if not destination:
                    yield from (Move(source, target, n) for n in range(1, run + 1))
                    continue
                count = rank(destination[-1]) - bottom_rank
                if 1 <= count <= run:
                    yield Move(source, target, count)

    def placements(self) -> list[list[list[int]]]:
        """Placement help for the whole board at once: for each column, for each group
        size from 1 card to its movable group, the columns that group may go to.

        ``placements()[s][n - 1]`` equals ``targets(s, n)``; a column with nothing to move
        has an empty list. A won game has nothing to move.

        >>> Game.from_code("SS1-S4-AAAAABD").placements()[:4]  # 3C of column 4 onto a 4
        [[[3]], [[]], [[3]], [[5, 9]]]
        """
        columns = self._columns
        empty = [t for t, column in enumerate(columns) if not column]
        by_top: dict[int, list[int]] = {}  # a top card's rank: the columns it tops
        for target, column in enumerate(columns):
            if column:
                by_top.setdefault(rank(column[-1]), []).append(target)
        found: list[list[list[int]]] = []
        for source, column in enumerate(columns):
            groups: list[list[int]] = []
            for count in range(1, self.movable_count(source) + 1):
                fits = by_top.get(rank(column[-count]) + 1, [])
                targets = sorted(t for t in (*fits, *empty) if t != source)
                groups.append(targets)
            found.append(groups)
        return found

    def targets(self, source: int, count: int | None = None) -> list[int]:
        """The columns a group from ``source`` may go to (placement help).

        With ``count`` the group is that many cards; without, any movable group.
        """
        self._check_source(source)
        if count is not None:
            self._check_group(source, count)
        targets = []
        for target in range(COLUMNS):
            if target == source:
                continue
            try:
                self.resolve(Move(source, target, count))
            except IllegalMoveError:
                continue
            targets.append(target)
        return targets

    def resolve(self, move: Move) -> Move:
        """The move with its count made explicit, or :class:`IllegalMoveError` with the rule."""
        if self.is_won:
            raise IllegalMoveError(Rule.GAME_OVER)
        source, target = move.source, move.target
        self._check_source(source)
        if not 0 <= target < COLUMNS:
            raise IllegalMoveError(Rule.NO_SUCH_COLUMN)
        if source == target:
            raise IllegalMoveError(Rule.SAME_COLUMN)
        column = self._columns[source]
        destination = self._columns[target]
        if move.count is not None:
            self._check_group(source, move.count)
            if destination:
                self._check_landing(column[-move.count], destination[-1])
            return move
        run = self.movable_count(source)
        if not destination:
            return Move(source, target, run)
        top = destination[-1]
        count = rank(top) - rank(column[-1])
        if 1 <= count <= run:
            return Move(source, target, count)
        if 1 <= count <= len(column) and rank(column[-count]) == rank(top) - 1:
            self._check_group(source, count)  # names why the card that would fit cannot move
        self._check_landing(column[-1], top)
        raise IllegalMoveError(Rule.NOT_ONE_HIGHER)  # the card that would fit is not there

    def is_legal(self, move: Move) -> bool:
        try:
            self.resolve(move)
        except IllegalMoveError:
            return False
        return True

    def _check_source(self, source: int) -> None:
        if not 0 <= source < COLUMNS:
            raise IllegalMoveError(Rule.NO_SUCH_COLUMN)
        if not self._columns[source]:
            raise IllegalMoveError(Rule.EMPTY_SOURCE)

    def _check_group(self, source: int, count: int) -> None:
        column = self._columns[source]
        if count < 1 or count > len(column):
            raise IllegalMoveError(Rule.TOO_MANY_CARDS)
        for index in range(len(column) - count, len(column) - 1):
            if column[index] != column[index + 1] + 1:  # not one higher of the same suit
                group = column[len(column) - count :]
                # a break in the ranks anywhere is named before a change of suit
                if any(rank(a) != rank(b) + 1 for a, b in pairwise(group)):
                    raise IllegalMoveError(Rule.NOT_DESCENDING)
                raise IllegalMoveError(Rule.NOT_ONE_SUIT)

    @staticmethod
    def _check_landing(head: Card, top: Card) -> None:
        if rank(top) == ACE:
            raise IllegalMoveError(Rule.ONTO_ACE)
        if rank(head) == KING:
            raise IllegalMoveError(Rule.KING_NEEDS_EMPTY)
        if rank(top) != rank(head) + 1:
            raise IllegalMoveError(Rule.NOT_ONE_HIGHER)

    # -- actions --------------------------------------------------------------

    def push(self, move: Move) -> Move:
        """Check and play a move; return it with its count explicit.

        A one-suit run K..A completed at the end of the target column is removed
        right after the move, and the undo of this move brings it back.
        """
        move = self.resolve(move)
        assert move.count is not None
        removed = self._apply(move.source, move.target, move.count)
        history = self._history
        history += bytes((move.source << 4 | move.target, move.count, removed))
        if len(history) > UNDO_LIMIT * _UNDO_RECORD:
            del history[:_UNDO_RECORD]
        return move

    def play(self, text: str) -> Move:
        """Push a move written in notation: ``game.play("3-7x2")``."""
        return self.push(Move.from_text(text))

    def _apply(self, source: int, target: int, count: int) -> int:
        """Move cards with no checks; return the suit of a removed run or ``_NO_SUIT``."""
        column = self._columns[source]
        destination = self._columns[target]
        destination += column[-count:]
        del column[-count:]
        self.moves += 1
        # A run can only complete on the target: nothing is ever put on an ace.
        if len(destination) >= RUN_LENGTH and rank(destination[-1]) == ACE:
            ace = destination[-1]
            run = destination[-RUN_LENGTH:]
            if all(card == ace + offset for offset, card in enumerate(reversed(run))):
                del destination[-RUN_LENGTH:]
                self._removed.append(suit(ace))
                return suit(ace)
        return _NO_SUIT

    def choose_auto_move(self, source: int, count: int | None = None) -> Move:
        """The double-click move for a group, not yet played.

        The group is ``count`` cards, or without it any movable group (longest
        first). It goes first onto a card of its own suit one rank higher, else
        into an empty column, else onto any card it may go on; ties go to the
        leftmost column. Moving a whole column into an empty one changes
        nothing, so that is never chosen.
        """
        if self.is_won:
            raise IllegalMoveError(Rule.GAME_OVER)
        self._check_source(source)
        column = self._columns[source]
        if count is not None:
            self._check_group(source, count)
            counts = [count]
        else:
            counts = list(range(self.movable_count(source), 0, -1))
        columns = self._columns
        others = [t for t in range(COLUMNS) if t != source]
        for n in counts:
            head = column[-n]
            for target in others:
                if columns[target] and columns[target][-1] == head + 1:  # same suit, one higher
                    return Move(source, target, n)
        for n in counts:
            if n < len(column):
                for target in others:
                    if not columns[target]:
                        return Move(source, target, n)
        for n in counts:
            head = column[-n]
            for target in others:
                if columns[target] and rank(columns[target][-1]) == rank(head) + 1:
                    return Move(source, target, n)
        raise IllegalMoveError(Rule.NO_TARGET)

    def auto_move(self, source: int, count: int | None = None) -> Move:
        return self.push(self.choose_auto_move(source, count))

    def undo(self) -> Move:
        """Take back the last move (of the last 100); return it."""
        history = self._history
        if not history:
            raise IllegalMoveError(Rule.NOTHING_TO_UNDO)
        columns, count, removed = history[-_UNDO_RECORD:]
        del history[-_UNDO_RECORD:]
        source, target = columns >> 4, columns & 15
        destination = self._columns[target]
        if removed != _NO_SUIT:
            self._removed.pop()
            destination.extend(removed << 4 | r for r in range(KING, ACE - 1, -1))
        self._columns[source] += destination[-count:]
        del destination[-count:]
        self.moves -= 1
        return Move(source, target, count)

    def restart(self) -> None:
        """Deal the same layout again: score, moves and undo history start over."""
        self._columns = _unpack_columns(memoryview(self._initial), 0)[0]
        self._removed = list(self._initial_removed)
        self._history.clear()
        self.moves = 0

    # -- persistence ------------------------------------------------------------

    def snapshot(self) -> bytes:
        """The whole game in a few hundred bytes; :meth:`restore` brings it back exactly.

        Layout (version 1): version, suits, code flag, code number (5 bytes), moves
        (4 bytes), the initial columns unless a code gives them, the current
        columns, the removed suits, the undo records.
        """
        parts = [
            struct.pack(">BBB", _SNAPSHOT_VERSION, self.suits, self.code is not None),
            (self.code.number if self.code else 0).to_bytes(5, "big"),
            struct.pack(">I", self.moves),
        ]
        if self.code is None:
            parts.append(self._initial)
        parts.append(_pack_columns(self._columns))
        parts.append(bytes((len(self._removed), *self._removed)))
        parts.append(bytes(self._history))
        return b"".join(parts)

    @classmethod
    def restore(cls, data: bytes) -> Game:
        try:
            return cls._restore(memoryview(bytes(data)))
        except (IndexError, ValueError, struct.error) as error:
            if isinstance(error, InvalidSnapshotError):
                raise
            raise InvalidSnapshotError(f"not a saved game: {error}") from None

    @classmethod
    def _restore(cls, data: memoryview) -> Game:
        version, suits, has_code = struct.unpack_from(">BBB", data, 0)
        if version != _SNAPSHOT_VERSION:
            raise InvalidSnapshotError(f"unknown snapshot version {version}")
        number = int.from_bytes(data[3:8], "big")
        (moves,) = struct.unpack_from(">I", data, 8)
        offset = 12
        code = GameCode(suits, number) if has_code else None
        if code is not None:
            initial = code.deal()
        else:
            initial, offset = _unpack_columns(data, offset)
        game = cls(initial, suits, code=code)
        game._columns, offset = _unpack_columns(data, offset)
        removed_count = data[offset]
        game._removed = list(data[offset + 1 : offset + 1 + removed_count])
        offset += 1 + removed_count
        history = bytearray(data[offset:])
        if len(history) % _UNDO_RECORD or len(history) > UNDO_LIMIT * _UNDO_RECORD:
            raise InvalidSnapshotError("not a saved game: bad undo records")
        for index in range(0, len(history), _UNDO_RECORD):
            pair, count, removed = history[index : index + _UNDO_RECORD]
            source, target = pair >> 4, pair & 15
            if max(source, target) >= COLUMNS or source == target or not count:
                raise InvalidSnapshotError("not a saved game: bad undo records")
            if removed != _NO_SUIT and removed > 3:
                raise InvalidSnapshotError("not a saved game: bad undo records")
        if len(history) // _UNDO_RECORD > moves:
            raise InvalidSnapshotError("not a saved game: more undo records than moves")
        game._history = history
        game.moves = moves
        if removed_runs(game._columns, suits) != sorted(game._removed):
            raise InvalidSnapshotError("not a saved game: cards and removed runs disagree")
        check_cards(game._columns, suits)
        _check_undo_records(game.copy())
        return game

    # -- comparison -------------------------------------------------------------

    def position_key(self) -> tuple[tuple[Card, ...], ...]:
        """The cards on the table, hashable: equal keys play alike."""
        return tuple(tuple(c) for c in self._columns)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            self.suits == other.suits
            and self.code == other.code
            and self._initial == other._initial
            and self._columns == other._columns
            and self._removed == other._removed
            and self._history == other._history
            and self.moves == other.moves
        )

    __hash__ = None  # type: ignore[assignment]  # a game changes; hash its position_key()

    def __repr__(self) -> str:
        where = str(self.code) if self.code else f"{self.suits}-suit board"
        return f"<Game {where} moves={self.moves} score={self.score} removed={len(self._removed)}>"


_SNAPSHOT_VERSION: Final = 1

#: Draws :func:`playable_code` makes before it gives up looking (about 1 one-suit deal in
#: 500 has no legal move: a hundred in a row do not happen).
PLAYABLE_DRAWS: Final = 100


def playable_code(suits: int, draw: Callable[[int], int]) -> GameCode:
    """A random deal of ``suits`` suits with a legal move to make: ``draw(n)`` gives a
    number below ``n`` (``secrets.randbelow``). About 1 one-suit deal in 500 has none, and a
    player dealt one could only ask for another."""
    for _ in range(PLAYABLE_DRAWS):
        code = GameCode(suits, draw(DEALS_PER_SUIT_COUNT))
        if next(Game.from_code(code).legal_moves(), None) is not None:
            break
    return code


def _check_undo_records(game: Game) -> None:
    """Undo every record on a copy: each must take back a move that fits the position."""
    while game._history:
        pair, count, removed = game._history[-_UNDO_RECORD:]
        target = game._columns[pair & 15]
        if removed != _NO_SUIT and (not game._removed or game._removed[-1] != removed):
            raise InvalidSnapshotError("not a saved game: undo records and removed runs disagree")
        available = len(target) + (RUN_LENGTH if removed != _NO_SUIT else 0)
        if count > available:
            raise InvalidSnapshotError("not a saved game: undo records do not fit the board")
        game.undo()


def _pack_columns(columns: Sequence[Sequence[Card]]) -> bytes:
    return bytes(len(c) for c in columns) + bytes(card for c in columns for card in c)


def _unpack_columns(data: memoryview, offset: int) -> tuple[Columns, int]:
    sizes = data[offset : offset + COLUMNS]
    if len(sizes) != COLUMNS:
        raise InvalidSnapshotError("not a saved game: truncated")
    offset += COLUMNS
    columns: Columns = []
    for size in sizes:
        column = list(data[offset : offset + size])
        if len(column) != size:
            raise InvalidSnapshotError("not a saved game: truncated")
        columns.append(column)
        offset += size
    return columns, offset
