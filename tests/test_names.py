"""A player's name: the rule (one alphabet, nothing invisible, 2 to 24 characters in NFC),
the caseless key and the look key (TS #39's confusable skeleton) that keep names apart."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.names import (
    NAME_MAX,
    look_key,
    name_fault,
    name_key,
    normal_name,
    skeleton,
)

NAMES = settings(max_examples=300, deadline=None)

#: Letters of one script each (with their cases), for names the rule takes.
ALPHABETS = {
    "Latin": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZąćęłńóśźżĄĆĘŁŃÓŚŹŻäöüßëéèçñ",
    "Cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯіїєґ",
    "Greek": "αβγδεζηθικλμνξοπρστυφχψωάέήίόύώΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ",
}
#: Cyrillic and Greek letters that look like Latin ones (their look keys are the same).
TWINS = {"a": "а", "c": "с", "e": "е", "o": "о", "p": "р", "x": "х", "y": "у", "A": "Α"}


def one_alphabet_names() -> st.SearchStrategy[str]:
    return st.sampled_from(sorted(ALPHABETS)).flatmap(
        lambda script: st.text(
            st.sampled_from(ALPHABETS[script] + "0123456789_-"), min_size=2, max_size=NAME_MAX
        )
    )


@pytest.mark.parametrize(
    "name",
    ["Łukasz", "Zoë", "Дмитрий", "Ελένη", "ann_2", "Bob-the-3rd", "12", "山田たろう", "ミラー",
     "김철수", "محمد", "राहुल", "Nguyễn", "Þórr", "Jan-Ōki"],
)  # fmt: skip
def test_names_in_their_own_alphabet_are_taken(name: str) -> None:
    assert name_fault(normal_name(name)) is None


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("a", "length"),
        ("x" * (NAME_MAX + 1), "length"),
        ("no spaces", "characters"),
        ("ann@home", "characters"),
        ("O'Neil", "characters"),
        ("\u0301ann", "characters"),  # a mark on no letter
        ("a\u0301\u0301nn", "characters"),  # one mark twice on a letter
        ("𝐀nna", "characters"),  # a mathematical letter: no alphabet's
        ("Dmitrий", "mixed-scripts"),
        ("аnna", "mixed-scripts"),  # a Cyrillic а, then Latin
        ("Αnna", "mixed-scripts"),  # a Greek Alpha, then Latin
        ("ann1١", "mixed-scripts"),  # digits of two kinds
        ("ann\u200dbo", "invisible"),  # zero width joiner
        ("ann\u200cbo", "invisible"),  # zero width non-joiner
        ("\u202eanna", "invisible"),  # right-to-left override
        ("anna\u200b", "invisible"),  # zero width space
        ("an\u00adna", "invisible"),  # soft hyphen
        ("anna\ufe0f", "invisible"),  # a variation selector
        ("\u3164\u3164", "invisible"),  # the Hangul filler
        ("ann\x00", "invisible"),
    ],
)
def test_names_breaking_the_rule_name_the_part_they_break(name: str, rule: str) -> None:
    fault = name_fault(normal_name(name))
    assert fault is not None and fault.rule == rule and fault.text


def test_the_length_is_counted_in_nfc() -> None:
    decomposed = "e\u0301" * NAME_MAX  # 48 code points, 24 letters once composed
    assert len(normal_name(decomposed)) == NAME_MAX
    assert name_fault(normal_name(decomposed)) is None
    assert normal_name(" Zoe\u0308 ") == "Zoë"


@NAMES
@given(one_alphabet_names())
def test_a_name_of_one_alphabet_is_taken_and_stays_itself(name: str) -> None:
    name = normal_name(name)
    if len(name) >= 2:
        assert name_fault(name) is None
        assert normal_name(name) == name
        assert name_key(normal_name(name)) == name_key(name)


@NAMES
@given(st.text(min_size=1, max_size=30))
def test_any_text_normalises_to_one_name_and_one_key(text: str) -> None:
    name = normal_name(text)
    assert normal_name(name) == name
    assert name_key(unicodedata.normalize("NFD", text)) == name_key(text)
    fault = name_fault(name)
    if fault is None:
        assert 2 <= len(name) <= NAME_MAX
        assert not any(unicodedata.category(char) in ("Cc", "Cf", "Zs") for char in name)


@NAMES
@given(st.text(min_size=1, max_size=12), st.text(min_size=1, max_size=12))
def test_names_equal_in_any_case_have_one_key(first: str, second: str) -> None:
    folded = [normal_name(text).casefold() for text in (first, second)]
    if folded[0] == folded[1]:
        assert name_key(first) == name_key(second)
    assert name_key(first) == name_key(first.upper()) == name_key(first.lower())


@NAMES
@given(st.text(st.sampled_from("acepxyoAnrst_-"), min_size=2, max_size=NAME_MAX), st.data())
def test_a_look_alike_in_other_letters_has_the_same_look_key(
    name: str, data: st.DataObject
) -> None:
    twin = "".join(
        TWINS[char] if char in TWINS and data.draw(st.booleans()) else char for char in name
    )
    assert look_key(twin) == look_key(name)


@NAMES
@given(st.text(max_size=12))
def test_a_skeleton_stays_put(text: str) -> None:
    assert skeleton(skeleton(text)) == skeleton(text)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("anna", "аnna"),  # Cyrillic а
        ("Anna", "аnna"),
        ("anna", "ΑΝΝΑ"),  # Greek capitals
        ("pace", "расе"),  # all Cyrillic
        ("PACE", "расе"),
        ("Bill", "BilI"),  # a capital I
        ("ann_1", "ann_l"),  # a digit one
        ("B0b", "Bob"),  # a zero
        ("paypal", "раураl"),
    ],
)
def test_names_that_look_alike_share_a_look_key(first: str, second: str) -> None:
    assert look_key(first) == look_key(second)


@pytest.mark.parametrize(
    ("first", "second"), [("anna", "anne"), ("Łukasz", "Lukasz"), ("Zoë", "Zoe"), ("ann", "анн")]
)
def test_names_that_do_not_look_alike_have_their_own(first: str, second: str) -> None:
    assert look_key(first) != look_key(second)


def test_the_confusables_go_from_each_character_to_its_prototype() -> None:
    """The data's pairs read in the direction of Unicode's confusables.txt (the library
    keeps them both ways): a few lines of that file."""
    for source, prototype in [("а", "a"), ("I", "l"), ("0", "O"), ("m", "rn"), ("ẚ", "ả")]:
        assert skeleton(source) == skeleton(prototype)
        assert skeleton(prototype) == unicodedata.normalize("NFD", skeleton(prototype))
    assert skeleton("l") == "l" and skeleton("O") == "O" and skeleton("rn") == "rn"
