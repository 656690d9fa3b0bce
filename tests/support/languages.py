"""What tells a page's language: the English catalog's sentences, to be found in no page
that speaks another language."""

from __future__ import annotations

import re
from functools import cache
from html.parser import HTMLParser

from babel.messages.pofile import read_po

from server.i18n.catalogs import DOMAINS, po_path

#: A placeholder or a tag: what splits a sentence into the words it says itself.
_NOT_WORDS = re.compile(r"%\([a-z_]+\)[sdr]|<[^>]+>|%%")


class _VisibleText(HTMLParser):
    """The text a person reads on a page: its text nodes and its accessible names and
    titles, without the script's and style's."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        for name, value in attrs:
            if name in ("aria-label", "title", "alt", "placeholder") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _VisibleText()
    parser.feed(page)
    return " ".join(" ".join(parser.parts).split())


@cache
def english_phrases(language: str, domain: str = "server") -> frozenset[str]:
    """The English catalog's phrases of two words or more that ``language`` says otherwise:
    each sentence cut at its placeholders and tags, and the cuts its translation keeps
    (a code, a command) left out."""
    (found,) = [item for item in DOMAINS if item.name == domain]
    with po_path(found, language).open("rb") as po:
        catalog = read_po(po, locale=language)
    phrases = set()
    for message in catalog:
        if not message.id:
            continue
        ids = (
            [str(part) for part in message.id]
            if isinstance(message.id, tuple)
            else [str(message.id)]
        )
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        translated = " ".join(str(string) for string in strings)
        for text in ids:
            for cut in _NOT_WORDS.split(text):
                cut = " ".join(cut.split()).strip(" .,;:()")
                if len(cut.split()) >= 2 and cut not in translated:
                    phrases.add(cut)
    return frozenset(phrases)


def english_in(page: str, language: str) -> list[str]:
    """The English catalog's phrases (the pages' and the browser client's) that a page in
    ``language`` shows."""
    text = visible_text(page)
    phrases = english_phrases(language) | english_phrases(language, "play")
    return sorted(phrase for phrase in phrases if phrase in text)
