"""The bot's estimates for people: each legal action's win chance, and each seat's, as ``hard`` reckons them.

:func:`action_values` and :func:`win_chances` serve post-game analysis and
hints (:mod:`forsale.bots.analysis`): the chance, from 0 to 1, that the seat
to move wins after each legal action, and each seat's chance of winning
from a position. They use the machinery of ``hard``
(:mod:`forsale.bots.search`): sampled deals and bidders drawn from the
same posteriors in the auction (:func:`~forsale.bots.opponents.table_posteriors`),
and in the sale phase the round as a game solved against the opponents'
plays as ``hard`` predicts them from its library of sale rules
(:func:`fitted_round`); but they report the win share alone, without the
small margin term the bot adds to break ties, and skip what costs more
than a hint's budget (the play-outs of the later sale rounds and the
searcher in each opponent's chair).
``samples=N`` fixes the effort (deterministic for a given rng and view);
otherwise they sample for ``budget`` seconds (:data:`DEFAULT_TIME` if
``None``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..actions import Action, Bid, bid
from ..rules import win_shares
from ..view import View, sample_state
from .auction_search import DEFAULT_TIME, PLAN_STEPS
from .expert import order_stat_means, predicted_play, sale_posteriors
from .opponents import EXPERT_BIDDER, sale_confidence, sample_bidders, table_posteriors
from .rollout import play_auctions
from .salegame import SaleRound, blend, pick, solve
from .salemodels import PRIOR, SALE_TABLE_SEATS, current, fit_opponents, rule_distributions, table_sale_prior
from .valuation import expected_shares, hand_values, sale_temperature

AUCTION_TEMPERATURE = 3.0
"""Points of expected score per unit of the softmax that values the end of the auctions.

Hand-set, and measured: the rule fitted to who won (:func:`~forsale.bots.valuation.sale_temperature`,
4.5 at 4 players) predicts outcomes better but plays no better (``hard:temperature=4.5`` 47.0% of 400
games against three ``expert``, ``hard`` 47.1%, paired difference -0.1 points, -5.5 to +5.2), and
head to head 3 beat both 2 and 6 (``docs/bots.md``)."""

ITERATIONS_PER_SAMPLE = 20
"""Regret-matching iterations a sale decision runs per unit of ``samples=`` (one sampled deal of the auction)."""

OUTCOME_DRAWS = 256
"""Profiles of plays drawn from the solved strategies to estimate each seat's chance in a sale round."""


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
    return expected_shares([c + v for c, v in zip(coins, hand_values(hands))], AUCTION_TEMPERATURE)


def _future_stats(view: View) -> list[float] | None:
    """The expected order statistics of the cheques still unseen, by which later rounds are valued (none in
    the last round)."""
    return list(order_stat_means(view.unseen_cheques, view.players)) if len(view.hands[0]) > 1 else None


def _sale_round(view: View, margin: float) -> SaleRound:
    """This sale round as a game (:class:`~forsale.bots.salegame.SaleRound`)."""
    # The more sale rounds are left after this one, the less sure the expected scores: a wider softmax.
    temperature = sale_temperature(len(view.hands[0]) - 1)
    won = [sum(c) for c in view.cheques_won]
    stats = _future_stats(view)
    return SaleRound(view.hands, view.table, view.unseen_cheques, won, view.coins, stats, temperature, margin)


def round_game(view: View, margin: float) -> tuple[SaleRound, list[list[float] | None], list[float]]:
    """This sale round as a game (:class:`~forsale.bots.salegame.SaleRound`), and each seat's model:
    its predicted play from the expert's sale-type posterior and how far to trust it
    (:func:`~forsale.bots.opponents.sale_confidence`). The viewing seat has no model: it is the one solving."""
    n = view.players
    hands = view.hands
    posts = sale_posteriors(
        n, hands, view.history, view.sale_tables[:-1], view.unseen_cheques + view.table, view.rules.rounds
    )
    stats = _future_stats(view)
    models: list[list[float] | None] = []
    weights = []
    for s in range(n):
        if s == view.seat:
            models.append(None)
            weights.append(0.0)
            continue
        others = [hands[o] for o in range(n) if o != s]
        models.append(predicted_play(posts[s], hands[s], others, view.table, stats))
        weights.append(sale_confidence(posts[s], view.round))
    return _sale_round(view, margin), models, weights


def fitted_round(view: View, margin: float) -> tuple[SaleRound, list[list[float] | None], list[float]]:
    """This sale round as :func:`round_game` has it, each seat's model what ``hard`` best-responds to: the
    prediction of its posterior over the library of sale rules (:mod:`forsale.bots.salemodels`, from the
    table's own mixture of them), the ``equilibrium`` rule's share left to the seat's strategy in the solved
    game. ``hard`` also weighs the sale ``hard-v1``'s search would make in each chair and plays the sale phase
    out; the estimates for people skip both, which cost more than a hint's budget. In the last round, with
    one house each, there is nothing to predict: :func:`round_game` as it is."""
    k = len(view.hands[0])
    if k == 1:
        return round_game(view, margin)
    pos = current(view)
    fits = fit_opponents(view, table_sale_prior(view, PRIOR, SALE_TABLE_SEATS, view.seat))
    models: list[list[float] | None] = []
    weights: list[float] = []
    for s, fit in enumerate(fits):
        if s == view.seat:
            models.append(None)
            weights.append(0.0)
        else:
            model, weight = fit.predict(rule_distributions(pos, s, solved=[1.0 / k] * k))
            models.append(model)
            weights.append(weight)
    return _sale_round(view, margin), models, weights


def in_iterations(more: Callable[[int], bool]) -> Callable[[int], bool]:
    """A sample budget spent as regret-matching iterations, :data:`ITERATIONS_PER_SAMPLE` per sample."""
    return lambda t: t % ITERATIONS_PER_SAMPLE != 0 or more(t // ITERATIONS_PER_SAMPLE)


def action_values(
    view: View, rng: random.Random, budget: float | None = None, samples: int | None = None
) -> list[tuple[Action, float]]:
    """Every legal action of ``view.seat`` with the bot's estimate of that seat's win chance after it (0..1).

    In the auction phase an action is valued by playing the auction phase
    out on sampled deals, the seat then raising by one up to the best of
    :data:`forsale.bots.auction_search.PLAN_STEPS` more coins this round (or not
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
    game, models, weights = fitted_round(view, margin=0.0)
    if len(view.hand) == 1:
        return [(legal[0], game.payoffs(tuple(h[0] for h in view.hands))[seat])]
    _, values, _ = solve(game, models, weights, rng, in_iterations(more))
    return list(zip(legal, values[seat]))


def _auction_values(
    view: View, seat: int, legal: Sequence[Action], rng: random.Random, more: Callable[[int], bool]
) -> list[tuple[Action, float]]:
    coins = view.coins[seat]
    posteriors = table_posteriors(view, me=seat)
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
        bidders = sample_bidders(posteriors, rng)
        bidders[seat] = EXPERT_BIDDER
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
    the end of the auction phase by bidding rules drawn from every seat's
    posterior and valued, or this sale round's plays are drawn from each seat's predicted
    play and the rest valued (exactly in the last two rounds).
    """
    n = view.players
    if view.is_over:
        return win_shares(view.scores(), view.coins)
    more = _sampler(budget, samples)
    out = [0.0] * n
    drawn = 0
    if view.phase == "auction":
        posteriors = table_posteriors(view, me=view.seat)
        while more(drawn):
            state = sample_state(view, rng)
            for s, share in enumerate(_auction_leaf(*play_auctions(state, sample_bidders(posteriors, rng)))):
                out[s] += share
            drawn += 1
    else:
        game, models, weights = fitted_round(view, margin=0.0)
        strategies, _, _ = solve(game, models, weights, rng, in_iterations(more))
        played = [blend(m, w, p) for m, w, p in zip(models, weights, strategies)]
        for _ in range(OUTCOME_DRAWS):
            plays = [hand[pick(p, rng)] for hand, p in zip(view.hands, played)]
            if view.seat is not None and view.my_commit is not None:
                plays[view.seat] = view.my_commit
            for s, share in enumerate(game.payoffs(tuple(plays))):
                out[s] += share
        drawn = OUTCOME_DRAWS
    return [x / drawn for x in out]
