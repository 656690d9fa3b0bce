"""The pages' formats: times as a clock, long days, URLs and path segments, card faces."""

from __future__ import annotations

from datetime import date

import pytest

from server.i18n.formats import clock
from server.web.render import card_face, hour_minute, long_day, segment, url


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0:00"), (5.9, "0:05"), (245.3, "4:05"), (600, "10:00"), (3845, "1:04:05"),
     (86399, "23:59:59"), (-3, "0:00")],
)  # fmt: skip
def test_times_read_as_a_clock(seconds: float, text: str) -> None:
    assert clock(seconds) == text


def test_days_times_urls_and_path_segments() -> None:
    assert long_day(date(2026, 3, 1)) == "Sunday 1 March 2026"
    assert hour_minute("2026-03-01T14:03:59.5+00:00") == "14:03"
    assert url("/day/2026-03-01", suits=2, board=None, after="a b&c") == (
        "/day/2026-03-01?suits=2&after=a+b%26c"
    )
    assert url("/race") == "/race"
    assert segment("a/b <c>") == "a%2Fb%20%3Cc%3E"


def test_a_card_face_reads_its_rank_and_suit_symbol() -> None:
    assert [card_face(text) for text in ("AS", "TH", "QD", "2C")] == ["A♠", "10♥", "Q♦", "2♣"]
