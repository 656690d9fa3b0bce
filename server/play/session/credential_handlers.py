"""The conversation's answers about where an account is signed in and what it holds:
``devices``, ``revoke``, ``rotate_token``, ``recovery_codes`` and ``recover``, passkeys
(``passkey_options``, ``passkey_add``, ``passkey_remove``, ``passkey_sign_in``), a
terminal's sign-in code (``device_code``, ``device_token``; ``device_lookup`` and
``device_approve`` where its player approves it), and ``delete_account``
(:mod:`server.play.accounts`)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from server.play.accounts import Devices, SignedIn, device_label
from server.play.errors import Refused
from server.protocol import (
    AccountDeleted,
    CredentialInfo,
    DeleteAccount,
    DeviceApprove,
    DeviceApproved,
    DeviceCode,
    DeviceCodeRequest,
    DeviceLookup,
    DeviceRequest,
    DevicesRequest,
    DeviceToken,
    ErrorCode,
    MessageId,
    PasskeyAdd,
    PasskeyInfo,
    PasskeyOptions,
    PasskeyOptionsReply,
    PasskeyRemove,
    PasskeySignIn,
    Recover,
    RecoveryCodes,
    RecoveryCodesRequest,
    Revoke,
    RotateToken,
    TokenRotated,
)
from server.protocol import (
    Devices as DevicesReply,
)
from server.protocol import (
    SignedIn as SignedInReply,
)

if TYPE_CHECKING:
    from .conversation import Conversation, Replies


async def devices(conversation: Conversation, message: DevicesRequest) -> Replies:
    return [await _devices(conversation, message.id)]


async def _devices(conversation: Conversation, message_id: MessageId | None) -> DevicesReply:
    player = conversation.signed_in_player()
    found = await conversation.hub.accounts.devices(player)
    return devices_reply(found, message_id, conversation)


def devices_reply(
    found: Devices, message_id: MessageId | None, conversation: Conversation
) -> DevicesReply:
    current = conversation.credential_id
    return DevicesReply(
        id=message_id,
        credentials=[
            CredentialInfo(
                id=c.id,
                kind=c.kind,
                device=c.label,
                created=c.created_at.isoformat(),
                created_from=c.created_from,
                last_used=c.last_used_at.isoformat(),
                last_used_from=c.last_used_from,
                current=c.id == current,
            )
            for c in found.credentials
        ],
        passkeys=[
            PasskeyInfo(
                id=p.id,
                name=p.name,
                created=p.created_at.isoformat(),
                last_used=None if p.last_used_at is None else p.last_used_at.isoformat(),
            )
            for p in found.passkeys
        ],
        recovery_codes_left=found.recovery_codes_left,
    )


async def revoke(conversation: Conversation, message: Revoke) -> Replies:
    player = conversation.signed_in_player()
    accounts = conversation.hub.accounts
    if message.others:
        await accounts.revoke(player, keep=conversation.credential_id)
    elif message.credential is not None:
        if not await accounts.revoke(player, ids=[message.credential]):
            raise Refused(ErrorCode.NOT_FOUND, "the account is not signed in there")
    else:
        raise Refused(ErrorCode.INVALID_MESSAGE, "say which credential, or others")
    if conversation.player is None:  # it revoked its own
        return []
    return [await _devices(conversation, message.id)]


async def rotate_token(conversation: Conversation, message: RotateToken) -> Replies:
    player = conversation.signed_in_player()
    current = conversation.credential_id
    if current is None:
        raise Refused(ErrorCode.NOT_AUTHENTICATED, "authenticate first (auth or register)")
    conversation.let_go_of_credential()
    signed = await conversation.hub.accounts.rotate(player, current, address=conversation.address)
    conversation.sign_in_as(signed.player, signed.credential)
    assert signed.token is not None
    return [TokenRotated(id=message.id, token=signed.token)]


async def recovery_codes(conversation: Conversation, message: RecoveryCodesRequest) -> Replies:
    player = conversation.signed_in_player()
    codes = await conversation.hub.sign_ins.new_recovery_codes(player)
    return [RecoveryCodes(id=message.id, codes=codes)]


def _signed_in(
    conversation: Conversation, signed: SignedIn, message_id: MessageId | None
) -> Replies:
    if conversation.player is not None and conversation.player.id != signed.player.id:
        conversation.let_go_of_credential()
    conversation.sign_in_as(signed.player, signed.credential)
    assert signed.token is not None
    return [SignedInReply(id=message_id, player=conversation.player_info(), token=signed.token)]


def _device(conversation: Conversation, given: str | None) -> str:
    return device_label(conversation.user_agent, given)


async def recover(conversation: Conversation, message: Recover) -> Replies:
    if message.lang is not None:
        conversation.language = message.lang
    signed = await conversation.hub.sign_ins.recover(
        message.code, device=_device(conversation, message.device), address=conversation.address
    )
    return _signed_in(conversation, signed, message.id)


async def passkey_options(conversation: Conversation, message: PasskeyOptions) -> Replies:
    player = conversation.signed_in_player() if message.purpose == "add" else None
    options, challenge = await conversation.hub.passkeys.options(
        message.purpose, player, conversation.origin
    )
    conversation.challenge = challenge
    return [PasskeyOptionsReply(id=message.id, purpose=message.purpose, options=options)]


async def passkey_add(conversation: Conversation, message: PasskeyAdd) -> Replies:
    player = conversation.signed_in_player()
    challenge, conversation.challenge = conversation.challenge, None  # one answer a challenge
    await conversation.hub.passkeys.add(player, message.name, message.credential, challenge)
    return [await _devices(conversation, message.id)]


async def passkey_remove(conversation: Conversation, message: PasskeyRemove) -> Replies:
    player = conversation.signed_in_player()
    await conversation.hub.passkeys.remove(player, message.passkey)
    return [await _devices(conversation, message.id)]


async def passkey_sign_in(conversation: Conversation, message: PasskeySignIn) -> Replies:
    if message.lang is not None:
        conversation.language = message.lang
    challenge, conversation.challenge = conversation.challenge, None
    signed = await conversation.hub.passkeys.sign_in(
        message.credential,
        challenge,
        device=_device(conversation, message.device),
        address=conversation.address,
    )
    return _signed_in(conversation, signed, message.id)


async def device_code(conversation: Conversation, message: DeviceCodeRequest) -> Replies:
    asked = await conversation.hub.sign_ins.start(
        device=_device(conversation, message.device), address=conversation.address
    )
    page = f"{_site(conversation)}/play"
    return [
        DeviceCode(
            id=message.id,
            device_code=asked.device_code,
            user_code=asked.user_code,
            verification_uri=page,
            verification_uri_complete=f"{page}?{urlencode({'code': asked.user_code})}",
            expires_in=asked.expires_in,
            interval=asked.interval,
        )
    ]


def _site(conversation: Conversation) -> str:
    """Where players reach this server: ``SIMON_PUBLIC_URL``, else the address the
    connection was made to."""
    return (conversation.hub.public_url or conversation.site).rstrip("/")


async def device_token(conversation: Conversation, message: DeviceToken) -> Replies:
    signed = await conversation.hub.sign_ins.poll(message.device_code, address=conversation.address)
    return _signed_in(conversation, signed, message.id)


async def device_lookup(conversation: Conversation, message: DeviceLookup) -> Replies:
    conversation.signed_in_player()
    waiting = await conversation.hub.sign_ins.waiting(message.user_code)
    left = (waiting.expires_at - conversation.hub.now()).total_seconds()
    return [
        DeviceRequest(
            id=message.id,
            user_code=waiting.user_code,
            device=waiting.label,
            created_from=waiting.created_from,
            expires_in=max(0, int(left)),
        )
    ]


async def device_approve(conversation: Conversation, message: DeviceApprove) -> Replies:
    player = conversation.signed_in_player()
    waiting = await conversation.hub.sign_ins.waiting(message.user_code)
    await conversation.hub.sign_ins.decide(player, waiting.user_code, approve=message.approve)
    return [DeviceApproved(id=message.id, user_code=waiting.user_code, approved=message.approve)]


async def delete_account(conversation: Conversation, message: DeleteAccount) -> Replies:
    player = conversation.signed_in_player()
    anonymous = await conversation.hub.accounts.delete(player, confirm=message.confirm)
    return [AccountDeleted(id=message.id, name=anonymous)]
