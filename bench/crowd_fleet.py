"""The parent's side of the soak benches' client processes: it starts them (:mod:`bench.crowd`,
run once per share), spreads the clients over them and gathers their tallies."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.crowd_tally import Share, Takes, merged

ROOT = Path(__file__).resolve().parents[1]


def spread(total: int, parts: int) -> list[int]:
    """``total`` as ``parts`` whole shares, as even as can be."""
    size, extra = divmod(total, parts)
    return [size + (part < extra) for part in range(parts)]


def spread_over(total: int, takes: Sequence[Takes], kind: str) -> list[int]:
    """``total`` clients of ``kind`` spread over the processes that take that kind."""
    counts = [0] * len(takes)
    if not total:
        return counts
    taking = [i for i, what in enumerate(takes) if what in ("all", kind)]
    if not taking:
        raise ValueError(f"no client process takes {kind}")
    for i, count in zip(taking, spread(total, len(taking)), strict=True):
        counts[i] = count
    return counts


class Fleet:
    """The client processes (this module, run once per share), driven over their stdin."""

    def __init__(self, shares: list[Share]) -> None:
        self.shares = shares
        self.processes: list[asyncio.subprocess.Process] = []
        self.stats: dict[int, list[dict[str, Any]]] = {}
        self.arrived = asyncio.Condition()
        self._answers: list[asyncio.Queue[str]] = []
        self._readers: list[asyncio.Task[None]] = []
        self.failures: list[str] = []

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    async def start(self) -> None:
        for share in self.shares:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.crowd", json.dumps(asdict(share)),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                cwd=ROOT, limit=2**26,
            )  # fmt: skip
            self.processes.append(process)
            answers: asyncio.Queue[str] = asyncio.Queue()
            self._answers.append(answers)
            self._readers.append(asyncio.create_task(self._read(process, answers)))
        for answers in self._answers:
            await self._expect(answers, "HELLO")

    async def _read(self, process: asyncio.subprocess.Process, answers: asyncio.Queue[str]) -> None:
        assert process.stdout is not None
        while line := (await process.stdout.readline()).decode():
            if line.startswith("STATS "):
                data = json.loads(line[6:])
                async with self.arrived:
                    self.stats.setdefault(data.pop("k"), []).append(data)
                    self.arrived.notify_all()
            elif line.startswith("FAILED "):
                self.failures.append(line[7:].strip())
                async with self.arrived:
                    self.arrived.notify_all()
            else:
                await answers.put(line)
        await answers.put("")  # it exited
        async with self.arrived:
            self.arrived.notify_all()

    async def _expect(self, answers: asyncio.Queue[str], word: str) -> str:
        line = await answers.get()
        if not line.startswith(word):
            said = "; ".join(self.failures) or line.strip() or "it exited"
            raise RuntimeError(f"a client process failed: {said}")
        return line[len(word) :].strip()

    async def _say(self, line: str) -> None:
        for process in self.processes:
            if process.returncode is None and process.stdin is not None:
                with contextlib.suppress(ConnectionError):
                    process.stdin.write(f"{line}\n".encode())
        for process in self.processes:
            if process.returncode is None and process.stdin is not None:
                with contextlib.suppress(ConnectionError):
                    await process.stdin.drain()

    async def add(self, players: int, followers: int, vandals: int = 0) -> list[dict[str, Any]]:
        """Connect more clients, spread over the processes that take their kind (players
        and vandals: all but the followers' own); what each process has now."""
        kinds = [share.takes for share in self.shares]
        for process, p, f, v in zip(
            self.processes, spread_over(players, kinds, "players"),
            spread_over(followers, kinds, "followers"), spread_over(vandals, kinds, "players"),
            strict=True,
        ):  # fmt: skip
            assert process.stdin is not None
            process.stdin.write(f"add {p} {f} {v}\n".encode())
            await process.stdin.drain()
        return [json.loads(await self._expect(answers, "ADDED")) for answers in self._answers]

    async def window(self, start: float, seconds: float, intervals: int) -> None:
        await self._say(f"window {start!r} {seconds!r} {intervals}")

    async def interval(self, k: int, seconds: float) -> dict[str, Any] | None:
        """Interval ``k`` of the window, merged over the processes (None: not every
        process reported it in time)."""
        try:
            async with asyncio.timeout(seconds), self.arrived:
                await self.arrived.wait_for(
                    lambda: len(self.stats.get(k, [])) >= len(self.processes) or bool(self.failures)
                )
        except TimeoutError:
            return None
        if len(self.stats.get(k, [])) < len(self.processes):
            return None
        return merged(self.stats.pop(k))

    async def stop(self) -> dict[str, Any]:
        """Stop every client: what they saw outside the windows, merged."""
        await self._say("stop")
        done = []
        for answers in self._answers:
            try:
                done.append(json.loads(await self._expect(answers, "DONE")))
            except RuntimeError as error:
                self.failures.append(str(error))
        await self.close()
        return merged(done)

    async def close(self) -> None:
        for process in self.processes:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    if process.stdin is not None:
                        process.stdin.close()
                try:
                    await asyncio.wait_for(process.wait(), 60)
                except TimeoutError:
                    process.kill()
                    await process.wait()
        for reader in self._readers:
            reader.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)
