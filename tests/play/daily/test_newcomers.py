"""The new players' board: from which day a human account's dailies count."""

from __future__ import annotations

from datetime import date, timedelta

from server.play.daily.newcomers import counts_from, is_newcomer


def test_the_day_a_new_account_counts_from() -> None:
    day = date(2026, 3, 1)
    assert counts_from([], today=day, needed=2) == day + timedelta(days=2)
    assert counts_from([day], today=day, needed=2) == day + timedelta(days=2)
    # a day skipped: at the earliest, one more day from today
    assert counts_from([day], today=day + timedelta(days=3), needed=2) == day + timedelta(days=4)
    assert counts_from([day, day + timedelta(days=5)], today=day, needed=2) == day + timedelta(
        days=6
    )
    assert counts_from([day], today=day, needed=0) is None


def test_two_earlier_days_make_a_daily_count() -> None:
    assert [is_newcomer(days_before=n, needed=2) for n in range(4)] == [True, True, False, False]
    assert not is_newcomer(days_before=0, needed=0)  # the gate off


def test_days_enough_still_wait_for_think_times_that_follow_difficulty() -> None:
    """With the evidence condition on, an account past its days graduates only once its
    think times follow difficulty surely enough; with it off (0), the days alone decide."""
    assert is_newcomer(days_before=2, needed=2, follow_z=None, needed_z=2.5)  # nothing measured
    assert is_newcomer(days_before=5, needed=2, follow_z=2.4, needed_z=2.5)
    assert not is_newcomer(days_before=2, needed=2, follow_z=2.5, needed_z=2.5)
    assert not is_newcomer(days_before=2, needed=2, follow_z=None, needed_z=0.0)
    assert is_newcomer(days_before=1, needed=2, follow_z=9.0, needed_z=2.5)  # days first
    assert not is_newcomer(days_before=0, needed=0, follow_z=None, needed_z=2.5)  # gate off
