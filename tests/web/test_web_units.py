"""The web pages' parts that need no server: formats, the chart, content negotiation,
gzip, validators and query checks."""

from __future__ import annotations

import gzip
from datetime import date

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.protocol import HistoryGame
from server.web.chart import HEIGHT, score_chart
from server.web.pages import Query
from server.web.render import clock, hour_minute, long_day, segment, url
from server.web.responses import accepts_gzip, content, wants_json
from server.web.source import PageError


def request(path: str = "/", **headers: str) -> Request:
    return Request(path, Headers({k.replace("_", "-"): v for k, v in headers.items()}))


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


@pytest.mark.parametrize(
    ("accept", "default", "json"),
    [
        ("", False, False),
        ("", True, True),
        ("*/*", True, True),
        ("text/html,application/xhtml+xml,*/*;q=0.8", True, False),
        ("application/json", False, True),
        ("application/json, text/html;q=0.5", False, True),
        ("text/html, application/json", True, False),
    ],
)
def test_html_for_browsers_json_for_json_clients(accept: str, default: bool, json: bool) -> None:
    assert wants_json(request(Accept=accept), default=default) is json


@pytest.mark.parametrize(
    ("header", "gzipped"),
    [("", False), ("gzip", True), ("gzip, deflate, br, zstd", True), ("br, *", True),
     ("gzip;q=0", False), ("gzip; q=0.5", True), ("identity", False), ("gzip;q=x", False)],
)  # fmt: skip
def test_gzip_only_when_accepted(header: str, gzipped: bool) -> None:
    assert accepts_gzip(request(Accept_Encoding=header)) is gzipped


def test_a_page_answer_validators_and_gzip() -> None:
    body = b"<p>" + b"row " * 500 + b"</p>"
    plain = content(request(), body, content_type="text/html; charset=utf-8", cache_control="x")
    assert plain.status_code == 200 and plain.body == body
    etag = plain.headers["ETag"]
    assert etag.startswith('W/"') and plain.headers["Content-Length"] == str(len(body))
    assert "script-src 'self'" in plain.headers["Content-Security-Policy"]
    zipped = content(
        request(Accept_Encoding="gzip"), body, content_type="text/html; charset=utf-8",
        cache_control="x",
    )  # fmt: skip
    assert zipped.headers["Content-Encoding"] == "gzip" and zipped.headers["ETag"] == etag
    assert gzip.decompress(zipped.body) == body
    for given in (etag, etag.removeprefix("W/"), f'"other", {etag}', "*"):
        again = content(
            request(If_None_Match=given), body, content_type="text/html", cache_control="x"
        )
        assert again.status_code == 304 and again.body == b"", given
    missed = content(request(If_None_Match='"other"'), body, content_type="text/html",
                     cache_control="x")  # fmt: skip
    assert missed.status_code == 200
    small = content(request(Accept_Encoding="gzip"), b"tiny", content_type="text/html",
                    cache_control="x")  # fmt: skip
    assert "Content-Encoding" not in small.headers


def test_a_query_takes_only_its_names_once_and_no_control_characters() -> None:
    allowed = frozenset({"suits", "board", "limit", "player"})
    query = Query("suits=4&board=bots&limit=7&player=+Ann+", allowed)
    assert query.suits() == 4 and query.board() == "bots"
    assert query.number("limit", 50, range(1, 101)) == 7 and query.text("player", 64) == "Ann"
    assert Query("", allowed).suits() == 1 and Query("", allowed).board() == "humans"
    for text, read in [
        ("colour=blue", None),
        ("suits=1&suits=2", None),
        ("player=a%00b", None),
        ("player=a%7Fb", None),
        ("suits=3", "suits"),
        ("suits=01", "suits"),
        ("board=robots", "board"),
        ("limit=0", "limit"),
        ("limit=-1", "limit"),
        ("player=", "player"),
    ]:
        with pytest.raises(PageError) as refused:
            parsed = Query(text, allowed)
            if read == "limit":
                parsed.number("limit", 50, range(1, 101))
            elif read == "player":
                parsed.text("player", 64)
            elif read is not None:
                getattr(parsed, read)()
        assert refused.value.status == 400, text


def game(day: date | None, suits: int, score: int, rank: int | None) -> HistoryGame:
    return HistoryGame(
        day=day, suits=suits, mode="daily" if day else "practice", won=False, score=score,
        moves=10, elapsed=60.0, finished_at="2026-03-01T10:00:00+00:00", rank=rank,
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
