"""An account's evidence across days (pure)."""

from __future__ import annotations

from datetime import date, timedelta

from server.play.fairplay.evidence import Thresholds
from server.play.fairplay.trust import Daily, account_trust, is_top, percentile

FIRST = date(2026, 3, 1)


def daily(n: int, share: float | None, **more: object) -> Daily:
    values: dict[str, object] = dict(
        day=FIRST + timedelta(days=n),
        suits=1,
        won=True,
        percentile=share,
        over_par=0.6,
        moves=150,
        undos=10,
        restarts=0,
        think_follow=0.2,
        follow_moves=80,
    )
    values.update(more)
    return Daily(**values)  # type: ignore[arg-type]


def test_a_person_steady_in_the_middle_raises_no_suspicion() -> None:
    trust = account_trust([daily(n, 0.5) for n in range(6)], Thresholds())
    assert trust.suspicion == 0 and trust.reasons == []
    assert trust.evidence["days"] == 6 and trust.evidence["think_follow"] > 0.1


def test_a_jump_closer_to_par_with_habits_dropped_passes_the_threshold() -> None:
    history = [daily(n, 0.45) for n in range(5)]
    cheating = daily(5, 0.97, over_par=0.15, undos=0)
    trust = account_trust([*history, cheating], Thresholds())
    assert trust.evidence["signals"] == ["jump", "closer to par", "habits dropped"]
    assert trust.suspicion >= Thresholds().max_suspicion
    # the same day from an account that was always at the top is no jump
    steady = account_trust([*(daily(n, 0.95) for n in range(5)), cheating], Thresholds())
    assert "jump" not in steady.evidence["signals"]


def test_near_par_on_two_and_four_suits_and_think_times_that_ignore_difficulty() -> None:
    replayed = [
        daily(n, None, suits=2, over_par=0.05, think_follow=0.01, follow_moves=90) for n in range(3)
    ]
    trust = account_trust(replayed, Thresholds())
    assert set(trust.evidence["signals"]) == {"near par", "ignores difficulty"}
    assert trust.suspicion >= Thresholds().max_suspicion
    one_game = account_trust(replayed[:1], Thresholds())  # too few moves, one win
    assert one_game.suspicion == 0


def test_top_results_and_percentiles() -> None:
    assert percentile(1, 20) == 1.0 and percentile(21, 20) == 0.0 and percentile(1, 5) is None
    thresholds = Thresholds(top_rank=3, top_share=0.5)
    assert is_top(3, 100, thresholds) and is_top(40, 100, thresholds)
    assert not is_top(60, 100, thresholds)


def test_a_padded_line_raises_suspicion_to_the_threshold() -> None:
    """A win whose moves go round in loops around a line near par once they are cut, or
    clearly better than the account's usual, holds; a person near par without loops, a
    wandering line far from par, or loops around the account's usual line raise nothing."""
    thresholds = Thresholds()
    history = [daily(n, 0.5, over_par=0.3, net_over_par=0.3, loop_share=0.0) for n in range(5)]
    near_par = daily(5, 0.8, over_par=0.2, net_over_par=0.03, loop_share=0.1)
    better = daily(5, 0.6, over_par=0.35, net_over_par=0.2, loop_share=0.1)
    for today in (near_par, better):
        trust = account_trust([*history, today], thresholds)
        assert trust.evidence["signals"] == ["padded"]
        assert trust.suspicion >= thresholds.max_suspicion
    near_par_no_loops = daily(5, 0.9, over_par=0.03, net_over_par=0.03, loop_share=0.0)
    wandering = daily(5, 0.4, over_par=0.45, net_over_par=0.3, loop_share=0.1)
    few_loops = daily(5, 0.8, over_par=0.05, net_over_par=0.03, loop_share=0.02)
    for today in (near_par_no_loops, wandering, few_loops):
        signals = account_trust([*history, today], thresholds).evidence["signals"]
        assert "padded" not in signals, today
    # better than usual needs a usual: two earlier wins of the same suit count
    alone = account_trust([history[0], better], thresholds)
    assert "padded" not in alone.evidence["signals"]


def test_padded_lines_on_two_recent_days_hold_the_days_after_too() -> None:
    """Two padded days within a week keep the account's later results held, whatever the
    line of the day; a week later, or after one padded day only, they are not."""
    thresholds = Thresholds()
    history = [daily(n, 0.5, over_par=0.3, net_over_par=0.3, loop_share=0.0) for n in range(5)]
    padded = [daily(5 + n, 0.8, over_par=0.2, net_over_par=0.03, loop_share=0.1) for n in (0, 1)]
    plain_next = daily(7, 0.5, over_par=0.3, net_over_par=0.3, loop_share=0.0)
    trust = account_trust([*history, *padded, plain_next], thresholds)
    assert trust.evidence["signals"] == ["padded, again"]
    assert trust.suspicion >= thresholds.max_suspicion
    once = account_trust([*history, padded[0], plain_next], thresholds)
    assert once.evidence["signals"] == []
    week_later = daily(13, 0.5, over_par=0.3, net_over_par=0.3, loop_share=0.0)
    assert account_trust([*history, *padded, week_later], thresholds).evidence["signals"] == []
