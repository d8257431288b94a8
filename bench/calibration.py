"""How sure should the search be of a lead? The valuation's softmax temperature, fitted to who won.

The search values a position it does not play out by each seat's expected
final score (coins, cheques won, and :func:`forsale.bots.valuation.hand_values`
of the houses held) turned into win chances by a softmax at some temperature
(points per unit; :func:`forsale.bots.valuation.sale_temperature`). Too low,
and a two-point lead with seven sale rounds to go looks like a sure win; too
high, and the search cannot tell a lead from a deficit. This bench plays
games between ``expert`` and members of the population's **tuning half**
(never the held-out half: :func:`harness.population.tuning`), takes each
game at the end of the auctions and after every sale round (``k`` houses
left in each hand), and finds, for each ``k``, the temperature whose win
chances give the game's actual win shares the highest likelihood (a grid of
quarter points). It prints the fitted temperature beside the rule the search
uses, and the mean log-likelihood of both, per player count.

Usage: ``python bench/calibration.py [--players 3,4,5,6] [--games 1000] [--seed 5] [--json OUT] [--plot PNG]``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from forsale import Deal, Ruleset, State, view
from forsale.bots import make_agent
from forsale.bots.expert import order_stat_means
from forsale.bots.valuation import expected_shares, hand_values, sale_temperature
from forsale.rules import win_shares
from harness.population import tuning

GRID = [0.5 + 0.25 * i for i in range(39)]
"""Temperatures tried: 0.5 to 10 points by quarter points."""

Sample = tuple[list[float], list[float]]
"""Each seat's expected final score at a moment of a game, and the game's win shares."""


def samples(players: int, games: int, seed: int) -> dict[int, list[Sample]]:
    """``k`` (houses left in each hand) -> expected scores and final win shares, from ``games`` games."""
    rules = Ruleset.parse(None, players)
    rng = random.Random(f"forsale-calibration:{seed}:{players}")
    members = tuning()
    out: dict[int, list[Sample]] = defaultdict(list)
    for g in range(games):
        experts = 1 + g % 2  # one or two experts at each table, the rest drawn from the tuning half
        lineup = ["expert"] * experts + rng.sample(members, players - experts)
        rng.shuffle(lineup)
        agents = [make_agent(spec) for spec in lineup]
        state = State(rules, Deal.random(rules, rng))
        seen: list[tuple[int, list[float]]] = []
        while not state.is_over:
            for seat in state.seats_to_act():
                state.push(seat, agents[seat].act(view(state, seat), rng, None))
            k = len(state.hands[0])
            if state.phase == "sale" and k and all(len(h) == k for h in state.hands) and k not in dict(seen):
                unseen = view(state, 0).unseen_cheques
                stats = order_stat_means(unseen, players) if k > 1 else None
                values = hand_values(state.hands, stats)
                won = [sum(c) for c in state.cheques_won]
                seen.append((k, [c + w + v for c, w, v in zip(state.coins, won, values)]))
        shares = win_shares(state.scores(), state.coins)
        for k, expected in seen:
            out[k].append((expected, shares))
    return out


def log_likelihood(rows: Sequence[Sample], temperature: float) -> float:
    """Mean log-chance the softmax at ``temperature`` gives the actual winners (shared wins weighted)."""
    total = 0.0
    for expected, shares in rows:
        chances = expected_shares(expected, temperature)
        total += sum(s * math.log(p) for s, p in zip(shares, chances) if s > 0)
    return total / len(rows)


def fit(players: int, games: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for k, data in sorted(samples(players, games, seed).items()):
        fitted = max(GRID, key=lambda t: log_likelihood(data, t))
        rule = sale_temperature(k)
        rows.append({
            "houses_left": k, "positions": len(data), "fitted": fitted, "rule": rule,
            "loglik_fitted": log_likelihood(data, fitted), "loglik_rule": log_likelihood(data, rule),
        })  # fmt: skip
    return rows


def plot(report: dict[str, list[dict[str, Any]]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for (players, rows), marker in zip(report.items(), "os^D"):
        ax.plot(
            [r["houses_left"] for r in rows], [r["fitted"] for r in rows], marker=marker, label=f"{players} players"
        )
    ks = range(1, 1 + max(r["houses_left"] for rows in report.values() for r in rows))
    ax.plot(list(ks), [sale_temperature(k) for k in ks], "k--", label="the search's rule")
    ax.set_xlabel("houses left in each hand")
    ax.set_ylabel("temperature (points)")
    ax.set_title("Softmax temperature that best predicts who wins")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default="3,4,5,6", help="player counts, comma-separated (default 3,4,5,6)")
    p.add_argument("--games", type=int, default=1000, help="games per player count (default 1000)")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--json", metavar="OUT", help="write the fits as JSON")
    p.add_argument("--plot", metavar="PNG", help="plot fitted temperatures against the rule (matplotlib)")
    args = p.parse_args(argv)
    try:
        counts = [int(x) for x in args.players.split(",")]
    except ValueError:
        p.error(f"--players takes player counts like 3,4, not {args.players!r}")
    if any(not 3 <= n <= 6 for n in counts) or args.games < 10:
        p.error("player counts are 3 to 6, and --games at least 10")
    report = {}
    for n in counts:
        report[n] = rows = fit(n, args.games, args.seed)
        print(f"{n} players ({args.games} games): houses left, fitted temperature, the rule's, log-likelihood of each")
        for r in rows:
            print(
                f"  k={r['houses_left']}  fitted {r['fitted']:5.2f}  rule {r['rule']:5.2f}"
                f"  {r['loglik_fitted']:.4f} vs {r['loglik_rule']:.4f}  ({r['positions']} positions)"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    if args.plot:
        plot(report, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
