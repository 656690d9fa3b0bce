"""What a solver review of a game costs, and what reviews running cost the moves of others.

Run from the repository root::

    python -m bench.review cpu                    # 5 games of each suit count
    python -m bench.review cpu --games 10 --seconds 20
    python -m bench.review latency                # move round trips with and without reviews
    python -m bench.review latency --players 50 --reviews 20 --window 20

``cpu``: games played the way people play them, made from the solver's line of a random
deal: at each move, with probability 0.15 a random legal move and its ``undo`` (a try taken
back), with probability 0.10 a random legal move kept (the line is then solved again from
there, quickly, by the generator; its time is not counted). Each game's review
(:func:`server.play.after.judging.judge_path`, what the review worker runs) is timed in this
process with ``time.process_time``, under the server's default budget per review.

``latency``: a server process of its own (``simon-server`` as it runs, the daily not
searched, the message budget lifted), ``--players`` bots on real websockets each playing
practice moves at 5 a second (a closed loop: a move, its answer, a pause), their round
trips timed for ``--window`` seconds with no review running, then again while
``--reviews`` accounts each asked for the review of a 4-suit game of its own (each review
a full budget of the worker's time: the worker takes them one after the other). Each
phase runs on a fresh server (a review asked for runs to its end), ``--rounds`` times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from typing import Any, Final

from websockets.asyncio.client import connect

from bench.server_load_bots import move_sequence
from bench.server_load_servers import Backend, Variant, start_server, stop_server
from server.engine import Game, GameCode, Move
from server.play.after.judging import judge_path
from server.solver import Verdict, solve

TRY_BACK = 0.15  # a random move taken back
DEVIATE = 0.10  # a random move kept
MOST_MOVES = 250


def played_game(code: str, rng: random.Random) -> list[str] | None:
    """The log's actions of a game along the solver's lines with tries and detours (None
    for a deal the solver cannot win quickly)."""
    game = Game.from_code(code)
    actions: list[str] = []
    line: list[Move] = []
    while not game.is_won and len(actions) < MOST_MOVES:
        if not line:
            found = solve(game.copy(), max_nodes=100_000, max_seconds=20, shorten=False)
            if found.verdict is not Verdict.WINNABLE:
                return actions or None
            line = list(found.moves)
        legal = list(game.legal_moves())
        roll = rng.random()
        if roll < TRY_BACK and legal:
            actions.append(game.push(rng.choice(legal)).text())
            game.undo()
            actions.append("undo")
        elif roll < TRY_BACK + DEVIATE and legal:
            actions.append(game.push(rng.choice(legal)).text())
            line = []
        else:
            actions.append(game.push(line.pop(0)).text())
    return actions


def cpu(
    games: int,
    seconds: float,
    seed: int,
    suit_counts: Sequence[int] = (1, 2, 4),
    saved: str | None = None,
    reference: str | None = None,
    reuse: bool = False,
) -> dict[str, Any]:
    """Each game's first review timed; with ``saved``, the games and every position's
    verdict written there (JSON); with ``reference``, the games read from such a file
    (the same games reviewed again) and every position checked against its verdict."""
    rng = random.Random(seed)
    figures: dict[str, Any] = {}
    before: list[dict[str, Any]] = []
    if reference is not None:
        with open(reference) as file:
            before = json.load(file)
    kept: list[dict[str, Any]] = []
    for suits in suit_counts:
        spent: list[float] = []
        positions: list[int] = []
        unknown: list[int] = []
        won = 0
        games_of = [game for game in before if game["suits"] == suits]
        worse = {"verdict": 0, "longer": 0, "shorter": 0, "checked": 0}
        while len(spent) < (len(games_of) if reference is not None else games):
            if reference is not None:
                old = games_of[len(spent)]
                code, actions = old["code"], old["actions"]
            else:
                code = str(GameCode(suits, rng.randrange(26**7)))
                found = played_game(code, rng)
                if found is None:
                    continue
                actions = found
            started = time.process_time()
            judged = judge_path(code, actions, seconds, reuse=reuse)
            spent.append(time.process_time() - started)
            positions.append(len(judged))
            unknown.append(sum(winnable is None for winnable, _ in judged))
            won += _won(code, actions)
            kept.append({"suits": suits, "code": code, "actions": actions, "judged": judged})
            if reference is not None:
                _compare(old["judged"], judged, worse)
        figures[str(suits)] = {
            "games": len(spent),
            "won": won,
            "positions median": statistics.median(positions),
            "cpu median s": round(statistics.median(spent), 2),
            "cpu p95 s": round(_quantile(spent, 0.95), 2),
            "cpu max s": round(max(spent), 2),
            "unknown positions": f"{sum(unknown)} of {sum(positions)}",
        }
        if reference is not None:
            figures[str(suits)]["against the reference"] = worse
        print(suits, figures[str(suits)], flush=True)
    if saved is not None:
        with open(saved, "w") as file:
            json.dump(kept, file)
    return figures


def _compare(
    old: Sequence[Sequence[Any]], new: Sequence[Sequence[Any]], count: dict[str, int]
) -> None:
    """Count positions whose verdict changed (both known) or whose distance grew."""
    for (was, was_distance), (now, distance) in zip(old, new, strict=True):
        if was is None or now is None:
            continue
        count["checked"] += 1
        if was != now:
            count["verdict"] += 1
        elif was_distance is not None and distance is not None:
            if distance > was_distance:
                count["longer"] += 1
            elif distance < was_distance:
                count["shorter"] += 1


def _won(code: str, actions: Sequence[str]) -> bool:
    from server.engine.actions import replay

    return replay(code, actions).is_won


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _player(url: str, seed: int, stop: asyncio.Event, times: list[float]) -> None:
    rng = random.Random(seed)
    async with connect(url, compression=None) as ws:
        await ws.send(json.dumps({"type": "register", "name": f"bench{seed}-{rng.random():.9f}"}))
        await ws.recv()
        while not stop.is_set():
            code = str(GameCode(1, rng.randrange(26**7)))
            await ws.send(json.dumps({"type": "start", "mode": "practice", "code": code}))
            await ws.recv()
            for move in move_sequence(code, rng):
                if stop.is_set():
                    return
                started = time.monotonic()
                await ws.send(json.dumps({"type": "move", "move": move}))
                reply = json.loads(await ws.recv())
                while reply["type"] == "finished":  # a win's second frame
                    reply = json.loads(await ws.recv())
                times.append(time.monotonic() - started)
                await asyncio.sleep(0.2)


async def _reviewer(url: str, seed: int, done: list[float]) -> None:
    """An account that plays a 4-suit practice game a while, resigns, asks its review."""
    rng = random.Random(seed)
    code = str(GameCode(4, rng.randrange(26**7)))
    async with connect(url, compression=None, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "register", "name": f"rev{seed}-{rng.random():.9f}"}))
        await ws.recv()
        await ws.send(json.dumps({"type": "start", "mode": "practice", "code": code}))
        game = json.loads(await ws.recv())["state"]["game"]
        for move in move_sequence(code, rng)[:40]:
            await ws.send(json.dumps({"type": "move", "move": move}))
            await ws.recv()
        await ws.send(json.dumps({"type": "resign"}))
        await ws.recv()
        await ws.recv()
        started = time.monotonic()
        await ws.send(json.dumps({"type": "review", "game": game}))
        while json.loads(await ws.recv())["type"] != "review":
            pass
        done.append(time.monotonic() - started)


async def _phase(url: str, players: int, reviews: int, window: float) -> dict[str, Any]:
    stop = asyncio.Event()
    times: list[float] = []
    bots = [asyncio.create_task(_player(url, seed, stop, times)) for seed in range(players)]
    done: list[float] = []
    asking = [asyncio.create_task(_reviewer(url, 1000 + seed, done)) for seed in range(reviews)]
    await asyncio.sleep(5)  # everyone in, the reviews under way
    times.clear()
    await asyncio.sleep(window)
    stop.set()
    await asyncio.gather(*bots)
    for task in asking:
        task.cancel()
    return {
        "moves": len(times),
        "p50 ms": round(1000 * _quantile(times, 0.5), 1),
        "p99 ms": round(1000 * _quantile(times, 0.99), 1),
        "reviews done in the window": len(done),
        "load average": os.getloadavg()[0],
    }


async def latency(
    players: int, reviews: int, window: float, port: int, rounds: int
) -> dict[str, list[dict[str, Any]]]:
    """Rounds of two phases, each on a fresh server (a review asked for runs to its end)."""
    url = f"ws://127.0.0.1:{port}"
    figures: dict[str, list[dict[str, Any]]] = {}
    for _ in range(rounds):
        for phase, asked in (("no review", 0), (f"{reviews} reviews", reviews)):
            with tempfile.TemporaryDirectory() as data:
                server = start_server(Variant("simon"), port, data, Backend())
                try:
                    found = await _phase(url, players, asked, window)
                finally:
                    stop_server(server)
            figures.setdefault(phase, []).append(found)
            print(phase, found, flush=True)
    return figures


#: Its arguments at a tiny size, for ``python -m bench --smoke``: the latency run, which
#: runs the reviews in the server's review worker as the cpu run times them.
SMOKE: Final = "latency --players 2 --reviews 1 --window 1 --rounds 1 --seconds 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("cpu", "latency"))
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=20.0, help="the budget per review")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=50)
    parser.add_argument("--reviews", type=int, default=20)
    parser.add_argument("--window", type=float, default=20.0)
    parser.add_argument("--port", type=int, default=18_777)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--suits", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--save", help="cpu: write the games and verdicts here (JSON)")
    parser.add_argument(
        "--reuse", action="store_true", help="cpu: won positions' distances from the table"
    )
    parser.add_argument("--against", help="cpu: review the games of such a file again, checked")
    args = parser.parse_args()
    if args.what == "cpu":
        figures = cpu(
            args.games, args.seconds, args.seed, args.suits, args.save, args.against, args.reuse
        )
        print(json.dumps(figures, indent=1))
    else:
        os.environ["SIMON_REVIEW_SECONDS"] = str(args.seconds)
        figures = asyncio.run(
            latency(args.players, args.reviews, args.window, args.port, args.rounds)
        )
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
