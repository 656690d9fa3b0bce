"""One connection's game: :class:`Playing`, the conversation's game-playing part, and its
answers to ``start``, ``resume``, ``move``, ``auto``, ``undo``, ``restart``, ``resign`` and
``targets``.

An action (a move, the auto move, undo, restart, resign) runs down one road. The session
checks that it may be taken (signed in, a game, not a resend, the day not over) and hands
it to the game: :meth:`PlayerGame.play` applies it with the engine, commits it through the
action log (with others, in one transaction) and returns an :class:`Outcome`. Only then
does :meth:`Playing._answer_outcome` turn the outcome into the reply (``moved``, or the
state), tell the race or the endings, and remember it for a resend (a move by its outcome).
Should the log fail, the game is put back and the action refused ``unavailable``; should
another node have moved the game on, it is reloaded and the action tried once more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.engine import IllegalMoveError
from server.engine.actions import parse_move
from server.play.errors import DayOver, Refused, refusal_of
from server.play.games.player_game import Action, Auto, Outcome, PlayerGame
from server.play.games.resends import Remembered
from server.play.games.unseen import Unseen
from server.protocol import (
    AutoMove,
    ErrorCode,
    Finished,
    MessageId,
    MoveRequest,
    Placements,
    Reply,
    Resign,
    Restart,
    Resume,
    Start,
    TargetList,
    Targets,
    Undo,
    moved_frame,
)
from server.store import StaleGame, StoreUnavailable

from .conversation import Replies

if TYPE_CHECKING:
    from .conversation import Conversation


class Playing:
    """The game a conversation plays, and what this connection saw applied of it."""

    __slots__ = ("_conversation", "_hub", "_played_to", "_resumes_seen", "_unseen", "game")

    def __init__(self, conversation: Conversation) -> None:
        self._conversation = conversation
        self._hub = conversation.hub
        self.game: PlayerGame | None = None
        #: The requests the log holds that this connection did not see applied (past a
        #: resume's seq, say), so that each of its resends is answered, however many.
        self._unseen: Unseen | None = None
        #: The game's seq when this connection took it up or last played an action on it,
        #: and its resumes on this node then: one since means another connection took it
        #: up, which may have played this one's requests already (see
        #: :mod:`server.play.games.unseen`).
        self._played_to = 0
        self._resumes_seen = 0

    def current_game(self) -> PlayerGame:
        """The connection's game; refused without an account or a game."""
        self._conversation.signed_in_player()
        game = self.game
        if game is None:
            raise Refused(ErrorCode.NO_GAME, "start a game first")
        return game

    def game_in_play(self) -> PlayerGame:
        game = self.current_game()
        if game.finished:
            raise Refused(ErrorCode.GAME_OVER, "this game is over: start another")
        return game

    async def take(self, game: PlayerGame) -> None:
        """``game`` is the connection's game now (the conversation's ``make_current``, once
        its race is followed): the previous one is let go of."""
        previous, self.game = self.game, game
        self._played_to, self._resumes_seen = game.seq, game.resumes
        if previous is not None:  # the same game again: this drops the extra hold
            self._hub.starts.release(previous)
        if game.race is not None:
            await self._hub.rooms.follow_game(game, self._conversation.push)

    def release(self) -> None:
        """The connection is gone: let go of the game."""
        self._unseen = None
        if self.game is not None:
            game, self.game = self.game, None
            self._hub.starts.release(game)

    async def move(self, message: MoveRequest) -> Replies:
        """A move: refused for no game or a bad move, else down the action road
        (``Session.handle`` does the same inline, on the hot path: keep the two alike)."""
        self.current_game()  # refused for no game before the move's text is read
        move = parse_move(message.move)  # InvalidMoveError: refused "bad-move"
        # its own spelling ("3 - 7", "3-7X2"): a resend is known however it is written
        return await self.run_action(message.id, move.text(), move)

    async def run_action(self, message_id: MessageId | None, what: str, action: Action) -> Replies:
        """Run one action on the session's game, one action of a game at a time.

        A resend of an action already taken is answered again. An action on a daily whose
        day is over (by the server's clock, on any node, whether or not the day ticker has
        closed the game yet) is refused ``day-over``; an action past the hub's
        ``max_game_actions`` (a resignation aside) is refused ``game-too-long``. This node's
        copy of the game may be out of date (the player went on through another node): when
        the log refuses the append, or the engine refuses the action, the copy is brought up
        to date from the log and the action is tried once more, against the game as it
        truly stands.
        """
        game = self.current_game()
        async with game.lock:
            for last_try in (False, True):
                resend = game.replies.answered(message_id, what)
                if resend is None and message_id is not None:
                    if game.resumes != self._resumes_seen:  # resumed on another connection
                        self._resumes_seen = game.resumes
                        self._watch_log(game, self._played_to)
                    if self._unseen is not None:
                        resend = await self._resent_unseen(message_id, what, game)
                if resend is not None:
                    return await self._answer_resend(message_id, game, resend)
                now = self._hub.now()
                if game.over_by_day(now) and (not game.finished or game.closed):
                    return await self._refuse_day_over(message_id, game)
                _refuse_if_over(game)
                # the cap first: a move is a dataclass, and its != "resign" a Python call
                if game.seq >= self._hub.max_game_actions and action != "resign":
                    raise Refused(
                        ErrorCode.GAME_TOO_LONG,
                        "this game has taken %(most)s actions, the most a game takes: it is as "
                        "it was, and it can still be resigned",
                        params={"most": self._hub.max_game_actions},
                    )
                try:
                    outcome = await game.play(action, now, message_id=message_id, request=what)
                except IllegalMoveError as error:
                    before = game.seq
                    if last_try or not await self._hub.live.caught_up(game):
                        raise Refused.illegal(error) from None
                    self._watch_log(game, before)  # this request may be among the new ones
                    continue
                except StaleGame:
                    before = game.seq
                    await self._hub.live.refresh(game)
                    self._watch_log(game, before)
                    continue
                except StoreUnavailable:
                    raise Refused(
                        ErrorCode.UNAVAILABLE,
                        "the game could not be saved just now: send it again with the same id "
                        "(an action that was saved after all is answered again, never played "
                        "twice)",
                    ) from None
                self._played_to = game.seq
                unseen = self._unseen
                if unseen is not None and unseen.game is game:
                    unseen.played(outcome.seq - 1, game.seq)
                return await self._answer_outcome(message_id, what, game, outcome)
            refused = Refused(
                ErrorCode.STALE_GAME,
                "this game is being played on elsewhere at the same time; here is where it "
                "stands now",
            )
            return [refused.reply(message_id), await self._conversation.state_reply(None, game)]

    def _watch_log(self, game: PlayerGame, after: int) -> None:
        """Look up this connection's next requests among those the log holds past ``after``
        too (read when one is not in the game's memory), until it plays one of its own."""
        unseen = self._unseen
        if unseen is None or unseen.game is not game:
            self._unseen = Unseen(game, after)
        else:
            unseen.watch()

    async def _resent_unseen(
        self, message_id: MessageId | None, what: str, game: PlayerGame
    ) -> Remembered | None:
        """A request the game's memory does not hold, looked up among those the log holds
        that this connection did not see applied (read again if the game moved on since):
        how to answer it again if it was applied. Call with the game's lock held."""
        unseen = self._unseen
        if unseen is None or unseen.game is not game or message_id is None:
            return None
        if unseen.stale(game):
            upto = game.seq
            unseen.add(await self._hub.store.requests_after(game.id, unseen.upto), upto=upto)
        seq = unseen.find(message_id, what)
        if seq is None:
            return None
        if seq > game.seq:  # applied through another node: this copy is behind
            await self._hub.live.refresh(game)
            if seq > game.seq:
                return None
        return unseen.recall(game, seq, what)

    async def _answer_outcome(
        self, message_id: MessageId | None, what: str, game: PlayerGame, outcome: Outcome
    ) -> Replies:
        """The one place an action's outcome becomes its reply (``moved`` for a move, else
        the whole state; ``finished`` after it when it ended the game), is told to the
        endings or the race, and is remembered for a resend."""
        if outcome.ended:
            await self._hub.endings.screen(game)
        else:
            self._hub.feed.tell(game, "removed" if outcome.removed_run else "moved")
        replies: Replies = [
            moved_reply(
                message_id, outcome, game.placements() if self._conversation.legal else None
            )
            if outcome.kind == "move"
            else await self._conversation.state_reply(message_id, game)
        ]
        if outcome.ended:
            replies.append(await self._finished(message_id, game))
        if outcome.kind == "move":
            # made again from its outcome if resent, as after a reload: a game keeps the
            # last few, and the outcome is smaller than the reply's text
            game.replies.remember(message_id, what, (), outcome)
        else:
            game.replies.remember(message_id, what, replies)
        return replies

    async def _refuse_day_over(self, message_id: MessageId | None, game: PlayerGame) -> Replies:
        """Refuse an action on a daily whose day is over, closing the game first if nothing
        has yet (as it stood at the day's end); the game's state follows the refusal."""
        if await self._hub.days.close_daily(game):  # StoreUnavailable: refused, nothing changed
            await self._hub.endings.screen(game)
        refused = refusal_of(
            DayOver(
                f"the day of this daily ({game.day}) is over: it was closed as it stood at "
                "midnight UTC; here it is"
            )
        )
        assert refused is not None
        return [refused.reply(message_id), await self._conversation.state_reply(None, game)]

    async def _answer_resend(
        self, message_id: MessageId | None, game: PlayerGame, resend: Remembered
    ) -> Replies:
        """The answer to a resent action: the replies given then, or as near as the log
        can rebuild them (a move's from what it did; another's is the game's state now)."""
        replies: Replies = list(resend.replies)
        if replies:
            return replies
        outcome = resend.outcome
        if outcome is not None:
            # the placement help is the game's now: right if the move is still its last
            latest = self._conversation.legal and outcome.seq == game.seq
            replies.append(moved_reply(message_id, outcome, game.placements() if latest else None))
            finished = outcome.won
        else:
            replies.append(await self._conversation.state_reply(message_id, game))
            finished = game.finished
        if finished:
            replies.append(await self._finished(message_id, game))
        return replies

    async def _finished(self, message_id: MessageId | None, game: PlayerGame) -> Finished:
        """``finished``, echoing the ``id`` of the message whose reply it follows (the
        action that ended the game, a resend of it, a ``resume`` of a finished game)."""
        finished = await self._hub.endings.finished_message(game)
        return finished.model_copy(update={"id": message_id})

    # -- the game messages -----------------------------------------------------------

    async def start(self, message: Start) -> Replies:
        player = self._conversation.signed_in_player()
        if message.mode == "daily":
            if message.code is not None:
                raise Refused(ErrorCode.INVALID_MESSAGE, "a daily game takes no code")
            # refused before the attempt exists: a refused start changes nothing (its clock)
            self._hub.standings.may_follow(
                self._hub.today(), message.suits, self._conversation.push, player.name
            )
            game = await self._hub.starts.daily(player, message.suits)
        else:
            game = await self._hub.starts.practice(player, message.code, message.suits)
        await self._conversation.make_current(game)
        # a start is a client beginning afresh (its ids may count from 1 again): only
        # actions sent after a resume are resends
        game.replies.clear()
        self._unseen = None
        self._hub.feed.tell(game, "joined")
        return [await self._conversation.state_reply(message.id, game)]

    async def resume(self, message: Resume) -> Replies:
        player = self._conversation.signed_in_player()
        game = await self._hub.starts.resume(player, message.game)
        try:
            # what the client may have sent but not seen answered: each resend of it is
            # answered again, never played twice, however far back (the log has them all)
            unseen = Unseen(game, message.seq)
            upto = game.seq
            if upto > message.seq:
                unseen.add(await self._hub.store.requests_after(game.id, message.seq), upto=upto)
            await self._hub.rooms.attach(game)  # a race game: back in its room
        except Exception:
            self._hub.starts.release(game)
            raise
        game.resumes += 1  # other connections holding it here look at the log (see .unseen)
        await self._conversation.make_current(game)
        self._unseen = unseen
        replies: Replies = [await self._conversation.state_reply(message.id, game)]
        if game.finished:
            replies.append(await self._finished(message.id, game))
        else:
            self._hub.feed.tell(game, "joined")
        return replies

    async def auto(self, message: AutoMove) -> Replies:
        what = f"auto {message.column} {message.count}"
        return await self.run_action(message.id, what, Auto(message.column - 1, message.count))

    async def undo(self, message: Undo) -> Replies:
        return await self.run_action(message.id, "undo", "undo")

    async def restart(self, message: Restart) -> Replies:
        return await self.run_action(message.id, "restart", "restart")

    async def resign(self, message: Resign) -> Replies:
        return await self.run_action(message.id, "resign", "resign")

    async def targets(self, message: Targets) -> Replies:
        game = self.game_in_play()
        try:
            columns = game.targets(message.column, message.count)
        except IllegalMoveError as error:
            raise Refused.illegal(error) from None
        return [
            TargetList(id=message.id, column=message.column, count=message.count, columns=columns)
        ]


def _refuse_if_over(game: PlayerGame) -> None:
    """Refuse an action on a game that is over (it may have ended while the action waited)."""
    if game.finished:
        raise Refused(ErrorCode.GAME_OVER, "this game is over: start another")


def moved_reply(message_id: MessageId | None, outcome: Outcome, legal: Placements | None) -> Reply:
    """A move's reply, from its outcome (and the placement help, when asked for)."""
    return moved_frame(
        id=message_id,
        game=outcome.game,
        seq=outcome.seq,
        move=outcome.applied,
        removed_run=outcome.removed_run,
        moves=outcome.moves,
        score=outcome.score,
        removed=outcome.removed,
        won=outcome.won,
        legal=legal,
    )
