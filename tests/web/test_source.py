"""A replay's positions as its page shows them, from a replay alone (no server)."""

from __future__ import annotations

from server.engine import Game
from server.protocol import Replay, ReplayStep
from server.web.source import positions

CODE = "SS1-S1-AAAAAAA"


def test_each_position_names_its_move_and_the_cards_it_brought() -> None:
    game = Game.from_code(CODE)
    first = next(game.legal_moves())
    actions = [first.text(), "undo", "resign"]
    replay = Replay(
        game="g",
        code=CODE,
        player="Pia",
        suits=1,
        mode="practice",
        moves=[ReplayStep(seq=i, action=a, at=1000 * i) for i, a in enumerate(actions, 1)],
    )
    deal, moved, undone, resigned = positions(replay)
    assert deal.move is None and deal.think is None and deal.action is None
    played = game.push(first)
    assert moved.move == played and moved.arrived == played.count
    assert moved.columns == tuple(game.board_text().splitlines())
    assert undone.move is None and undone.arrived == 0 and undone.columns == deal.columns
    assert undone.think == 1.0  # seconds since the action before
    assert resigned.move is None and resigned.columns == deal.columns
