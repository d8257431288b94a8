"""``forsale tournament``: bots against bots, with seat rotation and duplicate deals.

Prints a progress bar, then one row per bot: seats played, wins (shared
wins split), win rate with its 95% interval, mean score with its interval,
mean decision time and an openskill (Plackett-Luce) rating. ``--json``,
``--plot`` and ``--records`` save the same results for programs, people
and replays.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..rules import PRESETS, Ruleset

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..arena.tournament import GameResult
from ._extras import require


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tournament",
        help="play bots against each other and report win rates with confidence intervals",
        description=(
            "Play GAMES games between the bots (one per seat). Every block of PLAYERS games plays one deal with "
            "the lineup rotated through every seat, so the luck of the cards cancels out; each deal seats the "
            "bots in an order of its own first (--seating shuffle), so no bot keeps the same neighbours. A bot "
            "is a name with options after colons, e.g. hard:time=0.2."
        ),
    )
    p.add_argument("--players", type=int, required=True, help="seats at the table (2-6)")
    p.add_argument("--bots", required=True, help="comma-separated bot specs, one per seat, e.g. hard,value,value,value")
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed: deals and bot randomness (default 0)")
    p.add_argument("--rules", default=None, help=f"ruleset preset ({', '.join(PRESETS)}); default: official")
    p.add_argument("--jobs", type=int, default=1, help="games played in parallel (processes or Ray CPUs)")
    p.add_argument("--backend", choices=("local", "ray"), default="local", help="where games run (default local)")
    p.add_argument(
        "--seating",
        choices=("shuffle", "rotate"),  # the arena's SEATINGS, not imported: the CLI starts without the arena
        default="shuffle",
        help="shuffle: each deal seats the bots in its own order, then rotates it (default); "
        "rotate: the lineup as given, rotated (every bot keeps its neighbours, as tournaments before this option)",
    )
    p.add_argument(
        "--bot-module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE to register more bots, here and in every worker (repeatable); the bench's measurement "
        "population (pop-...) is harness.population, with the checkout's bench/ on PYTHONPATH",
    )
    p.add_argument("--json", metavar="FILE", help="write the per-bot statistics as JSON")
    p.add_argument("--plot", metavar="FILE", help="draw win rates and score distributions (png, svg, pdf)")
    p.add_argument("--records", metavar="DIR", help="save every game as a forsale-record/1 file in DIR")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"forsale tournament: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    require(
        "tournament",
        *(["tournament --plot"] if args.plot else []),
        *(["tournament --backend ray"] if args.backend == "ray" else []),
    )
    from ..bots import agent_names, make_agent
    from ..errors import ForSaleError

    for module in args.bot_module:
        try:
            importlib.import_module(module)
        except ImportError as error:
            return _fail(f"--bot-module {module}: {error}")
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(bots) != args.players:
        return _fail(f"--players {args.players} needs {args.players} bots, one per seat, but --bots names {len(bots)}")
    for spec in dict.fromkeys(bots):
        try:
            make_agent(spec)
        except ValueError as error:
            return _fail(
                f"{error}" if "known bots" in str(error) else f"{error} (known bots: {', '.join(agent_names())})"
            )
    if args.games < 1:
        return _fail(f"--games must be at least 1, not {args.games}")
    if args.jobs < 1:
        return _fail(f"--jobs must be at least 1, not {args.jobs}")
    try:
        rules = Ruleset.parse(args.rules, args.players)
    except ForSaleError as error:
        return _fail(str(error))
    records_dir = Path(args.records) if args.records else None
    if records_dir is not None:
        try:
            records_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            return _fail(f"cannot create {records_dir}: {error.strerror}")

    from ..arena.stats import summarize, to_json

    results = _play(args, bots, rules, records_dir is not None)
    stats = summarize(results)
    _print_table(stats, args, rules)
    if records_dir is not None:
        width = len(str(args.games))
        for result in results:
            path = records_dir / f"game-{result.index:0{width}d}.json"
            path.write_text(json.dumps(result.record) + "\n")
    if args.json:
        doc = to_json(
            stats,
            players=args.players,
            lineup=bots,
            games=args.games,
            seed=args.seed,
            rules=rules.to_json(),
            backend=args.backend,
            seating=args.seating,
        )
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")
    if args.plot:
        from ..arena.plot import plot_summary

        plot_summary(stats, args.plot, title=f"{args.games} games, {args.players} players: {', '.join(bots)}")
    return 0


def _play(args: argparse.Namespace, bots: list[str], rules: Ruleset, records: bool) -> list[GameResult]:
    from ..arena.tournament import run_tournament

    def play(on_result: Callable[[GameResult], None] | None = None) -> list[GameResult]:
        return run_tournament(
            bots,
            args.games,
            args.seed,
            rules=rules,
            jobs=args.jobs,
            backend=args.backend,
            records=records,
            on_result=on_result,
            seating=args.seating,
            bot_modules=args.bot_module,
        )

    if args.quiet:
        return play()
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task("games", total=args.games)
        return play(lambda _result: progress.advance(task))


def _print_table(stats: dict, args: argparse.Namespace, rules: object) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{args.games} games · {rules.describe()} · seed {args.seed}")  # type: ignore[attr-defined]
    for column in ("bot", "seats", "wins", "win rate", "95% CI", "mean score", "95% CI ", "ms/decision", "rating"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for name, s in sorted(stats.items(), key=lambda item: -item[1].win_rate):
        lo, hi = s.win_rate_ci
        slo, shi = s.mean_score_ci
        table.add_row(
            name,
            str(s.games),
            f"{s.wins:g}",
            f"{s.win_rate:.1%}",
            f"{lo:.1%}-{hi:.1%}",
            f"{s.mean_score:.1f}",
            f"{slo:.1f}-{shi:.1f}",
            f"{s.mean_decision_s * 1000:.2f}",
            f"{s.rating_mu:.1f}±{s.rating_sigma:.1f}",
        )
    console = Console()
    if not console.is_terminal:  # piped or captured: do not squeeze the table into 80 columns
        console = Console(width=160)
    console.print(table)
