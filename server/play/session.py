"""One connection's conversation, with no socket: a parsed message in, replies out.

>>> replies = await session.handle(parse_client_message('{"type":"ping","id":1}'))

Events the player did not ask for (race events, a new day) go through ``push``, which
takes encoded frames and must not block: the network layer queues them or drops them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date

from server.engine import IllegalMoveError, InvalidMoveError, Move
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
    Moved,
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
)
from server.store import PlayerRecord

from .errors import Refused
from .games import PlayerGame
from .hub import Hub
from .race import Push

Replies = list[ServerMessage]


class Session:
    """The state of one connection: who is playing, which game, which races it follows."""

    def __init__(self, hub: Hub, push: Push) -> None:
        self.hub = hub
        self.push = push
        self.player: PlayerRecord | None = None
        self.game: PlayerGame | None = None
        self._rooms: set[tuple[date, int]] = set()
        hub.listeners.add(push)
        self._handlers: dict[str, Callable[[ClientMessage], Awaitable[Replies]]] = {
            "hello": self._hello,  # type: ignore[dict-item]
            "register": self._register,  # type: ignore[dict-item]
            "auth": self._auth,  # type: ignore[dict-item]
            "start": self._start,  # type: ignore[dict-item]
            "move": self._move,  # type: ignore[dict-item]
            "auto": self._auto,  # type: ignore[dict-item]
            "undo": self._undo,  # type: ignore[dict-item]
            "restart": self._restart,  # type: ignore[dict-item]
            "resign": self._resign,  # type: ignore[dict-item]
            "targets": self._targets,  # type: ignore[dict-item]
            "resume": self._resume,  # type: ignore[dict-item]
            "daily": self._daily,  # type: ignore[dict-item]
            "leaderboard": self._leaderboard,  # type: ignore[dict-item]
            "rank": self._rank,  # type: ignore[dict-item]
            "history": self._history,  # type: ignore[dict-item]
            "race": self._race,  # type: ignore[dict-item]
            "ping": self._ping,  # type: ignore[dict-item]
        }

    async def handle(self, message: ClientMessage) -> Replies:
        """Answer one message; refusals become ``error`` replies carrying the message id."""
        try:
            return await self._handlers[message.type](message)
        except Refused as refused:
            return [refused.reply(message.id)]

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

    def _answered(self, message_id: MessageId | None) -> tuple[PlayerGame, Replies | None]:
        """The game, and the replies already given if ``message_id`` was applied before."""
        game = self._current()
        again = game.answered(message_id)
        if again is not None:
            return game, list(again)
        if game.finished:
            raise Refused(ErrorCode.GAME_OVER, "this game is over: start another")
        return game, None

    def _info(self) -> PlayerInfo:
        player = self._who()
        return PlayerInfo(name=player.name, created=player.created_at.isoformat())

    async def _take(self, game: PlayerGame) -> None:
        """Make ``game`` this session's game, letting go of the previous one."""
        previous, self.game = self.game, game
        if previous is not None and previous is not game:
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
        player, token = await self.hub.register(message.name)
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
        game, again = self._answered(message.id)
        if again is not None:
            return again
        try:
            move = Move.from_text(message.move)
        except InvalidMoveError as error:
            raise Refused(ErrorCode.BAD_MOVE, str(error)) from None
        return await self._play(message.id, game, lambda: game.move(move))

    async def _auto(self, message: AutoMove) -> Replies:
        game, again = self._answered(message.id)
        if again is not None:
            return again
        return await self._play(
            message.id, game, lambda: game.auto(message.column - 1, message.count)
        )

    async def _play(
        self, message_id: MessageId | None, game: PlayerGame, act: Callable[[], Move]
    ) -> Replies:
        removed_before = len(game.game.removed)
        try:
            played = act()
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        engine = game.game
        removed_run = len(engine.removed) > removed_before
        replies: Replies = [
            Moved(
                id=message_id,
                game=game.id,
                seq=game.seq,
                move=played.text(),
                removed_run=removed_run,
                moves=engine.moves,
                score=engine.score,
                removed=len(engine.removed),
                won=engine.is_won,
            )
        ]
        game.remember(message_id, replies)
        await self.hub.accepted(game, "removed" if removed_run else "moved")
        if engine.is_won:
            replies.append(await self.hub.finish(game, resigned=False))
            game.remember(message_id, replies)
        return replies

    async def _undo(self, message: Undo) -> Replies:
        game, again = self._answered(message.id)
        if again is not None:
            return again
        try:
            game.undo()
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        return await self._changed(message.id, game)

    async def _restart(self, message: Restart) -> Replies:
        game, again = self._answered(message.id)
        if again is not None:
            return again
        game.restart()
        return await self._changed(message.id, game)

    async def _changed(self, message_id: MessageId | None, game: PlayerGame) -> Replies:
        replies: Replies = [await self._state(message_id, game)]
        game.remember(message_id, replies)
        await self.hub.accepted(game, "moved")
        return replies

    async def _resign(self, message: Resign) -> Replies:
        game, again = self._answered(message.id)
        if again is not None:
            return again
        finished = await self.hub.finish(game, resigned=True)
        replies: Replies = [await self._state(message.id, game), finished]
        game.remember(message.id, replies)
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
        info = await self.hub.daily_info()
        return [info.model_copy(update={"id": message.id})]

    async def _race(self, message: RaceRequest) -> Replies:
        day = self.hub.today()
        await self._follow(day, message.suits)
        standings = await self.hub.race_standings(message.suits, day)
        return [standings.model_copy(update={"id": message.id})]

    async def _leaderboard(self, message: LeaderboardRequest) -> Replies:
        page = await self.hub.leaderboard(
            day=message.day, suits=message.suits, limit=message.limit, after=message.after
        )
        return [page.model_copy(update={"id": message.id})]

    async def _rank(self, message: RankRequest) -> Replies:
        if message.player is None:
            player = self._who()
        else:
            player = await self.hub.player(message.player)
        info = await self.hub.rank(
            day=message.day, suits=message.suits, player=player, around=message.around
        )
        return [info.model_copy(update={"id": message.id})]

    async def _history(self, message: HistoryRequest) -> Replies:
        player = self._who() if message.player is None else await self.hub.player(message.player)
        found = await self.hub.history(player, message.limit)
        return [found.model_copy(update={"id": message.id})]

    async def _ping(self, message: Ping) -> Replies:
        return [Pong(id=message.id, server_time=self.hub.now().isoformat())]
