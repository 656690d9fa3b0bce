"""Which language a page speaks, and the picker that changes it.

The page's URL names it first (``?lang=pl``, for a link that must open in Polish), then
the ``lang`` cookie the picker (``/language/pl?next=/day/...``) leaves, then the
browser's ``Accept-Language``, else English. A page's answer says which it chose
(``Content-Language``) and what it depended on (``Vary``), and links its other
languages (``hreflang``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from http.cookies import CookieError, SimpleCookie
from typing import Final
from urllib.parse import parse_qs, urlencode

from websockets.http11 import Request, Response

from server.i18n import DEFAULT_LANGUAGE, LANGUAGES, Language, gettext, language_named, native_name
from server.i18n.languages import negotiate
from server.protocol import ErrorCode

from .responses import header, redirect
from .source import PageError

#: The cookie that remembers a visitor's choice, for a year.
COOKIE: Final = "lang"
COOKIE_SECONDS: Final = 365 * 24 * 3600
#: What a page's language depends on besides its URL.
VARY: Final = "Accept-Language, Cookie"


def cookie_language(request: Request) -> Language | None:
    return _cookie_language(header(request, "Cookie"))


@lru_cache(maxsize=256)
def _cookie_language(cookie: str) -> Language | None:
    if "lang" not in cookie:  # no need to parse the cookies of a visitor who never chose
        return None
    cookies = SimpleCookie()
    try:
        cookies.load(cookie)
    except CookieError:
        return None
    found = cookies.get(COOKIE)
    return language_named(found.value) if found is not None else None


def query_language(query: str) -> Language | None:
    if "lang" not in query:
        return None
    values = parse_qs(query).get("lang")
    return language_named(values[0]) if values and len(values) == 1 else None


def choose(request: Request, query: str) -> Language:
    """The page's language: its URL's, the cookie's, the browser's, else English."""
    return (
        query_language(query)
        or cookie_language(request)
        or _negotiated(header(request, "Accept-Language"))
        or DEFAULT_LANGUAGE
    )


@lru_cache(maxsize=256)
def _negotiated(accept_language: str) -> Language | None:
    """:func:`negotiate`, remembered: a site's visitors send few distinct headers, and every
    page and websocket asks."""
    return negotiate(accept_language)


#: ``/language/CODE?next=PATH``: the picker's link.
PICKER: Final = re.compile(r"^/language/([A-Za-z-]{2,8})$")


def pick(code: str, query: str) -> Response:
    """Remember the language chosen and go back to the page it was chosen on."""
    language = language_named(code)
    if language is None:
        raise PageError(404, ErrorCode.NOT_FOUND, gettext("There is no such language."))
    values = parse_qs(query).get("next")
    back = safe_next(values[0] if values else None)
    return redirect(back, set_cookie=set_cookie(language))


def set_cookie(language: Language) -> str:
    return f"{COOKIE}={language}; Path=/; Max-Age={COOKIE_SECONDS}; SameSite=Lax"


def safe_next(text: str | None) -> str:
    """Where the picker goes back to: a path of this site only (``//evil`` and
    ``https://...`` are not), else ``/``."""
    if not text or not text.startswith("/") or text.startswith("//") or "\\" in text:
        return "/"
    if any(ord(character) < 0x20 or ord(character) == 0x7F for character in text):
        return "/"
    return text


@dataclass(frozen=True)
class Choice:
    """A language the picker offers, as the page links it."""

    code: Language
    name: str
    #: the picker's link (sets the cookie, comes back to the page)
    pick: str
    #: the page itself in that language (``hreflang``)
    alternate: str
    current: bool


@lru_cache(maxsize=1024)
def choices(path: str, query: str, current: Language) -> tuple[Choice, ...]:
    """Every language, for the page at ``path?query`` (the same for every request of the
    same page: kept)."""
    kept = [(name, value) for name, values in parse_qs(query).items() if name != "lang"
            for value in values]  # fmt: skip
    here = path + ("?" + urlencode(kept) if kept else "")
    found = []
    for code in LANGUAGES:
        alternate = path + "?" + urlencode([*kept, ("lang", code)])
        pick = f"/language/{code}?" + urlencode({"next": here})
        found.append(Choice(code, native_name(code), pick, alternate, code == current))
    return tuple(found)
