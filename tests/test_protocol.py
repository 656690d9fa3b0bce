"""The wire protocol on its own (server/protocol.py): what a client frame parses to, what is
refused at the edge, and the frames the server writes."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from server import protocol
from server.protocol import (
    PROTOCOL_VERSION,
    ROOM_ALPHABET,
    ROOM_CODE_SYMBOLS,
    AccountDeleted,
    Authenticated,
    ClientMessage,
    CredentialInfo,
    DailyChanged,
    DailyCode,
    DailyInfo,
    DayStats,
    DeviceApproved,
    DeviceCode,
    DeviceRequest,
    Devices,
    Error,
    ErrorCode,
    Finished,
    FollowedPlayer,
    Following,
    FriendFinished,
    GameView,
    History,
    HistoryGame,
    LanguageSet,
    LeaderboardPage,
    LeaderboardRequest,
    LeaderboardRow,
    LeagueDayRow,
    LeagueMemberInfo,
    Leagues,
    LeagueSummary,
    LeagueView,
    Moved,
    MovesBin,
    NodeMessage,
    PasskeyInfo,
    PasskeyOptionsReply,
    PlayerInfo,
    PlayerSettings,
    PlayerStats,
    Pong,
    Queued,
    RaceDigest,
    RaceEntry,
    RaceEvent,
    RaceRoom,
    RaceStandings,
    RaceUpdate,
    RankInfo,
    RankRequest,
    RecoveryCodes,
    Registered,
    RemovedCount,
    Replay,
    ReplayStep,
    Reported,
    Review,
    ReviewPosition,
    ReviewProgress,
    RoomEntry,
    RoomView,
    SeasonRow,
    SeasonWinner,
    ServerMessage,
    SettingsSet,
    SignedIn,
    SignedOut,
    State,
    Streak,
    Stretch,
    TargetList,
    TodayDeal,
    TokenRotated,
    Unfinished,
    UnfinishedGame,
    ValidationError,
    Welcome,
    YouAreHere,
    bound_rule,
    encode,
    encode_reply,
    grouped_room_code,
    has_control,
    moved_frame,
    parse_client_message,
    parse_node_message,
    parse_server_message,
    query_request,
    room_code_form,
)

PROTOCOL_DOC = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()


def by_type(union: Any) -> dict[str, type[BaseModel]]:
    """The models of a discriminated union (``Annotated[A | B | ..., Field(...)]``), by the
    ``type`` each one's frames carry."""
    models: tuple[type[BaseModel], ...] = get_args(get_args(union)[0])
    return {get_args(model.model_fields["type"].annotation)[0]: model for model in models}


CLIENT_MESSAGES = by_type(ClientMessage)
SERVER_MESSAGES = by_type(ServerMessage)
NODE_MESSAGES = by_type(NodeMessage)

#: One example of each client message, as docs/protocol.md gives it (word for word).
DOCUMENTED: dict[str, str] = {
    "hello": '{"type": "hello", "id": 1, "version": 1, "client": "simon 0.1"}',
    "register": '{"type": "register", "id": 1, "name": "robo", "bot": true}',
    "auth": '{"type": "auth", "id": 2, "token": "k3...Q"}',
    "set_language": '{"type": "set_language", "id": 3, "lang": "pl"}',
    "set_settings": '{"type": "set_settings", "id": 4,'
    ' "settings": {"auto_place": true, "card_size": "large"}}',
    "start": '{"type": "start", "mode": "practice", "code": "SS1-S2-QWERTYU"}',
    "move": '{"type": "move", "move": "3-7x2"}',
    "auto": '{"type": "auto", "column": 3, "count": 2}',
    "undo": '{"type": "undo"}',
    "restart": '{"type": "restart"}',
    "resign": '{"type": "resign"}',
    "targets": '{"type": "targets", "column": 3, "count": 2}',
    "resume": '{"type": "resume", "game": "<id>", "seq": 12}',
    "daily": '{"type": "daily"}',
    "leaderboard": '{"type": "leaderboard", "day": "2026-03-01", "suits": 1, "board": "humans",'
    ' "limit": 20, "after": "<next>"}',
    "rank": '{"type": "rank", "day": "2026-03-01", "suits": 1, "board": "humans",'
    ' "player": "bob", "around": 5}',
    "history": '{"type": "history", "player": "bob", "limit": 20}',
    "unfinished": '{"type": "unfinished", "limit": 20}',
    "race": '{"type": "race", "suits": 1}',
    "race_new": '{"type": "race_new", "suits": 1, "public": false, "capacity": 10,'
    ' "allow_bots": false, "time_limit": 900}',
    "race_join": '{"type": "race_join", "code": "KXR4M-7M2PQ"}',
    "race_quick": '{"type": "race_quick", "suits": 1}',
    "race_leave": '{"type": "race_leave", "code": "KXR4M-7M2PQ"}',
    "race_start": '{"type": "race_start", "code": "KXR4M-7M2PQ"}',
    "race_rematch": '{"type": "race_rematch", "code": "KXR4M-7M2PQ"}',
    "race_watch": '{"type": "race_watch", "code": "KXR4M-7M2PQ"}',
    "ping": '{"type": "ping"}',
    "day_stats": '{"type": "day_stats", "day": "2026-03-01", "suits": 1, "board": "humans",'
    ' "player": "bob"}',
    "replay": '{"type": "replay", "game": "<id>"}',
    "review": '{"type": "review", "game": "<id>"}',
    "report": '{"type": "report", "game": "<id>", "reason": "too quick to be true"}',
    "daily_result": '{"type": "daily_result", "day": "2026-03-01", "suits": 1}',
    "devices": '{"type": "devices", "id": 3}',
    "revoke": '{"type": "revoke", "id": 4, "credential": 15}',
    "rotate_token": '{"type": "rotate_token", "id": 6}',
    "recovery_codes": '{"type": "recovery_codes", "id": 10}',
    "recover": '{"type": "recover", "id": 11, "code": "ABCD-EFGH-IJKL-MNOP"}',
    "passkey_options": '{"type": "passkey_options", "id": 7, "purpose": "sign_in"}',
    "passkey_add": '{"type": "passkey_add", "id": 12, "name": "Phone", "credential": {"id":'
    ' "AbC...", "rawId": "AbC...", "type": "public-key", "response": {"clientDataJSON":'
    ' "eyJ...", "attestationObject": "o2N..."}}}',
    "passkey_remove": '{"type": "passkey_remove", "id": 13, "passkey": 2}',
    "passkey_sign_in": '{"type": "passkey_sign_in", "id": 8, "credential": {"id": "AbC...",'
    ' "rawId": "AbC...", "type": "public-key", "response": {"clientDataJSON": "eyJ...",'
    ' "authenticatorData": "SZY...", "signature": "MEU...", "userHandle": "NDI"}}}',
    "device_code": '{"type": "device_code", "id": 1, "device": "simon on laptop"}',
    "device_token": '{"type": "device_token", "id": 2, "device_code": "M2...w"}',
    "device_lookup": '{"type": "device_lookup", "id": 4, "user_code": "BCDF-GHJK"}',
    "device_approve": '{"type": "device_approve", "id": 5, "user_code": "BCDF-GHJK",'
    ' "approve": true}',
    "delete_account": '{"type": "delete_account", "id": 9, "confirm": "alice"}',
    "follow": '{"type": "follow", "id": 1, "name": "bob"}',
    "unfollow": '{"type": "unfollow", "id": 2, "name": "bob"}',
    "block": '{"type": "block", "id": 3, "name": "eve"}',
    "unblock": '{"type": "unblock", "id": 4, "name": "eve"}',
    "following": '{"type": "following", "id": 5}',
    "league_new": '{"type": "league_new", "id": 6, "name": "Morning club", "suits": 4}',
    "league_join": '{"type": "league_join", "id": 7, "code": "KXR4M-7M2PQ"}',
    "league_leave": '{"type": "league_leave", "id": 8, "code": "KXR4M-7M2PQ"}',
    "league_remove": '{"type": "league_remove", "id": 9, "code": "KXR4M-7M2PQ", "name": "eve"}',
    "league_hand_over": '{"type": "league_hand_over", "id": 10, "code": "KXR4M-7M2PQ",'
    ' "name": "bob"}',
    "league_public": '{"type": "league_public", "id": 11, "code": "KXR4M-7M2PQ", "public": true}',
    "league": '{"type": "league", "id": 12, "code": "KXR4M-7M2PQ", "month": "2026-12"}',
    "leagues": '{"type": "leagues", "id": 13}',
}


def test_the_catalogue_has_an_example_of_every_client_message_and_no_other() -> None:
    assert set(DOCUMENTED) == set(CLIENT_MESSAGES)


@pytest.mark.parametrize("message_type", sorted(CLIENT_MESSAGES))
def test_each_client_message_parses_from_its_documented_example(message_type: str) -> None:
    example = DOCUMENTED[message_type]
    assert example in PROTOCOL_DOC
    parsed = parse_client_message(example)
    assert type(parsed) is CLIENT_MESSAGES[message_type]
    # every field as the example gives it, nothing else set
    assert parsed.model_dump(mode="json", exclude_unset=True) == json.loads(example)
    assert parse_client_message(example.encode()) == parsed  # a binary frame reads as UTF-8


def test_fields_left_out_take_their_documented_defaults() -> None:
    start = parse_client_message('{"type": "start"}')
    assert start.model_dump() == {
        "id": None,
        "type": "start",
        "mode": "daily",
        "suits": 1,
        "code": None,
    }
    hello = parse_client_message('{"type": "hello"}')
    assert hello.model_dump() == {
        "id": None,
        "type": "hello",
        "version": PROTOCOL_VERSION,
        "client": None,
        "legal": False,
        "lang": None,
    }
    board = parse_client_message('{"type": "leaderboard", "day": "2026-03-01"}')
    assert board.model_dump(exclude={"id", "type", "after"}) == {
        "day": date(2026, 3, 1),
        "suits": 1,
        "board": "humans",
        "limit": 20,
    }


@pytest.mark.parametrize("code", list(ErrorCode), ids=str)
def test_every_error_code_has_its_row_in_the_documented_table(code: ErrorCode) -> None:
    assert f"| `{code.value}` |" in PROTOCOL_DOC


@pytest.mark.parametrize("message_type", sorted(SERVER_MESSAGES))
def test_every_message_the_server_sends_clients_is_documented(message_type: str) -> None:
    assert f"`{message_type}`" in PROTOCOL_DOC or f'"type": "{message_type}"' in PROTOCOL_DOC


@pytest.mark.parametrize(
    "frame",
    [
        "{",  # not JSON
        "[]",
        '"ping"',
        "null",
        '{"id": 3}',  # no type
        '{"type": "warp"}',  # no such message
        '{"type": "PING"}',
        '{"type": 7}',
        '{"type": "ping", "extra": 1}',  # an unknown field
        '{"type": "move"}',  # a field missing
        '{"type": "move", "move": 37}',
        '{"type": "move", "move": "1-2-3-4-5-6-7-8-9"}',  # over 16 characters
        '{"type": "auto", "column": 0}',
        '{"type": "auto", "column": 11}',
        '{"type": "auto", "column": 3, "count": 53}',
        '{"type": "auto", "column": 3.0}',
        '{"type": "targets", "column": "3"}',
        '{"type": "start", "suits": 3}',
        '{"type": "start", "suits": 1.0}',
        '{"type": "start", "suits": "1"}',
        '{"type": "start", "suits": true}',
        '{"type": "start", "mode": "ranked"}',
        '{"type": "register", "name": "al", "bot": "yes"}',
        '{"type": "register", "name": ""}',
        '{"type": "auth", "token": ""}',
        '{"type": "resume", "game": "g", "seq": -1}',
        '{"type": "leaderboard", "day": "yesterday"}',
        '{"type": "leaderboard", "board": "robots"}',
        '{"type": "leaderboard", "limit": 0}',
        '{"type": "leaderboard", "limit": 101}',
        '{"type": "rank", "around": 26}',
        '{"type": "race_new", "capacity": 1}',
        '{"type": "race_new", "capacity": 11}',
        '{"type": "race_new", "time_limit": 59}',
        '{"type": "race_new", "time_limit": 3601}',
        '{"type": "race_join", "code": ""}',
        '{"type": "report", "game": "g", "reason": ""}',
        '{"type": "hello", "version": "1"}',
        '{"type": "hello", "legal": 1}',
        '{"type": "set_settings"}',
        '{"type": "set_settings", "settings": "sound"}',
        '{"type": "set_settings", "settings": {"volume": 3}}',
        '{"type": "set_settings", "settings": {"sound": 1}}',
        '{"type": "set_settings", "settings": {"sound": "true"}}',
        '{"type": "set_settings", "settings": {"card_size": "huge"}}',
    ],
)
def test_malformed_frames_are_refused(frame: str) -> None:
    with pytest.raises(ValidationError):
        parse_client_message(frame)


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ({"type": "leaderboard", "board": "robots"}, "board"),
        ({"type": "rank", "player": "x", "board": 1}, "board"),
    ],
)
def test_an_unknown_board_is_refused_naming_the_field(message: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        parse_client_message(json.dumps(message))
    assert refused.value.errors()[0]["loc"][1] == field


#: C0 (NUL, newline, escape), DEL and C1 (NEXT LINE, the last of them).
CONTROL = ["\x00", "\n", "\x1b", "\x1f", "\x7f", "\x80", "\x85", "\x9f"]


def text_fields(message_type: str) -> list[str]:
    """The fields of a client message that take text: found by trying, so a text field
    added later is checked too."""
    base = json.loads(DOCUMENTED[message_type])
    found = []
    for name in CLIENT_MESSAGES[message_type].model_fields:
        if name == "type":
            continue
        try:
            parse_client_message(json.dumps(base | {name: "ab"}))
        except ValidationError:
            continue
        found.append(name)
    return found


def test_text_fields_are_found_where_they_are() -> None:
    assert text_fields("ping") == ["id"]
    assert text_fields("report") == ["id", "game", "reason"]
    assert text_fields("leaderboard") == ["id", "after"]  # a date is not text


@pytest.mark.parametrize("message_type", sorted(CLIENT_MESSAGES))
def test_no_text_field_of_any_client_message_takes_a_control_character(message_type: str) -> None:
    base = json.loads(DOCUMENTED[message_type])
    for name in text_fields(message_type):
        for control in CONTROL:
            with pytest.raises(ValidationError) as refused:
                parse_client_message(json.dumps(base | {name: f"a{control}b"}))
            assert refused.value.errors()[0]["loc"][1] == name, (name, control)
        # the first letters past the control characters are text like any other
        parse_client_message(json.dumps(base | {name: "a\xa0é✓b"}))


@pytest.mark.parametrize(
    ("text", "control"),
    [
        ("", False),
        ("plain ASCII ~", False),
        ("é ✓ \xa0 \u2028 🂡", False),  # past C1, line separators are not controls here
        ("\x00", True),
        ("tab\there", True),
        ("\x1f", True),
        ("\x7f", True),
        ("\x80", True),
        ("end\x9f", True),
    ],
)
def test_has_control(text: str, control: bool) -> None:
    assert has_control(text) is control


@pytest.mark.parametrize("message_id", [0, 1, 2**53 - 1, "", "k2-1", "x" * 64, 'q"uo\\te é'])
def test_ids_within_bounds_are_taken_as_sent(message_id: object) -> None:
    parsed = parse_client_message(json.dumps({"type": "ping", "id": message_id}))
    assert parsed.id == message_id and type(parsed.id) is type(message_id)


@pytest.mark.parametrize(
    "message_id", [-1, 2**53, 2**64, True, False, 1.5, 1.0, "x" * 65, "p\x00", [1], {"n": 1}]
)
def test_ids_out_of_bounds_are_refused(message_id: object) -> None:
    with pytest.raises(ValidationError) as refused:
        parse_client_message(json.dumps({"type": "ping", "id": message_id}))
    assert refused.value.errors()[0]["loc"][1] == "id"


SYMBOLS = st.text(ROOM_ALPHABET, min_size=ROOM_CODE_SYMBOLS, max_size=ROOM_CODE_SYMBOLS)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(symbols=SYMBOLS, spaces=st.sampled_from(["", " ", "  "]))
def test_a_room_code_reads_in_any_case_with_or_without_its_dash(symbols: str, spaces: str) -> None:
    code = grouped_room_code(symbols)
    assert code[5] == "-" and code.replace("-", "") == symbols
    half = ROOM_CODE_SYMBOLS // 2
    for typed in (code, code.lower(), symbols, f"{symbols[:half]} {symbols[half:]}".lower()):
        assert room_code_form(f"{spaces}{typed}{spaces}") == code
    # typed by hand: O is 0, I and L are 1
    assert room_code_form(code.replace("0", "O").replace("1", "l")) == code


@settings(max_examples=200, deadline=None, derandomize=True)
@given(symbols=SYMBOLS, length=st.integers(0, 14), stray=st.sampled_from("U!_é/"))
def test_no_other_text_is_a_room_code(symbols: str, length: int, stray: str) -> None:
    if length != ROOM_CODE_SYMBOLS and not (length == 5 and symbols[:5].isalpha()):
        assert room_code_form((symbols * 2)[:length]) is None  # too short or too long
    assert room_code_form(symbols[:-1] + stray) is None  # a symbol not in the alphabet


def test_a_five_letter_code_of_an_earlier_version_still_names_its_room() -> None:
    assert room_code_form(" qwErt ") == "QWERT"
    assert room_code_form("QW3RT") is None  # those were letters only


# -- the server's frames ------------------------------------------------------------------


def test_encode_leaves_out_the_fields_left_at_none() -> None:
    assert encode(Pong(server_time="t")) == '{"type":"pong","server_time":"t"}'
    assert encode(Pong(id=0, server_time="t")) == '{"type":"pong","id":0,"server_time":"t"}'
    refusal = Error(code=ErrorCode.BAD_MOVE, message="no")
    assert json.loads(encode(refusal)) == {"type": "error", "code": "bad-move", "message": "no"}


def test_encode_reply_writes_a_model_and_passes_a_moved_frame_as_it_is() -> None:
    pong = Pong(id="a", server_time="t")
    assert encode_reply(pong) == encode(pong)
    frame = moved_frame(
        id=3,
        game="ab12",
        seq=1,
        move="1-2x1",
        removed_run=False,
        moves=1,
        score=499,
        removed=0,
        won=False,
    )
    assert encode_reply(frame) is frame


@pytest.mark.parametrize("message_id", [None, 0, 2**53 - 1, "m-1", 'q"uo\\te', "é✓\n"])
@pytest.mark.parametrize("flags", [(False, False), (True, False), (True, True)])
def test_the_written_out_moved_frame_is_the_model_encoding(
    message_id: object, flags: tuple[bool, bool]
) -> None:
    fields: dict[str, Any] = {
        "id": message_id,
        "game": "0a5bdbd051464f8ea43f5eddb831cb3c",
        "seq": 17,
        "move": "10-3x12",
        "removed_run": flags[0],
        "moves": 16,
        "score": -3,
        "removed": 2,
        "won": flags[1],
    }
    assert moved_frame(**fields) == encode(Moved(**fields))
    fields["legal"] = [[[2, 7], []], [], [[10]]] + [[] for _ in range(7)]
    assert moved_frame(**fields) == encode(Moved(**fields))


MESSAGE_IDS = st.none() | st.integers(0, 2**53 - 1) | st.text(max_size=64)
HEX_IDS = st.text("0123456789abcdef", min_size=1, max_size=32)
MOVES = st.builds("{}-{}x{}".format, st.integers(1, 10), st.integers(1, 10), st.integers(1, 13))
PLACEMENTS = st.none() | st.lists(
    st.lists(st.lists(st.integers(1, 10), max_size=9), max_size=13), min_size=10, max_size=10
)


@settings(max_examples=300, deadline=None, derandomize=True)  # the same cases every run
@given(
    message_id=MESSAGE_IDS,
    game=HEX_IDS,
    move=MOVES,
    counters=st.tuples(st.integers(), st.integers(), st.integers(), st.integers()),
    removed_run=st.booleans(),
    won=st.booleans(),
    legal=PLACEMENTS,
)
def test_any_moved_frame_is_the_model_encoding_and_reads_back(
    message_id: str | int | None,
    game: str,
    move: str,
    counters: tuple[int, int, int, int],
    removed_run: bool,
    won: bool,
    legal: list[list[list[int]]] | None,
) -> None:
    seq, moves, score, removed = counters
    fields: dict[str, Any] = {
        "id": message_id,
        "game": game,
        "seq": seq,
        "move": move,
        "removed_run": removed_run,
        "moves": moves,
        "score": score,
        "removed": removed,
        "won": won,
        "legal": legal,
    }
    frame = moved_frame(**fields)
    assert frame == encode(Moved(**fields))
    assert parse_server_message(frame) == Moved(**fields)


AT = "2026-03-01T10:00:00+00:00"
DAY = date(2026, 3, 1)
PLAYER = PlayerInfo(name="alice", created=AT)
ROW = LeaderboardRow(
    rank=1,
    player="alice",
    score=839,
    moves=61,
    elapsed=312.5,
    finished_at=AT,
    won=True,
    removed=4,
    verified=True,
)
RACER = RaceEntry(player="bob", moves=12, score=588, removed=1, finished=False, won=False, rank=1)
ROOM_RACER = RoomEntry(
    player="ann", moves=61, score=839, removed=4, won=True, finished=True, elapsed=187.3, place=1
)
ROOM = RoomView(
    code="KXR4M-7M2PQ",
    state="over",
    owner="ann",
    suits=1,
    public=False,
    capacity=10,
    allow_bots=False,
    countdown=10.0,
    time_limit=900.0,
    racers=[ROOM_RACER, RoomEntry(player="bob")],
    starts_at=AT,
    deal="SS1-S1-KQWXZAB",
    revision=4,
)

#: One message of each kind the server sends, with some of its optional fields set.
SERVER_SAMPLES: list[BaseModel] = [
    Welcome(id=1, server_time=AT, player=PLAYER),
    Registered(id="r", player=PLAYER, token="k3Q"),
    Authenticated(
        id=2,
        player=PlayerInfo(
            name="robo", bot=True, language="pl", settings=PlayerSettings(sound=True)
        ),
    ),
    LanguageSet(id=3, lang="pl"),
    SettingsSet(id=4, settings=PlayerSettings(four_colour=True, card_size="large")),
    State(
        id=3,
        state=GameView(
            game="5f0c",
            code="SS1-S1-AQYMVNI",
            suits=1,
            mode="daily",
            day=DAY,
            board=["AS 9S", "KS"] + [""] * 8,
            moves=0,
            score=500,
            removed=0,
            won=False,
            finished=False,
            can_undo=False,
            seq=0,
            elapsed=0.0,
            legal=[[[2]]] + [[]] * 9,
        ),
    ),
    Moved(
        id=4,
        game="5f0c",
        seq=1,
        move="1-7x1",
        removed_run=False,
        moves=1,
        score=499,
        removed=0,
        won=False,
    ),
    Finished(
        id=9,
        game="5f0c",
        code="SS1-S1-AQYMVNI",
        mode="daily",
        won=True,
        resigned=False,
        moves=61,
        score=839,
        removed=4,
        elapsed=312.5,
        finished_at=datetime(2026, 3, 1, 10, 5, 12, 500000, tzinfo=UTC),
        rank=3,
        percentile=85.7,
        streak=Streak(current=3, best=7),
        board="new",
        counts_from=date(2026, 3, 3),
    ),
    TargetList(id=5, column=3, count=2, columns=[4, 6]),
    DailyInfo(
        id=6,
        day=DAY,
        deals=[TodayDeal(suits=1, started=True, finished=False), TodayDeal(suits=4)],
        yesterday=[DailyCode(suits=1, code="SS1-S1-BQWERTY", par=52)],
        seconds_left=3600.0,
    ),
    LeaderboardPage(id=7, day=DAY, suits=1, rows=[ROW], next="c1", total=2),
    RankInfo(
        id=8, day=DAY, suits=2, board="bots", player="robo", total=0, around=[], review="held"
    ),
    History(
        id=10,
        player="bob",
        stats=PlayerStats(games=2, won=1, best_score={"1": 839}),
        games=[
            HistoryGame(
                game="5f0c1e2d",
                suits=1,
                mode="practice",
                won=False,
                score=480,
                moves=20,
                elapsed=9.5,
                finished_at=AT,
                race="KXR4M-7M2PQ",
                place=2,
            )
        ],
        streak=Streak(current=0, best=1),
    ),
    Unfinished(
        id=13,
        games=[
            UnfinishedGame(
                game="9a1e", mode="practice", suits=2, code="SS1-S2-Q", moves=14, started=AT
            ),
            UnfinishedGame(game="5f0c", mode="daily", suits=1, day=DAY, moves=3, started=AT),
            UnfinishedGame(
                game="77b2",
                mode="practice",
                suits=1,
                code="SS1-S1-A",
                race="KXR4M-7M2PQ",
                moves=0,
                started=AT,
            ),
        ],
    ),
    RaceStandings(id=11, day=DAY, suits=1, players=[RACER], total=1, playing=1),
    RaceDigest(day=DAY, suits=1, players=[RACER, RACER.model_copy(update={"player": "cy"})]),
    RaceRoom(id=12, event="over", room=ROOM),
    RaceUpdate(code="KXR4M-7M2PQ", event="finished", entry=ROOM_RACER),
    DailyChanged(
        day=DAY, deals=[TodayDeal(suits=1)], yesterday=[DailyCode(suits=1, code="SS1-S1-A")]
    ),
    Pong(id=13, server_time=AT),
    Error(
        id="e",
        code=ErrorCode.ILLEGAL_MOVE,
        message="Nothing can be put on an ace.",
        rule="nothing-on-an-ace",
        detail={"field": "move", "retry_after": 3, "none": None},
    ),
    DayStats(
        id=14,
        day=DAY,
        suits=1,
        finished=7,
        won=4,
        bin_width=4,
        moves_histogram=[MovesBin(moves=40, count=1)],
        not_won=[RemovedCount(removed=2, count=2)],
        time_quartiles=[100.0, 200.0, 300.0],
        par=46,
        you=YouAreHere(
            player="bob", rank=2, won=True, moves=50, removed=4, elapsed=200.0, percentile=85.7
        ),
    ),
    Replay(
        id=15,
        game="5f0c",
        code="SS1-S1-AQYMVNI",
        player="alice",
        suits=1,
        mode="daily",
        day=DAY,
        moves=[ReplayStep(seq=1, action="1-7x1", at=1772359200125)],
    ),
    Review(
        id=16,
        game="5f0c",
        moves=61,
        won=True,
        solver_line=46,
        against_line=15,
        positions=[
            ReviewPosition(seq=0, winnable=True, distance=46),
            ReviewPosition(seq=1, action="1-7x1", winnable=False, delta=1),
        ],
        stretches=[Stretch(first=12, last=19, cost=6)],
        unknown=1,
    ),
    Queued(game="5f0c", position=2),
    ReviewProgress(game="5f0c", judged=23, positions=61, seconds_left_estimate=12.5, long=True),
    Reported(id=17, game="5f0c"),
    SignedIn(id=18, player=PlayerInfo(name="alice"), token="Hk...0"),
    SignedOut(reason="revoked"),
    Devices(
        id=19,
        credentials=[
            CredentialInfo(
                id=12,
                kind="registration",
                device="Firefox 133 · Linux",
                created=AT,
                created_from="203.0.113.7",
                last_used=AT,
                last_used_from="203.0.113.7",
                current=True,
            )
        ],
        passkeys=[PasskeyInfo(id=2, name="Phone", created=AT, last_used=AT)],
        recovery_codes_left=9,
    ),
    TokenRotated(id=20, token="Zp...8"),
    RecoveryCodes(id=21, codes=["ABCD-EFGH-IJKL-MNOP"]),
    PasskeyOptionsReply(id=22, purpose="sign_in", options={"challenge": "abc", "rpId": "x"}),
    DeviceCode(
        id=23,
        device_code="M2...w",
        user_code="BCDF-GHJK",
        verification_uri="https://simon.example/play",
        verification_uri_complete="https://simon.example/play?code=BCDF-GHJK",
        expires_in=600,
        interval=5,
    ),
    DeviceRequest(
        id=24, user_code="BCDF-GHJK", device="simon", created_from="203.0.113.7", expires_in=540
    ),
    DeviceApproved(id=25, user_code="BCDF-GHJK", approved=True),
    AccountDeleted(id=26, name="#1a2b3c4d"),
    Following(
        id=27,
        following=[FollowedPlayer(name="bob", since=AT)],
        followers=[],
        blocked=[FollowedPlayer(name="eve", since=AT)],
    ),
    Leagues(
        id=28,
        leagues=[
            LeagueSummary(
                code="KXR4M-7M2PQ", name="Club", owner="ann", suits=4, members=2, public=False
            )
        ],
    ),
    LeagueView(
        id=29,
        code="KXR4M-7M2PQ",
        name="Club",
        owner="ann",
        suits=4,
        public=True,
        invite="https://simon.example/play?league=KXR4M-7M2PQ",
        members=[LeagueMemberInfo(name="ann", joined=DAY, streak=3)],
        day=DAY,
        today=[
            LeagueDayRow(
                name="ann",
                place=1,
                points=1,
                won=True,
                moves=81,
                score=1021,
                removed=8,
                elapsed=512.4,
            )
        ],
        finished_today=["bob"],
        month="2026-03",
        season=[SeasonRow(place=1, name="ann", points=11, days=7, wins=4)],
        winners=[SeasonWinner(month="2026-02", name="ann", points=48)],
    ),
    FriendFinished(name="bob", day=DAY, suits=4),
]


def test_the_samples_hold_one_message_of_every_kind_the_server_sends() -> None:
    assert sorted(type(sample).__name__ for sample in SERVER_SAMPLES) == sorted(
        model.__name__ for model in SERVER_MESSAGES.values()
    )


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda message: type(message).__name__)
def test_server_messages_read_back_as_they_were_sent(message: BaseModel) -> None:
    frame = encode(message)
    assert "null" not in frame or type(message) is Error  # Error's detail keeps its None
    assert parse_server_message(frame) == message
    assert parse_server_message(frame.encode()) == message


#: One example of each message nodes tell each other on the bus.
NODE_SAMPLES: list[BaseModel] = [
    RaceEvent(day=DAY, suits=4, event="moved", entry=RACER),
    RaceRoom(event="started", room=ROOM),
    RaceUpdate(code="KXR4M-7M2PQ", event="finished", entry=ROOM_RACER),
]


def test_the_node_samples_hold_one_message_of_every_kind_nodes_exchange() -> None:
    assert sorted(type(sample).__name__ for sample in NODE_SAMPLES) == sorted(
        model.__name__ for model in NODE_MESSAGES.values()
    )


@pytest.mark.parametrize("message", NODE_SAMPLES, ids=lambda message: type(message).__name__)
def test_node_messages_read_back_as_they_were_sent(message: BaseModel) -> None:
    frame = encode(message)
    assert parse_node_message(frame) == message
    assert parse_node_message(frame.encode()) == message


def test_a_race_event_is_a_node_message_and_never_a_clients() -> None:
    """A daily race's events stay between nodes (followers are sent digests): no client's
    union reads one, and a client's frame is no node message."""
    frame = encode(RaceEvent(day=DAY, suits=4, event="moved", entry=RACER))
    with pytest.raises(ValidationError):
        parse_server_message(frame)
    with pytest.raises(ValidationError):
        parse_node_message('{"type": "ping"}')
    with pytest.raises(ValidationError):
        parse_node_message(encode(Pong(id=1, server_time=AT)))


@pytest.mark.parametrize(
    "message",
    [
        TargetList(id=5, column=3, count=None, columns=[4, 6]),  # targets asked without count
        Review(game="5f0c", moves=1, won=False, positions=[ReviewPosition(seq=0, winnable=None)]),
    ],
    ids=["targets-without-count", "review-with-an-unknown-position"],
)
def test_a_none_the_server_sends_reads_back(message: BaseModel) -> None:
    assert parse_server_message(encode(message)) == message


def test_no_field_the_server_sends_is_required_yet_may_be_none() -> None:
    """``encode`` leaves ``None`` out of a frame, so such a field must default to it: else
    a reader misses a field it requires."""
    client_types = set(CLIENT_MESSAGES.values())
    models = [
        model
        for model in vars(protocol).values()
        if isinstance(model, type)
        and issubclass(model, BaseModel)
        and model.__module__ == protocol.__name__
        and model not in client_types
    ]
    assert len(models) > 20
    offenders = [
        f"{model.__name__}.{name}"
        for model in models
        for name, field in model.model_fields.items()
        if field.is_required() and type(None) in get_args(field.annotation)
    ]
    assert offenders == []


def test_a_query_reads_into_a_request_within_the_models_bounds_alone() -> None:
    asked = query_request(LeaderboardRequest, {"limit": 7})
    assert (asked.suits, asked.board, asked.limit, asked.after) == (1, "humans", 7, None)
    assert bound_rule(LeaderboardRequest, "limit") == "limit is 1 to 100"
    assert bound_rule(LeaderboardRequest, "after") == "after is 1 to 256 characters"
    assert bound_rule(LeaderboardRequest, "suits") == "suits must be one of [1, 2, 4]"
    assert bound_rule(RankRequest, "around") == "around is 0 to 25"
    refused: list[tuple[dict[str, Any], str]] = [
        ({"limit": 0}, "limit is 1 to 100"),
        ({"suits": 3}, "suits must be one of [1, 2, 4]"),
        ({"board": "robots"}, "board must be one of ['humans', 'bots', 'new']"),
        ({"after": "a" * 257}, "after is 1 to 256 characters"),
    ]
    for values, rule in refused:
        with pytest.raises(ValueError, match=re.escape(rule)):
            query_request(LeaderboardRequest, values)
