"""The rooms' small rules (server/play/rooms/rules.py): codes, the standings order, a room's
state by the clock.
(Rooms themselves are tested on real servers: tests/net/test_rooms.py.)"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from server.play.errors import Refused
from server.play.rooms.rules import no_free_code, normal_code, room_code, room_state
from server.protocol import ROOM_ALPHABET, ROOM_CODE_SYMBOLS, ErrorCode, RoomEntry
from server.store import RaceRecord

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)


def test_room_codes_are_fifty_random_bits_read_aloud_and_typed_loosely() -> None:
    codes = {room_code() for _ in range(2000)}
    assert len(codes) == 2000
    assert all(re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}", code) for code in codes)
    assert len(ROOM_ALPHABET) ** ROOM_CODE_SYMBOLS >= 2**50  # the code space
    assert set(ROOM_ALPHABET).isdisjoint("ILOU")  # no letter read as another
    symbols = Counter("".join(codes).replace("-", ""))
    assert set(symbols) == set(ROOM_ALPHABET)  # every symbol is drawn
    for typed in (" kxr4m7m2pq ", "KXR4M-7M2PQ", "kxr4m-7m2pq", "KXR4M 7M2PQ"):
        assert normal_code(typed) == "KXR4M-7M2PQ"
    assert normal_code("ABCDE-FGHIJ") == normal_code("abcde fgh1j") == "ABCDE-FGH1J"  # I is 1
    assert normal_code("o0o0o-lLiI1") == "00000-11111"  # O is 0, L and I are 1
    assert normal_code(" qwErt ") == "QWERT"  # the 5 letters of an earlier version's room
    for bad in ("KXR4M-7M2P", "KXR4M-7M2PQX", "KXR4U-7M2PQ", "ÄBCDE-FGHJK", "QW3RT", ""):
        with pytest.raises(Refused) as refused:
            normal_code(bad)
        assert refused.value.code is ErrorCode.NO_SUCH_RACE


def test_the_standings_put_winners_by_time_then_runs_then_fewer_moves() -> None:
    entries = [
        RoomEntry(player="slow", won=True, finished=True, elapsed=300.0, moves=40),
        RoomEntry(player="dan", removed=2, moves=80),
        RoomEntry(player="quick", won=True, finished=True, elapsed=120.0, moves=90),
        RoomEntry(player="eve", removed=2, moves=50, resigned=True, finished=True),
        RoomEntry(player="Bob", removed=0, moves=5),
        RoomEntry(player="amy", removed=0, moves=5),
    ]
    order = [entry.player for entry in sorted(entries, key=RoomEntry.standing)]
    assert order == ["quick", "slow", "eve", "dan", "amy", "Bob"]


def test_a_started_room_counts_down_until_its_reveal() -> None:
    room = RaceRecord(
        code="KXR4M-7M2PQ",
        owner_id=1,
        owner_name="ann",
        suits=1,
        chosen_deal=None,
        deal="SS1-S1-AAAAAAB",
        public=False,
        capacity=10,
        allow_bots=False,
        countdown=10.0,
        time_limit=900.0,
        state="started",
        revision=3,
        created_at=T0,
        auto_start_at=None,
        starts_at=T0 + timedelta(seconds=10),
        ends_at=T0 + timedelta(seconds=910),
        finished_at=None,
        previous=None,
        next=None,
        entrants=(),
    )
    assert room_state(room, T0 + timedelta(seconds=9.9)) == "countdown"
    assert room_state(room, T0 + timedelta(seconds=10)) == "racing"
    assert room_state(replace(room, state="over"), T0) == "over"
    assert room_state(replace(room, state="open"), T0) == "open"
    assert room_state(replace(room, state="expired"), T0) == "expired"


def test_no_free_code_is_a_refusal_to_try_again() -> None:
    refused = no_free_code()
    assert refused.code is ErrorCode.UNAVAILABLE and "try again" in refused.message
