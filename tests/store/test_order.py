"""The leaderboard's order, defined once: the tuple sort, the bytewise member text, and
what cannot be ranked."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.store import InvalidRequest, StoreError
from server.store.order import ResultKey

AT = datetime(2026, 3, 1, 12, tzinfo=UTC)

keys = st.builds(
    ResultKey,
    won=st.booleans(),
    removed=st.integers(0, 4),
    score=st.integers(-(2**31) + 1, 2**31 - 1),
    elapsed=st.floats(min_value=0, max_value=1e9, allow_nan=False),
    finished_at=st.datetimes(
        min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    id=st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=12),
)


BASE = ResultKey(won=True, removed=4, score=800, elapsed=300.0, finished_at=AT, id="g")
MEMBER = BASE.member()


def key(**changes: Any) -> ResultKey:
    return dataclasses.replace(BASE, **changes)


@given(a=keys, b=keys)
def test_the_member_text_sorts_bytewise_as_the_tuple_sorts(a: ResultKey, b: ResultKey) -> None:
    assert (a.sort_key() < b.sort_key()) == (a.member().encode() < b.member().encode())
    assert (a.sort_key() == b.sort_key()) == (a.member() == b.member())


@given(keys)
def test_a_member_reads_back_as_its_key(result: ResultKey) -> None:
    assert ResultKey.from_member(result.member()) == result


def test_each_term_orders_as_the_leaderboard_reads() -> None:
    better_first = [
        key(),  # a win, score 800
        key(score=700),  # a lower score
        key(score=700, elapsed=301.0),  # slower
        key(score=700, elapsed=301.0, finished_at=AT + timedelta(seconds=1)),  # later
        key(score=700, elapsed=301.0, finished_at=AT + timedelta(seconds=1), id="h"),  # the id
        key(won=False, removed=3, score=9999, elapsed=1.0),  # any win beats a loss
        key(won=False, removed=2, score=9999, elapsed=1.0),  # fewer runs removed
    ]
    shuffled = list(reversed(better_first))
    assert sorted(shuffled, key=ResultKey.sort_key) == better_first
    assert sorted(shuffled, key=ResultKey.member) == better_first


def test_the_key_of_a_row_reads_its_attributes() -> None:
    class Row:
        won, removed, score, elapsed, finished_at, id = True, 4, 820, 12.5, AT, "row"

    assert ResultKey.of(Row()) == key(score=820, elapsed=12.5, id="row")


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"elapsed": -1.0}, "finite and non-negative"),
        ({"elapsed": float("inf")}, "finite and non-negative"),
        ({"elapsed": float("nan")}, "finite and non-negative"),
        ({"score": 2**31}, "out of range"),
        ({"score": -(2**31)}, "out of range"),
        ({"finished_at": datetime(2026, 3, 1)}, "naive time"),
        ({"id": ""}, "empty game id"),
    ],
)
def test_what_cannot_be_ranked_is_an_invalid_request_of_the_store(
    changes: dict[str, Any], says: str
) -> None:
    with pytest.raises(InvalidRequest, match=says) as refused:
        key(**changes).member()
    assert isinstance(refused.value, StoreError)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "zz",
        key().member()[:-2],
        key().member().upper(),
        "g" * 60,
        key().member()[:8] + "x" * 56,
    ],
)
def test_a_text_no_key_made_is_an_invalid_request(text: str) -> None:
    with pytest.raises(InvalidRequest, match="not a leaderboard key"):
        ResultKey.from_member(text)
