"""What runs in a solver worker process: kept apart from the server's other modules, so a
worker imports only this, the engine and the solver (a fraction of a second) before its
first search, not the store and the protocol (seconds on a busy machine): a fresh
server's first daily proofs start sooner.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Proof:
    """What a prover found about a deal: ``winnable`` None means it could not tell."""

    winnable: bool | None
    par: int | None = None
    moves: tuple[str, ...] = ()


def warm() -> None:
    """Nothing: a worker started ahead of its first search (:meth:`SolverProver.start`)
    has imported the solver by the time it answers."""
    from server.engine import Game  # noqa: F401
    from server.solver import solve  # noqa: F401


def solve_code(code: str, max_seconds: float) -> Proof:
    """Run the solver on one code (in a worker: it takes seconds of CPU)."""
    from server.engine import Game
    from server.solver import Verdict, solve

    solution = solve(Game.from_code(code), max_seconds=max_seconds)
    if solution.verdict is Verdict.WINNABLE:
        moves = tuple(move.text() for move in solution.moves)
        return Proof(True, len(moves), moves)
    if solution.verdict is Verdict.UNWINNABLE:
        return Proof(False)
    return Proof(None)


#: The signals that stop the server: its solver workers ignore them (the server decides when
#: they stop, and kills them), so a signal to the whole process group (systemd's
#: ``KillMode=control-group``, Ctrl+C in a terminal) reaches the server alone.
STOP_SIGNALS: Final = frozenset({signal.SIGINT, signal.SIGTERM})
#: At a stop, how long to wait for a killed worker to be gone (seconds).
WORKER_EXIT_SECONDS: Final = 5.0


def ignore_stop_signals() -> None:
    """A solver worker's first act: ignore the stop signals, then take the ones blocked
    since its spawn (a signal that came in between is dropped with them)."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


#: How often a solver worker looks whether its server is still there (seconds).
PARENT_POLL_SECONDS: Final = 0.5
#: Linux's ``prctl`` option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG: Final = 1


def end_with_parent(parent: int) -> None:
    """Have this worker end once its server (process ``parent``) is gone, however it went:
    a server killed without its own stop (``kill -9``, the OOM killer) would leave it
    re-parented to init, ignoring the stop signals, for good.

    On Linux the kernel kills it at once (``PR_SET_PDEATHSIG``: the parent *thread* that
    spawned it is the server's event loop, which lasts as long as the server); everywhere a
    daemon thread looks at its parent every :data:`PARENT_POLL_SECONDS` and ends the worker
    when that is no longer the server. A server gone before either was set up is seen at
    once. (Workers are spawned by the server itself: a forkserver would be their parent.)
    """
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)  # nobody to answer: no cleanup owed

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def start_worker(nice: int, parent: int | None = None) -> None:
    """A solver worker's start: the stop signals ignored, its end tied to its server's
    (process ``parent``: :func:`end_with_parent`), its priority lowered by ``nice``."""
    ignore_stop_signals()
    if parent is not None:
        end_with_parent(parent)
    if nice:
        os.nice(nice)
