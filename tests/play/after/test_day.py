"""After the daily, the parts that need no store: percentiles, streaks, the share text and
the winners' histogram."""

from __future__ import annotations

from datetime import date

import pytest

from server.i18n import Language, speaking
from server.i18n.formats import clock
from server.play.after.day import (
    day_url,
    moves_histogram,
    percentile_of,
    share_text,
    streak_of,
    top_share,
)
from server.protocol import Streak

DAY = date(2026, 12, 1)


def test_days_in_a_row() -> None:
    days = [date(2026, 1, d) for d in (1, 2, 3, 5, 6)]
    assert streak_of(days, date(2026, 1, 6)).model_dump() == {"current": 2, "best": 3}
    assert streak_of(days, date(2026, 1, 7)).current == 2
    assert streak_of(days, date(2026, 1, 8)).current == 0
    assert streak_of([], date(2026, 1, 8)).model_dump() == {"current": 0, "best": 0}


def test_a_streak_ignores_days_after_today() -> None:
    days = [date(2026, 1, d) for d in (1, 2, 3, 4)]
    assert streak_of(days, date(2026, 1, 2)).model_dump() == {"current": 2, "best": 2}


@pytest.mark.parametrize(
    ("rank", "total", "percentile"),
    [
        (1, 4, 100.0),
        (4, 4, 25.0),
        (1, 1, 100.0),
        (2, 3, 66.7),
        (0, 4, 0.0),
        (5, 4, 0.0),
        (1, 0, 0.0),
    ],
)
def test_a_percentile_counts_the_results_a_rank_beats_or_ties(
    rank: int, total: int, percentile: float
) -> None:
    assert percentile_of(rank, total) == percentile


@pytest.mark.parametrize(
    ("rank", "total", "share"), [(1, 3, 34), (1, 1000, 1), (18, 100, 18), (3, 3, 100), (1, 0, 100)]
)
def test_the_top_share_rounds_up_and_is_never_zero(rank: int, total: int, share: int) -> None:
    assert top_share(rank, total) == share


def test_times_and_the_days_page() -> None:
    assert [clock(s) for s in (0, 59.9, 187, 3723)] == ["0:00", "0:59", "3:07", "1:02:03"]
    assert day_url("", DAY, 2) == "/day/2026-12-01?suits=2"
    assert (
        day_url("https://simon.example/", DAY, 4) == "https://simon.example/day/2026-12-01?suits=4"
    )
    assert day_url("", DAY, 1, "new") == "/day/2026-12-01?suits=1&board=new"


def test_a_lost_daily_shares_its_runs_and_the_first_place_says_so() -> None:
    lost = share_text(
        day=DAY, suits=2, won=False, moves=80, removed=1, elapsed=65, par=50, rank=None, total=9,
        streak=Streak(current=1, best=4),
    )  # fmt: skip
    assert lost == "Simple Simon 2026-12-01 · 2 suits · 1 of 4 runs · 1:05\n/day/2026-12-01?suits=2"
    first = share_text(
        day=DAY, suits=4, won=True, moves=90, removed=4, elapsed=600, par=None, rank=1, total=12,
        streak=None, base_url="https://simon.example",
    )  # fmt: skip
    assert first.splitlines() == [
        "Simple Simon 2026-12-01 · 4 suits · won in 90 moves · 10:00 · first of 12",
        "https://simon.example/day/2026-12-01?suits=4",
    ]


def test_the_histogram_bins_every_winner_in_bins_of_one_width() -> None:
    assert moves_histogram({}) == ([], 1)
    bins, width = moves_histogram({46: 2, 47: 1, 52: 3})
    assert width == 1 and len(bins) == 7
    assert [(b.moves, b.count) for b in bins if b.count] == [(46, 2), (47, 1), (52, 3)]
    wide = {moves: 1 for moves in range(40, 240, 7)}
    bins, width = moves_histogram(wide, bins=20)
    assert len(bins) <= 20 and all(b.moves % width == 0 for b in bins)
    assert sum(b.count for b in bins) == len(wide)
    assert [b.moves for b in bins] == list(range(bins[0].moves, bins[-1].moves + 1, width))


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("pl", "Simple Simon 2026-12-01 · 2 kolory · wygrana w 52 ruchach (par 46) · 3:07"
               " · czołowe 18% · 22 dni z rzędu"),
        ("ru", "Simple Simon 2026-12-01 · 2 масти · победа за 52 хода (пар 46) · 3:07"
               " · в лучших 18% · 21 день подряд"),
    ],
)  # fmt: skip
def test_the_share_text_is_in_the_players_language_with_its_plurals(
    language: Language, expected: str
) -> None:
    streak = 22 if language == "pl" else 21
    with speaking(language):
        text = share_text(
            day=DAY, suits=2, won=True, moves=52, removed=8, elapsed=187, par=46, rank=18,
            total=100, streak=Streak(current=streak, best=streak),
        )  # fmt: skip
    assert text.splitlines()[0] == expected
