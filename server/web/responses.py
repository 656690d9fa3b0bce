"""HTTP answers for pages: content types with a charset, validators and caching, gzip,
and the security headers every page carries.

A page is answered with a weak ``ETag`` (a hash of its body, the same for its gzip form)
and ``304 Not Modified`` when the browser already has it; errors are HTML for browsers
and JSON (``{"error": {"code", "message"}}``, as the JSON routes answer) for clients that
ask for ``application/json``.
"""

from __future__ import annotations

import email.utils
import gzip
import hashlib
import http
import json
from collections import OrderedDict
from typing import Final
from urllib.parse import SplitResult, urlsplit

import brotli
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .assets import IMPORT_MAP_SOURCE, StaticFile

HTML: Final = "text/html; charset=utf-8"
JSON: Final = "application/json"

#: Only this server's own files: no inline script (the import map aside, by its hash) or
#: style, no other origin, no framing.
CONTENT_SECURITY_POLICY: Final = (
    f"default-src 'none'; script-src 'self' {IMPORT_MAP_SOURCE}; style-src 'self'; "
    "img-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
#: Cache-Control of what may change at any moment (today's boards, a player's page).
REVALIDATE: Final = "no-cache"
#: Cache-Control of files named by their content hash.
IMMUTABLE: Final = "max-age=31536000, immutable"
#: Bodies shorter than this are sent as they are (gzip would not pay for its header).
GZIP_FROM: Final = 512


def request_target(request: Request) -> SplitResult:
    """The request's path and query. The target is a path: ``urlsplit`` alone would take
    the start of ``//healthz`` for a host name."""
    return urlsplit(f"http://target{request.path}")


def header(request: Request, name: str) -> str:
    """A request header's value, ``""`` when absent. A header sent more than once is read
    as its values joined by commas, as HTTP says of a list (``Accept``, ``If-None-Match``):
    ``headers.get`` would raise on it, and a repeated single value (``Authorization``)
    joined so is simply not a valid one."""
    return ", ".join(request.headers.get_all(name))


def wants_json(request: Request, *, default: bool) -> bool:
    """Whether to answer ``request`` with JSON rather than HTML: what its ``Accept`` names
    first of the two, else ``default``."""
    accept = header(request, "Accept").lower()
    html = accept.find("text/html")
    data = accept.find("application/json")
    if html < 0 and data < 0:
        return default
    return html < 0 or 0 <= data < html


def accepts_gzip(request: Request) -> bool:
    return accepts_coding(request, "gzip")


def accepts_coding(request: Request, wanted: str) -> bool:
    """Whether the request's ``Accept-Encoding`` takes ``wanted`` (``gzip``, ``br``)."""
    for part in header(request, "Accept-Encoding").lower().split(","):
        coding, *parameters = (item.strip() for item in part.split(";"))
        if coding not in (wanted, "*"):
            continue
        for parameter in parameters:
            if parameter.startswith("q="):
                try:
                    return float(parameter[2:]) > 0
                except ValueError:
                    return False
        return True
    return False


def _response(status: int, headers: list[tuple[str, str]], body: bytes) -> Response:
    status_ = http.HTTPStatus(status)
    common = [
        ("Date", email.utils.formatdate(usegmt=True)),
        ("Connection", "close"),  # the websocket server answers one request per connection
        ("X-Content-Type-Options", "nosniff"),
    ]
    return Response(status_.value, status_.phrase, Headers(common + headers), body)


def etag_of(body: bytes) -> str:
    return f'W/"{hashlib.sha256(body).hexdigest()[:20]}"'


def _matches(request: Request, etag: str) -> bool:
    given = header(request, "If-None-Match")
    if not given:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in given.split(",")]
    return "*" in tags or etag.removeprefix("W/") in tags


def content(
    request: Request,
    body: bytes,
    *,
    content_type: str,
    cache_control: str,
    status: int = 200,
    etag: str | None = None,
    language: str | None = None,
    fixed: bool = False,
) -> Response:
    """``body`` as ``content_type``: 304 when the browser holds this version, gzipped when
    it accepts gzip. A page in a ``language`` says so, and that the language was chosen
    by the request's ``Accept-Language`` and cookie (a cache keeps one copy of each). A
    ``fixed`` page, the same for every reader of a language all day, is compressed at the
    best quality once (:func:`_packed`), not at a quick one for each reader."""
    vary = "Accept, Accept-Encoding" + (", Accept-Language, Cookie" if language else "")
    headers = [
        ("Content-Type", content_type),
        ("Cache-Control", cache_control),
        ("Vary", vary),
    ]
    if language:
        headers.append(("Content-Language", language))
    if content_type.startswith("text/html"):
        headers.append(("Content-Security-Policy", CONTENT_SECURITY_POLICY))
        headers.append(("Referrer-Policy", "same-origin"))  # a document's: its links' referrer
    if status == 200:
        etag = etag or etag_of(body)
        headers.append(("ETag", etag))
        if _matches(request, etag):
            return _response(304, headers, b"")
    if len(body) >= GZIP_FROM:
        # Brotli where the browser takes it: at quality 5 it costs what gzip's 6 does, and
        # says a page in 7% fewer bytes
        if accepts_coding(request, "br"):
            body = _packed(body, "br") if fixed else brotli.compress(body, quality=5)
            headers.append(("Content-Encoding", "br"))
        elif accepts_gzip(request):
            body = _packed(body, "gzip") if fixed else gzip.compress(body, 6, mtime=0)
            headers.append(("Content-Encoding", "gzip"))
    headers.append(("Content-Length", str(len(body))))
    return _response(status, headers, body)


#: Fixed pages' bodies compressed at the best quality, by body and coding (a few: a page a
#: language, renewed each day).
_best: OrderedDict[tuple[bytes, str], bytes] = OrderedDict()
_MOST_BEST: Final = 16


def _packed(body: bytes, coding: str) -> bytes:
    """``body`` compressed at the best quality (Brotli 11 says the play page in 14% fewer
    bytes than 5, for 20 ms once), kept for the next readers of the same body."""
    key = (body, coding)
    found = _best.get(key)
    if found is None:
        found = StaticFile(body, "", "").encoded(coding)
        _best[key] = found
        while len(_best) > _MOST_BEST:
            _best.popitem(last=False)
    _best.move_to_end(key)
    return found


def static(request: Request, found: StaticFile, *, cache_control: str) -> Response:
    """A file of ``static/``: 304 when the browser holds this version, else compressed once
    for all requests (Brotli where the browser takes it, else gzip). Only what a script or a
    stylesheet needs is said: a page's many files each pay for every header."""
    headers = [
        ("Content-Type", found.content_type),
        ("Cache-Control", cache_control),
        ("Vary", "Accept-Encoding"),
    ]
    if cache_control != IMMUTABLE:  # a versioned URL is never asked again: no validator
        headers.append(("ETag", f'"{found.version}"'))
        if _matches(request, f'"{found.version}"'):
            return _response(304, headers, b"")
    body = found.body
    coding = "br" if accepts_coding(request, "br") else "gzip" if accepts_gzip(request) else None
    if coding is not None and len(body) >= GZIP_FROM:
        packed = found.encoded(coding)
        if len(packed) < len(body):
            body = packed
            headers.append(("Content-Encoding", coding))
    headers.append(("Content-Length", str(len(body))))
    return _response(200, headers, body)


def redirect(location: str, *, set_cookie: str | None = None) -> Response:
    """``303 See Other`` to ``location`` (a path of this site), leaving a cookie."""
    headers = [
        ("Location", location),
        ("Cache-Control", "no-store"),
        ("Referrer-Policy", "same-origin"),
        ("Content-Length", "0"),
    ]
    if set_cookie is not None:
        headers.append(("Set-Cookie", set_cookie))
    return _response(303, headers, b"")


def json_error(request: Request, status: int, code: str, message: str) -> Response:
    body = json.dumps({"error": {"code": code, "message": message}}, separators=(",", ":"))
    return content(
        request, body.encode(), content_type=JSON, cache_control="no-store", status=status
    )
