"""Benchmark of a fresh install's first start: how soon it answers, how soon each of today's
daily deals is usable, and how soon all three are proven.

Run from the repository root::

    python -m bench.first_start                          # 3 secrets, this tree
    python -m bench.first_start --before /tmp/before     # also another checkout's server

What is measured
----------------
``simon-server`` (``python -m server.entry``) starts in a process of its own on a fresh
SQLite data folder, with the default solver budget and a fixed secret per round (so every
variant proves the same deals). From the moment it is spawned, ``/healthz`` is asked every
20 ms, and these moments are noted: its first answer (any status), its first ``200``, the
first answer whose ``dailies`` says each deal ``ready`` (that daily usable: its ``start``
succeeds from then on; ``first daily`` is the soonest of the three), and its first answer
saying ``"daily": "ready"`` (today's three deals proven). A server without ``dailies`` (a
tree from before it) has each deal usable once all three are proven, as it had. With
``--before DIR`` the server of another source tree runs in each round too (one after the
other, never side by side: the proofs take the machine's cores). Each figure is in
seconds; the table gives each round's and their median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.ports import port_of  # noqa: E402

SMOKE: Final = "--rounds 1 --solver-seconds 2"
#: A server that has not proven its deals by then has failed the round.
DEADLINE: Final = 180.0
POLL: Final = 0.02
SUITS: Final = (1, 2, 4)
#: The table's columns: a moment's key, and its heading.
COLUMNS: Final = (
    ("answers", "first answer (s)"),
    ("200", "first 200 (s)"),
    ("first daily", "first daily usable (s)"),
    ("S1", "1 suit usable (s)"),
    ("S2", "2 suits usable (s)"),
    ("S4", "4 suits usable (s)"),
    ("proven", "three deals proven (s)"),
)


def health(port: int) -> tuple[int, dict[str, Any]] | None:
    """``/healthz``'s status and body (None: no answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")
    except (OSError, urllib.error.URLError, ValueError):
        return None


def one_start(source: Path, secret: str, solver_seconds: float | None) -> dict[str, float]:
    """Seconds from spawn to the first answer, the first 200 and the deals proven."""
    with tempfile.TemporaryDirectory(prefix="simon-first-start-") as folder:
        env = {key: value for key, value in os.environ.items() if not key.startswith("SIMON_")}
        env.update(
            PYTHONPATH=str(source),
            SIMON_DATA_DIR=str(Path(folder) / "data"),
            SIMON_SECRET=secret,
            SIMON_LOG_LEVEL="WARNING",
        )
        if solver_seconds is not None:
            env["SIMON_DAILY_SOLVER_SECONDS"] = str(solver_seconds)
        started = time.monotonic()
        process = subprocess.Popen(
            [sys.executable, "-m", "server.entry", "--port", "0"],
            env=env,
            cwd=source,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        moments: dict[str, float] = {}
        try:
            port = port_of(process, DEADLINE)
            while "proven" not in moments:
                if time.monotonic() - started > DEADLINE:
                    raise SystemExit(f"no deals within {DEADLINE:g} s ({source})")
                answer = health(port)
                now = time.monotonic() - started
                if answer is not None:
                    status, body = answer
                    moments.setdefault("answers", now)
                    if status == 200:
                        moments.setdefault("200", now)
                    for suits, state in body.get("dailies", {}).items():
                        if state == "ready":
                            moments.setdefault(f"S{suits}", now)
                    if body.get("daily") == "ready":
                        for suits in SUITS:  # a server before dailies: all three at once
                            moments.setdefault(f"S{suits}", now)
                        moments["proven"] = now
                        moments["first daily"] = min(moments[f"S{s}"] for s in SUITS)
                time.sleep(POLL)
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        return moments


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="secrets, one round each")
    parser.add_argument("--before", type=Path, help="also the server of this source tree")
    parser.add_argument("--solver-seconds", type=float, help="SIMON_DAILY_SOLVER_SECONDS")
    args = parser.parse_args()
    variants = [("this tree", ROOT)]
    if args.before is not None:
        variants.append(("before", args.before.resolve()))
    results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in variants}
    print(f"cores: {os.cpu_count()}", flush=True)
    for round_ in range(args.rounds):
        secret = f"first-start-bench-secret-{round_}-0123456789abcdef0123456789"
        for name, source in variants:
            moments = one_start(source, secret, args.solver_seconds)
            results[name].append(moments)
            shown = "  ".join(f"{key} {moments[key]:6.2f} s" for key, _ in COLUMNS)
            load = os.getloadavg()[0]
            print(f"round {round_} {name:10} {shown}  (load {load:.1f})", flush=True)
    print()
    print("| server | " + " | ".join(heading for _, heading in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for name, rounds in results.items():
        cells = [
            " / ".join(f"{moments.get(key, float('nan')):.2f}" for moments in rounds)
            + f" (median {statistics.median(m.get(key, float('nan')) for m in rounds):.2f})"
            for key, _ in COLUMNS
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
