"""The tables, as SQLAlchemy 2 declarative models. The schema itself is made only by the
alembic migrations in ``migrations/``; ``migrate.check()`` proves the two agree."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, assert_never

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from server.kinds import DayBoard, Mode
from server.store.errors import InvalidRequest
from server.store.order import ORDER

NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

NAME_LENGTH = 64
#: The longest look key (``server.names.look_key``) stored: a character's skeleton is at
#: most 18 code points, so a name of the rule's 24 characters fits.
LOOK_KEY_LENGTH = 512
GAME_ID_LENGTH = 64
#: The longest room code stored (codes are 11 characters, ``KXR4M-7M2PQ``; older ones 5).
ROOM_CODE_LENGTH = 16


class UTCDateTime(sa.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every backend.

    SQLite keeps no zone (it stores the text ``YYYY-MM-DD HH:MM:SS.ffffff``), so values are
    converted to UTC before writing, which also keeps its text order chronological, and
    marked UTC again when read.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise InvalidRequest(f"naive datetime {value!r}: give a timezone-aware one")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


# Game ids sort bytewise everywhere (the rank cache compares bytes): "C" collation on PostgreSQL;
# SQLite's default BINARY collation already does.
GameId = sa.String(GAME_ID_LENGTH).with_variant(
    postgresql.VARCHAR(GAME_ID_LENGTH, collation="C"), "postgresql"
)


#: The longest label of a credential, passkey or device code (what made it, its name).
LABEL_LENGTH = 64
#: The longest client address kept (an IPv6 address in text is at most 45 characters).
ADDRESS_LENGTH = 64


class Base(DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)


class Player(Base):
    __tablename__ = "players"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(sa.String(NAME_LENGTH))
    #: ``name_key(name)``: unique, so names are unique regardless of case on every backend.
    name_key: Mapped[str] = mapped_column(sa.String(4 * NAME_LENGTH))
    #: ``look_key(name)``, the name's confusable skeleton: unique, so no name can pose as
    #: another (``аnna`` in Cyrillic letters as ``anna``). None only for an account made
    #: before the rule whose look an older account already had.
    look_key: Mapped[str | None] = mapped_column(sa.String(LOOK_KEY_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    #: A declared bot account (chosen at registration, permanent): its dailies go on the
    #: bots' leaderboard, never on the humans'.
    bot: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    #: A review confirmed machine play on this account: its later dailies are held too.
    flagged: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    #: The language its player chose (``set_language``: ``en``, ``pl``, ``ru``), if any.
    language: Mapped[str | None] = mapped_column(sa.String(8))
    #: The settings its player keeps (``set_settings``: names to values, JSON), if any.
    settings: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON)
    #: When its player deleted the account: its name is an anonymous one since, and it has
    #: no credential, passkey or personal setting left (its results stay on past boards).
    deleted_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        sa.Index("ix_players_name_key", "name_key", unique=True),
        sa.Index("ix_players_look_key", "look_key", unique=True),
    )


class Credential(Base):
    """One place an account is signed in: a secret token (a browser, a terminal, a bot)
    of which only the SHA-256 is kept. Revoking it deletes the row."""

    __tablename__ = "credentials"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    #: How it was made: ``registration``, ``rotation``, ``passkey``, ``terminal``, ``recovery``.
    kind: Mapped[str] = mapped_column(sa.String(16))
    #: What made it, as its client said (a browser and its system, ``simon``).
    label: Mapped[str] = mapped_column(sa.String(LABEL_LENGTH))
    secret_hash: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    created_from: Mapped[str] = mapped_column(sa.String(ADDRESS_LENGTH))
    last_used_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_used_from: Mapped[str] = mapped_column(sa.String(ADDRESS_LENGTH))

    __table_args__ = (
        sa.Index("ix_credentials_secret_hash", "secret_hash", unique=True),
        sa.Index("ix_credentials_player_id", "player_id"),
    )


class Passkey(Base):
    """A WebAuthn credential of an account's (a passkey): its public key, never a secret."""

    __tablename__ = "passkeys"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    #: The authenticator's credential id, base64url (at most 1,023 bytes).
    credential_id: Mapped[str] = mapped_column(sa.String(1400))
    public_key: Mapped[bytes] = mapped_column(sa.LargeBinary)
    sign_count: Mapped[int] = mapped_column(sa.BigInteger)
    name: Mapped[str] = mapped_column(sa.String(LABEL_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (
        sa.Index("ix_passkeys_credential_id", "credential_id", unique=True),
        sa.Index("ix_passkeys_player_id", "player_id"),
    )


class RecoveryCode(Base):
    """One of an account's one-time recovery codes, as its SHA-256: spent (deleted) once
    it signs in."""

    __tablename__ = "recovery_codes"

    code_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (sa.Index("ix_recovery_codes_player_id", "player_id"),)


class DeviceCode(Base):
    """A terminal's sign-in waiting for its player's approval (the device authorization of
    RFC 8628): the terminal polls with the device code (kept as its SHA-256), the player
    approves the short user code at ``/play``."""

    __tablename__ = "device_codes"

    device_code_hash: Mapped[str] = mapped_column(sa.String(64), primary_key=True)
    user_code: Mapped[str] = mapped_column(sa.String(16))
    label: Mapped[str] = mapped_column(sa.String(LABEL_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    created_from: Mapped[str] = mapped_column(sa.String(ADDRESS_LENGTH))
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    #: The account that approved it; None while it waits.
    player_id: Mapped[int | None] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    #: Its player refused it.
    denied: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())

    __table_args__ = (sa.Index("ix_device_codes_user_code", "user_code", unique=True),)


class Follow(Base):
    """One player following another (one way, as lichess): the follower's friends' board
    shows the followed player's dailies, and the follower is told when they finish one."""

    __tablename__ = "follows"

    follower_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    followed_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    # who follows a player: a finished daily's fan-out, the followers' list
    __table_args__ = (sa.Index("ix_follows_followed_id", "followed_id"),)


class Block(Base):
    """A player who may not follow another (and no longer does)."""

    __tablename__ = "blocks"

    blocker_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    blocked_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class League(Base):
    """A private league: its members' dailies of one suit count earn points by place among
    them each day, summed over a calendar month (a season)."""

    __tablename__ = "leagues"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    #: Its invitation: a room code's form and size (50 random bits).
    code: Mapped[str] = mapped_column(sa.String(ROOM_CODE_LENGTH))
    name: Mapped[str] = mapped_column(sa.String(LABEL_LENGTH))
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    suits: Mapped[int] = mapped_column(sa.SmallInteger)
    #: Its page is on the web for anyone (the owner's choice); else for its members only.
    public: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())

    __table_args__ = (
        sa.Index("ix_leagues_code", "code", unique=True),
        sa.Index("ix_leagues_owner_id", "owner_id"),
    )


class LeagueMember(Base):
    """A player's membership of a league, from the day they joined to the day they left
    (None while a member): a day's points count for those who were members on it, so a
    member who leaves keeps the points of past seasons."""

    __tablename__ = "league_members"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    league_id: Mapped[int] = mapped_column(sa.ForeignKey("leagues.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    joined_on: Mapped[date] = mapped_column(sa.Date)
    left_on: Mapped[date | None] = mapped_column(sa.Date)

    __table_args__ = (
        sa.Index("ix_league_members_league_id", "league_id", "left_on"),
        sa.Index("ix_league_members_player_id", "player_id", "left_on"),
    )


class DailyDeal(Base):
    __tablename__ = "daily_deals"

    day: Mapped[date] = mapped_column(sa.Date, primary_key=True)
    suits: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True)
    code: Mapped[str] = mapped_column(sa.String(32))
    par: Mapped[int | None] = mapped_column(sa.Integer)
    #: The solver's solution (moves, space-separated): the fair-play evidence compares
    #: players' lines with it.
    solution: Mapped[str | None] = mapped_column(sa.Text)


class InstallSecret(Base):
    """A secret of this install, made at its first start and read by every node sharing the
    database from then on (``daily``: seeds the daily deals when ``SIMON_SECRET`` is unset).
    Written once: the first node to store one wins."""

    __tablename__ = "install_secrets"

    name: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    value: Mapped[str] = mapped_column(sa.String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class GameRow(Base):
    """A game: who plays which deal, and its result once finished (its moves are its
    :class:`GameAction` rows). Not the engine's ``Game``, the game in play: its stored row."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(GameId, primary_key=True)
    player_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    mode: Mapped[Mode] = mapped_column(sa.String(16))
    code: Mapped[str] = mapped_column(sa.String(32))
    suits: Mapped[int] = mapped_column(sa.SmallInteger)
    day: Mapped[date | None] = mapped_column(sa.Date)
    #: The player's ``bot`` flag, copied at the start (it never changes): the leaderboard
    #: index filters the boards apart without joining players.
    bot: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    #: Off the public leaderboard: a human's daily until its fair-play screening passes it,
    #: and for good if it is held for review (see server/play/fairplay/screening.py).
    held: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    #: On the new players' board of its day rather than the public one: a human's daily
    #: from an account with too few earlier days, decided by its screening (for good).
    newcomer: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    #: A reviewer cleared this result: shown as verified on its board.
    verified: Mapped[bool] = mapped_column(sa.Boolean, server_default=sa.false())
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    won: Mapped[bool | None] = mapped_column(sa.Boolean)
    resigned: Mapped[bool | None] = mapped_column(sa.Boolean)
    moves: Mapped[int | None] = mapped_column(sa.Integer)
    score: Mapped[int | None] = mapped_column(sa.Integer)
    removed: Mapped[int | None] = mapped_column(sa.SmallInteger)
    elapsed: Mapped[float | None] = mapped_column(sa.Float)

    __table_args__ = (
        sa.CheckConstraint(
            "(mode = 'daily' AND day IS NOT NULL) OR (mode = 'practice' AND day IS NULL)",
            name="mode_day",
        ),
    )


class FairPlay(Base):
    """A human daily's fair-play screening: its evidence, and what review made of it."""

    __tablename__ = "fair_play"

    game_id: Mapped[str] = mapped_column(
        GameId, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    #: ``passed`` (ranked), ``held`` (off the board, awaiting review), ``cleared`` (ranked
    #: after review) or ``confirmed`` (kept off the board after review).
    status: Mapped[str] = mapped_column(sa.String(16))
    reasons: Mapped[list[str]] = mapped_column(sa.JSON)
    evidence: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    screened_at: Mapped[datetime] = mapped_column(UTCDateTime())
    reviewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())

    __table_args__ = (sa.Index("ix_fair_play_status", "status"),)


class ReviewAudit(Base):
    """One line per review decision, never changed."""

    __tablename__ = "review_audit"

    id: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(GameId, sa.ForeignKey("games.id", ondelete="CASCADE"))
    decision: Mapped[str] = mapped_column(sa.String(16))
    note: Mapped[str | None] = mapped_column(sa.Text)
    at: Mapped[datetime] = mapped_column(UTCDateTime())


class AccountTrust(Base):
    """A human account's fair-play evidence across days, updated as its dailies are screened
    (server/play/fairplay/trust.py): how suspect it is, and why."""

    __tablename__ = "account_trust"

    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    suspicion: Mapped[float] = mapped_column(sa.Float)
    reasons: Mapped[list[str]] = mapped_column(sa.JSON)
    evidence: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class GameAction(Base):
    """The action log: every accepted action of a game, in order; the game's truth.

    Written only by :mod:`server.store.action_log` (group commits through the driver);
    ``(game_id, seq)`` is the key, so two writers can never both append a game's next action.
    """

    __tablename__ = "game_actions"

    game_id: Mapped[str] = mapped_column(
        GameId, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(sa.Integer, primary_key=True, autoincrement=False)
    action: Mapped[str] = mapped_column(sa.String(16))
    #: The server's clock when the action was accepted, in milliseconds since 1970 UTC.
    at_ms: Mapped[int] = mapped_column(sa.BigInteger)
    request_id: Mapped[str | None] = mapped_column(sa.Text)
    request: Mapped[str | None] = mapped_column(sa.Text)

    # SQLite: the key is the table (one B-tree to insert into, not a table and an index).
    __table_args__ = ({"sqlite_with_rowid": False},)


#: A daily game: the literal (not a bound parameter) lets PostgreSQL match the partial
#: indexes' predicates in prepared statements too.
IS_DAILY = GameRow.mode == sa.literal_column("'daily'")


def on_leaderboard(games: Any = GameRow) -> sa.ColumnElement[bool]:
    """Rows of a daily leaderboard: finished daily games not held for review (of ``games``:
    the table, or an alias of it)."""
    return sa.and_(
        games.mode == sa.literal_column("'daily'"),
        games.finished_at.is_not(None),
        games.held == sa.false(),
    )


ON_LEADERBOARD = on_leaderboard()

#: Which leaderboard a daily is on, as bound parameters (every statement over one board
#: reuses its compiled SQL and prepared statement): filled by :func:`board_params`.
OF_BOARD = (
    GameRow.day == sa.bindparam("day", type_=sa.Date()),
    GameRow.suits == sa.bindparam("suits", type_=sa.SmallInteger()),
    GameRow.bot == sa.bindparam("bots", type_=sa.Boolean()),
    GameRow.newcomer == sa.bindparam("new", type_=sa.Boolean()),
)
#: The rows of one leaderboard.
ON_BOARD = (ON_LEADERBOARD, *OF_BOARD)


def board_params(board: DayBoard) -> dict[str, Any]:
    """The parameters of :data:`OF_BOARD` that pick ``board``: the one place a board's kind
    becomes columns (a new kind fails mypy here until it has its case)."""
    match board.kind:
        case "humans":
            bots, new = False, False
        case "bots":
            bots, new = True, False
        case "new":
            bots, new = False, True
        case _:
            assert_never(board.kind)
    return {"day": board.day, "suits": board.suits, "bots": bots, "new": new}


def _ascending(name: str, descending: bool, games: Any = GameRow) -> sa.ColumnElement[Any]:
    """One term of :data:`~server.store.order.ORDER` as an ascending SQL expression."""
    column: sa.ColumnElement[Any] = getattr(games, name)
    if not descending:
        return column
    if isinstance(column.type, sa.Boolean):  # -CAST(...) reads the same on both backends
        column = sa.cast(column, sa.Integer)
    return -column


#: The leaderboard's order (``ORDER``) as SQL, all ascending so one row comparison pages
#: through it.
def leaderboard_key(games: Any = GameRow) -> tuple[sa.ColumnElement[Any], ...]:
    """The leaderboard's order as SQL terms over ``games`` (the table, or an alias of it)."""
    return tuple(_ascending(name, descending, games) for name, descending in ORDER)


LEADERBOARD_KEY = leaderboard_key()

# One daily attempt per player, day and suit count; practice games are not limited.
sa.Index(
    "uq_games_daily_attempt",
    GameRow.player_id,
    GameRow.day,
    GameRow.suits,
    unique=True,
    sqlite_where=IS_DAILY,
    postgresql_where=IS_DAILY,
)
# Leaderboard pages and rank counts: an index-only range scan in leaderboard order, one
# range per board (humans, new players, bots).
sa.Index(
    "ix_games_leaderboard",
    GameRow.day,
    GameRow.suits,
    GameRow.bot,
    GameRow.newcomer,
    *LEADERBOARD_KEY,
    postgresql_include=["score", "player_id", "moves", "won", "removed", "verified"],
    sqlite_where=ON_LEADERBOARD,
    postgresql_where=ON_LEADERBOARD,
)
# A player's history, newest first.
sa.Index("ix_games_player_finished", GameRow.player_id, GameRow.finished_at)


class Race(Base):
    """A race room and its race: the record any node rebuilds the room from.

    ``state`` goes ``open`` (racers join) -> ``started`` (the countdown began, the deal and
    the racers' games are fixed; the race runs from ``starts_at`` to ``ends_at`` at the
    latest) -> ``over``; an open room nobody started becomes ``expired``. Every change of
    the room bumps ``revision``.
    """

    __tablename__ = "races"

    code: Mapped[str] = mapped_column(sa.String(ROOM_CODE_LENGTH), primary_key=True)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("players.id", ondelete="CASCADE"))
    suits: Mapped[int] = mapped_column(sa.SmallInteger)
    #: The practice code the owner chose as the deal, if any (else a fresh random one).
    chosen_deal: Mapped[str | None] = mapped_column(sa.String(32))
    #: The deal, fixed when the countdown begins and revealed at ``starts_at``.
    deal: Mapped[str | None] = mapped_column(sa.String(32))
    public: Mapped[bool] = mapped_column(sa.Boolean)
    capacity: Mapped[int] = mapped_column(sa.SmallInteger)
    allow_bots: Mapped[bool] = mapped_column(sa.Boolean)
    countdown: Mapped[float] = mapped_column(sa.Float)
    time_limit: Mapped[float] = mapped_column(sa.Float)
    state: Mapped[str] = mapped_column(sa.String(16))
    revision: Mapped[int] = mapped_column(sa.Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    #: A public room with enough racers counts down by itself from then.
    auto_start_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    starts_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: The rematch chain: the room this one continues, and the room that continues it.
    previous: Mapped[str | None] = mapped_column(sa.String(ROOM_CODE_LENGTH))
    next: Mapped[str | None] = mapped_column(sa.String(ROOM_CODE_LENGTH))

    __table_args__ = (
        sa.CheckConstraint("state IN ('open', 'started', 'over', 'expired')", name="state"),
        sa.Index("ix_races_state", "state"),
        sa.Index("ix_races_owner_id", "owner_id"),
    )


class RaceEntrant(Base):
    """A racer of a room: their game once the countdown began, their result once it ended."""

    __tablename__ = "race_entries"

    race_code: Mapped[str] = mapped_column(
        sa.ForeignKey("races.code", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime())
    game_id: Mapped[str | None] = mapped_column(
        GameId, sa.ForeignKey("games.id", ondelete="SET NULL")
    )
    place: Mapped[int | None] = mapped_column(sa.SmallInteger)
    won: Mapped[bool | None] = mapped_column(sa.Boolean)
    resigned: Mapped[bool | None] = mapped_column(sa.Boolean)
    moves: Mapped[int | None] = mapped_column(sa.Integer)
    score: Mapped[int | None] = mapped_column(sa.Integer)
    removed: Mapped[int | None] = mapped_column(sa.SmallInteger)
    elapsed: Mapped[float | None] = mapped_column(sa.Float)

    __table_args__ = (
        sa.Index("ix_race_entries_game_id", "game_id", unique=True),
        sa.Index("ix_race_entries_player_id", "player_id"),
    )


class RaceLobby(Base):
    """The open public room of each suit count, which quick races fill: people's, and
    declared bots' (``bots``: rooms of bots)."""

    __tablename__ = "race_lobbies"

    suits: Mapped[int] = mapped_column(sa.SmallInteger, primary_key=True, autoincrement=False)
    bots: Mapped[bool] = mapped_column(sa.Boolean, primary_key=True, server_default=sa.false())
    code: Mapped[str | None] = mapped_column(sa.String(ROOM_CODE_LENGTH))


class Report(Base):
    """A signed-in player's report of a ranked daily result: one per player per result."""

    __tablename__ = "reports"

    game_id: Mapped[str] = mapped_column(
        GameId, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    player_id: Mapped[int] = mapped_column(
        sa.ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    reason: Mapped[str] = mapped_column(sa.String(200))
    at: Mapped[datetime] = mapped_column(UTCDateTime())

    # a player's reports in a window: the report budget
    __table_args__ = (sa.Index("ix_reports_player_id_at", "player_id", "at"),)


class SolverReview(Base):
    """A finished game's review against the solver, as the protocol's ``review`` gives it
    (JSON): made once, by any node, read by every node after (the page, the next asker)."""

    __tablename__ = "solver_reviews"

    game_id: Mapped[str] = mapped_column(
        GameId, sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    body: Mapped[str] = mapped_column(sa.Text)
    made_at: Mapped[datetime] = mapped_column(UTCDateTime())
