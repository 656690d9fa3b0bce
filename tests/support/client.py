"""Stand-ins for the server in unit tests: game views, a scripted connection, race rooms
and a clock moved by hand."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from server.engine import Game
from server.protocol import GameView, Moved, PlayerInfo, RoomEntry, RoomView, State

CODE = "SS1-S4-AAAAABD"  # legal at the start: 3-4; then 8-2, 8-3, 9-1, 9-4


def view_of(game: Game, seq: int, *, mode: str = "practice", game_id: str = "g1") -> GameView:
    return GameView(
        game=game_id,
        code=str(game.code),
        suits=game.suits,
        mode=mode,
        board=game.board_text().splitlines(),
        moves=game.moves,
        score=game.score,
        removed=len(game.removed),
        won=game.is_won,
        finished=game.is_won,
        can_undo=game.can_undo,
        seq=seq,
        elapsed=3.0,
    )


def moved(message_id: Any, game: Game, move: str, seq: int) -> Moved:
    """The server's answer to a move: ``game`` is the server's game after it."""
    return Moved(
        id=message_id,
        game="g1",
        seq=seq,
        move=move,
        removed_run=False,
        moves=game.moves,
        score=game.score,
        removed=len(game.removed),
        won=game.is_won,
    )


class ScriptedConnection:
    """Stands in for :class:`client_cli.connection.Connection`: records what is sent and
    answers requests from a script."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies
        self.url = "ws://127.0.0.1:8765"  # the local server's address, as the real one has it
        self.sent: list[Any] = []
        self.requests: list[Any] = []
        self.player = PlayerInfo(name="ann")
        self.clock_offset = 0.0
        self.review_hours: int | None = 24  # what the server says in its welcome
        self.on_message: Any = None
        self.on_reconnect: Any = None
        self.on_status: Any = None
        self._id = 0

    def next_id(self) -> int:
        self._id += 1
        return self._id

    def server_day(self) -> date:
        return datetime.now(UTC).date()

    async def send(self, message: Any) -> Any:
        self.sent.append(message)
        return message.id

    async def request(self, message: Any, expect: type) -> Any:
        self.requests.append(message)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):  # a refusal, such as ServerError
            raise reply
        assert isinstance(reply, expect)
        return reply

    async def close(self) -> None:
        pass


# -- race rooms ------------------------------------------------------------------------


def room(
    state: str = "open", revision: int = 1, racers: tuple[str, ...] = ("ann",), **extra: Any
) -> RoomView:
    return RoomView(
        code="KXR4M-7M2PQ",
        state=state,
        owner="ann",
        suits=4,
        public=False,
        capacity=10,
        allow_bots=False,
        countdown=10.0,
        time_limit=900.0,
        racers=[RoomEntry(player=name) for name in racers],
        revision=revision,
        **extra,
    )


def race_state(seq: int = 0) -> State:
    view = view_of(Game.from_code(CODE), seq).model_copy(update={"race": "KXR4M-7M2PQ"})
    return State(state=view)


class Ticks:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now
