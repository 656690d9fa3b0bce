"""A race room at the table: its racers and countdown, then the racer's game with the
room's live standings, then the results (docs/client.md, "Race your friends").

:class:`RaceTable` is an :class:`~client_cli.table.OnlineTable` whose game arrives at the
reveal (a ``state`` the server pushes when the countdown ends); until then, and after a
rematch, it has a room and no game. The room's views (``race_room``) replace what it knew
unless older (a lower ``revision``); ``race_update`` events change one racer's line, and
the view of the reveal (``started``: nobody had moved yet) leaves the lines they changed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlencode, urlsplit, urlunsplit

from server.protocol import (
    ErrorCode,
    RaceJoin,
    RaceLeave,
    RaceNew,
    RaceQuick,
    RaceRematch,
    RaceRoom,
    RaceStart,
    RaceUpdate,
    RaceWatch,
    RoomEntry,
    RoomEventKind,
    RoomView,
    ServerMessage,
    State,
)

from .connection import Connection, timestamp
from .errors import ClientError, ServerError
from .table import Notice, OnlineTable
from .wording import player_label
from .words import _, language


def browser_link(server: str, code: str) -> str:
    """Where a browser joins room ``code`` of the server at websocket URL ``server``:
    ``ws://host:8765`` gives ``http://host:8765/play?race=CODE``."""
    parts = urlsplit(server)
    scheme = "https" if parts.scheme == "wss" else "http"
    return urlunsplit((scheme, parts.netloc, "/play", urlencode({"race": code}), ""))


Phase = Literal["room", "racing", "over"]
#: What opens the table: a new room, a room by its code, or a quick race.
Opening = RaceNew | RaceJoin | RaceQuick


def ordinal(place: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``11th``, ``22nd``.

    >>> [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']
    """
    if language() == "pl":  # "1. miejsce"
        return f"{place}."
    if language() == "ru":  # "1-е место"
        return f"{place}-е"
    if 10 <= place % 100 <= 20:
        return f"{place}th"
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th') }"


def race_time(seconds: float) -> str:
    """A racer's time: ``1:05.2``."""
    # rounded to tenths first, so 59.96 s reads 1:00.0, never 0:60.0
    minutes, tenths = divmod(round(seconds * 10), 600)
    return f"{minutes}:{tenths / 10:04.1f}"


class RaceTable(OnlineTable):
    """A race room, and the racer's game in it once revealed."""

    def __init__(
        self,
        connection: Connection,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(connection)
        self.room: RoomView | None = None
        self.standings: dict[str, RoomEntry] = {}
        self.room_left: set[str] = set()  # racers gone from the server mid-race
        self.watching = False  # not a racer: the room started before the player came
        self._clock = clock
        self._wall = wall  # this machine's time of day, for the server's times (+ its offset)
        self._room_seen_at = 0.0  # when the room's view arrived, on ``clock``

    # -- the room ---------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        room = self.room
        if room is not None and room.state in ("over", "expired"):
            return "over"
        if self.view is not None and self.view.race == (room.code if room else None):
            return "racing"
        return "room"

    @property
    def owner(self) -> bool:
        return self.room is not None and self.room.owner == self.player

    def countdown_left(self) -> float | None:
        """Seconds until the reveal, while the countdown runs."""
        room = self.room
        if room is None or room.state != "countdown" or room.starts_in is None:
            return None
        return max(0.0, room.starts_in - (self._clock() - self._room_seen_at))

    def auto_start_left(self) -> float | None:
        """Seconds until a public room's countdown begins by itself, once that is set."""
        room = self.room
        if room is None or room.state != "open" or room.auto_start_at is None:
            return None
        at = timestamp(room.auto_start_at)
        if at is None:
            return None
        return max(0.0, at - (self._wall() + self.connection.clock_offset))

    def ordered(self) -> list[RoomEntry]:
        """The racers in the server's standings order."""
        return sorted(self.standings.values(), key=RoomEntry.standing)

    async def open(self, opening: Opening) -> RoomView:
        """Open, join or quick-join a room (raises ClientError when refused). A room that
        started before the player came is watched instead: its race, or its results."""
        try:
            reply = await self.connection.request(opening, RaceRoom)
        except ServerError as error:
            if not isinstance(opening, RaceJoin) or error.code != ErrorCode.RACE_STARTED:
                raise
            watch = RaceWatch(type="race_watch", code=opening.code)
            reply = await self.connection.request(watch, RaceRoom)
            self.watching = True
        self._take_room(reply.room, None)
        return reply.room

    async def start_race(self) -> None:
        """The owner begins the countdown."""
        assert self.room is not None
        reply = await self.connection.request(
            RaceStart(type="race_start", code=self.room.code), RaceRoom
        )
        self._take_room(reply.room, None)

    async def rematch(self) -> RoomView:
        """After the race: into its rematch room (opened now, or joined)."""
        assert self.room is not None
        reply = await self.connection.request(
            RaceRematch(type="race_rematch", code=self.room.code), RaceRoom
        )
        self._new_room()
        self._take_room(reply.room, None)
        return reply.room

    async def leave(self) -> None:
        """Out of the room before its countdown (or stop following it once it is over)."""
        if self.room is None or self.phase == "racing" or self.room.state == "countdown":
            return
        with contextlib.suppress(ClientError):  # leaving anyway
            await self.connection.request(
                RaceLeave(type="race_leave", code=self.room.code), RaceRoom
            )

    async def resume(self) -> None:
        """After a reconnect: follow the room again, and take the game up if there is one."""
        if self.room is not None:
            reply = await self.connection.request(
                RaceWatch(type="race_watch", code=self.room.code), RaceRoom
            )
            self._take_room(reply.room, None)
        if self.view is not None:
            await super().resume()
        else:
            self._held = False
            self._tell(Notice("status", _("Reconnected.")))

    def _new_room(self) -> None:
        """A rematch: a new room, and no game until its reveal."""
        self.room = None
        self.view = None
        self.game = None
        self.confirmed = None
        self.finished = False
        self.pending.clear()
        self.standings.clear()
        self.room_left.clear()
        self.race_log.clear()

    # -- the server's messages ----------------------------------------------------------

    def receive(self, message: ServerMessage) -> None:
        if isinstance(message, RaceRoom):
            self._take_room(message.room, message.event)
            return
        if isinstance(message, RaceUpdate):
            self._update(message)
            return
        first_state = (
            isinstance(message, State)
            and self.view is None
            and self.room is not None
            and message.state.race == self.room.code
        )
        super().receive(message)
        if first_state:  # the countdown's notice (or the room's) is over: the game is on
            self._tell(self._game_line())

    def _game_line(self) -> Notice:
        """What to say when the racer's game arrives: at the reveal, or on coming back."""
        if self.room is not None and self.room.state == "countdown":
            return Notice("info", _("Go! The deal is revealed: your move."))
        if self.finished:
            return Notice(
                "info", _("Your game in this race is over: the results come when it ends.")
            )
        return Notice("info", _("Back in the race: your move."))

    def _take_room(self, room: RoomView, event: RoomEventKind | None) -> None:
        before = {entry.player for entry in self.room.racers} if self.room else set()
        known = self.room
        if known is not None and known.code == room.code and room.revision < known.revision:
            return  # an older view, overtaken on the way
        if known is not None and known.code != room.code:
            return  # a view of another room (the one left for a rematch)
        self.room = room
        self.race_room = room.code
        self._room_seen_at = self._clock()
        racers = {entry.player: entry for entry in room.racers}
        if event == "started":
            # The room at its reveal, when nobody had moved: it goes out once the room's
            # racers have their games, so a racer's updates may have come first (newer).
            racers.update((name, line) for name, line in self.standings.items() if name in racers)
        self.standings = racers
        self.room_left &= {entry.player for entry in room.racers if not entry.finished}
        line = self._room_line(room, event)
        if line is not None:
            self.race_log.append(line)
        notice = None
        if room.state in ("over", "expired") and not self.finished and self.view is not None:
            self.finished = True  # stopped by the time limit
            self._set_clock(self.elapsed(), running=False)
        if event == "over":
            notice = Notice("won" if self._won() else "info", self.results_line())
        elif event == "rematch":
            notice = Notice("info", _("A rematch is open: press m to join it."))
        elif event == "countdown":
            notice = Notice("status", _("The countdown has begun."))
        elif event == "joined" and room.state == "open":
            notice = Notice("info", self._joined_line(room, before))
        self._tell(notice)

    def _joined_line(self, room: RoomView, before: set[str]) -> str:
        """Who came, and what the room waits for now (it replaces an older refusal such as
        "a race needs at least 2 racers")."""
        came = [player_label(e.player, e.bot) for e in room.racers if e.player not in before]
        line = _("%(came)s joined: %(count)s in the room.") % {
            "came": ", ".join(came) or _("A racer"),
            "count": len(room.racers),
        }
        if self.owner and not room.public:
            line += " " + _("Press s to start the race.")
        return line

    def _room_line(self, room: RoomView, event: RoomEventKind | None) -> str | None:
        there = _("%(count)s in the room") % {"count": len(room.racers)}
        return {
            "joined": there,
            "left": there,
            "countdown": _("the countdown began"),
            "started": _("go!"),
            "over": _("the race is over"),
            "rematch": _("a rematch is open (m)"),
            "expired": _("the room closed unstarted"),
        }.get(event or "")

    def _update(self, message: RaceUpdate) -> None:
        if self.room is None or message.code != self.room.code:
            return
        entry = message.entry
        self.standings[entry.player] = entry
        if message.event == "left":
            self.room_left.add(entry.player)
        else:
            self.room_left.discard(entry.player)
        who = _("you") if entry.player == self.player else player_label(entry.player, entry.bot)
        said = {"who": who, "removed": entry.removed, "time": race_time(entry.elapsed or 0.0)}
        line = {
            "joined": _("%(who)s came back"),
            "moved": None,
            "removed": _("%(who)s removed a run (%(removed)s/4)"),
            "finished": _("%(who)s cleared the table in %(time)s"),
            "resigned": _("%(who)s resigned"),
            "left": _("%(who)s left"),
        }[message.event]
        if line is not None:
            self.race_log.append(line % said)
        self._tell()

    def _won(self) -> bool:
        mine = self.standings.get(self.player or "")
        return mine is not None and mine.place == 1

    def results_line(self) -> str:
        """The end of the race in one line: the winner, and where you placed."""
        ordered = [entry for entry in self.ordered() if entry.place is not None]
        if not ordered:
            return _("The race is over.")
        first = ordered[0]
        mine_first = first.player == self.player
        winner = None if mine_first else player_label(first.player, first.bot)
        time = race_time(first.elapsed or 0.0)
        if first.won and winner is None:
            head = _("Race over: you won in %(time)s") % {"time": time}
        elif first.won:
            head = _("Race over: %(winner)s won in %(time)s") % {"winner": winner, "time": time}
        elif winner is None:
            head = _("Race over, nobody cleared the table: you placed first")
        else:
            head = _("Race over, nobody cleared the table: %(winner)s placed first") % {
                "winner": winner
            }
        mine = self.standings.get(self.player or "")
        if mine is not None and mine.place is not None and mine.place > 1:
            head += _("; you placed %(place)s of %(count)s") % {
                "place": ordinal(mine.place),
                "count": len(ordered),
            }
        return head + ". " + _("m rematch · q quit")

    def opening_line(self) -> Notice:
        """What the screen says first: the room's state, or the results of a race over."""
        room = self.room
        if room is not None and room.state == "over":
            return Notice("info", self.results_line())
        if room is not None and room.state == "expired":
            return Notice("info", _("This room closed before anyone started it. q quits."))
        if self.watching:
            return Notice("info", _("That race started before you came: you are watching it."))
        if self.phase == "racing":
            return self._game_line()
        return Notice("info", _("Waiting in the room. ? shows the rules and keys."))
