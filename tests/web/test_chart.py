"""The score chart of a player's page: ranked dailies by day and score."""

from __future__ import annotations

from datetime import date

import pytest

from server.protocol import HistoryGame
from server.web.chart import HEIGHT, score_chart


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
