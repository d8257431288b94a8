"""What the search bots expect the other seats to do, learnt from what they did this game.

**Bidding.** Every seat's raises and passes so far are replayed and fitted
to a grid of simple rules, "raise by one while ``high + 1 <= a * value gap
+ b * coins``" (:func:`fit_bidders`): the expert's value-gap rule and the
baselines' share-of-coins rules are both on the grid. Every seat starts from
a prior: ``hard-v1``'s gives the expert's rule a head start (:func:`flat_prior`),
so a seat seen only a few times is modelled like the expert; ``hard``'s is
fitted to how players at large bid (:func:`fitted_prior`) and then to how this
table's players bid so far (:func:`table_posteriors`), so a seat seen only a
few times is modelled like the others at the table.

**Selling.** A seat's sale type is drawn from the expert's posterior over
sale types (:func:`forsale.bots.expert.sale_posteriors`), and a predicted
play from the probabilities it gives each house (:func:`draw`).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from functools import cache
from importlib import resources
from math import exp, log

from ..actions import Bid
from ..view import View
from .expert import ALPHA, SALE_TYPES
from .valuation import round_values

Bidder = tuple[float, float]
"""A seat's bidding rule in rollouts: raise by one while ``high + 1 <= a * gap + b * coins``."""

EXPERT_BIDDER: Bidder = (ALPHA, 0.0)
BIDDER_GRID: tuple[Bidder, ...] = tuple(
    (a, b) for a in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0) for b in (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75)
)
BIDDER_ERROR = 0.1
"""Chance that a seat's move disagrees with its rule (so one odd move is not fatal)."""


EXPERT_HEAD_START = 2.0
"""Nats the expert's rule starts ahead of the rest of the grid in the old prior (:func:`flat_prior`)."""


def flat_prior(head_start: bool = False) -> list[float]:
    """Log-weights over :data:`BIDDER_GRID` that favour no rule, or (``head_start``) only the expert's,
    by :data:`EXPERT_HEAD_START` nats: the prior ``hard-v1`` starts every game from."""
    expert = BIDDER_GRID.index(EXPERT_BIDDER)
    return [EXPERT_HEAD_START if head_start and i == expert else 0.0 for i in range(len(BIDDER_GRID))]


@cache
def fitted_prior(players: int) -> tuple[float, ...]:
    """Log-weights over :data:`BIDDER_GRID` fitted to how a broad population bids at ``players`` players.

    Shipped in ``data/bid-prior.json``, made by ``bench/bid_prior.py`` from
    the tuning half of the measurement population: the mixture of grid
    rules under which those players' whole games are likeliest. Before an
    opponent has passed, its raises fit nearly every rule, so this prior
    is what the first auction round is decided by.
    """
    with resources.files("forsale.bots").joinpath("data", "bid-prior.json").open() as f:
        data = json.load(f)
    if [tuple(rule) for rule in data["grid"]] != list(BIDDER_GRID):
        raise ValueError("data/bid-prior.json was fitted to another grid: rerun bench/bid_prior.py")
    return tuple(log(w) for w in data["priors"][str(players)])


def bidder_log_likelihoods(view: View, prior: Sequence[float] | None = None) -> list[list[float]]:
    """Per seat, the log-likelihood of each rule of :data:`BIDDER_GRID` given its raises and passes.

    The auction history is replayed; each decision of a seat that could
    raise is a vote for the rules under which it would have done the same
    (a rule that disagrees keeps a :data:`BIDDER_ERROR` chance). Every seat
    starts from ``prior`` (log-weights; by default :func:`flat_prior` with
    the expert's head start), so the result is a log-posterior up to a constant.
    """
    n = view.players
    cards = view.rules.cards
    refund = view.rules.refund_of
    start = flat_prior(head_start=True) if prior is None else list(prior)
    logs = [list(start) for _ in range(n)]
    agree, disagree = log(1 - BIDDER_ERROR), log(BIDDER_ERROR)
    coins = [view.rules.starting_coins] * n
    r = 0
    tables = view.auction_tables
    seen = sorted(tables[0])
    table = list(tables[0])
    values = round_values(seen, table, n, cards)
    bids = [0] * n
    active = [True] * n
    left = n
    lo = 0
    high = 0
    for seat, action in view.history:
        if seat is None:
            break
        gap = values[table[-1]] - values[table[lo]]
        raised = action.__class__ is Bid
        if coins[seat] > high:
            row = logs[seat]
            for i, (a, b) in enumerate(BIDDER_GRID):
                row[i] += agree if (high + 1 <= a * gap + b * coins[seat]) == raised else disagree
        if raised:
            high = action.amount
            bids[seat] = high
            continue
        coins[seat] -= bids[seat] - refund(bids[seat])
        lo += 1
        active[seat] = False
        left -= 1
        if left == 1:
            last = active.index(True)
            coins[last] -= bids[last]
            r += 1
            if r == len(tables):
                break
            table = list(tables[r])
            seen = sorted(seen + table)
            values = round_values(seen, table, n, cards)
            bids = [0] * n
            active = [True] * n
            left = n
            lo = 0
            high = 0
    return logs


def fit_bidders(view: View) -> list[Bidder]:
    """Each seat's most likely :data:`Bidder` given every raise and pass it made this game."""
    return [BIDDER_GRID[max(range(len(row)), key=row.__getitem__)] for row in bidder_log_likelihoods(view)]


def sample_kinds(posts: Sequence[dict[str, float]], me: int, rng: random.Random) -> list[str]:
    """One sale type per seat, drawn from its posterior; the searching seat plays ``greedy``."""
    kinds = []
    for s, post in enumerate(posts):
        if s == me:
            kinds.append("greedy")
            continue
        x = rng.random()
        chosen = SALE_TYPES[-1]
        for kind in SALE_TYPES:
            x -= post[kind]
            if x <= 0:
                chosen = kind
                break
        kinds.append(chosen)
    return kinds


def draw(hand: Sequence[int], probs: Sequence[float], rng: random.Random) -> int:
    """A house of ``hand`` drawn with chances proportional to ``probs``."""
    x = rng.random() * sum(probs)
    for h, p in zip(hand, probs):
        x -= p
        if x <= 0:
            return h
    return hand[-1]


def tempering(spread: object) -> float:
    """``spread`` for :func:`bidder_posteriors` as a float, refused with its reason unless a positive number."""
    if isinstance(spread, bool) or not isinstance(spread, (int, float)) or not spread > 0:
        raise ValueError(f"spread must be a positive number, not {spread!r}")
    return float(spread)


def bidder_posteriors(view: View, spread: float = 1.0, prior: Sequence[float] | None = None) -> list[list[float]]:
    """Per seat, the posterior over :data:`BIDDER_GRID` (the softmax of :func:`bidder_log_likelihoods`).

    ``spread`` above 1 tempers it (the log-likelihoods divided by it): the
    evidence counts for less, so more of the rules that nearly fit are drawn.
    ``prior``: as for :func:`bidder_log_likelihoods`.
    """
    spread = tempering(spread)
    out = []
    for row in bidder_log_likelihoods(view, prior):
        top = max(row)
        weights = [exp((x - top) / spread) for x in row]
        total = sum(weights)
        out.append([w / total for w in weights])
    return out


def mixture_weights(rows: Sequence[Sequence[float]], pseudo: Sequence[float], iterations: int = 50) -> list[float]:
    """The weights of a mixture over rules that make the seats ``rows`` likeliest (EM).

    ``rows[s][k]`` is seat ``s``'s log-likelihood under rule ``k``;
    ``pseudo[k]`` counts added to rule ``k`` at every step (a Dirichlet
    prior), so a rule no seat has used keeps some weight.

    >>> w = mixture_weights([[0.0, -9.0], [0.0, -9.0], [-9.0, 0.0]], [0.0, 0.0])
    >>> round(w[0], 2), round(w[1], 2)
    (0.67, 0.33)
    """
    k = len(pseudo)
    weights = [1.0 / k] * k
    for _ in range(iterations):
        counts = list(pseudo)
        for row in rows:
            top = max(row)
            resp = [w * exp(x - top) for w, x in zip(weights, row)]
            total = sum(resp)
            for i, r in enumerate(resp):
                counts[i] += r / total
        total = sum(counts)
        weights = [c / total for c in counts]
    return weights


def pooled_weights(rows: Sequence[Sequence[float]], prior: Sequence[float], seats: float) -> list[float]:
    """The mixture over rules that makes a table's players ``rows`` likeliest (:func:`mixture_weights`),
    starting from ``prior`` (weights, normalised here) worth ``seats`` players: the table priors of the
    bidding (:func:`table_prior`) and of the sale (:func:`forsale.bots.salemodels.table_sale_prior`)."""
    total = sum(prior)
    return mixture_weights(rows, [seats * w / total for w in prior])


def table_prior(view: View, prior: Sequence[float], seats: float, me: int | None = None) -> list[float]:
    """Log-weights over :data:`BIDDER_GRID` for the players at this table, learnt from all of them together.

    People at a table often bid alike. The table's own mixture of rules is
    fitted to every opponent's raises and passes so far (EM,
    :func:`mixture_weights`), starting from ``prior`` worth ``seats``
    players; each seat's posterior then starts from it, so five players
    who pass at the same price teach the bot about each of them, not only
    about the one who passed. ``me`` (the searching seat) is left out.
    """
    rows = bidder_log_likelihoods(view, flat_prior())
    weights = pooled_weights([r for s, r in enumerate(rows) if s != me], [exp(x) for x in prior], seats)
    return [log(w) for w in weights]


TABLE_SEATS = 3.0
"""Players' worth of the prior that the table's own mixture of bidding rules starts from in
:func:`table_posteriors` (``hard:pool=``). With the fitted prior, the default of ``hard`` since 5 December:
+3 to +5 points at 6-player fields and +4.7 [-0.5, +9.9] against three ``expert`` over 120 deals
(docs/strength.md)."""


def table_posteriors(
    view: View,
    prior: Sequence[float] | None = None,
    seats: float = TABLE_SEATS,
    me: int | None = None,
    spread: float = 1.0,
) -> list[list[float]]:
    """Per seat, the posterior over :data:`BIDDER_GRID` as ``hard`` and its estimates for people reckon it.

    Every seat starts from the table's own mixture of rules (:func:`table_prior`,
    ``prior`` worth ``seats`` players; ``seats=0``: from ``prior`` itself), and
    ``prior`` is by default the one fitted to players at large
    (:func:`fitted_prior`). ``me``: the seat that is searching, left out of
    the table's mixture; ``spread``: as for :func:`bidder_posteriors`.
    """
    start = fitted_prior(view.players) if prior is None else prior
    return bidder_posteriors(view, spread, table_prior(view, start, seats, me) if seats else start)


def sample_bidders(posteriors: Sequence[Sequence[float]], rng: random.Random) -> list[Bidder]:
    """One bidding rule per seat drawn from its posterior: with little evidence the draws spread over
    the rules that fit, so a plan is judged against all of them rather than the single best guess."""
    out = []
    for post in posteriors:
        x = rng.random()
        chosen = BIDDER_GRID[-1]
        for rule, p in zip(BIDDER_GRID, post):
            x -= p
            if x <= 0:
                chosen = rule
                break
        out.append(chosen)
    return out


def sale_confidence(post: dict[str, float], observed: int) -> float:
    """How far to trust a seat's sale model over equilibrium play, from 0 to 1.

    ``post`` is the seat's posterior over sale types and ``observed`` the
    sales of its own choosing seen so far. The weight grows with the
    evidence (``observed / (observed + 1)``) and with how sure the model
    is that the seat is *not* playing at random (``1 - post["uniform"]``):
    an opponent unlike every type keeps its uniform weight, and is met
    with the robust strategy instead of a wrong prediction.
    """
    return (1.0 - post["uniform"]) * observed / (observed + 1)
