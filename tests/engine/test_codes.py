"""Game codes: the golden deals that pin the shuffle forever, parsing and refusals."""

from __future__ import annotations

import pytest

from server.engine import COLUMN_SIZES, Game, GameCode, InvalidCodeError, pack, playable_code
from server.engine.codes import DEALS_PER_SUIT_COUNT

# Generated once from the shuffle in server/engine/codes.py; a change here changes
# every deal ever played, so these strings must never be edited to make a test pass.
GOLDEN_DEALS: dict[str, str] = {
    "SS1-S1-AAAAAAA": (
        "QS 5S AS 9S 6S 5S 9S 8S\n"
        "5S AS KS 2S 3S QS JS KS\n"
        "6S 9S 8S QS 8S TS AS TS\n"
        "2S TS TS JS 3S 6S AS\n"
        "5S 6S 8S 7S 3S 4S\n"
        "2S 4S 4S 2S 7S\n"
        "7S KS QS 3S\n"
        "KS JS 4S\n"
        "7S 9S\n"
        "JS\n"
    ),
    "SS1-S1-AAAAABD": (
        "8S QS 2S QS 3S 3S JS QS\n"
        "AS 3S TS 2S QS 4S 5S 9S\n"
        "6S TS 6S AS JS TS 5S 8S\n"
        "8S 7S 9S 4S 2S JS 9S\n"
        "4S 8S 7S KS 5S KS\n"
        "TS KS AS 2S 6S\n"
        "3S JS 7S 9S\n"
        "KS 5S 6S\n"
        "AS 4S\n"
        "7S\n"
    ),
    "SS1-S1-QWERTYU": (
        "2S 3S TS KS TS 9S 6S 3S\n"
        "4S JS 8S 8S QS 5S QS 6S\n"
        "5S 4S 5S 9S 7S QS 6S 2S\n"
        "AS 6S 3S QS JS JS AS\n"
        "KS JS TS 9S 9S 3S\n"
        "8S 5S TS 8S 2S\n"
        "7S 4S 2S KS\n"
        "AS 7S AS\n"
        "4S 7S\n"
        "KS\n"
    ),
    "SS1-S1-ZZZZZZZ": (
        "3S TS TS 2S 4S KS JS 9S\n"
        "QS AS 7S 5S KS JS 5S 2S\n"
        "TS 8S 4S 6S 3S 4S AS QS\n"
        "JS 2S QS AS 2S 6S KS\n"
        "5S 9S 8S 3S KS QS\n"
        "TS 9S 4S 8S 6S\n"
        "7S 7S 7S 9S\n"
        "5S AS 3S\n"
        "8S 6S\n"
        "JS\n"
    ),
    "SS1-S2-AAAAAAA": (
        "4H 3H TS 3S 7S 2H 8S TH\n"
        "9S KH 5H TH 2H 6H 7H 9H\n"
        "5S JH 9S 2S JH 7S AS 6S\n"
        "4S 5S QH 6S 8S 6H 5H\n"
        "2S JS 4H 3H 8H TS\n"
        "4S KS KH 7H QS\n"
        "JS QH QS AH\n"
        "8H KS 9H\n"
        "AH 3S\n"
        "AS\n"
    ),
    "SS1-S2-AAAAABD": (
        "JH 3H 4H 4H KH 4S 6H QH\n"
        "KS AS 3S 5H KH TS AH QH\n"
        "6S AS AH 8S 2S 6S JS 7S\n"
        "KS TH QS 9S 7H JH 2H\n"
        "TH 8H 6H 7S 8H 3S\n"
        "9H 5S 7H 5S 5H\n"
        "3H 4S TS 2H\n"
        "2S QS 9S\n"
        "JS 9H\n"
        "8S\n"
    ),
    "SS1-S2-QWERTYU": (
        "4H JH AH JS KS 5S 4S JS\n"
        "QS TH 6S AS 8S QS TH 9S\n"
        "5S TS 2H 5H 9H AS 7H 9S\n"
        "TS 2S 2H JH KH 7S 6H\n"
        "3H 8H 3H 6S AH 4S\n"
        "2S 6H KH 3S 7S\n"
        "8H 3S QH 5H\n"
        "7H 8S KS\n"
        "4H 9H\n"
        "QH\n"
    ),
    "SS1-S2-ZZZZZZZ": (
        "KS KS 2S 7H 9H 9S 5S 8S\n"
        "7S 3H TH TS QH AS KH 6S\n"
        "AH 4S 3S QH QS 5H AH 4H\n"
        "3H 6S 2H 8H JH JS 4S\n"
        "TS 5S 6H TH 7S 8H\n"
        "9S 2S 7H JS KH\n"
        "5H AS 2H 6H\n"
        "8S JH 4H\n"
        "QS 9H\n"
        "3S\n"
    ),
    "SS1-S4-AAAAAAA": (
        "TS TD JD 4C 4D AS 8C 8S\n"
        "QS 7C 5S JC 6C 9C 4H 2H\n"
        "7H 5H 4S AC 3C 9S 3D 6D\n"
        "7D JH QD 6S AD 8D 3S\n"
        "9H 3H 7S 6H KD KS\n"
        "2D JS QH AH 5C\n"
        "TH 8H KH 2C\n"
        "TC 2S 9D\n"
        "QC KC\n"
        "5D\n"
    ),
    "SS1-S4-AAAAABD": (
        "8D 6C KH 9C 8C 7S KC 2C\n"
        "AS AH JC 8S 8H 5C 9S JS\n"
        "QH 4H KS TS 2H 6H JD 2D\n"
        "2S JH 9H 4S QC 3H 3C\n"
        "QD TH QS 3S 9D 7H\n"
        "TC 6S 5H KD 4C\n"
        "7D 3D 5S 7C\n"
        "AC 5D TD\n"
        "6D AD\n"
        "4D\n"
    ),
    "SS1-S4-QWERTYU": (
        "AC QH TC 4C 8S 9H AD TS\n"
        "5S 5D KC 4D JC QS 3H 4H\n"
        "2D 5H JH 3C 7H KD TH KH\n"
        "2C AS 8D 5C 3S 9C 9D\n"
        "TD 9S KS 4S 8H 7C\n"
        "6C JD JS 6D 6S\n"
        "6H QC 3D 7S\n"
        "AH 7D 2S\n"
        "2H QD\n"
        "8C\n"
    ),
    "SS1-S4-ZZZZZZZ": (
        "4D 3C 4C 4S QS 5D KD 7C\n"
        "JD 5C QH TH 2S 5S 5H 9C\n"
        "9D KC QC AS 7H 7S 9H 3S\n"
        "JS 2D 8D 6H 3H KH TS\n"
        "TC 6S TD 9S JC JH\n"
        "KS 7D QD 6D 3D\n"
        "8H 4H 2C AH\n"
        "8C AC 6C\n"
        "2H 8S\n"
        "AD\n"
    ),
}


@pytest.mark.parametrize("code", sorted(GOLDEN_DEALS))
def test_golden_deal_board_text_is_pinned(code: str) -> None:
    assert Game.from_code(code).board_text() == GOLDEN_DEALS[code]


def test_golden_deals_cover_every_suit_count_and_both_ends_of_the_numbers() -> None:
    parsed = [GameCode.parse(code) for code in GOLDEN_DEALS]
    for suits in (1, 2, 4):
        numbers = {code.number for code in parsed if code.suits == suits}
        assert {0, 26**7 - 1} <= numbers


@pytest.mark.parametrize("code", sorted(GOLDEN_DEALS))
def test_deal_uses_the_whole_pack_in_columns_of_8_8_8_7_6_5_4_3_2_1(code: str) -> None:
    parsed = GameCode.parse(code)
    columns = parsed.deal()
    sizes = tuple(len(column) for column in columns)
    assert sizes == COLUMN_SIZES == (8, 8, 8, 7, 6, 5, 4, 3, 2, 1)
    assert sorted(card for column in columns for card in column) == sorted(pack(parsed.suits))


def test_deal_is_the_same_every_time_and_differs_between_numbers() -> None:
    assert GameCode(4, 12345).deal() == GameCode(4, 12345).deal()
    assert GameCode(4, 12345).deal() != GameCode(4, 12346).deal()
    assert GameCode(2, 0).deal() != GameCode(4, 0).deal()


@pytest.mark.parametrize(
    ("text", "suits", "number"),
    [
        ("SS1-S1-AAAAAAA", 1, 0),
        ("SS1-S4-AAAAABD", 4, 29),
        ("SS1-S2-AAAAABA", 2, 26),
        ("SS1-S2-BAAAAAA", 2, 26**6),
        ("SS1-S4-ZZZZZZZ", 4, 26**7 - 1),
    ],
)
def test_code_parses_to_suits_and_base_26_number_and_formats_back(
    text: str, suits: int, number: int
) -> None:
    code = GameCode.parse(text)
    assert (code.suits, code.number) == (suits, number)
    assert str(code) == text
    assert GameCode.parse(str(GameCode(suits, number))) == code


@pytest.mark.parametrize("number", [0, 1, 25, 26, 675, 676, 123_456_789, 26**7 - 2, 26**7 - 1])
@pytest.mark.parametrize("suits", [1, 2, 4])
def test_code_format_then_parse_is_the_identity(suits: int, number: int) -> None:
    code = GameCode(suits, number)
    text = str(code)
    assert len(text) == len("SS1-S4-AAAAAAA")
    assert GameCode.parse(text) == code


def test_code_reading_ignores_case_and_surrounding_spaces() -> None:
    assert GameCode.parse("  ss1-s4-aaaaabd\n") == GameCode(4, 29)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("XX1-S4-AAAAABD", "unknown code format 'XX1'"),
        ("SS2-S4-AAAAABD", "unknown code format 'SS2'"),
        ("SS1-S3-AAAAABD", "S3 is not a suit count"),
        ("SS1-S0-AAAAABD", "S0 is not a suit count"),
        ("SS1-S8-AAAAABD", "S8 is not a suit count"),
        ("SS1-S4-AAAAAB", "has 6"),
        ("SS1-S4-AAAAABDE", "has 8"),
        ("SS1-S4-", "has 0"),
        ("SS1-S4-AAAA1BD", "7 letters A-Z"),
        ("SS1-S4-1234567", "7 letters A-Z"),
        ("", "7 letters A-Z"),
        ("   ", "7 letters A-Z"),
        ("SS1-SX-AAAAABD", "suits S1, S2 or S4"),
        ("SS1 S4 AAAAABD", "is not a game code"),
        ("SS1-S4-AAAAÄBD", "is not a game code"),
        ("SS1-S4-AAAAABD-", "is not a game code"),
    ],
)
def test_malformed_code_is_refused_naming_what_is_wrong(text: str, named: str) -> None:
    with pytest.raises(InvalidCodeError) as refusal:
        GameCode.parse(text)
    assert named in str(refusal.value)


def test_code_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidCodeError, match="text like"):
        GameCode.parse(29)  # type: ignore[arg-type]


@pytest.mark.parametrize(("suits", "number"), [(3, 0), (0, 0), (4, -1), (4, 26**7)])
def test_code_built_from_numbers_out_of_range_is_refused(suits: int, number: int) -> None:
    with pytest.raises(InvalidCodeError):
        GameCode(suits, number)


def test_game_from_code_keeps_the_code_and_suit_count() -> None:
    game = Game.from_code("SS1-S2-QWERTYU")
    assert str(game.code) == "SS1-S2-QWERTYU"
    assert game.suits == 2
    assert (game.moves, game.score, game.removed) == (0, 500, ())


def test_a_random_deal_to_play_passes_over_deals_with_no_legal_move() -> None:
    dead, live = 224, 5  # SS1-S1-AAAAAIQ has no legal move at all
    assert next(Game.from_code(GameCode(1, dead)).legal_moves(), None) is None
    draws = iter([dead, dead, live])
    asked: list[int] = []

    def draw(below: int) -> int:
        asked.append(below)
        return next(draws)

    assert playable_code(1, draw) == GameCode(1, live)
    assert asked == [DEALS_PER_SUIT_COUNT] * 3
    assert next(Game.from_code(GameCode(1, live)).legal_moves(), None) is not None
    assert playable_code(4, lambda below: live) == GameCode(4, live)  # one draw when it plays
