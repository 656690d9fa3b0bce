"""Every benchmark at a tiny size, to show that each still runs: ``python -m bench --smoke``.

Run from the repository root::

    python -m bench --smoke                                  # every bench, 3 at a time
    python -m bench --smoke bench.engine bench.leaderboard   # only these
    python -m bench --smoke --jobs 1                         # one after the other

Each benchmark module declares its own smoke arguments next to its argument parser: a
module constant ``SMOKE``, its arguments as a command line would write them (``None`` for a
module that benches start as a worker of theirs and that is no bench of its own). Every
module of ``bench``, ``bench.solver`` and ``bench.fairplay`` that declares them is run as
``python -m MODULE SMOKE``, each in a process (and session) of its own, ``--jobs`` at a
time (at these sizes a bench mostly waits: for its servers to start, for its windows to
pass). As each one ends it gets a line: its name, ``ok`` or ``FAILED``, its wall-clock
seconds and the CPU seconds of the bench and of every process it waited for (its servers
and clients). A failed bench's last lines of output follow its line; a bench still running
after ``--timeout`` seconds is stopped, with everything it started, and fails. The last line
sums up; the exit status is 1 if any bench failed.

The benches that need PostgreSQL and Redis make a database and a key prefix of their own on
the servers ``SIMON_TEST_POSTGRES`` and ``SIMON_TEST_REDIS`` name (tests/support/services.py),
and remove them at the end; the Freecell Solver comparisons need ``fc-solve`` (Debian:
freecell-solver-bin). The figures of a smoke run mean nothing: the sizes are too small.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
#: A bench still running after this long has hung: it is stopped and counts as failed.
TIMEOUT = 300.0
#: Benches run at once: at a smoke's sizes most of a bench's time is waiting (for servers
#: to start, for its windows to pass), not computing.
JOBS = 3
#: Lines of a failed bench's output shown under its line.
TAIL_LINES = 30

#: The process groups of the benches running now (each bench leads one).
_RUNNING: set[int] = set()
_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class Bench:
    """A module to run as ``python -m NAME *ARGUMENTS``."""

    name: str
    arguments: tuple[str, ...]

    def command(self) -> list[str]:
        return [sys.executable, "-m", self.name, *self.arguments]


@dataclass(frozen=True, slots=True)
class Outcome:
    bench: Bench
    ok: bool
    seconds: float
    cpu_seconds: float
    tail: str  # the last lines of its output (stdout and stderr together)

    def line(self) -> str:
        return (
            f"{self.bench.name:32} {'ok' if self.ok else 'FAILED':6} {self.seconds:6.1f} s"
            f"  (CPU {self.cpu_seconds:5.1f} s)"
        )


def modules() -> list[ModuleType]:
    """Every module of the bench package and its subpackages, imported (``__main__``s
    aside: importing one runs it)."""
    import bench

    found: list[ModuleType] = []
    for info in pkgutil.walk_packages(bench.__path__, "bench."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        found.append(importlib.import_module(info.name))
    return found


def smoke_arguments(module: ModuleType) -> tuple[str, ...] | None:
    """The module's ``SMOKE``, split as a shell would (None if it has none, or declares it
    None)."""
    arguments = getattr(module, "SMOKE", None)
    if arguments is None:
        return None
    if not isinstance(arguments, str):
        raise TypeError(f"{module.__name__}.SMOKE must be a string of arguments, or None")
    return tuple(shlex.split(arguments))


def discover() -> list[Bench]:
    """Every bench that declares its smoke arguments, in the order of their names."""
    benches = []
    for module in modules():
        arguments = smoke_arguments(module)
        if arguments is not None:
            benches.append(Bench(module.__name__, arguments))
    return sorted(benches, key=lambda b: b.name)


def run_one(bench: Bench, timeout: float = TIMEOUT) -> Outcome:
    """Run one bench in a process (and session) of its own; a bench that outlives
    ``timeout`` is stopped, with everything it started."""
    with tempfile.TemporaryFile() as output:
        started = time.monotonic()
        process = subprocess.Popen(
            bench.command(),
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        with _LOCK:
            _RUNNING.add(process.pid)
        hung = threading.Event()

        def stop() -> None:
            hung.set()
            _stop_group(process.pid)

        stopper = threading.Timer(timeout, stop)
        stopper.start()
        try:
            # wait4, not Popen.wait: the CPU time of the bench and of what it waited for
            _, status, usage = os.wait4(process.pid, 0)
        except BaseException:  # Ctrl-C: nothing of the bench's may outlive this run
            _stop_group(process.pid)
            raise
        finally:
            stopper.cancel()
            with _LOCK:
                _RUNNING.discard(process.pid)
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        output.seek(0)
        lines = output.read().decode(errors="replace").splitlines()
    tail = "\n".join(lines[-TAIL_LINES:])
    if hung.is_set():
        tail += f"\n(stopped: still running after {timeout:g} s)"
    ok = process.returncode == 0 and not hung.is_set()
    return Outcome(bench, ok, seconds, usage.ru_utime + usage.ru_stime, tail)


def _stop_group(pgid: int) -> None:
    """Stop a bench's whole process group: SIGINT first (a bench then cleans up as after
    Ctrl-C: servers it started in sessions of their own, databases), then SIGTERM, then
    SIGKILL, each after the group outlived the one before by 10 s."""
    with contextlib.suppress(ProcessLookupError):
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            os.killpg(pgid, signum)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                os.killpg(pgid, 0)  # ProcessLookupError once the whole group is gone
                time.sleep(0.1)


def smoke(
    benches: Iterable[Bench],
    timeout: float = TIMEOUT,
    jobs: int = 1,
    say: Callable[[str], None] = print,
) -> int:
    """Run the benches, ``jobs`` at a time; say a line for each as it ends, then a summary.
    Returns 1 if any failed, else 0."""
    started = time.monotonic()
    outcomes = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_one, bench, timeout) for bench in benches]
        try:
            for future in as_completed(futures):
                outcome = future.result()
                outcomes.append(outcome)
                say(outcome.line())
                if not outcome.ok:
                    say("    " + outcome.tail.replace("\n", "\n    "))
        except BaseException:  # Ctrl-C: the benches run in sessions of their own
            pool.shutdown(wait=False, cancel_futures=True)
            with _LOCK:
                running = list(_RUNNING)
            for pgid in running:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGINT)
            raise
    failed = sorted(o.bench.name for o in outcomes if not o.ok)
    seconds = time.monotonic() - started
    if failed:
        say(f"bench smoke: FAILED: {', '.join(failed)} ({len(outcomes)} benches, {seconds:.0f} s)")
        return 1
    say(f"bench smoke: all {len(outcomes)} benches ran ({seconds:.0f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--smoke", action="store_true", required=True, help="run every bench tiny")
    parser.add_argument("names", nargs="*", metavar="MODULE", help="only these (bench.engine)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds a bench may take")
    parser.add_argument(
        "--jobs", type=int, default=JOBS, help=f"benches at a time (default {JOBS})"
    )
    args = parser.parse_args(argv)
    benches = discover()
    if args.names:
        unknown = set(args.names) - {b.name for b in benches}
        if unknown:
            parser.error(f"no bench declares smoke arguments: {', '.join(sorted(unknown))}")
        benches = [b for b in benches if b.name in args.names]
    if args.jobs < 1:
        parser.error("--jobs takes at least 1")
    try:
        return smoke(benches, args.timeout, args.jobs, say=lambda line: print(line, flush=True))
    except KeyboardInterrupt:  # the running benches were sent SIGINT too
        print("bench smoke: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
