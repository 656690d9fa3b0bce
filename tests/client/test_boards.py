"""``simon leaderboard``, ``simon history`` and ``simon daily``: what they tell a player."""

from __future__ import annotations

import asyncio
import io
import json
import unicodedata
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from client_cli.boards import game_ids, history_table, leaderboard_table
from client_cli.config import Account, Config
from client_cli.connection import Connection
from client_cli.errors import ServerError
from client_cli.main import main
from client_cli.play import _played, start_online
from client_cli.table import OnlineTable
from server.engine import GameCode
from server.play.daily.deals import Proof, SolverProver
from server.play.fairplay.evidence import Thresholds
from server.protocol import HistoryGame, LeaderboardRow
from tests.conftest import Backend
from tests.support.players import registered
from tests.support.servers import (
    Client,
    fresh_clock,
    quick_prover,
    server_settings,
    serving,
    unique_name,
)


def test_history_at_80_columns_cuts_no_code_and_lists_the_game_ids() -> None:
    games = [
        HistoryGame(
            game="5f0c1e2d3c4b5a69788796a5b4c3d2e1",
            day="2026-03-01",
            code="SS1-S4-AAAAABD",
            suits=4,
            mode="daily",
            won=True,
            score=812,
            moves=88,
            elapsed=3725.0,
            finished_at="2026-03-01T10:00:00Z",
            review="held",
        ),
        HistoryGame(
            game="0123456789abcdef0123456789abcdef",
            code="SS1-S2-QWERTYU",
            suits=2,
            mode="practice",
            won=False,
            score=431,
            moves=69,
            elapsed=65.0,
            finished_at="2026-03-02T10:00:00Z",
            race="KQWX-ZPRT",
            place=12,
        ),
    ]
    console = Console(width=80, file=io.StringIO(), record=True)
    console.print(history_table("ann: 2 games, 1 won", games))
    console.print(game_ids(games))
    lines = console.export_text().splitlines()
    assert all(len(line) <= 80 for line in lines)
    shown = "\n".join(lines)
    for whole in ("SS1-S4-AAAAABD", "SS1-S2-QWERTYU", "race KQWX-ZPRT", "under review", "12th"):
        assert whole in shown
    assert "…" not in shown
    assert lines[-2:] == [
        "  2026-03-01 SS1-S4-AAAAABD 5f0c1e2d3c4b5a69788796a5b4c3d2e1",
        "  2026-03-02 SS1-S2-QWERTYU 0123456789abcdef0123456789abcdef",
    ]


def cells(text: str) -> int:
    """The terminal cells ``text`` takes: a wide letter two, a combining mark none."""
    return sum(
        0
        if unicodedata.category(char) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(char) in ("W", "F")
        else 1
        for char in text
    )


def test_a_leaderboard_lines_up_names_of_every_alphabet() -> None:
    # J̌ keeps its combining caron in NFC (no letter has it composed); kanji and kana are wide
    names = ["ann", "Łukasz", "Дмитрий", "Zoë", "J\u030cana", "山田たろう", "Nguyễn", "Ελένη"]
    rows = [
        LeaderboardRow(
            rank=place,
            player=name,
            score=900 - place,
            moves=60,
            elapsed=200.0,
            finished_at="2026-12-01T10:00:00Z",
            won=True,
            removed=4,
        )
        for place, name in enumerate(names, 1)
    ]
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(leaderboard_table("2026-12-01, 1 suit", rows, me="Łukasz"))
    lines = [line for line in console.export_text().splitlines() if "│" in line]
    assert [name for line, name in zip(lines, names, strict=True) if name in line] == names
    # every line takes as many cells, and its column rules stand at the same cells
    rules = {
        tuple(cells(line[:index]) for index, char in enumerate(line) if char == "│")
        for line in lines
    }
    assert len(rules) == 1 and len({cells(line) for line in lines}) == 1


@pytest.mark.parametrize(
    ("newcomers", "hours", "wait"),
    [
        (False, 24, "A review usually takes about 24 hours."),
        # a new account's result is held from the new players' board, where rank does not
        # look: the client says "held" all the same, never "no result" (issue #44)
        (True, 72, "A review usually takes about 3 days."),
    ],
)
async def test_an_empty_leaderboard_says_why_and_a_held_result_is_told_to_its_player(
    newcomers: bool,
    hours: int,
    wait: str,
    backend: Backend,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: Any,
) -> None:
    solver = SolverProver(30.0, processes=False)
    proofs: dict[str, tuple[str, ...]] = {}

    async def prover(code: str) -> Proof:
        if GameCode.parse(code).suits != 1:
            return await quick_prover(code)
        proof = await solver(code)
        proofs[code] = proof.moves
        return proof

    clock = fresh_clock()
    day = clock.now().date()
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    settings = server_settings(backend, held_review_hours=hours)
    if newcomers:
        settings = settings.model_copy(update={"fairplay": Thresholds()})
    async with serving(settings, clock=clock, prover=prover) as server:

        async def simon(*argv: str) -> tuple[int, str, str]:
            status = await asyncio.to_thread(main, [*argv, "--server", server.url])
            out, err = capsys.readouterr()
            return status, out, err

        async with Client.connect(server.url) as human:
            name = unique_name("ann")
            config = Config()
            config.add_account(server.url, Account(name, await registered(human, name)))
            config.save()

            status, out, _ = await simon("leaderboard", "--suits", "1")
            assert status == 0
            assert "No results yet: nobody has finished today's 1-suit deal" in out
            assert "simon play --daily --suits 1" in out
            later = (day + timedelta(days=1)).isoformat()
            status, out, err = await simon("leaderboard", "--day", later)
            assert status == 1 and out == "" and "has not begun" in err and later in err
            status, out, _ = await simon("leaderboard", "--day", "2000-01-01", "--suits", "2")
            assert "There was no 2-suit daily on 2000-01-01: no deal was dealt that day" in out
            assert "nobody" not in out and "new players" not in out
            status, out, _ = await simon("leaderboard", "--day", "2000-01-01", "--json")
            assert json.loads(out)["dealt"] is False
            status, out, _ = await simon("leaderboard", "--day", "2000-01-01", "--around-me")
            assert status == 0 and "There was no 1-suit daily on 2000-01-01" in out
            status, out, _ = await simon("stats", "--day", "2000-01-01", "--suits", "4")
            assert status == 0 and "There was no 4-suit daily on 2000-01-01" in out
            assert "finished" not in out
            status, out, _ = await simon("stats", "--day", "2000-01-01", "--json")
            assert json.loads(out)["dealt"] is False

            state = (await human.request({"type": "start", "suits": 1}))["state"]
            for move in proofs[state["code"]]:  # the solver's line at machine speed: held
                assert (await human.request({"type": "move", "move": move}))["type"] == "moved"
            finished = await human.pushed_event(lambda frame: frame["type"] == "finished")
            assert finished["review"] == "held"

        # one thing said: the board is empty but for yours, held, and how long that takes
        status, out, _ = await simon("leaderboard", "--suits", "1")
        said = " ".join(out.split())
        assert status == 0 and "nobody" not in out and "No results yet" not in out
        assert (
            f"No result on this board yet; yours (score {finished['score']}) is under review"
            in said
        )
        assert said.endswith(wait)
        status, out, _ = await simon("leaderboard", "--suits", "1", "--json")
        shown = json.loads(out)
        assert (shown["review"], shown["review_hours"]) == ("held", hours)
        status, out, _ = await simon("leaderboard", "--suits", "1", "--around-me")
        said = " ".join(out.split())
        assert status == 0 and "result held for review" in said and "no result" not in said
        assert "nobody" not in said and f"yours (score {finished['score']}) is under" in said
        assert said.endswith(wait)
        status, out, _ = await simon("daily", "--suits", "1")
        assert "played, under review" in out and wait in out
        if not newcomers:  # someone else's result on the board: its rows, and yours held
            async with Client.connect(server.url) as other:
                await registered(other, unique_name("bob"))
                await other.request({"type": "start", "suits": 1})
                await other.request({"type": "resign"})
            status, out, _ = await simon("leaderboard", "--suits", "1")
            said = " ".join(out.split())
            assert "bob" in out and "1 result" in said and "No result" not in said
            assert f"Your result (score {finished['score']}) is under review" in said
            assert said.endswith(wait)
        status, out, _ = await simon("leaderboard", "--suits", "1", "--board", "bots")
        assert "under review" not in out and "no bot has finished" in out
        assert json.loads((await simon("leaderboard", "--suits", "1", "--json"))[1])["dealt"]

        # the play screen cannot start it again: it says so, with the result it got
        kept = config.account(server.url)
        assert kept is not None
        async with Connection(server.url, token=kept.token) as again:
            table = OnlineTable(again)
            with pytest.raises(ServerError) as refused:
                await table.start("daily", 1)
            said = await _played(again, refused.value, 1)
        assert said.startswith("you have played today's 1-suit deal")
        assert said.endswith(f"; your result: score {finished['score']}, under review")

        # the day over: its boards are of a day that was dealt, however empty
        clock.advance(seconds=24 * 3600)
        status, out, _ = await simon("leaderboard", "--day", day.isoformat(), "--suits", "2")
        assert status == 0 and f"No results: nobody finished the 2-suit deal of {day}." in out
        status, out, _ = await simon("stats", "--day", day.isoformat(), "--suits", "2")
        assert status == 0 and "0 finished, 0 won" in out and "There was no" not in out


async def test_a_first_days_result_points_to_the_new_players_board(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    settings = server_settings(backend, fairplay=Thresholds(new_account_days=2))
    async with serving(settings, clock=fresh_clock()) as server:

        async def simon(*argv: str) -> str:
            status = await asyncio.to_thread(main, [*argv, "--server", server.url])
            out, err = capsys.readouterr()
            assert status == 0, err
            return " ".join(out.split())  # however the terminal wraps it

        config = Config()
        name, other, robo = unique_name("ann"), unique_name("bea"), unique_name("robo")
        async with Client.connect(server.url) as bot:
            token = (await bot.request({"type": "register", "name": robo, "bot": True}))["token"]
            config.add_account(server.url, Account(robo, token, bot=True))
            await bot.request({"type": "start", "suits": 1})
            await bot.request({"type": "resign"})
        async with Client.connect(server.url) as newcomer:
            config.add_account(server.url, Account(other, await registered(newcomer, other)))
        async with Client.connect(server.url) as human:
            config.add_account(server.url, Account(name, await registered(human, name)))
            await human.request({"type": "start", "suits": 2})  # started, not finished
            await human.request({"type": "start", "suits": 1})
            await human.request({"type": "resign"})
            finished = await human.pushed_event(lambda frame: frame["type"] == "finished")
        config.save()
        assert finished["board"] == "new" and finished["rank"] == 1 and "review" not in finished

        here = "is on the new players' board, where new accounts play their first days: "
        out = await simon("leaderboard", "--suits", "1")
        assert "0 results" in out and "No results yet" not in out
        mine = f"Your result (score 500, rank 1) {here}"
        assert f"{mine}simon leaderboard --suits 1 --board new" in out
        out = await simon("leaderboard", "--suits", "1", "--around-me")
        assert f"{name}: no result" in out
        assert f"{here}simon leaderboard --around-me --suits 1 --board new" in out
        out = await simon("stats", "--today", "--suits", "1")
        assert "0 finished" in out and f"{here}simon stats --today --suits 1 --board new" in out
        yours = {"yours": {"score": 500, "rank": 1}}
        assert (
            json.loads(await simon("stats", "--today", "--suits", "1", "--json"))["new_board"]
            == yours
        )
        assert (
            json.loads(await simon("leaderboard", "--suits", "1", "--json"))["new_board"] == yours
        )
        out = await simon("leaderboard", "--suits", "1", "--as", other)
        assert f"1 result {here}simon leaderboard --suits 1 --board new" in out
        found = json.loads(await simon("leaderboard", "--suits", "1", "--as", other, "--json"))
        assert found["new_board"] == {"results": 1} and found["rows"] == []
        out = await simon("leaderboard", "--suits", "1", "--board", "new")
        assert name in out and "first days" not in out  # that board itself needs no hint
        out = await simon("daily")
        assert "started: take it up with simon play --daily --suits 2" in out
        # a bot's own rank is on the bots' board, the only one it plays on
        out = await simon("leaderboard", "--around-me", "--suits", "1", "--as", robo)
        assert "· bots ·" in out and f"{robo}: rank 1 of 1" in out

        # the play screen cannot start it again: the server's code, and the result it got
        kept = config.account(server.url, name)
        assert kept is not None
        async with Connection(server.url, token=kept.token) as again:
            with pytest.raises(ServerError) as refused:
                await start_online(again, "daily", 1, None)
        assert refused.value.code == "already-played"
        assert str(refused.value).endswith(
            "; your result: score 500, rank 1 on the new players' board"
        )
