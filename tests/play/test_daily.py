"""The daily schedule: the same deals from the same secret, proven once, stored."""

from __future__ import annotations

from datetime import date

from server.play.daily import DailySchedule, Proof, candidate_codes
from tests.support.fakes import FakeStore

DAY = date(2026, 3, 1)


async def test_the_first_winnable_candidate_is_the_deal_and_is_stored_once() -> None:
    store = FakeStore()
    asked: list[str] = []
    first_two = list(candidate_codes("s", DAY, 2))[:2]

    async def prover(code: str) -> Proof:
        asked.append(code)
        return Proof(code != first_two[0], 33)  # the first candidate is not winnable

    schedule = DailySchedule(store, secret="s", prover=prover)  # type: ignore[arg-type]
    deal = await schedule.deal(DAY, 2)
    assert deal.code == first_two[1] and deal.par == 33
    assert asked == first_two
    again = DailySchedule(store, secret="s", prover=prover)  # type: ignore[arg-type]
    assert (await again.deal(DAY, 2)).code == deal.code  # from the store: no new proof
    assert asked == first_two
    await schedule.close()
    await again.close()


async def test_another_secret_deals_other_codes() -> None:
    assert list(candidate_codes("a", DAY, 4))[:3] != list(candidate_codes("b", DAY, 4))[:3]
    assert list(candidate_codes("a", DAY, 4))[:3] == list(candidate_codes("a", DAY, 4))[:3]
