"""One connection's conversation, with no socket: a parsed message in, replies out::

    session = Session(hub, push=outbox.push)
    replies = await session.handle(parse_client_message('{"type": "ping", "id": 1}'))
    # [Pong(type='pong', id=1, server_time='...')]: the network layer encodes them

Events the player did not ask for (race events, a new day) go through ``push``, which
takes encoded frames and must not block: the network layer queues them or drops them.

The session is the connection's part (who is signed in, the races it follows); its game
is :class:`~.playing.Playing`'s. :meth:`Session.handle` hands each message to its handler
with one ``match`` over the client's messages, ending in ``assert_never``: a message
without a ``case`` fails ``mypy``. Handlers see the session as a
:class:`~.conversation.Conversation`.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import date
from typing import NamedTuple, assert_never

from server.engine.actions import parse_move
from server.i18n import DEFAULT_LANGUAGE, Language, speaking
from server.play.accounts import Challenge
from server.play.errors import Refused, refusal_of
from server.play.games.player_game import PlayerGame
from server.play.hub import Hub
from server.play.sending import Push
from server.protocol import (
    Auth,
    AutoMove,
    Block,
    ClientMessage,
    DailyRequest,
    DailyResultRequest,
    DayStatsRequest,
    DeleteAccount,
    DeviceApprove,
    DeviceCodeRequest,
    DeviceLookup,
    DevicesRequest,
    DeviceToken,
    Error,
    ErrorCode,
    Follow,
    FollowingRequest,
    Hello,
    HistoryRequest,
    LeaderboardRequest,
    LeagueHandOver,
    LeagueJoin,
    LeagueLeave,
    LeagueNew,
    LeaguePublic,
    LeagueRemove,
    LeagueRequest,
    LeaguesRequest,
    MessageId,
    MoveRequest,
    PasskeyAdd,
    PasskeyOptions,
    PasskeyRemove,
    PasskeySignIn,
    Ping,
    PlayerInfo,
    RaceJoin,
    RaceLeave,
    RaceNew,
    RaceQuick,
    RaceRematch,
    RaceRequest,
    RaceStart,
    RaceWatch,
    RankRequest,
    Recover,
    RecoveryCodesRequest,
    Register,
    ReplayRequest,
    ReportRequest,
    Resign,
    Restart,
    Resume,
    ReviewRequest,
    Revoke,
    RotateToken,
    ServerMessage,
    SetLanguage,
    SetSettings,
    SignedOut,
    Start,
    State,
    Targets,
    Unblock,
    Undo,
    UnfinishedRequest,
    Unfollow,
    encode,
)
from server.store import CredentialRecord, PlayerRecord

from . import (
    account_handlers,
    after_handlers,
    credential_handlers,
    query_handlers,
    room_handlers,
    social_handlers,
)
from .conversation import Replies
from .playing import Playing

log = logging.getLogger(__name__)

__all__ = ["Replies", "Session", "SignIn", "SignInMessage"]

#: The messages that sign a connection in, under the network layer's sign-in limits.
SignInMessage = Register | Auth | Recover | PasskeySignIn | DeviceToken
SIGN_IN_MESSAGES = (Register, Auth, Recover, PasskeySignIn, DeviceToken)
#: Refusals that count as a failed sign-in (a wrong secret) in the address's back-off.
FAILED_SIGN_INS = frozenset({ErrorCode.BAD_TOKEN, ErrorCode.BAD_CODE, ErrorCode.PASSKEY_FAILED})
#: Connections being let go of after a revocation (kept until done).
_LETTING_GO: set[asyncio.Task[None]] = set()


class SignIn(NamedTuple):
    """How a ``register`` or ``auth`` went, for the network layer's per-address limits."""

    replies: Replies
    #: The connection has an account now.
    signed_in: bool
    #: The token named no account: the address's sign-in back-off counts it.
    bad_token: bool


class Session:
    """The state of one connection: who is playing, which game, which races it follows (a
    :class:`~.conversation.Conversation` to its handlers)."""

    __slots__ = (
        "_playing",
        "_rooms",
        "address",
        "challenge",
        "credential_id",
        "hub",
        "language",
        "legal",
        "origin",
        "player",
        "push",
        "site",
        "user_agent",
    )

    def __init__(
        self,
        hub: Hub,
        push: Push,
        address: str = "",
        *,
        origin: str | None = None,
        user_agent: str = "",
        site: str = "",
    ) -> None:
        """``address``: the client's, as the network layer counts it (whose turn a review
        takes in the solver's line); ``origin`` and ``user_agent``: its handshake's headers
        (the page that opened it, for passkeys; what it is, for the places signed in);
        ``site``: where the client reached the server (the links a terminal is given)."""
        self.hub = hub
        self.push = push
        self.address = address
        self.origin = origin
        self.user_agent = user_agent
        self.site = site
        self.player: PlayerRecord | None = None
        #: The credential it signed in with (only its id: a connection holds no more)
        self.credential_id: int | None = None
        self.challenge: Challenge | None = None
        #: ``hello`` asked for placement help with each state and move (a browser's board).
        self.legal = False
        self.language: Language = DEFAULT_LANGUAGE
        self._rooms: set[tuple[date, int]] = set()
        self._playing = Playing(self)
        hub.days.listen(push)

    @property
    def game(self) -> PlayerGame | None:
        """The connection's game, if it has one."""
        return self._playing.game

    async def handle(self, message: ClientMessage) -> Replies:
        """Answer one message; refusals become ``error`` replies."""
        try:
            if type(message) is MoveRequest:  # most messages: straight to the move
                playing = self._playing  # Playing.move, inlined: the hot path
                playing.current_game()  # refused for no game before the move's text is read
                move = parse_move(message.move)  # InvalidMoveError: refused "bad-move"
                return await playing.run_action(message.id, move.text(), move)
            with speaking(self.language):  # the sentences of its replies (a share text)
                return await self._answer(message)
        except Exception as error:
            with speaking(self.language):
                return [_refusal(message, error, self.hub)]

    async def _answer(self, message: ClientMessage) -> Replies:
        """The one dispatch: each client message to its handler (``mypy`` checks that
        every message has its ``case``)."""
        playing = self._playing
        match message:
            case MoveRequest():
                return await playing.move(message)
            case AutoMove():
                return await playing.auto(message)
            case Undo():
                return await playing.undo(message)
            case Restart():
                return await playing.restart(message)
            case Resign():
                return await playing.resign(message)
            case Targets():
                return await playing.targets(message)
            case Start():
                return await playing.start(message)
            case Resume():
                return await playing.resume(message)
            case Hello():
                return await account_handlers.hello(self, message)
            case Register():
                return await account_handlers.register(self, message)
            case Auth():
                return await account_handlers.auth(self, message)
            case SetLanguage():
                return await account_handlers.set_language(self, message)
            case SetSettings():
                return await account_handlers.set_settings(self, message)
            case Ping():
                return await account_handlers.ping(self, message)
            case DailyRequest():
                return await query_handlers.daily(self, message)
            case LeaderboardRequest():
                return await query_handlers.leaderboard(self, message)
            case RankRequest():
                return await query_handlers.rank(self, message)
            case HistoryRequest():
                return await query_handlers.history(self, message)
            case UnfinishedRequest():
                return await query_handlers.unfinished(self, message)
            case RaceRequest():
                return await query_handlers.race(self, message)
            case RaceNew():
                return await room_handlers.race_new(self, message)
            case RaceJoin():
                return await room_handlers.race_join(self, message)
            case RaceQuick():
                return await room_handlers.race_quick(self, message)
            case RaceWatch():
                return await room_handlers.race_watch(self, message)
            case RaceLeave():
                return await room_handlers.race_leave(self, message)
            case RaceStart():
                return await room_handlers.race_start(self, message)
            case RaceRematch():
                return await room_handlers.race_rematch(self, message)
            case DayStatsRequest():
                return await after_handlers.day_stats(self, message)
            case ReplayRequest():
                return await after_handlers.replay(self, message)
            case ReviewRequest():
                return await after_handlers.review(self, message)
            case ReportRequest():
                return await after_handlers.report(self, message)
            case DailyResultRequest():
                return await after_handlers.daily_result(self, message)
            case DevicesRequest():
                return await credential_handlers.devices(self, message)
            case Revoke():
                return await credential_handlers.revoke(self, message)
            case RotateToken():
                return await credential_handlers.rotate_token(self, message)
            case RecoveryCodesRequest():
                return await credential_handlers.recovery_codes(self, message)
            case PasskeyOptions():
                return await credential_handlers.passkey_options(self, message)
            case PasskeyAdd():
                return await credential_handlers.passkey_add(self, message)
            case PasskeyRemove():
                return await credential_handlers.passkey_remove(self, message)
            case DeviceCodeRequest():
                return await credential_handlers.device_code(self, message)
            case DeviceLookup():
                return await credential_handlers.device_lookup(self, message)
            case DeviceApprove():
                return await credential_handlers.device_approve(self, message)
            case DeleteAccount():
                return await credential_handlers.delete_account(self, message)
            case Follow():
                return await social_handlers.follow(self, message)
            case Unfollow():
                return await social_handlers.unfollow(self, message)
            case Block():
                return await social_handlers.block(self, message)
            case Unblock():
                return await social_handlers.unblock(self, message)
            case FollowingRequest():
                return await social_handlers.following(self, message)
            case LeagueNew():
                return await social_handlers.league_new(self, message)
            case LeagueJoin():
                return await social_handlers.league_join(self, message)
            case LeagueLeave():
                return await social_handlers.league_leave(self, message)
            case LeagueRemove():
                return await social_handlers.league_remove(self, message)
            case LeagueHandOver():
                return await social_handlers.league_hand_over(self, message)
            case LeaguePublic():
                return await social_handlers.league_public(self, message)
            case LeagueRequest():
                return await social_handlers.league(self, message)
            case LeaguesRequest():
                return await social_handlers.leagues(self, message)
            case Recover():
                return (await self.sign_in(message)).replies
            case PasskeySignIn():
                return (await self.sign_in(message)).replies
            case DeviceToken():
                return (await self.sign_in(message)).replies
            case _:
                assert_never(message)

    async def sign_in(self, message: SignInMessage) -> SignIn:
        """Answer a message that signs in (``register``, ``auth``, ``recover``,
        ``passkey_sign_in``, ``device_token``), saying how it went."""
        try:
            match message:
                case Auth():
                    replies = await account_handlers.auth(self, message)
                case Register():
                    replies = await account_handlers.register(self, message)
                case Recover():
                    replies = await credential_handlers.recover(self, message)
                case PasskeySignIn():
                    replies = await credential_handlers.passkey_sign_in(self, message)
                case DeviceToken():
                    replies = await credential_handlers.device_token(self, message)
                case _:
                    assert_never(message)
        except Refused as refused:
            bad_token = refused.code in FAILED_SIGN_INS
            with speaking(self.language):
                error = _refusal(message, refused, self.hub)
            return SignIn([error], self.player is not None, bad_token)
        except Exception as failure:
            with speaking(self.language):
                error = _refusal(message, failure, self.hub)
            return SignIn([error], self.player is not None, False)
        return SignIn(replies, self.player is not None, False)

    async def close(self) -> None:
        """The connection is gone: let go of the game and the races."""
        self.hub.days.stop_listening(self.push)
        self.let_go_of_credential()
        if self.player is not None:
            self.hub.friends_feed.offline(self.player.id, self.push)
        await self._let_go()

    async def _let_go(self) -> None:
        await self.hub.rooms.forget(self.push)
        for day, suits in self._rooms:
            await self.hub.standings.unfollow(day, suits, self.push)
        self._rooms.clear()
        self._playing.release()

    def _signed_out(self) -> None:
        """The connection's credential was revoked (here or on another node)."""
        if self.player is not None:
            self.hub.friends_feed.offline(self.player.id, self.push)
        self.player = None
        self.credential_id = None
        self.challenge = None
        self.push(encode(SignedOut(reason="revoked")))
        task = asyncio.get_running_loop().create_task(self._let_go())
        _LETTING_GO.add(task)
        task.add_done_callback(_LETTING_GO.discard)

    # -- the conversation, as its handlers see it ---------------------------------------

    def send(self, message: ServerMessage) -> None:
        self.push(encode(message))

    def signed_in_player(self) -> PlayerRecord:
        if self.player is None:
            raise Refused(ErrorCode.NOT_AUTHENTICATED, "authenticate first (auth or register)")
        return self.player

    def sign_in_as(self, player: PlayerRecord, credential: CredentialRecord | None = None) -> None:
        previous, self.player = self.player, player
        if previous is None or previous.id != player.id:  # its friends' news come here now
            if previous is not None:
                self.hub.friends_feed.offline(previous.id, self.push)
            self.hub.friends_feed.online(player.id, self.push)
        if credential is not None:
            self.let_go_of_credential()
            self.credential_id = credential.id
            self.hub.accounts.watch(credential.id, self._signed_out)

    def let_go_of_credential(self) -> None:
        if self.credential_id is not None:
            self.hub.accounts.unwatch(self.credential_id, self._signed_out)

    def player_info(self) -> PlayerInfo:
        return account_handlers.player_info(self.signed_in_player())

    async def make_current(self, game: PlayerGame) -> None:
        if game.day is not None:
            try:
                await self.follow_daily_race(game.day, game.suits)
            except Refused:
                self.hub.starts.release(game)
                raise
        await self._playing.take(game)

    async def follow_daily_race(self, day: date, suits: int) -> None:
        if (day, suits) not in self._rooms:
            await self.hub.standings.follow(day, suits, self.push, self.signed_in_player().name)
            self._rooms.add((day, suits))

    async def state_reply(self, message_id: MessageId | None, game: PlayerGame) -> State:
        view = game.view(self.hub.now(), await self.hub.endings.par(game))
        if self.legal and not game.finished:
            view = view.model_copy(update={"legal": game.placements()})
        return State(id=message_id, state=view)


def _refusal(message: ClientMessage, error: Exception, hub: Hub) -> Error:
    """The ``error`` reply refusing ``message``; raises ``error`` again if it is a bug (the
    network layer logs it and answers ``internal``). A refusal ``unavailable`` is logged,
    one line per ``UNAVAILABLE_LOG_SECONDS`` at most (an outage refuses every request)."""
    refused = refusal_of(error)
    if refused is None:
        raise error
    if refused.code is ErrorCode.UNAVAILABLE:
        skipped = hub.unavailable_lines.due()
        if skipped is not None:
            more = f" ({skipped} more refused unavailable since the last line)" if skipped else ""
            log.warning("%s refused: %s%s", message.type, error, more)
    return refused.reply(message.id)
