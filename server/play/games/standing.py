"""A racer's standing, built once from their game as it stands: the figures a daily race's
row (:class:`~server.protocol.RaceEntry`) and a race room's line
(:class:`~server.protocol.RoomEntry`) both show.

``won`` is the game's result, not its board: a daily closed at its day's end is not won,
whatever its board (docs/protocol.md, "Games"), so a race's row agrees with the
leaderboard and the room's line with the stored result.
"""

from __future__ import annotations

from typing import TypedDict

from server.protocol import RaceEntry, RoomEntry

from .player_game import PlayerGame


class Standing(TypedDict):
    player: str
    bot: bool
    moves: int
    score: int
    removed: int
    won: bool
    resigned: bool
    finished: bool


def standing(game: PlayerGame) -> Standing:
    """How ``game``'s racer stands now."""
    engine = game.engine
    result = game.result
    return Standing(
        player=game.player_name,
        bot=game.bot,
        moves=engine.moves,
        score=engine.score,
        removed=engine.removed_count,
        won=result is not None and result.won,
        resigned=result is not None and result.resigned,
        finished=result is not None,
    )


def race_entry(game: PlayerGame, *, left: bool = False) -> RaceEntry:
    """A game's row in its daily race, as it stands (``left``: its player went away
    mid-game)."""
    return RaceEntry(**standing(game), left=left)


def room_entry(game: PlayerGame) -> RoomEntry:
    """A racer's line in their room, as their game stands (a winner's time from the start)."""
    line = standing(game)
    result = game.result
    won_in = round(result.elapsed, 3) if result is not None and line["won"] else None
    return RoomEntry(**line, elapsed=won_in)
