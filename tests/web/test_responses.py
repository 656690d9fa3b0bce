"""A page's answer: content negotiation, gzip and validators."""

from __future__ import annotations

import gzip

import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.web.responses import accepts_gzip, content, wants_json


def request(path: str = "/", **headers: str) -> Request:
    return Request(path, Headers({k.replace("_", "-"): v for k, v in headers.items()}))


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
