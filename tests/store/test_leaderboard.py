"""Daily leaderboards: order, keyset pages, ranks, and the rank cache against the database;
then the module's pieces alone (cursors, rows, the order the test fake shares)."""

from __future__ import annotations

import dataclasses
import logging
import random
import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest
import redis.asyncio as redis
import sqlalchemy as sa

from server.bus import InProcessBus
from server.engine import Game as EngineGame
from server.engine.actions import replay
from server.kinds import Board, DayBoard
from server.play.clock import ManualClock
from server.play.hub import Hub
from server.store import (
    BadCursor,
    GameRecord,
    InvalidRequest,
    LeaderboardEntry,
    Result,
    Store,
    StoreError,
)
from server.store.leaderboard import (
    decode_cursor,
    encode_cursor,
    leaderboard_entry,
    result_key,
)
from server.store.models import ON_LEADERBOARD, GameRow, board_params
from server.store.order import ResultKey
from server.store.ranks import RedisRankCache
from tests.support.fakes import FakeStore, fixed_prover
from tests.support.servers import NO_NEW_PLAYERS_BOARD
from tests.support.store import T0, entries, finished_daily, new_player, start, unique_day


def _table(rows: list[LeaderboardEntry]) -> list[tuple[int, str, int, float]]:
    return [(row.rank, row.player, row.score, row.elapsed) for row in rows]


async def test_order_is_score_then_elapsed_then_finish_then_id(store: Store) -> None:
    day = unique_day()
    players = {name: await new_player(store, f"{name}-{uuid.uuid4().hex[:6]}") for name in "abcdef"}
    results = {  # name: (score, elapsed, finished seconds after T0, game id)
        "a": (851, 40.0, 10, "g-a"),
        "b": (880, 90.0, 50, "g-b"),  # best score
        "c": (851, 30.0, 90, "g-c"),  # same score as a, faster
        "d": (851, 40.0, 5, "g-d"),  # same score and time as a, finished earlier
        "e": (851, 40.0, 10, "g-0"),  # same as a in everything but the id, which sorts first
        "f": (420, 1.0, 1, "g-f"),
    }
    for name, (score, elapsed, seconds, game_id) in results.items():
        await finished_daily(
            store,
            players[name],
            day,
            score=score,
            elapsed=elapsed,
            finished_at=T0 + timedelta(seconds=seconds),
            game_id=f"{game_id}-{day}",
        )
    # Another day, another suit count and unfinished games are on other boards or none.
    await finished_daily(store, players["f"], day, score=900, elapsed=1.0, finished_at=T0, suits=2)
    await finished_daily(
        store, players["f"], day + timedelta(days=1000), score=900, elapsed=1.0, finished_at=T0
    )
    board = await store.leaderboard_page(DayBoard(day, 1), limit=10)
    assert [row.player[0] for row in board.rows] == ["b", "c", "d", "e", "a", "f"]
    assert [row.rank for row in board.rows] == [1, 2, 3, 4, 5, 6]
    assert board.total == 6 and board.next is None
    top = board.rows[0]
    assert (top.score, top.moves, top.elapsed, top.won, top.removed) == (880, 20, 90.0, True, 4)
    assert top.finished_at == T0 + timedelta(seconds=50) and not top.bot


async def test_wins_come_first_then_runs_removed_then_score(store: Store) -> None:
    day = unique_day()
    results = {  # name: (score, runs removed, elapsed)
        "lost-3-runs": (650, 3, 10.0),
        "won-slowly": (801, 4, 500.0),  # any win beats any game not won
        "lost-1-run-high-score": (880, 1, 1.0),  # a score a win could have: ranks by runs
        "lost-3-runs-better": (660, 3, 99.0),
        "won-best": (820, 4, 600.0),
        "lost-3-runs-faster": (660, 3, 50.0),
    }
    for name, (score, removed, elapsed) in results.items():
        await finished_daily(
            store,
            await new_player(store, f"{name}-{uuid.uuid4().hex[:4]}"),
            day,
            score=score,
            removed=removed,
            elapsed=elapsed,
            finished_at=T0,
        )
    board = await store.leaderboard_page(DayBoard(day, 1), limit=3)
    rest = await store.leaderboard_page(DayBoard(day, 1), limit=3, after=board.next)
    names = [row.player.rsplit("-", 1)[0] for row in board.rows + rest.rows]
    assert names == [
        "won-best",
        "won-slowly",
        "lost-3-runs-faster",
        "lost-3-runs-better",
        "lost-3-runs",
        "lost-1-run-high-score",
    ]
    assert [(row.won, row.removed) for row in board.rows] == [(True, 4), (True, 4), (False, 3)]
    slowest = await store.player_by_name(rest.rows[-1].player)
    assert slowest is not None
    last = await store.rank_of(DayBoard(day, 1), player_id=slowest.id)
    assert (last.rank, last.total) == (6, 6)


async def test_bots_have_a_board_of_their_own(store: Store) -> None:
    day = unique_day()
    human = await new_player(store)
    bot = await new_player(store, bot=True)
    assert bot.bot and not human.bot
    await finished_daily(store, human, day, score=801, elapsed=100.0, finished_at=T0)
    await finished_daily(store, bot, day, score=850, elapsed=1.0, finished_at=T0)
    humans = await store.leaderboard_page(DayBoard(day, 1), limit=10)
    bots = await store.leaderboard_page(DayBoard(day, 1, "bots"), limit=10)
    assert [(row.player, row.bot) for row in humans.rows] == [(human.name, False)]
    assert [(row.player, row.bot) for row in bots.rows] == [(bot.name, True)]
    assert (humans.total, bots.total) == (1, 1)
    assert (await store.rank_of(DayBoard(day, 1), player_id=bot.id)).rank is None
    assert (await store.rank_of(DayBoard(day, 1, "bots"), player_id=bot.id)).rank == 1
    assert (await store.rank_of(DayBoard(day, 1), player_id=human.id)).rank == 1
    practice = await start(store, bot)
    assert practice.bot


async def test_unfinished_dailies_are_closed_as_they_stand(store: Store) -> None:
    day = unique_day()
    code = "SS1-S1-AAAAABD"
    game = EngineGame.from_code(code)
    # a few moves, one taken back
    actions = [game.push(next(game.legal_moves())).text() for _ in range(3)] + ["undo"]
    expected = replay(code, actions)
    players = [await new_player(store) for _ in range(3)]
    open_game = await store.start_game(
        game_id=uuid.uuid4().hex, player_id=players[0].id, mode="daily", code=code,
        suits=1, day=day, started_at=T0,
    )  # fmt: skip
    await store.append(entries(open_game, actions))
    done = await finished_daily(store, players[1], day, score=801, elapsed=5.0, finished_at=T0)
    today = await start(store, players[2], day=day + timedelta(days=1))
    next_day = day + timedelta(days=1)
    assert await store.unfinished_dailies(before=next_day) == [open_game.id]
    clock = ManualClock(datetime.combine(next_day, time(0, 5), UTC))
    hub = Hub(
        store=store,
        bus=InProcessBus(),
        clock=clock,
        secret="s",
        prover=fixed_prover(),
        thresholds=NO_NEW_PLAYERS_BOARD,
    )
    await hub.days.close_unfinished_dailies(next_day)
    record = await store.get_game(open_game.id)
    day_end = datetime.combine(next_day, time(0), UTC)
    assert record is not None and record.result == Result(
        won=False,
        resigned=False,
        moves=expected.moves,
        score=expected.score,
        removed=expected.removed_count,
        elapsed=(day_end - T0).total_seconds(),
        finished_at=day_end,
    )
    logged = await store.load_game(open_game.id)
    assert logged is not None and [e.action for e in logged.entries] == [*actions, "closed"]
    stands, still_open = await store.get_game(done.id), await store.get_game(today.id)
    assert stands is not None and stands.score == 801  # a finished result stands
    assert still_open is not None and still_open.finished_at is None  # its day is not over
    board = await store.leaderboard_page(DayBoard(day, 1), limit=10)
    assert [row.player for row in board.rows] == [players[1].name, players[0].name]
    assert await store.unfinished_dailies(before=next_day) == []
    await hub.close()


async def test_keyset_pages_cover_every_row_once(store: Store) -> None:
    day = unique_day()
    rng = random.Random(7)
    for _ in range(23):
        await finished_daily(
            store,
            await new_player(store),
            day,
            score=rng.choice([851, 860, 470]),
            elapsed=rng.choice([10.0, 20.5]),
            finished_at=T0 + timedelta(seconds=rng.randrange(3)),
        )
    whole = await store.leaderboard_page(DayBoard(day, 1), limit=100)
    pages, cursor = [], None
    while True:
        page = await store.leaderboard_page(DayBoard(day, 1), limit=5, after=cursor)
        assert page.total == 23
        pages.append(page.rows)
        cursor = page.next
        if cursor is None:
            break
    assert [len(rows) for rows in pages] == [5, 5, 5, 5, 3]
    assert _table([row for rows in pages for row in rows]) == _table(whole.rows)
    assert [row.rank for rows in pages for row in rows] == list(range(1, 24))


async def test_a_page_ending_exactly_at_the_last_row_has_no_next(store: Store) -> None:
    day = unique_day()
    for n in range(4):
        await finished_daily(
            store, await new_player(store), day, score=800 + n, elapsed=1.0, finished_at=T0
        )
    first = await store.leaderboard_page(DayBoard(day, 1), limit=2)
    second = await store.leaderboard_page(DayBoard(day, 1), limit=2, after=first.next)
    assert [row.score for row in second.rows] == [801, 800] and second.next is None
    empty = await store.leaderboard_page(DayBoard(unique_day(), 1), limit=2)
    assert (empty.rows, empty.next, empty.total) == ([], None, 0)


@pytest.mark.parametrize("cursor", ["", "garbage!", "bm90IGEgY3Vyc29y", "MXwyfDN8", "é"])
async def test_a_malformed_cursor_is_an_invalid_request(store: Store, cursor: str) -> None:
    with pytest.raises(InvalidRequest):
        await store.leaderboard_page(DayBoard(unique_day(), 1), limit=5, after=cursor)


async def test_bad_limits_are_refused(store: Store) -> None:
    with pytest.raises(InvalidRequest):
        await store.leaderboard_page(DayBoard(unique_day(), 1), limit=0)
    with pytest.raises(InvalidRequest):
        await store.rank_of(DayBoard(unique_day(), 1), player_id=1, around=-1)


async def test_rank_and_rows_around_a_player(store: Store) -> None:
    day = unique_day()
    players = [await new_player(store) for _ in range(12)]
    for n, player in enumerate(players):  # players[0] best, players[11] last
        await finished_daily(
            store, player, day, score=890 - n, elapsed=10.0, finished_at=T0 + timedelta(seconds=n)
        )
    middle = await store.rank_of(DayBoard(day, 1), player_id=players[6].id, around=2)
    assert (middle.rank, middle.total) == (7, 12)
    assert [row.rank for row in middle.around] == [5, 6, 7, 8, 9]
    assert middle.around[2].player == players[6].name
    top = await store.rank_of(DayBoard(day, 1), player_id=players[0].id, around=3)
    assert top.rank == 1 and [row.rank for row in top.around] == [1, 2, 3, 4]
    bottom = await store.rank_of(DayBoard(day, 1), player_id=players[11].id, around=3)
    assert bottom.rank == 12 and [row.rank for row in bottom.around] == [9, 10, 11, 12]
    alone = await store.rank_of(DayBoard(day, 1), player_id=players[3].id, around=0)
    assert alone.rank == 4 and [row.player for row in alone.around] == [players[3].name]
    page = await store.leaderboard_page(DayBoard(day, 1), limit=12)
    assert _table(middle.around) == _table(page.rows[4:9])


async def test_a_player_without_a_result_has_no_rank(store: Store) -> None:
    day = unique_day()
    await finished_daily(
        store, await new_player(store), day, score=851, elapsed=1.0, finished_at=T0
    )
    unfinished = await new_player(store)
    await start(store, unfinished, day=day)
    for player in (unfinished, await new_player(store)):
        result = await store.rank_of(DayBoard(day, 1), player_id=player.id)
        assert (result.rank, result.total, result.around) == (None, 1, [])


async def test_rank_cache_agrees_with_counting_rows(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Random results, some read before (warming the cache) and some after: every rank the
    store gives equals the number of better rows counted in the database, plus one."""
    caplog.set_level(logging.INFO, logger="server.store.leaderboard")
    day = unique_day()
    rng = random.Random(2026)
    players = [await new_player(store) for _ in range(40)]
    for index, player in enumerate(players):
        await finished_daily(
            store,
            player,
            day,
            score=rng.choice([900 - rng.randrange(5), 480, 501, 580, 590]),
            removed=rng.choice([4, 4, 3, 1, 0]),
            elapsed=rng.choice([3.25, 7.0, 7.000001, rng.uniform(0, 100)]),
            finished_at=T0 + timedelta(microseconds=rng.choice([0, 1, 10**6])),
        )
        if index == 15:  # warm the cache halfway: later results are added to it
            await store.rank_of(DayBoard(day, 1), player_id=players[0].id)
    async with store.engine.connect() as connection:
        rows = (
            await connection.execute(
                sa.select(
                    GameRow.player_id, GameRow.won, GameRow.removed, GameRow.score,
                    GameRow.elapsed, GameRow.finished_at, GameRow.id,
                ).where(ON_LEADERBOARD, GameRow.day == day, GameRow.suits == 1)
            )
        ).all()  # fmt: skip
    expected = {
        row.player_id: 1
        + sum(ResultKey.of(other).sort_key() < ResultKey.of(row).sort_key() for other in rows)
        for row in rows
    }
    for player in players:
        result = await store.rank_of(DayBoard(day, 1), player_id=player.id, around=0)
        assert (result.rank, result.total) == (expected[player.id], 40)
    page = await store.leaderboard_page(DayBoard(day, 1), limit=40)
    assert [row.rank for row in page.rows] == sorted(expected.values())
    # The ranks came from the cache, not from the counting fallback.
    assert not [record for record in caplog.records if "rank cache" in record.getMessage()]


async def test_ranks_are_counted_in_the_database_when_redis_is_down(store: Store) -> None:
    day = unique_day()
    players = [await new_player(store) for _ in range(7)]
    for n, player in enumerate(players):
        await finished_daily(store, player, day, score=880 - n % 3, elapsed=5.0 + n, finished_at=T0)
    # redis annotates ``retry`` as a Retry, though its connections take None for no retries
    down = redis.Redis(
        host="127.0.0.1",
        port=1,
        socket_connect_timeout=0.1,
        retry=None,  # type: ignore[arg-type]
    )
    counting = Store(store.engine, RedisRankCache(down, "unreachable"), store.log)
    try:
        for after in (None, (await store.leaderboard_page(DayBoard(day, 1), limit=3)).next):
            cached = await store.leaderboard_page(DayBoard(day, 1), limit=3, after=after)
            counted = await counting.leaderboard_page(DayBoard(day, 1), limit=3, after=after)
            assert counted == cached
        for player in players:
            cached_rank = await store.rank_of(DayBoard(day, 1), player_id=player.id, around=2)
            counted_rank = await counting.rank_of(DayBoard(day, 1), player_id=player.id, around=2)
            assert counted_rank == cached_rank
    finally:
        await down.aclose()


async def test_ranks_of_many_games_in_one_query_match_rank_of(store: Store) -> None:
    day = unique_day()
    players = [await new_player(store) for _ in range(4)]
    games = [
        await finished_daily(store, player, day, score=400 + 37 * n, elapsed=60.0, finished_at=T0)
        for n, player in enumerate(players)
    ]
    practice = await start(store, players[0], day=None)
    ranks = await store.ranks_of([game.id for game in games] + [practice.id, "no-such-game"])
    for game, player in zip(games, players, strict=True):
        single = await store.rank_of(DayBoard(day, 1), player_id=player.id, around=0)
        assert ranks[game.id] == single.rank
    assert [ranks[game.id] for game in games] == [4, 3, 2, 1]  # the best score first
    assert practice.id not in ranks and "no-such-game" not in ranks
    assert await store.ranks_of([]) == {}


# -- the module's pieces alone: cursors, rows, and the order the test fake shares ----------


RESULT = Result(
    won=True, resigned=False, moves=88, score=812, removed=4, elapsed=301.5, finished_at=T0
)


def _record(game_id: str = "g1", player_name: str = "alice") -> GameRecord:
    return GameRecord(
        id=game_id, player_id=1, player_name=player_name, mode="daily", code="SS1-S1-AAAAAAB",
        suits=1, day=T0.date(), bot=False, started_at=T0, finished_at=None, won=None,
        resigned=None, moves=None, score=None, removed=None, elapsed=None,
    )  # fmt: skip


def test_a_cursor_holds_a_rows_whole_key() -> None:
    key = result_key("g-7", RESULT)
    assert decode_cursor(encode_cursor(key)) == key
    assert key == ResultKey(True, 4, 812, 301.5, T0, "g-7")


@pytest.mark.parametrize("cursor", ["", "!!", "bm90IGEga2V5", "é", "3"])
def test_a_cursor_the_store_did_not_make_is_a_bad_cursor(cursor: str) -> None:
    with pytest.raises(BadCursor) as raised:
        decode_cursor(cursor)
    assert isinstance(raised.value, StoreError) and isinstance(raised.value, ValueError)


def test_a_result_that_cannot_be_ranked_is_an_invalid_request() -> None:
    for wrong in (
        RESULT.model_copy(update={"elapsed": -1.0}),
        RESULT.model_copy(update={"score": 2**31}),
    ):
        with pytest.raises(InvalidRequest):
            result_key("g", wrong)


def test_an_entry_reads_a_game_record_as_it_reads_a_query_row() -> None:
    finished = dataclasses.replace(_record(), **dict(RESULT))
    entry = leaderboard_entry(3, finished)
    assert (entry.rank, entry.player, entry.score, entry.moves, entry.elapsed) == (
        3, "alice", 812, 88, 301.5,
    )  # fmt: skip
    assert (entry.won, entry.removed, entry.finished_at, entry.bot) == (True, 4, T0, False)


async def test_the_fake_store_pages_and_ranks_as_the_store_does(store: Store) -> None:
    """The same results in the real store and in the tests' fake give the same pages, the
    same cursors and the same ranks: the fake imports the order, the cursors and the rows."""
    fake = FakeStore()
    day = unique_day()
    rng = random.Random(10)
    players = []
    for n in range(11):
        name = f"same-{uuid.uuid4().hex[:8]}"
        players.append(name)
        result: dict[str, Any] = {
            "score": rng.choice([851, 860, 470, 690]),
            "removed": rng.choice([4, 4, 3, 1]),
            "elapsed": rng.choice([10.0, 20.5, 0.0]),
            "finished_at": T0 + timedelta(seconds=rng.randrange(3)),
            "game_id": f"g{n:02d}-{day}",
        }
        for target in (store, fake):
            await finished_daily(target, await new_player(target, name), day, **result)
    cursors: list[str | None] = [None]
    while True:
        real = await store.leaderboard_page(DayBoard(day, 1), limit=4, after=cursors[-1])
        assert await fake.leaderboard_page(DayBoard(day, 1), limit=4, after=cursors[-1]) == real
        if real.next is None:
            break
        cursors.append(real.next)
    assert len(cursors) == 3
    for name in players:
        real_player = await store.player_by_name(name)
        fake_player = await fake.player_by_name(name)
        assert real_player is not None and fake_player is not None
        for around in (0, 2):
            assert await fake.rank_of(
                DayBoard(day, 1), player_id=fake_player.id, around=around
            ) == await store.rank_of(DayBoard(day, 1), player_id=real_player.id, around=around)
    with pytest.raises(BadCursor):
        await fake.leaderboard_page(DayBoard(day, 1), limit=4, after="3")
    await fake.close()


@pytest.mark.parametrize(
    ("kind", "bots", "new"), [("humans", False, False), ("bots", True, False), ("new", False, True)]
)
def test_a_board_is_one_filter_over_the_games_columns(kind: Board, bots: bool, new: bool) -> None:
    # the columns the leaderboard index ranges over, as they were stored before DayBoard
    board = DayBoard(date(2026, 3, 1), 2, kind)
    assert board_params(board) == {"day": board.day, "suits": 2, "bots": bots, "new": new}
