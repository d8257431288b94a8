"""``forsale lab``: the rules lab: several rulesets played on the same deals, compared.

For each player count, every ruleset is played on the same seeded deals
(each uses the first ``30 - removed`` cards of the same shuffles) with the
same policy stream, and the table shows what the rules change: the spread
of final scores, the money spent in auctions, the seat advantage and how
often the coins tie-break decides the winner.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ForSaleError
from ._extras import require

if TYPE_CHECKING:
    from rich.console import JustifyMethod
from ._simtools import (
    POLICY_NAMES,
    add_common_arguments,
    check_output_paths,
    fail,
    fresh_seed,
    positive_int,
    progress_bar,
    write_json,
)


def _player_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of player counts") from None
    bad = [c for c in counts if not 2 <= c <= 6]
    if bad or not counts:
        raise argparse.ArgumentTypeError(f"player counts must be 2 to 6, not {text!r}")
    return counts


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lab",
        help="compare rulesets on the same deals (spread, money spent, seat advantage, tie-breaks)",
        description=(
            "The rules lab: play several rulesets on the same seeded deals and compare the spread of final "
            "scores, the money spent in auctions, the seat advantage and how often the coins tie-break decides. "
            "Without --rules: for 3-6 players official, refund-up, first-edition and the first edition's coins "
            "alone; for 2 players the two-player preset, with the refund rounded up, and with no cards removed."
        ),
    )
    p.add_argument("--games", type=positive_int, default=20_000, help="deals per player count (default 20000)")
    p.add_argument(
        "--players",
        type=_player_counts,
        default=[2, 3, 4, 5, 6],
        help="player counts, comma-separated (default 2,3,4,5,6)",
    )
    p.add_argument(
        "--rules",
        action="append",
        default=None,
        metavar="RULES",
        help="a ruleset to compare (repeat the option): a preset, a JSON object of knobs, or "
        "coins=N,removed=N,refund=down|up; default: see above",
    )
    p.add_argument(
        "--policy",
        action="append",
        default=None,
        choices=POLICY_NAMES,
        help="what every seat plays (repeat to compare several; default value)",
    )
    add_common_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("lab", *(["lab --plot"] if args.plot else []))
    from ..sim.memory import retain_freed_memory
    from ..sim.run import default_lab_rulesets, lab, parse_rules, rules_label

    policies = args.policy or ["value"]
    plan = []
    try:
        for players in args.players:
            if args.rules:
                rulesets = [parse_rules(spec, players) for spec in args.rules]
            else:
                rulesets = default_lab_rulesets(players)
            plan.append((players, rulesets))
    except ForSaleError as error:
        return fail("lab", str(error))
    problem = check_output_paths(args.json, args.plot)
    if problem:
        return fail("lab", problem)
    retain_freed_memory()
    if args.seed is None:
        args.seed = fresh_seed()  # printed and saved, so any run can be repeated
    total = sum(len(r) for _, r in plan) * len(policies) * args.games
    rows: list[dict[str, Any]] = []
    with progress_bar(total, "rules lab", args.quiet) as bar:
        for players, rulesets in plan:
            for row in lab(players, rulesets, policies, args.games, seed=args.seed, chunk=args.chunk, progress=bar):
                figures = row.summary.to_json()
                figures.update({"policy": row.policy, "label": rules_label(row.rules)})
                rows.append(figures)
    print_lab(rows, args.games, args.seed)
    if args.json:
        write_json(args.json, {"games": args.games, "seed": args.seed, "rows": rows})
    if args.plot:
        plot_lab(rows, args.plot)
    return 0


def print_lab(rows: list[dict[str, Any]], games: int, seed: int | None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Rules lab: {games:,} deals per player count (seed {seed}), the same deals for every ruleset")
    columns = (
        "n",
        "rules",
        "policy",
        "mean",
        "sd",
        "best-worst",
        "margin",
        "spent",
        "spent %",
        "seat 0 wins (95% CI)",
        "seat gap",
        "ties",
        "coins decide",
        "shared",
    )
    for column in columns:
        justify: JustifyMethod = "left" if column in ("rules", "policy") else "right"
        table.add_column(column, justify=justify, no_wrap=True, min_width=len(column))
    for r in rows:
        rates = [w["win_rate"] for w in r["win_rate_by_seat"]]
        first = r["win_rate_by_seat"][0]
        table.add_row(
            str(r["players"]),
            r["label"],
            r["policy"],
            f"{r['score']['mean']:.1f}",
            f"{r['score']['sd']:.1f}",
            f"{r['spread']['mean']:.1f}",
            f"{r['winner_margin']['mean']:.1f}",
            f"{r['spent_in_auctions']['mean']:.1f}",
            f"{100 * r['spent_share_of_coins']:.1f}%",
            f"{100 * first['win_rate']:.1f}% ({100 * first['ci95'][0]:.1f}-{100 * first['ci95'][1]:.1f})",
            f"{100 * (max(rates) - min(rates)):.1f} pts",
            f"{100 * r['top_score_ties']:.1f}%",
            f"{100 * r['tie_break_decides']:.1f}%",
            f"{100 * r['shared_wins']:.2f}%",
        )
    console = Console(file=sys.stdout, width=max(200, Console(file=sys.stdout).width))
    console.print(table)
    console.print(
        "n: players. mean, sd: final scores (coins). best-worst: mean gap between a game's best and worst score; "
        "margin: winner minus runner-up. spent: coins paid in auctions per game, and as a share of the starting "
        "money. seat 0 opens the first auction; a fair seat wins 1/n; seat gap: best minus worst seat's win rate. "
        "ties: top score shared; coins decide: ...and the coins tie-break picked the winner; shared: a shared win."
    )


def plot_lab(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [
        f"{r['players']}p {r['label']}" + (f" [{r['policy']}]" if len({x["policy"] for x in rows}) > 1 else "")
        for r in rows
    ]
    panels = (
        ("score sd (coins)", [r["score"]["sd"] for r in rows]),
        ("spent in auctions, % of coins", [100 * r["spent_share_of_coins"] for r in rows]),
        ("first opener's win rate - fair share (pts)", [100 * r["first_player_advantage"] for r in rows]),
        ("tie-break decides (% of games)", [100 * r["tie_break_decides"] for r in rows]),
    )
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(8, 0.6 * len(rows) + 3), 3 * len(panels)), sharex=True)
    colours = [f"C{r['players']}" for r in rows]
    for ax, (title, values) in zip(axes, panels):
        ax.bar(range(len(rows)), values, color=colours)
        ax.set_title(title)
        ax.axhline(0, color="grey", linewidth=0.8)
    axes[-1].set_xticks(range(len(rows)))
    axes[-1].set_xticklabels(labels, rotation=45, ha="right")
    fig.suptitle("Rules lab: the same deals under each ruleset")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
