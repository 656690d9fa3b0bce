"""One table says what every layer's error tells a client."""

from __future__ import annotations

import pytest

from server.bus import BusUnavailable
from server.engine import IllegalMoveError, InvalidCodeError, InvalidMoveError, Rule
from server.play.errors import (
    BadName,
    DayOver,
    DealsNotReady,
    NoDailyDeal,
    Refused,
    refusal_of,
)
from server.protocol import ErrorCode
from server.store import BadCursor, NameTaken, StaleGame, StoreUnavailable


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InvalidMoveError("3-"), ErrorCode.BAD_MOVE),
        (InvalidCodeError("SS9"), ErrorCode.BAD_CODE),
        (BadName("too long", rule="length"), ErrorCode.BAD_NAME),
        (NameTaken("ann"), ErrorCode.NAME_TAKEN),
        (BadCursor("x"), ErrorCode.BAD_CURSOR),
        (NoDailyDeal("none"), ErrorCode.NO_DAILY),
        (DealsNotReady("soon"), ErrorCode.PROVING),
        (StaleGame("moved on"), ErrorCode.STALE_GAME),
        (DayOver("midnight"), ErrorCode.DAY_OVER),
        (StoreUnavailable("down"), ErrorCode.UNAVAILABLE),
        (BusUnavailable("down"), ErrorCode.UNAVAILABLE),
    ],
)
def test_each_layers_error_has_its_code(error: Exception, code: ErrorCode) -> None:
    refused = refusal_of(error)
    assert refused is not None and refused.code is code and refused.message


def test_an_illegal_move_and_a_bad_name_name_their_rule_and_a_refusal_stays_itself() -> None:
    illegal = refusal_of(IllegalMoveError(Rule.NO_SUCH_COLUMN))
    assert illegal is not None and illegal.code is ErrorCode.ILLEGAL_MOVE
    assert illegal.rule == Rule.NO_SUCH_COLUMN.value
    bad_name = refusal_of(BadName("one alphabet", rule="mixed-scripts"))
    assert bad_name is not None and bad_name.code is ErrorCode.BAD_NAME
    assert (bad_name.rule, bad_name.message) == ("mixed-scripts", "one alphabet")
    refused = Refused(ErrorCode.GAME_OVER, "over")
    assert refusal_of(refused) is refused


def test_an_error_no_table_knows_is_left_to_the_caller() -> None:
    assert refusal_of(KeyError("bug")) is None
    assert refusal_of(RuntimeError("bug")) is None
