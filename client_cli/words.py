"""The words ``simon`` says (docs/client.md, "Language"): ``--lang CODE``, else the
account's language last heard from the server (kept in the config folder), else ``LC_ALL``,
``LC_MESSAGES``, ``LANG`` (the first that names a language we have; ``C`` and ``POSIX`` mean
English), else English. An explicit choice (``--lang``) wins and is kept on the account; an
ambient one yields to the account's language once the server says it (:func:`follow`).

Sentences are marked ``_("...")``, counted ones ``ngettext(one, other, n)`` (CLDR's plural
rule of the language: Polish and Russian have three forms), constants ``N_("...")`` and
looked up with ``_`` where they are shown. They are looked up in the ``cli`` catalog of
``server.i18n`` (``python -m server.i18n.catalogs`` extracts and compiles it). argparse's
own words (``usage:``, ``error:``, ...) go through the same catalog.

>>> use("pl")
>>> ngettext("%(count)s move", "%(count)s moves", 22) % {"count": 22}
'22 ruchy'
>>> use("en")
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Literal

from babel.numbers import format_decimal
from rich.cells import cell_len

from server.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    Language,
    language_named,
    speaking,
    translations,
)
from server.i18n import formats as _formats

#: The gettext domain of the terminal client.
DOMAIN = "cli"
#: Where the language may come from, in order, after ``--lang``.
ENVIRONMENT = ("LC_ALL", "LC_MESSAGES", "LANG")
#: Locale names that mean the untranslated messages: English.
ENGLISH_LOCALES = ("C", "POSIX")

_language: Language = DEFAULT_LANGUAGE
_explicit = False


def language() -> Language:
    """The language ``simon`` speaks."""
    return _language


def explicit() -> bool:
    """Whether the language was chosen with ``--lang``: a choice the account is to keep
    (``set_language``), not a default that yields to the account's."""
    return _explicit


def _(message: str) -> str:
    return translations(_language, DOMAIN).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``count``; the caller formats ``%(count)s`` into it."""
    return translations(_language, DOMAIN).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a constant for the catalog; ``_`` looks it up where it is shown."""
    return message


def from_environment(environ: Mapping[str, str]) -> Language | None:
    """The language the locale variables name: the first of ``LC_ALL``, ``LC_MESSAGES``
    and ``LANG`` that names one we have (``C``, ``POSIX``: English), or None.

    >>> from_environment({"LANG": "ru_RU.UTF-8"}), from_environment({"LC_ALL": "C.UTF-8"})
    ('ru', 'en')
    """
    for variable in ENVIRONMENT:
        value = environ.get(variable, "").strip()
        if not value:
            continue
        if value.split(".", 1)[0].split("@", 1)[0] in ENGLISH_LOCALES:
            return "en"
        found = language_named(value)
        if found is not None:
            return found
    return None


def lang_option(argv: Sequence[str]) -> str | None:
    """The value of ``--lang CODE`` (or ``--lang=CODE``) among the arguments, if any:
    read before argparse, whose help and errors are said in it."""
    for index, argument in enumerate(argv):
        if argument == "--":
            break
        if argument == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
        if argument.startswith("--lang="):
            return argument.split("=", 1)[1]
    return None


def choose(
    argv: Sequence[str],
    environ: Mapping[str, str] | None = None,
    account: Language | None = None,
) -> Language:
    """The language of this run: ``--lang``, the account's (``account``: as last heard
    from the server), the locale variables, else English.

    >>> choose([], {"LANG": "pl_PL.UTF-8"}, "ru"), choose(["--lang", "pl"], {}, "ru")
    ('ru', 'pl')
    """
    given = language_named(lang_option(argv))
    if given is not None:
        return given
    if account is not None:
        return account
    found = from_environment(os.environ if environ is None else environ)
    return found if found is not None else DEFAULT_LANGUAGE


def start(
    argv: Sequence[str],
    environ: Mapping[str, str] | None = None,
    account: Language | None = None,
) -> Language:
    """Speak the language :func:`choose` picks, explicit if ``--lang`` named it."""
    chosen = choose(argv, environ, account)
    use(chosen, explicit=language_named(lang_option(argv)) is not None)
    return chosen


def follow(account: Language | None) -> bool:
    """The account's language as the server says it (``player.language``): spoken from now
    on, unless ``--lang`` chose this run's, or the account has none. Whether it changed.

    >>> follow("pl"), language(), follow(None), language()
    (True, 'pl', False, 'pl')
    >>> use("en")
    """
    if _explicit or account is None or account == _language:
        return False
    use(account)
    return True


def use(chosen: Language, *, explicit: bool = False) -> None:
    """Speak ``chosen`` from now on (``explicit``: as ``--lang`` chose it), argparse's own
    words too (its messages are gettext lookups of the module's ``_`` and ``ngettext``:
    they are pointed at this catalog)."""
    global _language, _explicit
    _language = chosen
    _explicit = explicit
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def language_code(text: str) -> Language:
    """``--lang``'s checker for argparse (``pl``, ``ru_RU.UTF-8``, ``en``)."""
    found = language_named(text)
    if found is None:
        raise argparse.ArgumentTypeError(
            _("%(given)r is not a language of simon: give %(codes)s")
            % {"given": text, "codes": ", ".join(LANGUAGES)}
        )
    return found


# -- numbers, days and times, as the language writes them ---------------------------------


def clock(seconds: float) -> str:
    """``4:05``, ``1:04:05``: the one clock of the server and the client."""
    return _formats.clock(seconds)


def number(value: int | float) -> str:
    with speaking(_language):
        return _formats.number(value)


def tenths(value: float) -> str:
    with speaking(_language):
        return _formats.tenths(value)


def hundredths(value: float) -> str:
    """``2.50``, ``2,50``: two decimals, with the language's decimal sign."""
    return format_decimal(value, format="0.00", locale=_language)


def short_day(day: date) -> str:
    with speaking(_language):
        return _formats.short_day(day)


def long_day(day: date) -> str:
    with speaking(_language):
        return _formats.long_day(day)


# -- columns of text, by the width a terminal gives them -----------------------------------


def width(text: str) -> int:
    """The cells ``text`` takes on a terminal: a wide letter two, a combining mark none."""
    return cell_len(text)


def pad(text: str, size: int, align: Literal["<", ">"] = "<") -> str:
    """``text`` padded with spaces to ``size`` cells (``>``: on the left)."""
    room = " " * max(0, size - width(text))
    return room + text if align == ">" else text + room


# argparse's own sentences (Python 3.11's), marked here for the catalog: they are
# looked up through :func:`use`'s hook, by argparse itself.
ARGPARSE = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("unrecognized arguments: %(args)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
)


def _argparse_plurals(count: int) -> tuple[str, ...]:
    """argparse's counted sentences, marked for the catalog (never called)."""
    return (
        ngettext("expected %s argument", "expected %s arguments", count),
        ngettext("conflicting option string: %s", "conflicting option strings: %s", count),
    )
