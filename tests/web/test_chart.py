"""The charts: a player's ranked dailies by day and score, and a day's winners by moves."""

from __future__ import annotations

from datetime import date

import pytest

from server.protocol import DayStats, HistoryGame, MovesBin
from server.web import render
from server.web.chart import HEIGHT, LEFT, MIN_SLOTS, RIGHT, WIDTH, moves_chart, score_chart


def game(day: date | None, suits: int, score: int, rank: int | None) -> HistoryGame:
    return HistoryGame(
        game=f"{day}-{suits}-{score}", day=day, suits=suits,
        mode="daily" if day else "practice", won=False, score=score, moves=10, elapsed=60.0,
        finished_at="2026-03-01T10:00:00+00:00", rank=rank,
    )  # fmt: skip


def test_the_chart_draws_ranked_dailies_by_day_and_score() -> None:
    assert score_chart([]) is None
    assert score_chart([game(None, 1, 700, None), game(date(2026, 3, 1), 1, 600, None)]) is None
    chart = score_chart(
        [
            game(date(2026, 3, 1), 1, 800, 2),
            game(date(2026, 3, 3), 1, 400, 9),
            game(date(2026, 3, 2), 4, 600, 1),
            game(date(2026, 3, 2), 2, 999, None),  # held: not drawn
            game(None, 1, 900, None),  # practice: not drawn
        ]
    )
    assert chart is not None
    assert [line.suits for line in chart.series] == [1, 4]
    first, last = chart.series[0].dots
    assert first.x == chart.left and last.x == chart.right  # the first and last day
    assert first.y == chart.top and last.y == chart.bottom  # the best and worst score
    (middle,) = chart.series[1].dots
    assert middle.x == (chart.left + chart.right) / 2 and middle.y == (chart.top + chart.bottom) / 2
    assert chart.series[0].path == f"{first.x:.1f},{first.y:.1f} {last.x:.1f},{last.y:.1f}"
    assert [tick.text for tick in chart.y_ticks] == ["800", "600", "400"]
    assert [tick.text for tick in chart.x_ticks] == ["2026-03-01", "2026-03-03"]
    assert first.label == "2026-03-01, 1 suit: 800, rank 2"
    assert chart.summary.startswith("Daily scores from 2026-03-01 to 2026-03-03: 3 ranked")
    (alone,) = score_chart([game(date(2026, 3, 1), 2, 500, 1)]).series  # type: ignore[union-attr]
    assert alone.dots[0].y == pytest.approx(chart.top + (HEIGHT - 30 - 14) / 2)


def day_stats(bins: dict[int, int], width: int = 1) -> DayStats:
    won = sum(bins.values())
    return DayStats(
        day=date(2026, 3, 1), suits=1, finished=won, won=won, bin_width=width, not_won=[],
        moves_histogram=[MovesBin(moves=moves, count=count) for moves, count in bins.items()],
    )  # fmt: skip


@pytest.mark.parametrize("bins", [{51: 2}, {51: 1, 52: 0, 53: 1}, {40: 1, 41: 3, 42: 2, 43: 1}])
def test_a_few_winners_are_narrow_bars_in_the_middle_not_a_block_across_the_chart(
    bins: dict[int, int],
) -> None:
    chart = moves_chart(day_stats(bins))
    assert chart is not None and len(chart.bars) == len(bins)
    inner = WIDTH - LEFT - RIGHT
    assert all(bar.width <= inner / MIN_SLOTS for bar in chart.bars)
    left = chart.bars[0].x - LEFT
    right = LEFT + inner - (chart.bars[-1].x + chart.bars[-1].width)
    assert abs(left - right) <= inner / MIN_SLOTS + 2  # centred, within a slot
    labels = [tick.text for tick in chart.x_ticks]
    assert len(labels) == len(set(labels))  # one move count is one tick, not two alike
    assert labels[0] == str(min(bins)) and labels[-1] == str(max(bins))


def test_many_bins_fill_the_chart() -> None:
    chart = moves_chart(day_stats({moves: 1 for moves in range(30, 50)}))
    assert chart is not None
    assert chart.bars[0].x == pytest.approx(LEFT + 1)
    assert chart.bars[-1].x + chart.bars[-1].width == pytest.approx(WIDTH - RIGHT - 1)


@pytest.mark.parametrize(
    ("won", "shown"),
    [(1, ["The winner's time", "2:00"]), (2, ["median", "2:00"]), (3, ["median"]),
     (4, ["quartiles", "1:00", "2:00", "3:00"])],
)  # fmt: skip
def test_the_winners_times_are_quartiles_only_with_four_winners(won: int, shown: list[str]) -> None:
    """Two winners' quartiles would repeat their two times: the median says it once."""
    stats = day_stats({50: won}).model_copy(update={"time_quartiles": [60.0, 120.0, 180.0]})
    macros = render._ENVIRONMENTS["en"].get_template("macros.html").module
    figures = str(macros.day_figures(stats))  # type: ignore[attr-defined]
    for text in shown:
        assert text in figures.replace("&#39;", "'")
    assert ("quartiles" in figures) == (won >= 4)
    if won < 4:
        assert "1:00" not in figures and "3:00" not in figures
