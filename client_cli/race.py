"""``simon race``: race friends on one fresh deal (docs/client.md, "Race your friends").

``simon race new`` opens a room and shows its code, ``simon race join CODE`` joins one,
``simon race quick`` joins the open public room of a suit count. The screen shows the
room (racers, countdown; the owner starts with ``s``), then the game with the room's live
standings, then the results (``m`` for a rematch).

Bot mode (``--solve``, bot accounts in rooms that allow bots) has no screen: it prints a
JSON line with the room at once, waits for the start (``race new --start-at N`` starts
when N racers are in), plays the bundled solver's solution of the revealed deal, one move
every ``--pace`` seconds, and prints the final standings as its last JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from server.engine import SUIT_COUNTS, GameCode, InvalidCodeError
from server.kinds import (
    FEWEST_RACERS,
    LONGEST_TIME_LIMIT,
    MOST_RACERS,
    SHORTEST_TIME_LIMIT,
    TIME_LIMIT,
)
from server.protocol import (
    ROOM_CODE_RULE,
    ErrorCode,
    Moved,
    RaceJoin,
    RaceNew,
    RaceQuick,
    RaceRoom,
    RaceStart,
    Resign,
    RoomEntry,
    RoomView,
    ServerMessage,
    State,
    room_code_form,
)

from .arguments import bounded, refuse
from .config import Config
from .connection import Connection
from .errors import BotAccountNeeded, NetworkError, ServerError
from .offline import add_json_argument, refused_line
from .online import add_server_argument, open_connection, print_json
from .play import REFUSALS, _move_paced, _pace, run_online_screen, screen_check, suits_mismatch
from .race_table import Opening, RaceTable, browser_link, ordinal, race_time
from .solve import winning_moves
from .table import Table
from .wording import player_label, plural, rule_sentence
from .words import N_, _, pad

#: Bot mode looks at the connection this often while it waits (seconds).
WAIT_TICK = 5.0


def _opening(args: argparse.Namespace, suits: int | None) -> Opening:
    if args.race_command == "join":
        return RaceJoin(type="race_join", code=args.code)
    if args.race_command == "quick":
        return RaceQuick(type="race_quick", suits=suits or 1)  # type: ignore[arg-type]
    return RaceNew(
        type="race_new",
        suits=suits or 1,  # type: ignore[arg-type]
        code=args.deal,
        public=args.public,
        capacity=args.capacity,
        allow_bots=args.allow_bots,
        time_limit=None if args.minutes is None else int(args.minutes * 60),
    )


def _check(args: argparse.Namespace) -> None:
    bot_only = [
        flag
        for flag, given in (("--pace", args.pace is not None), ("--start-at", args.start_at))
        if given
    ]
    if bot_only and not args.solve:
        refuse(args, _("%(option)s is for bot mode: give --solve too") % {"option": bot_only[0]})
    if args.race_command == "new" and args.deal:
        try:
            code = GameCode.parse(args.deal)
        except InvalidCodeError as error:
            refuse(args, str(error))
        if args.suits is not None and args.suits != code.suits:
            refuse(args, suits_mismatch(str(code), code.suits, args.suits))
    if args.start_at is not None and args.start_at > args.capacity:
        refuse(
            args, _("--start-at %(count)s is more than the room holds") % {"count": args.start_at}
        )


def cmd_race(args: argparse.Namespace) -> int:
    _check(args)
    if args.solve:
        return asyncio.run(_bot(args))
    if args.race_command == "quick":
        screen_check(
            args,
            _(
                "quick races are for people; a script races with "
                "`simon race new --allow-bots --solve` or `simon race join CODE --solve`"
            ),
        )
    else:
        screen_check(args, _("for a script, race with --solve (bot mode, a bot account)"))
    return _race_screen(args)


# -- the screen -----------------------------------------------------------------------


def _race_screen(args: argparse.Namespace) -> int:
    from .ui.race_app import RaceApp  # Textual loads only for the screen

    config = Config()
    fixed = args.race_command == "join" or (args.race_command == "new" and args.deal)
    suits = args.suits
    if args.race_command == "new" and args.deal:
        suits = GameCode.parse(args.deal).suits
    ask = None if fixed or suits is not None else (config.last_suits or 1)

    def remember(choice: int) -> None:
        config.last_suits = choice
        config.save()

    def on(connection: Connection) -> Any:
        async def open_room(chosen: int | None) -> Table:
            table = RaceTable(connection)
            await table.open(_opening(args, chosen or suits))
            return table

        return RaceApp(open_room, ask_suits=ask, remember_suits=remember, letters=args.letters)

    return asyncio.run(run_online_screen(args, on))


# -- bot mode -------------------------------------------------------------------------


def _say(args: argparse.Namespace, data: dict[str, Any], text: str) -> None:
    if args.json:
        print_json(data)
    else:
        print(text)
    sys.stdout.flush()  # a script reads the room's code before the race


async def _bot(args: argparse.Namespace) -> int:
    connection = await open_connection(args, account=True)
    messages: asyncio.Queue[ServerMessage] = asyncio.Queue()
    connection.on_message = messages.put_nowait
    try:
        player = connection.player
        if player is None or not player.bot:
            raise BotAccountNeeded(
                _(
                    "race bot mode needs a bot account: register one with "
                    "`simon register NAME --bot`, in a room that allows bots"
                )
            )
        room = (await connection.request(_opening(args, args.suits), RaceRoom)).room
        _say(
            args,
            {
                "room": room.code,
                "state": room.state,
                "suits": room.suits,
                "owner": room.owner,
                "link": browser_link(connection.url, room.code),
            },
            _(
                "race room %(code)s (%(suits)s): others join with "
                "`simon race join %(code)s` or at %(link)s"
            )
            % {
                "code": room.code,
                "suits": plural(room.suits, "suit"),
                "link": browser_link(connection.url, room.code),
            },
        )
        bot = _RaceBot(connection, args, room, player.name)
        result = await bot.run(messages)
    finally:
        await connection.close()
    _say(args, result, _standings_text(result))
    return 1 if "refused" in result else 0


class _RaceBot:
    """Waits for the reveal, plays the solver's line, waits for the end."""

    def __init__(
        self, connection: Connection, args: argparse.Namespace, room: RoomView, me: str
    ) -> None:
        self.connection = connection
        self.args = args
        self.room = room
        self.me = me
        self.start_sent = False
        self.playing: asyncio.Task[None] | None = None
        self.refused: dict[str, Any] | None = None

    async def run(self, messages: asyncio.Queue[ServerMessage]) -> dict[str, Any]:
        await self._maybe_start()
        while self.room.state not in ("over", "expired"):
            try:
                message = await asyncio.wait_for(messages.get(), WAIT_TICK)
            except TimeoutError:
                if not self.connection.connected:
                    raise NetworkError(_("lost the connection to the server")) from None
                continue
            if isinstance(message, RaceRoom) and message.room.code == self.room.code:
                if message.room.revision >= self.room.revision:
                    self.room = message.room
                await self._maybe_start()
            elif (
                isinstance(message, State)
                and message.state.race == self.room.code
                and self.playing is None
            ):
                self.playing = asyncio.create_task(self._play(message.state.code))
        if self.playing is not None:
            self.playing.cancel()
            await asyncio.gather(self.playing, return_exceptions=True)
        return self._result()

    async def _maybe_start(self) -> None:
        wanted = self.args.start_at
        room = self.room
        if (
            wanted is None
            or self.start_sent
            or room.state != "open"
            or room.owner != self.me
            or len(room.racers) < wanted
        ):
            return
        self.start_sent = True
        reply = await self.connection.request(
            RaceStart(type="race_start", code=room.code), RaceRoom
        )
        if reply.room.revision >= self.room.revision:
            self.room = reply.room

    async def _play(self, code: str) -> None:
        moves = await asyncio.to_thread(winning_moves, code)
        for index, move in enumerate(moves):
            if self.args.pace:
                await asyncio.sleep(self.args.pace)
            try:
                reply: Moved = await _move_paced(self.connection, move)
            except ServerError as error:
                if error.error.code not in REFUSALS:
                    raise
                self.refused = {
                    "index": index,
                    "move": move,
                    "rule": error.error.rule or str(error.error.code),
                    "message": rule_sentence(error.error.rule, error.error.message),
                }
                if error.error.code != ErrorCode.GAME_OVER:
                    await self.connection.request(Resign(type="resign"), State)
                return
            if reply.won:
                return

    def _result(self) -> dict[str, Any]:
        room = self.room
        standings = [_line(entry) for entry in sorted(room.racers, key=RoomEntry.standing)]
        result: dict[str, Any] = {
            "room": room.code,
            "state": room.state,
            "deal": room.deal,
            "standings": standings,
        }
        mine = next((line for line in standings if line["player"] == self.me), None)
        if mine is not None:
            result["you"] = mine
        if self.refused is not None:
            result["refused"] = self.refused
        return result


def _line(entry: RoomEntry) -> dict[str, Any]:
    return {
        "place": entry.place,
        "player": entry.player,
        "bot": entry.bot,
        "won": entry.won,
        "resigned": entry.resigned,
        "moves": entry.moves,
        "score": entry.score,
        "removed": entry.removed,
        "elapsed": entry.elapsed,
    }


#: A room's states as the standings' heading says them.
ROOM_STATES = {
    "open": N_("open"),
    "countdown": N_("counting down"),
    "racing": N_("racing"),
    "over": N_("over"),
    "expired": N_("expired"),
}


def _standings_text(result: dict[str, Any]) -> str:
    state = _(ROOM_STATES.get(result["state"], result["state"]))
    lines = [_("race %(room)s: %(state)s") % {"room": result["room"], "state": state}]
    for line in result["standings"]:
        place = ordinal(line["place"]) if line["place"] else "-"
        if line["won"]:
            how = _("won in %(time)s") % {"time": race_time(line["elapsed"] or 0.0)}
        elif line["resigned"]:
            how = _("resigned")
        else:
            how = _("%(removed)s/4 runs") % {"removed": line["removed"]}
        lines.append(
            f"  {pad(place, 4, '>')}  {player_label(line['player'], line['bot'])}  {how}, "
            f"{plural(line['moves'], 'move')}"
        )
    if "refused" in result:
        lines.append(refused_line(result["refused"]))
    return "\n".join(lines)


# -- the command line -----------------------------------------------------------------


def _room_code(text: str) -> str:
    """A room code as typed (any case, the dash optional), checked before connecting."""
    code = room_code_form(text)
    if code is None:
        raise argparse.ArgumentTypeError(ROOM_CODE_RULE)
    return code


_capacity = bounded(
    int,
    noun=N_("a whole number"),
    rule=N_("a room holds %(least)s to %(most)s racers"),
    values={"least": FEWEST_RACERS, "most": MOST_RACERS},
    accept=lambda v: FEWEST_RACERS <= v <= MOST_RACERS,
)
_minutes = bounded(
    float,
    noun=N_("a number of minutes"),
    rule=N_("give %(least)s to %(most)s minutes"),
    values={"least": SHORTEST_TIME_LIMIT // 60, "most": LONGEST_TIME_LIMIT // 60},
    accept=lambda v: SHORTEST_TIME_LIMIT <= v * 60 <= LONGEST_TIME_LIMIT,
)


def _bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--solve",
        action="store_true",
        help=_("bot mode: play the solver's solution of the revealed deal (bot accounts)"),
    )
    parser.add_argument(
        "--pace",
        type=_pace,
        metavar="S",
        help=_("bot mode: a move every S seconds (default: at once)"),
    )
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help=_("bot mode: print JSON")
    )


def _screen_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--letters", action="store_true", help=_("suits as letters (TH) instead of symbols (T♥)")
    )
    add_server_argument(parser)
    parser.set_defaults(
        handler=cmd_race,
        command_parser=parser,
        solve=False,
        pace=None,
        start_at=None,
        deal=None,
        public=False,
        capacity=MOST_RACERS,
        allow_bots=False,
        minutes=None,
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    race = subparsers.add_parser(
        "race",
        help=_("race friends on one fresh deal: a room of your own, or a quick race"),
        description=_(
            "Race rooms: a few players start together on the same fresh deal; the "
            "first to clear the table wins."
        ),
    )
    commands: Any = race.add_subparsers(dest="race_command", required=True, metavar=_("COMMAND"))
    new = commands.add_parser("new", help=_("open a room and share its code"))
    new.add_argument("--suits", type=int, choices=SUIT_COUNTS, help=_("1 Easy, 2 Medium, 4 Hard"))
    new.add_argument(
        "--code", dest="deal", metavar=_("CODE"), help=_("race this deal (a game code)")
    )
    new.add_argument("--public", action="store_true", help=_("counts down by itself at 3 racers"))
    new.add_argument(
        "--capacity",
        type=_capacity,
        metavar="N",
        help=_("%(least)s to %(most)s racers (%(most)s)")
        % {"least": FEWEST_RACERS, "most": MOST_RACERS},
    )
    new.add_argument(
        "--minutes",
        type=_minutes,
        metavar="M",
        help=_("time limit (server's: %(minutes)s)") % {"minutes": f"{TIME_LIMIT / 60:g}"},
    )
    new.add_argument("--allow-bots", action="store_true", help=_("bot accounts may join"))
    new.add_argument(
        "--start-at", type=int, metavar="N", help=_("bot mode: start the race when N racers are in")
    )
    _bot_arguments(new)
    _screen_arguments(new)
    join = commands.add_parser("join", help=_("join a room by its code"))
    join.add_argument(
        "code", type=_room_code, metavar=_("CODE"), help=_("the room's code, e.g. KXR4M-7M2PQ")
    )
    join.set_defaults(suits=None)
    _bot_arguments(join)
    _screen_arguments(join)
    quick = commands.add_parser("quick", help=_("join the open public room of a suit count"))
    quick.add_argument("--suits", type=int, choices=SUIT_COUNTS, help=_("1 Easy, 2 Medium, 4 Hard"))
    add_json_argument(quick)  # refused (quick races have no bot mode), as before the command
    _screen_arguments(quick)
