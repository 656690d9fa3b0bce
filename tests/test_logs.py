"""Log output: a JSON object a line for collectors, and libraries kept quiet below INFO."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from server.logs import QUIET_LIBRARIES, JsonFormatter, Throttle, quiet_libraries


def record(message: str, *args: object, **more: object) -> logging.LogRecord:
    made = logging.LogRecord("server.net.app", logging.WARNING, __file__, 1, message, args, None)
    made.__dict__.update(more)
    return made


def test_a_record_is_one_json_line_with_its_time_level_logger_and_message() -> None:
    line = record("closing %s: %d frames", "203.0.113.1", 7, created=1772359200.1239)
    text = JsonFormatter().format(line)
    assert "\n" not in text
    assert json.loads(text) == {
        "time": "2026-03-01T10:00:00.123Z",
        "level": "WARNING",
        "logger": "server.net.app",
        "message": "closing 203.0.113.1: 7 frames",
        "pid": os.getpid(),
    }
    assert datetime(2026, 3, 1, 10, tzinfo=UTC).timestamp() == 1772359200


def test_a_records_exception_is_its_traceback_in_one_string() -> None:
    try:
        raise KeyError("lost")
    except KeyError:
        failed = record("failed", exc_info=sys.exc_info())
    entry = json.loads(JsonFormatter().format(failed))
    assert entry["exception"].startswith("Traceback (most recent call last):")
    assert entry["exception"].endswith("KeyError: 'lost'")
    cached = record("failed", exc_text="a traceback written before")
    assert json.loads(JsonFormatter().format(cached))["exception"] == "a traceback written before"


def test_text_that_is_not_ascii_stays_readable() -> None:
    assert '"message": "Zoë won ♠"' in JsonFormatter().format(record("Zoë won ♠"))


@pytest.fixture
def library_levels() -> Iterator[None]:
    before = {name: logging.getLogger(name).level for name in QUIET_LIBRARIES}
    yield
    for name, level in before.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("library_levels")
def test_the_libraries_that_log_secrets_never_log_below_info() -> None:
    assert {"aiosqlite", "asyncpg", "websockets"} <= set(QUIET_LIBRARIES)
    driver, other, frames = (logging.getLogger(name) for name in QUIET_LIBRARIES)
    driver.setLevel(logging.DEBUG)
    other.setLevel(logging.ERROR)
    frames.setLevel(logging.DEBUG)
    quiet_libraries()
    assert driver.level == logging.INFO and frames.level == logging.INFO
    assert other.level == logging.ERROR  # quieter already: left as it is


def test_a_throttle_allows_a_line_per_interval_and_counts_the_rest() -> None:
    now = [100.0]
    throttle = Throttle(10.0, lambda: now[0])
    assert throttle.due() == 0  # the first event: a line, nothing left out
    assert [throttle.due() for _ in range(5)] == [None] * 5
    now[0] += 9.5
    assert throttle.due() is None
    now[0] += 0.5
    assert throttle.due() == 6  # a line, saying how many the last interval left out
    assert throttle.due() is None
    assert throttle.lines == 2
