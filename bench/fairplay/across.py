"""Trust across days: accounts that play the daily every day for two weeks, through a real
server whose clock the bench moves (as ``bench.fairplay`` does for one day).

Three populations of human accounts, registered on the first day and signed in again every
day after:

- **people**: person-like players (:mod:`bench.fairplay.policy`) of varied skill, each with
  a style and a pace of their own kept across days. Their think times follow how hard their
  own choice is: the pace's think time is scaled by ``sqrt((1 + h) / 3)``, where ``h`` is the
  number of moves the player's own reading of the board values as constructive (the
  policy's own threshold: a forced run gives 1, an open position several). This is the
  bench's model of "people pause where the choice is hard", not a measurement of people; it
  is not the server's measure (the constructive moves of the position,
  server/play/fairplay/difficulty.py), which it only resembles.
- **new_cheat**: from the first day, another solver's line (:mod:`bench.fairplay.beam`, not
  the bundled solver's) at a person's pace (log-normal think times, median 2 to 4 s) with a
  few moves tried and taken back.
- **patient**: person-like for the first ``--patient-days`` days (5), then another solver's
  line at a person's pace, with think times that follow difficulty (scaled by the server's
  own measure, the best a cheater can do) and 10 to 30% of the moves wasted on purpose
  (a move tried and taken back, or a move and its way back).

Reported for each population, by day: the share of its results on the public board and not
held; the share in that day's public top 10; the share held. Targets: new_cheat 0% on the
public board; patient at least 80% held by their third day of cheating; people at most 2%
held, and none of the public top 3 held (a reviewer would have to clear it; nothing is
confirmed here: confirming takes a person).

    python -m bench.fairplay.across                          # 14 days, 1 suit
    python -m bench.fairplay.across --days 14 --suits 2 --json figures.json

The accounts' traces (what they play, and how fast) are made in
:mod:`bench.fairplay.across_traces`.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import logging
import random
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path
from typing import Any, Final

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.engine import SUIT_COUNTS
from server.kinds import DayBoard, suit_count
from server.net import RunningServer, run_server
from server.play.clock import ManualClock
from server.settings import Settings

from .across_traces import Account, Trace, cheat, person
from .beam import beam_line
from .policy import RESTART, UNDO, Style
from .run import (
    FIRST_START,
    LAST_START,
    POSTGRES_ADMIN,
    BenchProver,
    Connection,
    Refused,
    _database,
    _quantiles,
    configure_logging,
)
from .thinking import Pace

log = logging.getLogger("bench.fairplay.across")

POPULATIONS: Final = ("people", "new_cheat", "patient")
#: Beam widths the cheaters' tool is run with (a few lines a deal, not one).
WIDTHS: Final = (60, 100, 150)
#: ... and, when those find no line for a deal, these in turn.
FALLBACK_WIDTHS: Final = (400, 1000)
WASTE_RANGE: Final = (0.10, 0.30)  # a patient cheater's moves wasted on purpose


@dataclass(slots=True)
class Play:
    """One account's daily of one day."""

    account: Account
    day: date
    starts_at: datetime
    trace: Trace = field(default_factory=list)
    step: int = 0
    connection: Connection | None = None
    game: str = ""
    finished: dict[str, Any] = field(default_factory=dict)
    error: str = ""


def _share(found: dict[str, Any], par: int | None) -> float | None:
    """A game's final moves over par, as a share of par."""
    over = found.get("moves_over_par")
    return None if over is None or not par else over / par


# -- playing a day ----------------------------------------------------------------------------


async def play_day(
    running: RunningServer, clock: ManualClock, prover: BenchProver, plays: Sequence[Play],
    traces: Any,
) -> None:  # fmt: skip
    """Play one day's dailies interleaved in the order of the server's clock (each account
    connects when its turn comes: making its trace takes real time)."""
    queue = [(play.starts_at, play.account.index, play) for play in plays]
    heapq.heapify(queue)
    try:
        while queue:
            at, _, play = heapq.heappop(queue)
            if at > clock.now():
                clock.set(at)
            try:
                after = await _next(play, running.url, prover, traces)
            except (
                Refused, OSError, TimeoutError, ValueError, AssertionError, ConnectionClosed
            ) as error:  # fmt: skip
                play.error = str(error)
                log.warning(
                    "account %d (%s): %s", play.account.index, play.account.population, error
                )
                after = None
            if after is not None:
                heapq.heappush(
                    queue, (clock.now() + timedelta(seconds=after), play.account.index, play)
                )
    finally:
        await asyncio.gather(
            *(p.connection.websocket.close() for p in plays if p.connection is not None),
            return_exceptions=True,
        )


async def _next(play: Play, url: str, prover: BenchProver, traces: Any) -> float | None:
    account = play.account
    if play.connection is None:
        play.connection = Connection(await connect(url, compression=None, ping_interval=None))
        if not account.token:
            (registered,) = await play.connection.request(
                {"type": "register", "name": f"ta{account.index}-{uuid.uuid4().hex[:8]}"}
            )
            account.name, account.token = registered["player"]["name"], registered["token"]
        else:
            await play.connection.request({"type": "auth", "token": account.token})
        (state,) = await play.connection.request(
            {"type": "start", "mode": "daily", "suits": prover.suits}
        )
        play.game = state["state"]["game"]
        play.trace = await traces(account, play.day, state["state"]["code"])
        return play.trace[0][0]
    _, action = play.trace[play.step]
    play.step += 1
    last = play.step == len(play.trace)
    if action in (UNDO, RESTART):
        await play.connection.request({"type": action})
    else:
        frames = await play.connection.request(
            {"type": "move", "move": action}, until="finished" if last else None
        )
        if last:
            play.finished = frames[-1]
    if last:
        if not play.finished.get("won"):
            raise Refused(f"the trace ended without a win: {play.finished}")
        await play.connection.websocket.close()
        return None
    return play.trace[play.step][0]


# -- the run ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    people: int = 60
    new_cheat: int = 15
    patient: int = 15
    days: int = 14
    patient_days: int = 5
    seed: int = 1
    suits: int = 1
    database: str | None = None
    solver_seconds: float = 20.0
    plan_seconds: float = 1.0


def make_accounts(options: Options, rng: random.Random) -> list[Account]:
    accounts: list[Account] = []
    counts = {"people": options.people, "new_cheat": options.new_cheat, "patient": options.patient}
    for population in POPULATIONS:
        for _ in range(counts[population]):
            own = random.Random(rng.getrandbits(64))
            accounts.append(
                Account(
                    index=len(accounts),
                    population=population,
                    rng=own,
                    pace=Pace.draw(own),
                    style=Style.draw(own),
                    waste=own.uniform(*WASTE_RANGE),
                )
            )
    return accounts


async def run(options: Options) -> dict[str, Any]:
    started = time.perf_counter()
    rng = random.Random(options.seed)
    first = date(2300, 1, 1) + timedelta(days=rng.randrange(100_000))
    days = [first + timedelta(days=n) for n in range(options.days)]
    accounts = make_accounts(options, rng)
    prover = BenchProver(options.suits, options.solver_seconds)
    lines: dict[tuple[str, int], list[str] | None] = {}

    async def traces(account: Account, day: date, code: str) -> Trace:
        cheating = account.population == "new_cheat" or (
            account.population == "patient" and (day - first).days >= options.patient_days
        )
        if not cheating:
            return await asyncio.to_thread(person, code, account, options.plan_seconds)
        width = WIDTHS[account.index % len(WIDTHS)]
        if (code, width) not in lines:
            lines[code, width] = await asyncio.to_thread(beam_line, code, width=width)
        for wider in FALLBACK_WIDTHS:  # a cheater whose tool fails tries it harder
            if lines[code, width] is not None:
                break
            if (code, wider) not in lines:
                lines[code, wider] = await asyncio.to_thread(beam_line, code, width=wider)
            lines[code, width] = lines[code, wider]
        line = lines[code, width]
        if line is None:
            raise Refused(f"the beam search found no line for {code}")
        return cheat(code, line, account, patient=account.population == "patient")

    clock = ManualClock(datetime.combine(days[0], day_time(0, 0, 30), UTC))
    boards: dict[str, Any] = {}
    async with _database(options.database) as (url, where):
        settings = Settings(
            host="127.0.0.1",
            port=0,
            database_url=url,
            redis_url=None,
            secret=f"trustbench-{options.seed}",
            rate_limit_messages=1_000_000,
            limits_exempt="127.0.0.0/8",
            ping_interval_seconds=None,
            commit_window_ms=0.0,
            log_level="WARNING",
        )
        async with run_server(settings, clock=clock, prover=prover) as running:
            store = running.hub.store
            for day in days:
                clock.set(datetime.combine(day, day_time(0, 0, 30), UTC))
                await running.hub.days.check_day()
                spread = (LAST_START.hour - FIRST_START.hour) * 3600
                plays = [
                    Play(
                        account,
                        day,
                        datetime.combine(day, FIRST_START, UTC)
                        + timedelta(seconds=rng.uniform(0, spread)),
                    )
                    for account in accounts
                ]
                await play_day(running, clock, prover, plays, traces)
                deal = await store.get_daily_deal(day=day, suits=options.suits)
                par = deal.par if deal else None
                top = await store.leaderboard_page(
                    DayBoard(day, suit_count(options.suits)), limit=10
                )
                boards[day.isoformat()] = [row.player for row in top.rows]
                for play in plays:
                    figures: dict[str, Any] = {"error": play.error} if play.error else {}
                    if play.game:
                        screened = await store.screening(play.game)
                        record = await store.get_game(play.game)
                        figures |= {
                            "finished": bool(play.finished),
                            "board": play.finished.get("board"),
                            "held": play.finished.get("review") == "held",
                            "reasons": screened.reasons if screened else [],
                            "percentile": screened.evidence.get("percentile") if screened else None,
                            "think_follow": screened.evidence.get("think_follow")
                            if screened
                            else None,
                            "over_par": (
                                screened.evidence.get("moves_over_par") if screened else None
                            ),
                            "newcomer": bool(record and record.newcomer),
                            "net_over_par": (
                                screened.evidence.get("net_over_par") if screened else None
                            ),
                            "par": par,
                            "moves": screened.evidence.get("moves") if screened else None,
                            "undos": screened.evidence.get("undos") if screened else None,
                            "restarts": screened.evidence.get("restarts") if screened else None,
                            "follow_moves": (
                                screened.evidence.get("follow_moves") if screened else None
                            ),
                            "par_share": _share(screened.evidence if screened else {}, par),
                        }
                        if record is not None:
                            trust = (await store.trust(player_ids=[record.player_id])).get(
                                record.player_id
                            )
                            if trust is not None:
                                figures["suspicion"] = trust.suspicion
                                figures["signals"] = trust.evidence.get("signals", [])
                                figures["pooled_follow"] = trust.evidence.get("think_follow")
                                figures["follow_z"] = trust.evidence.get("follow_z")
                    play.account.days[day.isoformat()] = figures
                log.info("day %s done", day)
            thresholds = asdict(settings.fairplay)
    return report(options, accounts, boards, days, thresholds, where, time.perf_counter() - started)


def report(
    options: Options,
    accounts: Sequence[Account],
    boards: dict[str, list[str]],
    days: Sequence[date],
    thresholds: dict[str, Any],
    where: str,
    wall: float,
) -> dict[str, Any]:
    by_day: dict[str, dict[str, Any]] = {}
    totals: dict[str, dict[str, int]] = {
        p: {"results": 0, "held": 0, "public": 0} for p in POPULATIONS
    }
    top3_held_people = 0
    for day in days:
        key = day.isoformat()
        top = boards.get(key, [])
        row: dict[str, Any] = {}
        for population in POPULATIONS:
            group = [a for a in accounts if a.population == population]
            results = [a for a in group if a.days.get(key, {}).get("finished")]
            public = [
                a for a in results
                if a.days[key]["board"] == "humans" and not a.days[key]["held"]
            ]  # fmt: skip
            held = [a for a in results if a.days[key]["held"]]
            in_top = [a for a in results if a.name in top]
            row[population] = {
                "results": len(results),
                "public_unheld": round(len(public) / len(results), 3) if results else None,
                "top10": round(len(in_top) / len(results), 3) if results else None,
                "top10_places": len(in_top),
                "held": round(len(held) / len(results), 3) if results else None,
                "failed": sum(bool(a.days.get(key, {}).get("error")) for a in group),
            }
            totals[population]["results"] += len(results)
            totals[population]["held"] += len(held)
            totals[population]["public"] += len(public)
        by_day[key] = row
    measures: dict[str, Any] = {}
    for population in POPULATIONS:
        group = [a for a in accounts if a.population == population]
        figures = [f for a in group for f in a.days.values() if f.get("finished")]
        signals: dict[str, int] = {}
        for f in figures:
            for name in f.get("signals", []):
                signals[name] = signals.get(name, 0) + 1
        measures[population] = {
            "think_follow": _quantiles(
                [f["think_follow"] for f in figures if f.get("think_follow") is not None]
            ),
            "pooled_follow_last_day": _quantiles(
                [
                    a.days[days[-1].isoformat()]["pooled_follow"]
                    for a in group
                    if a.days.get(days[-1].isoformat(), {}).get("pooled_follow") is not None
                ]
            ),
            "over_par_share": _quantiles(
                [f["par_share"] for f in figures if f.get("par_share") is not None]
            ),
            "signals (account-days)": signals,
        }
    people = [a for a in accounts if a.population == "people"]
    reasons: dict[str, int] = {}
    for account in accounts:
        for played in account.days.values():
            for reason in played.get("reasons", []):
                kind = f"{account.population}: {reason.split(':')[0].split(' (')[0]}"
                reasons[kind] = reasons.get(kind, 0) + 1
    for day in days:
        key = day.isoformat()
        names = boards.get(key, [])[:3]
        top3_held_people += sum(
            1 for a in people if a.name in names and a.days.get(key, {}).get("held")
        )
    cheat_day = options.patient_days + 2  # the third day of cheating (0-based)
    patient_third = (
        by_day[days[cheat_day].isoformat()]["patient"]["held"] if cheat_day < len(days) else None
    )
    new_public = totals["new_cheat"]["public"] / max(1, totals["new_cheat"]["results"])
    people_held = totals["people"]["held"] / max(1, totals["people"]["results"])
    return {
        "command": "python -m bench.fairplay.across " + " ".join(_flags(options)),
        "options": asdict(options) | {"database": where},
        "thresholds": thresholds,
        "by_day": by_day,
        "totals": totals,
        "targets": {
            "new_cheat_public_share": round(new_public, 4),
            "new_cheat_met": new_public == 0,
            "patient_held_third_cheating_day": patient_third,
            "patient_met": patient_third is not None and patient_third >= 0.8,
            "people_held_share": round(people_held, 4),
            "people_top3_held": top3_held_people,
            "people_met": people_held <= 0.02 and top3_held_people == 0,
        },
        "reasons": dict(sorted(reasons.items(), key=lambda item: -item[1])),
        "measures": measures,
        "wall_seconds": round(wall, 1),
        "accounts": [{"population": a.population, "days": a.days} for a in accounts],
    }


def _flags(options: Options) -> list[str]:
    defaults = Options()
    flags = [
        f"--{name.replace('_', '-')} {getattr(options, name)}"
        for name in ("people", "new_cheat", "patient", "days", "patient_days", "seed", "suits")
        if getattr(options, name) != getattr(defaults, name)
    ]
    if options.database:
        flags.append("--database URL")
    return flags


def print_report(figures: dict[str, Any]) -> None:
    print(f"{figures['command']}  ({figures['options']['database']})")
    print("  day         " + "".join(f"{p:>28}" for p in POPULATIONS))
    print("              " + "".join(f"{'public  top10   held':>28}" for _ in POPULATIONS))
    for day, row in figures["by_day"].items():
        cells = []
        for population in POPULATIONS:
            cell = row[population]
            if cell["results"]:
                cells.append(
                    f"{cell['public_unheld']:>12.0%}{cell['top10']:>7.0%}{cell['held']:>7.0%}  "
                )
            else:
                cells.append(f"{'-':>28}")
        print(f"  {day}  " + "".join(f"{c:>28}" for c in cells))
    targets = figures["targets"]
    print(
        f"  new_cheat on the public board: {targets['new_cheat_public_share']:.1%}"
        f" ({'met' if targets['new_cheat_met'] else 'NOT met'}); patient held on their third "
        f"day of cheating: {targets['patient_held_third_cheating_day']}"
        f" ({'met' if targets['patient_met'] else 'NOT met'}); people held "
        f"{targets['people_held_share']:.1%}, in the top 3 held {targets['people_top3_held']}"
        f" ({'met' if targets['people_met'] else 'NOT met'})"
    )
    for kind, count in figures["reasons"].items():
        print(f"    {count:5}  {kind}")
    for population, measured in figures["measures"].items():
        print(f"  {population}: " + json.dumps(measured))
    print(f"  wall {figures['wall_seconds']} s")


#: The smoke run (``python -m bench --smoke``): a handful of accounts over three days.
SMOKE: Final = "--people 2 --new-cheat 1 --patient 1 --days 3 --patient-days 1"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.fairplay.across",
        description="Fair play across days: people and cheaters over two weeks, real server.",
    )
    parser.add_argument("--people", type=int, default=60)
    parser.add_argument("--new-cheat", type=int, default=15)
    parser.add_argument("--patient", type=int, default=15)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--patient-days", type=int, default=5, help="days played as a person")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, default=1)
    parser.add_argument("--database", nargs="?", const=POSTGRES_ADMIN)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument(
        "--require-targets",
        action="store_true",
        help="exit 1 unless every target is met (the report says which are, either way)",
    )
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    options = Options(
        people=args.people,
        new_cheat=args.new_cheat,
        patient=args.patient,
        days=args.days,
        patient_days=args.patient_days,
        seed=args.seed,
        suits=args.suits,
        database=args.database,
    )
    figures = asyncio.run(run(options))
    print_report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    targets = figures["targets"]
    if not args.require_targets:
        return 0
    return 0 if targets["new_cheat_met"] and targets["patient_met"] and targets["people_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
