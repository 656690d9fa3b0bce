"""The language being spoken (a context variable the edge sets) and its catalog's lookups."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from importlib.resources import files

from babel.support import NullTranslations, Translations

from .languages import DEFAULT_LANGUAGE, Language

#: The gettext domain of the server's sentences: templates, refusals, rules, share text.
DOMAIN = "server"

_SPEAKING: ContextVar[Language] = ContextVar("speaking", default=DEFAULT_LANGUAGE)


@cache
def translations(language: Language, domain: str = DOMAIN) -> NullTranslations:
    """``language``'s compiled catalog of ``domain``; English, the source, needs none."""
    if language == DEFAULT_LANGUAGE:
        return NullTranslations()
    folder = files("server.i18n").joinpath("locales", language, "LC_MESSAGES")
    with folder.joinpath(f"{domain}.mo").open("rb") as compiled:
        return Translations(compiled, domain=domain)


def current_language() -> Language:
    return _SPEAKING.get()


@contextmanager
def speaking(language: Language) -> Iterator[None]:
    """Speak ``language`` in this block (and in the tasks it starts)."""
    token = _SPEAKING.set(language)
    try:
        yield
    finally:
        _SPEAKING.reset(token)


def N_(message: str) -> str:
    """Marks ``message`` for the catalog where it is defined (a constant), to be looked up
    with :func:`gettext` where it is shown."""
    return message


def gettext(message: str) -> str:
    return translations(_SPEAKING.get()).gettext(message)


def say(message: str, params: Mapping[str, object] | None = None) -> str:
    """``message`` (a catalog id with ``%(name)s`` places) in the language being spoken,
    with ``params`` put in: what a refusal carries up to the edge, said there."""
    text = translations(_SPEAKING.get()).gettext(message)
    return text % params if params else text


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``count`` (CLDR's plural rule of the language: Polish and Russian have
    three); the caller formats ``%(count)s`` into it."""
    return translations(_SPEAKING.get()).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` in ``context``, for a word that is two words in another language."""
    return str(translations(_SPEAKING.get()).pgettext(context, message))
