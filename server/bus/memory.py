"""The bus of a single node: dictionaries and direct calls."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from .base import Bus, DayCounts, StandingUpdate


class InProcessBus(Bus):
    def __init__(self) -> None:
        super().__init__()
        self._joined: set[tuple[date, int]] = set()
        self._entries: dict[tuple[date, int], dict[str, str]] = {}
        self._rooms: set[str] = set()
        self._counts = DayCounts()

    async def join_standings(self, day: date, suits: int) -> None:
        self._joined.add((day, suits))

    async def leave_standings(self, day: date, suits: int) -> None:
        self._joined.discard((day, suits))

    async def publish_standings(self, updates: Sequence[StandingUpdate]) -> None:
        for update in updates:
            key = (update.day, update.suits)
            if update.entry is None:
                self._entries.get(key, {}).pop(update.player, None)
            else:
                self._entries.setdefault(key, {})[update.player] = update.entry
            if key in self._joined:
                self._deliver(update.day, update.suits, update.event)

    async def standings_entries(self, day: date, suits: int) -> list[str]:
        return list(self._entries.get((day, suits), {}).values())

    async def join_room(self, code: str) -> None:
        self._rooms.add(code)

    async def leave_room(self, code: str) -> None:
        self._rooms.discard(code)

    async def publish_room(self, code: str, frame: str) -> None:
        if code in self._rooms:
            self._deliver_room(code, frame)

    async def publish_revoked(self, credential_ids: Sequence[int]) -> None:
        self._deliver_revoked(list(credential_ids))

    async def publish_to_players(self, player_ids: Sequence[int], frame: str) -> None:
        self._deliver_to_players(list(player_ids), frame)

    async def count_for_day(self, day: date, name: str) -> int:
        return self._counts.add(day, name)

    def forget_standings_before(self, day: date) -> None:
        for key in [key for key in self._entries if key[0] < day]:
            del self._entries[key]
