"""``forsale analyse RECORD``: each decision of a game with every legal action's chance of winning.

The analysis itself is :func:`forsale.bots.analysis.analyse` (importable,
the same one the web page's post-game analysis uses); this module reads the
record, shows a progress bar while it runs and prints either rich tables (a
row per decision, the costliest ones flagged with the better move) or,
with ``--json``, the analysis as one JSON object. A file that is not JSON,
not a record, or holds an illegal move exits 2 with one line saying so (the
referee's words for an illegal move).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..actions import Action
from ..errors import RecordError
from ._extras import require
from ._files import add_record_argument, read_record_bytes

FLAGGED = 3
"""How many of a seat's costliest decisions are flagged in the table and listed under it."""


def register(sub: argparse._SubParsersAction) -> None:
    from ..bots.analysis import DEFAULT_BUDGET

    p = sub.add_parser(
        "analyse",
        help="each decision of a game with every legal action's chance of winning, and the costliest moves",
        description=(
            "Analyse a forsale-record/1 record: for each decision of a seat, the chance of winning the hard bot's "
            "estimator gives every legal action (valued from that seat's view only), and the moves that cost the "
            "most, with the better move. Exit 2 for a file that is not a legal record."
        ),
    )
    add_record_argument(p)
    p.add_argument("--seat", metavar="S", help="a seat number (0 first) or a player's name; default: every seat")
    p.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="B",
        help=(
            f"samples per evaluation (hard's estimator's samples=, not a time, so the analysis is the same on "
            f"any machine): more is surer and slower (default {DEFAULT_BUDGET})"
        ),
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help="seed: the same seed gives the same analysis")
    p.add_argument("--json", action="store_true", help="print the analysis as one JSON object")
    p.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"forsale analyse: {message}", file=sys.stderr)
    return 2


def _seat(text: str | None, players: list[str]) -> int | None:
    if text is None:
        return None
    if text in players:
        return players.index(text)
    if text.isdigit() and int(text) < len(players):
        return int(text)
    raise ValueError(
        f"--seat {text!r} is neither a seat from 0 to {len(players) - 1} nor a player ({', '.join(players)})"
    )


def run(args: argparse.Namespace) -> int:
    require("analyse")
    from ..bots.analysis import analyse
    from ..record import from_record

    if args.budget < 1:
        return _fail(f"--budget must be at least 1 sample, not {args.budget}")
    try:
        text = read_record_bytes(args.file)
    except OSError as error:
        return _fail(f"cannot read {args.file}: {error.strerror}")
    try:
        record = json.loads(text)
    except (ValueError, RecursionError) as error:
        return _fail(f"{args.file} is not valid JSON: {error}")
    try:
        from_record(record)
    except RecordError as error:
        where = f" (move {error.move})" if error.move is not None else ""
        kind = "an illegal record" if error.move is not None else "not a game record"
        return _fail(f"{args.file} is {kind}{where}: {error}")
    try:
        seat = _seat(args.seat, record["players"])
    except ValueError as error:
        return _fail(str(error))
    with _progress() as advance:
        result = analyse(record, seat=seat, budget=args.budget, seed=args.seed, progress=advance)
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(FLAGGED)) + "\n")
    else:
        _print_tables(result)
    return 0


class _progress:
    """A rich progress bar on standard error while the analysis runs; yields ``advance(done, total)``."""

    def __enter__(self) -> Any:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._bar = Progress(
            TextColumn("analysing"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
            transient=True,
        )
        self._bar.__enter__()
        task = self._bar.add_task("analysing", total=None)

        def advance(done: int, total: int) -> None:
            self._bar.update(task, completed=done, total=total)

        return advance

    def __exit__(self, *exc: object) -> None:
        self._bar.__exit__(None, None, None)


def _percent(chance: float) -> str:
    return f"{chance:.0%}"


def _print_tables(result: Any) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(highlight=False)
    players = [escape(name) for name in result.players]
    for seat in result.seats:
        flagged = {d.move: d for d in result.costliest(seat, FLAGGED)}
        table = Table(title=f"{players[seat]} (seat {seat}): chance of winning of every legal action")
        table.add_column("move", justify="right")
        table.add_column("round")
        table.add_column("played")
        table.add_column("chance", justify="right")
        table.add_column("best")
        table.add_column("loss", justify="right")
        table.add_column("every legal action")
        for d in (d for d in result.decisions if d.seat == seat):
            flag = "[bold red]!![/] " if d.move in flagged else ""
            table.add_row(
                str(d.move),
                f"{d.phase} {d.round + 1}",
                f"{flag}{d.chosen}",
                _percent(d.chosen_chance),
                str(d.best),
                f"{d.loss * 100:.0f} pts" if d.loss > 0 else "-",
                "  ".join(_choice(a, c, d.chosen) for a, c in d.chances),
            )
        console.print(table)
        worst = result.costliest(seat, FLAGGED)
        if worst:
            console.print(f"Costliest decisions of {players[seat]}:")
            for d in worst:
                console.print(
                    f"  move {d.move} ({d.phase} round {d.round + 1}): played {d.chosen} ({_percent(d.chosen_chance)}); "
                    f"{d.best} would have given {_percent(d.best_chance)} (+{d.loss * 100:.0f} points of win chance)"
                )
        else:
            console.print(f"{players[seat]} made no costly decision by this analysis.")
    final = result.chances[-1]
    console.print(
        "Chance of winning at the end: "
        + ", ".join(f"{name} {_percent(c)}" for name, c in zip(players, final))
        + ("" if result.complete else " (the game is not finished)")
    )


def _choice(action: Action, chance: float, chosen: Action) -> str:
    text = f"{action} {_percent(chance)}"
    return f"[bold]{text}[/]" if action == chosen else text
