"""Page render benchmark: what a page costs the server to make, in each language, against
the same pages of another checkout (say, the commit before the pages spoke languages).

Run from the repository root::

    python -m bench.page_render --before ../main      # ours in en, pl and ru; theirs in en
    python -m bench.page_render                       # ours alone

Each tree runs in a worker process of its own (``--tree``: the tree's ``server`` and
``tests`` packages are imported, not ours), on the same data: an embedded server (SQLite,
no Redis, a manual clock), ``--players`` players who finish today's daily at each suit count
over the websocket, one of whom also has a page of games. Then each page (``/``, a day's
board, a player's page, the daily race) is asked of the server's own HTTP answer
(``server.net.http.respond``, from the parsed request to the response), the node's page
cache off, so every request reads the store and renders. A round asks every page
``--requests`` times; the workers take turns, ``--rounds`` rounds each, so a noisy machine
weighs on both alike. Printed: each page's median microseconds a request in each tree and
language, and the ratio of ours to theirs (``--before``) or of each language to English.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[1]
PAGES: Final = ("/", "/day/{day}?suits=1", "/player/{name}", "/race?suits=1")
SMOKE: Final = "--players 2 --requests 2 --rounds 1"


async def _worker(players: int, requests: int, rounds: int, languages: list[str]) -> None:
    """One tree's figures, as JSON lines on stdout: a line a round, after a line "ready"."""
    from websockets.datastructures import Headers
    from websockets.http11 import Request

    from server.net.http import respond
    from tests.support.servers import fresh_clock, server_settings, serving
    from tests.support.web import embedded_backend, finish_daily, no_cache

    with tempfile.TemporaryDirectory() as folder:
        backend = embedded_backend(Path(folder))
        async with serving(server_settings(backend), clock=fresh_clock()) as server:
            no_cache(server)
            names = [
                await finish_daily(server.url, suits=suits)
                for _ in range(players)
                for suits in (1, 2, 4)
            ]
            day = server.hub.clock.now().date().isoformat()
            paths = {page: page.format(day=day, name=names[0]) for page in PAGES}

            async def timed(path: str, language: str) -> float:
                headers = Headers(
                    {"Accept": "text/html", "Accept-Language": language, "Host": "bench"}
                )
                started = time.perf_counter()
                for _ in range(requests):
                    response = await respond(server.hub, Request(path, headers))
                    assert response.status_code == 200, (path, response.status_code)
                return (time.perf_counter() - started) / requests * 1e6

            for path in paths.values():  # warm: templates compiled, catalogs read
                await timed(path, languages[0])
            print("ready", flush=True)
            for _ in range(rounds):
                sys.stdin.readline()  # the parent's turn
                figures = {
                    language: {page: await timed(path, language) for page, path in paths.items()}
                    for language in languages
                }
                print(json.dumps(figures), flush=True)


class Worker:
    def __init__(self, tree: Path, arguments: argparse.Namespace, languages: list[str]):
        environment = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "bench" / "page_render.py"), "--worker",
             "--players", str(arguments.players), "--requests", str(arguments.requests),
             "--rounds", str(arguments.rounds), "--languages", ",".join(languages)],
            cwd=tree, env=environment, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self.process.stdout is not None and self.process.stdin is not None
        self.output, self.input = self.process.stdout, self.process.stdin
        self.rounds: list[dict[str, dict[str, float]]] = []

    def wait_ready(self) -> None:
        line = self.output.readline()
        assert line.strip() == "ready", line

    def round(self) -> None:
        self.input.write("\n")
        self.input.flush()
        self.rounds.append(json.loads(self.output.readline()))

    def median(self, language: str, path: str) -> float:
        return statistics.median(figures[language][path] for figures in self.rounds)

    def close(self) -> None:
        self.input.close()
        self.process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20, help="players a suit count")
    parser.add_argument("--requests", type=int, default=50, help="requests a page a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", type=Path, help="another checkout, measured beside ours")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--languages", default="en", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.worker:
        sys.path.insert(0, os.getcwd())
        asyncio.run(
            _worker(arguments.players, arguments.requests, arguments.rounds,
                    arguments.languages.split(","))
        )  # fmt: skip
        return
    ours = Worker(ROOT, arguments, ["en", "pl", "ru"])
    theirs = Worker(arguments.before.resolve(), arguments, ["en"]) if arguments.before else None
    workers = [worker for worker in (ours, theirs) if worker is not None]
    for worker in workers:
        worker.wait_ready()
    for _ in range(arguments.rounds):
        for worker in workers:
            worker.round()
    for worker in workers:
        worker.close()
    print(f"page render, median µs a request over {arguments.rounds} rounds "
          f"of {arguments.requests}:")  # fmt: skip
    header = f"{'page':28} {'en':>8} {'pl':>8} {'ru':>8}"
    print(header + (f" {'before':>8} {'en/before':>10} {'pl/before':>10}" if theirs else ""))
    for path in PAGES:
        line = f"{path:28}" + "".join(
            f" {ours.median(language, path):8.0f}" for language in ("en", "pl", "ru")
        )
        if theirs is not None:
            before = theirs.median("en", path)
            line += f" {before:8.0f} {ours.median('en', path) / before:10.2f}"
            line += f" {ours.median('pl', path) / before:10.2f}"
        print(line)


if __name__ == "__main__":
    main()
