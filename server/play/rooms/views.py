"""Race rooms' views (:mod:`.rooms`): a room as it stands, its racers in standings order,
from the database's record and the racers' games."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from server.engine import START_SCORE
from server.kinds import Figures
from server.play.clock import Clock
from server.play.errors import Refused
from server.play.games.standing import room_entry
from server.protocol import (
    ErrorCode,
    MessageId,
    RaceRoom,
    RoomEntry,
    RoomEventKind,
    RoomState,
    RoomView,
)
from server.store import EntrantRecord, RaceRecord, RaceStore

from .games import RacerGames
from .rules import normal_code, room_state

#: The line of a racer with no result: a game not begun.
_NO_RESULT: Final = Figures(
    won=False, resigned=False, moves=0, score=START_SCORE, removed=0, elapsed=0.0
)


def result_entry(entrant: EntrantRecord) -> RoomEntry:
    """A racer's line once the race is over, from their stored result (a racer with no
    result, who never had a game, as a game not begun)."""
    result = entrant.result or _NO_RESULT
    return RoomEntry(
        player=entrant.name,
        bot=entrant.bot,
        moves=result.moves,
        score=result.score,
        removed=result.removed,
        won=result.won,
        resigned=result.resigned,
        finished=entrant.place is not None,
        elapsed=round(result.elapsed, 3) if result.won else None,
        place=entrant.place,
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


class RoomViews:
    """Rooms as they stand, for replies and for the events pushed to their followers."""

    def __init__(self, *, races: RaceStore, clock: Clock, games: RacerGames) -> None:
        self._races = races
        self._clock = clock
        self._games = games

    async def record(self, code: str) -> RaceRecord:
        """Room ``code`` as the database has it; refused (``no-such-race``) if none."""
        record = await self._races.get(normal_code(code))
        if record is None:
            raise Refused(
                ErrorCode.NO_SUCH_RACE,
                "no race room has the code %(code)s",
                params={"code": code.upper()},
            )
        return record

    async def reply(
        self,
        message_id: MessageId | None,
        record: RaceRecord,
        event: RoomEventKind | None = None,
        *,
        fresh: bool = False,
    ) -> RaceRoom:
        return RaceRoom(id=message_id, event=event, room=await self.view(record, fresh=fresh))

    def racing(self, record: RaceRecord) -> bool:
        """Whether the race runs now (revealed and not over)."""
        return room_state(record, self._clock.now()) == "racing"

    async def view(self, record: RaceRecord, *, fresh: bool = False) -> RoomView:
        """The room as it stands; ``fresh``: just revealed, so nobody has moved yet."""
        now = self._clock.now()
        state = room_state(record, now)
        racers = await self._entries(record, "countdown" if fresh else state)
        starts_in = None
        if state == "countdown" and record.starts_at is not None:
            starts_in = round(max(0.0, (record.starts_at - now).total_seconds()), 3)
        return RoomView(
            code=record.code,
            state=state,
            owner=record.owner_name,
            suits=record.suits,
            public=record.public,
            capacity=record.capacity,
            allow_bots=record.allow_bots,
            countdown=record.countdown,
            time_limit=record.time_limit,
            racers=racers,
            starts_at=_iso(record.starts_at),
            starts_in=starts_in,
            ends_at=_iso(record.ends_at),
            auto_start_at=_iso(record.auto_start_at),
            deal=record.deal if state in ("racing", "over") else None,
            # a private rematch is joined by its code, which only its racers are given (by
            # race_rematch): a room's page or a spectator must not hand it to anyone
            next=record.next if record.public else None,
            previous=record.previous,
            revision=record.revision,
        )

    async def _entries(self, record: RaceRecord, state: RoomState) -> list[RoomEntry]:
        entries = []
        for entrant in record.entrants:
            if state == "over":
                entries.append(result_entry(entrant))
                continue
            game = None
            if state == "racing" and entrant.game_id is not None:
                game = await self._games.get(entrant.game_id)
            entries.append(
                room_entry(game)
                if game is not None
                else RoomEntry(player=entrant.name, bot=entrant.bot)
            )
        entries.sort(key=RoomEntry.standing)
        return entries
