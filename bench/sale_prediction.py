"""How well ``hard``'s opponent models predict players they were not built on (issue 32): log-loss per sale and per bid.

For each held-out member (:func:`harness.population.held_out`, drawn
with the seed as ``bench/strength.py --fields`` draws them), ``--games``
games of ``expert`` against ``--players`` - 1 copies of the member are
played on the tournament's deals; at the end of each game the member's
seats are fitted (:func:`forsale.bots.salemodels.fit_opponents`) and the
prequential log-loss of the fitted mixture over their sales (each sale
predicted from the sales before it) is summed beside a uniform guess's and
the equilibrium rule's alone. Reported in nats per sale of the member's own
choosing (the forced last sale excluded): lower is better, and the uniform
guess is the bar a model must clear before ``hard`` exploits it.

The auction half is scored the same way (:func:`forsale.bots.bidmodels.fit_bidding`):
per decision of the member's with a choice (more coins than the high bid),
the library's prequential log-loss beside today's grid's (the model the
auction search uses unless ``bidmodel=1`` switches a seat) and a coin
flip's (``log 2``), and how many seats the library had out-predicted the
grid on by the end of the auctions.

Run: ``python bench/sale_prediction.py --members 12 --games 8 --seed 11``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from math import log
from pathlib import Path
from typing import Any

from forsale.arena.tournament import deal_for, lineup_for
from forsale.bots import make_agent
from forsale.bots.bidmodels import fit_bidding
from forsale.bots.salemodels import fit_opponents
from forsale.rules import Ruleset
from forsale.state import State
from forsale.view import view
from harness.population import held_out


def member_losses(member: str, players: int, games: int, seed: int) -> dict[str, Any]:
    """The member's sales over ``games`` games against ``expert``: summed log-losses and the sale count."""
    rules = Ruleset.parse(None, players)
    bots = ["expert"] + [member] * (players - 1)
    totals = {"model": 0.0, "uniform": 0.0, "equilibrium": 0.0, "sales": 0, "exploitable_seats": 0, "seats": 0}
    bids = {"bid_model": 0.0, "bid_grid": 0.0, "decisions": 0, "switched_seats": 0}
    for index in range(games):
        lineup = lineup_for(bots, index, seed)
        agents = [make_agent(spec) for spec in lineup]
        rngs = [random.Random(f"forsale-arena-seat:{seed}:{index}:{s}") for s in range(players)]
        state = State(rules, deal_for(rules, seed, index))
        while not state.is_over:
            for s in state.seats_to_act():
                state.push(s, agents[s].act(view(state, s), rngs[s], None))
        fits = fit_opponents(view(state, None))
        bid_fits = fit_bidding(view(state, None))
        for s, spec in enumerate(lineup):
            if spec != member:
                continue
            fit = fits[s]
            totals["model"] += fit.log_loss
            totals["uniform"] += fit.uniform_loss
            totals["equilibrium"] += fit.rule_loss["equilibrium"]
            totals["sales"] += fit.observed
            totals["seats"] += 1
            totals["exploitable_seats"] += fit.modelled >= 0.9 and fit.log_loss < fit.uniform_loss
            bid_fit = bid_fits[s]
            bids["bid_model"] += bid_fit.log_loss
            bids["bid_grid"] += bid_fit.grid_loss
            bids["decisions"] += bid_fit.observed
            bids["switched_seats"] += bid_fit.trusted
    sales = max(1, totals["sales"])
    return {
        "member": member, **{k: totals[k] / sales for k in ("model", "uniform", "equilibrium")},
        "sales": totals["sales"], "seats": totals["seats"], "modelled_seats": totals["exploitable_seats"],
        **{k: bids[k] / max(1, bids["decisions"]) for k in ("bid_model", "bid_grid")},
        "decisions": bids["decisions"], "switched_seats": bids["switched_seats"],
    }  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--members", type=int, default=12, help="held-out members drawn by the seed (default 12)")
    p.add_argument("--games", type=int, default=8, help="games per member (default 8)")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", metavar="OUT")
    args = p.parse_args(argv)
    if args.members < 1 or args.games < 1 or not 3 <= args.players <= 6:
        p.error("--members and --games must be at least 1, --players 3 to 6")
    members = held_out()
    drawn = random.Random(f"forsale-strength-fields:{args.seed}").sample(members, min(args.members, len(members)))
    rows = [member_losses(m, args.players, args.games, args.seed) for m in drawn]
    sales = sum(r["sales"] for r in rows)
    mean = {k: sum(r[k] * r["sales"] for r in rows) / max(1, sales) for k in ("model", "uniform", "equilibrium")}
    print(f"{'member':32} {'model':>7} {'uniform':>7} {'equil.':>7} {'sales':>6} modelled seats")
    for r in rows:
        print(
            f"{r['member']:32} {r['model']:7.3f} {r['uniform']:7.3f} {r['equilibrium']:7.3f} {r['sales']:6d}"
            f" {r['modelled_seats']}/{r['seats']}"
        )
    print(
        f"{'all (nats per sale)':32} {mean['model']:7.3f} {mean['uniform']:7.3f} {mean['equilibrium']:7.3f} {sales:6d}"
    )
    decisions = sum(r["decisions"] for r in rows)
    for k in ("bid_model", "bid_grid"):
        mean[k] = sum(r[k] * r["decisions"] for r in rows) / max(1, decisions)
    print(f"\n{'member (auction)':32} {'library':>7} {'grid':>7} {'flip':>7} {'moves':>6} switched seats")
    flip = log(2)
    for r in rows:
        print(
            f"{r['member']:32} {r['bid_model']:7.3f} {r['bid_grid']:7.3f} {flip:7.3f} {r['decisions']:6d}"
            f" {r['switched_seats']}/{r['seats']}"
        )
    print(f"{'all (nats per decision)':32} {mean['bid_model']:7.3f} {mean['bid_grid']:7.3f} {flip:7.3f} {decisions:6d}")
    if args.json:
        config = {"members": args.members, "games": args.games, "players": args.players, "seed": args.seed}
        report = {"config": config, "members": rows, "mean": mean}
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
