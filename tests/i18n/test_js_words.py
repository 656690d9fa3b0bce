"""No English sentence in the browser's JavaScript outside ``t()`` and ``tn()``: every word a
person reads on ``/play`` (and the live parts of the other pages) comes from the "play"
catalog, so a page in Polish or Russian holds no English (docs/translating.md).

The scripts are tokenised (comments skipped; strings, template literals and the text
between a template's ``${...}`` read; regular expressions told from division), and a
literal is English when it holds two or more words in a row (``"gave up"``, ``"Score
in"``) or is one capitalised word said as a sentence (``"Won"``, ``"Copied"``). A
``t()``/``tn()`` id, what goes to the developer's console and the few words the page
sends as code (keys, selectors) are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import pytest

STATIC = Path(str(files("server.web").joinpath("static")))
#: What a literal may say that is no sentence for a person: the keys the page reads
#: (``event.key``), which are the same in every language, and HTTP's authorization scheme.
ALLOWED = {"Escape", "Enter", "Backspace", "Home", "End", "Tab", "Bearer"}
#: A call whose string arguments are for the developer, not the player.
DEVELOPER = re.compile(r"console\.(log|warn|error|info|debug)$")

#: Two words in a row: letters, one space apart (``"a message"``, ``"Not connected"``).
#: A class name's parts (``playing-card suit-``) are not words.
_PHRASE = re.compile(r"(?<![\w-])[A-Za-z]{2,}(?:['’][a-z]+)? +[A-Za-z]{2,}(?![\w-])")
#: One capitalised word said as a sentence: ``Won``, ``Copied``, ``Connecting…``, ``Go!``.
_SENTENCE_WORD = re.compile(r"[A-Z][a-z]+[.!?…]*")
#: After these a ``/`` begins a regular expression, not a division.
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {"", "return", "typeof", "case", "of", "in"}


@dataclass(frozen=True)
class Literal:
    text: str
    line: int
    #: the code before it on its line up to the literal: what it is an argument of
    before: str


def _template(
    source: str, start: int, line: int
) -> tuple[list[Literal], int, int, list[tuple[str, int]]]:
    """The template literal opening at ``start`` (a backtick): its text parts (each a
    literal), the index after it, the line it ends on, and its code parts (each with the
    line it begins on), to be scanned in turn."""
    literals: list[Literal] = []
    code: list[tuple[str, int]] = []
    index = start + 1
    part: list[str] = []
    part_line = line
    while index < len(source):
        char = source[index]
        if char == "\\":
            part.append(source[index : index + 2])
            index += 2
            continue
        if char == "`":
            literals.append(Literal("".join(part), part_line, ""))
            return literals, index + 1, line, code
        if char == "$" and source[index + 1 : index + 2] == "{":
            literals.append(Literal("".join(part), part_line, ""))
            part = []
            depth = 1
            index += 2
            begin = index
            while index < len(source) and depth:
                depth += {"{": 1, "}": -1}.get(source[index], 0)
                index += 1
            code.append((source[begin : index - 1], line))
            line += source.count("\n", begin, index)
            part_line = line
            continue
        if char == "\n":
            line += 1
        part.append(char)
        index += 1
    raise ValueError(f"an unclosed template literal from line {line}")


#: A catalog lookup in a template's ``${...}``, where ``pybabel extract`` does not look.
_HIDDEN_LOOKUP = re.compile(r"(?<![\w.$])tn?\(")


def literals(source: str, hidden: list[int] | None = None) -> Iterator[Literal]:
    """Every string and template literal of ``source`` (a script), with what precedes it;
    the line of each ``t()`` or ``tn()`` in a template's ``${...}`` goes to ``hidden``."""
    index = 0
    line = 1
    previous = ""  # the last significant token: to tell a regular expression from a division
    line_start = 0
    while index < len(source):
        char = source[index]
        pair = source[index : index + 2]
        if char == "\n":
            line += 1
            line_start = index + 1
            index += 1
        elif char.isspace():
            index += 1
        elif pair == "//":
            index = source.find("\n", index)
            index = len(source) if index < 0 else index
        elif pair == "/*":
            end = source.index("*/", index + 2) + 2
            line += source.count("\n", index, end)
            index = end
        elif char in "\"'":
            end = index + 1
            while source[end] != char:
                end += 2 if source[end] == "\\" else 1
            before = source[line_start:index]
            yield Literal(source[index + 1 : end], line, before)
            index = end + 1
            previous = "literal"
        elif char == "`":
            parts, index, end_line, code = _template(source, index, line)
            yield from parts
            for text, begins in code:
                if hidden is not None and _HIDDEN_LOOKUP.search(text):
                    hidden.append(begins)
                for literal in literals(text, hidden):
                    yield Literal(literal.text, begins + literal.line - 1, literal.before)
            line = end_line
            previous = "literal"
        elif char == "/" and previous in _BEFORE_REGEX:
            end = index + 1
            in_class = False
            while source[end] != "/" or in_class:
                if source[end] == "\\":
                    end += 1
                elif source[end] == "[":
                    in_class = True
                elif source[end] == "]":
                    in_class = False
                end += 1
            index = end + 1
            while index < len(source) and source[index].isalpha():
                index += 1  # its flags
            previous = "literal"
        elif char.isalnum() or char in "_$":
            end = index
            while end < len(source) and (source[end].isalnum() or source[end] in "_$"):
                end += 1
            previous = source[index:end]
            index = end
        else:
            previous = char
            index += 1


#: ``t("`` or ``tn("``, or ``tn("...", "`` (the plural): a catalog's id.
_LOOKUP = re.compile(
    r"""(?:^|[^\w.$])(?:t|tn)\(\s*$|(?:^|[^\w.$])tn\(\s*(["'])(?:\\.|(?!\1).)*\1\s*,\s*$"""
)


def english(literal: Literal) -> bool:
    """Whether ``literal`` says English a person reads, outside the catalog."""
    text = literal.text.strip()
    if not text or text in ALLOWED or _LOOKUP.search(literal.before):
        return False
    call = re.search(r"([\w.$]+)\(\s*$", literal.before)
    if call and DEVELOPER.search(call.group(1)):
        return False
    return bool(_PHRASE.search(text) or _SENTENCE_WORD.fullmatch(text))


def english_in(source: str) -> list[str]:
    return [f"{literal.line}: {literal.text!r}" for literal in literals(source) if english(literal)]


def _scripts() -> list[Path]:
    return sorted(STATIC.rglob("*.js"))


def test_the_lint_finds_english_outside_the_catalog() -> None:
    sample = """
    // a comment says "What it likes" and is not read
    /* nor "Here is" this */
    const a = t("Score %(score)s in %(count)s moves", { score });
    const b = tn("%(count)s move", "%(count)s moves", n);
    const c = `${count} moves left`;
    const d = "gave up";
    const e = "[data-action=restart], [data-action=resign]";
    element.textContent = "Won";
    if (key === "Escape") go(/"(\\w+)" it is/g, "x");
    console.warn("simon: a message of an unknown type", type);
    confirm('Sign out of this browser?');
    const f = `${label}: ${t("fine here")} and ${"not here"}`;
    """
    assert english_in(sample) == [
        "6: ' moves left'",
        "7: 'gave up'",
        "9: 'Won'",
        "12: 'Sign out of this browser?'",
        "13: 'not here'",
    ]


def test_the_lint_finds_english_in_a_script(tmp_path: Path) -> None:
    """It fails on a real file, as it reads them: the play page's old words, put back."""
    script = tmp_path / "old.js"
    script.write_text(
        'import { t } from "./i18n.js";\n'
        "export function over(won) {\n"
        '  return won ? t("Won") : "The game is over";\n'
        "}\n"
    )
    assert english_in(script.read_text()) == ["3: 'The game is over'"]


def test_the_scripts_are_read() -> None:
    """Every script is read to its end, and the play page's words are found in the
    catalog's lookups (the lint reads what the page says)."""
    found = [literal.text for path in _scripts() for literal in literals(path.read_text())]
    assert "Lifted %(cards)s from column %(column)s. Choose a column to put it on." in found
    assert "Solver review:" in found


def hidden_lookups(source: str) -> list[int]:
    hidden: list[int] = []
    for _ in literals(source, hidden):
        pass
    return hidden


def test_a_lookup_in_a_template_is_found() -> None:
    assert hidden_lookups('a(`✗ ${t("Nowhere")}`);\nb(`${x.t(1)} ${tn("a", "b", 2)}`);') == [1, 2]


@pytest.mark.parametrize("path", _scripts(), ids=lambda path: str(path.relative_to(STATIC)))
def test_a_script_says_no_english_outside_the_catalog(path: Path) -> None:
    assert english_in(path.read_text()) == []
    # pybabel reads no template literal: a sentence looked up in one is never extracted
    assert hidden_lookups(path.read_text()) == []
