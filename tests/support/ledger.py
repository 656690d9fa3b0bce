"""What a client knows for sure about one of its games: the actions the server acknowledged.

A :class:`Ledger` keeps the client's own copy of the engine, advanced only by replies
(``moved`` carries the move with its count explicit; ``state`` answers undo and restart),
and the last ``seq`` a reply showed. Whatever the server says later about that game
(``resume`` on any node, after any crash or outage) must show at least that ``seq``, and
at that ``seq`` the very board, moves and score the client's engine has::

    ledger = Ledger.started(reply["state"])        # from the reply to start
    ledger.acknowledge(await client.request({"type": "move", "move": "1-4"}))
    problems = ledger.check(resumed["state"])        # [] when the server kept everything

The engine is the server's own rules (``server.engine``), as the bundled client uses it:
no server internals are involved.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from server.engine import Game, IllegalMoveError, Move

UNDO = "undo"
RESTART = "restart"
RESIGN = "resign"
FINISH = "finish"  # the end of a game: it bumps seq by one, like an action


def board_lines(game: Game) -> list[str]:
    """The ``board`` of a ``state`` for this engine position (ten columns, deepest first)."""
    return game.board_text().split("\n")[:10]


def apply(game: Game, action: str) -> None:
    """Apply one acknowledged action (a move with its count, undo or restart) to ``game``."""
    if action == UNDO:
        game.undo()
    elif action == RESTART:
        game.restart()
    else:
        game.push(Move.from_text(action))


@dataclass
class Pending:
    """An action sent whose reply has not come (the connection went down meanwhile)."""

    message: dict[str, Any]
    #: What it does if applied: a move with its count explicit, undo, restart, resign.
    action: str


@dataclass
class Ledger:
    game_id: str
    code: str
    mode: str
    #: The last seq a reply showed, and the actions acknowledged (each bumped seq once).
    seq: int = 0
    actions: list[str] = field(default_factory=list)
    finished: bool = False
    #: The engine after the acknowledged actions: the client's own copy.
    engine: Game = field(init=False)
    pending: Pending | None = None
    #: A won move was acknowledged but its ``finished`` has not come: the end of the game
    #: (one more seq) may or may not be stored.
    finish_pending: bool = False
    #: :meth:`choose` resigns once the game has this many actions.
    length: int = 250
    #: Resumed and compared after a restart at least once.
    checked: bool = False

    def __post_init__(self) -> None:
        self.engine = Game.from_code(self.code)

    @classmethod
    def started(cls, state: dict[str, Any]) -> Ledger:
        """The ledger of a game just started (``state`` from the reply to ``start``)."""
        assert state["seq"] == 0, "a ledger follows a game from its start"
        ledger = cls(game_id=state["game"], code=state["code"], mode=state["mode"])
        assert board_lines(ledger.engine) == state["board"], "the deal is not the code's"
        return ledger

    # -- choosing what to send --------------------------------------------------

    def choose(self, rng: random.Random) -> tuple[dict[str, Any], str]:
        """A legal action for this position: the message to send and what it does."""
        game = self.engine
        moves = list(game.legal_moves())
        roll = rng.random()
        if len(self.actions) >= self.length:  # enough: games end, others start
            return {"type": "resign"}, RESIGN
        if game.can_undo and roll < 0.08:
            return {"type": "undo"}, UNDO
        if roll < 0.10 and game.moves:
            return {"type": "restart"}, RESTART
        if not moves:
            return {"type": "resign"}, RESIGN
        move = rng.choice(moves)
        if roll < 0.25:  # the double-click move of that column, when it has one
            try:
                played = game.copy().auto_move(move.source)
            except IllegalMoveError:
                pass
            else:
                return {"type": "auto", "column": move.source + 1}, played.text()
        played = game.copy().push(move)
        return {"type": "move", "move": played.text()}, played.text()

    def step(self, rng: random.Random) -> tuple[dict[str, Any], str]:
        """A random legal move (count explicit): the message and what it does; an undo
        when no move is left (a position with none happens now and then)."""
        moves = list(self.engine.legal_moves())
        if not moves:
            assert self.engine.can_undo, f"game {self.game_id}: no legal move and no undo"
            return {"type": "undo"}, UNDO
        text = self.engine.copy().push(rng.choice(moves)).text()
        return {"type": "move", "move": text}, text

    # -- replies ------------------------------------------------------------------

    def acknowledge(self, reply: dict[str, Any], action: str | None = None) -> None:
        """Advance on the reply to an action (``moved``, or ``state`` for undo, restart and
        resign; ``finished`` after a winning move). Raises AssertionError on a reply that
        does not follow from what the client knows."""
        kind = reply.get("type")
        if kind == "moved":
            assert reply["game"] == self.game_id, reply
            assert reply["seq"] == self.seq + 1, f"moved seq {reply['seq']} after {self.seq}"
            if action is not None and action not in (UNDO, RESTART, RESIGN):
                assert reply["move"] == action, f"{reply['move']} played for {action}"
            apply(self.engine, reply["move"])
            self.actions.append(reply["move"])
            self.seq = reply["seq"]
            assert (reply["moves"], reply["score"]) == (self.engine.moves, self.engine.score), (
                f"moved says {reply['moves']} moves score {reply['score']}; the engine "
                f"{self.engine.moves} moves score {self.engine.score}"
            )
            if reply["won"]:
                self.finish_pending = True
        elif kind == "finished":
            assert reply["game"] == self.game_id, reply
            if self.finish_pending:  # after a winning move: the end bumped seq
                self.finish_pending = False
                self.seq += 1
                self.actions.append(FINISH)
            self.finished = True
        elif kind == "state":
            state = reply["state"]
            assert state["game"] == self.game_id, state
            if action in (UNDO, RESTART):
                apply(self.engine, action)
                self.actions.append(action)
                assert state["seq"] == self.seq + 1, f"state seq {state['seq']} after {self.seq}"
            elif action == RESIGN:
                self.actions.append(FINISH)
                assert state["seq"] == self.seq + 1, f"state seq {state['seq']} after {self.seq}"
                self.finished = True
            self.seq = state["seq"]
        else:
            raise AssertionError(f"unexpected reply to an action: {reply}")
        self.pending = None

    # -- what the server says later ---------------------------------------------------

    def possible(self) -> dict[int, Game | None]:
        """The states the game may be in, by seq: the acknowledged one, and one further
        if an action (or a won game's end) was in flight. None: the engine cannot tell the
        board (a resign in flight: the board is the acknowledged one)."""
        states: dict[int, Game | None] = {self.seq: self.engine}
        if self.finish_pending:
            states[self.seq + 1] = self.engine
        elif self.pending is not None:
            after = self.engine.copy()
            if self.pending.action == RESIGN:
                states[self.seq + 1] = after
            else:
                try:
                    apply(after, self.pending.action)
                except IllegalMoveError:
                    return states
                states[self.seq + 1] = after
        return states

    def check(self, state: dict[str, Any]) -> list[str]:
        """What is wrong with ``state`` (from ``resume``) for this game, if anything."""
        problems: list[str] = []
        seq = state["seq"]
        if seq < self.seq:
            return [
                f"game {self.game_id} ({self.mode}): resumed at seq {seq} but seq {self.seq} "
                f"was acknowledged: {self.seq - seq} acknowledged actions lost"
            ]
        states = self.possible()
        if seq not in states:
            return [
                f"game {self.game_id} ({self.mode}): resumed at seq {seq}, but only "
                f"{sorted(states)} can follow from what was acknowledged"
            ]
        engine = states[seq]
        assert engine is not None
        expected = (board_lines(engine), engine.moves, engine.score)
        got = (state["board"], state["moves"], state["score"])
        if got != expected:
            problems.append(
                f"game {self.game_id} ({self.mode}) at seq {seq}: resumed moves/score "
                f"{got[1]}/{got[2]} and board differ from the acknowledged actions "
                f"({expected[1]}/{expected[2]}); board {got[0]} != {expected[0]}"
            )
        return problems


__all__ = ["RESIGN", "RESTART", "UNDO", "Ledger", "Pending", "apply", "board_lines"]
