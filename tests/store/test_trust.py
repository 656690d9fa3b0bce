"""Trust at the top of the board, on both databases: the day's leaders enter the review
queue by themselves and show as verified once cleared, and an account whose evidence across
days is suspect has its top results held."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time, timedelta

import pytest

from server.bus import InProcessBus
from server.kinds import DayBoard
from server.play.clock import ManualClock
from server.play.fairplay.screening import ACCOUNT_REASON
from server.play.hub import Hub
from server.store import (
    CLEARED,
    CONFIRMED,
    HELD,
    PASSED,
    QUEUED,
    FairPlayRecord,
    PlayerRecord,
    Result,
    Store,
    TrustRecord,
)
from tests.support.fakes import fixed_prover
from tests.support.servers import HOLD_NOTHING
from tests.support.store import entries, finished_daily, new_player, start, unique_day

CODE = "SS1-S1-AAAAAAB"


def noon(day: date) -> datetime:
    return datetime.combine(day, time(12), UTC)


@pytest.fixture
async def hub(store: Store) -> AsyncIterator[Hub]:
    """A node on the test's store that holds nothing for one game's evidence, with every
    human daily on the public board from the first day."""
    thresholds = dataclasses.replace(HOLD_NOTHING, max_suspicion=0.5)
    node = Hub(
        store=store,
        bus=InProcessBus(),
        clock=ManualClock(noon(unique_day())),
        secret="s",
        prover=fixed_prover(par=10),
        thresholds=thresholds,
    )
    yield node
    await node.close()


def status_of(screening: FairPlayRecord | None) -> str:
    """The status of a screening that must exist."""
    assert screening is not None
    return screening.status


async def screened(
    store: Store, hub: Hub, player: PlayerRecord, day: date, score: int, undos: int = 0
) -> str:
    """A won daily of ``player`` (its score as given) screened as the server does: its id."""
    await store.put_daily_deal(day=day, suits=1, code=CODE, par=10, solution=["9-10"])
    at = noon(day)
    game = await start(store, player, day=day, started_at=at - timedelta(minutes=5))
    actions = ["1-2", *(["undo", "1-2"] * undos), "won"]
    result = Result(
        won=True,
        resigned=False,
        moves=900 - score,
        score=score,
        removed=4,
        elapsed=300.0,
        finished_at=at,
    )
    await store.append(entries(game, actions, at=at), result)
    assert await hub.screening.screen(game.id) is not None
    return game.id


async def test_the_days_leaders_enter_the_queue_and_show_verified_once_cleared(
    store: Store, hub: Hub
) -> None:
    day = unique_day()
    players = [await new_player(store) for _ in range(5)]
    # screened in this order: each of the first four is in the top 3 when it is placed
    scores = [650, 600, 550, 700, 520]
    ids = {
        score: await screened(store, hub, player, day, score)
        for player, score in zip(players, scores, strict=True)
    }
    status = {score: status_of(await store.screening(ids[score])) for score in scores}
    assert status == {650: QUEUED, 600: QUEUED, 550: QUEUED, 700: QUEUED, 520: PASSED}
    queue = {game.id: screening for game, screening in await store.review_queue()}
    assert set(ids.values()) - set(queue) == {ids[520]}
    # queued leaders stay on the board, unverified until a reviewer clears them
    board = await store.leaderboard_page(DayBoard(day, 1), limit=10)
    assert [row.score for row in board.rows] == [700, 650, 600, 550, 520]
    assert not any(row.verified for row in board.rows)
    assert [d for d, _, _ in await store.audit(ids[700])] == [QUEUED]

    await store.review(game_id=ids[700], decision=CLEARED, note="a clean game", at=noon(day))
    for score in (650, 600):
        await store.review(game_id=ids[score], decision=CONFIRMED, note=None, at=noon(day))
    # the board's end of day: whoever moved up into the top 3 is queued too
    assert await hub.screening.queue_leaders_of(day) == [ids[520]]
    board = await store.leaderboard_page(DayBoard(day, 1), limit=10)
    assert [(row.score, row.verified) for row in board.rows] == [
        (700, True),
        (550, False),
        (520, False),
    ]
    cleared = await store.get_game(ids[700])
    assert cleared is not None and cleared.verified
    assert [d for d, _, _ in await store.audit(ids[650])] == [QUEUED, CONFIRMED]
    assert ids[700] not in {game.id for game, _ in await store.review_queue()}


async def test_an_account_that_jumps_to_the_top_has_its_top_results_held(
    store: Store, hub: Hub
) -> None:
    """Three days in the middle of a board of ten, then the top: the fourth day's result is
    held for the account's evidence; an account at the top from its first day is not."""
    first = unique_day()
    days = [first + timedelta(days=n) for n in range(4)]
    for day in days:
        for score in range(510, 700, 20):  # ten others a day
            await finished_daily(
                store, await new_player(store), day, score=score, elapsed=300.0,
                finished_at=noon(day) - timedelta(hours=1),
            )  # fmt: skip
    jumper, leader = await new_player(store), await new_player(store)
    for day in days[:3]:
        game = await screened(store, hub, jumper, day, 600, undos=2)
        assert status_of(await store.screening(game)) != HELD
        game = await screened(store, hub, leader, day, 800, undos=2)
        assert status_of(await store.screening(game)) != HELD
    jumped = await store.screening(await screened(store, hub, jumper, days[3], 790))
    assert jumped is not None and jumped.status == HELD
    assert len(jumped.reasons) == 1 and jumped.reasons[0].startswith(ACCOUNT_REASON)
    assert "jumped to the top" in jumped.reasons[0]
    assert jumped.evidence["percentile"] == 1.0
    steady = await store.screening(await screened(store, hub, leader, days[3], 800, undos=2))
    assert steady is not None and steady.status != HELD
    trust = await store.trust(player_ids=[jumper.id, leader.id])
    assert trust[jumper.id].suspicion >= 0.5 and "jump" in trust[jumper.id].evidence["signals"]
    assert trust[leader.id].suspicion < 0.5
    # rank 7 of 12 on its first days (the leader is ahead too): 5 of the 11 others beaten
    assert [p for _, p in trust[jumper.id].evidence["percentiles"]] == [0.4545] * 3 + [1.0]


async def test_an_accounts_evidence_written_twice_at_once_keeps_one_row(store: Store) -> None:
    """Two screenings of one account's dailies may write its evidence at the same time (two
    nodes, or a screening and the catch-up): neither fails, and one of them stands whole."""
    player = await new_player(store)
    at = noon(unique_day())
    records = [
        TrustRecord(player.id, suspicion, [f"reason {n}"], {"n": n}, at + timedelta(seconds=n))
        for n, suspicion in enumerate((0.3, 1.2, 0.6, 0.0))
    ]
    await asyncio.gather(*(store.put_trust(record) for record in records))
    stored = (await store.trust(player_ids=[player.id]))[player.id]
    assert stored in records
    await store.put_trust(records[0])
    assert (await store.trust(player_ids=[player.id]))[player.id] == records[0]
