"""The websocket protocol, version 1: one JSON object per message, one closed set per direction.

Every client message has a ``type`` and may carry an ``id`` (a string or number the
client chooses); the reply to it, or the ``error`` refusing it, echoes that ``id``.
Messages the server sends on its own (race events, a new daily deal) have no ``id``.
``docs/protocol.md`` documents each message with examples.

>>> message = parse_client_message(b'{"type": "move", "id": 7, "move": "3-7x2"}')
>>> message.move, message.id
('3-7x2', 7)
"""

from __future__ import annotations

import functools
import json
import re
from datetime import date, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, NewType, TypeVar, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_serializer,
)

from server import kinds
from server.i18n import gettext
from server.i18n.languages import Language
from server.kinds import Board, BoardName, Mode, RaceEventKind, Result, RoomEventKind, RoomState

PROTOCOL_VERSION = 1

#: Control characters (C0, DEL, C1): no text of the protocol has a use for them, and some
#: drivers refuse them (asyncpg cannot send a NUL to PostgreSQL), so they stop at the edge.
CONTROL_CHARACTERS = r"\x00-\x1f\x7f-\x9f"
_NO_CONTROL = f"^[^{CONTROL_CHARACTERS}]*$"
_CONTROL = re.compile(f"[{CONTROL_CHARACTERS}]")


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (refused in every text of the protocol)."""
    return _CONTROL.search(text) is not None


#: Metadata for every text field a client sends: ``Annotated[str, Field(...), CLEAN]``.
CLEAN = StringConstraints(pattern=_NO_CONTROL)

MessageId = Annotated[str, Field(max_length=64)] | Annotated[int, Field(ge=0, lt=2**53)]
#: The ``id`` of a client message: a :data:`MessageId` with no control character (it is
#: stored with the action it names).
RequestId = Annotated[str, Field(max_length=64), CLEAN] | Annotated[int, Field(ge=0, lt=2**53)]


def _exactly_an_int(value: object) -> object:
    # A Literal lookup compares by equality: JSON `true` and `1.0` both equal 1 to Python.
    if type(value) is not int:
        raise ValueError("expected a whole number: 1, 2 or 4")
    return value


#: A suit count on the wire: exactly the integer 1, 2 or 4 (not ``true``, ``1.0`` or ``"1"``).
SuitCount = Annotated[kinds.SuitCount, BeforeValidator(_exactly_an_int)]
Column = Annotated[int, Field(ge=1, le=10)]  # 1-based, as players number them
CardCount = Annotated[int, Field(ge=1, le=52)]
PlayerName = Annotated[str, Field(min_length=1, max_length=64), CLEAN]  # checked fully by accounts


class ErrorCode(StrEnum):
    """Stable error codes; their meaning never changes."""

    BAD_JSON = "bad-json"
    UNKNOWN_TYPE = "unknown-type"
    INVALID_MESSAGE = "invalid-message"
    UNSUPPORTED_VERSION = "unsupported-version"
    RATE_LIMITED = "rate-limited"
    TOO_MANY_FOLLOWS = "too-many-follows"  # an account follows races on too many connections
    TOO_MANY_CONNECTIONS = "too-many-connections"  # refused at the handshake (HTTP 429/503)
    BAD_ORIGIN = "bad-origin"  # a handshake from another site's page (HTTP 403)
    NOT_AUTHENTICATED = "not-authenticated"
    ALREADY_AUTHENTICATED = "already-authenticated"
    BAD_NAME = "bad-name"
    NAME_TAKEN = "name-taken"
    BAD_TOKEN = "bad-token"
    BAD_CODE = "bad-code"
    BAD_MOVE = "bad-move"  # the notation does not parse
    ILLEGAL_MOVE = "illegal-move"  # the rules refuse it: see ``rule``
    NO_GAME = "no-game"
    GAME_OVER = "game-over"
    ALREADY_PLAYED = "already-played"
    DAILY_NOT_OVER = "daily-not-over"  # practice of today's daily deal
    NO_DAILY = "no-daily"
    PROVING = "proving"  # today's deals are still being proven: ask again in a few seconds
    NOT_FOUND = "not-found"
    BAD_CURSOR = "bad-cursor"
    # race rooms
    NO_SUCH_RACE = "no-such-race"  # no room has that code
    RACE_FULL = "race-full"
    RACE_STARTED = "race-started"  # too late: the countdown has begun
    NOT_RACE_OWNER = "not-race-owner"
    NOT_ENOUGH_RACERS = "not-enough-racers"
    NOT_IN_RACE = "not-in-race"
    RACE_NOT_OVER = "race-not-over"  # a rematch before the end
    BOTS_NOT_ALLOWED = "bots-not-allowed"
    NO_DEAL = "no-deal"  # no fresh deal could be proven winnable in time
    TOO_MANY_ROOMS = "too-many-rooms"  # open rooms per account, or rooms followed per connection
    STALE_GAME = "stale-game"  # played on elsewhere since: a state follows the error
    DAY_OVER = "day-over"  # an action on a daily after its day's end: a state follows the error
    GAME_TOO_LONG = "game-too-long"  # a game at its cap of actions: only resign is taken
    UNAVAILABLE = "unavailable"
    INTERNAL = "internal"
    NOT_VISIBLE = "not-visible"  # a replay (or review) its asker may not see, or not yet
    ALREADY_REPORTED = "already-reported"  # one report per player per result
    BUSY = "busy"  # a review of the account's is still being computed
    # accounts: terminal sign-in codes answer as RFC 8628's token endpoint does
    AUTHORIZATION_PENDING = "authorization-pending"  # not yet approved: poll again
    SLOW_DOWN = "slow-down"  # polled sooner than ``interval``: poll 5 s less often
    EXPIRED_TOKEN = "expired-token"  # the code expired (or was spent): start again
    ACCESS_DENIED = "access-denied"  # the player refused it
    PASSKEY_FAILED = "passkey-failed"  # a passkey's answer did not verify
    NOT_CONFIRMED = "not-confirmed"  # deleting an account asks for its name, as confirmation
    # friends and leagues
    BLOCKED = "blocked"  # following a player who blocked you
    LIMIT_REACHED = "limit-reached"  # follows, leagues owned or joined: see the limits
    NO_SUCH_LEAGUE = "no-such-league"  # no league has that code (or you may not see it)
    LEAGUE_FULL = "league-full"
    NOT_LEAGUE_OWNER = "not-league-owner"
    NOT_IN_LEAGUE = "not-in-league"


#: The HTTP status of a refusal over HTTP (JSON routes and pages), where it is not 400.
HTTP_STATUS: dict[ErrorCode, int] = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.NO_SUCH_RACE: 404,
    ErrorCode.NO_SUCH_LEAGUE: 404,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.PROVING: 503,
    ErrorCode.NOT_VISIBLE: 403,
    ErrorCode.BAD_ORIGIN: 403,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.INTERNAL: 500,
}


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Request(_Message):
    # Strict: a client's `true` is not the number 1, nor "1" a column. JSON strings
    # still read as dates.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: RequestId | None = None


# -- client to server ----------------------------------------------------------------


class Hello(_Request):
    """Optional first message: says which protocol version the client speaks."""

    type: Literal["hello"]
    version: int = PROTOCOL_VERSION
    client: Annotated[str, Field(max_length=64), CLEAN] | None = None
    #: Send ``legal`` (placement help for display) with each ``state`` and ``moved``.
    legal: bool = False
    #: The language the connection's sentences (an error's ``message``) are spoken in.
    lang: Language | None = None


#: What a client calls the device it runs on, for the list of places an account is signed
#: in (the browser and system otherwise, from the handshake's ``User-Agent``).
DeviceName = Annotated[str, Field(min_length=1, max_length=64), CLEAN]


class Register(_Request):
    """Create an account; the reply carries the secret token, shown this once."""

    type: Literal["register"]
    name: PlayerName
    bot: bool = False  # a bot account, for good: its dailies go on the bots' leaderboard
    device: DeviceName | None = None


class SetLanguage(_Request):
    """Keep ``lang`` as the account's language (every device and the terminal client then
    speak it), and speak it on this connection from now on."""

    type: Literal["set_language"]
    lang: Language


#: How big the cards are drawn (the play page's setting).
CardSize = Literal["normal", "large"]


class PlayerSettings(_Message):
    """A player's settings for the table, kept on the account so that every device has
    them: each left out (or ``null`` in ``set_settings``) is at its default."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    four_colour: bool | None = None  # diamonds blue, clubs green (default false)
    auto_place: bool | None = None  # a drop anywhere sends the group to its best place (false)
    sound: bool | None = None  # short tones for a pick-up, a drop, a run removed, a win (false)
    card_size: CardSize | None = None  # "normal" (the default) or "large"


class SetSettings(_Request):
    """Keep the settings given on the account (those left out stay as they are; ``null``
    puts one back to its default)."""

    type: Literal["set_settings"]
    settings: PlayerSettings


class Auth(_Request):
    type: Literal["auth"]
    token: Annotated[str, Field(min_length=1, max_length=128), CLEAN]
    #: As ``hello``'s: the language of the connection's sentences from now on.
    lang: Language | None = None


class DevicesRequest(_Request):
    """Where the account is signed in: its credentials, passkeys and recovery codes left."""

    type: Literal["devices"]


class Revoke(_Request):
    """Sign out one place (``credential``, an id from ``devices``), or every other
    (``others``): refused at once on every node."""

    type: Literal["revoke"]
    credential: Annotated[int, Field(ge=1, lt=2**53)] | None = None
    others: bool = False


class RotateToken(_Request):
    """Replace this connection's token with a new one (the old is refused from now on)."""

    type: Literal["rotate_token"]


class RecoveryCodesRequest(_Request):
    """Ten new one-time recovery codes, shown this once (those made before are spent)."""

    type: Literal["recovery_codes"]


class Recover(_Request):
    """Sign in with a recovery code (spent), as a new credential of the account's."""

    type: Literal["recover"]
    code: Annotated[str, Field(min_length=1, max_length=64), CLEAN]
    device: DeviceName | None = None
    lang: Language | None = None


class PasskeyOptions(_Request):
    """The WebAuthn options for ``navigator.credentials.create`` (``add``, signed in) or
    ``.get`` (``sign_in``): a challenge of this connection's, good for five minutes."""

    type: Literal["passkey_options"]
    purpose: Literal["add", "sign_in"]


#: A WebAuthn credential as ``PublicKeyCredential.toJSON()`` gives it (checked by the
#: WebAuthn library; at most 16 KB as JSON).
WebAuthnCredential = dict[str, Any]


class PasskeyAdd(_Request):
    type: Literal["passkey_add"]
    name: DeviceName
    credential: WebAuthnCredential


class PasskeyRemove(_Request):
    type: Literal["passkey_remove"]
    passkey: Annotated[int, Field(ge=1, lt=2**53)]


class PasskeySignIn(_Request):
    type: Literal["passkey_sign_in"]
    credential: WebAuthnCredential
    device: DeviceName | None = None
    lang: Language | None = None


class DeviceCodeRequest(_Request):
    """A terminal asks to be signed in (RFC 8628's device authorization request): the reply
    has a code for the player to approve at ``verification_uri``, signed in."""

    type: Literal["device_code"]
    device: DeviceName | None = None


class DeviceToken(_Request):
    """The terminal polls (RFC 8628's token request), at most every ``interval`` seconds:
    ``signed_in`` once approved, else an error ``authorization-pending``, ``slow-down``,
    ``expired-token`` or ``access-denied``."""

    type: Literal["device_token"]
    device_code: Annotated[str, Field(min_length=1, max_length=128), CLEAN]


UserCode = Annotated[str, Field(min_length=1, max_length=16), CLEAN]


class DeviceLookup(_Request):
    """What asks to be signed in with a user code (shown before the player approves)."""

    type: Literal["device_lookup"]
    user_code: UserCode


class DeviceApprove(_Request):
    """Approve (or refuse, ``approve`` false) a terminal's sign-in, signed in."""

    type: Literal["device_approve"]
    user_code: UserCode
    approve: bool = True


class Follow(_Request):
    """Follow a player (one way): their dailies go on your friends' board, and you are told
    when they finish one."""

    type: Literal["follow"]
    name: PlayerName


class Unfollow(_Request):
    type: Literal["unfollow"]
    name: PlayerName


class Block(_Request):
    """Stop a player following you, now and later."""

    type: Literal["block"]
    name: PlayerName


class Unblock(_Request):
    type: Literal["unblock"]
    name: PlayerName


class FollowingRequest(_Request):
    """Whom you follow, who follows you, and whom you blocked."""

    type: Literal["following"]


LeagueName = Annotated[str, Field(min_length=1, max_length=40), CLEAN]
LeagueCode = Annotated[str, Field(min_length=1, max_length=32), CLEAN]
#: A season: a calendar month, ``2026-12``.
Month = Annotated[str, Field(pattern=r"^\d{4}-(0[1-9]|1[0-2])$")]


class LeagueNew(_Request):
    """Create a private league (you own it and are its first member)."""

    type: Literal["league_new"]
    name: LeagueName
    suits: SuitCount = 1


class LeagueJoin(_Request):
    type: Literal["league_join"]
    code: LeagueCode


class LeagueLeave(_Request):
    type: Literal["league_leave"]
    code: LeagueCode


class LeagueRemove(_Request):
    """The owner removes a member (their past points stay in past days)."""

    type: Literal["league_remove"]
    code: LeagueCode
    name: PlayerName


class LeagueHandOver(_Request):
    """The owner makes another member the owner."""

    type: Literal["league_hand_over"]
    code: LeagueCode
    name: PlayerName


class LeaguePublic(_Request):
    """The owner puts the league's page on the web for anyone (or takes it off)."""

    type: Literal["league_public"]
    code: LeagueCode
    public: bool


class LeagueRequest(_Request):
    """A league's page: today, a season's table (``month``: this one by default), past
    seasons' winners and its members' streaks."""

    type: Literal["league"]
    code: LeagueCode
    month: Month | None = None


class LeaguesRequest(_Request):
    """The leagues you are in."""

    type: Literal["leagues"]


class DeleteAccount(_Request):
    """Delete the account: its credentials and personal data; its results stay on past
    boards under an anonymous name. ``confirm`` is the account's name."""

    type: Literal["delete_account"]
    confirm: PlayerName


class Start(_Request):
    """Start a game: the daily deal for a suit count, or practice on a code or a random deal.

    Starting today's daily again resumes the player's one ranked attempt.
    """

    type: Literal["start"]
    mode: Mode = "daily"
    suits: SuitCount = 1
    code: Annotated[str, Field(max_length=32), CLEAN] | None = None  # practice only


class MoveRequest(_Request):
    """Play a move in notation ``FROM-TO`` or ``FROM-TOxN``."""

    type: Literal["move"]
    move: Annotated[str, Field(max_length=16), CLEAN]


class AutoMove(_Request):
    """The double-click move: a column's group to its best place."""

    type: Literal["auto"]
    column: Column
    count: CardCount | None = None


class Undo(_Request):
    type: Literal["undo"]


class Restart(_Request):
    type: Literal["restart"]


class Resign(_Request):
    type: Literal["resign"]


class Targets(_Request):
    """Placement help: the columns a group from ``column`` may go to."""

    type: Literal["targets"]
    column: Column
    count: CardCount | None = None


class Resume(_Request):
    """After a reconnect: take up game ``game`` again; ``seq`` is the last one the client saw."""

    type: Literal["resume"]
    game: Annotated[str, Field(max_length=64), CLEAN]
    seq: Annotated[int, Field(ge=0)] = 0


class DailyRequest(_Request):
    """Today's deals (their suit counts, not their codes: a deal is revealed by ``start``),
    and yesterday's codes and par."""

    type: Literal["daily"]


class LeaderboardRequest(_Request):
    """A page of a daily leaderboard; ``after`` is the ``next`` cursor of the previous page."""

    type: Literal["leaderboard"]
    day: date | None = None  # today (UTC) when omitted
    suits: SuitCount = 1
    #: ``friends``: you and everyone you follow (signed in; the websocket only).
    board: BoardName = "humans"
    limit: Annotated[int, Field(ge=1, le=100)] = 20
    after: Annotated[str, Field(max_length=256), CLEAN] | None = None


class RankRequest(_Request):
    """A player's rank on a daily leaderboard and the rows around it."""

    type: Literal["rank"]
    day: date | None = None
    suits: SuitCount = 1
    board: Board = "humans"
    player: PlayerName | None = None  # the authenticated player when omitted
    around: Annotated[int, Field(ge=0, le=25)] = 5


_Asked = TypeVar("_Asked", bound=BaseModel)


@functools.cache
def bounds(model: type[BaseModel], name: str) -> dict[str, Any]:
    """The bounds ``model`` sets its field ``name`` (written only in the model), as its JSON
    schema says them: ``minimum`` and ``maximum``, ``maxLength``, or ``enum``."""
    schema = model.model_json_schema()["properties"][name]
    return next(each for each in schema.get("anyOf", [schema]) if each.get("type") != "null")


def bound_rule(model: type[BaseModel], name: str) -> str:
    """What a field of ``model`` must be, as an HTTP edge's error says it: ``limit is 1 to
    100``, ``suits must be one of [1, 2, 4]``, ``after is 1 to 256 characters``."""
    found = bounds(model, name)
    if "enum" in found:
        return gettext("%(name)s must be one of %(choices)s") % {
            "name": name,
            "choices": found["enum"],
        }
    if "maxLength" in found:  # an edge takes no empty text: 1 at the least
        return gettext("%(name)s is %(least)s to %(most)s characters") % {
            "name": name,
            "least": found.get("minLength", 1),
            "most": found["maxLength"],
        }
    return gettext("%(name)s is %(least)s to %(most)s") % {
        "name": name,
        "least": found["minimum"],
        "most": found["maximum"],
    }


def query_request(model: type[_Asked], values: dict[str, Any]) -> _Asked:
    """A request ``model`` from an HTTP query's ``values`` (read into ints and dates by the
    edge; those it lacks take the model's defaults); ``ValueError`` with the
    :func:`bound_rule` of the first field out of its bounds."""
    (kind,) = get_args(model.model_fields["type"].annotation)
    try:
        return model.model_validate({**values, "type": kind})
    except ValidationError as error:
        name = str(error.errors()[0]["loc"][0])
        raise ValueError(bound_rule(model, name)) from None


class HistoryRequest(_Request):
    """A player's finished games and all-time figures."""

    type: Literal["history"]
    player: PlayerName | None = None
    limit: Annotated[int, Field(ge=1, le=100)] = 20


class UnfinishedRequest(_Request):
    """The signed-in player's games in progress, to take one up again (``resume``)."""

    type: Literal["unfinished"]
    limit: Annotated[int, Field(ge=1, le=50)] = 20


class RaceRequest(_Request):
    """Follow the live race on today's deal for a suit count (joined automatically by ``start``)."""

    type: Literal["race"]
    suits: SuitCount = 1


#: A race room code's symbols: Crockford's base 32, the digits and the letters but I, L, O
#: and U, which read aloud and copy by hand without doubt (typed, O counts as 0, I and L
#: as 1). A code is 10 of them (50 random bits), shown in two groups: ``KXR4M-7M2PQ``.
ROOM_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ROOM_CODE_SYMBOLS = 10
ROOM_CODE_RULE = "a room code is 10 letters and digits, such as KXR4M-7M2PQ"
#: Rooms opened by earlier versions have 5-letter codes, which still name them.
_OLD_ROOM_CODE = re.compile(r"^[A-Z]{5}$")
_TYPED_AS = str.maketrans({"O": "0", "I": "1", "L": "1", "-": None, " ": None})


def grouped_room_code(symbols: str) -> str:
    """A room code's symbols in its two groups: ``KXR4M7M2PQ`` -> ``KXR4M-7M2PQ``."""
    half = ROOM_CODE_SYMBOLS // 2
    return f"{symbols[:half]}-{symbols[half:]}"


def room_code_form(text: str) -> str | None:
    """A room code as typed (any case, with or without its dash, spaces around) in its one
    form, or None if it is none::

        >>> room_code_form(" kxr4m7m2pq "), room_code_form("KXR4M-7M2P")
        ('KXR4M-7M2PQ', None)
    """
    typed = text.strip().upper()
    if _OLD_ROOM_CODE.match(typed):
        return typed
    symbols = typed.translate(_TYPED_AS)
    if len(symbols) != ROOM_CODE_SYMBOLS or any(s not in ROOM_ALPHABET for s in symbols):
        return None
    return grouped_room_code(symbols)


#: A race room's code: ``KXR4M-7M2PQ`` (any case, the dash optional, on the way in).
RoomCode = Annotated[str, Field(min_length=1, max_length=16), CLEAN]


#: The racers a race room holds, and the seconds from its reveal to its end at the latest,
#: as its owner may choose them.
Capacity = Annotated[int, Field(ge=kinds.FEWEST_RACERS, le=kinds.MOST_RACERS)]
TimeLimit = Annotated[int, Field(ge=kinds.SHORTEST_TIME_LIMIT, le=kinds.LONGEST_TIME_LIMIT)]


class RaceNew(_Request):
    """Open a race room: the sender owns it and is its first racer."""

    type: Literal["race_new"]
    suits: SuitCount = 1
    code: Annotated[str, Field(max_length=32), CLEAN] | None = None  # a practice code: the deal
    public: bool = False  # public: it counts down by itself, like a quick race
    capacity: Capacity = kinds.MOST_RACERS
    allow_bots: bool = False  # bot accounts may join
    time_limit: TimeLimit | None = None  # None: the server's default


class RaceJoin(_Request):
    """Join a room by its code before its countdown (again: take up your place in it)."""

    type: Literal["race_join"]
    code: RoomCode


class RaceQuick(_Request):
    """Join the open public room of a suit count (a new one if there is none)."""

    type: Literal["race_quick"]
    suits: SuitCount = 1


class RaceLeave(_Request):
    """Leave a room before its countdown; later, stop following it (the game stays)."""

    type: Literal["race_leave"]
    code: RoomCode


class RaceStart(_Request):
    """The owner starts the countdown (at least 2 racers)."""

    type: Literal["race_start"]
    code: RoomCode


class RaceRematch(_Request):
    """After the end: open (or join) the room's rematch, a new deal for whoever joins."""

    type: Literal["race_rematch"]
    code: RoomCode


class RaceWatch(_Request):
    """Follow a room (as a spectator, or a racer coming back) and get its view."""

    type: Literal["race_watch"]
    code: RoomCode


class Ping(_Request):
    type: Literal["ping"]


class DayStatsRequest(_Request):
    """Everyone's results of a day's board: the same object as ``GET /day/DAY/stats``."""

    type: Literal["day_stats"]
    day: date | None = None  # today (UTC) when omitted
    suits: SuitCount = 1
    board: Board = "humans"
    player: PlayerName | None = None  # adds "you are here"


GameId = Annotated[str, Field(min_length=1, max_length=64), CLEAN]


class ReplayRequest(_Request):
    """A finished game's actions as the server applied them, with its times."""

    type: Literal["replay"]
    game: GameId


class ReviewRequest(_Request):
    """A finished game reviewed against the solver, position by position."""

    type: Literal["review"]
    game: GameId


class ReportRequest(_Request):
    """Report a ranked daily result of a closed day, with a short reason."""

    type: Literal["report"]
    game: GameId
    reason: Annotated[str, Field(min_length=1, max_length=200), CLEAN]


class DailyResultRequest(_Request):
    """The signed-in player's finished daily of a day and suit count, afterwards: answered
    by its ``finished`` (the share text, the rank and standing as they are now)."""

    type: Literal["daily_result"]
    day: date | None = None  # today (UTC) when omitted
    suits: SuitCount = 1


ClientMessage = Annotated[
    Hello
    | Register
    | Auth
    | SetLanguage
    | SetSettings
    | Start
    | MoveRequest
    | AutoMove
    | Undo
    | Restart
    | Resign
    | Targets
    | Resume
    | DailyRequest
    | LeaderboardRequest
    | RankRequest
    | HistoryRequest
    | UnfinishedRequest
    | RaceRequest
    | RaceNew
    | RaceJoin
    | RaceQuick
    | RaceLeave
    | RaceStart
    | RaceRematch
    | RaceWatch
    | Ping
    | DayStatsRequest
    | ReplayRequest
    | ReviewRequest
    | ReportRequest
    | DailyResultRequest
    | DevicesRequest
    | Revoke
    | RotateToken
    | RecoveryCodesRequest
    | Recover
    | PasskeyOptions
    | PasskeyAdd
    | PasskeyRemove
    | PasskeySignIn
    | DeviceCodeRequest
    | DeviceToken
    | DeviceLookup
    | DeviceApprove
    | DeleteAccount
    | Follow
    | Unfollow
    | Block
    | Unblock
    | FollowingRequest
    | LeagueNew
    | LeagueJoin
    | LeagueLeave
    | LeagueRemove
    | LeagueHandOver
    | LeaguePublic
    | LeagueRequest
    | LeaguesRequest,
    Field(discriminator="type"),
]

_client_adapter: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
# the adapter's core validator, called directly: every frame a client sends goes through it
_validate_client_json = _client_adapter.validator.validate_json


def parse_client_message(data: str | bytes) -> ClientMessage:
    """Validate one client frame; raises :class:`pydantic.ValidationError` on bad input."""
    return _validate_client_json(data)  # type: ignore[no-any-return]


# -- server to client ----------------------------------------------------------------


class PlayerInfo(_Message):
    name: str
    created: str | None = None  # ISO 8601
    bot: bool = False
    #: The language the player chose for the account (``set_language``), if any.
    language: Language | None = None
    #: The settings the player keeps on the account (``set_settings``), if any.
    settings: PlayerSettings | None = None


#: Placement help: ``legal[c][n - 1]`` lists the columns (1-based) the last ``n`` cards of
#: column ``c + 1`` may go to; a column's list is as long as its movable group.
Placements = list[list[list[int]]]


class GameView(_Message):
    """The whole state of one game, as the server's engine holds it."""

    game: str  # the game's id, for ``resume``
    code: str
    suits: SuitCount
    mode: Mode
    day: date | None = None  # the daily's day
    board: list[str]  # ten columns in board text, deepest card first
    moves: int
    score: int
    removed: int
    won: bool
    finished: bool
    can_undo: bool
    seq: int  # bumps on every accepted action
    elapsed: float  # seconds by the server's clock since the first start
    par: int | None = None  # the daily's par, once the day is over
    race: str | None = None  # a race game: its room's code
    #: With ``hello``'s ``legal``: for each column, for each group size from 1 card to its
    #: movable group, the columns (1-based) that group may go to. Absent once finished.
    legal: Placements | None = None


class Welcome(_Message):
    type: Literal["welcome"] = "welcome"
    id: MessageId | None = None
    version: int = PROTOCOL_VERSION
    server_time: str
    player: PlayerInfo | None = None
    #: How long a fair-play review of a held result usually takes on this server, in hours
    #: (``SIMON_HELD_REVIEW_HOURS``): what a client tells a player whose result is held.
    review_hours: int | None = None


class Registered(_Message):
    type: Literal["registered"] = "registered"
    id: MessageId | None = None
    player: PlayerInfo
    token: str  # keep it: it is stored only as a hash and never shown again


class LanguageSet(_Message):
    type: Literal["language_set"] = "language_set"
    id: MessageId | None = None
    lang: Language


class SettingsSet(_Message):
    type: Literal["settings_set"] = "settings_set"
    id: MessageId | None = None
    settings: PlayerSettings  # the account's, all of them: those at their default left out


class Authenticated(_Message):
    type: Literal["authenticated"] = "authenticated"
    id: MessageId | None = None
    player: PlayerInfo


class SignedIn(_Message):
    """Signed in by a recovery code, a passkey or an approved terminal code: the new
    credential's token, shown this once."""

    type: Literal["signed_in"] = "signed_in"
    id: MessageId | None = None
    player: PlayerInfo
    token: str


class SignedOut(_Message):
    """Pushed when this connection's credential is revoked (``revoked``) or its account
    deleted (``deleted``): it is signed out, and its token refused from now on."""

    type: Literal["signed_out"] = "signed_out"
    reason: Literal["revoked", "deleted"]


class CredentialInfo(_Message):
    id: int
    kind: str  # registration, rotation, passkey, terminal, recovery
    device: str  # what made it
    created: str  # ISO 8601
    created_from: str  # the address it was made from
    last_used: str
    last_used_from: str
    current: bool = False  # this connection's


class PasskeyInfo(_Message):
    id: int
    name: str
    created: str
    last_used: str | None = None


class Devices(_Message):
    type: Literal["devices"] = "devices"
    id: MessageId | None = None
    credentials: list[CredentialInfo]
    passkeys: list[PasskeyInfo]
    recovery_codes_left: int


class TokenRotated(_Message):
    type: Literal["token_rotated"] = "token_rotated"
    id: MessageId | None = None
    token: str  # the new one, shown this once


class RecoveryCodes(_Message):
    type: Literal["recovery_codes"] = "recovery_codes"
    id: MessageId | None = None
    codes: list[str]  # shown this once: each signs in once


class PasskeyOptionsReply(_Message):
    type: Literal["passkey_options"] = "passkey_options"
    id: MessageId | None = None
    purpose: Literal["add", "sign_in"]
    #: ``PublicKeyCredentialCreationOptionsJSON`` or ``...RequestOptionsJSON``.
    options: dict[str, Any]


class DeviceCode(_Message):
    """RFC 8628's device authorization response."""

    type: Literal["device_code"] = "device_code"
    id: MessageId | None = None
    device_code: str  # the terminal's secret, to poll with
    user_code: str  # what the player checks and approves
    verification_uri: str
    verification_uri_complete: str
    expires_in: int  # seconds
    interval: int  # seconds between polls


class DeviceRequest(_Message):
    type: Literal["device_request"] = "device_request"
    id: MessageId | None = None
    user_code: str
    device: str
    created_from: str
    expires_in: int


class DeviceApproved(_Message):
    type: Literal["device_approved"] = "device_approved"
    id: MessageId | None = None
    user_code: str
    approved: bool


class FollowedPlayer(_Message):
    name: str
    since: str  # ISO 8601


class Following(_Message):
    type: Literal["following"] = "following"
    id: MessageId | None = None
    following: list[FollowedPlayer]
    followers: list[FollowedPlayer]
    blocked: list[FollowedPlayer]


class LeagueSummary(_Message):
    code: str
    name: str
    owner: str
    suits: SuitCount
    members: int
    public: bool


class Leagues(_Message):
    type: Literal["leagues"] = "leagues"
    id: MessageId | None = None
    leagues: list[LeagueSummary]


class LeagueMemberInfo(_Message):
    name: str
    joined: date
    streak: int  # days in a row up to today (or yesterday) with the league's daily finished


class LeagueDayRow(_Message):
    """A member's result of the day, its place among the members and the points it earns."""

    name: str
    place: int
    points: int
    won: bool
    moves: int
    score: int
    removed: int
    elapsed: float


class SeasonRow(_Message):
    place: int
    name: str
    points: int
    days: int  # days with a result
    wins: int  # days won (first among the members)


class SeasonWinner(_Message):
    month: str
    name: str
    points: int


class LeagueView(_Message):
    type: Literal["league"] = "league"
    id: MessageId | None = None
    code: str
    name: str
    owner: str
    suits: SuitCount
    public: bool
    invite: str  # the link that joins it
    members: list[LeagueMemberInfo]
    day: date  # today
    today: list[LeagueDayRow]
    #: Today before you finished today's daily: who of the members has (``today`` empty).
    finished_today: list[str] | None = None
    month: str  # the season shown
    season: list[SeasonRow]
    winners: list[SeasonWinner]  # past seasons', the latest first


class FriendFinished(_Message):
    """Pushed when someone you follow, or a member of a league of yours, finishes today's
    daily (no score: yours may not be done)."""

    type: Literal["friend_finished"] = "friend_finished"
    name: str
    day: date
    suits: SuitCount


class AccountDeleted(_Message):
    type: Literal["account_deleted"] = "account_deleted"
    id: MessageId | None = None
    name: str  # the anonymous name its results keep


class State(_Message):
    """The full game: the reply to start, resume, restart and undo."""

    type: Literal["state"] = "state"
    id: MessageId | None = None
    state: GameView


class Moved(_Message):
    """An accepted move or auto move, small: the client applies ``move`` to its copy."""

    type: Literal["moved"] = "moved"
    id: MessageId | None = None
    game: str
    seq: int
    move: str  # FROM-TOxN, count explicit
    removed_run: bool  # the move completed a run, which left the table
    moves: int
    score: int
    removed: int
    won: bool
    legal: Placements | None = None  # as in the game's view, with ``hello``'s ``legal``


def moved_frame(
    *,
    id: MessageId | None,
    game: str,
    seq: int,
    move: str,
    removed_run: bool,
    moves: int,
    score: int,
    removed: int,
    won: bool,
    legal: Placements | None = None,
) -> MovedFrame:
    """``encode(Moved(...))``, written out: the reply to every move, so the hot path.

    ``game`` and ``move`` come from the server (hex ids, move notation) and need no
    escaping; the client's ``id`` is escaped by :func:`json.dumps`. Tests check that
    both encodings agree.
    """
    if id is None:
        head = '{"type":"moved",'
    elif type(id) is int:
        head = f'{{"type":"moved","id":{id},'
    else:
        head = f'{{"type":"moved","id":{json.dumps(id, ensure_ascii=False)},'
    tail = "}" if legal is None else f',"legal":{json.dumps(legal, separators=(",", ":"))}}}'
    return MovedFrame(
        f'{head}"game":"{game}","seq":{seq},"move":"{move}",'
        f'"removed_run":{_JSON_BOOL[removed_run]},"moves":{moves},"score":{score},'
        f'"removed":{removed},"won":{_JSON_BOOL[won]}{tail}'
    )


_JSON_BOOL = {True: "true", False: "false"}


class Streak(_Message):
    """Consecutive UTC days with a finished daily of any suit count: the run that ends
    today (or yesterday, while today's may still come), and the longest."""

    current: int
    best: int


class Finished(_Message, Result):
    """A game ended (won, resigned, or closed at its day's end): its :class:`Result` (the
    stored one: won, resigned, moves, score, removed, elapsed, finished_at), and more."""

    type: Literal["finished"] = "finished"
    id: MessageId | None = None
    game: str
    code: str
    mode: Mode
    rank: int | None = None  # daily: the rank now
    par: int | None = None  # daily: once the day is over
    #: "held": the result is held for fair-play review, off the public board for now.
    review: Literal["held"] | None = None
    #: daily, ranked: the share of the board's ranked results this one beats or ties (0-100)
    percentile: float | None = None
    streak: Streak | None = None  # daily: consecutive UTC days with a finished daily
    #: daily: a text to share that gives nothing away (no code, no card, no move)
    share: str | None = None
    #: A human's daily: the board it is on ("new": the new players' board), or goes on
    #: once its review clears it; a bot's: "bots".
    board: Board | None = None
    #: While the player's dailies go on the new players' board: the first day whose
    #: daily counts on the public board (at the earliest: finishing one each day).
    counts_from: date | None = None
    #: The game's ``seq`` with its end counted (an end is one of its actions).
    seq: int | None = None

    @field_serializer("finished_at")
    def _instant(self, moment: datetime) -> str:
        # as every other instant of the protocol: "+00:00", not pydantic's "Z"
        return moment.isoformat()


class TargetList(_Message):
    type: Literal["targets"] = "targets"
    id: MessageId | None = None
    column: int
    count: int | None = None  # None: the longest group that moves (left out of the frame)
    columns: list[int]  # 1-based


class DailyCode(_Message):
    """A past day's deal: its code, and its par."""

    suits: SuitCount
    code: str
    par: int | None = None


class TodayDeal(_Message):
    """One of today's deals, without its code: ``start`` reveals it (and starts the clock)."""

    suits: SuitCount
    # For a signed-in player: whether they started that attempt, and finished it.
    started: bool | None = None
    finished: bool | None = None
    #: False: still being proven (``start`` refuses it ``proving``); a ``daily_changed``
    #: of the same day says when it is ready (left out once it is).
    ready: Literal[False] | None = None


class DailyInfo(_Message):
    type: Literal["daily"] = "daily"
    id: MessageId | None = None
    day: date
    deals: list[TodayDeal]
    yesterday: list[DailyCode] = []  # with par
    seconds_left: float  # until the next day starts (UTC)


class LeaderboardRow(_Message):
    rank: int
    player: str
    score: int
    moves: int
    elapsed: float
    finished_at: str  # ISO 8601
    won: bool
    removed: int  # runs removed: the games not won are ranked by it
    bot: bool = False  # every row of the bots' board
    verified: bool = False  # a reviewer cleared it (the leaders are checked first)


class LeaderboardPage(_Message):
    type: Literal["leaderboard"] = "leaderboard"
    id: MessageId | None = None
    day: date
    suits: SuitCount
    board: BoardName = "humans"
    rows: list[LeaderboardRow]
    next: str | None = None  # cursor for the next page, None at the end
    total: int
    #: A friends' board of today before you finished today's daily: who of them has
    #: finished, and ``rows`` is empty (no scores before yours).
    finished: list[str] | None = None
    #: False: the day is over and had no deal of this suit count (left out otherwise).
    dealt: Literal[False] | None = None


class RankInfo(_Message):
    type: Literal["rank"] = "rank"
    id: MessageId | None = None
    day: date
    suits: SuitCount
    board: Board = "humans"
    player: str
    rank: int | None = None  # None (left out): no result on this board that day
    total: int
    around: list[LeaderboardRow]
    #: "held": no rank because the player's finished result is held for fair-play review.
    review: Literal["held"] | None = None
    #: False: the day is over and had no deal of this suit count (left out otherwise).
    dealt: Literal[False] | None = None


class HistoryGame(_Message):
    game: str  # its id: what replay, review and report take
    day: date | None = None  # None: a practice (or race) game
    code: str | None = None  # None: a daily of today, secret until the day ends
    suits: SuitCount
    mode: Mode
    won: bool
    score: int
    moves: int
    elapsed: float
    finished_at: str
    rank: int | None = None
    #: "held" (shown to its player only): held for fair-play review, off the public board.
    review: Literal["held"] | None = None
    race: str | None = None  # a race game: its room's code
    place: int | None = None  # ... and where it placed, once the race is over
    board: Board | None = None  # a daily: the board it is on ("new": the new players')
    verified: bool = False  # a daily a reviewer cleared


class PlayerStats(_Message):
    games: int
    won: int
    best_score: dict[str, int]  # by suit count ("1", "2", "4")


class History(_Message):
    type: Literal["history"] = "history"
    id: MessageId | None = None
    player: str
    stats: PlayerStats
    games: list[HistoryGame]
    streak: Streak | None = None
    #: While the player's dailies go on the new players' board: the first day whose daily
    #: counts on the public board (at the earliest: finishing one each day).
    counts_from: date | None = None


class UnfinishedGame(_Message):
    game: str  # its id: what ``resume`` takes
    mode: Mode
    suits: SuitCount
    code: str | None = None  # None: today's daily (its code is told only by ``state``)
    day: date | None = None  # a daily: its day (today)
    race: str | None = None  # a race room's game: its room's code
    moves: int  # as the game counts them (an undo takes one back, a restart starts over)
    started: str  # ISO 8601: when it was first started


class Unfinished(_Message):
    """The reply to ``unfinished``: the player's games in progress, newest started first."""

    type: Literal["unfinished"] = "unfinished"
    id: MessageId | None = None
    games: list[UnfinishedGame]


class RaceEntry(_Message):
    player: str
    moves: int
    score: int
    removed: int
    finished: bool
    won: bool
    resigned: bool = False
    bot: bool = False  # a declared bot account
    left: bool = False  # gone from the server mid-game (may come back)
    rank: int | None = None  # in a digest or the standings: the place in the race

    def standing(self) -> tuple[bool, int, int, str]:
        """The race standings order (docs/protocol.md, "Races"), for ``sorted(key=...)``:
        those who won first, then the higher score, then fewer moves, then the name."""
        return not self.won, -self.score, self.moves, self.player.lower()


class _RaceBoard(_Message):
    """A daily race at a glance: the leaders, the rows around the follower's own, counts."""

    day: date
    suits: SuitCount
    #: The first rows of the race (ranked), then the rows around the follower's own if it
    #: is racing and not among them; in the race's order (docs/protocol.md, "Races").
    players: list[RaceEntry]
    total: int = 0  # everyone in the race
    playing: int = 0  # not finished yet
    finished: int = 0


class RaceStandings(_RaceBoard):
    """The reply to ``race``: the race as it stands."""

    type: Literal["race"] = "race"
    id: MessageId | None = None


class RaceDigest(_RaceBoard):
    """Pushed to a race's followers at most once a second while it changes (never one
    event per player's move: a race of thousands would send each follower thousands)."""

    type: Literal["race_digest"] = "race_digest"


class RoomEntry(_Message):
    """A racer in a room: how their game stands, and their place once the race is over."""

    player: str
    bot: bool = False
    moves: int = 0
    score: int = 500
    removed: int = 0
    won: bool = False
    resigned: bool = False
    finished: bool = False  # won, resigned, or stopped by the time limit
    elapsed: float | None = None  # a winner's time from the start, in seconds
    place: int | None = None  # once the race is over

    def standing(self) -> tuple[bool, float, int, int, str]:
        """A room's standings order (docs/protocol.md, "Race rooms"): those who cleared
        the table first, by time from the start; then the rest by runs removed, then fewer
        moves; then the name."""
        time = (self.elapsed or 0.0) if self.won else 0.0
        return not self.won, time, -self.removed, self.moves, self.player.lower()


class RoomView(_Message):
    """A race room as it stands: its options, its racers in standings order, its times."""

    code: str
    state: RoomState
    owner: str
    suits: SuitCount
    public: bool
    capacity: int
    allow_bots: bool
    countdown: float  # seconds from the countdown's start to the reveal
    time_limit: float  # seconds from the reveal to the end at the latest
    racers: list[RoomEntry]
    starts_at: str | None = None  # ISO 8601: the reveal of the deal
    starts_in: float | None = None  # seconds to the reveal when this view was made
    ends_at: str | None = None  # the time limit
    auto_start_at: str | None = None  # a public room's countdown begins by itself then
    deal: str | None = None  # the deal's code, once revealed
    next: str | None = None  # the rematch room's code
    previous: str | None = None  # the room this one is the rematch of
    revision: int  # bumps on every change of the room: a view with a lower one is older


class RaceRoom(_Message):
    """A room's whole view: the reply to the ``race_*`` requests, and pushed to everyone
    in or following the room when it changes (``event`` says why)."""

    type: Literal["race_room"] = "race_room"
    id: MessageId | None = None
    event: RoomEventKind | None = None
    room: RoomView


class RaceUpdate(_Message):
    """Pushed to a room while it races: one racer's line changed (moves thinned out)."""

    type: Literal["race_update"] = "race_update"
    code: str
    event: RaceEventKind
    entry: RoomEntry


class DailyChanged(_Message):
    """Pushed when a new UTC day starts: the new deals (no codes), and the codes and par of
    the day just over; pushed again, of the same day, when one of its deals being proven
    becomes ready (each deal's ``ready`` says which are)."""

    type: Literal["daily_changed"] = "daily_changed"
    day: date
    deals: list[TodayDeal]
    yesterday: list[DailyCode] = []


class Pong(_Message):
    type: Literal["pong"] = "pong"
    id: MessageId | None = None
    server_time: str


class Error(_Message):
    type: Literal["error"] = "error"
    id: MessageId | None = None
    code: ErrorCode
    message: str
    rule: str | None = None  # for illegal-move and bad-name: the rule's stable code
    detail: dict[str, str | int | None] | None = None


class MovesBin(_Message):
    moves: int  # the bin's lowest move count
    count: int


class RemovedCount(_Message):
    removed: int  # runs removed by a game not won
    count: int


class YouAreHere(_Message):
    player: str
    rank: int
    won: bool
    moves: int
    removed: int
    elapsed: float
    percentile: float


class DayStats(_Message):
    """Everyone's ranked results of a day's board (held results not counted)."""

    type: Literal["day_stats"] = "day_stats"
    id: MessageId | None = None
    day: date
    suits: SuitCount
    board: Board = "humans"
    finished: int
    won: int
    moves_histogram: list[MovesBin]  # the winners' move counts, in bins of equal width
    bin_width: int = 1
    not_won: list[RemovedCount]  # the games not won, by runs removed
    #: the winners' times in seconds: the first quartile, the median, the third quartile
    time_quartiles: list[float] | None = None
    par: int | None = None  # once the day is over
    you: YouAreHere | None = None
    #: False: the day is over and had no deal of this suit count (left out otherwise).
    dealt: Literal[False] | None = None


class ReplayStep(_Message):
    seq: int
    action: str  # a move FROM-TOxN, undo, restart; or the end: won, resign, closed
    at: int  # the server's clock, milliseconds since 1970 UTC


class Replay(_Message):
    type: Literal["replay"] = "replay"
    id: MessageId | None = None
    game: str
    code: str
    player: str
    suits: SuitCount
    mode: Mode
    day: date | None = None
    race: str | None = None
    #: When the game began (its deal shown: for a race, the reveal), as ``at``: the first
    #: move's think time is its ``at`` less this. The deal itself is the code's.
    started: int | None = None
    moves: list[ReplayStep]


class ReviewPosition(_Message):
    """The position after ``seq`` (0: the deal), and what its move cost."""

    seq: int
    action: str | None = None  # the action that led here (None at the deal)
    winnable: bool | None = None  # None: the budget ran out before the solver could tell
    distance: int | None = None  # the solver's line from here, in moves (0 at a win)
    #: moves the action cost against the solver's line before it (None when unknown)
    delta: int | None = None


class Stretch(_Message):
    """Where moves went: consecutive actions whose delta added up to ``cost``."""

    first: int  # seq
    last: int
    cost: int


class Review(_Message):
    type: Literal["review"] = "review"
    id: MessageId | None = None
    game: str
    positions: list[ReviewPosition]
    #: a lost game: the seq of the first action after which no win existed (proven)
    losing_move: int | None = None
    stretches: list[Stretch] = []  # the costliest, most costly first
    moves: int  # the game's moves
    won: bool
    #: the solver's line from the deal, in moves (not proven the shortest)
    solver_line: int | None = None
    against_line: int | None = None  # a won game: its moves less the solver's line
    par: int | None = None  # a daily's par (the solver's line when the deal was proven)
    against_par: int | None = None  # a won daily: its moves less the par
    unknown: int = 0  # positions the budget left unknown


class Queued(_Message):
    """A ``review`` waits for the solver: where it stands in line (sent again as it moves)."""

    type: Literal["queued"] = "queued"
    game: str  # the game of the review asked
    position: int  # 1: the next to be made once the solver is free


class ReviewProgress(_Message):
    """A ``review`` being made: positions judged so far (sent as the work starts, then as it
    goes, at most about 4 a second, and once more when every position is judged)."""

    type: Literal["review_progress"] = "review_progress"
    game: str  # the game of the review asked
    judged: int  # positions judged so far (the deal is the first, and the costliest)
    positions: int  # the review's positions: the deal and each board-changing action
    #: seconds until the review is made, as the pace of this node's recent reviews (or of
    #: this one, once under way) says, never past the review's budget; None: no pace known
    seconds_left_estimate: float | None = None
    #: the review will take long (its estimate is 10 s or more): a client says so
    long: bool = False


class Reported(_Message):
    type: Literal["reported"] = "reported"
    id: MessageId | None = None
    game: str


ServerMessage = Annotated[
    Welcome
    | Registered
    | Authenticated
    | LanguageSet
    | SettingsSet
    | State
    | Moved
    | Finished
    | TargetList
    | DailyInfo
    | LeaderboardPage
    | RankInfo
    | History
    | Unfinished
    | RaceStandings
    | RaceDigest
    | RaceRoom
    | RaceUpdate
    | DailyChanged
    | Pong
    | Error
    | DayStats
    | Replay
    | Review
    | Queued
    | ReviewProgress
    | Reported
    | SignedIn
    | SignedOut
    | Devices
    | TokenRotated
    | RecoveryCodes
    | PasskeyOptionsReply
    | DeviceCode
    | DeviceRequest
    | DeviceApproved
    | AccountDeleted
    | Following
    | Leagues
    | LeagueView
    | FriendFinished,
    Field(discriminator="type"),
]

_server_adapter: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def parse_server_message(data: str | bytes) -> ServerMessage:
    """Validate one server frame (the client's side of the protocol)."""
    return _server_adapter.validate_json(data)


# -- between nodes --------------------------------------------------------------------


class RaceEvent(_Message):
    """One racer's event (joined, moved, removed a run, ended, left) as nodes exchange it on the
    bus (a :data:`NodeMessage`, never a client's); followers are sent :class:`RaceDigest`."""

    type: Literal["race_event"] = "race_event"
    day: date
    suits: SuitCount
    event: RaceEventKind
    entry: RaceEntry


#: What a node publishes on the bus for the other nodes, and reads back from it: a daily
#: race's events (on the race's channel: a client is sent digests, never these), and a race
#: room's views and updates (on the room's channel: pushed on to the room's followers as
#: they came, so these two are server messages too). A client's frame is never read with it.
NodeMessage = Annotated[RaceEvent | RaceRoom | RaceUpdate, Field(discriminator="type")]

_node_adapter: TypeAdapter[NodeMessage] = TypeAdapter(NodeMessage)
# the adapter's core validator, called directly: every room update a node hears goes through it
_validate_node_json = _node_adapter.validator.validate_json


def parse_node_message(data: str | bytes) -> NodeMessage:
    """Validate one frame from the bus; raises :class:`pydantic.ValidationError` on bad
    input (a frame of no node message's kind among them)."""
    return _validate_node_json(data)  # type: ignore[no-any-return]


def encode(message: BaseModel) -> str:
    """One frame of text; fields left at None are left out to keep frames small."""
    return message.model_dump_json(exclude_none=True)


#: A ``moved`` reply encoded already (:func:`moved_frame`): the one reply made as text, as it
#: answers every move. Only :func:`moved_frame` makes one.
MovedFrame = NewType("MovedFrame", str)
#: What a handler answers with: a message, encoded only at the socket (:func:`encode_reply`).
Reply = ServerMessage | MovedFrame


def encode_reply(reply: Reply) -> str:
    """The frame of text for a reply."""
    return reply if type(reply) is str else encode(reply)  # type: ignore[arg-type]


__all__ = [
    "PROTOCOL_VERSION",
    "Board",
    "BoardName",
    "ClientMessage",
    "ErrorCode",
    "Mode",
    "MovedFrame",
    "NodeMessage",
    "RaceEventKind",
    "Reply",
    "RoomEventKind",
    "RoomState",
    "ServerMessage",
    "ValidationError",
    "bound_rule",
    "bounds",
    "encode",
    "encode_reply",
    "has_control",
    "moved_frame",
    "parse_client_message",
    "parse_node_message",
    "parse_server_message",
    "query_request",
]
