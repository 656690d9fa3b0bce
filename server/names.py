"""A player's name: the rule it follows, the form it is kept in, and the two keys that keep
names apart (the store holds each under a unique index).

A name is 2 to 24 characters once in NFC: the letters of one script (Latin with its
diacritics, Cyrillic, Greek, Arabic, Devanagari, ...; Han goes with kana or Hangul, as
Japanese and Korean write), combining marks on those letters, digits of one kind, ``_`` and
``-``. No invisible character: no control, format or direction character (ZWJ, ZWNJ, RLO,
soft hyphen, ...), no filler, no variation selector.

- :func:`name_key`, the name regardless of case (Unicode's compatibility caseless form):
  ``Łukasz`` and ``ŁUKASZ`` are one name.
- :func:`look_key`, the name as it looks: the confusable skeleton of Unicode TS #39, of the
  skeleton's case-folded form, so a Cyrillic ``аnna`` and a Latin ``Anna`` (or ``BilI``, with
  a capital I, and ``Bill``) have one key, and the later is refused as taken.

The skeleton's data is Unicode's ``confusables.txt`` as ``confusable_homoglyphs`` ships it;
a character's scripts are ``fontTools.unicodedata``'s (Unicode's Script_Extensions).

>>> normal_name(" Zoe\\u0308 "), name_fault("Дмитрий"), name_fault("Dmitrий").rule
('Zoë', None, 'mixed-scripts')
>>> look_key("аnna") == look_key("Anna"), name_key("ŁUKASZ") == name_key("Łukasz")
(True, True)
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Final, Literal

from fontTools.unicodedata import script_extension

from server.i18n import N_

NAME_MIN: Final = 2
NAME_MAX: Final = 24
#: The most combining marks one letter carries (TS #39 suggests 4; NFC leaves few).
MOST_MARKS: Final = 4

#: Which part of the rule a name breaks: stable codes (an error's ``rule``).
NameRule = Literal["length", "characters", "invisible", "mixed-scripts"]


@dataclass(frozen=True)
class NameFault:
    """What is wrong with a name: the rule it breaks, and a sentence saying how (a catalog
    id, said in the player's language at the edge, with ``params`` put in)."""

    rule: NameRule
    message: str
    params: dict[str, object] | None = None

    @property
    def text(self) -> str:
        """The sentence in English (the catalog's source)."""
        return self.message % self.params if self.params else self.message


#: The general categories of characters nobody sees: controls, format and direction
#: characters (ZWJ, ZWNJ, RLO, LRM, soft hyphen), surrogates, private use, unassigned, and
#: the line and paragraph separators.
_INVISIBLE_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: The default-ignorable characters of other categories (Unicode's
#: Default_Ignorable_Code_Point, DerivedCoreProperties.txt): the combining grapheme
#: joiner, the Hangul fillers, Khmer's inherent vowels and the variation selectors.
_IGNORABLE: Final = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)
_CONNECTORS: Final = frozenset("_-")
#: Scripts no letter belongs to alone (Common, Inherited, Unknown).
_NEUTRAL: Final = frozenset({"Zyyy", "Zinh", "Zzzz"})
#: TS #39's augmented script sets: Han is written with kana (Japanese), with Hangul (Korean)
#: and with Bopomofo (Chinese), so each counts as one script with them.
_AUGMENTED: Final[dict[str, frozenset[str]]] = {
    "Hani": frozenset({"Hani", "Hanb", "Jpan", "Kore"}),
    "Hira": frozenset({"Hira", "Jpan"}),
    "Kana": frozenset({"Kana", "Jpan"}),
    "Hang": frozenset({"Hang", "Kore"}),
    "Bopo": frozenset({"Bopo", "Hanb"}),
}


def normal_name(text: str) -> str:
    """A name as it is kept: surrounding spaces stripped, in NFC (``e`` and a combining
    diaeresis become one ``ë``)."""
    return unicodedata.normalize("NFC", text.strip())


def _invisible(char: str) -> bool:
    if unicodedata.category(char) in _INVISIBLE_CATEGORIES:
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in _IGNORABLE)


def _scripts(char: str) -> frozenset[str] | None:
    """The scripts ``char`` is written in (augmented), or None for any script."""
    scripts = script_extension(char)
    if scripts <= _NEUTRAL:
        return None
    return frozenset().union(*(_AUGMENTED.get(script, {script}) for script in scripts))


def name_fault(name: str) -> NameFault | None:
    """What the naming rule finds wrong with ``name`` (taken as given: normalise it first
    with :func:`normal_name`), or None for a good name.

    >>> name_fault("ann_2"), name_fault("a").rule, name_fault("ann b").rule
    (None, 'length', 'characters')
    >>> name_fault("ann\\u200dbo").rule, name_fault("Αnna").rule
    ('invisible', 'mixed-scripts')
    """
    if not NAME_MIN <= len(name) <= NAME_MAX:
        return NameFault(
            "length",
            N_("a name is %(least)s to %(most)s characters long"),
            {"least": NAME_MIN, "most": NAME_MAX},
        )
    hidden = next((char for char in name if _invisible(char)), None)
    if hidden is not None:
        return NameFault(
            "invisible",
            N_("a name has no invisible, control or direction character (%(character)s)"),
            {"character": f"U+{ord(hidden):04X}"},
        )
    common: frozenset[str] | None = None  # the scripts every character so far is written in
    zeros: set[int] = set()  # the digits' kinds, by the code point of their zero
    after_letter = False
    for char in name:
        category = unicodedata.category(char)
        if category == "Nd":
            zeros.add(ord(char) - unicodedata.digit(char))
        elif category.startswith("M"):
            if not after_letter:
                return NameFault("characters", N_("a combining mark goes on a letter"))
        elif not category.startswith("L") and char not in _CONNECTORS:
            return NameFault(
                "characters",
                N_("a name uses only letters, digits, _ and -, not %(character)r"),
                {"character": char},
            )
        after_letter = category[0] in "LM"
        scripts = _scripts(char)
        if scripts is None:
            if category.startswith("L"):
                return NameFault(
                    "characters",
                    N_("%(character)r is not a letter of an alphabet"),
                    {"character": char},
                )
            continue
        common = scripts if common is None else common & scripts
        if not common:
            return NameFault("mixed-scripts", N_("a name's letters are of one alphabet"))
    if len(zeros) > 1:
        return NameFault("mixed-scripts", N_("a name's digits are of one kind"))
    if _piled_marks(name):
        return NameFault(
            "characters",
            N_("a letter carries at most %(most)s combining marks, each once"),
            {"most": MOST_MARKS},
        )
    return None


def _piled_marks(name: str) -> bool:
    """Whether a letter of ``name`` (decomposed) carries more than :data:`MOST_MARKS`
    nonspacing marks, or one twice: TS #39's checks against marks piled up or doubled."""
    marks = ""
    for char in unicodedata.normalize("NFD", name):
        if unicodedata.category(char) not in ("Mn", "Me"):
            marks = ""
        elif len(marks) == MOST_MARKS or char in marks:
            return True
        else:
            marks += char
    return False


def name_key(name: str) -> str:
    """The name regardless of case and of compatibility forms (Unicode's compatibility
    caseless match): ``Alice``, ``ALICE`` and ``ａｌｉｃｅ`` have one key."""
    folded = unicodedata.normalize("NFD", name).casefold()
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", folded).casefold())


_MARKS: Final = str.maketrans("", "", "\u200e\u200f")  # around right-to-left text in the data


@cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables.txt: each character that looks like another sequence, mapped to
    that sequence (its prototype).

    confusable_homoglyphs keeps each of the file's lines both ways (a source lists its
    prototype, a prototype its sources), in the file's order, each line's source first: so a
    source is a character listing one partner that lists it back alone after it, or lists
    others (or is a sequence)."""
    # read at the first skeleton (registration), not at every start of the client
    from confusable_homoglyphs.confusables import confusables_data

    pairs = {
        key.translate(_MARKS): [entry["c"].translate(_MARKS) for entry in entries]
        for key, entries in confusables_data.items()
    }
    order = {key: index for index, key in enumerate(pairs)}
    mapping = {}
    for key, partners in pairs.items():
        if len(key) != 1 or len(partners) != 1:
            continue
        (partner,) = partners
        back = pairs.get(partner, [])
        if len(partner) > 1 or len(back) > 1 or order[key] < order.get(partner, -1):
            mapping[key] = partner
    return mapping


def skeleton(text: str) -> str:
    """The confusable skeleton of Unicode TS #39: NFD, each character mapped to its
    prototype, NFD again (repeated until it stays put: a few prototypes map on).

    >>> skeleton("раypal") == skeleton("paypal") == "paypal"
    True
    """
    prototypes = _prototypes()
    text = unicodedata.normalize("NFD", text)
    for _ in range(4):
        mapped = unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in text))
        if mapped == text:
            break
        text = mapped
    return text


def look_key(name: str) -> str:
    """How ``name`` looks, in any letter case: the skeleton of its skeleton's caseless form.
    Two names with one key are too alike to tell apart: the later is taken."""
    return skeleton(name_key(skeleton(name)))


__all__ = [
    "NAME_MAX",
    "NAME_MIN",
    "NameFault",
    "NameRule",
    "look_key",
    "name_fault",
    "name_key",
    "normal_name",
    "skeleton",
]
