"""The session's answers to ``hello``, ``register``, ``auth`` and ``ping`` (the connection
and its account: :mod:`server.play.accounts`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from server.play.errors import Refused
from server.protocol import (
    PROTOCOL_VERSION,
    Auth,
    Authenticated,
    ErrorCode,
    Hello,
    Ping,
    Pong,
    Register,
    Registered,
    Reply,
    Welcome,
)

if TYPE_CHECKING:
    from .session import Session

Replies = list[Reply]


async def hello(session: Session, message: Hello) -> Replies:
    if message.version != PROTOCOL_VERSION:
        raise Refused(
            ErrorCode.UNSUPPORTED_VERSION,
            f"this server speaks protocol version {PROTOCOL_VERSION}, not {message.version}",
        )
    session.legal = message.legal
    return [
        Welcome(
            id=message.id,
            server_time=session.hub.now().isoformat(),
            player=session._player_info() if session.player else None,
        )
    ]


async def register(session: Session, message: Register) -> Replies:
    if session.player is not None:
        raise Refused(ErrorCode.ALREADY_AUTHENTICATED, "this connection has an account")
    player, token = await session.hub.accounts.register(message.name, bot=message.bot)
    session.player = player
    return [Registered(id=message.id, player=session._player_info(), token=token)]


async def auth(session: Session, message: Auth) -> Replies:
    player = await session.hub.accounts.authenticate(message.token)
    if session.player is not None and session.player.id != player.id:
        raise Refused(
            ErrorCode.ALREADY_AUTHENTICATED, f"already signed in as {session.player.name}"
        )
    session.player = player
    return [Authenticated(id=message.id, player=session._player_info())]


async def ping(session: Session, message: Ping) -> Replies:
    return [Pong(id=message.id, server_time=session.hub.now().isoformat())]


ACCOUNT_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[Replies]]] = {
    "hello": hello,
    "register": register,
    "auth": auth,
    "ping": ping,
}
