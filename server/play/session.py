"""One connection's conversation, with no socket: a parsed message in, replies out::

    session = Session(hub, push=outbox.push)
    frames = await session.handle(parse_client_message('{"type": "ping", "id": 1}'))
    # ['{"type":"pong","id":1,"server_time":"..."}']

Events the player did not ask for (race events, a new day) go through ``push``, which
takes encoded frames and must not block: the network layer queues them or drops them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

from server.engine import IllegalMoveError, InvalidMoveError
from server.protocol import (
    PROTOCOL_VERSION,
    Auth,
    Authenticated,
    AutoMove,
    ClientMessage,
    DailyRequest,
    ErrorCode,
    Hello,
    HistoryRequest,
    LeaderboardRequest,
    MessageId,
    MoveRequest,
    Ping,
    PlayerInfo,
    Pong,
    RaceRequest,
    RankRequest,
    Register,
    Registered,
    Resign,
    Restart,
    Resume,
    ServerMessage,
    Start,
    State,
    TargetList,
    Targets,
    Undo,
    Welcome,
    encode,
    moved_frame,
)
from server.store import PlayerRecord

from .errors import Refused
from .games import PlayerGame, parse_move
from .hub import Hub
from .race import Push

#: What a handler returns: messages, or frames already encoded (remembered replies).
Replies = list[ServerMessage | str]


class Session:
    """The state of one connection: who is playing, which game, which races it follows."""

    __slots__ = ("_rooms", "game", "hub", "player", "push")

    def __init__(self, hub: Hub, push: Push) -> None:
        self.hub = hub
        self.push = push
        self.player: PlayerRecord | None = None
        self.game: PlayerGame | None = None
        self._rooms: set[tuple[date, int]] = set()
        hub.listeners.add(push)

    async def handle(self, message: ClientMessage) -> list[str]:
        """Answer one message with encoded frames; refusals become ``error`` replies."""
        try:
            if type(message) is MoveRequest:  # most messages: no handler coroutine, no encoding
                frames, event = self._play_move(message)
                if event is not None:
                    await self._after_move(message.id, message.move, frames, event)
                return frames
            replies = await _HANDLERS[message.type](self, message)
        except Refused as refused:
            return [encode(refused.reply(message.id))]
        return [reply if isinstance(reply, str) else encode(reply) for reply in replies]

    async def close(self) -> None:
        """The connection is gone: let go of the game and the races."""
        self.hub.listeners.discard(self.push)
        for day, suits in self._rooms:
            await self.hub.races.unfollow(day, suits, self.push)
        self._rooms.clear()
        if self.game is not None:
            game, self.game = self.game, None
            await self.hub.release(game)

    # -- helpers -------------------------------------------------------------------

    def _who(self) -> PlayerRecord:
        if self.player is None:
            raise Refused(ErrorCode.NOT_AUTHENTICATED, "authenticate first (auth or register)")
        return self.player

    def _current(self) -> PlayerGame:
        self._who()
        game = self.game
        if game is None:
            raise Refused(ErrorCode.NO_GAME, "start a game first")
        return game

    def _playing(self) -> PlayerGame:
        game = self._current()
        if game.finished:
            raise Refused(ErrorCode.GAME_OVER, "this game is over: start another")
        return game

    def _answered(
        self, message_id: MessageId | None, what: str
    ) -> tuple[PlayerGame, Replies | None]:
        """The game, and the replies already given if this action was applied before."""
        game = self._current()
        again = game.answered(message_id, what)
        if again is not None:
            return game, list(again)
        if game.finished:
            raise Refused(ErrorCode.GAME_OVER, "this game is over: start another")
        return game, None

    def _info(self) -> PlayerInfo:
        player = self._who()
        return PlayerInfo(name=player.name, created=player.created_at.isoformat(), bot=player.bot)

    async def _take(self, game: PlayerGame) -> None:
        """Make ``game`` this session's game, letting go of the previous one."""
        previous, self.game = self.game, game
        if previous is not None:  # the same game again: this drops the extra hold
            await self.hub.release(previous)
        if game.day is not None:
            await self._follow(game.day, game.suits)

    async def _follow(self, day: date, suits: int) -> None:
        if (day, suits) not in self._rooms:
            self._rooms.add((day, suits))
            await self.hub.races.follow(day, suits, self.push)

    async def _state(self, message_id: MessageId | None, game: PlayerGame) -> State:
        return State(id=message_id, state=game.view(self.hub.now(), await self.hub.par(game)))

    # -- connection and accounts -------------------------------------------------------

    async def _hello(self, message: Hello) -> Replies:
        if message.version != PROTOCOL_VERSION:
            raise Refused(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol version {PROTOCOL_VERSION}, not {message.version}",
            )
        return [
            Welcome(
                id=message.id,
                server_time=self.hub.now().isoformat(),
                player=self._info() if self.player else None,
            )
        ]

    async def _register(self, message: Register) -> Replies:
        if self.player is not None:
            raise Refused(ErrorCode.ALREADY_AUTHENTICATED, "this connection has an account")
        player, token = await self.hub.register(message.name, bot=message.bot)
        self.player = player
        return [Registered(id=message.id, player=self._info(), token=token)]

    async def _auth(self, message: Auth) -> Replies:
        player = await self.hub.authenticate(message.token)
        if self.player is not None and self.player.id != player.id:
            raise Refused(
                ErrorCode.ALREADY_AUTHENTICATED, f"already signed in as {self.player.name}"
            )
        self.player = player
        return [Authenticated(id=message.id, player=self._info())]

    # -- games -------------------------------------------------------------------------

    async def _start(self, message: Start) -> Replies:
        player = self._who()
        if message.mode == "daily":
            if message.code is not None:
                raise Refused(ErrorCode.INVALID_MESSAGE, "a daily game takes no code")
            game = await self.hub.start_daily(player, message.suits)
        else:
            game = await self.hub.start_practice(player, message.code, message.suits)
        await self._take(game)
        # a start is a client beginning afresh (its ids may count from 1 again): only
        # actions sent after a resume are resends
        game.replies.clear()
        if game.day is not None:
            await self.hub.accepted(game, "joined")
        return [await self._state(message.id, game)]

    async def _resume(self, message: Resume) -> Replies:
        player = self._who()
        game = await self.hub.open_game(player, message.game)
        await self._take(game)
        replies: Replies = [await self._state(message.id, game)]
        if game.finished:
            replies.append(await self.hub.finished_message(game))
        elif game.day is not None:
            await self.hub.accepted(game, "joined")
        return replies

    async def _move(self, message: MoveRequest) -> Replies:
        frames, event = self._play_move(message)
        if event is not None:
            await self._after_move(message.id, message.move, frames, event)
        return frames  # type: ignore[return-value]

    def _play_move(self, message: MoveRequest) -> tuple[list[str], str | None]:
        """Check and play a move: the reply frames, and the race event when the hub has
        work to do for it (None for a resend, or a practice move between checkpoints)."""
        game, again = self._answered(message.id, message.move)
        if again is not None:
            return again, None  # type: ignore[return-value]  # remembered replies are frames
        try:
            move = parse_move(message.move)
        except InvalidMoveError as error:
            raise Refused(ErrorCode.BAD_MOVE, str(error)) from None
        engine = game.game
        removed_before = engine.removed_count
        try:
            played = game.move(move)
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        removed = engine.removed_count
        frames = self._moved(message.id, message.move, game, played, removed > removed_before)
        if engine.is_won or not self.hub.quiet(game):
            return frames, "removed" if removed > removed_before else "moved"
        return frames, None

    async def _auto(self, message: AutoMove) -> Replies:
        what = f"auto {message.column} {message.count}"
        game, again = self._answered(message.id, what)
        if again is not None:
            return again
        removed_before = game.game.removed_count
        try:
            played = game.auto(message.column - 1, message.count)
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        removed_run = game.game.removed_count > removed_before
        replies = self._moved(message.id, what, game, played, removed_run)
        await self._after_move(message.id, what, replies, "removed" if removed_run else "moved")
        return replies  # type: ignore[return-value]

    def _moved(
        self,
        message_id: MessageId | None,
        what: str,
        game: PlayerGame,
        played: str,
        removed_run: bool,
    ) -> list[str]:
        """The ``moved`` reply to an accepted move, remembered for a resend."""
        engine = game.game
        frames = [
            moved_frame(
                id=message_id,
                game=game.id,
                seq=game.seq,
                move=played,
                removed_run=removed_run,
                moves=engine.moves,
                score=engine.score,
                removed=engine.removed_count,
                won=engine.is_won,
            )
        ]
        game.remember(message_id, what, frames)
        return frames

    async def _after_move(
        self, message_id: MessageId | None, what: str, frames: list[str], event: str
    ) -> None:
        """Tell the hub (snapshot, checkpoint, race); a winning move also ends the game."""
        game = self.game
        assert game is not None
        await self.hub.accepted(game, event)
        if game.game.is_won:
            frames.append(encode(await self.hub.finish(game, resigned=False)))
            game.remember(message_id, what, frames)

    async def _undo(self, message: Undo) -> Replies:
        game, again = self._answered(message.id, "undo")
        if again is not None:
            return again
        try:
            game.undo()
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        return await self._changed(message.id, "undo", game)

    async def _restart(self, message: Restart) -> Replies:
        game, again = self._answered(message.id, "restart")
        if again is not None:
            return again
        game.restart()
        return await self._changed(message.id, "restart", game)

    async def _changed(self, message_id: MessageId | None, what: str, game: PlayerGame) -> Replies:
        replies: Replies = [encode(await self._state(message_id, game))]
        game.remember(message_id, what, replies)  # type: ignore[arg-type]
        await self.hub.accepted(game, "moved")
        return replies

    async def _resign(self, message: Resign) -> Replies:
        game, again = self._answered(message.id, "resign")
        if again is not None:
            return again
        finished = await self.hub.finish(game, resigned=True)
        replies: Replies = [encode(await self._state(message.id, game)), encode(finished)]
        game.remember(message.id, "resign", replies)  # type: ignore[arg-type]
        return replies

    async def _targets(self, message: Targets) -> Replies:
        game = self._playing()
        try:
            columns = game.game.targets(message.column - 1, message.count)
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        return [
            TargetList(
                id=message.id,
                column=message.column,
                count=message.count,
                columns=[c + 1 for c in columns],
            )
        ]

    # -- the daily, races and leaderboards -----------------------------------------------

    async def _daily(self, message: DailyRequest) -> Replies:
        info = await self.hub.daily_info(self.player)
        return [info.model_copy(update={"id": message.id})]

    async def _race(self, message: RaceRequest) -> Replies:
        day = self.hub.today()
        await self._follow(day, message.suits)
        standings = await self.hub.race_standings(message.suits, day)
        return [standings.model_copy(update={"id": message.id})]

    async def _leaderboard(self, message: LeaderboardRequest) -> Replies:
        page = await self.hub.leaderboard(
            day=message.day,
            suits=message.suits,
            limit=message.limit,
            after=message.after,
            board=message.board,
        )
        return [page.model_copy(update={"id": message.id})]

    async def _rank(self, message: RankRequest) -> Replies:
        if message.player is None:
            player = self._who()
        else:
            player = await self.hub.player(message.player)
        info = await self.hub.rank(
            day=message.day,
            suits=message.suits,
            player=player,
            around=message.around,
            board=message.board,
        )
        return [info.model_copy(update={"id": message.id})]

    async def _history(self, message: HistoryRequest) -> Replies:
        player = self._who() if message.player is None else await self.hub.player(message.player)
        found = await self.hub.history(player, message.limit)
        return [found.model_copy(update={"id": message.id})]

    async def _ping(self, message: Ping) -> Replies:
        return [Pong(id=message.id, server_time=self.hub.now().isoformat())]


_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[Replies]]] = {
    "hello": Session._hello,
    "register": Session._register,
    "auth": Session._auth,
    "start": Session._start,
    "move": Session._move,
    "auto": Session._auto,
    "undo": Session._undo,
    "restart": Session._restart,
    "resign": Session._resign,
    "targets": Session._targets,
    "resume": Session._resume,
    "daily": Session._daily,
    "leaderboard": Session._leaderboard,
    "rank": Session._rank,
    "history": Session._history,
    "race": Session._race,
    "ping": Session._ping,
}
