"""Players, daily deals and games on both backends."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, timedelta, timezone
from typing import Any

import pytest

from server.kinds import DayBoard
from server.store import (
    AttemptExists,
    InvalidRequest,
    LogEntry,
    NameTaken,
    Result,
    StaleGame,
    Store,
    StoreError,
)
from tests.support.store import (
    T0,
    entries,
    finish,
    finished_daily,
    millis,
    new_player,
    start,
    unique_day,
    unique_name,
)

RESIGNED = Result(
    won=False,
    resigned=True,
    moves=1,
    score=499,
    removed=0,
    elapsed=12.5,
    finished_at=T0 + timedelta(seconds=13),
)


async def test_names_are_unique_regardless_of_case(store: Store) -> None:
    name = unique_name("Alice")
    player = await new_player(store, name)
    assert player.name == name
    with pytest.raises(NameTaken):
        await new_player(store, name.upper())
    found = await store.player_by_name(name.lower())
    assert found == player
    assert await store.player_by_name(unique_name()) is None


async def test_concurrent_registrations_of_one_name_let_one_through(store: Store) -> None:
    name = unique_name("Bob")
    results = await asyncio.gather(
        *(new_player(store, variant) for variant in (name, name.upper(), name.lower())),
        return_exceptions=True,
    )
    assert sum(not isinstance(result, BaseException) for result in results) == 1
    assert all(
        isinstance(result, NameTaken) for result in results if isinstance(result, BaseException)
    )


def _digits() -> str:
    """A suffix of digits, which go with any alphabet (hex letters would be Latin)."""
    return str(uuid.uuid4().int)[:10]


async def test_a_name_that_looks_like_another_is_taken_whatever_its_letters(store: Store) -> None:
    digits = _digits()
    anna = await new_player(store, f"anna{digits}")
    # The store holds the look key alone: a mixed name the rule refuses is refused here too.
    for look_alike in (f"аnna{digits}", f"ΑΝΝΑ{digits}", f"ANNA{digits}"):
        with pytest.raises(NameTaken) as taken:
            await new_player(store, look_alike)
        assert taken.value.holder == anna.name
    other = await new_player(store, f"анна{digits}")  # Cyrillic, and it looks its own
    assert await store.player_by_name(f"АННА{digits}") == other
    assert await store.player_by_name(f"аnna{digits}") is None  # a look-alike is no name


async def test_concurrent_registrations_of_look_alikes_let_one_through(store: Store) -> None:
    digits = _digits()
    variants = (f"pace{digits}", f"расе{digits}", f"РАСЕ{digits}", f"pacе{digits}")
    results = await asyncio.gather(
        *(new_player(store, variant) for variant in variants), return_exceptions=True
    )
    made = [result for result in results if not isinstance(result, BaseException)]
    assert len(made) == 1
    assert all(
        isinstance(result, NameTaken) and result.holder == made[0].name
        for result in results
        if isinstance(result, BaseException)
    )


async def test_token_lookup_and_created_at_in_utc(store: Store) -> None:
    token = uuid.uuid4().hex
    created = T0.astimezone(timezone(timedelta(hours=5)))
    player = await store.create_player(name=unique_name(), token_hash=token, now=created)
    signed = await store.signed_in_by(secret_hash=token, now=T0, address="")
    assert signed is not None
    found, credential = signed
    assert found.id == player.id and credential.player_id == player.id
    assert found.created_at == T0 and found.created_at.tzinfo == UTC
    assert credential.kind == "registration" and credential.created_at == T0
    assert await store.signed_in_by(secret_hash="no such token", now=T0, address="") is None
    with pytest.raises(StoreError):  # the token hash is taken: refused, nothing stored
        await store.create_player(name=unique_name(), token_hash=token, now=T0)


async def test_bad_player_input_is_refused(store: Store) -> None:
    with pytest.raises(InvalidRequest):
        await store.create_player(name="", token_hash="x", now=T0)
    with pytest.raises(InvalidRequest):
        await store.create_player(name="x" * 65, token_hash="x", now=T0)
    with pytest.raises(InvalidRequest):
        await store.create_player(name="naive", token_hash="y", now=T0.replace(tzinfo=None))
    assert await store.player_by_name("naive") is None


async def test_daily_deal_first_writer_wins(store: Store) -> None:
    day = unique_day()
    assert await store.get_daily_deal(day=day, suits=2) is None
    codes = [f"SS1-S2-AAAAAA{letter}" for letter in "BCDEFG"]
    stored = await asyncio.gather(
        *(store.put_daily_deal(day=day, suits=2, code=code, par=None) for code in codes)
    )
    assert len({deal.code for deal in stored}) == 1
    winner = stored[0]
    assert await store.get_daily_deal(day=day, suits=2) == winner
    again = await store.put_daily_deal(day=day, suits=2, code="SS1-S2-ZZZZZZZ", par=60)
    assert again == winner
    other = await store.put_daily_deal(day=day, suits=4, code="SS1-S4-AAAAAAB", par=70)
    assert (other.suits, other.code, other.par) == (4, "SS1-S4-AAAAAAB", 70)


async def test_one_daily_attempt_per_player_day_and_suits(store: Store) -> None:
    player = await new_player(store)
    day = unique_day()
    first = await start(store, player, day=day)
    assert first.player_name == player.name and first.finished_at is None
    with pytest.raises(AttemptExists) as refused:
        await start(store, player, day=day)
    assert refused.value.game == first
    assert await store.daily_attempt(player_id=player.id, day=day, suits=1) == first
    # Other suit counts and practice games are not limited.
    await start(store, player, day=day, suits=2)
    for _ in range(2):
        await start(store, player)


async def test_concurrent_daily_starts_create_one_attempt(store: Store) -> None:
    player = await new_player(store)
    day = unique_day()
    ids = [uuid.uuid4().hex for _ in range(5)]
    results = await asyncio.gather(
        *(
            store.start_game(
                game_id=game_id,
                player_id=player.id,
                mode="daily",
                code="SS1-S1-AAAAAAB",
                suits=1,
                day=day,
                started_at=T0,
            )
            for game_id in ids
        ),
        return_exceptions=True,
    )
    started = [result for result in results if not isinstance(result, BaseException)]
    assert len(started) == 1
    refusals = [result for result in results if isinstance(result, BaseException)]
    assert all(isinstance(error, AttemptExists) for error in refusals)
    assert all(error.game == started[0] for error in refusals)  # type: ignore[attr-defined]


async def test_bad_game_input_is_refused(store: Store) -> None:
    player = await new_player(store)
    common: dict[str, Any] = {"code": "SS1-S1-AAAAAAB", "suits": 1, "started_at": T0}
    with pytest.raises(InvalidRequest):
        await store.start_game(  # a mode the store does not keep: refused
            game_id="g-a",
            player_id=player.id,
            mode="race",  # type: ignore[arg-type]
            day=None,
            **common,
        )
    with pytest.raises(InvalidRequest):
        await store.start_game(game_id="g-b", player_id=player.id, mode="daily", day=None, **common)
    with pytest.raises(InvalidRequest):
        await store.start_game(
            game_id="g-c", player_id=player.id, mode="practice", day=unique_day(), **common
        )
    with pytest.raises(StoreError):  # no such player: the foreign key holds
        await store.start_game(game_id="g-d", player_id=10**9, mode="practice", day=None, **common)
    for game_id in ("g-a", "g-b", "g-c", "g-d"):
        assert await store.get_game(game_id) is None
    game_id = uuid.uuid4().hex
    await store.start_game(
        game_id=game_id, player_id=player.id, mode="practice", day=None, **common
    )
    with pytest.raises(StoreError):  # the id is taken
        await store.start_game(
            game_id=game_id, player_id=player.id, mode="practice", day=None, **common
        )


async def test_the_action_log_keeps_each_action_with_its_time_and_request(
    store: Store,
) -> None:
    player = await new_player(store)
    game = await start(store, player)
    assert await store.last_seq(game.id) == 0
    at = millis(T0) + 1234
    await store.append(
        [
            LogEntry(game.id, 1, "3-7x2", at, '"m1"', "3-7"),
            LogEntry(game.id, 2, "undo", at + 5, "7", "undo"),
        ]
    )
    logged = await store.load_game(game.id)
    assert logged is not None and logged.game == game
    assert logged.entries == [
        LogEntry(game.id, 1, "3-7x2", at, '"m1"', "3-7"),
        LogEntry(game.id, 2, "undo", at + 5, "7", "undo"),
    ]
    assert logged.actions == ["3-7x2", "undo"] and await store.last_seq(game.id) == 2
    assert await store.load_game("no-such-game") is None


async def test_a_seq_is_written_once_and_a_batch_all_or_nothing(store: Store) -> None:
    player = await new_player(store)
    game = await start(store, player)
    await store.append(entries(game, ["1-2"]))
    with pytest.raises(StaleGame):  # seq 1 again (a stale copy), with seq 2
        await store.append(entries(game, ["3-4", "5-6"]))
    logged = await store.load_game(game.id)
    assert logged is not None and logged.actions == ["1-2"]  # seq 2 was not written either


async def test_a_result_is_written_with_the_end_entry_once(store: Store) -> None:
    player = await new_player(store)
    game = await start(store, player)
    finished = await finish(store, game, ["3-7x2", "undo", "1-2"], RESIGNED)
    assert finished.result == RESIGNED
    assert finished.finished_at == T0 + timedelta(seconds=13)
    assert finished.finished_at is not None and finished.finished_at.tzinfo == UTC
    logged = await store.load_game(game.id)
    assert logged is not None
    assert [e.action for e in logged.entries] == ["3-7x2", "undo", "1-2", "resign"]
    later = Result(
        won=True, resigned=False, moves=0, score=900, removed=4, elapsed=1.0, finished_at=T0
    )
    with pytest.raises(StaleGame):  # finished already: no second result, no new entry
        await store.append(entries(game, ["won"], first=5), later)
    assert await store.get_game(game.id) == finished
    assert await store.last_seq(game.id) == 4


async def test_a_stale_game_fails_alone_in_a_shared_commit(store: Store) -> None:
    player = await new_player(store)
    games = [await start(store, player) for _ in range(4)]
    await store.append(entries(games[0], ["1-2"]))
    batches = store.log.batches
    outcomes = await asyncio.gather(
        *(store.append(entries(game, ["1-2"])) for game in games), return_exceptions=True
    )
    assert isinstance(outcomes[0], StaleGame) and outcomes[1:] == [None, None, None]
    assert store.log.batches - batches == 3  # the batch failed, then each append apart
    for game in games:
        assert await store.last_seq(game.id) == 1


async def test_actions_of_many_games_go_in_one_commit(store: Store) -> None:
    player = await new_player(store)
    games = [await start(store, player) for _ in range(20)]
    batches, appended = store.log.batches, store.log.appended
    await asyncio.gather(*(store.append(entries(game, ["1-2", "undo"])) for game in games))
    assert store.log.appended - appended == 20
    assert store.log.batches - batches == 1
    assert [await store.last_seq(game.id) for game in games] == [2] * 20


async def test_a_result_that_cannot_be_ranked_is_refused(store: Store) -> None:
    player = await new_player(store)
    game = await start(store, player, day=unique_day())
    for bad in (
        {"score": 499, "elapsed": -1.0},
        {"score": 499, "elapsed": float("nan")},
        {"score": 2**40, "elapsed": 1.0},
        {"finished_at": T0.replace(tzinfo=None)},
    ):
        with pytest.raises(InvalidRequest):
            await finish(store, game, ["1-2"], RESIGNED.model_copy(update=bad))
    assert await store.get_game(game.id) == game  # nothing was written
    assert await store.last_seq(game.id) == 0


async def test_concurrent_finishes_write_one_result(store: Store) -> None:
    player = await new_player(store)
    day = unique_day()
    game = await start(store, player, day=day)
    results = await asyncio.gather(
        *(
            finish(
                store,
                game,
                [f"{n}-2"],
                RESIGNED.model_copy(
                    update={
                        "moves": n,
                        "score": 500 - n,
                        "elapsed": float(n),
                        "finished_at": T0 + timedelta(seconds=n),
                    }
                ),
            )
            for n in range(1, 5)
        ),
        return_exceptions=True,
    )
    written = [result for result in results if not isinstance(result, BaseException)]
    assert len(written) == 1
    assert all(isinstance(r, StaleGame) for r in results if isinstance(r, BaseException))
    assert await store.get_game(game.id) == written[0]
    board = await store.leaderboard_page(DayBoard(day, 1), limit=10)
    assert board.total == 1 and [row.score for row in board.rows] == [written[0].score]


async def test_history_and_all_time_figures(store: Store) -> None:
    player = await new_player(store)
    other = await new_player(store)
    day = unique_day()
    games = [
        await finished_daily(store, player, day, score=851, elapsed=30.0, finished_at=T0),
        await finished_daily(
            store,
            player,
            day,
            score=880,
            elapsed=20.0,
            finished_at=T0 + timedelta(hours=1),
            suits=2,
        ),
        await finished_daily(
            store,
            player,
            day,
            score=470,
            elapsed=50.0,
            finished_at=T0 + timedelta(hours=2),
            suits=4,
        ),
    ]
    await finished_daily(store, other, day, score=899, elapsed=5.0, finished_at=T0)
    await start(store, player)  # unfinished: not in the history
    history = await store.history(player_id=player.id, limit=2)
    assert [game.id for game in history.games] == [games[2].id, games[1].id]
    assert history.games_total == 3
    assert history.won == 2
    assert history.best_score == {1: 851, 2: 880, 4: 470}
    empty = await store.history(player_id=(await new_player(store)).id)
    assert (empty.games, empty.games_total, empty.won, empty.best_score) == ([], 0, 0, {})


async def test_finished_games_yields_every_finished_game_once(store: Store) -> None:
    player = await new_player(store)
    day = unique_day()
    ids = {f"fin-{n}" for n in range(7)}
    for n, game_id in enumerate(sorted(ids)):
        await finished_daily(
            store,
            player,
            day,
            score=800 + n,
            elapsed=10.0,
            finished_at=T0,
            suits=(1, 2, 4)[n % 3],
            game_id=game_id,
        ) if n < 3 else await start(store, player, game_id=game_id)
    unfinished = {f"fin-{n}" for n in range(3, 7)}
    seen = [logged async for logged in store.finished_games(batch=2)]
    seen_ids = [logged.game.id for logged in seen]
    assert len(seen_ids) == len(set(seen_ids)) and seen_ids == sorted(seen_ids)
    assert ids - unfinished <= set(seen_ids)
    assert not unfinished & set(seen_ids)
    assert all(logged.game.finished_at is not None for logged in seen)
    assert all(logged.actions == ["1-2"] for logged in seen if logged.game.id in ids)
