"""The files the pages link to, as answers: ``/static/NAME?v=HASH`` (kept a year, since a
new version is a new URL; the plain name is revalidated) and the service worker ``/sw.js``,
from the root so that its scope is the whole site."""

from __future__ import annotations

from typing import Final
from urllib.parse import parse_qs

from websockets.http11 import Request, Response

from server.i18n import gettext
from server.protocol import ErrorCode

from . import assets
from .responses import IMMUTABLE, REVALIDATE, static
from .source import PageError

#: The service worker's Cache-Control: a day (the longest a browser lets it be cached).
SERVICE_WORKER_CACHE: Final = "public, max-age=86400"


def static_file(request: Request, name: str, query: str) -> Response:
    found = assets.STATIC.get(name)
    if found is None:
        raise PageError(404, ErrorCode.NOT_FOUND, gettext("no such file %(name)r") % {"name": name})
    versioned = parse_qs(query).get("v") == [found.version]
    return static(request, found, cache_control=IMMUTABLE if versioned else REVALIDATE)


def service_worker(request: Request) -> Response:
    """``/sw.js``, from the root so that the worker's scope is the whole site; kept a day by
    the HTTP cache, which answers the worker's own update checks meanwhile (play/dom.js,
    installServiceWorker)."""
    return static(request, assets.STATIC[assets.SERVICE_WORKER], cache_control=SERVICE_WORKER_CACHE)
