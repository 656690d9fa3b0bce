"""Which language a request speaks, and the plural forms each language's catalog picks."""

from __future__ import annotations

import json
from datetime import date
from gettext import c2py

import pytest
from babel.core import Locale
from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st

from server.i18n import (
    LANGUAGES,
    Language,
    gettext,
    language_named,
    ngettext,
    speaking,
    translations,
)
from server.i18n.catalogs import BROWSER, DOMAINS, TRANSLATED, categories, po_path
from server.i18n.formats import long_day
from server.i18n.languages import negotiate

#: The counts the issue names: every plural category of Polish and Russian among them.
COUNTS = (0, 1, 2, 5, 12, 21, 22, 25, 112)


def test_a_language_is_named_by_its_tag_in_any_of_its_spellings() -> None:
    assert [language_named(text) for text in ("pl", "pl-PL", "PL", "ru_RU.UTF-8")] == [
        "pl", "pl", "pl", "ru",
    ]  # fmt: skip
    assert [language_named(text) for text in ("", None, "de", "plx", "C")] == [None] * 5


def test_accept_language_is_read_by_quality_then_order() -> None:
    assert negotiate("de-DE, pl;q=0.9, en;q=0.8") == "pl"
    assert negotiate("en;q=0.5, ru;q=0.7") == "ru"
    assert negotiate("ru, pl") == "ru"  # a tie keeps the header's order
    assert negotiate("ru;q=0, en") == "en"  # q=0 refuses
    assert negotiate("de, fr, *") is None
    assert negotiate("pl;q=abc") is None


@given(st.text(max_size=200))
def test_no_accept_language_header_breaks_the_negotiation(header: str) -> None:
    assert negotiate(header) in (*LANGUAGES, None)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("pl", ["0 ruchów", "1 ruch", "2 ruchy", "5 ruchów", "12 ruchów", "21 ruchów",
                "22 ruchy", "25 ruchów", "112 ruchów"]),
        ("ru", ["0 ходов", "1 ход", "2 хода", "5 ходов", "12 ходов", "21 ход", "22 хода",
                "25 ходов", "112 ходов"]),
        ("en", ["0 moves", "1 move", "2 moves", "5 moves", "12 moves", "21 moves",
                "22 moves", "25 moves", "112 moves"]),
    ],
)  # fmt: skip
def test_moves_take_the_plural_form_of_each_count(language: str, expected: list[str]) -> None:
    with speaking(language):  # type: ignore[arg-type]
        said = [ngettext("%(count)s move", "%(count)s moves", n) % {"count": n} for n in COUNTS]
    assert said == expected


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_catalogs_plural_rule_is_cldr_s_in_python_and_in_the_browser(
    language: Language,
) -> None:
    """Counts of one CLDR category take one gettext form and counts of two categories two
    (the .po's Plural-Forms agrees with CLDR), and the browser's catalog files each form
    under the category Intl.PluralRules will ask for."""
    rule = Locale.parse(language).plural_form
    (server,) = [domain for domain in DOMAINS if domain.name == "server"]
    with po_path(server, language).open("rb") as po:
        catalog = read_po(po, locale=language)
    index_of = c2py(catalog.plural_expr)
    form_of: dict[str, set[int]] = {}
    for count in COUNTS:
        form_of.setdefault(rule(count), set()).add(index_of(count))
    assert set(form_of) == {"one", "few", "many"}
    assert all(len(forms) == 1 for forms in form_of.values())
    assert len(set.union(*form_of.values())) == 3
    assert categories(catalog, language) == {
        **{tag: next(iter(forms)) for tag, forms in form_of.items()},
        "other": catalog.num_plurals - 1,  # fractions, which no count here is
    }
    plurals = [message for message in catalog if isinstance(message.id, tuple)]
    assert plurals
    for message in plurals:
        singular, plural = (str(part) for part in message.id)
        assert isinstance(message.string, tuple)
        forms = [str(form) for form in message.string]
        for count in COUNTS:
            picked = translations(language).ngettext(singular, plural, count)
            assert picked == forms[index_of(count)], (singular, count)


def test_a_sentence_is_in_the_language_being_spoken_and_english_elsewhere() -> None:
    with speaking("pl"):
        polish = gettext("Today's daily challenge")
        with speaking("ru"):
            russian = gettext("Today's daily challenge")
        again = gettext("Today's daily challenge")
    assert (polish, russian, again) == ("Dzisiejsze wyzwanie dnia", "Партия дня", polish)
    assert gettext("Today's daily challenge") == "Today's daily challenge"


def test_days_are_written_as_each_language_writes_them() -> None:
    day = date(2026, 3, 1)
    said = {}
    for language in LANGUAGES:
        with speaking(language):
            said[language] = long_day(day)
    assert said == {
        "en": "Sunday 1 March 2026",
        "pl": "niedziela 1 marca 2026",
        "ru": "воскресенье 1 марта 2026",
    }


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("pl", ["0 ruchów", "1 ruch", "2 ruchy", "5 ruchów", "12 ruchów", "21 ruchów",
                "22 ruchy", "25 ruchów", "112 ruchów"]),
        ("ru", ["0 ходов", "1 ход", "2 хода", "5 ходов", "12 ходов", "21 ход", "22 хода",
                "25 ходов", "112 ходов"]),
    ],
)  # fmt: skip
def test_the_browsers_catalog_gives_each_count_its_cldr_form(
    language: Language, expected: list[str]
) -> None:
    """What play/i18n/LANG.json and LANG.later.json hand ``tn()``: each plural's forms by
    the category ``Intl.PluralRules`` names (Babel's CLDR rule stands in for the browser's
    here), the same forms gettext's Plural-Forms picks for every count."""
    rule = Locale.parse(language).plural_form
    browser = {  # the words of the modules loaded at once, and of those loaded when needed
        **json.loads((BROWSER / f"{language}.json").read_text())["messages"],
        **json.loads((BROWSER / f"{language}.later.json").read_text())["messages"],
    }
    said = [browser["%(count)s move"][rule(count)] % {"count": count} for count in COUNTS]
    assert said == expected
    (play,) = [domain for domain in DOMAINS if domain.name == "play"]
    with po_path(play, language).open("rb") as po:
        catalog = read_po(po, locale=language)
    index_of = c2py(catalog.plural_expr)
    plurals = [message for message in catalog if isinstance(message.id, tuple)]
    assert len(plurals) >= 5
    for message in plurals:
        forms = browser[str(message.id[0])]
        assert isinstance(message.string, tuple)
        for count in COUNTS:
            assert forms[rule(count)] == message.string[index_of(count)], (message.id, count)
