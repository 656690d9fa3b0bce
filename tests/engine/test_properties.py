"""Properties of random legal play on 1-, 2- and 4-suit deals (hypothesis)."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.engine import KING, RUN_BONUS, START_SCORE, Game, GameCode, Move, make_card, pack
from tests.engine.positions import near_solved_board

PLAY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

codes = st.builds(GameCode, st.sampled_from([1, 2, 4]), st.integers(0, 26**7 - 1))


def table_cards(game: Game) -> Counter[int]:
    return Counter(card for column in game.columns for card in column)


def run_cards(suit: int) -> Counter[int]:
    return Counter(make_card(rank, suit) for rank in range(1, KING + 1))


def check_position(game: Game) -> None:
    """What must hold after every action."""
    held = table_cards(game)
    for suit in game.removed:
        held += run_cards(suit)
    assert held == Counter(pack(game.suits))
    assert game.score == START_SCORE - game.moves + RUN_BONUS * len(game.removed)
    again = Game.from_board(game.board_text(), game.suits)
    assert again.position_key() == game.position_key()
    assert sorted(again.removed) == sorted(game.removed)
    assert Game.restore(game.snapshot()) == game


def check_legal_moves_agree_with_resolve(game: Game) -> None:
    legal = set(game.legal_moves())
    assert len(legal) == len(list(game.legal_moves()))
    for source in range(10):
        for target in range(10):
            implied = Move(source, target)
            pair = {m for m in legal if (m.source, m.target) == (source, target)}
            assert game.is_legal(implied) == bool(pair)
            if pair:
                assert game.resolve(implied) in pair
            for count in range(1, len(game.column(source)) + 2):
                explicit = Move(source, target, count)
                assert game.is_legal(explicit) == (explicit in legal)


def play_randomly_checking_invariants(game: Game, data: st.DataObject) -> None:
    check_position(game)
    for _ in range(data.draw(st.integers(1, 40), label="steps")):
        legal = list(game.legal_moves())
        if not legal:
            break
        move = data.draw(st.sampled_from(legal), label="move")
        before, on_table = game.copy(), table_cards(game)
        assert game.push(move) == move
        gone = on_table - table_cards(game)
        new_runs = game.removed[len(before.removed) :]
        # Only a whole one-suit K..A leaves the table, and only as a run removal.
        assert gone == sum((run_cards(suit) for suit in new_runs), Counter())
        check_position(game)
        if data.draw(st.booleans(), label="undo and replay"):
            assert game.undo() == move
            assert game == before
            game.push(move)


@PLAY
@given(code=codes, data=st.data())
def test_random_legal_play_keeps_every_invariant(code: GameCode, data: st.DataObject) -> None:
    play_randomly_checking_invariants(Game.from_code(code), data)


@PLAY
@given(suits=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2**32), data=st.data())
def test_random_play_near_the_end_removes_only_one_suit_runs(
    suits: int, seed: int, data: st.DataObject
) -> None:
    # Deals rarely reach a removal in a few random moves; these boards often do.
    play_randomly_checking_invariants(Game.from_board(near_solved_board(suits, seed), suits), data)


def check_placements_agree_with_targets(game: Game) -> None:
    placements = game.placements()
    for source in range(10):
        assert len(placements[source]) == game.movable_count(source)
        for count, targets in enumerate(placements[source], start=1):
            assert targets == game.targets(source, count)


@PLAY
@given(suits=st.sampled_from([1, 2, 4]), seed=st.integers(0, 2**32), data=st.data())
def test_placements_are_the_targets_of_every_movable_group(
    suits: int, seed: int, data: st.DataObject
) -> None:
    # near the end: empty columns, long groups and removals
    game = Game.from_board(near_solved_board(suits, seed), suits)
    for _ in range(data.draw(st.integers(0, 20), label="steps")):
        check_placements_agree_with_targets(game)
        legal = list(game.legal_moves())
        if not legal:
            break
        game.push(data.draw(st.sampled_from(legal), label="move"))
    check_placements_agree_with_targets(game)
    if game.is_won:
        assert game.placements() == [[] for _ in range(10)]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(code=codes, data=st.data())
def test_legal_moves_agree_with_resolve_on_every_column_pair(
    code: GameCode, data: st.DataObject
) -> None:
    game = Game.from_code(code)
    for _ in range(data.draw(st.integers(0, 25), label="steps")):
        check_legal_moves_agree_with_resolve(game)
        legal = list(game.legal_moves())
        if not legal:
            break
        game.push(data.draw(st.sampled_from(legal), label="move"))
    check_legal_moves_agree_with_resolve(game)


@PLAY
@given(code=codes, data=st.data())
def test_undo_all_the_way_returns_the_deal(code: GameCode, data: st.DataObject) -> None:
    game = Game.from_code(code)
    fresh = game.copy()
    states = []
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        legal = list(game.legal_moves())
        if not legal:
            break
        states.append(game.snapshot())
        game.push(data.draw(st.sampled_from(legal), label="move"))
    while states:
        game.undo()
        assert game.snapshot() == states.pop()
    assert game == fresh
    assert not game.can_undo


@settings(max_examples=40, deadline=None)
@given(code=codes)
def test_every_deal_is_the_whole_pack_in_the_fixed_column_sizes(code: GameCode) -> None:
    game = Game.from_code(code)
    assert [len(c) for c in game.columns] == [8, 8, 8, 7, 6, 5, 4, 3, 2, 1]
    assert table_cards(game) == Counter(pack(code.suits))
    assert Game.from_board(game.board_text()).suits == code.suits


@settings(max_examples=40, deadline=None)
@given(code=codes)
def test_a_game_from_a_code_is_the_checked_game_of_its_deal(code: GameCode) -> None:
    # from_code skips the checks a given board gets: the deal must pass them all the same
    dealt, checked = Game.from_code(code), Game(code.deal(), code.suits, code=code)
    assert dealt.snapshot() == checked.snapshot()
    assert dealt.removed == checked.removed == ()
    dealt.restart()
    assert dealt.board_text() == checked.board_text()
