"""Race rooms in the database (both backends): a room's changes take turns, so it never
takes more racers than its capacity and its countdown begins once; quick joins fill one
room per suit count; a race ends once; results and rematches are kept."""

from __future__ import annotations

import asyncio
import itertools
from datetime import timedelta

import pytest

from server.kinds import Figures
from server.store import (
    EntrantResult,
    RaceRefused,
    RaceStore,
    Refusal,
    RoomOptions,
    Store,
)
from tests.support.store import T0, new_player

_codes = itertools.count()


def next_code() -> str:
    """A room code no other test of the module uses."""
    number = next(_codes) + 26**4  # five letters
    letters = ""
    while number:
        number, digit = divmod(number, 26)
        letters = chr(ord("A") + digit) + letters
    return letters[-5:]


@pytest.fixture(scope="module")
def races(store: Store) -> RaceStore:
    return RaceStore.of(store)


async def test_a_room_never_takes_more_racers_than_its_capacity(
    store: Store, races: RaceStore
) -> None:
    owner = await new_player(store)
    room = await races.create(
        code=next_code(), owner=owner, options=RoomOptions(suits=1, capacity=3), now=T0
    )
    players = [await new_player(store) for _ in range(6)]
    joined = await asyncio.gather(
        *(races.join(room.code, player=p, now=T0, auto_wait=30) for p in players),
        return_exceptions=True,
    )
    refusals = [j.reason for j in joined if isinstance(j, RaceRefused)]
    assert refusals == [Refusal.FULL] * 4, joined
    stored = await races.get(room.code)
    assert stored is not None and len(stored.entrants) == 3
    assert stored.entrants[0].player_id == owner.id


async def test_the_countdown_begins_once_and_fixes_every_racers_game(
    store: Store, races: RaceStore
) -> None:
    owner, other = await new_player(store), await new_player(store)
    options = RoomOptions(suits=2, countdown=10, time_limit=600)
    room = await races.create(code=next_code(), owner=owner, options=options, now=T0)
    with pytest.raises(RaceRefused) as alone:
        await races.start(room.code, by=owner.id, deal="SS1-S2-AAAAAAB", now=T0)
    assert alone.value.reason is Refusal.TOO_FEW
    await races.join(room.code, player=other, now=T0, auto_wait=30)
    with pytest.raises(RaceRefused) as not_owner:
        await races.start(room.code, by=other.id, deal="SS1-S2-AAAAAAB", now=T0)
    assert not_owner.value.reason is Refusal.NOT_OWNER
    # two nodes start it at once (each with the deal it drew): one wins, for everyone
    outcomes = await asyncio.gather(
        races.start(room.code, by=owner.id, deal="SS1-S2-AAAAAAB", now=T0),
        races.start(room.code, by=None, deal="SS1-S2-AAAAAAC", now=T0),
        return_exceptions=True,
    )
    started = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(started) == 1
    assert [o.reason for o in outcomes if isinstance(o, RaceRefused)] == [Refusal.NOT_OPEN]
    record = started[0]
    assert record.state == "started" and record.deal in ("SS1-S2-AAAAAAB", "SS1-S2-AAAAAAC")
    assert record.starts_at == T0 + timedelta(seconds=10)
    assert record.ends_at == T0 + timedelta(seconds=610)
    for entrant in record.entrants:
        assert entrant.game_id is not None
        game = await store.get_game(entrant.game_id)
        assert (
            game is not None and game.code == record.deal and game.player_id == (entrant.player_id)
        )
        assert game.started_at == record.starts_at and game.mode == "practice"
        assert (await races.race_of_game(entrant.game_id)) == record
    late = await new_player(store)
    with pytest.raises(RaceRefused) as after:
        await races.join(room.code, player=late, now=T0, auto_wait=30)
    assert after.value.reason is Refusal.NOT_OPEN
    assert "has started" in str(after.value)


async def test_a_room_closed_unstarted_says_so_to_a_late_joiner(
    store: Store, races: RaceStore
) -> None:
    owner, late = await new_player(store), await new_player(store)
    room = await races.create(code=next_code(), owner=owner, options=RoomOptions(suits=1), now=T0)
    assert (await races.leave(room.code, player_id=owner.id, now=T0)).state == "expired"
    with pytest.raises(RaceRefused) as closed:
        await races.join(room.code, player=late, now=T0, auto_wait=30)
    assert closed.value.reason is Refusal.NOT_OPEN
    assert "closed" in str(closed.value) and "has started" not in str(closed.value)


async def test_quick_joins_fill_one_open_room_per_suit_count(
    store: Store, races: RaceStore
) -> None:
    players = [await new_player(store) for _ in range(5)]
    options = RoomOptions(suits=4, public=True, capacity=4)
    joined = await asyncio.gather(
        *(
            races.quick(player=p, options=options, now=T0, new_code=next_code, auto_wait=30)
            for p in players
        )
    )
    rooms = {record.code for record, _ in joined}
    assert len(rooms) == 2  # four in the first, the fifth opened the next
    stored = await races.get_many(rooms)
    assert sorted(len(r.entrants) for r in stored.values()) == [1, 4]
    full = next(r for r in stored.values() if len(r.entrants) == 4)
    assert full.public and full.auto_start_at == T0 + timedelta(seconds=30)


async def test_a_race_ends_once_with_its_results_and_rematch(
    store: Store, races: RaceStore
) -> None:
    owner, other = await new_player(store), await new_player(store)
    room = await races.create(code=next_code(), owner=owner, options=RoomOptions(1), now=T0)
    await races.join(room.code, player=other, now=T0, auto_wait=30)
    await races.start(room.code, by=owner.id, deal="SS1-S1-AAAAAAB", now=T0)
    won = Figures(won=True, resigned=False, moves=60, score=840, removed=4, elapsed=95.5)
    resigned = Figures(won=False, resigned=True, moves=12, score=488, removed=0, elapsed=30.0)
    results = [EntrantResult(other.id, 1, won), EntrantResult(owner.id, 2, resigned)]
    end = T0 + timedelta(minutes=2)
    ended = await asyncio.gather(
        races.finish(room.code, now=end, results=results),
        races.finish(room.code, now=end, results=results[::-1]),
    )
    assert sum(record is not None for record in ended) == 1
    record = await races.get(room.code)
    assert record is not None and record.state == "over" and record.finished_at == end
    lines = {e.player_id: (e.place, e.result) for e in record.entrants}
    assert lines in (
        {other.id: (1, won), owner.id: (2, resigned)},
        {owner.id: (1, resigned), other.id: (2, won)},
    )
    with pytest.raises(RaceRefused) as too_many:  # opening a rematch is opening a room
        await races.rematch(
            room.code, player=other, now=end, new_code=next_code(), auto_wait=30, most_open=0
        )
    assert too_many.value.reason is Refusal.TOO_MANY
    stranger = await new_player(store)
    with pytest.raises(RaceRefused) as not_racer:
        await races.rematch(room.code, player=stranger, now=end, new_code=next_code(), auto_wait=30)
    assert not_racer.value.reason is Refusal.NOT_ENTRANT
    first, opened = await races.rematch(
        room.code, player=other, now=end, new_code=next_code(), auto_wait=30
    )
    second, opened_again = await races.rematch(
        room.code, player=owner, now=end, new_code=next_code(), auto_wait=30
    )
    assert opened and not opened_again and first.code == second.code
    assert second.owner_id == other.id and second.previous == room.code
    assert {e.player_id for e in second.entrants} == {owner.id, other.id}
    reopened = await races.get(room.code)
    assert reopened is not None and reopened.next == first.code


async def test_an_owner_opens_at_most_so_many_rooms_even_all_at_once(
    store: Store, races: RaceStore
) -> None:
    owner = await new_player(store)
    other = RaceStore(store.engine)  # another node's queries, on the same database
    made = await asyncio.gather(
        *(
            (races if n % 2 else other).create(
                code=next_code(), owner=owner, options=RoomOptions(suits=1), now=T0, most_open=3
            )
            for n in range(6)
        ),
        return_exceptions=True,
    )
    refusals = [m.reason for m in made if isinstance(m, RaceRefused)]
    assert refusals == [Refusal.TOO_MANY] * 3, made


async def test_expired_rooms_are_deleted_after_a_while(store: Store, races: RaceStore) -> None:
    owner = await new_player(store)
    old = await races.create(code=next_code(), owner=owner, options=RoomOptions(suits=1), now=T0)
    await races.expire(old.code, now=T0)
    new = await races.create(code=next_code(), owner=owner, options=RoomOptions(suits=1), now=T0)
    await races.expire(new.code, now=T0 + timedelta(hours=1))
    assert await races.delete_expired(before=T0 + timedelta(minutes=30)) >= 1
    assert await races.get(old.code) is None
    kept = await races.get(new.code)
    assert kept is not None and kept.state == "expired" and len(kept.entrants) == 1
