"""The bus of a single node: dictionaries and direct calls."""

from __future__ import annotations

from collections import OrderedDict
from datetime import date

from .base import Bus

#: Snapshots kept by the in-process bus; the oldest go first (the store has every
#: game's actions from the moment a session lets go of it).
KEEP_SNAPSHOTS = 100_000


class InProcessBus(Bus):
    shared = False

    def __init__(self) -> None:
        super().__init__()
        self._joined: set[tuple[date, int]] = set()
        self._entries: dict[tuple[date, int], dict[str, str]] = {}
        self._snapshots: OrderedDict[str, bytes] = OrderedDict()

    async def join_race(self, day: date, suits: int) -> None:
        self._joined.add((day, suits))

    async def leave_race(self, day: date, suits: int) -> None:
        self._joined.discard((day, suits))

    async def publish_race(
        self, day: date, suits: int, player: str, entry: str, event: str
    ) -> None:
        self._entries.setdefault((day, suits), {})[player] = entry
        if (day, suits) in self._joined:
            self._deliver(day, suits, event)

    async def race_entries(self, day: date, suits: int) -> list[str]:
        return list(self._entries.get((day, suits), {}).values())

    async def save_snapshot(self, game_id: str, data: bytes) -> None:
        self._snapshots[game_id] = data
        self._snapshots.move_to_end(game_id)
        if len(self._snapshots) > KEEP_SNAPSHOTS:
            self._snapshots.popitem(last=False)

    async def load_snapshot(self, game_id: str) -> bytes | None:
        return self._snapshots.get(game_id)

    def forget_races_before(self, day: date) -> None:
        for key in [key for key in self._entries if key[0] < day]:
            del self._entries[key]
