"""The session's answers to ``register``, ``auth``, ``hello`` and ``ping``
(server/play/session/account_handlers.py): accounts made, signed in again, refused."""

from __future__ import annotations

import pytest

from server.play.hub import Hub
from server.protocol import PROTOCOL_VERSION, Auth, ErrorCode, encode_reply
from tests.play.talk import Talk, signed_in


async def test_register_then_authenticate_on_another_session(hub: Hub) -> None:
    alice = Talk(hub)
    registered = await alice.one(type="register", name="Alice", id=1)
    assert registered["id"] == 1 and registered["player"]["name"] == "Alice"
    other = Talk(hub)
    authenticated = await other.one(type="auth", token=registered["token"], id="x")
    assert authenticated == {
        "type": "authenticated",
        "id": "x",
        "player": registered["player"],
    }


@pytest.mark.parametrize(
    ("name", "code"),
    [("a", "bad-name"), ("x" * 25, "bad-name"), ("bad name", "bad-name"), ("ALICE", "name-taken")],
)
async def test_bad_or_taken_names_are_refused(hub: Hub, name: str, code: str) -> None:
    await signed_in(hub, "alice")
    reply = await Talk(hub).one(type="register", name=name, id=5)
    assert reply["type"] == "error" and reply["code"] == code and reply["id"] == 5


async def test_a_wrong_token_is_refused(hub: Hub) -> None:
    reply = await Talk(hub).one(type="auth", token="nope")
    assert reply["code"] == ErrorCode.BAD_TOKEN


async def test_a_sign_in_says_whether_it_signed_in_or_named_no_account(hub: Hub) -> None:
    registered = await Talk(hub).one(type="register", name="Alice")
    bob = await signed_in(hub, "Bob")
    session = Talk(hub).session
    wrong = await session.sign_in(Auth(type="auth", token="nope"))
    assert (wrong.signed_in, wrong.bad_token) == (False, True)
    assert wrong.replies[0].code == ErrorCode.BAD_TOKEN  # type: ignore[union-attr]
    right = await session.sign_in(Auth(type="auth", token=registered["token"]))
    assert (right.signed_in, right.bad_token) == (True, False) and session.player is not None
    # refused for another reason than the token: no failed sign-in
    other = await bob.session.sign_in(Auth(type="auth", id=3, token=registered["token"]))
    assert (other.signed_in, other.bad_token) == (True, False)
    assert encode_reply(other.replies[0]).startswith('{"type":"error","id":3')


async def test_a_hello_of_another_version_is_refused_and_of_ours_welcomed(hub: Hub) -> None:
    talk = await signed_in(hub, "Hal")
    refused = await talk.one(type="hello", version=PROTOCOL_VERSION + 1, id=2)
    assert (refused["code"], refused["id"]) == (ErrorCode.UNSUPPORTED_VERSION, 2)
    welcome = await talk.one(type="hello", id=3)
    assert (welcome["type"], welcome["id"], welcome["version"]) == ("welcome", 3, PROTOCOL_VERSION)
    assert welcome["player"]["name"] == "Hal"  # the account this connection is signed in as
    assert welcome["review_hours"] == hub.held_review_hours == 24  # what a held player is told


async def test_a_ping_is_answered_with_the_servers_time(hub: Hub) -> None:
    pong = await Talk(hub).one(type="ping", id="p")
    assert (pong["type"], pong["id"]) == ("pong", "p")
    assert pong["server_time"] == hub.now().isoformat()
