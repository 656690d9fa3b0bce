"""The leaderboard module's pieces: cursors, rows, and the order the test fake shares."""

from __future__ import annotations

import dataclasses
import random
import uuid
from datetime import timedelta
from typing import Any

import pytest

from server.store import BadCursor, GameRecord, InvalidRequest, Result, Store, StoreError
from server.store.leaderboard import (
    decode_cursor,
    encode_cursor,
    leaderboard_entry,
    result_key,
)
from server.store.order import ResultKey
from tests.support.fakes import FakeStore
from tests.support.store import T0, finished_daily, new_player, unique_day

RESULT = Result(
    won=True, resigned=False, moves=88, score=812, removed=4, elapsed=301.5, finished_at=T0
)


def _record(game_id: str = "g1", player_name: str = "alice") -> GameRecord:
    return GameRecord(
        id=game_id, player_id=1, player_name=player_name, mode="daily", code="SS1-S1-AAAAAAB",
        suits=1, day=T0.date(), bot=False, started_at=T0, finished_at=None, won=None,
        resigned=None, moves=None, score=None, removed=None, elapsed=None,
    )  # fmt: skip


def test_a_cursor_holds_a_rows_whole_key() -> None:
    key = result_key("g-7", RESULT)
    assert decode_cursor(encode_cursor(key)) == key
    assert key == ResultKey(True, 4, 812, 301.5, T0, "g-7")


@pytest.mark.parametrize("cursor", ["", "!!", "bm90IGEga2V5", "é", "3"])
def test_a_cursor_the_store_did_not_make_is_a_bad_cursor(cursor: str) -> None:
    with pytest.raises(BadCursor) as raised:
        decode_cursor(cursor)
    assert isinstance(raised.value, StoreError) and isinstance(raised.value, ValueError)


def test_a_result_that_cannot_be_ranked_is_an_invalid_request() -> None:
    for wrong in (
        RESULT.model_copy(update={"elapsed": -1.0}),
        RESULT.model_copy(update={"score": 2**31}),
    ):
        with pytest.raises(InvalidRequest):
            result_key("g", wrong)


def test_an_entry_reads_a_game_record_as_it_reads_a_query_row() -> None:
    finished = dataclasses.replace(_record(), **dict(RESULT))
    entry = leaderboard_entry(3, finished)
    assert (entry.rank, entry.player, entry.score, entry.moves, entry.elapsed) == (
        3, "alice", 812, 88, 301.5,
    )  # fmt: skip
    assert (entry.won, entry.removed, entry.finished_at, entry.bot) == (True, 4, T0, False)


async def test_the_fake_store_pages_and_ranks_as_the_store_does(store: Store) -> None:
    """The same results in the real store and in the tests' fake give the same pages, the
    same cursors and the same ranks: the fake imports the order, the cursors and the rows."""
    fake = FakeStore()
    day = unique_day()
    rng = random.Random(10)
    players = []
    for n in range(11):
        name = f"same-{uuid.uuid4().hex[:8]}"
        players.append(name)
        result: dict[str, Any] = {
            "score": rng.choice([851, 860, 470, 690]),
            "removed": rng.choice([4, 4, 3, 1]),
            "elapsed": rng.choice([10.0, 20.5, 0.0]),
            "finished_at": T0 + timedelta(seconds=rng.randrange(3)),
            "game_id": f"g{n:02d}-{day}",
        }
        for target in (store, fake):
            await finished_daily(target, await new_player(target, name), day, **result)
    cursors: list[str | None] = [None]
    while True:
        real = await store.leaderboard_page(day=day, suits=1, limit=4, after=cursors[-1])
        assert await fake.leaderboard_page(day=day, suits=1, limit=4, after=cursors[-1]) == real
        if real.next is None:
            break
        cursors.append(real.next)
    assert len(cursors) == 3
    for name in players:
        real_player = await store.player_by_name(name)
        fake_player = await fake.player_by_name(name)
        assert real_player is not None and fake_player is not None
        for around in (0, 2):
            assert await fake.rank_of(
                day=day, suits=1, player_id=fake_player.id, around=around
            ) == await store.rank_of(day=day, suits=1, player_id=real_player.id, around=around)
    with pytest.raises(BadCursor):
        await fake.leaderboard_page(day=day, suits=1, limit=4, after="3")
    await fake.close()
