"""A page's answer: content negotiation, gzip and validators."""

from __future__ import annotations

import gzip

import brotli
import pytest
from websockets.datastructures import Headers
from websockets.http11 import Request

from server.web.assets import STATIC
from server.web.responses import accepts_gzip, content, static, wants_json


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


def test_a_static_file_is_brotli_where_taken_else_gzip_each_made_once() -> None:
    found = STATIC["play/board.js"]
    answers = {
        given: static(request(Accept_Encoding=given), found, cache_control="x")
        for given in ("gzip, deflate, br, zstd", "gzip", "", "br;q=0, gzip")
    }
    brotli_answer = answers["gzip, deflate, br, zstd"]
    assert brotli_answer.headers["Content-Encoding"] == "br"
    assert brotli.decompress(bytes(brotli_answer.body)) == found.body
    assert answers["gzip"].headers["Content-Encoding"] == "gzip"
    assert answers["br;q=0, gzip"].headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(bytes(answers["gzip"].body)) == found.body
    assert "Content-Encoding" not in answers[""].headers and answers[""].body == found.body
    # the smallest of the three, each made once and kept
    assert len(brotli_answer.body) < len(answers["gzip"].body) < len(found.body)
    assert found.encoded("br") is found.encoded("br")
    for answer in answers.values():
        assert answer.headers["Vary"] == "Accept-Encoding"
        assert answer.headers["ETag"] == f'"{found.version}"'
        assert "Content-Security-Policy" not in answer.headers  # a document's, not a script's
        assert answer.headers["Content-Length"] == str(len(answer.body))
    again = static(request(If_None_Match=f'"{found.version}"'), found, cache_control="x")
    assert again.status_code == 304 and again.body == b""
