"""Fair-play screening of finished dailies (server/play/fairplay/screening.py) on the fake
store: held or placed, on which board, with what evidence; once per game."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from server.engine import SUIT_COUNTS, Game
from server.play.clock import ManualClock
from server.play.daily.deals import DailySchedule
from server.play.fairplay.evidence import Thresholds
from server.play.fairplay.screening import ACCOUNT_REASON, FLAGGED_REASON, Screening, daily_of
from server.store import (
    CLEARED,
    CONFIRMED,
    HELD,
    PASSED,
    QUEUED,
    RESIGN,
    GameRecord,
    LogEntry,
    PlayerRecord,
    Result,
    ReviewStatus,
    TrustRecord,
)
from tests.support.fakes import FakeStore, fixed_prover
from tests.support.servers import HOLD_EVERYTHING, HOLD_NOTHING, NO_NEW_PLAYERS_BOARD
from tests.support.store import finished_daily, millis, new_player, start

DAY = date(2026, 3, 1)  # the conftest's clock: 10:00 of this day
PAR = 40
#: The deals' solver line: moves the games below never play, so they agree with it nowhere.
SOLVER_LINE = ("9-10x1", "8-9x1", "7-8x1")
#: A board's leaders join the review queue: only results behind three better ones pass plain.
LEADERS = 3
#: The new players' board on: two earlier days, and think times that follow difficulty.
NEW_PLAYERS_BOARD = Thresholds(new_account_days=2, new_account_follow_z=3.0)


def moves(count: int) -> list[str]:
    """The first ``count`` legal moves of the 1-suit test deal, each the engine's first
    (after two of them, back and forth): never the solver's line."""
    game = Game.from_code("SS1-S1-AAAAAAB")
    played = []
    for _ in range(count):
        played.append(next(game.legal_moves()).text())
        game.play(played[-1])
    return played


@pytest.fixture
async def store() -> AsyncIterator[FakeStore]:
    store = FakeStore()
    for day in (DAY - timedelta(days=2), DAY - timedelta(days=1), DAY):
        for suits in SUIT_COUNTS:
            await store.put_daily_deal(
                day=day, suits=suits, code=f"SS1-S{suits}-AAAAAAB", par=PAR, solution=SOLVER_LINE
            )
    yield store
    await store.close()


@pytest.fixture
async def screening(store: FakeStore, clock: ManualClock) -> AsyncIterator[Screening]:
    daily = DailySchedule(store, secret="s", prover=fixed_prover(par=PAR))
    yield Screening(store=store, daily=daily, clock=clock, thresholds=NO_NEW_PLAYERS_BOARD)
    await daily.close()


async def played(
    store: FakeStore,
    player: PlayerRecord,
    actions: list[str],
    *,
    think: float = 5.0,
    day: date = DAY,
    suits: int = 1,
    practice: bool = False,
) -> GameRecord:
    """A daily (or practice game) of ``player`` that played ``actions``, ``think`` seconds
    apart from its start at 9:00 of ``day``, then resigned: its record."""
    started = datetime(day.year, day.month, day.day, 9, tzinfo=UTC)
    game = await start(
        store, player, day=None if practice else day, suits=suits, started_at=started
    )
    at = [started + timedelta(seconds=think * n) for n in range(1, len(actions) + 1)] or [started]
    log = [
        LogEntry(game.id, seq, action, millis(when))
        for seq, (action, when) in enumerate(zip(actions, at, strict=False), 1)
    ]
    log.append(LogEntry(game.id, len(log) + 1, RESIGN, millis(at[-1])))
    result = Result(
        won=False,
        resigned=True,
        moves=len(actions),
        score=500 - len(actions),
        removed=0,
        elapsed=(at[-1] - started).total_seconds(),
        finished_at=at[-1],
    )
    await store.append(log, result)
    record = await store.get_game(game.id)
    assert record is not None and record.finished_at is not None
    return record


async def earlier_day(
    store: FakeStore, player: PlayerRecord, days_ago: int, evidence: dict[str, Any] | None = None
) -> GameRecord:
    """A daily of ``player`` finished ``days_ago`` before :data:`DAY`, screened and passed
    with ``evidence``."""
    day = DAY - timedelta(days=days_ago)
    game = await finished_daily(
        store,
        player,
        day,
        score=600,
        elapsed=300.0,
        finished_at=datetime(day.year, day.month, day.day, 12, tzinfo=UTC),
    )
    passed = store.screenings[game.id]
    store.screenings[game.id] = dataclasses.replace(passed, evidence=evidence or {})
    return game


async def others(store: FakeStore, count: int, *, score: int = 700, day: date = DAY) -> None:
    """``count`` other players' passed results of ``day``: won, better than any
    :func:`played`, with the default ``score``; resigned, with a score of 500 or less."""
    for _ in range(count):
        await finished_daily(
            store,
            await new_player(store),
            day,
            score=score,
            elapsed=300.0,
            finished_at=datetime(day.year, day.month, day.day, 8, tzinfo=UTC),
        )


def flag(store: FakeStore, player: PlayerRecord) -> None:
    """A review confirmed machine play on ``player``'s account."""
    record, token_hash = store.players[player.id]
    store.players[player.id] = (dataclasses.replace(record, flagged=True), token_hash)


# -- held or placed ---------------------------------------------------------------------------


async def test_a_daily_played_on_its_own_line_is_placed_and_queued_as_a_leader(
    store: FakeStore, screening: Screening, clock: ManualClock
) -> None:
    player = await new_player(store)
    game = await played(store, player, moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status == PASSED and screened.reasons == []
    assert store.screenings[game.id].status == QUEUED  # then queued: the top of its board
    assert screened.screened_at == clock.now()
    found = screened.evidence
    assert found["decisions"] == 4 and found["moves"] == 3  # three moves, then the resign
    assert found["agreement"] == 0.0 and found["median_think"] == 5.0
    assert (found["rank"], found["board_results"], found["percentile"]) == (1, 1, None)
    placed = await store.get_game(game.id)
    assert placed is not None and not placed.held and not placed.newcomer
    assert store.ranked == [(game.id, game.result)]  # ranked again, now on the board
    assert not await screening.held(game.id)


async def test_a_result_behind_the_leaders_passes_without_joining_the_queue(
    store: FakeStore, screening: Screening
) -> None:
    await others(store, LEADERS)
    game = await played(store, await new_player(store), moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status == PASSED
    assert (screened.evidence["rank"], screened.evidence["board_results"]) == (4, 4)


async def test_the_percentile_is_given_on_a_board_of_ten(
    store: FakeStore, screening: Screening
) -> None:
    await others(store, 9)
    game = await played(store, await new_player(store), moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None
    assert (screened.evidence["rank"], screened.evidence["percentile"]) == (10, 0.0)


async def test_replaying_the_solvers_line_is_held_off_the_board(
    store: FakeStore, screening: Screening
) -> None:
    game = await played(store, await new_player(store), list(SOLVER_LINE))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status == HELD
    assert screened.reasons == ["replays 100% of the solver's line"]
    assert screened.evidence["agreement"] == 1.0
    held = await store.get_game(game.id)
    assert held is not None and held.held
    assert store.ranked == []  # never put on a board
    assert store.screenings[game.id].status == HELD  # nor queued as a leader
    assert await screening.held(game.id)


async def test_the_screenings_thresholds_decide_on_machine_timing(
    store: FakeStore, screening: Screening
) -> None:
    machine = await played(store, await new_player(store), moves(12), think=0.2)
    screened = await screening.screen(machine.id)
    assert screened is not None and screened.status == HELD
    assert "median think time 0.20 s" in screened.reasons
    assert "12 moves in 2.4 s" in screened.reasons  # the resign came with the last move
    screening.thresholds = HOLD_NOTHING
    lenient = await played(store, await new_player(store), moves(12), think=0.2)
    passed = await screening.screen(lenient.id)
    assert passed is not None and passed.status != HELD and passed.reasons == []


async def test_a_clean_daily_of_an_account_confirmed_before_is_held(
    store: FakeStore, screening: Screening
) -> None:
    player = await new_player(store)
    flag(store, player)
    game = await played(store, player, moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status == HELD
    assert screened.reasons == [FLAGGED_REASON]


async def test_a_daily_is_screened_once(
    store: FakeStore, screening: Screening, clock: ManualClock
) -> None:
    player = await new_player(store)
    game = await played(store, player, moves(3))
    first = await screening.screen(game.id)
    assert first is not None and first.status == PASSED
    trust = store.trusts[player.id]
    screening.thresholds = HOLD_EVERYTHING
    clock.advance(seconds=60)
    again = await screening.screen(game.id)
    assert again == store.screenings[game.id]  # as stored: queued since, as a leader
    assert again == dataclasses.replace(first, status=QUEUED)
    assert store.trusts[player.id] == trust  # nothing weighed again
    assert len(store.ranked) == 1


async def test_practice_bots_and_unfinished_games_are_not_screened(
    store: FakeStore, screening: Screening
) -> None:
    practice = await played(store, await new_player(store), moves(3), practice=True)
    bot = await played(store, await new_player(store, bot=True), list(SOLVER_LINE))
    unfinished = await start(store, await new_player(store), day=DAY)
    for game_id in (practice.id, bot.id, unfinished.id, "no-such-game"):
        assert await screening.screen(game_id) is None
    assert store.screenings == {} and store.trusts == {}


# -- the board: the new players' one or the public one ----------------------------------------


async def test_an_account_short_of_earlier_days_is_placed_on_the_new_players_board(
    store: FakeStore, screening: Screening, clock: ManualClock
) -> None:
    screening.thresholds = dataclasses.replace(NEW_PLAYERS_BOARD, new_account_follow_z=0.0)
    newcomer = await new_player(store)
    await earlier_day(store, newcomer, 1)
    await played(store, newcomer, moves(2), suits=2)  # the same day counts for nothing
    game = await played(store, newcomer, moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status == PASSED
    assert store.screenings[game.id].status == QUEUED  # the new players' board's leader
    placed = await store.get_game(game.id)
    assert placed is not None and placed.newcomer and not placed.held
    # dailies on two days now (yesterday and today): tomorrow's counts on the public board
    assert await screening.placed(game.id, newcomer.id) == (True, DAY + timedelta(days=1))

    regular = await new_player(store)
    for days_ago in (1, 2):
        await earlier_day(store, regular, days_ago)
    game = await played(store, regular, moves(3))
    assert await screening.screen(game.id) is not None
    public = await store.get_game(game.id)
    assert public is not None and not public.newcomer
    assert await screening.placed(game.id, regular.id) == (False, None)
    assert await screening.placed("no-such-game", regular.id) == (False, None)


@pytest.mark.parametrize(
    ("think_follow", "newcomer"),
    [(None, True), (0.6, False)],
    ids=["not-measured", "follows-difficulty"],
)
async def test_days_enough_graduate_only_once_think_times_follow_difficulty(
    store: FakeStore, screening: Screening, think_follow: float | None, newcomer: bool
) -> None:
    screening.thresholds = NEW_PLAYERS_BOARD
    player = await new_player(store)
    shown = {} if think_follow is None else {"think_follow": think_follow, "follow_moves": 100}
    for days_ago in (1, 2):
        await earlier_day(store, player, days_ago, shown)
    game = await played(store, player, moves(3))
    assert await screening.screen(game.id) is not None
    placed = await store.get_game(game.id)
    assert placed is not None and placed.newcomer is newcomer


# -- the account's evidence across days --------------------------------------------------------

#: Two earlier days' think times that ignore difficulty over twice ``follow_moves`` moves: a
#: signal that weighs as much as the threshold alone.
IGNORES_DIFFICULTY = {"think_follow": 0.0, "follow_moves": 200}


async def test_a_suspect_account_has_its_top_result_held(
    store: FakeStore, screening: Screening, clock: ManualClock
) -> None:
    player = await new_player(store)
    for days_ago in (1, 2):
        await earlier_day(store, player, days_ago, IGNORES_DIFFICULTY)
    game = await played(store, player, moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status == HELD
    [reason] = screened.reasons
    assert reason.startswith(f"{ACCOUNT_REASON}: think times do not follow difficulty")
    trust = store.trusts[player.id]
    assert trust.suspicion == 1.0 and trust.updated_at == clock.now()
    assert trust.evidence["signals"] == ["ignores difficulty, long"]


async def test_a_suspect_accounts_result_below_the_top_stands(
    store: FakeStore, screening: Screening
) -> None:
    screening.thresholds = dataclasses.replace(NO_NEW_PLAYERS_BOARD, top_rank=1, top_share=0.99)
    player = await new_player(store)
    for days_ago in (1, 2):
        await earlier_day(store, player, days_ago, IGNORES_DIFFICULTY)
    await others(store, 1)
    game = await played(store, player, moves(3))
    screened = await screening.screen(game.id)
    assert screened is not None and screened.status != HELD and screened.reasons == []
    assert store.trusts[player.id].suspicion == 1.0  # weighed all the same


async def test_past_days_weigh_where_they_ended_and_todays_where_they_stand(
    store: FakeStore, screening: Screening
) -> None:
    player = await new_player(store)
    yesterday = DAY - timedelta(days=1)
    await earlier_day(store, player, 1, {"percentile": 0.1234})  # won; since then: first of ten
    await others(store, 9, score=500, day=yesterday)
    other_suits = await played(store, player, moves(2), suits=2)
    await store.record_screening(
        game_id=other_suits.id,
        held=False,
        reasons=[],
        evidence={"percentile": 0.5},
        at=other_suits.started_at,
    )
    game = await played(store, player, moves(3))
    assert await screening.screen(game.id) is not None
    assert store.trusts[player.id].evidence["percentiles"] == [
        [yesterday.isoformat(), 1.0],
        [DAY.isoformat(), 0.5],
        [DAY.isoformat(), None],  # the one screened now: a board of one
    ]


# -- held, counts_from, catch_up, queue_leaders_of ---------------------------------------------


async def test_held_until_screened(store: FakeStore, screening: Screening) -> None:
    game = await played(store, await new_player(store), moves(3))
    assert await screening.held(game.id)
    assert await screening.held("no-such-game")
    await screening.screen(game.id)
    assert not await screening.held(game.id)


@pytest.mark.parametrize(
    ("status", "held"),
    [(PASSED, False), (QUEUED, False), (CLEARED, False), (HELD, True), (CONFIRMED, True)],
)
async def test_held_follows_the_reviews_word(
    store: FakeStore, screening: Screening, status: ReviewStatus, held: bool
) -> None:
    game = await played(store, await new_player(store), moves(3))
    await screening.screen(game.id)
    store.screenings[game.id] = dataclasses.replace(store.screenings[game.id], status=status)
    assert await screening.held(game.id) is held


async def test_counts_from_tells_the_first_day_on_the_public_board(
    store: FakeStore, screening: Screening, clock: ManualClock
) -> None:
    screening.thresholds = NEW_PLAYERS_BOARD
    fresh = await new_player(store)
    assert await screening.counts_from(fresh) == DAY + timedelta(days=2)
    await played(store, fresh, moves(3))  # today's done: tomorrow and the day after
    assert await screening.counts_from(fresh) == DAY + timedelta(days=2)
    assert await screening.counts_from(await new_player(store, bot=True)) is None

    seasoned = await new_player(store)
    for days_ago in (1, 2):
        await earlier_day(store, seasoned, days_ago)
    # days enough, and the think times yet to show: at the earliest with the next daily
    assert await screening.counts_from(seasoned) == DAY
    await played(store, seasoned, moves(3))
    assert await screening.counts_from(seasoned) == DAY + timedelta(days=1)
    await store.put_trust(TrustRecord(seasoned.id, 0.0, [], {"follow_z": 3.5}, clock.now()))
    assert await screening.counts_from(seasoned) is None

    screening.thresholds = NO_NEW_PLAYERS_BOARD
    assert await screening.counts_from(fresh) is None


async def test_catch_up_screens_the_finished_dailies_left_unscreened(
    store: FakeStore, screening: Screening
) -> None:
    left = [await played(store, await new_player(store), moves(3)) for _ in range(2)]
    done = await played(store, await new_player(store), moves(3))
    await screening.screen(done.id)
    await start(store, await new_player(store), day=DAY)  # still being played
    await played(store, await new_player(store), moves(3), practice=True)
    assert await screening.catch_up() == 2
    assert set(store.screenings) == {done.id, *(game.id for game in left)}
    assert await screening.catch_up() == 0


async def test_the_days_end_queues_the_top_three_of_every_human_board(
    store: FakeStore, screening: Screening
) -> None:
    await others(store, 5)  # passed, never queued
    newcomer = await played(store, await new_player(store), moves(3))
    await store.record_screening(
        game_id=newcomer.id,
        held=False,
        reasons=[],
        evidence={},
        at=newcomer.started_at,
        newcomer=True,
    )
    ahead = {g.id for g in store.games.values() if g.id != newcomer.id}
    queued = await screening.queue_leaders_of(DAY)
    assert len(queued) == LEADERS + 1 and newcomer.id in queued
    assert set(queued) - {newcomer.id} <= ahead
    assert all(store.screenings[game_id].status == QUEUED for game_id in queued)
    assert await screening.queue_leaders_of(DAY) == []  # queued once


# -- one screened daily as the account's evidence reads it -------------------------------------


def a_daily(*, won: bool, day: date = DAY) -> GameRecord:
    return GameRecord(
        id="g",
        player_id=1,
        player_name="p",
        mode="daily",
        code="SS1-S2-AAAAAAB",
        suits=2,
        day=day,
        bot=False,
        started_at=datetime(2026, 3, 1, tzinfo=UTC),
        finished_at=None,
        won=won,
        resigned=not won,
        moves=None,
        score=None,
        removed=None,
        elapsed=None,
    )


def test_daily_of_reads_a_wins_moves_against_par_and_its_loops() -> None:
    found = {
        "moves_over_par": 10,
        "net_over_par": 4,
        "final_moves": 50,
        "net_moves": 44,
        "moves": 60,
        "undos": 3,
        "restarts": 1,
        "think_follow": 0.2,
        "follow_moves": 40,
    }
    daily = daily_of(a_daily(won=True), found, 0.75, PAR)
    assert (daily.day, daily.suits, daily.won, daily.percentile) == (DAY, 2, True, 0.75)
    assert daily.over_par == 10 / PAR and daily.net_over_par == 4 / PAR
    assert daily.loop_share == 6 / 50
    assert (daily.moves, daily.undos, daily.restarts) == (60, 3, 1)
    assert (daily.think_follow, daily.follow_moves) == (0.2, 40)


def test_daily_of_leaves_out_what_it_cannot_tell() -> None:
    lost = daily_of(a_daily(won=False), {"moves_over_par": 10, "net_over_par": 4}, None, PAR)
    assert lost.over_par is None and lost.net_over_par is None  # par measures wins only
    unknown_par = daily_of(a_daily(won=True), {"moves_over_par": 10}, None, None)
    assert unknown_par.over_par is None and unknown_par.net_over_par is None
    # screened before loops were cut: the line as played, and no loop share
    older = daily_of(a_daily(won=True), {"moves_over_par": 8, "final_moves": 48}, None, PAR)
    assert older.net_over_par == older.over_par == 8 / PAR and older.loop_share is None
    empty = daily_of(a_daily(won=False), {}, None, PAR)
    assert (empty.moves, empty.undos, empty.think_follow, empty.loop_share) == (0, 0, None, None)
