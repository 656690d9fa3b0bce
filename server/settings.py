"""Server settings, read once from the environment (``SIMON_*``) by pydantic-settings."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from platformdirs import user_data_dir
from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from server.kinds import COUNTDOWN, TIME_LIMIT
from server.play.fairplay.evidence import Thresholds
from server.play.games.player_game import MAX_GAME_ACTIONS

#: A secret set in production is at least this long.
SECRET_LENGTH = 16
#: The levels ``SIMON_LOG_LEVEL`` takes (any case).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class Settings(BaseSettings):
    """Every knob of the server. Unset URLs mean the embedded defaults:
    an SQLite file in ``data_dir`` and an in-process bus (one node)."""

    model_config = SettingsConfigDict(
        env_prefix="SIMON_", env_nested_delimiter="__", extra="ignore"
    )

    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    database_url: str | None = None
    redis_url: str | None = None
    #: Prefix of every Redis key and channel, so several deployments can share one Redis.
    redis_prefix: str = "simon"
    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("simple-simon-online")))
    #: Seeds the daily deals. Unset: the install's own, made at random at its first start
    #: and kept in its database, shared by every node on it (docs/operations.md).
    secret: str | None = None
    production: bool = False
    max_message_bytes: int = Field(4096, ge=512)
    #: Per connection: a token bucket of this many messages per window; a message over it is
    #: refused rate-limited, and 10 more in a row close the connection (1008).
    rate_limit_messages: int = Field(100, ge=1)
    rate_limit_window_seconds: float = Field(10.0, gt=0)
    #: The most frames one client message may come in (no browser fragments a message):
    #: a message in more is closed with 1009. Every frame of a message takes from the
    #: budgets above, as a message does.
    max_message_fragments: int = Field(8, ge=1)
    ping_interval_seconds: float | None = 20.0
    ping_timeout_seconds: float | None = 20.0
    #: Group commit of the action log: the first action of a batch waits this long for
    #: others (milliseconds); a commit that takes longer than the timeout is refused.
    commit_window_ms: float = Field(5.0, ge=0, le=1000)
    commit_timeout_seconds: float = Field(5.0, gt=0)
    #: A game's actions (moves, undos, restarts: its ``seq``) at most; from then on only a
    #: resignation (or the day's end) is taken (server/play/games/player_game.py says why 5,000).
    max_game_actions: int = Field(MAX_GAME_ACTIONS, ge=1)
    # -- timeouts of the services (docs/operations.md) ------------------------------------
    database_connect_timeout_seconds: float = Field(5.0, gt=0)
    #: Every statement, both in asyncpg and as PostgreSQL's own ``statement_timeout``.
    database_statement_timeout_seconds: float = Field(5.0, gt=0)
    sqlite_busy_timeout_seconds: float = Field(10.0, ge=0)
    #: SQLite's ``synchronous`` in WAL mode: ``full`` syncs the log at every commit (an
    #: acknowledged action survives a power cut), ``normal`` only at checkpoints (it
    #: survives a killed process; a power cut may take the last seconds).
    sqlite_synchronous: Literal["normal", "full"] = "full"
    redis_connect_timeout_seconds: float = Field(2.0, gt=0)
    redis_socket_timeout_seconds: float = Field(5.0, gt=0)
    #: The rank cache's reads and writes in Redis (a cache: the database answers instead),
    #: and how long it is skipped after one fails (then one call tries it again).
    redis_cache_timeout_seconds: float = Field(0.5, gt=0)
    redis_breaker_seconds: float = Field(5.0, gt=0)
    #: ``/healthz`` waits this long for each service before it calls it down.
    health_timeout_seconds: float = Field(2.0, gt=0)
    #: Solver budget per candidate daily deal; codes it cannot prove winnable are skipped.
    daily_solver_seconds: float = Field(20.0, gt=0)
    #: Race rooms (docs/protocol.md, "Race rooms"): the countdown before the reveal, the
    #: default time limit, a public room's wait with 2 racers before it counts down by
    #: itself, how long an open room lasts unstarted, how often a node looks for rooms
    #: whose time came, and the solver's budget for the verdict on one fresh deal.
    race_countdown_seconds: float = Field(COUNTDOWN, ge=0, le=600)
    race_time_limit_seconds: float = Field(TIME_LIMIT, ge=10, le=86400)
    race_quick_wait_seconds: float = Field(30.0, ge=0, le=3600)
    race_open_seconds: float = Field(3600.0, gt=0)
    race_sweep_seconds: float = Field(5.0, gt=0, le=300)
    race_solver_seconds: float = Field(2.0, gt=0)
    #: Rooms an account may own open at once, and rooms a connection may follow at once.
    race_open_rooms_per_account: int = Field(3, ge=1)
    race_watches_per_connection: int = Field(4, ge=1)
    # -- limits per client address, and on the whole server (docs/operations.md) ----------
    #: Comma-separated addresses or networks of proxies whose ``X-Forwarded-For`` is believed.
    trusted_proxies: str = ""
    #: Comma-separated addresses or networks no per-address limit applies to (monitoring,
    #: load tests); the overall connection cap still does.
    limits_exempt: str = ""
    registrations_per_address: int = Field(5, ge=1)
    registration_window_seconds: float = Field(3600.0, gt=0)
    #: Failed sign-ins from one address that cost nothing; each further one locks the
    #: address out, for ``auth_backoff_seconds`` doubling up to the maximum.
    auth_failures_free: int = Field(5, ge=0)
    auth_backoff_seconds: float = Field(1.0, gt=0)
    auth_backoff_max_seconds: float = Field(300.0, gt=0)
    #: Failures are forgotten after this long without one.
    auth_failure_memory_seconds: float = Field(900.0, gt=0)
    max_connections_per_address: int = Field(64, ge=1)
    #: Open connections in all; also kept below the descriptor limit less the reserve.
    max_connections: int = Field(10_000, ge=1)
    descriptor_reserve: int = Field(256, ge=0)
    #: A connection that has not signed in (auth or register) this long is closed (1008);
    #: 0: never.
    unauthenticated_grace_seconds: float = Field(30.0, ge=0)
    #: The websocket opening handshake (or an HTTP request) must arrive within this.
    handshake_timeout_seconds: float = Field(10.0, gt=0)
    http_requests_per_address: int = Field(120, ge=1)
    http_window_seconds: float = Field(60.0, gt=0)
    #: At the descriptor limit, one log line per this many seconds, however many accepts fail
    #: (and the same for asyncio's warnings of writes to sockets the peer reset).
    accept_error_log_seconds: float = Field(60.0, gt=0)
    #: Per client address, across its connections: a token bucket of this many websocket
    #: frames (messages, sign-ins, pings and pongs) per window.
    messages_per_address: int = Field(300, ge=1)
    address_message_window_seconds: float = Field(10.0, gt=0)
    #: A connection that sends no byte this long after it is accepted is closed.
    first_bytes_timeout_seconds: float = Field(5.0, gt=0)
    #: ``/metrics`` on a listener of its own (for a scraper on another host); without a
    #: port, it is served on the main port to loopback peers only.
    metrics_host: str = "127.0.0.1"
    metrics_port: int | None = Field(None, ge=0, le=65535)
    log_level: str = "INFO"
    #: ``text``: one plain line a record; ``json``: one JSON object a line.
    log_format: Literal["text", "json"] = "text"
    #: When a human's daily is held for review (docs/fair-play.md): e.g.
    #: ``SIMON_FAIRPLAY__MAX_AGREEMENT=0.95``; the defaults are in server/play/fairplay/evidence.py.
    fairplay: Thresholds = Field(default_factory=Thresholds)
    #: Comma-separated account names that may see results held for review (their replays).
    reviewers: str = ""
    #: The server's address as players reach it (``https://simon.example``): share texts
    #: link the day's page there; empty: a path alone.
    public_url: str = ""
    #: The solver review of a game (docs/protocol.md, "Reviews"): CPU seconds per review.
    review_seconds: float = Field(20.0, gt=0, le=600)
    #: CPU seconds a UTC day for finished dailies reviewed ahead of their asking (their
    #: reviews open once the day is over), at the lowest priority; 0: none made ahead.
    review_ahead_seconds: float = Field(7200.0, ge=0, le=86_400)
    #: How long a fair-play review of a held result usually takes here, in hours: what a
    #: held player is told (``welcome``'s ``review_hours``, the web pages).
    held_review_hours: int = Field(24, ge=1, le=24 * 60)

    @field_validator("database_url")
    @classmethod
    def _async_driver(cls, url: str | None) -> str | None:
        """Accept plain ``postgresql://`` and ``sqlite:///`` URLs and pick the async driver."""
        if url is None or not url.strip():
            return None
        for plain, driver in (
            ("postgresql://", "postgresql+asyncpg://"),
            ("postgres://", "postgresql+asyncpg://"),
            ("sqlite:///", "sqlite+aiosqlite:///"),
        ):
            if url.startswith(plain):
                return driver + url[len(plain) :]
        if not url.startswith(("postgresql+asyncpg://", "sqlite+aiosqlite:///")):
            raise ValueError("a postgresql:// or sqlite:/// URL (PostgreSQL or SQLite only)")
        return url

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, level: str) -> str:
        if level.upper() not in LOG_LEVELS:
            raise ValueError(f"one of {', '.join(LOG_LEVELS)}")
        return level.upper()

    @field_validator("sqlite_synchronous", mode="before")
    @classmethod
    def _synchronous(cls, mode: object) -> object:
        return mode.strip().lower() if isinstance(mode, str) else mode

    @field_validator("trusted_proxies", "limits_exempt")
    @classmethod
    def _networks(cls, text: str) -> str:
        """Comma-separated IP addresses or networks (``10.0.0.0/8``); refused at start if not."""
        import ipaddress

        for part in text.split(","):
            if part.strip():
                ipaddress.ip_network(part.strip(), strict=False)  # ValueError: bad settings
        return text

    @field_validator("secret")
    @classmethod
    def _blank_secret_unset(cls, secret: str | None) -> str | None:
        """An empty ``SIMON_SECRET`` (a compose file's default) means unset."""
        return secret if secret and secret.strip() else None

    @model_validator(mode="after")
    def _no_short_secret_in_production(self) -> Settings:
        if self.production and self.secret is not None and len(self.secret) < SECRET_LENGTH:
            raise ValueError(
                f"SIMON_SECRET must be a long random string (at least {SECRET_LENGTH} "
                "characters), or unset for the install's own"
            )
        return self

    @property
    def reviewer_names(self) -> frozenset[str]:
        """The reviewers' names in ``name_key`` form (case and width do not matter)."""
        from server.store import name_key

        return frozenset(name_key(n.strip()) for n in self.reviewers.split(",") if n.strip())

    @property
    def database_timeouts(self) -> dict[str, float]:
        """The timeouts for ``create_engine`` (and ``Store.open``)."""
        return {
            "connect_timeout": self.database_connect_timeout_seconds,
            "statement_timeout": self.database_statement_timeout_seconds,
            "busy_timeout": self.sqlite_busy_timeout_seconds,
        }

    @property
    def redis_timeouts(self) -> dict[str, float]:
        """The timeouts for ``redis_client`` and ``open_bus``."""
        return {
            "connect_timeout": self.redis_connect_timeout_seconds,
            "timeout": self.redis_socket_timeout_seconds,
        }

    @property
    def redis_cache_timeouts(self) -> dict[str, float]:
        """The timeouts for the rank cache's ``redis_client``: short, for a cache; a caller
        still waits as long as any for one of its pool's connections to be free."""
        cache = self.redis_cache_timeout_seconds
        return {
            "connect_timeout": min(self.redis_connect_timeout_seconds, cache),
            "timeout": cache,
            "pool_timeout": self.redis_socket_timeout_seconds,
        }

    @property
    def effective_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{self.data_dir / 'simon.sqlite3'}"
