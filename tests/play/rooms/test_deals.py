"""A race room's deal: a fresh random code of its suit count, proven winnable."""

from __future__ import annotations

import pytest

from server.engine import Game, GameCode
from server.play.daily.deals import Proof
from server.play.errors import NoFreshDeal
from server.play.rooms.deals import DealPicker, verdict_of
from server.solver import Verdict, solve


@pytest.mark.parametrize("suits", [1, 2, 4])
async def test_a_fresh_deal_is_of_its_suit_count_and_winnable(suits: int) -> None:
    async def prove(code: str) -> Proof:
        return verdict_of(code, 10.0)

    picker = DealPicker(prove)
    codes = {await picker.fresh(suits) for _ in range(3)}
    assert len(codes) == 3  # fresh every time
    for code in codes:
        assert GameCode.parse(code).suits == suits
        assert solve(Game.from_code(code), shorten=False).verdict is Verdict.WINNABLE


async def test_codes_the_solver_cannot_prove_are_passed_over() -> None:
    tried: list[str] = []

    async def prove(code: str) -> Proof:
        tried.append(code)
        verdicts: dict[int, bool | None] = {1: None, 2: False}  # unknown, then unwinnable
        return Proof(verdicts.get(len(tried), True))

    assert await DealPicker(prove).fresh(2) == tried[2]
    assert len(tried) == 3


async def test_no_deal_after_the_last_attempt() -> None:
    async def prove(code: str) -> Proof:
        return Proof(False)

    with pytest.raises(NoFreshDeal):
        await DealPicker(prove, attempts=4).fresh(1)


def test_the_verdict_alone_tells_unwinnable_from_winnable() -> None:
    assert verdict_of("SS1-S1-AAAAABB", 10.0).winnable is False  # proven: no way to win
    winnable = verdict_of("SS1-S1-AAAAABD", 10.0)
    assert winnable.winnable is True and winnable.moves == ()  # no solution is kept
