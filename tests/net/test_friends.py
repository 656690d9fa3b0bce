"""Friends and leagues over a real server, on both backends: following, the friends'
board (and no scores before your own daily), blocking, a league of three across two nodes
with its day's points and season table, a removed member's past points, and the limits."""

from __future__ import annotations

from typing import Any

from server.play.social import MOST_FOLLOWS
from tests.conftest import Backend
from tests.support.servers import (
    Client,
    fresh_clock,
    get_json,
    server_settings,
    serving,
    unique_name,
)


async def _register(client: Client, prefix: str) -> str:
    reply = await client.request({"type": "register", "name": unique_name(prefix)})
    return str(reply["player"]["name"])


async def _play_daily(client: Client, suits: int, moves: int = 0) -> dict[str, Any]:
    """Start today's daily and resign it (after ``moves`` first legal moves)."""
    state = (await client.request({"type": "start", "suits": suits}))["state"]
    for _ in range(moves):
        auto = await client.request({"type": "auto"})
        if auto["type"] != "moved":
            break
    return await client.request({"type": "resign"}) | {"game": state["game"]}


async def test_friends_see_each_other_on_the_friends_board_once_they_finished(
    backend: Backend,
) -> None:
    clock = fresh_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as ann,
        Client.connect(server.url) as bob,
        Client.connect(server.url) as cat,
    ):
        ann_name = await _register(ann, "ann")
        bob_name = await _register(bob, "bob")
        cat_name = await _register(cat, "cat")
        followed = await ann.request({"type": "follow", "name": bob_name.upper()})
        assert [p["name"] for p in followed["following"]] == [bob_name]
        await bob.request({"type": "follow", "name": ann_name})
        circle = await bob.request({"type": "following"})
        assert [p["name"] for p in circle["followers"]] == [ann_name]
        await _play_daily(bob, 1)
        # ann is told that bob finished, with no score
        told = await ann.pushed_event(lambda f: f["type"] == "friend_finished")
        assert told["name"] == bob_name and told["suits"] == 1 and "score" not in told
        # before her own daily: who finished, no scores
        early = await ann.request({"type": "leaderboard", "board": "friends", "suits": 1})
        assert early["rows"] == [] and early["finished"] == [bob_name]
        await _play_daily(ann, 1)
        board = await ann.request({"type": "leaderboard", "board": "friends", "suits": 1})
        assert "finished" not in board  # her own is done: the scores are shown
        assert sorted(row["player"] for row in board["rows"]) == sorted([ann_name, bob_name])
        assert [row["rank"] for row in board["rows"]] == [1, 2]
        # cat follows nobody: her board is hers alone; blocked, she may not follow ann
        await ann.request({"type": "block", "name": cat_name})
        refused = await cat.request({"type": "follow", "name": ann_name})
        assert refused["code"] == "blocked"
        nobody = await cat.request({"type": "leaderboard", "board": "friends", "suits": 1})
        assert nobody["rows"] == [] and nobody["finished"] == []
        # over HTTP there is no viewer: a friends' board is refused there
        status, body = await get_json(f"{server.http_url}/leaderboard?board=friends")
        assert status == 400 and body["error"]["code"] == "invalid-message"


async def test_a_league_of_three_across_two_nodes(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)
    clock = fresh_clock()
    async with (
        serving(settings, clock=clock) as node_a,
        serving(settings, clock=clock) as node_b,
        Client.connect(node_a.url) as owner,
        Client.connect(node_b.url) as second,
        Client.connect(node_b.url) as third,
    ):
        owner_name = await _register(owner, "own")
        second_name = await _register(second, "sec")
        third_name = await _register(third, "thi")
        league = await owner.request(
            {"type": "league_new", "name": "  Morning   club ", "suits": 2}
        )
        assert league["type"] == "league" and league["name"] == "Morning club"
        code = league["code"]
        assert league["invite"].endswith(f"/play?league={code}")
        for client in (second, third):
            joined = await client.request({"type": "league_join", "code": code.lower()})
            assert joined["type"] == "league"
        # the owner (node A) hears of a league-mate's finish on node B
        await _play_daily(second, 2, moves=3)
        told = await owner.pushed_event(lambda f: f["type"] == "friend_finished")
        assert told["name"] == second_name
        await _play_daily(third, 2)
        await _play_daily(owner, 2, moves=1)
        page = await third.request({"type": "league", "code": code})
        assert sorted(m["name"] for m in page["members"]) == sorted(
            [owner_name, second_name, third_name]
        )
        today = page["today"]
        assert [row["points"] for row in today] == [3, 2, 1]
        assert [row["place"] for row in today] == [1, 2, 3]
        season = {row["name"]: row["points"] for row in page["season"]}
        assert season == {row["name"]: row["points"] for row in today}
        assert all(m["streak"] == 1 for m in page["members"])
        # the owner removes a member: today's points are gone with them (they left today)
        removed = await owner.request({"type": "league_remove", "code": code, "name": third_name})
        assert third_name not in [m["name"] for m in removed["members"]]
        gone = await third.request({"type": "league", "code": code})
        assert gone["code"] == "no-such-league"  # no longer a member, and not public
        await owner.request({"type": "league_public", "code": code, "public": True})
        visible = await third.request({"type": "league", "code": code})
        assert visible["type"] == "league" and visible["public"] is True
        mine = await second.request({"type": "leagues"})
        assert [lg["code"] for lg in mine["leagues"]] == [code]


async def test_the_limits_on_follows_and_leagues(backend: Backend) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as player,
    ):
        name = await _register(player, "lim")
        assert (await player.request({"type": "follow", "name": name}))["code"] == (
            "invalid-message"
        )
        unknown = await player.request({"type": "follow", "name": unique_name("nobody")})
        assert unknown["code"] == "not-found"
        codes = []
        for n in range(6):
            made = await player.request({"type": "league_new", "name": f"League {n}"})
            codes.append(made.get("code") if made["type"] == "league" else made["code"])
        assert codes[-1] == "limit-reached" and "limit-reached" not in codes[:5]
        bad = await player.request({"type": "league_join", "code": "KXR4M-7M2PQ"})
        assert bad["code"] == "no-such-league"
    assert MOST_FOLLOWS == 500  # docs/protocol.md, "Friends"
