"""The web pages' benchmark: its plan of days and boards, and one tiny run end to end on
the real PostgreSQL and Redis (so the command in docs/performance.md keeps working)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from bench.web import TODAY, plan
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def test_the_plan_fills_days_back_from_today_split_over_the_suit_counts() -> None:
    boards = plan(250, 100)
    assert boards == [
        (TODAY, 1, 50), (TODAY, 2, 30), (TODAY, 4, 20),
        (TODAY - timedelta(days=1), 1, 50), (TODAY - timedelta(days=1), 2, 30),
        (TODAY - timedelta(days=1), 4, 20),
        (TODAY - timedelta(days=2), 1, 25), (TODAY - timedelta(days=2), 2, 15),
        (TODAY - timedelta(days=2), 4, 10),
    ]  # fmt: skip
    assert sum(count for _, _, count in boards) == 250


def test_a_small_run_measures_every_page() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.web", "--rows", "3000", "--per-day", "1000",
         "--requests", "3", "--postgres", POSTGRES_ADMIN_DSN, "--redis", REDIS_URL, "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout[done.stdout.index("\n{") :])
    assert figures["rows"] == 3000
    home = figures["/"]
    assert home["p50_ms"] > 0 and 1000 < home["bytes"] < 30_000
    assert len([label for label in figures if label.startswith("/")]) == 8
