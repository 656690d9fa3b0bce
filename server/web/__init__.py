"""Leaderboards as web pages, on the game server's own port (docs/web.md).

Server-rendered HTML (Jinja2, every value escaped), one stylesheet and one small script
from ``/static``, nothing to build. The pages read through :mod:`server.web.source` alone;
:mod:`server.net.http` hands over every plain GET that is not one of its JSON routes::

    response = await web.respond(hub, request)

Its one error is :class:`~server.web.source.PageError`, a kind of the root it shares with
the net layer that serves it (:class:`~server.edge.EdgeError`): an HTTP status, a stable
protocol code and a sentence. A refusal of a layer below becomes one through
:func:`server.play.errors.refusal_of`, so the pages name no other layer's exception.
"""

from __future__ import annotations

from websockets.http11 import Request, Response

from .pages import respond as _respond
from .source import Hub, Source


async def respond(hub: Hub, request: Request) -> Response:
    """Answer a plain GET for a page (or a 404, in HTML for browsers, else JSON)."""
    return await _respond(Source.of(hub), request)


__all__ = ["Source", "respond"]
