"""The gate's limiters alone, on a clock moved by hand: token buckets, budgets per address,
the sign-in back-off, one log line per offender, and tables that stay bounded."""

from __future__ import annotations

import logging

import pytest

from server.net.limiters import AuthBackoff, Bucket, Offenders, RateTable, _Table


class Ticker:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_a_burst_then_one_token_per_refill() -> None:
    bucket = Bucket(3, 2.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(0.0) == pytest.approx(0.5)  # nothing taken: half a second to a token
    assert bucket.take(0.25) == pytest.approx(0.25)
    assert bucket.take(0.5) == 0.0 and not bucket.at_rest(0.5)
    assert bucket.at_rest(10.0) and bucket.tokens == 3.0  # refilled, never past its capacity


def test_a_heavy_take_costs_several_tokens_and_never_more_than_the_bucket_holds() -> None:
    bucket = Bucket(10, 1.0, now=0.0)
    assert bucket.take(0.0, 4) == 0.0 and bucket.take(0.0, 4) == 0.0
    assert bucket.take(0.0, 4) == pytest.approx(2.0)  # two tokens left: nothing taken
    assert bucket.tokens == pytest.approx(2.0)
    assert bucket.take(100.0, 50) == 0.0 and bucket.tokens == 0.0  # all of it, not refused


def test_a_bucket_ignores_a_clock_that_goes_back() -> None:
    bucket = Bucket(1, 1.0, now=5.0)
    assert bucket.take(5.0) == 0.0
    assert bucket.take(4.0) == pytest.approx(1.0)  # no tokens for time that did not pass


def test_failed_sign_ins_lock_an_address_out_for_longer_and_longer() -> None:
    clock = Ticker()
    backoff = AuthBackoff(free=3, base=1.0, most=8.0, memory=900.0, monotonic=clock)
    lockouts = [backoff.failed("a") for _ in range(3)]
    assert lockouts == [0.0, 0.0, 0.0] and backoff.wait("a") == 0.0
    lockouts = []
    for _ in range(6):
        lockouts.append(backoff.failed("a"))
        assert backoff.wait("a") == lockouts[-1]
        clock.now += lockouts[-1]
        assert backoff.wait("a") == 0.0
    assert lockouts == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert backoff.wait("b") == 0.0  # another address is not touched
    clock.now += 901  # a quiet quarter of an hour: forgiven
    assert backoff.failed("a") == 0.0


def test_a_rate_table_allows_a_budget_per_window_and_each_address_its_own() -> None:
    clock = Ticker()
    table = RateTable(5, 3600.0, clock)
    assert [table.take("a") for _ in range(5)] == [0.0] * 5
    wait = table.take("a")
    assert wait == pytest.approx(720.0)  # one new account every 12 minutes
    assert table.take("b") == 0.0
    clock.now += 719
    assert table.take("a") > 0
    clock.now += 1
    assert table.take("a") == 0.0


def test_a_rate_table_takes_back_what_did_not_happen_but_never_past_its_budget() -> None:
    clock = Ticker()
    table = RateTable(2, 60.0, clock)
    assert [table.take("a"), table.take("a")] == [0.0, 0.0]
    assert table.take("a") > 0.0
    table.give_back("a")
    assert table.take("a") == 0.0 and table.take("a") > 0.0  # one place, given back once
    table.give_back("unknown")  # never taken: nothing to give back
    table.give_back("b")
    table.give_back("b")
    assert [table.take("b"), table.take("b"), table.take("b") > 0.0] == [0.0, 0.0, True]


def test_an_address_table_stays_bounded() -> None:
    clock = Ticker()
    table = _Table(lambda now: _Busy(1, 1.0, now), limit=100)
    for n in range(1000):
        table.get(f"10.0.{n // 256}.{n % 256}", clock())
    assert len(table.entries) <= 100
    assert "10.0.3.231" in table.entries  # the newest stay


class _Busy(Bucket):
    """A bucket never at rest: a full table can only forget its oldest entries."""

    def at_rest(self, now: float) -> bool:
        return False


def test_an_offender_is_logged_once_per_interval(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    clock = Ticker()
    offenders = Offenders(600.0, clock, limit=10)
    for _ in range(1000):
        offenders.offended("budget", "203.0.113.1", "closing %s", "203.0.113.1")
    offenders.offended("budget", "203.0.113.2", "closing %s", "203.0.113.2")
    offenders.offended("silent", "203.0.113.1", "silent %s", "203.0.113.1")
    assert offenders.lines == 3 and len(caplog.records) == 3
    clock.now += 601
    offenders.offended("budget", "203.0.113.1", "closing %s", "203.0.113.1")
    assert offenders.lines == 4
    for n in range(100):  # many offenders: the table stays bounded, each still logged once
        offenders.offended("budget", f"198.51.100.{n}", "closing %s", n)
    assert offenders.lines == 104 and len(offenders._next) <= 10
