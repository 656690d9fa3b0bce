"""A race room's deal: a fresh random code of its suit count, proven winnable before its
countdown ends. Only the solver's verdict is wanted (not a short solution), which takes
milliseconds at the median (docs/performance.md); a code it cannot prove within its
budget is passed over for another.
"""

from __future__ import annotations

import logging
import secrets
from typing import Final

from server.engine import GameCode
from server.engine.codes import DEALS_PER_SUIT_COUNT
from server.play.daily.deals import Proof, Prover
from server.play.errors import NoFreshDeal

log = logging.getLogger(__name__)

#: Codes tried before a room's start is refused (about 95% of random deals are winnable).
ATTEMPTS: Final = 20
#: The solver's budget for one candidate's verdict, in positions.
VERDICT_NODES: Final = 200_000


def verdict_of(code: str, max_seconds: float) -> Proof:
    """The solver's verdict alone on one code (in a worker: it is CPU work)."""
    from server.engine import Game
    from server.solver import Verdict, solve

    solution = solve(
        Game.from_code(code), max_nodes=VERDICT_NODES, max_seconds=max_seconds, shorten=False
    )
    if solution.verdict is Verdict.WINNABLE:
        return Proof(True)
    return Proof(False if solution.verdict is Verdict.UNWINNABLE else None)


class DealPicker:
    """Draws random codes of a suit count until the prover says one is winnable."""

    def __init__(self, prover: Prover, *, attempts: int = ATTEMPTS) -> None:
        self._prover = prover
        self._attempts = attempts

    async def fresh(self, suits: int) -> str:
        for _ in range(self._attempts):
            code = str(GameCode(suits, secrets.randbelow(DEALS_PER_SUIT_COUNT)))
            proof = await self._prover(code)
            if proof.winnable:
                return code
            log.info("race deal: passed over %s (winnable: %s)", code, proof.winnable)
        raise NoFreshDeal(f"no {suits}-suit deal proven winnable in {self._attempts} tries")
