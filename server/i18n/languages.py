"""The languages the server speaks, and how a request chooses one.

A new language is one line of :data:`NATIVE_NAMES` and its ``.po`` files (docs/translating.md).
"""

from __future__ import annotations

from typing import Final, Literal, get_args

#: The languages, by their BCP 47 tag: what ``<html lang>``, ``?lang=``, the cookie, an
#: account and the websocket's ``hello`` carry.
Language = Literal["en", "pl", "ru"]
LANGUAGES: Final[tuple[Language, ...]] = get_args(Language)
#: The catalogs' source language, and the language of a request that names none we have.
DEFAULT_LANGUAGE: Final[Language] = "en"

#: Each language's name in itself, as the picker shows it (never translated).
NATIVE_NAMES: Final[dict[Language, str]] = {"en": "English", "pl": "Polski", "ru": "Русский"}


def language_named(text: str | None) -> Language | None:
    """The language ``text`` names (``pl``, ``pl-PL``, ``ru_RU.UTF-8``, ``PL``), or None."""
    if not text:
        return None
    primary = text.strip().replace("_", "-").split("-", 1)[0].split(".", 1)[0].lower()
    return next((language for language in LANGUAGES if language == primary), None)


def native_name(language: Language) -> str:
    return NATIVE_NAMES[language]


def negotiate(accept_language: str) -> Language | None:
    """The language an ``Accept-Language`` header prefers among ours, or None.

    Each range's quality is honoured (``q=0`` refuses it), and ties keep the header's
    order, as RFC 9110 says; ``*`` takes no language of its own.

    >>> negotiate("de-DE, pl;q=0.9, en;q=0.8")
    'pl'
    >>> negotiate("ru;q=0, en")
    'en'
    """
    ranked: list[tuple[float, int, Language]] = []
    for position, part in enumerate(accept_language.split(",")):
        tag, *parameters = (item.strip() for item in part.split(";"))
        quality = 1.0
        for parameter in parameters:
            if parameter.startswith("q="):
                try:
                    quality = float(parameter[2:])
                except ValueError:
                    quality = 0.0
        language = language_named(tag)
        if language is not None and quality > 0:
            ranked.append((-quality, position, language))
    return min(ranked)[2] if ranked else None
