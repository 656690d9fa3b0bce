"""``simon follow``, ``following``, ``block``, ``leaderboard --friends`` and ``simon league``
against a real server: what they tell a player, and their refusals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from client_cli.config import Account, Config
from client_cli.main import main
from client_cli.social.leagues import league_code
from client_cli.table import Notice, OnlineTable
from server.protocol import FriendFinished
from tests.conftest import Backend
from tests.support.client import ScriptedConnection
from tests.support.players import registered
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name


async def _resign_daily(client: Client, suits: int = 1) -> None:
    assert (await client.request({"type": "start", "suits": suits}))["type"] == "state"
    await client.request({"type": "resign"})
    await client.pushed_event(lambda frame: frame["type"] == "finished")


def _one_line(text: str) -> str:
    return " ".join(text.split())  # however the terminal wraps it


async def test_following_and_the_friends_board(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    async with serving(server_settings(backend), clock=fresh_clock()) as server:

        async def simon(*argv: str, status: int = 0) -> tuple[str, str]:
            ran = await asyncio.to_thread(main, [*argv, "--server", server.url])
            out, err = capsys.readouterr()
            assert ran == status, (out, err)
            return _one_line(out), err

        ann, bob, cat = unique_name("ann"), unique_name("bob"), unique_name("cat")
        config = Config()
        async with (
            Client.connect(server.url) as ann_client,
            Client.connect(server.url) as bob_client,
            Client.connect(server.url) as cat_client,
        ):
            config.add_account(server.url, Account(bob, await registered(bob_client, bob)))
            config.add_account(server.url, Account(cat, await registered(cat_client, cat)))
            config.add_account(server.url, Account(ann, await registered(ann_client, ann)))
            config.save()

            out, _ = await simon("follow", bob)
            assert f"You follow {bob} now" in out and "simon leaderboard --friends" in out
            out, _ = await simon("following")
            assert f"You follow (1): {bob} since" in out and "Your followers (0)" in out
            out, _ = await simon("following", "--as", bob)
            assert f"Your followers (1): {ann} since" in out
            shown = json.loads((await simon("following", "--json"))[0])
            assert [p["name"] for p in shown["following"]] == [bob]

            # nobody finished: the board says so
            out, _ = await simon("leaderboard", "--friends")
            assert "friends · 0 results" in out and "Nobody you follow has finished" in out
            # bob finishes: ann sees that he did, not his score, until she finishes hers
            await _resign_daily(bob_client)
            out, _ = await simon("leaderboard", "--friends")
            assert f"finished: {bob} — finish yours to see their scores" in out
            assert "simon play --daily --suits 1" in out and "500" not in out
            early = json.loads((await simon("leaderboard", "--friends", "--json"))[0])
            assert early["rows"] == [] and early["finished"] == [bob]
            assert early["board"] == "friends"
            await _resign_daily(ann_client)
            out, _ = await simon("leaderboard", "--friends")
            assert ann in out and bob in out and "friends · 2 results" in out
            board = json.loads((await simon("leaderboard", "--friends", "--json"))[0])
            assert "finished" not in board
            assert sorted(row["player"] for row in board["rows"]) == sorted([ann, bob])

            # refusals: --friends with another board, yourself, nobody, blocked
            _, err = await simon("leaderboard", "--friends", "--around-me", status=2)
            assert "--friends is a board of its own" in err
            _, err = await simon("follow", ann, status=1)
            assert err == "simon: you cannot follow yourself\n"
            out, _ = await simon("follow", unique_name("nobody"), "--json", status=1)
            assert json.loads(out)["error"]["code"] == "not-found"
            out, _ = await simon("block", cat)
            assert f"{cat} is blocked" in out
            _, err = await simon("follow", ann, "--as", cat, status=1)
            assert err.startswith("simon: ") and err.count("\n") == 1
            out, _ = await simon("following")
            assert f"Blocked (1): {cat}" in out
            out, _ = await simon("unblock", cat)
            assert f"{cat} is no longer blocked" in out
            out, _ = await simon("follow", ann, "--as", cat)
            assert f"You follow {ann} now" in out
            out, _ = await simon("unfollow", bob)
            assert f"You no longer follow {bob}" in out
            out, _ = await simon("following")
            assert "You follow (0)" in out and f"Your followers (1): {cat}" in out


async def test_a_league_from_new_to_leave(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:

        async def simon(*argv: str, status: int = 0) -> tuple[str, str]:
            ran = await asyncio.to_thread(main, [*argv, "--server", server.url])
            out, err = capsys.readouterr()
            assert ran == status, (out, err)
            return _one_line(out), err

        ann, bob, cat = unique_name("ann"), unique_name("bob"), unique_name("cat")
        config = Config()
        async with (
            Client.connect(server.url) as ann_client,
            Client.connect(server.url) as bob_client,
            Client.connect(server.url) as cat_client,
        ):
            config.add_account(server.url, Account(bob, await registered(bob_client, bob)))
            config.add_account(server.url, Account(cat, await registered(cat_client, cat)))
            config.add_account(server.url, Account(ann, await registered(ann_client, ann)))
            config.save()

            out, _ = await simon("league")
            assert "You are in no league" in out
            out, _ = await simon("league", "new", "The Office")
            assert "League The Office made (1 suit): its code is" in out
            made = json.loads((await simon("league", "list", "--json"))[0])["leagues"]
            assert [(lg["name"], lg["owner"], lg["members"]) for lg in made] == [
                ("The Office", ann, 1)
            ]
            code = made[0]["code"]
            assert "Invite link: http" in out and f"play?league={code}" in out
            assert f"simon league join {code}" in out
            view = json.loads((await simon("league", "show", code, "--json"))[0])
            link = view["invite"]

            # bob joins by its code (in lower case), cat by its link
            out, _ = await simon("league", "join", code.lower(), "--as", bob)
            assert "You joined The Office" in out and f"owner {ann}" in out
            out, _ = await simon("league", "join", link, "--as", cat)
            assert "You joined The Office" in out and "3 members" in out

            # ann and bob finish; cat, who has not, sees only who did
            await _resign_daily(bob_client)
            await _resign_daily(ann_client)
            await asyncio.sleep(0.5)  # let bob's finish be first
            out, _ = await simon("league", "show", code, "--as", cat)
            assert "finished: " in out and ann in out and bob in out
            assert "finish yours to see their scores" in out
            out, _ = await simon("league", "show", code)
            assert "Today," in out and "Points" in out and "Season " in out
            assert "Members (3)" in out and "(owner)" in out and "Streak" in out
            view = json.loads((await simon("league", "show", code, "--json"))[0])
            assert sorted(row["points"] for row in view["today"]) == [1, 2]
            assert sorted(row["points"] for row in view["season"]) == [1, 2]
            out, _ = await simon("league", "show", code, "--month", "2000-01")
            assert "Season 2000-01: no points yet" in out
            _, err = await simon("league", "show", code, "--month", "2000-13", status=2)
            assert "'2000-13' is not a month: write YYYY-MM" in err

            # the owner's commands, and the others' refusals
            _, err = await simon("league", "public", code, "on", "--as", bob, status=1)
            assert err.startswith("simon: ") and "owner" in err
            out, _ = await simon("league", "public", code, "on")
            assert "is public now" in out
            out, _ = await simon("league", "public", code, "off")
            assert "is private again" in out
            out, _ = await simon("league", "remove", code, cat)
            assert f"{cat} is no longer in The Office" in out
            out, _ = await simon("league", "list", "--as", cat)
            assert "You are in no league" in out
            out, _ = await simon("league", "hand-over", code, bob)
            assert f"{bob} owns The Office now" in out
            out, _ = await simon("league", "leave", code)
            assert f"You left the league {code}" in out and "You are in no league" in out
            out, _ = await simon("league", "--as", bob)
            assert code in out and bob in out

            # clear refusals: no such league, no code at all
            out, _ = await simon("league", "show", "AAAAA-AAAAA", "--json", status=1)
            assert json.loads(out)["error"]["code"] == "no-such-league"
            _, err = await simon("league", "join", "nonsense", status=2)
            assert "'nonsense' is no league code" in err
            _, err = await simon("league", "public", code, "maybe", status=2)
            assert "give on or off" in err


def test_a_league_code_is_read_from_its_link_in_any_case() -> None:
    assert league_code(" kxr4m7m2pq ") == "KXR4M-7M2PQ"
    assert league_code("https://simon.example/play?league=kxr4m-7m2pq") == "KXR4M-7M2PQ"


async def test_a_friends_finish_is_told_on_the_play_screen() -> None:
    table = OnlineTable(ScriptedConnection([]))  # type: ignore[arg-type]
    notices: list[Notice | None] = []
    table.listener = notices.append
    table.receive(FriendFinished(name="bob", day="2026-01-02", suits=2))
    last = notices[-1]
    assert last is not None and last.text == "bob finished today's 2-suit daily."
