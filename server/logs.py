"""Log output: plain lines, or one JSON object a line (``SIMON_LOG_FORMAT=json``) for log
collectors::

    {"time": "2026-03-01T10:00:00.123Z", "level": "INFO", "logger": "server.net.app",
     "message": "listening on ws://0.0.0.0:8765 ...", "pid": 7}

A record's exception goes in ``"exception"`` (the traceback as one string).
"""

from __future__ import annotations

import json
import logging
import math
import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

LogFormat = Literal["text", "json"]
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, object] = {
            "time": stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{stamp.microsecond // 1000:03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "pid": os.getpid(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False, default=str)


#: Libraries whose DEBUG records carry secrets: the database drivers every query's
#: parameters (today's deal codes, credentials' hashes), the websocket library every frame
#: (tokens, recovery codes, terminals' codes). They log at INFO at most, whatever the level.
QUIET_LIBRARIES = ("aiosqlite", "asyncpg", "websockets")


def configure(level: str, log_format: LogFormat) -> None:
    """Send every log record to stderr, in ``log_format``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    logging.basicConfig(level=level.upper(), handlers=[handler])
    quiet_libraries()


def quiet_libraries() -> None:
    """Keep :data:`QUIET_LIBRARIES` at INFO or above (a DEBUG server logs nothing secret)."""
    for name in QUIET_LIBRARIES:
        library = logging.getLogger(name)
        if library.getEffectiveLevel() < logging.INFO:
            library.setLevel(logging.INFO)


class Throttle:
    """At most one log line per ``interval`` seconds for one kind of event, however often it
    happens, each saying how many were left out since the previous one: a failure that
    refuses thousands of requests writes a line every ``interval``, not one per request::

        skipped = throttle.due()
        if skipped is not None:
            log.warning("move refused: %s (%d more since the last line)", error, skipped)
    """

    def __init__(self, interval: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self._monotonic = monotonic
        self._next = -math.inf
        self._skipped = 0
        #: Lines allowed so far.
        self.lines = 0

    def due(self) -> int | None:
        """None if a line was written less than ``interval`` seconds ago (this event is
        counted instead); else the events left out since that line (a line is due now)."""
        now = self._monotonic()
        if now < self._next:
            self._skipped += 1
            return None
        skipped, self._skipped = self._skipped, 0
        self._next = now + self.interval
        self.lines += 1
        return skipped


__all__ = [
    "QUIET_LIBRARIES",
    "JsonFormatter",
    "LogFormat",
    "Throttle",
    "configure",
    "quiet_libraries",
]
