"""The players' languages: which ones there are, which one a request speaks, and the
sentences and formats in it.

The languages are :data:`LANGUAGES` (English is the source, Polish and Russian the rules'
own). A sentence is looked up in the gettext catalog (``locales/LANG/LC_MESSAGES/*.mo``,
compiled by ``python -m server.i18n.catalogs``) of the language being spoken: the edge
(a page, a websocket reply, the terminal client) says which with :func:`speaking`, and the
code below it only marks its sentences with :func:`gettext` / :func:`ngettext`. Codes
(``code``, ``rule``) are never translated.

::

    with speaking("pl"):
        ngettext("%(count)s move", "%(count)s moves", 5) % {"count": 5}  # "5 ruchów"
"""

from __future__ import annotations

from .languages import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Language,
    language_named,
    native_name,
)
from .speaking import (
    N_,
    current_language,
    gettext,
    ngettext,
    pgettext,
    say,
    speaking,
    translations,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "N_",
    "Language",
    "current_language",
    "gettext",
    "language_named",
    "native_name",
    "ngettext",
    "pgettext",
    "say",
    "speaking",
    "translations",
]
