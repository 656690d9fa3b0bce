"""Keep the catalogs: ``python -m server.i18n.catalogs`` extracts every marked sentence
(``pybabel extract``), merges it into each language's ``.po`` (``pybabel update``),
compiles the ``.mo`` files (``pybabel compile``) and writes the browser's catalogs
(``static/play/i18n/LANG.json``: the words of the modules a page loads first;
``LANG.later.json``: those only the modules loaded when needed say, fetched with them).
``--check`` changes nothing and fails when any of those would change a file, or when a
Polish or Russian entry is missing, empty or fuzzy: what ``scripts/test`` runs.

Run from the project's root (the mappings name its paths).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from gettext import c2py
from pathlib import Path
from typing import Final

from babel.core import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_file
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from .languages import DEFAULT_LANGUAGE, LANGUAGES

HERE: Final = Path(__file__).parent
LOCALES: Final = HERE / "locales"
#: The browser's catalogs, two static (versioned, cached) files per language.
BROWSER: Final = HERE.parent / "web" / "static" / "play" / "i18n"
STATIC: Final = HERE.parent / "web" / "static"
#: The modules the pages load: the play page's, and every other page's.
ENTRIES: Final = ("play/main.js", "app.js")
#: A static import of a module beside it (``import { t } from "./i18n.js"``, ``import
#: "./x.js"``), not a module loaded when needed (``import("./x.js")``).
_STATIC_IMPORT: Final = re.compile(r'^\s*(?:import|export)\s[^;()]*?"(\./[\w./-]+\.js)"', re.M)


@dataclass(frozen=True)
class Domain:
    name: str
    #: the JavaScript's lookups: ``t(id)`` and ``tn(one, other, count)``
    keywords: tuple[str, ...] = ()
    #: written as JSON for the browser, not compiled for Python
    browser: bool = False


DOMAINS: Final = (
    # a refusal's sentence is its second argument: Refused(code, "...", params=...)
    Domain("server", keywords=("Refused:2", "LimitRefusal:2")),
    Domain("play", keywords=("t", "tn:1,2"), browser=True),
    Domain("cli"),
)
TRANSLATED: Final = tuple(language for language in LANGUAGES if language != DEFAULT_LANGUAGE)


def _pybabel(*arguments: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *arguments])  # type: ignore[no-untyped-call]


def extract(domain: Domain, into: Path) -> Catalog:
    """Every sentence the sources mark for ``domain`` (``pybabel extract``)."""
    keywords = [argument for keyword in domain.keywords for argument in ("-k", keyword)]
    _pybabel(
        "extract", "-F", str(HERE / f"{domain.name}.cfg"), *keywords,
        "--no-location", "--sort-output", "-o", str(into), ".",
    )  # fmt: skip
    with into.open("rb") as template:
        return read_po(template)


def po_path(domain: Domain, language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{domain.name}.po"


def _read(path: Path, language: str) -> Catalog:
    with path.open("rb") as po:
        return read_po(po, locale=language)


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def first_modules() -> set[Path]:
    """The modules a page loads at once: :data:`ENTRIES` and what they import, statically."""
    found: set[Path] = set()
    waiting = [(STATIC / entry).resolve() for entry in ENTRIES]
    while waiting:
        module = waiting.pop()
        if module in found:
            continue
        found.add(module)
        imported = _STATIC_IMPORT.findall(module.read_text(encoding="utf-8"))
        waiting.extend((module.parent / name).resolve() for name in imported)
    return found


def first_ids(domain: Domain) -> set[str]:
    """The ids the modules loaded at once say (a plural by its singular): the first file's."""
    keywords = {"t": None, "tn": (1, 2)}
    ids: set[str] = set()
    for module in first_modules():
        for _line, message, _comments, _context in extract_from_file(
            "javascript", str(module), keywords=keywords
        ):
            ids.add(message if isinstance(message, str) else str(message[0]))
    return ids


def _id_of(message: Message) -> str:
    """A message's id as the browser looks it up: a plural's by its singular."""
    return str(message.id if isinstance(message.id, str) else message.id[0])


def browser_catalog(catalog: Catalog, language: str, ids: set[str] | None = None) -> bytes:
    """``{"lang", "messages"}``: each id's sentence, a plural's forms by CLDR category
    (``one``, ``few``, ``many``, ``other``) for ``Intl.PluralRules`` to pick from; with
    ``ids``, those ids' alone."""
    form_of = categories(catalog, language)
    messages: dict[str, str | dict[str, str]] = {}
    for message in catalog:
        if not message.id or not message.string:
            continue
        if ids is not None and _id_of(message) not in ids:
            continue
        if isinstance(message.id, tuple):
            forms = [str(form) for form in message.string]
            singular = str(message.id[0])
            messages[singular] = {tag: forms[index] for tag, index in form_of.items()}
        else:
            assert isinstance(message.string, str)
            messages[str(message.id)] = message.string
    text = json.dumps({"lang": language, "messages": messages}, ensure_ascii=False, indent=0)
    return (text + "\n").encode()


def categories(catalog: Catalog, language: str) -> dict[str, int]:
    """Which gettext form (its index in ``msgstr[N]``) each CLDR category of ``language``
    is, found by asking both rules of the same counts: the browser picks by category
    (``Intl.PluralRules``), gettext by index. A category no whole count has (Polish
    ``other`` is for fractions) takes the last form."""
    rule = Locale.parse(language).plural_form
    index_of = c2py(catalog.plural_expr)
    found: dict[str, int] = {}
    for count in range(200):
        found.setdefault(rule(count), index_of(count))
    for tag in rule.tags | {"other"}:
        found.setdefault(tag, catalog.num_plurals - 1)
    return dict(sorted(found.items()))


def problems(catalog: Catalog, template: Catalog, language: str) -> Iterator[str]:
    """What keeps ``catalog`` from being complete against ``template``."""
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, message.context)
        label = f"{language}: {message.id!r}"
        if found is None:
            yield f"{label} is missing (run python -m server.i18n.catalogs)"
        elif found.fuzzy:
            yield f"{label} is fuzzy"
        elif not found.string or (isinstance(found.string, tuple) and not all(found.string)):
            yield f"{label} is untranslated"
    for message in catalog.obsolete.values():
        yield f"{language}: {message.id!r} is obsolete (run python -m server.i18n.catalogs)"


def _outputs(domain: Domain) -> Iterator[tuple[Path, bytes]]:
    """Each compiled file of ``domain`` and the bytes its ``.po`` files make of it."""
    first = first_ids(domain) if domain.browser else set()
    for language in TRANSLATED:
        catalog = _read(po_path(domain, language), language)
        if domain.browser:
            later = {_id_of(message) for message in catalog} - first
            yield BROWSER / f"{language}.json", browser_catalog(catalog, language, first)
            yield BROWSER / f"{language}.later.json", browser_catalog(catalog, language, later)
        else:
            yield po_path(domain, language).with_suffix(".mo"), compiled(catalog)
    if domain.browser:  # English is the source: its files hold no message
        for name in (f"{DEFAULT_LANGUAGE}.json", f"{DEFAULT_LANGUAGE}.later.json"):
            yield BROWSER / name, browser_catalog(Catalog(), DEFAULT_LANGUAGE)


def _undated(po: bytes) -> list[bytes]:
    """A ``.po`` file's lines but its ``POT-Creation-Date``, which each extraction renews."""
    return [line for line in po.splitlines() if not line.startswith(b'"POT-Creation-Date:')]


def update(domain: Domain, work: Path) -> None:
    template_path = work / f"{domain.name}.pot"
    extract(domain, template_path)
    for language in TRANSLATED:
        po = po_path(domain, language)
        if not po.exists():
            po.parent.mkdir(parents=True, exist_ok=True)
            _pybabel("init", "-D", domain.name, "-i", str(template_path),
                     "-d", str(LOCALES), "-l", language, "--no-wrap")  # fmt: skip
        before = po.read_bytes()
        _pybabel("update", "-D", domain.name, "-i", str(template_path), "-d", str(LOCALES),
                 "-l", language, "--no-wrap", "--ignore-obsolete",
                 "--no-fuzzy-matching")  # fmt: skip
        if _undated(po.read_bytes()) == _undated(before):
            po.write_bytes(before)  # only the extraction's date is new: keep the file as it was
    for path, body in _outputs(domain):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)


def check(domain: Domain, work: Path) -> list[str]:
    template = extract(domain, work / f"{domain.name}.pot")
    found: list[str] = []
    for language in TRANSLATED:
        po = po_path(domain, language)
        if not po.exists():
            found.append(f"{language}: {po.name} does not exist")
            continue
        found += [f"{domain.name} {problem}" for problem in
                  problems(_read(po, language), template, language)]  # fmt: skip
    for path, body in _outputs(domain):
        if not path.exists() or path.read_bytes() != body:
            found.append(f"{path.name} of {domain.name} is not up to date with its .po")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.i18n.catalogs", description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; fail if stale")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        if not options.check:
            for domain in DOMAINS:
                update(domain, Path(work))
            return 0
        found = [problem for domain in DOMAINS for problem in check(domain, Path(work))]
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
