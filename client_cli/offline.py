"""Commands that need no server: ``simon deal``, ``simon replay`` (and ``simon solve``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from rich.console import Console

from server.engine import (
    SUIT_COUNTS,
    Game,
    IllegalMoveError,
    InvalidBoardError,
    InvalidCodeError,
    InvalidMoveError,
    card_text,
    parse_moves,
)

from .arguments import refuse
from .errors import UsageError
from .online import add_server_argument
from .wording import plural, rule_sentence
from .words import _


def load_game(code: str | None, board_file: str | None, suits: int | None = None) -> Game:
    """The game named by a code or a board file (``-`` reads standard input): one of them,
    as the commands' options (:func:`add_game_arguments`) make sure."""
    if code is None and board_file is None:
        raise UsageError(_("give a game code or --board FILE"))
    if code is not None and board_file is not None:
        raise UsageError(_("give a game code or --board FILE, not both"))
    try:
        if code is not None:
            return Game.from_code(code)
        assert board_file is not None
        if board_file == "-":
            text = sys.stdin.read()
        else:
            try:
                with open(board_file, encoding="utf-8") as handle:
                    text = handle.read()
            except OSError as error:
                raise UsageError(
                    _("cannot read %(path)s: %(error)s")
                    % {"path": board_file, "error": error.strerror}
                ) from None
            except UnicodeDecodeError:
                raise UsageError(
                    _("cannot read %(path)s: it is not UTF-8 text") % {"path": board_file}
                ) from None
        return Game.from_board(text, suits)
    except (InvalidCodeError, InvalidBoardError) as error:
        raise UsageError(str(error)) from None


def game_state(game: Game) -> dict[str, Any]:
    """The facts about a game that every command reports."""
    return {
        "code": str(game.code) if game.code else None,
        "suits": game.suits,
        "won": game.is_won,
        "moves": game.moves,
        "score": game.score,
        "removed": len(game.removed),
        "removed_suits": [card_text(suit << 4 | 1)[1] for suit in game.removed],
        "board": game.board_text(),
    }


def add_json_argument(parser: argparse.ArgumentParser) -> None:
    """``--json`` after the command; it may also come before it (see ``client_cli.main``)."""
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help=_("print JSON")
    )


def add_game_arguments(parser: argparse.ArgumentParser, *, required: bool) -> None:
    """A game code or ``--board FILE`` (argparse refuses both, and neither if ``required``,
    with the command's usage)."""
    game = parser.add_mutually_exclusive_group(required=required)
    game.add_argument(
        "code", nargs="?", metavar=_("code"), help=_("a game code such as SS1-S4-AAAAABD")
    )
    game.add_argument(
        "--board", metavar=_("FILE"), help=_("a board in Freecell Solver text (- reads stdin)")
    )
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, help=_("the board's suit count"))
    add_json_argument(parser)


def print_board(game: Game, letters: bool = False) -> None:
    """The board as the play screen shows it: numbered columns, deepest card first."""
    from .ui.cards import board_lines

    console = Console(highlight=False)
    for line in board_lines(game.columns, letters):
        console.print(line)


def cmd_deal(args: argparse.Namespace) -> int:
    game = load_game(args.code, None)
    if args.json:
        print(json.dumps(game_state(game)))
    else:
        print(f"{game.code}  {plural(game.suits, 'suit')}")
        print_board(game, args.letters)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    if args.game is not None:
        if args.moves is not None or args.code is not None or args.board is not None:
            refuse(
                args, _("--game ID replays a game on the server: leave out CODE, --board, --moves")
            )
        from .after import online_replay

        return asyncio.run(online_replay(args))
    if args.moves is None:
        refuse(args, _("give --moves MOVES with a code or --board FILE, or --game ID"))
    if args.code is None and args.board is None:
        refuse(args, _("give a game code or --board FILE to play the moves on"))
    game = load_game(args.code, args.board, args.suits)
    try:
        moves = parse_moves(args.moves)
    except InvalidMoveError as error:
        raise UsageError(str(error)) from None
    refused: dict[str, Any] | None = None
    for index, move in enumerate(moves):
        try:
            game.push(move)
        except IllegalMoveError as error:
            refused = {
                "index": index,
                "move": move.text(),
                "rule": error.code,
                "message": rule_sentence(error.code, error.message),
            }
            break
    result = game_state(game)
    if refused is not None:
        result["refused"] = refused
    if args.json:
        print(json.dumps(result))
    else:
        print_board(game, args.letters)
        said = {
            "moves": plural(game.moves, "move"),
            "score": game.score,
            "runs": plural(len(game.removed), "run"),
        }
        if game.is_won:
            print(_("won: %(moves)s, score %(score)s, %(runs)s removed") % said)
        else:
            print(_("not won: %(moves)s, score %(score)s, %(runs)s removed") % said)
        if refused is not None:
            print(refused_line(refused) + f" [{refused['rule']}]")
    return 1 if refused is not None else 0


def refused_line(refused: dict[str, Any]) -> str:
    """``move 3 (4-5) refused: SENTENCE``: the first move a list had refused."""
    return _("move %(number)s (%(move)s) refused: %(message)s") % {
        "number": refused["index"] + 1,
        "move": refused["move"],
        "message": refused["message"],
    }


def add_letters_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--letters", action="store_true", help=_("suits as letters (TH) instead of symbols (T♥)")
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    deal = subparsers.add_parser(
        "deal", help=_("print the board a game code deals (--json: Freecell Solver text)")
    )
    deal.add_argument("code", metavar=_("code"), help=_("a game code such as SS1-S4-AAAAABD"))
    add_letters_argument(deal)
    add_json_argument(deal)
    deal.set_defaults(handler=cmd_deal)

    replay = subparsers.add_parser("replay", help=_("play a list of moves with the engine"))
    add_game_arguments(replay, required=False)
    replay.add_argument("--moves", metavar=_("MOVES"), help=_('moves like "3-7 1-2x3"'))
    replay.add_argument(
        "--game", metavar="ID", help=_("a finished game on the server, step by step (online)")
    )
    add_letters_argument(replay)
    add_server_argument(replay)
    replay.set_defaults(handler=cmd_replay, command_parser=replay)
