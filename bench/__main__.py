"""Every benchmark at a tiny size, to show that each still runs: ``python -m bench --smoke``.

Run from the repository root::

    python -m bench --smoke                              # every bench, one after the other
    python -m bench --smoke bench.engine bench.leaderboard   # only these

Each benchmark module declares its own smoke arguments next to its argument parser: a
module constant ``SMOKE``, its arguments as a command line would write them (``None`` for a
module that benches start as a worker of theirs and that is no bench of its own). Every
module of ``bench``, ``bench.solver`` and ``bench.fairplay`` that declares them is run as
``python -m MODULE SMOKE``, each in a process of its own (the benches start servers,
client processes and event loops of their own), and gets one line: its name, ``ok`` or
``FAILED``, the wall-clock seconds and the CPU seconds of the bench and of every process it
waited for (its servers and clients). A failed bench's last lines of output follow its
line. The last line sums up; the exit status is 1 if any bench failed.

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
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
#: A bench still running after this long has hung: it is stopped and counts as failed.
TIMEOUT = 300.0
#: Lines of a failed bench's output shown under its line.
TAIL_LINES = 30


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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(bench: Bench, timeout: float = TIMEOUT) -> Outcome:
    """Run one bench in a process (and session) of its own; a bench that outlives
    ``timeout`` is stopped, with everything it started."""
    with tempfile.TemporaryFile() as output:
        started, cpu = time.monotonic(), _children_cpu()
        process = subprocess.Popen(
            bench.command(),
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        note = ""
        try:
            status = process.wait(timeout)
        except subprocess.TimeoutExpired:
            note = f"\n(stopped: still running after {timeout:g} s)"
            status = None
        except BaseException:  # Ctrl-C: nothing of the bench's may outlive this run
            _stop_group(process)
            raise
        if status is None:
            _stop_group(process)
        seconds, cpu = time.monotonic() - started, _children_cpu() - cpu
        output.seek(0)
        lines = output.read().decode(errors="replace").splitlines()
    tail = "\n".join(lines[-TAIL_LINES:]) + note
    return Outcome(bench, status == 0, seconds, cpu, tail)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """TERM the bench's whole process group, then KILL what is left after 10 s."""
    for signum, grace in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signum)
        try:
            process.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def smoke(
    benches: Iterable[Bench], timeout: float = TIMEOUT, say: Callable[[str], None] = print
) -> int:
    """Run each bench, say a line for each and a summary; 1 if any failed, else 0."""
    started = time.monotonic()
    outcomes = []
    for bench in benches:
        outcome = run_one(bench, timeout)
        outcomes.append(outcome)
        say(outcome.line())
        if not outcome.ok:
            say("    " + outcome.tail.replace("\n", "\n    "))
    failed = [o.bench.name for o in outcomes if not o.ok]
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
    args = parser.parse_args(argv)
    benches = discover()
    if args.names:
        unknown = set(args.names) - {b.name for b in benches}
        if unknown:
            parser.error(f"no bench declares smoke arguments: {', '.join(sorted(unknown))}")
        benches = [b for b in benches if b.name in args.names]
    return smoke(benches, args.timeout, say=lambda line: print(line, flush=True))


if __name__ == "__main__":
    sys.exit(main())
