"""Search: can a deal be won, and in how few moves (the daily deal's par).

>>> from server.engine import Game
>>> solution = solve(Game.from_code("SS1-S1-AAAAABD"))
>>> solution.verdict, len(solution.moves) > 0
(<Verdict.WINNABLE: 'winnable'>, True)

Pure: no I/O, no threads; the only clock is the one :func:`solve` is given
(``time.perf_counter`` by default) for its seconds budget.
"""

from .api import DEFAULT_MAX_NODES, DEFAULT_MAX_SECONDS, Solution, Verdict, solve

__all__ = ["DEFAULT_MAX_NODES", "DEFAULT_MAX_SECONDS", "Solution", "Verdict", "solve"]
