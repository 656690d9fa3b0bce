"""After the daily, on both databases: a day's statistics, percentile, streaks across days,
the share text, who may see a replay, reports, and reviews against the solver."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time, timedelta

import pytest

from server.bus import BusUnavailable, InProcessBus
from server.engine import Game as EngineGame
from server.engine import Move
from server.play.after.judging import POSITION_NODES
from server.play.after.review import Reviews
from server.play.clock import ManualClock
from server.play.daily.deals import Proof, Prover, SolverProver
from server.play.errors import refusal_of
from server.play.games.player_game import PlayerGame
from server.play.hub import Hub
from server.protocol import ErrorCode, Review
from server.solver import solve
from server.store import (
    WON,
    GameRecord,
    InvalidRequest,
    PlayerRecord,
    RaceStore,
    Result,
    RoomOptions,
    Store,
    StoreError,
    name_key,
)
from tests.store.test_races import next_code
from tests.support.servers import NO_NEW_PLAYERS_BOARD
from tests.support.store import T0, entries, finish, finished_daily, new_player, unique_day

WON_CODE = "SS1-S1-AAAAABD"


@pytest.fixture
async def day_clock() -> ManualClock:
    """Noon of a day no other test of the module plays."""
    return ManualClock(datetime.combine(unique_day(), time(12), UTC))


@pytest.fixture
async def hub(store: Store, day_clock: ManualClock) -> AsyncIterator[Hub]:
    hub = Hub(
        store=store,
        bus=InProcessBus(),
        clock=day_clock,
        secret=f"s-{uuid.uuid4().hex}",
        prover=roomy_prover(par=40),
        reviewers=frozenset({name_key("Rev-Iewer")}),
        review_seconds=20.0,
        review_worker=SolverProver(20.0, processes=False),
        thresholds=NO_NEW_PLAYERS_BOARD,
    )
    yield hub
    await hub.close()


async def _refused(code: ErrorCode, call: object) -> None:
    """``call`` fails with what a client is told as ``code``."""
    with pytest.raises(Exception) as failed:
        await call  # type: ignore[misc]
    refused = refusal_of(failed.value)
    assert refused is not None and refused.code is code, failed.value


#: The most moves in a row a test here plays on its daily.
MOST_MOVES = 4


def roomy_prover(par: int) -> Prover:
    """A quick stand-in for the solver that takes only deals with room for ``MOST_MOVES``
    moves in a row: on some deals the first legal move leads where none is left."""

    async def prove(code: str) -> Proof:
        try:
            a_move_with(EngineGame.from_code(code), more=MOST_MOVES - 1)
        except AssertionError:
            return Proof(False)
        return Proof(True, par)

    return prove


def a_move_with(engine: EngineGame, *, more: int) -> Move:
    """A legal move after which ``more`` moves can still be played (the test prover takes
    any deal: a first legal move may lead where none is left)."""
    for move in list(engine.legal_moves()):
        if more == 0:
            return move
        engine.push(move)
        try:
            a_move_with(engine, more=more - 1)
            return move
        except AssertionError:
            continue
        finally:
            engine.undo()
    raise AssertionError(f"no {more + 1} moves in a row from this position")


async def play_daily(
    hub: Hub, clock: ManualClock, player: PlayerRecord, *, moves: int = 0, suits: int = 1
) -> PlayerGame:
    """``player``'s daily of the clock's day: a few moves, then resigned and screened."""
    assert moves <= MOST_MOVES  # what the hub's prover leaves room for
    game = await hub.starts.daily(player, suits)
    for left in range(moves, 0, -1):
        await game.play(a_move_with(game.engine, more=left - 1), clock.now())
    clock.advance(seconds=30)
    await game.play("resign", clock.now())
    await hub.endings.screen(game)
    return game


async def resigned_records(
    hub: Hub, store: Store, player: PlayerRecord, count: int
) -> list[GameRecord]:
    """``count`` practice games of ``WON_CODE`` (a deal the solver wins at once), each
    resigned at once, as the store has them."""
    records = []
    for _ in range(count):
        game = await hub.starts.practice(player, WON_CODE, 1)
        await game.play("resign", hub.now())
        record = await store.get_game(game.id)
        assert record is not None
        records.append(record)
    return records


async def held_daily(store: Store, player: PlayerRecord, day: date, at: datetime) -> str:
    """A won daily of ``player`` held for fair-play review: on no board."""
    game = await store.start_game(
        game_id=uuid.uuid4().hex, player_id=player.id, mode="daily", code=WON_CODE, suits=1,
        day=day, started_at=at,
    )  # fmt: skip
    result = Result(
        won=True, resigned=False, moves=10, score=890, removed=8, elapsed=5.0, finished_at=at
    )
    await store.append(entries(game, ["1-2", WON], at=at), result)
    await store.record_screening(game_id=game.id, held=True, reasons=["x"], evidence={}, at=at)
    return game.id


async def test_day_stats_count_the_board_bin_winners_and_hide_par_until_the_day_is_over(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    day = unique_day()
    players = [await new_player(store) for _ in range(7)]
    at = datetime.combine(day, time(13), UTC)
    # four winners (moves = 900 - score), three not won
    for player, score, elapsed in zip(
        players[:4], (860, 850, 849, 800), (100.0, 200.0, 300.0, 400.0), strict=True
    ):
        await finished_daily(store, player, day, score=score, elapsed=elapsed, finished_at=at)
    for player, removed in zip(players[4:], (0, 2, 2), strict=True):
        await finished_daily(
            store, player, day, score=400, elapsed=50.0, finished_at=at, removed=removed
        )
    await held_daily(store, await new_player(store), day, at)  # held: not counted
    await store.put_daily_deal(day=day, suits=1, code=WON_CODE, par=37)
    day_clock.set(datetime.combine(day, time(20), UTC))
    stats = await hub.after.day_stats(day=day, suits=1, board="humans", player=players[1])
    assert (stats.finished, stats.won) == (7, 4)
    assert stats.par is None  # the day is not over
    # 40, 50, 51 and 100 moves: 16 bins of 4 moves, from 40
    assert stats.bin_width == 4 and len(stats.moves_histogram) == 16
    assert {b.moves: b.count for b in stats.moves_histogram if b.count} == {40: 1, 48: 2, 100: 1}
    assert stats.time_quartiles == [100.0, 200.0, 300.0]
    assert [(r.removed, r.count) for r in stats.not_won] == [(0, 1), (2, 2)]
    assert stats.you is not None and stats.you.player == players[1].name
    assert stats.you.moves == 50 and stats.you.won
    assert (stats.you.rank, stats.you.percentile) == (2, 85.7)  # beats or ties 6 of 7
    day_clock.set(datetime.combine(day + timedelta(days=1), time(1), UTC))
    after = await hub.after.day_stats(day=day, suits=1, board="humans", player=None)
    assert after.par == 37 and after.you is None
    await _refused(
        ErrorCode.NOT_FOUND,
        hub.after.day_stats(day=day + timedelta(days=9), suits=1, board="humans"),
    )


async def test_percentile_streak_and_share_in_finished_across_days(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    first_day = day_clock.now().date()
    alice = await new_player(store)
    others = [await new_player(store) for _ in range(3)]
    for other in others:  # three results ahead of alice's (they removed runs)
        await finished_daily(
            store, other, first_day, score=700, elapsed=20.0, finished_at=day_clock.now(),
            removed=2,
        )  # fmt: skip
    game = await play_daily(hub, day_clock, alice, moves=2)
    finished = await hub.endings.finished_message(game)
    assert finished.rank == 4 and finished.percentile == 25.0
    assert finished.streak is not None and (finished.streak.current, finished.streak.best) == (1, 1)
    share = finished.share
    assert share is not None and "top 100%" in share and first_day.isoformat() in share
    assert game.code not in share
    without_day = share.replace(first_day.isoformat(), "")
    assert re.search(r"\b\d{1,2}-\d{1,2}(x\d+)?\b", without_day) is None  # no move
    assert re.search(r"\b(10|[2-9TJQKA])[SHDC]\b", share) is None  # no card
    assert share.endswith(f"/day/{first_day.isoformat()}?suits=1")
    # the next two days: a streak of 3; then a day missed: the streak is over, the best stays
    for _ in range(2):
        day_clock.advance(days=1)
        game = await play_daily(hub, day_clock, alice)
    finished = await hub.endings.finished_message(game)
    assert finished.streak is not None and (finished.streak.current, finished.streak.best) == (3, 3)
    assert finished.share is not None and "3 days in a row" in finished.share
    day_clock.advance(days=1)  # today not played yet: the streak still stands
    history = await hub.queries.history(alice, 10)
    assert history.streak is not None and history.streak.current == 3
    day_clock.advance(days=1)
    history = await hub.queries.history(alice, 10)
    assert history.streak is not None and (history.streak.current, history.streak.best) == (0, 3)
    await play_daily(hub, day_clock, alice, suits=2)  # any suit count counts
    streak = await hub.endings.streak(alice.id)
    assert streak is not None and (streak.current, streak.best) == (1, 3)


async def test_replays_are_the_owners_until_the_day_closes_then_everyones_unless_held(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    owner, stranger = await new_player(store), await new_player(store)
    reviewer = await new_player(store, f"Rev-Iewer{uuid.uuid4().hex[:4]}")
    hub.after.reviewers = frozenset({name_key(reviewer.name)})
    game = await play_daily(hub, day_clock, owner, moves=3)
    replay = await hub.after.replay(owner, game.id)
    assert [step.seq for step in replay.moves] == [1, 2, 3, 4]
    assert replay.moves[-1].action == "resign" and replay.code == game.code
    assert all(step.at > 0 for step in replay.moves)
    for asker in (stranger, None, reviewer):  # nobody else before the day closes
        await _refused(ErrorCode.NOT_VISIBLE, hub.after.replay(asker, game.id))
    await _refused(ErrorCode.NOT_FOUND, hub.after.replay(owner, "no-such-game"))
    day_clock.advance(days=1)
    assert (await hub.after.replay(None, game.id)).game == game.id
    assert (await hub.after.replay(stranger, game.id)).player == owner.name
    # a held result: its owner and the reviewers only, even after the day
    cheat = await new_player(store)
    day_clock.advance(days=-1)
    held = await hub.starts.daily(cheat, 2)
    await held.play("resign", day_clock.now())
    await store.record_screening(
        game_id=held.id, held=True, reasons=["too fast"], evidence={}, at=day_clock.now()
    )
    day_clock.advance(days=1)
    await _refused(ErrorCode.NOT_VISIBLE, hub.after.replay(stranger, held.id))
    await _refused(ErrorCode.NOT_VISIBLE, hub.after.replay(None, held.id))
    assert (await hub.after.replay(reviewer, held.id)).game == held.id
    assert (await hub.after.replay(cheat, held.id)).game == held.id


async def test_a_race_rooms_games_are_public_once_the_race_is_over(store: Store, hub: Hub) -> None:
    races = RaceStore.of(store)
    owner, other, stranger = [await new_player(store) for _ in range(3)]
    room = await races.create(code=next_code(), owner=owner, options=RoomOptions(1), now=T0)
    await races.join(room.code, player=other, now=T0, auto_wait=30)
    started = await races.start(room.code, by=owner.id, deal=WON_CODE, now=T0)
    entrant = started.entrant(owner.id)
    assert entrant is not None and entrant.game_id is not None
    record = await store.get_game(entrant.game_id)
    assert record is not None
    end = T0 + timedelta(minutes=1)
    await finish(
        store,
        record,
        [],
        Result(won=False, resigned=True, moves=0, score=500, removed=0, elapsed=5, finished_at=end),
    )
    await _refused(ErrorCode.NOT_VISIBLE, hub.after.replay(stranger, record.id))
    assert (await hub.after.replay(owner, record.id)).race == room.code
    await races.finish(room.code, now=end, results=[])
    assert (await hub.after.replay(stranger, record.id)).race == room.code


async def test_reports_once_per_player_per_result_of_a_closed_day_within_a_budget(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    owner, reporter = await new_player(store), await new_player(store)
    game = await play_daily(hub, day_clock, owner, moves=1)
    await _refused(ErrorCode.NOT_VISIBLE, hub.after.report(reporter, game.id, "too quick"))
    day_clock.advance(days=1)
    await _refused(ErrorCode.INVALID_MESSAGE, hub.after.report(owner, game.id, "me"))
    await _refused(ErrorCode.INVALID_MESSAGE, hub.after.report(reporter, game.id, "   "))
    await hub.after.report(reporter, game.id, "too quick")
    await _refused(ErrorCode.ALREADY_REPORTED, hub.after.report(reporter, game.id, "again"))
    listed = {record.id: reports for record, reports in await store.reported_results()}
    assert [(r.player, r.reason) for r in listed[game.id]] == [(reporter.name, "too quick")]
    # the budget: a day's worth of reports, then refused
    from server.play.after.day import REPORTS_PER_DAY

    busy = await new_player(store)
    day_clock.advance(days=-1)
    targets = [await play_daily(hub, day_clock, await new_player(store)) for _ in range(11)]
    day_clock.advance(days=1)
    for target in targets[:REPORTS_PER_DAY]:
        await hub.after.report(busy, target.id, "odd")
    await _refused(ErrorCode.RATE_LIMITED, hub.after.report(busy, targets[-1].id, "odd"))


async def test_review_of_a_won_game_follows_the_solvers_line_to_zero(
    store: Store, hub: Hub
) -> None:
    player = await new_player(store)
    game = await hub.starts.practice(player, WON_CODE, 1)
    # the solver's own line, as a review's first position finds it
    found = solve(EngineGame.from_code(WON_CODE), max_nodes=POSITION_NODES)
    line = [move.text() for move in found.moves]
    # a detour first (a move and its undo), then the solver's line: its last move wins
    await game.play(next(game.engine.legal_moves()), hub.now())
    await game.play("undo", hub.now())
    for text in line:
        outcome = await game.play(Move.from_text(text), hub.now())
    assert game.engine.is_won and outcome.ended
    record = await store.get_game(game.id)
    assert record is not None and record.won
    review = await hub.reviews.review(player, record)
    positions = review.positions
    assert len(positions) == len(line) + 3  # the deal, the detour, its undo, the line
    assert positions[-1].winnable is True and positions[-1].distance == 0
    assert all(position.winnable for position in positions)
    assert review.losing_move is None and review.unknown == 0
    assert review.moves == len(line) and review.won
    assert review.solver_line is not None and review.against_line == len(line) - review.solver_line
    # every delta known, and they add up to the moves over the solver's line
    assert sum(p.delta or 0 for p in positions[1:]) == review.against_line
    assert (await hub.reviews.review(player, record)) is review  # kept


async def test_review_of_a_lost_game_and_one_review_in_flight_per_account(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    player = await new_player(store)
    game = await play_daily(hub, day_clock, player, moves=4)
    record = await store.get_game(game.id)
    assert record is not None
    await _refused(ErrorCode.NOT_VISIBLE, hub.after.review_deal(record))  # the day is not over
    day_clock.advance(days=1)
    deal = await hub.after.review_deal(record)
    assert deal is not None and deal.par == 40
    other = await hub.starts.practice(player, WON_CODE, 1)
    await other.play("resign", hub.now())
    other_record = await store.get_game(other.id)
    assert other_record is not None
    asker = await new_player(store)  # made before: the first review may end soon after
    first = asyncio.ensure_future(hub.reviews.review(player, record, deal=deal))
    for _ in range(5000):  # the first is under way, past its read of the store
        if hub.reviews.making(player.id) or first.done():
            break
        await asyncio.sleep(0.001)
    assert hub.reviews.making(player.id)
    await _refused(ErrorCode.BUSY, hub.reviews.review(player, other_record))
    hub.reviews.most_in_flight = 1  # the node's queue is full: others wait too
    await _refused(ErrorCode.BUSY, hub.reviews.review(asker, other_record))
    review = await first
    assert not review.won and review.against_par is None and review.par == 40
    assert [p.seq for p in review.positions] == [0, 1, 2, 3, 4]
    assert review.positions[0].action is None
    assert all(p.winnable is not None or review.unknown for p in review.positions)


async def test_an_account_asks_so_many_new_reviews_a_day(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    player = await new_player(store)
    hub.reviews.per_day = 2
    records = await resigned_records(hub, store, player, 3)
    first = await hub.reviews.review(player, records[0])
    await hub.reviews.review(player, records[1])
    await _refused(ErrorCode.RATE_LIMITED, hub.reviews.review(player, records[2]))
    assert (await hub.reviews.review(player, records[0])) is first  # made already: free
    other = await new_player(store)
    assert (await hub.reviews.review(other, records[2])).moves == 0  # another account's share
    day_clock.advance(days=1)
    assert (await hub.reviews.review(player, records[2])).moves == 0  # a new day, a new share


class CountlessBus(InProcessBus):
    """A bus whose counts fail, as the Redis bus's do while Redis is out."""

    async def count_for_day(self, day: date, name: str) -> int:
        raise BusUnavailable("Redis did not answer")


def another_nodes_reviews(
    store: Store, clock: ManualClock, bus: InProcessBus, per_day: int
) -> Reviews:
    """The reviews of another node on ``store`` (its solver in this process): close it."""
    reviews = Reviews(
        store, SolverProver(20.0, processes=False), seconds=20.0, clock=clock, bus=bus
    )
    reviews.per_day = per_day
    return reviews


async def test_with_the_bus_out_a_node_counts_an_accounts_reviews_itself(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    reviews = another_nodes_reviews(store, day_clock, CountlessBus(), per_day=1)
    player = await new_player(store)
    records = await resigned_records(hub, store, player, 2)
    try:
        assert (await reviews.review(player, records[0])).moves == 0
        await _refused(ErrorCode.RATE_LIMITED, reviews.review(player, records[1]))
    finally:
        reviews.close()


async def test_a_review_is_kept_in_the_store_for_every_node(
    store: Store, hub: Hub, day_clock: ManualClock
) -> None:
    player = await new_player(store)
    record = (await resigned_records(hub, store, player, 1))[0]
    assert await store.kept_review(record.id) is None
    made = await hub.reviews.review(player, record)
    kept = await store.kept_review(record.id)
    assert kept is not None and Review.model_validate_json(kept) == made
    # another node, with nothing in its memory and no new review left today for this
    # account (only a kept one can answer), answers it at once from the store
    other_node = another_nodes_reviews(store, day_clock, InProcessBus(), per_day=0)
    try:
        assert await other_node.kept(record.id) == made
        assert await other_node.review(player, record) == made
    finally:
        other_node.close()
    # a second review of the game (two nodes made it at once) leaves the first kept
    await store.keep_review(game_id=record.id, body="{}", at=day_clock.now())
    assert await store.kept_review(record.id) == kept
    with pytest.raises(StoreError):
        await store.keep_review(game_id="no-such-game", body=kept, at=day_clock.now())
    with pytest.raises(InvalidRequest):  # a time with no zone
        await store.keep_review(game_id=record.id, body=kept, at=datetime(2026, 1, 1))
