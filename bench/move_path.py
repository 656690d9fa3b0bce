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

Then the stage table: each stage of a move measured alone (the least of ``--repeats``
runs, on the same moves), next to its floor, the least that work of its kind can cost here:

- ``frame receive``: a move frame's masked bytes, handed to the connection as the event
  loop hands a read, to the text in the task reading it (``TextReading.receive``; the
  library's own connection and ``recv`` are printed beside it), on a real connection
  otherwise quiet; floor the unmasking, the UTF-8 check and a future waking the reader
  (so, like ``send``, not part of ``full``);
- ``frame parse and check``: ``parse_client_message`` of each move frame; floor
  ``json.loads`` of it;
- ``session dispatch``: ``Session.handle`` of a parsed move with the game's ``play``
  answering a ready outcome at once, less the reply build below (the checks, the lock,
  the resend memory, the race feed); floor an awaited handler looked up in a dict;
- ``engine``: ``Game.push`` of each move, on games as they stand in play; floor moving the
  cards from one list to another;
- ``log append``: ``ActionLog.append`` of a move's entry with a writer that answers at once,
  as many appends at a time as players (the futures and the committer's task switches);
  floor a task that waits for a future another task sets;
- ``commit share``: the SQLite writer's ``write`` of batches of ``--batch`` actions (10:
  what a 5 ms window gathers at 2,000 moves a second, the load of ``bench.server_load``;
  the rounds here make batches of every player at once), per move; floor ``executemany``
  of the same rows into a bare table in memory, a transaction a batch;
- ``reply build``: the ``moved`` reply made from an outcome; floor an f-string of two
  fields;
- ``send``: ``Outbox.reply`` of the reply on a real websocket (a socket pair in this
  process, read by the other end), its writing included; floor the transport's ``write``
  of the same bytes (so not part of ``full``: there are no sockets there);
- ``everything else``: ``full`` less the stages above but ``send``: the rounds' tasks,
  the engine's bookkeeping around a move (the action list, the outcome), the log entries.

Last, the JSON libraries measured against the two JSON stages, on the same frames and
outcomes: the parse and check as pydantic does it from the text (the server's way),
against ``orjson.loads`` or ``json.loads`` then pydantic's check of the Python objects;
the ``moved`` reply as the server makes it (an f-string), against ``orjson.dumps`` and
``json.dumps`` of the same fields.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
import sqlite3
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Final, NamedTuple

import orjson
from pydantic import TypeAdapter
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.frames import Frame, Opcode
from websockets.speedups import apply_mask

from bench.server_load_bots import move_frame, move_sequence
from server.engine import Game, GameCode, Move
from server.main import tune_gc
from server.net import run_server
from server.net.connection import Outbox
from server.net.inbox import TextReading
from server.play.daily.deals import Proof
from server.play.games.player_game import Outcome, PlayerGame
from server.play.session.playing import moved_reply
from server.play.session.session import Session
from server.protocol import (
    ClientMessage,
    MoveRequest,
    Reply,
    encode_reply,
    parse_client_message,
)
from server.settings import Settings
from server.store import ActionLog, Store
from server.store.action_log import SqliteLogWriter
from server.store.records import LogEntry

VARIANTS = ("full", "no-sqlite", "no-log")


async def no_solver(code: str) -> Proof:  # practice games only: no daily needed
    return Proof(True, None)


def deals(players: int, seed: int) -> list[tuple[str, list[str]]]:
    """Each player's deal and the moves played on it, as the rounds play them."""
    found = []
    for index in range(players):
        rng = random.Random(seed * 1_000_003 + index)
        code = str(GameCode(1, rng.randrange(26**7)))
        found.append((code, move_sequence(code, rng)))
    return found


class Measured(NamedTuple):
    seconds: float  # CPU per move
    batch: float  # actions per commit, on average


async def measure(variant: str, players: int, rounds: int, seed: int) -> Measured:
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
            for index, (code, moves) in enumerate(deals(players, seed)):
                rng = random.Random(index)
                session = Session(hub, lambda frame: None)
                for message in (
                    {"type": "register", "name": f"p{index}-{rng.getrandbits(32):x}"},
                    {"type": "start", "mode": "practice", "code": code},
                ):
                    await session.handle(parse_client_message(json.dumps(message)))
                sessions.append((session, moves))
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
            store = hub.store
            assert isinstance(store, Store)
            batch = store.log.appended / max(1, store.log.batches) if variant == "full" else 0.0
            return Measured(used / moved, batch)


# -- the stage table ---------------------------------------------------------------------

STAGES: Final = (
    "frame receive",
    "frame parse and check",
    "session dispatch",
    "engine",
    "log append",
    "commit share",
    "reply build",
    "send",
    "everything else",
)


class Stage(NamedTuple):
    name: str
    seconds: float  # CPU per move
    floor: float  # CPU per move of the least work of its kind


def least_cpu(repeats: int, run: Callable[[], int]) -> float:
    """The least CPU seconds per item of ``repeats`` runs (``run`` returns its items)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        items = run()
        best = min(best, (time.process_time() - started) / items)
    return best


async def least_cpu_async(repeats: int, run: Callable[[], Awaitable[int]]) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        items = await run()
        best = min(best, (time.process_time() - started) / items)
    return best


def parse_stage(moves: list[list[str]], repeats: int) -> Stage:
    frames = [move_frame(n, move) for n, move in enumerate(m for ms in moves for m in ms)]

    def parse() -> int:
        for frame in frames:
            parse_client_message(frame)
        return len(frames)

    def floor() -> int:
        for frame in frames:
            json.loads(frame)
        return len(frames)

    return Stage("frame parse and check", least_cpu(repeats, parse), least_cpu(repeats, floor))


def engine_stage(deals_played: list[tuple[str, list[str]]], repeats: int) -> Stage:
    parsed = [[Move.from_text(text) for text in moves] for _, moves in deals_played]
    count = sum(len(moves) for moves in parsed)

    def engine() -> float:
        best = float("inf")
        for _ in range(repeats):
            games = [Game.from_code(code) for code, _ in deals_played]  # not timed
            started = time.process_time()
            for game, moves in zip(games, parsed, strict=True):
                for move in moves:
                    game.push(move)
            best = min(best, (time.process_time() - started) / count)
        return best

    def floor() -> int:
        for moves in parsed:
            source: list[int] = list(range(40))
            target: list[int] = []
            for move in moves:
                cards = move.count or 1
                target.extend(source[-cards:])
                del source[-cards:]
                source, target = target, source
        return count

    return Stage("engine", engine(), least_cpu(repeats, floor))


def outcomes_of(deals_played: list[tuple[str, list[str]]]) -> list[Outcome]:
    outcomes = []
    for code, moves in deals_played:
        game = Game.from_code(code)
        for seq, text in enumerate(moves, start=1):
            removed = game.removed_count
            played = game.push(Move.from_text(text)).text()
            outcomes.append(
                Outcome(
                    "move",
                    "0123456789abcdef0123456789abcdef",
                    seq,
                    played,
                    game.removed_count > removed,
                    game.moves,
                    game.score,
                    game.removed_count,
                    game.is_won,
                    None,
                )
            )
    return outcomes


def reply_stage(outcomes: list[Outcome], repeats: int) -> Stage:
    def build() -> int:
        for n, outcome in enumerate(outcomes):
            moved_reply(n, outcome, None)
        return len(outcomes)

    def floor() -> int:
        for n, outcome in enumerate(outcomes):
            f'{{"id":{n},"move":"{outcome.applied}"}}'
        return len(outcomes)

    return Stage("reply build", least_cpu(repeats, build), least_cpu(repeats, floor))


class _AtOnce:
    async def write(self, entries: Sequence[LogEntry], results: Sequence[Any]) -> None:
        return None

    async def close(self) -> None:
        return None


async def log_stage(players: int, rounds: int, repeats: int) -> Stage:
    at = int(time.time() * 1000)

    async def append() -> int:
        log = ActionLog(_AtOnce(), window=0)
        for turn in range(1, rounds + 1):
            await asyncio.gather(
                *(log.append([LogEntry(f"g{p}", turn, "1-2x1", at)]) for p in range(players))
            )
        await log.close()
        return players * rounds

    async def floor() -> int:
        loop = asyncio.get_running_loop()

        async def wait(future: asyncio.Future[None]) -> None:
            await future

        async def resolve(futures: list[asyncio.Future[None]]) -> None:
            for future in futures:
                future.set_result(None)

        for _ in range(rounds):
            futures = [loop.create_future() for _ in range(players)]
            await asyncio.gather(*(wait(future) for future in futures), resolve(futures))
        return players * rounds

    return Stage(
        "log append", await least_cpu_async(repeats, append), await least_cpu_async(repeats, floor)
    )


async def commit_stage(path: Path, game_ids: list[str], batch: int, repeats: int) -> Stage:
    """The SQLite writer's share of a move, in batches as the full run made them."""
    writer = SqliteLogWriter(path)
    at = int(time.time() * 1000)
    seqs = dict.fromkeys(game_ids, 10_000)  # after any seq the rounds wrote
    rows = 4000

    async def write() -> int:
        written = 0
        while written < rows:
            entries = []
            for game_id in game_ids[:batch]:
                seqs[game_id] += 1
                entries.append(LogEntry(game_id, seqs[game_id], "1-2x1", at, "7", "1-2"))
            await writer.write(entries, [])
            written += len(entries)
        return written

    def floor() -> int:
        db = sqlite3.connect(":memory:", isolation_level=None)
        db.execute("CREATE TABLE t (g TEXT, s INT, a TEXT, at INT, r TEXT, q TEXT)")
        written = 0
        while written < rows:
            db.execute("BEGIN")
            db.executemany(
                "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                [(g, written, "1-2x1", at, "7", "1-2") for g in game_ids[:batch]],
            )
            db.execute("COMMIT")
            written += min(batch, len(game_ids))
        db.close()
        return written

    try:
        measured = await least_cpu_async(repeats, write)
    finally:
        await writer.close()
    return Stage("commit share", measured, least_cpu(repeats, floor))


async def dispatch_stage(
    players: int, seed: int, outcomes: list[Outcome], reply: Stage, repeats: int
) -> Stage:
    """``Session.handle`` of a move whose ``play`` answers at once, less the reply build."""
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(port=0, data_dir=Path(data), log_level="WARNING")
        async with run_server(settings, prover=no_solver) as running:
            hub = running.hub
            sessions = []
            for index, (code, _) in enumerate(deals(min(players, 50), seed)):
                session = Session(hub, lambda frame: None)
                for message in (
                    {"type": "register", "name": f"d{index}-{seed}"},
                    {"type": "start", "mode": "practice", "code": code},
                ):
                    await session.handle(parse_client_message(json.dumps(message)))
                sessions.append(session)
            # new ids each run (a known id would be answered from memory), made untimed
            made = [
                [
                    MoveRequest(type="move", id=run * len(outcomes) + n, move=outcome.applied)
                    for n, outcome in enumerate(outcomes)
                ]
                for run in range(repeats + 1)
            ]
            runs = iter(made)
            messages = next(runs)
            real_play = PlayerGame.play

            async def handle() -> int:
                ready = iter(outcomes)
                messages = next(runs)

                async def at_once(game: PlayerGame, *args: Any, **kwargs: Any) -> Outcome:
                    return next(ready)

                PlayerGame.play = at_once  # type: ignore[method-assign,assignment]
                try:
                    for n, message in enumerate(messages):
                        await sessions[n % len(sessions)].handle(message)
                finally:
                    PlayerGame.play = real_play  # type: ignore[method-assign]
                return len(messages)

            handlers: dict[str, Callable[[MoveRequest], Awaitable[list[str]]]] = {}

            async def handler(message: MoveRequest) -> list[str]:
                return [message.move]

            handlers["move"] = handler

            async def floor() -> int:
                for message in messages:
                    await handlers[message.type](message)
                return len(messages)

            measured = await least_cpu_async(repeats, handle)
            least = await least_cpu_async(repeats, floor)
    return Stage("session dispatch", measured - reply.seconds, least)


async def send_stage(frames: Sequence[Reply], repeats: int) -> Stage:
    """``Outbox.reply`` on a real websocket, read at the other end as fast as it comes."""
    async with websocket_pair() as (websocket, client):
        outbox = Outbox(websocket)

        async def read() -> None:
            async for _ in client:
                pass

        reader = asyncio.create_task(read())

        async def send() -> int:
            for frame in frames:
                await outbox.reply(frame)  # waits only when the reader is behind
            return len(frames)

        measured = await least_cpu_async(repeats, send)
        reader.cancel()
    # the floor writes the bare bytes, which a websocket client cannot read: a socket of its
    # own, drained at the other end
    least = await _raw_write_floor([encode_reply(frame).encode() for frame in frames], repeats)
    return Stage("send", measured, least)


async def _raw_write_floor(encoded: list[bytes], repeats: int) -> float:
    drained = asyncio.Event()

    async def drain(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await reader.read(65536):
            pass
        writer.close()
        drained.set()

    server = await asyncio.start_server(drain, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    _, writer = await asyncio.open_connection("127.0.0.1", port)

    async def write() -> int:
        for data in encoded:
            writer.write(data)
            if writer.transport.get_write_buffer_size():
                await writer.drain()
        return len(encoded)

    try:
        return await least_cpu_async(repeats, write)
    finally:
        writer.close()
        await writer.wait_closed()
        await drained.wait()  # the other end read to the end, and closed
        server.close()
        await server.wait_closed()


async def stage_table(
    played: list[tuple[str, list[str]]],
    rounds: int,
    seed: int,
    full: Measured,
    repeats: int,
    batch: int,
) -> tuple[list[Stage], float]:
    """The stages of ``rounds`` rounds of the moves ``played`` (each player's deal and
    moves, cut to ``rounds``), and the library's own frame receive (to set beside this
    server's)."""
    players = len(played)
    outcomes = outcomes_of(played)
    reply = reply_stage(outcomes, repeats)
    frames = [moved_reply(n, o, None) for n, o in enumerate(outcomes)]
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(port=0, data_dir=Path(data), log_level="WARNING")
        async with run_server(settings, prover=no_solver) as running:
            store = running.hub.store
            assert isinstance(store, Store)
            player = (await running.hub.accounts.register(f"c{seed}")).player
            game_ids = []
            for code, _ in played[:batch]:
                game = await running.hub.starts.practice(player, code, 1)
                game_ids.append(game.id)
            path = Path(data) / "simon.sqlite3"  # where the settings put the embedded database
            commit = await commit_stage(path, game_ids, batch, repeats)
    stages = [
        parse_stage([moves for _, moves in played], repeats),
        await dispatch_stage(players, seed, outcomes, reply, repeats),
        engine_stage(played, repeats),
        await log_stage(players, rounds, repeats),
        commit,
        reply,
        await send_stage(frames, repeats),
    ]
    received, library = await receive_stage(
        [move_frame(n, move) for n, move in enumerate(m for _, ms in played for m in ms)], repeats
    )
    stages.insert(0, received)
    measured = sum(stage.seconds for stage in stages if stage.name not in UNSHARED)
    stages.append(Stage("everything else", full.seconds - measured, 0.0))
    return stages, library


#: Stages of the network, which ``full`` (no sockets) has no part of.
UNSHARED: Final = ("frame receive", "send")


async def receive_stage(frames: list[str], repeats: int) -> tuple[Stage, float]:
    """Whole text frames to the task reading the connection, each in a read of its own,
    through this server's connection (``TextReading.receive``) and through the library's
    (``recv``): the second figure. The bytes are handed to ``data_received`` as the event
    loop hands a read, on a real connection otherwise quiet; floor: the unmasking and the
    UTF-8 check, and a future that wakes a waiting task."""
    wire = [Frame(Opcode.TEXT, frame.encode()).serialize(mask=True) for frame in frames]
    ours = await _receive_cpu(TextReading, wire, repeats)
    library = await _receive_cpu(ServerConnection, wire, repeats)
    floor = await least_cpu_async(repeats, partial(_unmask_each, wire))
    return Stage("frame receive", ours, floor), library


async def _receive_cpu(
    connection_class: type[ServerConnection], wire: list[bytes], repeats: int
) -> float:
    async with websocket_pair(connection_class) as (websocket, _):
        return await least_cpu_async(repeats, partial(_read_each, websocket, wire))


@contextlib.asynccontextmanager
async def websocket_pair(
    connection_class: type[ServerConnection] = ServerConnection,
) -> AsyncIterator[tuple[ServerConnection, ClientConnection]]:
    """A real websocket connection within this process: its server side and its client."""
    connected: asyncio.Future[ServerConnection] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def handler(websocket: ServerConnection) -> None:
        connected.set_result(websocket)
        await done.wait()

    async with serve(
        handler, "127.0.0.1", 0, compression=None, create_connection=connection_class
    ) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None) as client:
            try:
                yield await connected, client
            finally:
                done.set()  # before the server closes: it waits for its handlers


async def _read_each(websocket: ServerConnection, wire: list[bytes]) -> int:
    """Each frame in a read of its own, read by a task of its own as the server's is."""
    take = websocket.receive if isinstance(websocket, TextReading) else websocket.recv

    async def reader() -> None:
        for _ in wire:
            await take()

    reading = asyncio.create_task(reader())
    await asyncio.sleep(0)  # the reader waits for the first
    for data in wire:
        websocket.data_received(data)
        await asyncio.sleep(0)  # the reader takes it
    await reading
    return len(wire)


async def _unmask_each(wire: list[bytes]) -> int:
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[str] = loop.create_future()

    async def reader() -> None:
        nonlocal waiter
        for _ in wire:
            await waiter
            waiter = loop.create_future()

    reading = asyncio.create_task(reader())
    await asyncio.sleep(0)
    for data in wire:
        length = data[1] & 0x7F
        header = 2 if length < 126 else 4
        waiter.set_result(apply_mask(data[header + 4 :], data[header : header + 4]).decode())
        await asyncio.sleep(0)
    await reading
    return len(wire)


def print_stages(stages: list[Stage], full: Measured, library_receive: float) -> None:
    print(
        f"stages of a move, each alone, least of the runs (full: {full.seconds * 1e6:.1f} us a "
        f"move, its commits of {full.batch:.0f} actions)"
    )
    print(f"{'stage':<24}{'us a move':>10}{'floor us':>10}{'over floor':>12}{'share':>8}")
    for stage in stages:
        over = stage.seconds - stage.floor
        share = "" if stage.name in UNSHARED else f"{stage.seconds / full.seconds:.0%}"
        print(
            f"{stage.name:<24}{stage.seconds * 1e6:>10.2f}{stage.floor * 1e6:>10.2f}"
            f"{over * 1e6:>12.2f}{share:>8}"
        )
    print(
        f"(frame receive through the websockets library's own connection: "
        f"{library_receive * 1e6:.2f} us a move)"
    )


def json_alternatives(played: list[tuple[str, list[str]]], repeats: int) -> list[Stage]:
    """The two JSON stages done the server's way and through other libraries, each a
    ``Stage`` whose floor is the server's way (so "over floor" is what a switch would add)."""
    frames = [move_frame(n, move) for n, move in enumerate(m for _, ms in played for m in ms)]
    check = TypeAdapter(ClientMessage).validate_python
    outcomes = list(enumerate(outcomes_of(played)))
    fields = [
        {
            "type": "moved",
            "id": n,
            "game": o.game,
            "seq": o.seq,
            "move": o.applied,
            "removed_run": o.removed_run,
            "moves": o.moves,
            "score": o.score,
            "removed": o.removed,
            "won": o.won,
        }
        for n, o in outcomes
    ]

    def timed(work: Callable[[Any], object], items: Sequence[Any]) -> float:
        def run() -> int:
            for item in items:
                work(item)
            return len(items)

        return least_cpu(repeats, run)

    parse = timed(parse_client_message, frames)
    moved = timed(lambda item: moved_reply(item[0], item[1], None), outcomes)
    return [
        Stage(
            "parse: orjson, then pydantic", timed(lambda f: check(orjson.loads(f)), frames), parse
        ),
        Stage("parse: json, then pydantic", timed(lambda f: check(json.loads(f)), frames), parse),
        Stage("moved: orjson.dumps", timed(lambda f: orjson.dumps(f).decode(), fields), moved),
        Stage(
            "moved: json.dumps",
            timed(lambda f: json.dumps(f, separators=(",", ":")), fields),
            moved,
        ),
    ]


def print_alternatives(alternatives: list[Stage]) -> None:
    print()
    print("JSON libraries against the server's way (its figure is the floor here)")
    print(f"{'alternative':<32}{'us a move':>10}{'ours us':>10}{'difference':>12}")
    for stage in alternatives:
        difference = (stage.seconds - stage.floor) * 1e6
        print(
            f"{stage.name:<32}{stage.seconds * 1e6:>10.2f}{stage.floor * 1e6:>10.2f}"
            f"{difference:>+12.2f}"
        )


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--players 4 --rounds 2 --repeats 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=60, help="moves per player, at most 60")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each variant")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--batch", type=int, default=10, help="actions a commit, for the commit share's stage"
    )
    args = parser.parse_args()
    best: dict[str, float] = {}
    batch = 0.0
    asyncio.run(measure("full", args.players, args.rounds, args.seed))  # warm-up, not counted
    for _ in range(args.repeats):
        for variant in VARIANTS:  # in turns, so that a busy spell hits them alike
            measured = asyncio.run(measure(variant, args.players, args.rounds, args.seed))
            best[variant] = min(best.get(variant, measured.seconds), measured.seconds)
            batch = max(batch, measured.batch)
    print(f"{args.players} players, {args.rounds} rounds, least of {args.repeats} runs each")
    print(f"{'variant':<10} {'CPU us per move':>16}")
    for variant in VARIANTS:
        print(f"{variant:<10} {best[variant] * 1e6:>16.1f}")
    print(
        f"SQLite's writing: {(best['full'] - best['no-sqlite']) * 1e6:.1f} us a move; "
        f"the action log's futures and waits: {(best['no-sqlite'] - best['no-log']) * 1e6:.1f}"
        f" us; the rest (session, engine, replies, the rounds): {best['no-log'] * 1e6:.1f} us"
    )
    print()
    full = Measured(best["full"], batch)
    played = [(code, moves[: args.rounds]) for code, moves in deals(args.players, args.seed)]
    stages, library_receive = asyncio.run(
        stage_table(played, args.rounds, args.seed, full, args.repeats, args.batch)
    )
    print_stages(stages, full, library_receive)
    print_alternatives(json_alternatives(played, args.repeats))


if __name__ == "__main__":
    main()
