"""How useful is the learned value model? Prediction error against the hand-set valuation, and a one-ply bot.

Three measurements (``docs/value-model.md`` quotes them):

- ``population``: positions of fresh games of the training population
  (another seed than any shipped model saw), each seen from a random seat,
  labelled with the final win shares. The model's shares are compared with
  the search's hand-set valuation (:mod:`forsale.bots.valuation`): coins
  plus cheques won plus :func:`hand_values` of the houses held, through
  :func:`expected_shares` at the search's temperatures (3 at the end of the
  auctions; :func:`sale_temperature` of ``k - 1`` with ``k`` houses left in a sale).
  In the auction phase the hand-set figure ignores the houses still to
  come, as the search's auction leaf does only once the auctions are over:
  the comparison that matters is ``sale``.
- ``expert``: the same on positions of engine games between four
  ``expert`` bots, a way of playing the model never trained on.
- ``greedy``: a one-ply bot (:class:`GreedyValue`) that plays the action
  whose next position the model rates best for it (in a sale, averaged
  over opponents' houses drawn from their hands), at a table with
  ``expert``s, seat rotation over duplicate deals.

Usage: ``python bench/value_model.py [population|expert|greedy] [--players N] [--games N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from forsale import SALE, Deal, Ruleset, State, sample_state, view
from forsale.actions import PASS, SELLS, Action, bid
from forsale.bots import make_agent
from forsale.bots.estimates import AUCTION_TEMPERATURE
from forsale.bots.valuation import expected_shares, hand_values, sale_temperature
from forsale.bots.valuemodel import features, load
from forsale.rules import win_shares
from forsale.sim import step
from forsale.training.data import games_features
from forsale.training.policies import Population, sorted_hands
from forsale.view import View

STAGES = ("auction", "sale start", "sale later", "all")
"""Rows are reported by stage: "sale start" (no house sold yet) is where the search's auction leaf is valued."""


def hand_set_shares(
    coins: Sequence[int], cheques: Sequence[int], hands: Sequence[Sequence[int]], phase: str
) -> list[float]:
    """The search's hand-set valuation of a position as win shares, in seat order."""
    scores = [c + w + v for c, w, v in zip(coins, cheques, hand_values(hands))]
    if phase == SALE:
        temperature = sale_temperature(len(hands[0]) - 1)
    else:
        temperature = AUCTION_TEMPERATURE
    return expected_shares(scores, temperature)


def scores_of(p: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Cross-entropy, Brier score and accuracy (the seat ranked first won) of shares ``p`` for outcomes ``y``."""
    p = np.clip(p, 1e-7, 1.0)
    return {
        "cross_entropy": float(-(y * np.log(p)).sum(axis=1).mean()),
        "brier": float(((p - y) ** 2).sum(axis=1).mean()),
        "accuracy": float((y[np.arange(len(y)), p.argmax(axis=1)] > 0).mean()),
        "rows": len(y),
    }


def report(rows: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]) -> dict[str, dict[str, dict[str, float]]]:
    """Per phase: the model's and the hand-set valuation's scores (and the uniform guess's cross-entropy)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    phases = np.array([r[0] for r in rows])
    model = np.stack([r[1] for r in rows])
    hand = np.stack([r[2] for r in rows])
    y = np.stack([r[3] for r in rows])
    for phase in STAGES:
        sel = np.ones(len(rows), bool) if phase == "all" else phases == phase
        if sel.any():
            n = y.shape[1]
            out[phase] = {
                "model": scores_of(model[sel], y[sel]),
                "hand-set": scores_of(hand[sel], y[sel]),
                "uniform": scores_of(np.full((int(sel.sum()), n), 1.0 / n), y[sel]),
            }
    return out


def population_positions(players: int, games: int, seed: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """(phase, model shares, hand-set shares, outcome), all in the row's relative seat order."""
    rules = Ruleset.default(players)
    model = load(players)
    rng = np.random.default_rng([seed, players, 1])
    core = step.Games(rules, games)
    everyone = np.arange(games)
    core.deal(everyone, *step.Deals(players, rng).take(games))
    population = Population(games, players)
    population.draw(everyone, rng)
    kept: list[tuple[int, int, str, np.ndarray, list[float]]] = []
    while (core.phase != step.OVER).any():
        live = np.flatnonzero(core.phase != step.OVER)
        keep = live[rng.random(live.size) < 0.08]
        seat = rng.integers(0, players, keep.size)
        if keep.size:
            shares = model.predict(games_features(core, keep, seat))
            hands = sorted_hands(core.hands[keep])
            for j, (g, s) in enumerate(zip(keep.tolist(), seat.tolist())):
                phase = "auction" if core.phase[g] == step.AUCTION else SALE
                held = [[h for h in row if h < 99] for row in hands[j].tolist()]
                hand = hand_set_shares(core.coins[g].tolist(), core.won_total[g].tolist(), held, phase)
                rel = [(s + i) % players for i in range(players)]
                stage = "auction" if phase != SALE else "sale start" if core.round[g] == 0 else "sale later"
                kept.append((g, s, stage, shares[j], [hand[r] for r in rel]))
        auction = np.flatnonzero(core.phase == step.AUCTION)
        sale = np.flatnonzero(core.phase == step.SALE)
        if auction.size:
            core.auction(auction, population.auction(core, auction, rng))
        if sale.size:
            core.sale(sale, population.sale(core, sale, rng))
    final = core.rewards(everyone, "win")
    return [
        (phase, p, np.array(h), final[g, [(s + i) % players for i in range(players)]]) for g, s, phase, p, h in kept
    ]


def expert_positions(players: int, games: int, seed: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """The same rows from engine games between ``expert`` bots."""
    rules = Ruleset.default(players)
    model = load(players)
    pick = random.Random(f"value-bench:{seed}")
    rows = []
    for game in range(games):
        state = State(rules, Deal.random(rules, random.Random(f"value-bench-deal:{seed}:{game}")))
        agents = [make_agent("expert") for _ in range(players)]
        rngs = [random.Random(f"value-bench-seat:{seed}:{game}:{s}") for s in range(players)]
        kept: list[tuple[int, str, np.ndarray, list[float]]] = []
        while not state.is_over:
            acting = state.seats_to_act()
            if pick.random() < 0.15 and not any(state.has_committed(s) for s in range(players)):
                seat = pick.randrange(players)
                v = view(state, seat)
                hand = hand_set_shares(v.coins, [sum(c) for c in v.cheques_won], v.hands, v.phase)
                stage = "auction" if v.phase != SALE else "sale start" if v.round == 0 else "sale later"
                kept.append((seat, stage, model.predict(features(v)), hand))
            for seat in acting:
                state.push(seat, agents[seat].act(view(state, seat), rngs[seat], None))
        final = win_shares(state.scores(), state.coins)
        for seat, phase, p, hand in kept:
            rel = [(seat + i) % players for i in range(players)]
            rows.append((phase, p, np.array([hand[r] for r in rel]), np.array([final[r] for r in rel])))
    return rows


class GreedyValue:
    """A one-ply bot: the action whose next position the value model rates best for its seat.

    Auction: pass, or a raise by 1, 2, 3 or 5 (what the seat can afford);
    sale: each house of the hand against ``samples`` draws of the others'
    houses (uniform from their hands), the round resolved, averaged.
    """

    name = "greedy-value"

    def __init__(self, samples: int = 16, sale: str = "greedy") -> None:
        self.samples = samples
        self.seller = None if sale == "greedy" else make_agent(sale)

    def act(self, v: View, rng: random.Random, budget: float | None = None) -> Action:
        legal = v.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if v.phase == SALE and self.seller is not None:
            return self.seller.act(v, rng, budget)
        model = load(v.players)
        me = v.seat
        assert me is not None
        state = sample_state(v, rng)
        if v.phase == SALE:
            options: list[Action] = list(legal)
            rows, owner = [], []
            for _ in range(self.samples):
                state = sample_state(v, rng)  # a fresh guess at what the seats that chose already chose
                plays = {s: rng.choice(v.hands[s]) for s in range(v.players) if s != me and not v.committed[s]}
                for i, action in enumerate(options):
                    nxt = state.clone()
                    for s, h in plays.items():
                        nxt.push(s, SELLS[h])
                    nxt.push(me, action)
                    rows.append(features(view(nxt, me)))
                    owner.append(i)
        else:
            high = v.high
            options = [PASS] + [bid(high + k) for k in (1, 2, 3, 5) if bid(high + k) in legal]
            rows, owner = [], []
            for i, action in enumerate(options):
                nxt = state.clone()
                nxt.push(me, action)
                rows.append(features(view(nxt, me)))
                owner.append(i)
        mine = model.predict(np.stack(rows))[:, 0]
        value = np.bincount(owner, weights=mine, minlength=len(options)) / np.bincount(owner, minlength=len(options))
        return options[int(np.argmax(value))]


def greedy_vs_expert(players: int, deals: int, seed: int, sale: str = "greedy") -> dict[str, Any]:
    """The one-ply bot's win share at tables with ``expert``s (every seat, same deals); ``sale``: who sells for it."""
    rules = Ruleset.default(players)
    shares = []
    for d in range(deals):
        deal = Deal.random(rules, random.Random(f"value-greedy-deal:{seed}:{d}"))
        for seat_of_bot in range(players):
            state = State(rules, deal)
            agents = [GreedyValue(sale=sale) if s == seat_of_bot else make_agent("expert") for s in range(players)]
            rngs = [random.Random(f"value-greedy:{seed}:{d}:{s}") for s in range(players)]
            while not state.is_over:
                for seat in state.seats_to_act():
                    state.push(seat, agents[seat].act(view(state, seat), rngs[seat], None))
            shares.append(win_shares(state.scores(), state.coins)[seat_of_bot])
    mean = float(np.mean(shares))
    half = 1.96 * float(np.std(shares)) / math.sqrt(len(shares))
    return {"games": len(shares), "win_share": mean, "ci95": [mean - half, mean + half], "fair": 1 / players}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["population", "expert", "greedy"])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sale", default="greedy", help="greedy: the model sells too; or a bot that sells for it")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.what == "population":
        out: dict = report(population_positions(args.players, args.games, args.seed))
    elif args.what == "expert":
        out = report(expert_positions(args.players, args.games, args.seed))
    else:
        out = greedy_vs_expert(args.players, args.games, args.seed, args.sale)
    out = {"what": args.what, "players": args.players, "games": args.games, "seed": args.seed, "result": out}
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
