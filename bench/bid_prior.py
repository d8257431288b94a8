"""Fit the prior over the bidding grid that ``hard`` starts each game with, from the tuning half of the population.

Before an opponent has passed, its raises fit nearly every rule of the grid
(:data:`forsale.bots.opponents.BIDDER_GRID`), so the first auction round is
decided by the prior over those rules. The grid's old prior is flat with a
head start for the expert's rule, which puts most of its mass on rules that
bid far more than most players do (three quarters of the coins on any
house, twice the value gap): the search then expects the top houses to go
dear and passes early where a table of frugal players would have let them
go cheap (docs/strength.md, "What the 6-player fields lose").

This script plays ``--games`` games at each player count between mixed
tables of the **tuning** half of the population
(:func:`harness.population.tuning`; the held-out half is for measurement
only), fits every seat's whole game to the grid
(:func:`forsale.bots.opponents.bidder_log_likelihoods` with a flat prior),
and finds the mixture weights over the grid that make those seats likeliest
(EM over a mixture of the grid's rules, with ``--pseudo`` counts spread
over every rule so none is ruled out). The result is written as JSON to
``--out`` (the package's data file by default), one weight per grid rule
per player count, with the command and the figures that made it.

Run: ``python bench/bid_prior.py --games 2000 --seed 1`` (the shipped file;
about a minute and a half on one core).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from math import exp, log
from pathlib import Path

from rich.progress import Progress

from forsale.arena.tournament import deal_for
from forsale.bots import make_agent
from forsale.bots.opponents import BIDDER_GRID, bidder_log_likelihoods, flat_prior, mixture_weights
from forsale.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset
from forsale.state import State
from forsale.view import view
from harness.population import tuning

OUT = Path(__file__).resolve().parents[1] / "src" / "forsale" / "bots" / "data" / "bid-prior.json"


def seat_rows(players: int, games: int, seed: int, progress: Progress) -> list[list[float]]:
    """Each tuning member's seat, one game each: the log-likelihood of every grid rule given its bids."""
    rules = Ruleset.parse(None, players)
    members = tuning()
    draw = random.Random(f"forsale-bid-prior:{seed}:{players}")
    rows: list[list[float]] = []
    task = progress.add_task(f"{players} players", total=games)
    for index in range(games):
        lineup = [draw.choice(members) for _ in range(players)]
        agents = [make_agent(spec) for spec in lineup]
        rngs = [random.Random(f"forsale-bid-prior-seat:{seed}:{players}:{index}:{s}") for s in range(players)]
        state = State(rules, deal_for(rules, seed, index))
        while state.phase == "auction":
            for s in state.seats_to_act():
                state.push(s, agents[s].act(view(state, s), rngs[s], None))
        rows += bidder_log_likelihoods(view(state, None), flat_prior())
        progress.advance(task)
    return rows


def fit_weights(rows: Sequence[Sequence[float]], pseudo: float) -> list[float]:
    """The mixture weights over the grid that maximise the seats' likelihood, ``pseudo`` counts per rule."""
    return mixture_weights(rows, [pseudo] * len(rows[0]), iterations=200)


def mean_log_likelihood(rows: Sequence[Sequence[float]], weights: Sequence[float]) -> float:
    """The seats' mean log-likelihood (nats) under the mixture ``weights``."""
    out = 0.0
    for row in rows:
        top = max(row)
        out += top + log(sum(w * exp(x - top) for w, x in zip(weights, row)))
    return out / len(rows)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=2000, help="games per player count (default 2000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--pseudo", type=float, default=1.0, help="counts spread on every grid rule (default 1)")
    p.add_argument("--out", type=Path, default=OUT, help=f"where the JSON goes (default {OUT})")
    args = p.parse_args(argv)
    if args.games < 1 or args.pseudo < 0:
        p.error("--games must be at least 1 and --pseudo not negative")
    priors: dict[str, list[float]] = {}
    figures: dict[str, dict[str, float]] = {}
    with Progress() as progress:
        for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            rows = seat_rows(players, args.games, args.seed, progress)
            weights = fit_weights(rows, args.pseudo)
            priors[str(players)] = [round(w, 6) for w in weights]
            old = [exp(x) for x in flat_prior(head_start=True)]
            figures[str(players)] = {
                "seats": len(rows),
                "fitted": round(mean_log_likelihood(rows, weights), 3),
                "old": round(mean_log_likelihood(rows, [w / sum(old) for w in old]), 3),
            }
    for players, f in figures.items():
        top = sorted(zip(priors[players], BIDDER_GRID), reverse=True)[:5]
        print(f"{players} players: {f['seats']} seats, mean log-likelihood {f['fitted']} (old prior {f['old']});"
              f" heaviest rules {[(rule, round(w, 3)) for w, rule in top]}")  # fmt: skip
    report = {
        "command": "python bench/bid_prior.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "grid": [list(rule) for rule in BIDDER_GRID],
        "priors": priors,
        "figures": figures,
    }
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"written {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
