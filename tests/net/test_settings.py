"""A player's settings kept on the account (``set_settings``, docs/protocol.md "Settings"),
over a real websocket on both backends: kept beside those kept before, said in
``player.settings`` on every later sign-in, and bad input refused naming what is wrong."""

from __future__ import annotations

from typing import Any

from tests.conftest import Backend
from tests.support.servers import Client, server_settings, serving, unique_name


async def test_the_accounts_settings_are_kept_and_every_later_sign_in_has_them(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        async with Client.connect(server.url) as client:
            made = await client.request({"type": "register", "name": unique_name("set")})
            assert made["player"].get("settings") is None  # none kept yet
            first = {"type": "set_settings", "id": "s", "settings": {"four_colour": True}}
            assert await client.request(first) == {
                "type": "settings_set",
                "id": "s",
                "settings": {"four_colour": True},
            }
            # beside those kept: the others stay
            more = {"auto_place": True, "sound": False, "card_size": "large"}
            kept = await client.request({"type": "set_settings", "settings": more})
            assert kept["settings"] == {"four_colour": True, **more}
            # null puts one back to its default, left out of what is said
            back = await client.request({"type": "set_settings", "settings": {"card_size": None}})
            assert back["settings"] == {"four_colour": True, "auto_place": True, "sound": False}
            welcome = await client.request({"type": "hello"})
            assert welcome["player"]["settings"] == back["settings"]
        async with Client.connect(server.url) as other:  # another device
            signed = await other.request({"type": "auth", "token": made["token"]})
            assert signed["player"]["settings"] == back["settings"]
            changed = await other.request({"type": "set_settings", "settings": {"sound": True}})
            assert changed["settings"]["sound"] is True
        # the first device's connection changes one more: the other's change is not undone
        async with Client.connect(server.url) as first_again:
            await first_again.request({"type": "auth", "token": made["token"]})
            async with Client.connect(server.url) as second:
                await second.request({"type": "auth", "token": made["token"]})
                await second.request({"type": "set_settings", "settings": {"four_colour": False}})
            last = await first_again.request(
                {"type": "set_settings", "settings": {"card_size": "large"}}
            )
            assert last["settings"] == {
                "four_colour": False,
                "auto_place": True,
                "sound": True,
                "card_size": "large",
            }


#: Settings refused, the field an error names, and the start of its rule.
BAD: list[tuple[Any, str, str]] = [
    ({"volume": 3}, "settings.volume", "there is no such setting"),
    ({"sound": True, "theme": "dark"}, "settings.theme", "there is no such setting"),
    ({"sound": 1}, "settings.sound", "this field is true or false"),
    ({"sound": "yes"}, "settings.sound", "this field is true or false"),
    ({"auto_place": [True]}, "settings.auto_place", "this field is true or false"),
    ({"card_size": "huge"}, "settings.card_size", "this field is not one of the values"),
    ({"card_size": 2}, "settings.card_size", "this field is not one of the values"),
    ("large", "settings", "this field is an object"),
    ([], "settings", "this field is an object"),
    (None, "settings", "this field is an object"),
]


async def test_bad_settings_are_refused_naming_the_setting_and_nothing_is_kept(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        async with Client.connect(server.url) as client:
            made = await client.request({"type": "register", "name": unique_name("bad")})
            await client.request({"type": "set_settings", "settings": {"sound": False}})
            for settings, field, rule in BAD:
                refused = await client.request(
                    {"type": "set_settings", "id": 9, "settings": settings}
                )
                assert refused["type"] == "error", (settings, refused)
                assert refused["id"] == 9
                assert refused["code"] == "invalid-message"
                assert refused["detail"] == {"field": field}, (settings, refused)
                assert refused["message"].startswith(f"{field}: {rule}"), refused["message"]
            missing = await client.request({"type": "set_settings"})
            assert missing["detail"] == {"field": "settings"}
        async with Client.connect(server.url) as again:
            signed = await again.request({"type": "auth", "token": made["token"]})
            assert signed["player"]["settings"] == {"sound": False}  # as it was


async def test_settings_need_an_account_and_a_refusal_is_said_in_the_connections_language(
    backend: Backend,
) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as anonymous,
    ):
        refused = await anonymous.request({"type": "set_settings", "settings": {"sound": True}})
        assert refused["code"] == "not-authenticated"
        await anonymous.request({"type": "hello", "lang": "pl"})
        bad = await anonymous.request({"type": "set_settings", "settings": {"volume": 3}})
        assert bad["detail"] == {"field": "settings.volume"}
        assert bad["message"] == "settings.volume: nie ma takiego ustawienia"
