"""Cards as small ints, their text both ways, and the packs of 1, 2 and 4 suits."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.engine import (
    ACE,
    CLUBS,
    HEARTS,
    KING,
    SPADES,
    SUIT_COUNTS,
    InvalidBoardError,
    card_text,
    make_card,
    pack,
    parse_card,
    rank,
    suit,
)

ranks = st.integers(min_value=ACE, max_value=KING)
suits = st.integers(min_value=SPADES, max_value=CLUBS)


@given(rank_=ranks, suit_=suits)
def test_a_card_keeps_its_rank_and_suit_and_reads_back_from_its_text(
    rank_: int, suit_: int
) -> None:
    card = make_card(rank_, suit_)
    assert (rank(card), suit(card)) == (rank_, suit_)
    assert parse_card(card_text(card)) == card
    assert parse_card(card_text(card).lower()) == card


def test_every_card_of_the_four_suit_pack_has_its_own_text() -> None:
    texts = [card_text(card) for card in pack(4)]
    assert len(set(texts)) == 52
    assert texts[:13] == [
        "AS",
        "2S",
        "3S",
        "4S",
        "5S",
        "6S",
        "7S",
        "8S",
        "9S",
        "TS",
        "JS",
        "QS",
        "KS",
    ]


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("10h", make_card(10, HEARTS)),
        (" ks ", make_card(KING, SPADES)),
        ("Ac", make_card(ACE, CLUBS)),
    ],
)
def test_ten_may_be_written_10_and_case_and_spaces_do_not_matter(text: str, card: int) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "1S", "KX", "TEN", "10", "AS AS", "ZH"])
def test_text_that_is_not_a_card_is_refused_with_the_way_to_write_one(text: str) -> None:
    with pytest.raises(InvalidBoardError, match="write a rank"):
        parse_card(text)


@pytest.mark.parametrize("suits", SUIT_COUNTS)
def test_a_pack_is_four_runs_of_ace_to_king_in_as_many_suits_as_asked(suits: int) -> None:
    cards = pack(suits)
    assert len(cards) == 52
    assert len({suit(card) for card in cards}) == suits
    assert Counter(rank(card) for card in cards) == {r: 4 for r in range(ACE, KING + 1)}
    runs = [cards[i : i + 13] for i in range(0, 52, 13)]
    assert all([rank(card) for card in run] == list(range(ACE, KING + 1)) for run in runs)
    assert all(len({suit(card) for card in run}) == 1 for run in runs)


@pytest.mark.parametrize("suits", [0, 3, 5, -1])
def test_no_pack_has_another_suit_count(suits: int) -> None:
    with pytest.raises(InvalidBoardError, match=f"not {suits}"):
        pack(suits)
