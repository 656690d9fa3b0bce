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
    removed=st.integers(min_value=0, max_value=4),
    score=st.integers(min_value=-(2**31) + 1, max_value=2**31 - 1),  # -score fits an int4 too
    elapsed=st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False),
    finished_at=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    id=st.text(alphabet="0123456789abcdefABCDEF-_", min_size=1, max_size=64),
)


def _by_the_rules(key: ResultKey) -> tuple[object, ...]:
    """The order as docs/protocol.md states it, written out here independently of ORDER."""
    if key.won:
        return (0, -key.score, key.elapsed, key.finished_at, key.id)
    return (1, -key.removed, -key.score, key.elapsed, key.finished_at, key.id)


def _win(key: ResultKey) -> ResultKey:
    """A won game has removed all four runs."""
    return dataclasses.replace(key, removed=4) if key.won else key


@given(st.lists(keys.map(_win), min_size=2, max_size=20))
def test_sort_keys_and_members_sort_like_the_stated_order(rows: list[ResultKey]) -> None:
    expected = sorted(rows, key=_by_the_rules)
    assert [_by_the_rules(k) for k in sorted(rows, key=ResultKey.sort_key)] == [
        _by_the_rules(k) for k in expected
    ]
    assert [_by_the_rules(k) for k in sorted(rows, key=ResultKey.member)] == [
        _by_the_rules(k) for k in expected
    ]


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


def test_wins_first_then_runs_removed_then_score() -> None:
    def key(won: bool, removed: int, score: int, elapsed: float, name: str) -> ResultKey:
        return ResultKey(won, removed, score, elapsed, AT, name)

    rows = [
        key(False, 3, 700, 10.0, "three-runs"),
        key(True, 4, 800, 90.0, "slow-win"),
        key(False, 1, 720, 5.0, "one-run-high-score"),
        key(True, 4, 800, 60.0, "fast-win"),
        key(False, 3, 750, 20.0, "three-runs-better"),
        key(True, 4, 810, 300.0, "best-win"),
    ]
    order = ["best-win", "fast-win", "slow-win", "three-runs-better", "three-runs"]
    order.append("one-run-high-score")
    assert [k.id for k in sorted(rows, key=ResultKey.sort_key)] == order
    assert [k.id for k in sorted(rows, key=ResultKey.member)] == order


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


def test_negative_zero_elapsed_is_zero() -> None:
    assert key(elapsed=-0.0).member() == key(elapsed=0.0).member()


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
