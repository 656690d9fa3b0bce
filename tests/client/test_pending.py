"""The queue of unanswered actions: taken by their replies, and replayed on the confirmed game."""

from __future__ import annotations

from client_cli.pending import Pending, PendingActions
from server.engine import Game, Move
from server.protocol import AutoMove, MoveRequest, Restart, Undo
from tests.support.client import CODE


def queued(*actions: Pending) -> PendingActions:
    pending = PendingActions()
    for action in actions:
        pending.append(action)
    return pending


def move(message_id: int, text: str) -> Pending:
    played = Move.from_text(text)
    return Pending(MoveRequest(type="move", id=message_id, move=played.text()), "move", played)


def test_a_reply_takes_its_own_action_and_only_that_one() -> None:
    first, second = move(1, "3-4"), move(2, "9-1")
    pending = queued(first, second)
    assert pending.take(None) is None and pending.take(7) is None
    assert pending.take(2) is second
    assert list(pending) == [first] and len(pending) == 1


def test_a_state_answering_an_action_drops_it_and_those_before_it() -> None:
    first, second, third = move(1, "3-4"), move(2, "9-1"), move(3, "8-2")
    pending = queued(first, second, third)
    pending.answered_by_state(9)  # not one of these: a pushed state answers none
    assert len(pending) == 3
    pending.answered_by_state(2)
    assert list(pending) == [third] and pending[0] is third
    pending.clear()
    assert not pending


def test_the_actions_replay_on_a_copy_of_the_confirmed_game() -> None:
    confirmed = Game.from_code(CODE)
    pending = queued(
        move(1, "3-4"),
        move(2, "1-2"),  # refused by the engine: skipped, the server will say why
        Pending(AutoMove(type="auto", id=3, column=9), "auto", Move(8, 8)),
        Pending(Undo(type="undo", id=4), "undo"),
    )
    shown = pending.played_on(confirmed)
    expected = Game.from_code(CODE)
    expected.play("3-4")
    assert shown == expected and confirmed == Game.from_code(CODE)
    pending.append(Pending(Restart(type="restart", id=5), "restart"))
    assert pending.played_on(confirmed) == Game.from_code(CODE)
