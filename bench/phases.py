"""Where a bot's lead comes from: what it bought in the auctions, or how it sold.

One table of 3 to 6 bots (``--table A,B,C,...``, official rules) is played
over duplicate deals with seat rotation, as ``bench/strength.py`` plays its
tables, every game recorded. Each record is replayed by the engine up to the
end of the auction phase, and every seat is valued there: its coins plus
the expected cheques of its houses against the other hands
(:func:`forsale.bots.valuation.hand_values`, the auction search's own
valuation), in points above the table's mean. Beside it stand each bot's
final score above the mean and its win share.

A bot ahead at the end of the auctions bought well; a final lead larger
than that one sold well. ``--compare A B`` gives ``A - B`` for each
measure, paired over deals (both bots sit at every game of a deal), with
its 95% interval over deals: where, of the two phases, one bot gains on
the other.

Run: ``python bench/phases.py --table hard,hard-v1,medium,expert,pop-vpace100-anticipate,pop-share80-rankmix25
--games 240 --seed 8 --workers 2 --compare hard hard-v1``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from forsale.arena import GameResult, mean_ci, run_tournament
from forsale.arena.tournament import SEATINGS
from forsale.bots import make_agent
from forsale.bots.valuation import hand_values
from forsale.record import from_record
from harness import population  # registers the pop-... members a table may name, here and in the workers
from harness.stats import rounded, share_ci

MEASURES = ("auction_points", "final_points", "share")
"""Per bot and deal: points above the table's mean at the end of the auctions, at the end; the win share."""


def auction_end_points(record: dict[str, Any]) -> list[float]:
    """Each seat's coins plus its houses' expected cheques once the auctions are over, above the table's mean."""
    moves = record["moves"]
    first_sale = next((i for i, move in enumerate(moves) if "sell" in move), len(moves))
    state = from_record({**record, "moves": moves[:first_sale]})
    worth = [c + v for c, v in zip(state.coins, hand_values([sorted(h) for h in state.hands]), strict=True)]
    mean = sum(worth) / len(worth)
    return [w - mean for w in worth]


def per_deal(results: Sequence[GameResult], players: int) -> dict[str, dict[str, dict[int, float]]]:
    """Bot -> measure -> deal -> the bot's mean over that deal's games (over every seat it filled)."""
    sums: dict[str, dict[str, dict[int, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for result in results:
        assert result.record is not None
        deal = result.index // players
        bought = auction_end_points(result.record)
        mean_score = sum(result.scores) / players
        for seat, bot in enumerate(result.bots):
            sums[bot]["auction_points"][deal].append(bought[seat])
            sums[bot]["final_points"][deal].append(result.scores[seat] - mean_score)
            sums[bot]["share"][deal].append(result.shares[seat])
    return {
        bot: {m: {d: sum(v) / len(v) for d, v in sorted(deals.items())} for m, deals in measures.items()}
        for bot, measures in sums.items()
    }


def summary(deals: dict[str, dict[str, dict[int, float]]]) -> list[dict[str, Any]]:
    """Per bot, each measure's mean over deals with its 95% interval; by final share, best first."""
    rows = []
    for bot, measures in deals.items():
        row: dict[str, Any] = {"bot": bot, "deals": len(measures["share"])}
        for m in MEASURES:
            values = list(measures[m].values())
            mean, lo, hi = share_ci(values) if m == "share" else mean_ci(values)  # a share stays within 0..1
            row[m] = {"mean": mean, "ci": [lo, hi]}
        rows.append(row)
    return sorted(rows, key=lambda row: (-row["share"]["mean"], row["bot"]))


def compare(deals: dict[str, dict[str, dict[int, float]]], a: str, b: str) -> dict[str, Any]:
    """``a - b`` for each measure, paired over the deals both played."""
    out: dict[str, Any] = {"a": a, "b": b}
    for m in MEASURES:
        x, y = deals[a][m], deals[b][m]
        mean, lo, hi = mean_ci([x[d] - y[d] for d in x if d in y])
        out[m] = {"mean": mean + 0.0, "ci": [lo, hi]}  # + 0.0: no "-0.0%" for a tie
    return out


def show(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 130))
    n = len(report["table"])
    title = f"{n} players, {report['games']} games ({report['deals']} deals): points above the table's mean"
    table = Table(title=title)
    for column in ("bot", "after the auctions", "95% CI", "at the end", "95% CI", "win share", "95% CI"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in report["bots"]:
        cells = [row["bot"]]
        for m in MEASURES:
            fmt = "{:.1%}" if m == "share" else "{:+.2f}"
            value = row[m]
            cells += [fmt.format(value["mean"]), " - ".join(fmt.format(x) for x in value["ci"])]
        table.add_row(*cells)
    console.print(table)
    if report.get("compare"):
        c = report["compare"]
        parts = []
        for m, label in zip(MEASURES, ("after the auctions", "at the end", "win share"), strict=True):
            fmt = "{:+.1%}" if m == "share" else "{:+.2f}"
            value = c[m]
            parts.append(f"{label} {fmt.format(value['mean'])} ({' to '.join(fmt.format(x) for x in value['ci'])})")
        console.print(f"{c['a']} - {c['b']}, paired over deals: " + "; ".join(parts))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--table", required=True, metavar="A,B,C", help="the table's bots, 3 to 6, comma-separated")
    p.add_argument("--games", type=int, default=60, help="games, rounded up to whole deals (default 60)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="processes (default 1: one core)")
    p.add_argument(
        "--seating",
        choices=SEATINGS,
        default="shuffle",
        help="each deal seats the bots in its own order before rotating (default), or rotates the lineup as given",
    )
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="A - B, paired over deals (two bots of the table)")
    p.add_argument("--json", metavar="OUT", help="write the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    bots = [name.strip() for name in args.table.split(",")]
    if not 3 <= len(bots) <= 6 or not all(bots) or len(set(bots)) != len(bots):
        p.error(f"--table takes 3 to 6 distinct bots, comma-separated, not {args.table!r}")
    if args.games < 1 or args.workers < 1:
        p.error("--games and --workers must be at least 1")
    if args.compare and not set(args.compare) <= set(bots):
        p.error(f"--compare takes two bots of the table, not {' '.join(args.compare)}")
    for name in bots:
        try:
            make_agent(name)
        except ValueError as error:
            p.error(str(error))
    n = len(bots)
    games = rounded(args.games, n)
    from rich import progress as bar

    columns = (bar.TextColumn("games"), bar.BarColumn(), bar.MofNCompleteColumn(), bar.TimeRemainingColumn())
    with bar.Progress(*columns, disable=args.no_progress, transient=True) as progress:
        task = progress.add_task("games", total=games)
        results = run_tournament(
            bots,
            games,
            args.seed,
            jobs=args.workers,
            records=True,
            on_result=lambda _: progress.advance(task),
            seating=args.seating,
            bot_modules=[population.__name__],
        )
    deals = per_deal(results, n)
    report: dict[str, Any] = {
        "table": bots, "games": games, "deals": games // n, "seed": args.seed, "seating": args.seating,
        "bots": summary(deals),
        "compare": compare(deals, *args.compare) if args.compare else None,
    }  # fmt: skip
    show(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
