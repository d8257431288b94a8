"""``hard`` (and the ``easy`` / ``medium`` levels), and the bot's estimates for people: win chances.

``hard`` is the determinized search of :mod:`forsale.bots.search_v1`; that
module's agent is also registered, unchanged, as ``hard-v1``, the reference
every newer ``hard`` is measured against.

:func:`action_values` and :func:`win_chances` are the bot's estimates in a
form for people and for post-game analysis (:mod:`forsale.bots.analysis`):
the chance, from 0 to 1, that the seat to move wins after each legal
action, and each seat's chance of winning from a position. They are
estimated the way ``hard`` searches (sampled deals consistent with the
view, opponents modelled from what they did this game, positions at the end
of the auction phase valued by :mod:`forsale.bots.valuation`), but report
the win share alone, without the small margin term the bot adds to break
ties. ``samples=N`` fixes the number of sampled deals (deterministic for a
given rng and view); otherwise they sample for ``budget`` seconds
(:data:`DEFAULT_TIME` if ``None``).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, product
from typing import Any

from ..actions import PASS, Action, Bid, bid
from ..rules import win_shares
from ..view import View, sample_state
from .expert import ExpertAgent, order_stat_means, predicted_play, sale_posteriors
from .opponents import EXPERT_BIDDER, draw, fit_bidders
from .registry import register
from .rollout import play_auctions
from .search_v1 import DEFAULT_TIME, PLAN_STEPS, SearchAgent, build
from .valuation import expected_shares, hand_values

TEMPERATURE = 3.0
"""Points of expected score per unit of the softmax that turns expected scores into win chances."""


def _sampler(budget: float | None, samples: int | None) -> Callable[[int], bool]:
    """``more(drawn)``: whether to draw another sample (exactly ``samples``, or until the deadline)."""
    if samples is not None:
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be a whole number of at least 1, not {samples!r}")
        return lambda drawn: drawn < samples
    deadline = time.perf_counter() + (DEFAULT_TIME if budget is None else budget)
    return lambda drawn: drawn == 0 or time.perf_counter() < deadline


def _auction_leaf(coins: Sequence[int], hands: Sequence[Sequence[int]]) -> list[float]:
    """Each seat's win chance once the auctions are over: coins plus the expected cheques of its houses."""
    return expected_shares([c + v for c, v in zip(coins, hand_values(hands))], TEMPERATURE)


def _sale_model(view: View) -> tuple[list[list[float]], list[float] | None]:
    """Each seat's chance of playing each house of its hand this round (the expert's sale-type
    posterior), and the order statistics of the cheques after this round (``None`` in the last)."""
    n = view.players
    posts = sale_posteriors(
        n, view.hands, view.history, view.sale_tables[:-1], view.unseen_cheques + view.table, view.rules.rounds
    )
    hands = view.hands
    stats = list(order_stat_means(view.unseen_cheques, n)) if len(hands[0]) > 1 else None
    predictions = [
        predicted_play(posts[s], hands[s], [hands[o] for o in range(n) if o != s], view.table, stats) for s in range(n)
    ]
    return predictions, stats


def _sale_outcome(view: View, plays: Sequence[int], stats: Sequence[float] | None) -> list[float]:
    """Each seat's win chance after this sale round is played as ``plays``: exact when at most one
    round follows (every order of the last cheques is weighed), valued by expected cheques otherwise."""
    n = view.players
    table = view.table
    order = sorted(plays)
    now = [sum(won) + table[order.index(h)] for won, h in zip(view.cheques_won, plays)]
    coins = view.coins
    rest = [[x for x in hand if x != h] for hand, h in zip(view.hands, plays)]
    if not rest[0]:
        return win_shares([a + c for a, c in zip(now, coins)], coins)
    if len(rest[0]) == 1:
        last = [r[0] for r in rest]
        last_order = sorted(last)
        finals = Counter(tuple(sorted(c)) for c in combinations(sorted(view.unseen_cheques), n))
        total = sum(finals.values())
        out = [0.0] * n
        for cheques, count in finals.items():
            scores = [now[s] + cheques[last_order.index(last[s])] + coins[s] for s in range(n)]
            for s, share in enumerate(win_shares(scores, coins)):
                out[s] += count * share / total
        return out
    assert stats is not None
    values = hand_values(rest, stats)
    # The more sale rounds are left, the less sure the expected scores: a wider softmax.
    temperature = TEMPERATURE * (len(rest[0]) - 1) / max(1, view.rules.rounds - 1) + 1.0
    return expected_shares([a + c + v for a, c, v in zip(now, coins, values)], temperature)


def action_values(
    view: View, rng: random.Random, budget: float | None = None, samples: int | None = None
) -> list[tuple[Action, float]]:
    """Every legal action of ``view.seat`` with the bot's estimate of that seat's win chance after it (0..1).

    In the auction phase an action is valued by playing the auction phase
    out on sampled deals, the seat then raising by one up to the best of
    :data:`forsale.bots.search_v1.PLAN_STEPS` more coins this round (or not
    at all); every action sees the same deals. In the sale phase each house
    is valued against the opponents' predicted plays (exactly in the last
    two rounds). Empty when the seat has nothing to do.
    """
    seat = view.seat
    legal = view.legal_actions()
    if seat is None or not legal:
        return []
    more = _sampler(budget, samples)
    if view.phase == "auction":
        return _auction_values(view, seat, legal, rng, more)
    predictions, stats = _sale_model(view)
    n = view.players
    opponents = [s for s in range(n) if s != seat]
    values = [0.0] * len(legal)
    if len(view.hand) <= 2:  # at most two rounds left: every combination of the opponents' plays, weighed
        for choice in product(*(range(len(view.hands[s])) for s in opponents)):
            p = 1.0
            for s, i in zip(opponents, choice):
                p *= predictions[s][i]
            plays = [0] * n
            for s, i in zip(opponents, choice):
                plays[s] = view.hands[s][i]
            for k, h in enumerate(view.hand):
                plays[seat] = h
                values[k] += p * _sale_outcome(view, plays, stats)[seat]
        return list(zip(legal, values))
    drawn = 0
    while more(drawn):
        plays = [draw(view.hands[s], predictions[s], rng) for s in range(n)]
        for k, h in enumerate(view.hand):
            plays[seat] = h
            values[k] += _sale_outcome(view, plays, stats)[seat]
        drawn += 1
    return [(a, v / drawn) for a, v in zip(legal, values)]


def _auction_values(
    view: View, seat: int, legal: Sequence[Action], rng: random.Random, more: Callable[[int], bool]
) -> list[tuple[Action, float]]:
    coins = view.coins[seat]
    bidders = fit_bidders(view)
    bidders[seat] = EXPERT_BIDDER
    # Per action, the plans that may follow it this round: (the bid pushed first or None, raise-up-to limit).
    plans: list[list[tuple[int | None, int]]] = []
    for action in legal:
        if isinstance(action, Bid):
            b = action.amount
            plans.append([(b, limit) for limit in sorted({b} | {min(coins, b + k) for k in PLAN_STEPS})])
        else:
            plans.append([(None, view.high)])
    totals = [[0.0] * len(p) for p in plans]
    drawn = 0
    while more(drawn):
        state = sample_state(view, rng)
        for row, options in zip(totals, plans):
            start: Any = state
            if options[0][0] is not None:
                start = state.clone()
                start.push(seat, bid(options[0][0]))
            for i, (_, limit) in enumerate(options):
                row[i] += _auction_leaf(*play_auctions(start, bidders, (seat, limit)))[seat]
        drawn += 1
    return [(a, max(row) / drawn) for a, row in zip(legal, totals)]


def win_chances(view: View, rng: random.Random, budget: float | None = None, samples: int | None = None) -> list[float]:
    """Each seat's chance of winning from ``view``'s position, as the bot estimates it (they add up to 1).

    Exact once the game is over; otherwise sampled deals are played out to
    the end of the auction phase by every seat's fitted bidding rule and
    valued, or this sale round's plays are drawn from each seat's predicted
    play and the rest valued (exactly in the last two rounds).
    """
    n = view.players
    if view.is_over:
        return win_shares(view.scores(), view.coins)
    more = _sampler(budget, samples)
    out = [0.0] * n
    drawn = 0
    if view.phase == "auction":
        bidders = fit_bidders(view)
        while more(drawn):
            for s, share in enumerate(_auction_leaf(*play_auctions(sample_state(view, rng), bidders))):
                out[s] += share
            drawn += 1
    else:
        predictions, stats = _sale_model(view)
        while more(drawn):
            plays = [draw(view.hands[s], predictions[s], rng) for s in range(n)]
            if view.my_commit is not None:
                plays[view.seat or 0] = view.my_commit
            for s, share in enumerate(_sale_outcome(view, plays, stats)):
                out[s] += share
            drawn += 1
    return [x / drawn for x in out]


class EasyAgent:
    """The expert without its opponent models, and a careless move one time in four."""

    name = "easy"

    def __init__(self, blunder: float = 0.25) -> None:
        self.blunder = blunder
        self._expert = ExpertAgent(name="easy")

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        legal = view.legal_actions()
        if rng.random() < self.blunder:
            if view.phase == "auction":
                return bid(view.high + 1) if len(legal) > 1 and rng.random() < 0.5 else PASS
            return legal[int(rng.random() * len(legal))]
        return self._expert.act(view, rng, budget)


@register("hard", "determinized search with expert rollouts; exact last sale rounds; time=SECONDS per decision")
def _hard(**options: Any) -> SearchAgent:
    return build("hard", **options)


@register("hard-v1", "the hard bot as it was before issue 14 (kept for comparison); time=SECONDS per decision")
def _hard_v1(**options: Any) -> SearchAgent:
    return build("hard-v1", **options)


@register("medium", "the expert heuristic (a level for people to play against)")
def _medium() -> ExpertAgent:
    return ExpertAgent(name="medium")


@register("easy", "the expert with one careless move in four (a level for people to play against)")
def _easy(blunder: float = 0.25) -> EasyAgent:
    return EasyAgent(blunder=float(blunder))
