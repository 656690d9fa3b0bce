"""No template says a word of its own: every sentence a person reads is in the catalog
(``{% trans %}`` or ``_()``), so a page in Polish or Russian holds no English."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from importlib.resources import files

import pytest

TEMPLATES = files("server.web").joinpath("templates")
#: The templates still to be moved into the catalog: the play page's words are the browser
#: client's own catalog's (static/play/i18n), still to come.
NOT_YET: set[str] = set()
#: What a page may show in any language: the product's name.
NAMES = {"Simple", "Simon", "Online"}

_JINJA = re.compile(
    r"\{%-?\s*trans\b.*?\{%-?\s*endtrans\s*-?%\}|\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S
)
_WORD = re.compile(r"[^\W\d_]{2,}")


class _Words(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("aria-label", "title", "alt", "placeholder") and value:
                self.found += _WORD.findall(value)

    def handle_data(self, data: str) -> None:
        self.found += _WORD.findall(data)


def words_of(template: str) -> list[str]:
    """The words a template writes outside its catalog's lookups."""
    parser = _Words()
    parser.feed(_JINJA.sub(" ", template))
    return [word for word in parser.found if word not in NAMES]


def test_the_lint_finds_a_word_outside_the_catalog() -> None:
    assert words_of('<p title="a hint">{{ _("Play") }} now</p>') == ["hint", "now"]
    assert words_of("<p>{% trans n=1 %}{{ n }} move{% endtrans %} · 4:05</p>") == []


@pytest.mark.parametrize(
    "name", sorted(entry.name for entry in TEMPLATES.iterdir() if entry.name.endswith(".html"))
)
def test_a_template_writes_no_word_outside_the_catalog(name: str) -> None:
    words = words_of(TEMPLATES.joinpath(name).read_text())
    if name in NOT_YET:
        assert words, f"{name} is in the catalog now: take it out of NOT_YET"
    else:
        assert words == []


_PLURAL = re.compile(r"\{%-?\s*trans\b(.*?)-?%\}(.*?)\{%-?\s*endtrans\s*-?%\}", re.S)
_BARE_PLURALIZE = re.compile(r"\{%-?\s*pluralize\s*-?%\}")


@pytest.mark.parametrize(
    "name", sorted(entry.name for entry in TEMPLATES.iterdir() if entry.name.endswith(".html"))
)
def test_a_plural_counts_by_its_count(name: str) -> None:
    """Jinja picks a bare ``{% pluralize %}``'s form by the block's first value: a block
    whose first value is not its count names it (``{% pluralize count %}``), or Polish and
    Russian would be asked for the form of a deal code."""
    for values, body in _PLURAL.findall(TEMPLATES.joinpath(name).read_text()):
        if _BARE_PLURALIZE.search(body):
            first = values.split("=", 1)[0].strip()
            assert first == "count", f"{name}: {{% trans{values}%}} counts by {first!r}"
