"""``forsale simulate``: many seeded games with the batch simulator, and their statistics.

Prints the number of games, the time and games per second, the score
distribution and the win rate by seat relative to the first opener (the
first-player advantage) with 95% confidence intervals. ``--json`` writes the
same figures; ``--plot`` draws them (matplotlib, no display needed).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import ForSaleError
from ..rules import MAX_PLAYERS, MIN_PLAYERS
from ._extras import require
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


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="play many games with the batch simulator and print statistics",
        description=(
            "Play many seeded games in lockstep with numpy (every seat follows the same policy) and print "
            "games per second, score distributions and the win rate by seat after the first opener with "
            "95% confidence intervals."
        ),
    )
    p.add_argument("--games", type=positive_int, default=100_000, help="games to play (default 100000)")
    p.add_argument("--players", type=positive_int, default=4, help="players per game, 2 to 6 (default 4)")
    p.add_argument(
        "--rules",
        default=None,
        help="a preset (official, refund-up, first-edition, two-player), a JSON object of knobs, or "
        "coins=N,removed=N,refund=down|up (default: official; two-player for 2)",
    )
    p.add_argument(
        "--policy",
        default="random",
        choices=POLICY_NAMES,
        help="what every seat plays (default random: the policy of bench/limit.c)",
    )
    p.add_argument(
        "--seat-policy",
        action="append",
        default=[],
        metavar="SEAT=POLICY",
        help="seat SEAT (0-based, as at the table) plays POLICY instead; repeatable, e.g. --seat-policy 0=value",
    )
    add_common_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require("simulate", *(["simulate --plot"] if args.plot else []))
    from ..sim.memory import retain_freed_memory
    from ..sim.policies import POLICIES, SeatPolicies, make_policy
    from ..sim.run import parse_rules, rules_label, simulate

    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        return fail("simulate", f"For Sale is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {args.players}")
    try:
        rules = parse_rules(args.rules, args.players)
    except ForSaleError as error:
        return fail("simulate", str(error))
    overrides: dict[int, str] = {}
    for spec in args.seat_policy:
        seat_text, _, name = spec.partition("=")
        if not seat_text.strip().isdigit() or int(seat_text) >= args.players:
            return fail("simulate", f"--seat-policy {spec!r}: the seat must be a number from 0 to {args.players - 1}")
        if name not in POLICIES:
            known = ", ".join(sorted(POLICIES))
            return fail("simulate", f"--seat-policy {spec!r}: unknown policy {name!r}; known policies: {known}")
        overrides[int(seat_text)] = name
    policy: Any = args.policy
    label = args.policy
    if overrides:
        shared = make_policy(args.policy)
        policy = SeatPolicies([make_policy(overrides[s]) if s in overrides else shared for s in range(args.players)])
        label = f"{args.policy}; " + ", ".join(f"seat {s} plays {name}" for s, name in sorted(overrides.items()))
    problem = check_output_paths(args.json, args.plot)
    if problem:
        return fail("simulate", problem)
    retain_freed_memory()
    if args.seed is None:
        args.seed = fresh_seed()  # printed and saved, so any run can be repeated
    with progress_bar(args.games, f"{rules_label(rules)}, {args.players} players, {label}", args.quiet) as bar:
        summary = simulate(rules, policy, args.games, seed=args.seed, chunk=args.chunk, progress=bar)
    figures = summary.to_json()
    figures.update({"policy": label, "seat_policies": overrides or None, "seed": args.seed, "chunk": args.chunk})
    print_summary(figures)
    if args.json:
        write_json(args.json, figures)
    if args.plot:
        plot_summary(figures, summary.score_hist, summary.spent_hist, args.plot)
    return 0


def print_summary(figures: dict[str, Any]) -> None:
    """The figures as rich tables on standard output."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=sys.stdout)
    console.print(
        f"[bold]{figures['games']:,}[/] games of {figures['rules_description']}; policy [bold]{figures['policy']}[/], "
        f"seed {figures['seed']}"
    )
    console.print(
        f"{figures['seconds']:.2f} s, [bold]{figures['games_per_s']:,.0f}[/] games/s"
        if figures["games_per_s"]
        else "0 s"
    )
    table = Table(title="Final scores (coins, 1 coin = $1,000)")
    for column in ("seat after first", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max"):
        table.add_column(column, justify="right")
    rows = [(str(k), s) for k, s in enumerate(figures["score_by_seat"])] + [("all", figures["score"])]
    for label, s in rows:
        table.add_row(
            label,
            f"{s['mean']:.2f}",
            f"{s['sd']:.2f}",
            *(str(s[key]) for key in ("min", "p5", "p25", "median", "p75", "p95", "max")),
        )
    console.print(table)
    wins = Table(title="Win rate by seat (seat 0 opens the first auction; a shared win is split)")
    for column in ("seat after first", "win rate", "95% CI"):
        wins.add_column(column, justify="right")
    for row in figures["win_rate_by_seat"]:
        lo, hi = row["ci95"]
        wins.add_row(
            str(row["seat_after_first"]), f"{100 * row['win_rate']:.2f}%", f"{100 * lo:.2f}% - {100 * hi:.2f}%"
        )
    console.print(wins)
    if figures.get("seat_policies"):
        by_number = Table(title="By seat number (the seats' policies differ)")
        for column in ("seat", "policy", "win rate", "95% CI", "mean score"):
            by_number.add_column(column, justify="right")
        for row in figures["win_rate_by_seat_number"]:
            lo, hi = row["ci95"]
            name = figures["seat_policies"].get(row["seat"], figures["policy"].split(";")[0])
            by_number.add_row(
                str(row["seat"]),
                name,
                f"{100 * row['win_rate']:.2f}%",
                f"{100 * lo:.2f}% - {100 * hi:.2f}%",
                f"{row['score_mean']:.2f}",
            )
        console.print(by_number)
    spent = figures["spent_in_auctions"]
    console.print(
        f"spent in auctions per game: {spent['mean']:.1f} coins ({100 * figures['spent_share_of_coins']:.1f}% of the "
        f"starting money); winner's score {figures['winner_score_mean']:.1f}, margin {figures['winner_margin']['mean']:.1f}; "
        f"top-score ties {100 * figures['top_score_ties']:.2f}%, decided by coins {100 * figures['tie_break_decides']:.2f}%, "
        f"shared wins {100 * figures['shared_wins']:.2f}%"
    )


def plot_summary(figures: dict[str, Any], score_hist: Any, spent_hist: Any, path: Path) -> None:
    """Score histograms by seat, win rates with CIs and auction spending, in one image."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(17, 4.5))
    values = np.arange(score_hist.shape[1])
    for k, hist in enumerate(score_hist):
        total = hist.sum()
        ax1.plot(values, hist / total if total else hist, label=f"seat {k} after first")
    ax1.set_xlabel("final score (coins)")
    ax1.set_ylabel("share of games")
    ax1.set_title("Score distribution")
    ax1.legend()
    rates = figures["win_rate_by_seat"]
    seats = [r["seat_after_first"] for r in rates]
    means = [r["win_rate"] for r in rates]
    errors = [[r["win_rate"] - r["ci95"][0] for r in rates], [r["ci95"][1] - r["win_rate"] for r in rates]]
    ax2.bar(seats, means, yerr=errors, capsize=6, color="tab:blue")
    ax2.axhline(1 / len(seats), color="grey", linestyle="--", label="no advantage")
    ax2.set_xticks(seats)
    ax2.set_xlabel("seat after the first opener")
    ax2.set_ylabel("win rate (95% CI)")
    ax2.set_title("Seat advantage")
    ax2.legend()
    total = spent_hist.sum()
    ax3.bar(np.arange(spent_hist.shape[0]), spent_hist / total if total else spent_hist, width=1.0, color="tab:green")
    ax3.set_xlabel("coins spent in auctions by the whole table")
    ax3.set_ylabel("share of games")
    ax3.set_title(f"Money spent (mean {figures['spent_in_auctions']['mean']:.1f})")
    fig.suptitle(f"{figures['games']:,} games: {figures['rules_description']}; policy {figures['policy']}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
