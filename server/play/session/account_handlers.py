"""The conversation's answers to ``hello``, ``register``, ``auth``, ``set_language``,
``set_settings`` and ``ping`` (the connection and its account: :mod:`server.play.accounts`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import ValidationError

from server.i18n import LANGUAGES
from server.play.accounts import device_label
from server.play.errors import Refused
from server.protocol import (
    PROTOCOL_VERSION,
    Auth,
    Authenticated,
    ErrorCode,
    Hello,
    LanguageSet,
    Ping,
    PlayerInfo,
    PlayerSettings,
    Pong,
    Register,
    Registered,
    SetLanguage,
    SetSettings,
    SettingsSet,
    Welcome,
)

if TYPE_CHECKING:
    from server.store import PlayerRecord

    from .conversation import Conversation, Replies


async def hello(conversation: Conversation, message: Hello) -> Replies:
    if message.version != PROTOCOL_VERSION:
        raise Refused(
            ErrorCode.UNSUPPORTED_VERSION,
            "this server speaks protocol version %(ours)s, not %(theirs)s",
            params={"ours": PROTOCOL_VERSION, "theirs": message.version},
        )
    conversation.legal = message.legal
    if message.lang is not None:
        conversation.language = message.lang
    return [
        Welcome(
            id=message.id,
            server_time=conversation.hub.now().isoformat(),
            player=conversation.player_info() if conversation.player else None,
            review_hours=conversation.hub.held_review_hours,
        )
    ]


async def register(conversation: Conversation, message: Register) -> Replies:
    if conversation.player is not None:
        raise Refused(ErrorCode.ALREADY_AUTHENTICATED, "this connection has an account")
    signed = await conversation.hub.accounts.register(
        message.name,
        bot=message.bot,
        device=device_label(conversation.user_agent, message.device),
        address=conversation.address,
    )
    conversation.sign_in_as(signed.player, signed.credential)
    assert signed.token is not None  # a new credential's
    return [Registered(id=message.id, player=conversation.player_info(), token=signed.token)]


async def auth(conversation: Conversation, message: Auth) -> Replies:
    if message.lang is not None:  # a refusal of the token is said in it too
        conversation.language = message.lang
    signed = await conversation.hub.accounts.authenticate(
        message.token, address=conversation.address
    )
    player = signed.player
    if conversation.player is not None and conversation.player.id != player.id:
        raise Refused(
            ErrorCode.ALREADY_AUTHENTICATED,
            "already signed in as %(name)s",
            params={"name": conversation.player.name},
        )
    conversation.sign_in_as(player, signed.credential)
    if message.lang is None and player.language in LANGUAGES:  # the account's, else hello's
        conversation.language = player.language
    return [Authenticated(id=message.id, player=conversation.player_info())]


async def set_language(conversation: Conversation, message: SetLanguage) -> Replies:
    player = conversation.signed_in_player()
    await conversation.hub.accounts.set_language(player, message.lang)
    conversation.sign_in_as(dataclasses.replace(player, language=message.lang))
    conversation.language = message.lang
    return [LanguageSet(id=message.id, lang=message.lang)]


async def set_settings(conversation: Conversation, message: SetSettings) -> Replies:
    given = {name: getattr(message.settings, name) for name in message.settings.model_fields_set}
    player = await conversation.hub.accounts.set_settings(conversation.signed_in_player(), given)
    conversation.sign_in_as(player)
    return [SettingsSet(id=message.id, settings=settings_info(player.settings) or PlayerSettings())]


def player_info(player: PlayerRecord) -> PlayerInfo:
    """An account as the protocol shows it (``player``)."""
    return PlayerInfo(
        name=player.name,
        created=player.created_at.isoformat(),
        bot=player.bot,
        language=player.language if player.language in LANGUAGES else None,
        settings=settings_info(player.settings),
    )


def settings_info(kept: Mapping[str, object] | None) -> PlayerSettings | None:
    """The settings an account keeps, as the protocol says them (``player.settings``): a
    name this server does not know, or a value it no longer takes, is left out."""
    known = {
        name: value for name, value in (kept or {}).items() if name in PlayerSettings.model_fields
    }
    if not known:
        return None
    try:
        return PlayerSettings.model_validate(known)
    except ValidationError:
        return PlayerSettings.model_validate(
            {name: value for name, value in known.items() if _takes(name, value)}
        )


def _takes(name: str, value: object) -> bool:
    try:
        PlayerSettings.model_validate({name: value})
    except ValidationError:
        return False
    return True


async def ping(conversation: Conversation, message: Ping) -> Replies:
    return [Pong(id=message.id, server_time=conversation.hub.now().isoformat())]
