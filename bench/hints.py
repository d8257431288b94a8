"""Whether the hints and ``forsale analyse`` stay within their time budgets (issue 32's "Also").

Hints during play and the post-game analysis use ``hard`` itself
(:func:`forsale.bots.analysis.hint`: ``hard``'s move at
:data:`~forsale.bots.analysis.HINT_BUDGET` samples, then every legal action
valued; :func:`forsale.bots.analysis.analyse` at
:data:`~forsale.bots.analysis.DEFAULT_BUDGET`), so a change to the bot
changes their cost. This plays ``--games`` games of ``expert`` at every seat (official
rules, seeds from ``--seed``),
times a hint at every decision of seat 0 with a choice (CPU seconds of
this process, so the figure does not depend on other work on the
machine), and analyses seat 0 of the first game. The budgets: a hint
"well under a second", a seat of a 4-player game in about 15 s of one core
(docs/analysis.md).

Run: ``python bench/hints.py --games 4 --seed 1``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from forsale import new_game, to_record, view
from forsale.bots import make_agent
from forsale.bots.analysis import DEFAULT_BUDGET, HINT_BUDGET, analyse, hint


def quantile(xs: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=4, help="games whose seat-0 decisions are hinted (default 4)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budget", type=int, default=HINT_BUDGET, help=f"hint samples (default {HINT_BUDGET})")
    p.add_argument("--analysis-budget", type=int, default=DEFAULT_BUDGET, help="analysis samples")
    p.add_argument("--json", metavar="OUT")
    args = p.parse_args(argv)
    if args.games < 1 or args.budget < 1 or args.analysis_budget < 1 or not 3 <= args.players <= 6:
        p.error("--games and the budgets must be at least 1, --players 3 to 6")
    times: dict[str, list[float]] = {"auction": [], "sale": []}
    first = None
    for g in range(args.games):
        state = new_game(args.players, seed=args.seed * 1000 + g)
        agents = [make_agent("expert") for _ in range(args.players)]  # the positions only: the hints are timed
        rng = random.Random(g)
        while not state.is_over:
            for seat in state.seats_to_act():
                v = view(state, seat)
                if seat == 0 and len(v.legal_actions()) > 1:
                    start = time.process_time()
                    hint(v, random.Random(g), budget=args.budget)
                    times[v.phase].append(time.process_time() - start)
                state.push(seat, agents[seat].act(v, rng, None))
        first = first or to_record(state)
    start = time.process_time()
    analyse(first, seat=0, budget=args.analysis_budget, seed=args.seed)
    analysis = time.process_time() - start
    report = {
        "config": {k: getattr(args, k) for k in ("games", "players", "seed", "budget", "analysis_budget")},
        "hint": {
            phase: {"count": len(xs), "p50": quantile(xs, 0.5), "p95": quantile(xs, 0.95), "max": max(xs)}
            for phase, xs in times.items()
            if xs
        },
        "analysis_seat_seconds": analysis,
    }
    for phase, row in report["hint"].items():
        print(
            f"hint ({phase}, {row['count']} decisions, {args.budget} samples): p50 {row['p50']:.3f} s, "
            f"p95 {row['p95']:.3f} s, max {row['max']:.3f} s of CPU"
        )
    print(f"analyse one seat of a {args.players}-player game ({args.analysis_budget} samples): {analysis:.1f} s of CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
