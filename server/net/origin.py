"""Whose pages may open a websocket here: the server's own, and clients that are no page.

A browser sends the origin of the page that opens a websocket in the handshake's
``Origin`` header, and the connection comes from the player's own address: a page of
another site, open in a player's browser, would spend that address's budgets (failed
sign-ins locking the player out, connections up to the address's cap). So a handshake
whose ``Origin`` is not the server's own is refused (HTTP 403 ``bad-origin``), before it is
counted for anything. A handshake with no ``Origin`` (the command line, bots: no browser)
goes on.

The server's own origin is that of ``SIMON_PUBLIC_URL`` when it is set; else the ``Host``
the request was made to, over ``http`` or ``https`` (a node speaks HTTP itself, and a
proxy in front of it may end TLS), or over the scheme a trusted proxy's
``X-Forwarded-Proto`` names. Default ports count as written or not (``Host: simon.example``
is ``https://simon.example:443``).
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from websockets.http11 import Request

from server.i18n import gettext

#: An origin: scheme, host name (lower case) and port.
Origin = tuple[str, str, int]

_PORTS: Final = {"http": 80, "https": 443}
#: Websocket URLs name the same origins.
_SCHEMES: Final = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def origin_of(url: str) -> Origin | None:
    """The origin of ``url`` (``https://simon.example/day`` is ``("https",
    "simon.example", 443)``), or None if it has none (``null``, no host, another scheme)."""
    try:
        parts = urlsplit(url.strip())
        scheme = _SCHEMES.get(parts.scheme.lower())
        host = parts.hostname
        port = parts.port
    except ValueError:  # a port out of range, a bad IPv6 address
        return None
    if scheme is None or not host:
        return None
    return scheme, host.lower(), port or _PORTS[scheme]


def _host_of(host: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name and port (None when it names none)."""
    try:
        parts = urlsplit("//" + host.strip())
        name = parts.hostname
        port = parts.port
    except ValueError:
        return None
    return (name.lower(), port) if name else None


class Origins:
    """The check of each websocket handshake's ``Origin``, for one server."""

    def __init__(self, public_url: str = "") -> None:
        #: The origin of ``SIMON_PUBLIC_URL``, the only one when it is set.
        self.public = origin_of(public_url) if public_url.strip() else None

    def refusal(self, request: Request, forwarded_proto: str | None = None) -> str | None:
        """None if ``request`` (a websocket handshake) may go on, else why not (a sentence).
        ``forwarded_proto``: the scheme a trusted proxy says the client used."""
        values = request.headers.get_all("Origin")
        if not values:
            return None  # no browser: the command line, a bot
        if len(values) == 1 and self._own(values[0], request, forwarded_proto):
            return None
        shown = ", ".join(values)[:100]
        return gettext(
            "a websocket is opened here from this server's own pages only, not from "
            "%(origin)r (a client that is no page sends no Origin)"
        ) % {"origin": shown}

    def _own(self, origin: str, request: Request, forwarded_proto: str | None) -> bool:
        seen = origin_of(origin)
        if seen is None:
            return False
        if self.public is not None:
            return seen == self.public
        hosts = request.headers.get_all("Host")
        host = _host_of(hosts[0]) if len(hosts) == 1 else None
        if host is None:
            return False
        scheme, name, port = seen
        proto = (forwarded_proto or "").split(",")[0].strip().lower()
        if proto in _PORTS and scheme != proto:
            return False
        return name == host[0] and port == (host[1] or _PORTS[scheme])


__all__ = ["Origin", "Origins", "origin_of"]
