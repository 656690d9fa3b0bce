"""``simon play``: the full-screen game (online or ``--offline``), or bot mode with ``--moves``
or ``--solve``.

Bot mode plays a list of moves (``--solve``: the bundled solver's solution of the deal
the server reveals at the start) over the websocket with no screen, one every ``--pace``
seconds, and prints the outcome: ``won``, ``moves``, ``score``, and ``rank`` (a won daily)
or ``refused`` (the index, move, rule and message of the first refused move, exit 1).
Bot mode on the ranked daily needs a bot account (``simon register NAME --bot``).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from collections.abc import Callable
from datetime import date
from typing import Any

from server.engine import (
    SUIT_COUNTS,
    Game,
    GameCode,
    InvalidCodeError,
    InvalidMoveError,
    parse_moves,
    playable_code,
)
from server.protocol import (
    ErrorCode,
    Finished,
    Mode,
    Moved,
    MoveRequest,
    ServerMessage,
    Start,
    State,
)

from .arguments import bounded, refuse
from .config import Config
from .connection import Connection
from .errors import BotAccountNeeded, ClientError, NoTerminalError, ServerError
from .offline import refused_line
from .online import add_server_argument, open_connection, print_json, when_proven
from .solve import winning_moves
from .table import LocalTable, Notice, OnlineTable, Table
from .wording import board_note, plural, replay_line, rule_sentence
from .words import N_, _

FINISH_WAIT = 5.0  # seconds bot mode waits for the result after a winning move
RATE_RETRIES = 30
RATE_PAUSE = 1.0  # seconds to wait when the server rate-limits bot mode
REFUSALS = {ErrorCode.ILLEGAL_MOVE, ErrorCode.BAD_MOVE, ErrorCode.GAME_OVER, ErrorCode.DAY_OVER}


def random_code(suits: int) -> GameCode:
    return playable_code(suits, secrets.randbelow)


def _bot_mode(args: argparse.Namespace) -> bool:
    return args.moves is not None or args.solve


def _check(args: argparse.Namespace) -> GameCode | None:
    """Refuse option mixes that mean nothing; return the code given, if any."""
    if args.daily and args.code:
        refuse(args, _("play the daily deal or a code, not both"))
    if args.offline and args.daily:
        refuse(args, _("the daily deal is played on the server: leave out --offline"))
    if args.moves is not None and args.solve:
        refuse(args, _("play --moves or --solve, not both"))
    if _bot_mode(args) and args.offline:
        refuse(args, _("bot mode plays on the server; for the engine alone use `simon replay`"))
    if _bot_mode(args) and not (args.daily or args.code):
        refuse(args, _("bot mode needs --daily or --code CODE"))
    if args.pace is not None and not _bot_mode(args):
        refuse(args, _("--pace sets the speed of bot mode: give --moves or --solve too"))
    code = None
    if args.code:
        try:
            code = GameCode.parse(args.code)
        except InvalidCodeError as error:
            refuse(args, str(error))
        if args.suits is not None and args.suits != code.suits:
            refuse(args, suits_mismatch(str(code), code.suits, args.suits))
    return code


def cmd_play(args: argparse.Namespace) -> int:
    code = _check(args)
    if args.solve:
        return asyncio.run(_bot(args, None))
    if args.moves is not None:
        try:
            moves = [move.text() for move in parse_moves(args.moves)]
        except InvalidMoveError as error:
            refuse(args, str(error))
        return asyncio.run(_bot(args, moves))
    if args.offline:
        screen_check(args, _("for a script, `simon replay CODE --moves MOVES` plays moves offline"))
    else:
        screen_check(args, _("for a script, play with --moves MOVES or --solve (bot mode)"))
    return _play_screen(args, code)


# -- the full-screen game -------------------------------------------------------------


def screen_check(args: argparse.Namespace, instead: str) -> None:
    """Refuse a full-screen command with ``--json`` (it prints no JSON) or with no terminal
    on standard input and output, before anything reaches the server (a daily's clock
    would start); ``instead`` says what a script uses."""
    if args.json:
        refuse(args, _("the game screen has no --json: %(instead)s") % {"instead": instead})
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise NoTerminalError(
            _("the game screen needs a terminal: %(instead)s") % {"instead": instead}
        )


def _play_screen(args: argparse.Namespace, code: GameCode | None) -> int:
    from .ui.app import SimonApp  # Textual loads only for the screen

    config = Config()
    suits = code.suits if code else args.suits
    ask = None if suits is not None else (config.last_suits or 1)

    def remember(choice: int) -> None:
        config.last_suits = choice
        config.save()

    if args.offline:

        async def open_local(chosen: int | None) -> Table:
            deal = code or random_code(chosen or suits or 1)
            return LocalTable(Game.from_code(deal))

        app = SimonApp(open_local, ask_suits=ask, remember_suits=remember, letters=args.letters)
        app.run()
        return _after(app)

    mode: Mode = "daily" if args.daily else "practice"

    def on(connection: Connection) -> Any:
        def told(said: str) -> None:  # a daily still being proven: "Dealing…" says why
            app.notify_line(Notice("status", said))

        async def open_online(chosen: int | None) -> Table:
            return await start_online(
                connection, mode, chosen or suits or 1, str(code) if code else None, told=told
            )

        app = SimonApp(open_online, ask_suits=ask, remember_suits=remember, letters=args.letters)
        return app

    return asyncio.run(run_online_screen(args, on))


async def start_online(
    connection: Connection,
    mode: Mode,
    suits: int,
    code: str | None,
    *,
    told: Callable[[str], None] | None = None,
) -> OnlineTable:
    """A game started (or taken up) on the server: a daily still being proven as soon as it
    is ready (``told`` hears why it waits). A daily played already is refused as the
    server refused it (``already-played``, for ``--json``), its message telling the result."""
    table = OnlineTable(connection)
    try:
        await when_proven(lambda: table.start(mode, suits, code), told=told or (lambda _: None))
    except ServerError as error:
        if error.code != ErrorCode.ALREADY_PLAYED:
            raise
        said = await _played(connection, error, suits)
        raise ServerError(error.error.model_copy(update={"message": said})) from None
    return table


async def _played(connection: Connection, error: ServerError, suits: int) -> str:
    """Today's deal was played already: the refusal, and the result it got (its rank, or
    under review), as ``simon history`` shows it."""
    from .boards import daily_results, result_text

    try:
        game = (await daily_results(connection, connection.server_day())).get(suits)
    except ClientError:
        game = None
    if game is None:
        return str(error)
    return _("%(error)s; your result: %(result)s") % {"error": error, "result": result_text(game)}


async def run_online_screen(args: argparse.Namespace, make_app: Callable[[Connection], Any]) -> int:
    """Connect (signed in, reconnecting), run the screen ``make_app`` makes on that
    connection until it closes, and return its exit status."""
    connection = await open_connection(args, account=True, reconnect=True)
    app = make_app(connection)
    try:
        await app.run_async()
    finally:
        await connection.close()
    return _after(app)


def _waiting(said: str) -> None:
    """A daily still being proven: the server's sentence, while the start waits for it."""
    print(said, file=sys.stderr, flush=True)


def _after(app: Any) -> int:
    if app.error is not None:  # as it was raised: its kind gives the exit status and code
        raise app.error
    if getattr(app, "printed", None):  # the share text, with no clipboard to copy it to
        print(app.printed)
    table = getattr(app, "table", None)
    if table is not None and table.after is not None:  # the id stays once the screen is gone
        print(replay_line(table.after.game))
    return int(app.return_code or 0)


# -- bot mode -------------------------------------------------------------------------


async def _bot(args: argparse.Namespace, moves: list[str] | None) -> int:
    """Bot mode: play ``moves``, or (None) the solver's solution of the deal."""
    finished: asyncio.Queue[Finished] = asyncio.Queue()

    def pushed(message: ServerMessage) -> None:
        if isinstance(message, Finished):
            finished.put_nowait(message)

    connection = await open_connection(args, account=True)
    connection.on_message = pushed
    try:
        player = connection.player
        if args.daily and (player is None or not player.bot):
            # Ranked dailies are for people; bots have a board of their own.
            raise BotAccountNeeded(
                _(
                    "bot mode on the ranked daily needs a bot account: register one with "
                    "`simon register NAME --bot`, or practise a deal with --code CODE"
                )
            )
        result = await _play_moves(connection, args, moves, finished)
    finally:
        await connection.close()
    if args.json:
        print_json(result)
    else:
        said = {
            "code": result["code"],
            "moves": plural(result["moves"], "move"),
            "score": result["score"],
        }
        if result["won"]:
            line = _("%(code)s: won, %(moves)s, score %(score)s") % said
        else:
            line = _("%(code)s: not won, %(moves)s, score %(score)s") % said
        if "rank" in result:
            line += _(", rank %(rank)s") % {"rank": result["rank"]}
        if "review" in result:
            line += _(", under review (off the leaderboard for now)")
        if note := _board_note(result):
            line += f", {note}"
        print(line)
        if "refused" in result:
            refused = result["refused"]
            print(refused_line(refused) + f" [{refused['rule']}]")
    return 1 if "refused" in result else 0


async def _play_moves(
    connection: Connection,
    args: argparse.Namespace,
    moves: list[str] | None,
    finished: asyncio.Queue[Finished],
) -> dict[str, Any]:
    mode: Mode = "daily" if args.daily else "practice"
    suits = args.suits or (GameCode.parse(args.code).suits if args.code else 1)
    start = Start(type="start", mode=mode, suits=suits, code=args.code)  # type: ignore[arg-type]
    view = (await when_proven(lambda: connection.request(start, State), told=_waiting)).state
    result: dict[str, Any] = {
        "game": view.game,
        "code": view.code,
        "mode": view.mode,
        "suits": view.suits,
        "won": view.won,
        "moves": view.moves,
        "score": view.score,
        "removed": view.removed,
    }
    if moves is None:  # the deal is known only now: the server reveals it at the start
        moves = await asyncio.to_thread(winning_moves, view.code)
    for index, move in enumerate(moves):
        if args.pace:
            await asyncio.sleep(args.pace)
        try:
            reply = await _move_paced(connection, move)
        except ServerError as error:
            if error.error.code not in REFUSALS:
                raise
            rule = error.error.rule or str(error.error.code)
            result["refused"] = {
                "index": index,
                "move": move,
                "rule": rule,
                "message": rule_sentence(error.error.rule, error.error.message),
            }
            break
        result.update(won=reply.won, moves=reply.moves, score=reply.score, removed=reply.removed)
    if result["won"]:
        try:
            end = await asyncio.wait_for(finished.get(), FINISH_WAIT)
        except TimeoutError:
            end = None
        if end is not None:
            result.update(won=end.won, moves=end.moves, score=end.score, elapsed=end.elapsed)
            if end.rank is not None:
                result["rank"] = end.rank
            if end.review is not None:
                result["review"] = end.review
            for name in ("percentile", "streak", "share"):
                if getattr(end, name) is not None:
                    result[name] = end.model_dump(mode="json")[name]
            if end.board is not None:
                result["board"] = end.board
            if end.counts_from is not None:
                result["counts_from"] = end.counts_from.isoformat()
    return result


async def _move_paced(connection: Connection, move: str) -> Moved:
    """Play one move; when the server says to slow down, wait and try again."""
    for attempt in range(RATE_RETRIES):
        try:
            return await connection.request(MoveRequest(type="move", move=move), Moved)
        except ServerError as error:
            if error.error.code != ErrorCode.RATE_LIMITED or attempt == RATE_RETRIES - 1:
                raise
            await asyncio.sleep(RATE_PAUSE)
    raise AssertionError("unreachable")


_pace = bounded(
    float,
    noun=N_("a number of seconds"),
    rule=N_("give 0 to 3600 seconds"),
    accept=lambda v: 0 <= v <= 3600,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help=_("play in the terminal (the daily deal, a code, or offline practice)"),
        description=_("Play Simple Simon full screen; with --moves, play a move list (bot mode)."),
    )
    parser.add_argument("--daily", action="store_true", help=_("today's ranked deal"))
    parser.add_argument(
        "--suits", type=int, choices=SUIT_COUNTS, help=_("1 Easy, 2 Medium, 4 Hard")
    )
    parser.add_argument(
        "--code", metavar=_("CODE"), help=_("a deal by its code, like SS1-S4-AAAAABD")
    )
    parser.add_argument("--offline", action="store_true", help=_("practice with no server"))
    parser.add_argument(
        "--moves", metavar=_("MOVES"), help=_('bot mode: play "3-7 1-2x3 ..." and exit')
    )
    parser.add_argument(
        "--solve",
        action="store_true",
        help=_("bot mode: start the deal, solve it with the bundled solver, play the solution"),
    )
    parser.add_argument(
        "--pace",
        type=_pace,
        metavar="S",
        help=_("bot mode: play a move every S seconds (default: at once)"),
    )
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help=_("bot mode: print JSON")
    )
    parser.add_argument(
        "--letters", action="store_true", help=_("suits as letters (TH) instead of symbols (T♥)")
    )
    add_server_argument(parser)
    parser.set_defaults(handler=cmd_play, command_parser=parser)


def suits_mismatch(code: str, suits: int, asked: int) -> str:
    return _("%(code)s is a %(suits)s-suit deal, not %(asked)s") % {
        "code": code,
        "suits": suits,
        "asked": asked,
    }


def _board_note(result: dict[str, Any]) -> str:
    counts_from = result.get("counts_from")
    return board_note(result.get("board"), date.fromisoformat(counts_from) if counts_from else None)
