"""Where a move's CPU goes on the server, without the network: one process, no sockets.

Run from the repository root::

    python -m bench.move_path                  # 1000 players, 60 rounds, embedded SQLite
    python -m bench.move_path --players 200 --rounds 20

A real server (``run_server``: the store, the action log, the hub) takes ``--players``
sessions, each registered with a practice game; then, round after round, every session
sends its next move at once (``Session.handle`` with the frame parsed as the network layer
parses it) and the round ends when every move is answered. The CPU time of the process
(``time.process_time``, so other work on the machine counts for little) per move is
measured three ways, in turns, each the least of ``--repeats`` runs (after one run not
counted: the first run in a process is the slowest):

- ``full``: everything a move costs but the websocket: the session, the engine, the
  replies, the action log's group commit and SQLite's writing of the batch;
- ``no-sqlite``: the same, with the log's writer answering at once (what SQLite costs is
  the difference);
- ``no-log``: the store's ``append`` returning at once (the action log's own cost, the
  futures and the task switches of waiting for a commit, is the difference).

The rounds' own cost (a task per move, ``asyncio.gather``) is in every figure alike.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from bench.server_load import move_frame, move_sequence
from server.engine import GameCode
from server.main import tune_gc
from server.net import run_server
from server.play.daily import Proof
from server.play.session import Session
from server.protocol import parse_client_message
from server.settings import Settings
from server.store import Store
from server.store.records import LogEntry

VARIANTS = ("full", "no-sqlite", "no-log")


async def no_solver(code: str) -> Proof:  # practice games only: no daily needed
    return Proof(True, None)


async def measure(variant: str, players: int, rounds: int, seed: int) -> float:
    """CPU seconds per move over ``rounds`` rounds of ``players`` concurrent moves."""
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(port=0, data_dir=Path(data), log_level="WARNING")
        async with run_server(settings, prover=no_solver) as running:
            hub = running.hub
            if variant == "no-sqlite":

                async def written(entries: Sequence[LogEntry], results: Sequence[Any]) -> None:
                    return None

                store = hub.store
                assert isinstance(store, Store)
                store.log._writer.write = written  # type: ignore[method-assign]
            elif variant == "no-log":

                async def appended(*args: Any, **kwargs: Any) -> None:
                    return None

                hub.store.append = appended  # type: ignore[method-assign]
            sessions = []
            for index in range(players):
                rng = random.Random(seed * 1_000_003 + index)
                code = str(GameCode(1, rng.randrange(26**7)))
                session = Session(hub, lambda frame: None)
                for message in (
                    {"type": "register", "name": f"p{index}-{rng.getrandbits(32):x}"},
                    {"type": "start", "mode": "practice", "code": code},
                ):
                    await session.handle(parse_client_message(json.dumps(message)))
                sessions.append((session, move_sequence(code, rng)))
            tune_gc()  # as the server runs
            message_id = 0

            async def move(session: Session, frame: str) -> None:
                replies = await session.handle(parse_client_message(frame))
                if type(replies[0]) is not str:  # a move's reply is its encoded ``moved``
                    raise RuntimeError(f"a move was refused: {replies[0]}")

            moved = 0
            started = time.process_time()
            for turn in range(rounds):
                frames = []
                for session, moves in sessions:
                    if turn < len(moves):
                        message_id += 1
                        frames.append((session, move_frame(message_id, moves[turn])))
                await asyncio.gather(*(move(session, frame) for session, frame in frames))
                moved += len(frames)
            used = time.process_time() - started
            gc.unfreeze()
            if not moved:
                raise SystemExit("no move was played")
            return used / moved


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--players 4 --rounds 2 --repeats 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=60, help="moves per player, at most 60")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each variant")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    best: dict[str, float] = {}
    asyncio.run(measure("full", args.players, args.rounds, args.seed))  # warm-up, not counted
    for _ in range(args.repeats):
        for variant in VARIANTS:  # in turns, so that a busy spell hits them alike
            seconds = asyncio.run(measure(variant, args.players, args.rounds, args.seed))
            best[variant] = min(best.get(variant, seconds), seconds)
    print(f"{args.players} players, {args.rounds} rounds, least of {args.repeats} runs each")
    print(f"{'variant':<10} {'CPU us per move':>16}")
    for variant in VARIANTS:
        print(f"{variant:<10} {best[variant] * 1e6:>16.1f}")
    print(
        f"SQLite's writing: {(best['full'] - best['no-sqlite']) * 1e6:.1f} us a move; "
        f"the action log's futures and waits: {(best['no-sqlite'] - best['no-log']) * 1e6:.1f}"
        f" us; the rest (session, engine, replies, the rounds): {best['no-log'] * 1e6:.1f} us"
    )


if __name__ == "__main__":
    main()
