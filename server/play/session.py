"""One connection's conversation, with no socket: a parsed message in, replies out::

    session = Session(hub, push=outbox.push)
    frames = await session.handle(parse_client_message('{"type": "ping", "id": 1}'))
    # ['{"type":"pong","id":1,"server_time":"..."}']

Events the player did not ask for (race events, a new day) go through ``push``, which
takes encoded frames and must not block: the network layer queues them or drops them.

An action runs down one path: the session applies it to the player's game in memory, the
store's action log commits it (with others, in one transaction), and only then is it
answered. Should the log fail, the game is put back and the action refused ``unavailable``;
should another node have moved the game on, it is reloaded and the player told.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import date, datetime
from typing import Any

from server.engine import IllegalMoveError
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
from server.store import PlayerRecord, StaleGame, StoreUnavailable

from .after_handlers import AFTER_HANDLERS
from .errors import DayOver, Refused, refusal_of
from .games import PlayerGame, Remembered, parse_move
from .hub import Hub
from .race import Push
from .room_handlers import ROOM_HANDLERS

log = logging.getLogger(__name__)

#: What a handler returns: messages, or frames already encoded (remembered replies).
Replies = list[ServerMessage | str]


#: Plays one action on a game in memory and commits it, as of the server's time given (the
#: instant its day's end was checked against); returns the reply frames.
Play = Callable[[PlayerGame, datetime], Awaitable[list[str]]]


class Session:
    """The state of one connection: who is playing, which game, which races it follows."""

    __slots__ = ("_rooms", "game", "hub", "legal", "player", "push", "token_refused")

    def __init__(self, hub: Hub, push: Push) -> None:
        self.hub = hub
        self.push = push
        self.player: PlayerRecord | None = None
        self.game: PlayerGame | None = None
        #: ``hello`` asked for placement help with each state and move (a browser's board).
        self.legal = False
        #: The last ``auth`` named no account (its token is wrong): the address's sign-in
        #: back-off counts it.
        self.token_refused = False
        self._rooms: set[tuple[date, int]] = set()
        hub.days.listen(push)

    async def handle(self, message: ClientMessage) -> list[str]:
        """Answer one message with encoded frames; refusals become ``error`` replies."""
        try:
            if type(message) is MoveRequest:  # most messages: straight to the move
                return await self._move(message)
            replies = await _HANDLERS[message.type](self, message)
        except Exception as error:
            refused = refusal_of(error)
            if refused is None:
                raise  # a bug: the network layer logs it and answers "internal"
            if refused.code is ErrorCode.UNAVAILABLE:
                log.warning("%s refused: %s", message.type, error)
            return [encode(refused.reply(message.id))]
        return [reply if isinstance(reply, str) else encode(reply) for reply in replies]

    async def close(self) -> None:
        """The connection is gone: let go of the game and the races."""
        self.hub.days.stop_listening(self.push)
        await self.hub.rooms.forget(self.push)
        for day, suits in self._rooms:
            await self.hub.races.unfollow(day, suits, self.push)
        self._rooms.clear()
        if self.game is not None:
            game, self.game = self.game, None
            self.hub.games.release(game)

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

    def _info(self) -> PlayerInfo:
        player = self._who()
        return PlayerInfo(name=player.name, created=player.created_at.isoformat(), bot=player.bot)

    async def _take(self, game: PlayerGame) -> None:
        """Make ``game`` this session's game, letting go of the previous one. Refused
        (too many follows of its race), the session keeps its game and lets go of ``game``."""
        if game.day is not None:
            try:
                await self._follow(game.day, game.suits)
            except Refused:
                self.hub.games.release(game)
                raise
        previous, self.game = self.game, game
        if previous is not None:  # the same game again: this drops the extra hold
            self.hub.games.release(previous)
        if game.race is not None:
            await self.hub.rooms.follow_game(game, self.push)

    async def _follow(self, day: date, suits: int) -> None:
        """Follow a daily race (an account's, so that followers can be capped)."""
        if (day, suits) not in self._rooms:
            await self.hub.races.follow(day, suits, self.push, self._who().name)
            self._rooms.add((day, suits))

    async def _state(self, message_id: MessageId | None, game: PlayerGame) -> State:
        view = game.view(self.hub.now(), await self.hub.endings.par(game))
        if self.legal and not game.finished:
            view = view.model_copy(update={"legal": _placements(game)})
        return State(id=message_id, state=view)

    async def _act(self, message_id: MessageId | None, what: str, play: Play) -> list[str]:
        """Run one action on the session's game, one action of a game at a time.

        A resend of an action already taken is answered again. An action on a daily whose
        day is over (by the server's clock, on any node, whether or not the day ticker has
        closed the game yet) is refused ``day-over``. This node's copy of the game may be out
        of date (the player went on through another node): when the log refuses the append,
        or the engine refuses the action, the copy is brought up to date from the log and the
        action is tried once more, against the game as it truly stands.
        """
        game = self._current()
        async with game.lock:
            for last_try in (False, True):
                again = game.answered(message_id, what)
                if again is not None:
                    return await self._again(message_id, game, again)
                now = self.hub.now()
                if game.over_by_day(now) and (not game.finished or game.closed):
                    return await self._day_over(message_id, game)
                _not_over(game)
                try:
                    return await play(game, now)
                except IllegalMoveError as error:
                    if last_try or not await self.hub.live.caught_up(game):
                        raise Refused.illegal(error) from None
                except StaleGame:
                    await self.hub.live.refresh(game)
            refused = Refused(
                ErrorCode.STALE_GAME,
                "this game is being played on elsewhere at the same time; here is where it "
                "stands now",
            )
            return [encode(refused.reply(message_id)), encode(await self._state(None, game))]

    async def _day_over(self, message_id: MessageId | None, game: PlayerGame) -> list[str]:
        """Refuse an action on a daily whose day is over, closing the game first if nothing
        has yet (as it stood at the day's end); the game's state follows the refusal."""
        if await self.hub.days.close_daily(game):  # StoreUnavailable: refused, nothing changed
            await self.hub.endings.screen(game)
        refused = refusal_of(
            DayOver(
                f"the day of this daily ({game.day}) is over: it was closed as it stood at "
                "midnight UTC; here it is"
            )
        )
        assert refused is not None
        return [encode(refused.reply(message_id)), encode(await self._state(None, game))]

    async def _commit(
        self,
        game: PlayerGame,
        before: int,
        message_id: MessageId | None,
        what: str,
        now: datetime,
    ) -> None:
        """Make the game's actions after ``before`` durable; until this returns, nothing of
        them is answered. On failure the game is put back as it was at ``before``, and
        :class:`StaleGame` (the log moved on elsewhere) is raised for :meth:`_act`."""
        try:
            await self.hub.live.commit(game, before, at=now, message_id=message_id, request=what)
        except StoreUnavailable:
            raise Refused(
                ErrorCode.UNAVAILABLE,
                "the game could not be saved just now: send it again with the same id (an "
                "action that was saved after all is answered again, never played twice)",
            ) from None

    async def _again(
        self, message_id: MessageId | None, game: PlayerGame, again: Remembered
    ) -> list[str]:
        """The answer to a resent action: the replies given then, or as near as the log
        can rebuild them (a state reply is the game's state now)."""
        replies = list(again.frames)
        if not replies:
            replies.append(encode(await self._state(message_id, game)))
            if game.finished:
                replies.append(encode(await self.hub.endings.finished_message(game)))
        elif again.add_finished:
            replies.append(encode(await self.hub.endings.finished_message(game)))
        return replies

    # -- connection and accounts -------------------------------------------------------

    async def _hello(self, message: Hello) -> Replies:
        if message.version != PROTOCOL_VERSION:
            raise Refused(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol version {PROTOCOL_VERSION}, not {message.version}",
            )
        self.legal = message.legal
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
        player, token = await self.hub.accounts.register(message.name, bot=message.bot)
        self.player = player
        return [Registered(id=message.id, player=self._info(), token=token)]

    async def _auth(self, message: Auth) -> Replies:
        self.token_refused = False
        try:
            player = await self.hub.accounts.authenticate(message.token)
        except Refused as refused:
            self.token_refused = refused.code is ErrorCode.BAD_TOKEN
            raise
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
            # refused before the attempt exists: a refused start changes nothing (its clock)
            self.hub.races.may_follow(self.hub.today(), message.suits, self.push, player.name)
            game = await self.hub.games.daily(player, message.suits)
        else:
            game = await self.hub.games.practice(player, message.code, message.suits)
        await self._take(game)
        # a start is a client beginning afresh (its ids may count from 1 again): only
        # actions sent after a resume are resends
        game.replies.clear()
        self.hub.feed.tell(game, "joined")
        return [await self._state(message.id, game)]

    async def _resume(self, message: Resume) -> Replies:
        player = self._who()
        game = await self.hub.games.resume(player, message.game)
        try:
            await self.hub.rooms.attach(game)  # a race game: back in its room
        except Refused:
            self.hub.games.release(game)
            raise
        await self._take(game)
        replies: Replies = [await self._state(message.id, game)]
        if game.finished:
            replies.append(await self.hub.endings.finished_message(game))
        else:
            self.hub.feed.tell(game, "joined")
        return replies

    async def _move(self, message: MoveRequest) -> list[str]:
        self._current()
        move = parse_move(message.move)  # InvalidMoveError: refused "bad-move"

        def push(game: PlayerGame) -> str:
            return game.move(move)

        return await self._act(
            message.id,
            message.move,
            lambda game, now: self._play(game, now, message.id, message.move, push),
        )

    async def _auto(self, message: AutoMove) -> Replies:
        what = f"auto {message.column} {message.count}"

        def auto(game: PlayerGame) -> str:
            return game.auto(message.column - 1, message.count)

        return list(
            await self._act(
                message.id, what, lambda game, now: self._play(game, now, message.id, what, auto)
            )
        )

    async def _play(
        self,
        game: PlayerGame,
        now: datetime,
        message_id: MessageId | None,
        what: str,
        apply: Callable[[PlayerGame], str],
    ) -> list[str]:
        """Play a move (or the auto move), commit it, answer ``moved`` (and ``finished``
        after a win)."""
        engine = game.engine
        before = game.seq
        removed_before = engine.removed_count
        played = apply(game)  # raises IllegalMoveError, changing nothing
        removed_run = engine.removed_count > removed_before
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
                legal=_placements(game) if self.legal else None,
            )
        ]
        if engine.is_won:
            game.end(resigned=False, now=now)
        await self._commit(game, before, message_id, what, now)
        if game.finished:
            await self.hub.endings.screen(game)
            frames.append(encode(await self.hub.endings.finished_message(game)))
        else:
            self.hub.feed.tell(game, "removed" if removed_run else "moved")
        game.remember(message_id, what, frames)
        return frames

    async def _undo(self, message: Undo) -> Replies:
        async def undo(game: PlayerGame, now: datetime) -> list[str]:
            before = game.seq
            game.undo()  # raises IllegalMoveError, changing nothing
            return await self._changed(message.id, "undo", game, before, now)

        return list(await self._act(message.id, "undo", undo))

    async def _restart(self, message: Restart) -> Replies:
        async def restart(game: PlayerGame, now: datetime) -> list[str]:
            before = game.seq
            game.restart()
            return await self._changed(message.id, "restart", game, before, now)

        return list(await self._act(message.id, "restart", restart))

    async def _changed(
        self, message_id: MessageId | None, what: str, game: PlayerGame, before: int, now: datetime
    ) -> list[str]:
        """Commit an undo or restart and answer with the whole state."""
        await self._commit(game, before, message_id, what, now)
        replies = [encode(await self._state(message_id, game))]
        game.remember(message_id, what, replies)
        self.hub.feed.tell(game, "moved")
        return replies

    async def _resign(self, message: Resign) -> Replies:
        async def resign(game: PlayerGame, now: datetime) -> list[str]:
            before = game.seq
            game.end(resigned=True, now=now)
            await self._commit(game, before, message.id, "resign", now)
            await self.hub.endings.screen(game)
            replies = [
                encode(await self._state(message.id, game)),
                encode(await self.hub.endings.finished_message(game)),
            ]
            game.remember(message.id, "resign", replies)
            return replies

        return list(await self._act(message.id, "resign", resign))

    async def _targets(self, message: Targets) -> Replies:
        game = self._playing()
        try:
            columns = game.engine.targets(message.column - 1, message.count)
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
        info = await self.hub.queries.daily_info(self.player)
        return [info.model_copy(update={"id": message.id})]

    async def _race(self, message: RaceRequest) -> Replies:
        day = self.hub.today()
        await self._follow(day, message.suits)  # following needs an account
        standings = await self.hub.queries.race_standings(message.suits, day, self._who().name)
        return [standings.model_copy(update={"id": message.id})]

    async def _leaderboard(self, message: LeaderboardRequest) -> Replies:
        page = await self.hub.queries.leaderboard(
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
            player = await self.hub.accounts.named(message.player)
        info = await self.hub.queries.rank(
            day=message.day,
            suits=message.suits,
            player=player,
            around=message.around,
            board=message.board,
        )
        return [info.model_copy(update={"id": message.id})]

    async def _history(self, message: HistoryRequest) -> Replies:
        player = (
            self._who() if message.player is None else await self.hub.accounts.named(message.player)
        )
        own = self.player is not None and self.player.id == player.id
        found = await self.hub.queries.history(player, message.limit, own=own)
        return [found.model_copy(update={"id": message.id})]

    async def _ping(self, message: Ping) -> Replies:
        return [Pong(id=message.id, server_time=self.hub.now().isoformat())]


def _placements(game: PlayerGame) -> list[list[list[int]]]:
    """The engine's placement help, columns numbered from 1 as players number them."""
    return [
        [[target + 1 for target in targets] for targets in groups]
        for groups in game.engine.placements()
    ]


def _not_over(game: PlayerGame) -> None:
    """Refuse an action on a game that is over (it may have ended while the action waited)."""
    if game.finished:
        raise Refused(ErrorCode.GAME_OVER, "this game is over: start another")


_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[Replies]]] = {
    "hello": Session._hello,
    "register": Session._register,
    "auth": Session._auth,
    "start": Session._start,
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
    **ROOM_HANDLERS,
    **AFTER_HANDLERS,
}
