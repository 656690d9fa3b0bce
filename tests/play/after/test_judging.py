"""A review judged in parts side by side, each part's searches made and the game then walked
with them, gives the verdicts and distances of the review judged in one go, at every
position: games played the way ``bench.review``'s players play, with tries taken back and
detours kept, split in two and three."""

from __future__ import annotations

import itertools
import random

import pytest

import server.solver
from bench.review import played_game
from server.engine import Game, GameCode
from server.play.after import judging
from server.play.after.judging import (
    DealSearches,
    Searched,
    _known_by_deal,
    judge_part,
    judge_path,
    judge_searched,
    part_cuts,
    position_costs,
    searches_of,
)


def _game(seed: int) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    while True:
        code = str(GameCode(1, rng.randrange(26**7)))
        actions = played_game(code, rng)
        if actions and len(actions) >= 20:
            return code, actions[:40]


# games cheap to judge (a few seconds each), one of them (9) with a lost position
@pytest.mark.parametrize(("seed", "parts"), [(9, 2), (11, 3), (29, 2)])
def test_a_review_in_parts_is_the_review_in_one_go(seed: int, parts: int) -> None:
    code, actions = _game(seed)
    whole = judge_path(code, actions, seconds=600)
    _known_by_deal.clear()  # each part's worker has a table of its own
    positions = len(actions) + 1
    cuts = part_cuts(code, actions, parts)
    searched: Searched = {}
    for first, last in itertools.pairwise(cuts):
        _known_by_deal.clear()
        searched.update(judge_part(code, actions, 600, (), (first, last), None, None, 0))
    assert searched  # each part searched, at least its first position
    walked = judge_searched(code, actions, 600, (), searched)
    assert walked == whole
    assert len(walked) == positions and None not in {winnable for winnable, _ in walked}


def test_a_part_judges_its_positions_only_its_first_searched_afresh() -> None:
    code, actions = _game(11)
    made: Searched = {}
    part = judge_path(code, actions, seconds=600, part=(10, 15), made=made)
    assert len(part) == 5
    whole = judge_path(code, actions, seconds=600)
    # its verdicts are the game's (its first's distance is a fresh search's, maybe another)
    assert [winnable for winnable, _ in part] == [winnable for winnable, _ in whole[10:15]]
    assert made  # the first position at least was searched


def test_the_next_review_of_a_deal_takes_the_searches_made_and_finds_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, actions = _game(29)
    shorter = actions[:25]  # another game of the deal: the first one's first 25 actions
    alone = judge_path(code, shorter, seconds=600)
    _known_by_deal.clear()
    judge_path(code, actions, seconds=600)
    assert len(searches_of(code)) > 0
    solve = server.solver.solve
    searched: list[object] = []

    def counted(*args: object, **options: object) -> object:
        searched.append(args)
        return solve(*args, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(server.solver, "solve", counted)
    assert judge_path(code, shorter, seconds=600) == alone  # what a fresh review finds
    assert searched == []  # each of its positions was searched by the first review


def test_a_search_out_of_states_is_kept_unknown_not_one_out_of_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(judging, "POSITION_NODES", 50)  # far too few for a 4-suit deal
    code = str(GameCode(4, 777))
    game = Game.from_code(code)
    actions = [game.push(next(game.legal_moves())).text()]
    first = judge_path(code, actions, seconds=600)
    assert first == [(None, None), (None, None)]
    assert len(searches_of(code)) == 2
    _known_by_deal.clear()
    judge_path(code, actions, seconds=0.0)  # no time at all: nothing to keep
    assert len(searches_of(code)) == 0
    solve = server.solver.solve
    searched: list[object] = []

    def counted(*args: object, **options: object) -> object:
        searched.append(args)
        return solve(*args, **options)  # type: ignore[arg-type]

    judge_path(code, actions, seconds=600)
    monkeypatch.setattr(server.solver, "solve", counted)
    assert judge_path(code, actions, seconds=600) == first
    assert searched == []  # each position's search out of states was kept


def test_a_deals_searches_are_kept_compact_and_bounded() -> None:
    game = Game.from_code(str(GameCode(2, 4242)))
    line = server.solver.solve(game.copy()).moves
    kept = DealSearches(most=1)
    kept.keep(game, True, len(line), line)
    assert kept.get(game) == (True, len(line), tuple(line))
    after = game.copy()
    after.push(line[0])
    kept.keep(after, True, len(line) - 1, line[1:])  # full: not kept
    assert kept.get(after) is None and len(kept) == 1


@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_parts_are_cut_at_equal_shares_of_the_positions_cost(parts: int) -> None:
    code, actions = _game(11)
    weights = position_costs(code, actions)
    cuts = part_cuts(code, actions, parts)
    assert cuts[0] == 0 and cuts[-1] == len(actions) + 1 and len(cuts) == parts + 1
    assert all(first < last for first, last in itertools.pairwise(cuts))
    share = sum(weights) / parts
    heaviest = max(weights)
    for first, last in itertools.pairwise(cuts):  # each part within one position of a share
        assert abs(sum(weights[first:last]) - share) <= heaviest
    # the early positions weigh most: the first part has fewer positions than an equal count
    if parts > 1:
        assert cuts[1] < (len(actions) + 1) // parts


@pytest.mark.parametrize("positions", [1, 2, 3])
def test_a_game_shorter_than_its_parts_has_a_part_a_position(positions: int) -> None:
    code, actions = _game(11)
    assert part_cuts(code, actions[: positions - 1], 4) == list(range(positions + 1))
