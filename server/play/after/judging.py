"""A game's positions judged against the solver, in a review worker's process: along the
path the game took, whether each position could still be won and in how many moves
(:func:`judge_path`). Imported by the workers: the engine and the solver, nothing of the
event loop's.

Positions seen before are not solved again; a move along the solver's line takes the
line's rest; any position after a move from a lost one is lost too; each deal's table of
known positions (:func:`known_of`) and the searches its reviews made (:func:`searches_of`)
are shared by the reviews of its games.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Final

from server.engine import EngineError, Game, Move
from server.engine.actions import RESTART, UNDO, apply

from .progress import reporter
from .segments import Shared

if TYPE_CHECKING:
    from server.solver.known import Known

#: States the solver may expand for one position (the review's time budget caps it too).
POSITION_NODES: Final = 60_000
#: Whether a review takes a won position's distance from the deal's table (one move off
#: a known line: one move longer) instead of searching: 1.7-2.6 times quicker, but 13-23%
#: of the distances come out longer (mostly 1-3 moves) than a search finds
#: (docs/performance.md, "Solver reviews of games"). Lost positions are always taken.
REUSE_DISTANCES: Final = False
#: Deals whose table of known positions the review worker keeps (the least recent go first).
KNOWN_DEALS: Final = 16
#: Searches a deal's reviews keep for the next review of the deal (about 350 bytes each).
KEPT_SEARCHES: Final = 5_000
#: One position's verdict in the worker: (winnable, distance), None where unknown.
Judged = tuple[bool | None, int | None]


class DealSearches:
    """The searches the reviews of one deal made, by exact position (a search of a position
    finds the same again, its line in the same columns), kept compact: the columns as bytes,
    the line's moves three bytes each. A search that spent its states without an answer is
    kept too (unknown: the same states give the same), not one cut short by the clock.
    Bounded: past ``most`` nothing new is kept."""

    def __init__(self, most: int = KEPT_SEARCHES) -> None:
        self.most = most
        self._found: dict[bytes, tuple[bool | None, int | None, bytes]] = {}

    def __len__(self) -> int:
        return len(self._found)

    def get(self, game: Game) -> tuple[bool | None, int | None, tuple[Move, ...]] | None:
        found = self._found.get(_table_key(game))
        if found is None:
            return None
        winnable, distance, line = found
        return winnable, distance, tuple(Move(*line[at : at + 3]) for at in range(0, len(line), 3))

    def keep(
        self, game: Game, winnable: bool | None, distance: int | None, line: Sequence[Move]
    ) -> None:
        if len(self._found) < self.most:
            moves = bytes(number for move in line for number in _raw(move))
            self._found[_table_key(game)] = (winnable, distance, moves)


class _DealTables:
    """What the review worker keeps of a deal for its next review."""

    __slots__ = ("known", "searches")

    def __init__(self, known: Known) -> None:
        self.known = known
        self.searches = DealSearches()


#: In the worker process: by deal, its positions known won or lost (a
#: :class:`~server.solver.known.Known`) and the searches made, shared by the reviews of the
#: deal's games.
_known_by_deal: OrderedDict[str, _DealTables] = OrderedDict()


def _tables_of(code: str) -> _DealTables:
    from server.solver.known import Known

    tables = _known_by_deal.get(code)
    if tables is None:
        tables = _known_by_deal[code] = _DealTables(Known())
    _known_by_deal.move_to_end(code)
    while len(_known_by_deal) > KNOWN_DEALS:
        _known_by_deal.popitem(last=False)
    return tables


def known_of(code: str) -> Known:
    """The deal's table of known positions in this process (made empty if none)."""
    return _tables_of(code).known


def searches_of(code: str) -> DealSearches:
    """The searches this process made reviewing the deal's games (none if none)."""
    return _tables_of(code).searches


#: A position's key (:meth:`~server.engine.Game.position_key`).
PositionKey = tuple[tuple[int, ...], ...]
#: What a search of a position found: winnable (None: unknown), its distance, and the
#: solver's line from there as (source, target, count), by the position's key.
Searched = dict[PositionKey, tuple[bool | None, int | None, tuple[tuple[int, int, int], ...]]]


def judge_path(
    code: str,
    actions: Sequence[str],
    seconds: float,
    line: Sequence[str] = (),
    reuse: bool = REUSE_DISTANCES,
    progress: Callable[[int], None] | None = None,
    *,
    searched: Searched | None = None,
    part: tuple[int, int] | None = None,
    made: Searched | None = None,
    claim: Callable[[int], bool] | None = None,
) -> list[Judged]:
    """In the worker: the verdict of the deal and of the position after each action that
    changes the board (``actions`` as the log holds them, ends left out), within ``seconds``
    of CPU in all. ``line``, a daily's own solver line (its par), is the deal's verdict if
    it wins the deal: the deal is the costliest position to solve, and its distance is then
    the par itself.

    Positions seen before are not solved again; a move along the solver's line takes the
    line's rest; any position after a move from a lost one is lost too; a won one is known
    at once (distance 0), once the budget is spent too. The deal's table of known positions
    (:func:`known_of`, kept across the reviews of the deal's games) answers a position
    known there, or one move from a known won one (won, one move longer), before any search;
    every solution found puts each position along it in the table. Without ``reuse``, the
    table answers lost positions only (see :data:`REUSE_DISTANCES`).

    ``progress`` is told the count of positions judged after each one (the deal first).
    ``searched``: positions searched already (by :func:`judge_part`), taken as a search
    would find them. ``part``: only positions ``first`` to ``last`` (excluded) are judged,
    ``first`` searched afresh; ``made`` is given every search made; ``claim``, asked before
    each position after the first (by its index), may end the part there (its rest taken by
    another worker: :mod:`.segments`).
    """
    from server.solver import Verdict, solve

    deadline = time.process_time() + seconds
    game = Game.from_code(code)
    table = known_of(code)
    searches = searches_of(code)
    known: dict[object, tuple[bool | None, int | None, tuple[Move, ...]]] = {}
    first, last = part if part is not None else (0, len(actions) + 1)
    given = _winning_line(game, line) if first == 0 else None
    if given is not None:
        known[game.position_key()] = (True, len(given), given)
    if given is not None and reuse:
        table.won_along(_columns(game), [_raw(move) for move in given])
    for action in actions[: max(0, first - 1)]:
        apply(game, action)  # to the part's first position, judged by another part

    def solved() -> tuple[bool | None, int | None, tuple[Move, ...]]:
        if game.is_won:  # known without the solver, whatever budget is left
            return True, 0, ()
        columns = _columns(game)
        found = table.verdict(columns, reuse)
        if found is not None:
            return found[0], found[1], ()
        key = game.position_key()
        if searched is not None and key in searched:
            winnable, distance, moves = searched[key]
            return winnable, distance, tuple(Move(*move) for move in moves)
        kept = searches.get(game)
        if kept is None:
            left = deadline - time.process_time()
            if left <= 0:
                return None, None, ()
            solution = solve(game.copy(), max_nodes=POSITION_NODES, max_seconds=left)
            if solution.verdict is Verdict.UNKNOWN:
                if solution.nodes <= POSITION_NODES:
                    return None, None, ()  # the clock's: another budget may find more
                kept = (None, None, ())
            else:
                won = solution.verdict is Verdict.WINNABLE
                kept = (won, len(solution.moves) if won else None, tuple(solution.moves))
                if won and reuse:  # else nothing reads it
                    table.won_along(columns, [_raw(move) for move in solution.moves])
                elif not won:
                    table.lost(columns)
            searches.keep(game, *kept)
        if made is not None:
            made[key] = (kept[0], kept[1], tuple(map(_raw, kept[2])))
        return kept

    def keep(verdict: tuple[bool | None, int | None, tuple[Move, ...]]) -> None:
        if verdict[0] is True and verdict[1] is not None and reuse:
            table.won(_columns(game), verdict[1])
        elif verdict[0] is False:
            table.lost(_columns(game))

    if first > 0:
        apply(game, actions[first - 1])
    current = known.get(game.position_key()) or solved()
    known[game.position_key()] = current
    keep(current)
    found: list[Judged] = [(current[0], current[1])]
    if progress is not None:
        progress(len(found))
    for index, action in enumerate(actions[first : last - 1], first + 1):
        if claim is not None and not claim(index):
            break
        played: Move | None = None
        if action not in (UNDO, RESTART):
            played = Move.from_text(action)
        apply(game, action)
        key = game.position_key()
        previous = current
        if key in known:
            current = known[key]
        elif played is not None and previous[0] is False:
            current = (False, None, ())
        elif played is not None and previous[2] and _same(previous[2][0], played):
            rest = previous[2][1:]
            current = (True, len(rest), rest)
        else:
            current = solved()
        known[key] = current
        keep(current)
        found.append((current[0], current[1]))
        if progress is not None:
            progress(len(found))
    return found


def judge_part(
    code: str,
    actions: Sequence[str],
    seconds: float,
    line: Sequence[str],
    part: tuple[int, int],
    segments: str | None,
    meter: str | None,
    slot: int,
) -> Searched:
    """In one of the review workers: the searches that judging positions ``part`` of the
    game makes, its first position searched afresh (a review split between the workers:
    the whole game is then walked with them made, :func:`judge_searched`). With the
    review's ``segments`` (:mod:`.segments`), the part may end early, its rest taken by the
    other worker, and once done this worker takes half of what the other has left, and so
    on. Its count of positions judged goes to ``slot`` of the meter named ``meter``."""
    started = time.process_time()
    made: Searched = {}
    report = reporter(meter, slot)
    shared = Shared.of(segments, slot)
    segment = slot
    judged = 0
    while True:
        found = judge_path(
            code,
            actions,
            seconds - (time.process_time() - started),
            line,
            progress=None if report is None else partial(_after, report, judged),
            part=part,
            made=made,
            claim=None if shared is None else shared.claim(segment),
        )
        judged += len(found)
        taken = None if shared is None else shared.take()
        if taken is None:
            return made
        segment, first, last = taken
        part = (first, last)


def position_costs(code: str, actions: Sequence[str]) -> list[int]:
    """Each position's weight in a review's cost, the deal first: its fewest moves left to
    a win (:func:`~server.solver.api.lower_bound`) plus one."""
    from server.solver.api import lower_bound

    game = Game.from_code(code)
    costs = [lower_bound(_columns(game)) + 1]
    for action in actions:
        apply(game, action)
        costs.append(lower_bound(_columns(game)) + 1)
    return costs


def part_cuts(code: str, actions: Sequence[str], parts: int) -> list[int]:
    """Where a review judged in ``parts`` parts is cut (``[0, ..., positions]``): at equal
    shares of the positions' cost (:func:`position_costs`). A search costs about as many beam
    layers as its solution has moves, so the early positions weigh most: cut at equal
    counts, the first part took about three times the second."""
    weights = position_costs(code, actions)
    positions = len(weights)
    parts = max(1, min(parts, positions))
    total = sum(weights)
    cuts = [0]
    reached = index = 0
    for share in range(1, parts):
        while reached * parts < total * share:
            reached += weights[index]
            index += 1
        # each part at least one position, and room for the parts after it
        cuts.append(max(cuts[-1] + 1, min(index, positions - (parts - share))))
    cuts.append(positions)
    return cuts


def judge_searched(
    code: str, actions: Sequence[str], seconds: float, line: Sequence[str], searched: Searched
) -> list[Judged]:
    """In a review worker: :func:`judge_path` of the whole game with the parts' searches
    made (:func:`judge_part`): the verdicts and distances of a review judged in one go (a
    search finds the same in any process), the walk searching only the positions it needs
    that no part searched (a part guesses where the walk will search from its own start)."""
    return judge_path(code, actions, seconds, line, searched=searched)


def judge_ahead(
    code: str, actions: Sequence[str], seconds: float, line: Sequence[str] = ()
) -> tuple[list[Judged], float]:
    """In the worker: :func:`judge_path`, and the CPU seconds it took (the budget of the
    reviews made ahead is counted in CPU, not in the wall time a niced worker waits)."""
    started = time.process_time()
    judged = judge_path(code, actions, seconds, line)
    return judged, time.process_time() - started


def judge_path_reporting(
    code: str, actions: Sequence[str], seconds: float, line: Sequence[str], meter: str | None
) -> list[Judged]:
    """In the worker: :func:`judge_path`, its count of positions judged written to the
    shared :class:`~.progress.ProgressMeter` named ``meter`` as it goes."""
    return judge_path(code, actions, seconds, line, progress=reporter(meter))


def _after(report: Callable[[int], None], before: int, count: int) -> None:
    """``count`` positions judged after ``before`` others, reported as one count."""
    report(before + count)


def _columns(game: Game) -> tuple[bytes, ...]:
    return tuple(bytes(column) for column in game.columns)


def _table_key(game: Game) -> bytes:
    """The columns in their order as one bytes (a card is below 64: 255 parts them)."""
    return b"\xff".join(bytes(column) for column in game.columns)


def _raw(move: Move) -> tuple[int, int, int]:
    """The solver's form of a move (a count left implicit matches none of its moves)."""
    return move.source, move.target, move.count or 0


def _winning_line(game: Game, line: Sequence[str]) -> tuple[Move, ...] | None:
    """``line``'s moves if they win ``game`` from where it stands (played on a copy)."""
    if not line:
        return None
    trial = game.copy()
    try:
        moves = tuple(trial.play(text) for text in line)
    except EngineError:
        return None
    return moves if trial.is_won else None


def _same(line: Move, played: Move) -> bool:
    return (line.source, line.target, line.count) == (played.source, played.target, played.count)
