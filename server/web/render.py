"""Templates (Jinja2, every value HTML-escaped) and the static files the pages link to.

Static files, their versioned URLs and the import map are :mod:`.assets`'.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Final
from urllib.parse import quote, urlencode

from jinja2 import PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from server.engine import SUIT_COUNTS
from server.engine.cards import PACK_RUNS, RANK_LETTERS, parse_card, rank, suit
from server.i18n import (
    LANGUAGES,
    N_,
    Language,
    current_language,
    formats,
    gettext,
    ngettext,
    speaking,
    translations,
)

from . import languages
from .assets import IMPORT_MAP, static_url
from .folding import TranslatedEnvironment

#: Each suit's symbol, by the engine's suit number (spades, hearts, diamonds, clubs).
_SYMBOL_OF_SUIT: Final = "♠♥♦♣"
#: The suits a deal of each suit count is dealt from, shown beside its name: ``♠♥`` for 2.
SUIT_SYMBOLS: Final = {
    suits: "".join(_SYMBOL_OF_SUIT[suit] for suit in dict.fromkeys(PACK_RUNS[suits]))
    for suits in SUIT_COUNTS
}


def card_face(text: str) -> str:
    """A card of board text as its face reads: rank and suit symbol (``TH`` is ``10♥``).

    >>> card_face("TH"), card_face("AS")
    ('10♥', 'A♠')
    """
    card = parse_card(text)
    face = "10" if rank(card) == 10 else RANK_LETTERS[rank(card) - 1]
    return face + _SYMBOL_OF_SUIT[suit(card)]


def hour_minute(moment: str | datetime) -> str:
    """``14:03`` of an ISO 8601 time (the server's times are UTC)."""
    parsed = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    return formats.hour_minute(parsed)


def long_day(day: date) -> str:
    """``Sunday 1 March 2026``, in the language being spoken."""
    return formats.long_day(day)


def url(path: str, **params: Any) -> str:
    """``path`` with the query ``params`` that are not None (values URL-encoded)."""
    return _url(path, tuple(params.items()))


@lru_cache(maxsize=4096)
def _url(path: str, params: tuple[tuple[str, Any], ...]) -> str:
    # kept: a page links the same few dozen URLs on every request
    given = [(name, value) for name, value in params if value is not None]
    return f"{path}?{urlencode(given)}" if given else path


def segment(text: str) -> str:
    """``text`` as one path segment (``/`` and everything else unsafe encoded)."""
    return quote(text, safe="")


def suits_name(suits: int) -> str:
    """``1 suit``, ``2 kolory``, ``4 масти``."""
    return _suits_name(suits, current_language())


@lru_cache(maxsize=64)
def _suits_name(suits: int, language: Language) -> str:
    # kept: a page names suit counts a dozen times, and there are three of them
    with speaking(language):
        return ngettext("%(count)s suit", "%(count)s suits", suits) % {"count": suits}


#: What each suit count is called in the app the rules come from ("Łatwy" is 1 suit).
_DIFFICULTY: Final = {1: N_("Easy"), 2: N_("Medium"), 4: N_("Hard")}


def difficulty(suits: int) -> str:
    return gettext(_DIFFICULTY[suits])


def _environment_speaking(language: Language) -> TranslatedEnvironment:
    """The templates as ``language`` says them: an environment a language, whose ``_()``
    and ``{% trans %}`` ask that language's catalog straight away (a page's sentences are
    the most frequent lookup of all: no context variable read for each)."""
    environment = TranslatedEnvironment(
        translations(language),
        loader=PackageLoader("server.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        auto_reload=False,  # the templates are the package's: no file is looked at again
        trim_blocks=True,
        lstrip_blocks=True,
        enable_async=False,
        extensions=["jinja2.ext.i18n"],
    )
    # The sentences of a block of {% trans %} are read as one line, whatever its layout.
    environment.policies["ext.i18n.trimmed"] = True
    # newstyle: the template's `_()` escapes its result and formats its keyword arguments
    environment.install_gettext_translations(  # type: ignore[attr-defined]
        translations(language), newstyle=True
    )
    environment.filters.update(
        card_face=card_face, clock=formats.clock, hour_minute=hour_minute, long_day=long_day,
        segment=segment, suits_name=suits_name, difficulty=difficulty,
        short_day=formats.short_day, month_name=formats.month_name, number=formats.number,
        tenths=formats.tenths,
    )  # fmt: skip
    environment.globals.update(
        static=static_url,
        import_map=Markup(IMPORT_MAP),
        url=url,
        SUIT_COUNTS=SUIT_COUNTS,
        SUIT_SYMBOLS=SUIT_SYMBOLS,
    )
    return environment


_ENVIRONMENTS: Final = {language: _environment_speaking(language) for language in LANGUAGES}


def page(template: str, context: dict[str, Any]) -> str:
    """A whole page."""
    return _ENVIRONMENTS[current_language()].get_template(template).render(context)


@dataclass(frozen=True)
class LanguageLinks:
    """A page's links to itself in the other languages, as markup."""

    head: Markup
    picker: Markup


@lru_cache(maxsize=1024)
def language_links(path: str, query: str, language: Language) -> LanguageLinks:
    """The hreflang links and the picker of the page at ``path?query``: the same for every
    request of a page, so made once (they are most of what a page's languages cost)."""
    context = {"languages": languages.choices(path, query, language)}
    with speaking(language):
        return LanguageLinks(
            Markup(block("languages.html", "head", context)),
            Markup(block("languages.html", "picker", context)),
        )


def block(template: str, name: str, context: dict[str, Any]) -> str:
    """One block of a page alone (the part a browser fetches again to stay live)."""
    compiled = _ENVIRONMENTS[current_language()].get_template(template)
    return "".join(compiled.blocks[name](compiled.new_context(context)))
