"""``expert``: a fast heuristic built on one idea, what a house will sell for.

**Evaluation.** In the sale phase a house earns the cheque whose rank in its
sale round equals the house's rank among the houses played with it. So a
house ``h`` is worth ``sum_j P(j of the other n-1 houses are lower) *
E[(j+1)-th smallest of n cheques]``, where the order statistics are exact
for the cheques still to come (drawn without replacement from what is
unseen) and "the other houses" are those the opponents hold or may still
get. With every hand known by deduction in the sale phase, the chance that
an opponent plays below ``h`` is taken from that opponent's actual hand.

**Auction.** Raising is worth it while the gap between what the top and the
bottom house on the table will sell for exceeds the raise: a seat raises
while ``high + 1 <= alpha * (v(top) - v(bottom))`` (coins are points, so the
gap in expected cheques is the most a house is worth paying for). When the
round is contested the search bot does the finer reckoning.

**Sale.** Pick the house that maximises the expected cheque this round
against what each opponent is predicted to play, minus (a share of) what
the house would have earned in a later round. The prediction is a
posterior over a few *sale types* (uniformly random, lowest, highest,
median, greedy with and without the future, cheque-matching), updated from
every sale the opponent has already made: the sale rounds in the history
are replayed as that seat saw them. The uniform type keeps a large prior
weight, so an opponent that fits no type is treated as unpredictable
rather than mispredicted; a bot that always sells its lowest house is
recognised after one or two rounds. This opponent model is most of the
expert's edge: without it, the same evaluation won 40-55% against three
copies of ``value``; with it, 80%.

Everything here works from plain numbers, so the same evaluation serves the
:class:`ExpertAgent` (built from a view) and the search bot's rollouts
(built from its own sampled states).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from math import comb
from typing import Any

from ..actions import PASS, SELLS, Action, bid
from ..rules import CHEQUES, HOUSES
from ..view import View
from .registry import option_number, register

ALPHA = 1.0
"""How much of the value gap between top and bottom house a seat will bid."""

FUTURE_WEIGHT = 0.75
"""How much of a house's expected later cheque its sale now must make up for.

Tuned on 200-game tables against each baseline: 1.0 (the unbiased value)
and 0.5 each lose to 0.75 against some of them; the posterior over sale
types already captures most of what the opponents will do later."""


@lru_cache(maxsize=4096)
def order_stat_means(pool: tuple[int, ...], n: int) -> tuple[float, ...]:
    """``E[k-th smallest of n cheques]`` for ``k = 0..n-1``, drawing without replacement from ``pool`` (sorted).

    >>> order_stat_means((0, 5, 10), 3)
    (0.0, 5.0, 10.0)
    """
    m = len(pool)
    if m < n:  # cannot happen in play; pad so callers never divide by zero
        pool = (0,) * (n - m) + pool
        m = n
    total = comb(m, n)
    return tuple(
        sum(pool[i] * comb(i, k) * comb(m - 1 - i, n - 1 - k) for i in range(k, m - n + k + 1)) / total
        for k in range(n)
    )


def below_distribution(ps: Sequence[float]) -> list[float]:
    """Poisson-binomial: ``P(exactly j of the events happen)`` for independent chances ``ps``."""
    dist = [1.0]
    for p in ps:
        q = 1.0 - p
        new = [0.0] * (len(dist) + 1)
        for j, d in enumerate(dist):
            new[j] += d * q
            new[j + 1] += d * p
        dist = new
    return dist


def binomial_distribution(k: int, p: float) -> list[float]:
    """``P(exactly j of k independent events with chance p)``."""
    q = 1.0 - p
    return [comb(k, j) * p**j * q ** (k - j) for j in range(k + 1)]


def auction_house_values(
    n: int, own: Sequence[int], others_known: Sequence[int], unseen: Sequence[int], unseen_in_play: int
) -> list[float]:
    """Expected cheque of every house 1..30 for a seat holding ``own``, during the auction phase.

    The other houses that will meet ours in sales are those others hold or
    that are on the table (``others_known``) plus the unseen houses, each
    in play with chance ``unseen_in_play / len(unseen)``. No cheque has been
    seen yet, so the cheques of a sale round are ``n`` of the 30 at random.
    """
    stats = order_stat_means(CHEQUES, n)
    w = unseen_in_play / len(unseen) if unseen else 0.0
    mine = set(own)
    known = sorted(h for h in others_known if h not in mine)
    unknown = sorted(unseen)
    total = len(known) + w * len(unknown)
    values = [0.0] * 31
    if total <= 0:
        return values
    below_known = 0
    below_unknown = 0
    for h in HOUSES:
        while below_known < len(known) and known[below_known] < h:
            below_known += 1
        while below_unknown < len(unknown) and unknown[below_unknown] < h:
            below_unknown += 1
        p = (below_known + w * below_unknown) / total
        dist = binomial_distribution(n - 1, min(1.0, p))
        values[h] = sum(d * s for d, s in zip(dist, stats))
    return values


def _fraction_below(hand: Sequence[int], h: int) -> float:
    return sum(1 for x in hand if x < h) / len(hand)


def future_value(h: int, opponents: Sequence[Sequence[int]], future_stats: Sequence[float] | None) -> float:
    """What house ``h`` should earn in a later sale round against uniformly random houses of the opponents."""
    if future_stats is None:
        return 0.0
    dist = below_distribution([_fraction_below(hand, h) for hand in opponents])
    return sum(d * s for d, s in zip(dist, future_stats))


SALE_TYPES: tuple[str, ...] = ("uniform", "lowest", "highest", "median", "greedy", "greedy_now", "match")
"""Ways a seat may choose its house, which the expert tells apart from the sales it has seen."""

SALE_TYPE_PRIOR: dict[str, float] = {
    "uniform": 0.3, "lowest": 0.1, "highest": 0.1, "median": 0.1, "greedy": 0.2, "greedy_now": 0.1, "match": 0.1,
}  # fmt: skip
EPSILON = 0.1
"""Chance that a seat of a deterministic type plays a house at random (so one odd sale does not refute it)."""


def greedy_values(
    hand: Sequence[int], others: Sequence[Sequence[int]], table: Sequence[int], future_stats: Sequence[float] | None
) -> tuple[list[float], list[float]]:
    """Per house of ``hand``: (cheque expected now, cheque expected later) against uniformly random opponents."""
    now: list[float] = []
    later: list[float] = []
    for h in hand:
        dist = below_distribution([_fraction_below(o, h) for o in others])
        now.append(sum(d * c for d, c in zip(dist, table)))
        later.append(sum(d * s for d, s in zip(dist, future_stats)) if future_stats is not None else 0.0)
    return now, later


def type_choice(
    kind: str,
    hand: Sequence[int],
    others: Sequence[Sequence[int]],
    table: Sequence[int],
    future_stats: Sequence[float] | None,
) -> int | None:
    """The index in ``hand`` (ascending) a seat of type ``kind`` plays; ``None`` for ``uniform``."""
    k = len(hand)
    if kind == "uniform":
        return None
    if kind == "lowest":
        return 0
    if kind == "highest":
        return k - 1
    if kind == "median":
        return k // 2
    if kind == "match":
        m = sum(table) / len(table)
        return min(range(k), key=lambda i: (abs(hand[i] / 2 - m), hand[i]))
    now, later = greedy_values(hand, others, table, future_stats)
    if kind == "greedy":
        net = [a - b for a, b in zip(now, later)]
    else:
        net = now
    return net.index(max(net))


def type_distributions(
    hand: Sequence[int], others: Sequence[Sequence[int]], table: Sequence[int], future_stats: Sequence[float] | None
) -> dict[str, list[float]]:
    """For every type in :data:`SALE_TYPES`, its chance of playing each house of ``hand``."""
    k = len(hand)
    out: dict[str, list[float]] = {}
    cache: dict[str, int | None] = {}
    for kind in SALE_TYPES:
        choice = type_choice(kind, hand, others, table, future_stats)
        cache[kind] = choice
        if choice is None:
            out[kind] = [1.0 / k] * k
        else:
            probs = [EPSILON / k] * k
            probs[choice] += 1.0 - EPSILON
            out[kind] = probs
    return out


def sale_posteriors(
    n: int,
    hands: Sequence[Sequence[int]],
    history: Sequence[tuple[Any, Any]],
    sale_tables: Sequence[Sequence[int]],
    unseen_cheques: Sequence[int],
    rounds: int,
) -> list[dict[str, float]]:
    """Each seat's posterior over :data:`SALE_TYPES`, from the sale rounds already played.

    ``sale_tables`` are the finished rounds' tables; ``unseen_cheques`` the
    cheques unseen before the current round's table was revealed (that
    table included).

    Replays every finished sale round as the seat saw it (its hand then, the
    cheques on the table, the cheques still unseen) and weighs each type by
    how likely it made the house the seat played.
    """
    sales = [houses for seat, houses in history if seat is None]
    posts = [dict(SALE_TYPE_PRIOR) for _ in range(n)]
    if not sales:
        return posts
    held = [list(h) for h in hands]
    for houses in sales:
        for s, h in enumerate(houses):
            held[s].append(h)
    for s in range(n):
        held[s].sort()
    pool = sorted(unseen_cheques)
    pools = []
    for r in range(len(sale_tables) - 1, -1, -1):  # the pool before round r's table was revealed
        pools.append(tuple(pool))
        pool = sorted(pool + list(sale_tables[r]))
    pools.reverse()  # pools[r]: cheques unseen while round r is played
    for r, houses in enumerate(sales):
        dists = _round_type_distributions(
            tuple(tuple(h) for h in held), tuple(sale_tables[r]), pools[r], r < rounds - 1
        )
        for s in range(n):
            dist = dists[s]
            if dist is not None:
                i = held[s].index(houses[s])
                post = posts[s]
                for kind in SALE_TYPES:
                    post[kind] *= dist[kind][i]
                total = sum(post.values())
                for kind in SALE_TYPES:
                    post[kind] /= total
        for s in range(n):
            held[s].remove(houses[s])
    return posts


@lru_cache(maxsize=2048)
def _round_type_distributions(
    held: tuple[tuple[int, ...], ...], table: tuple[int, ...], pool: tuple[int, ...], more_rounds: bool
) -> tuple[dict[str, list[float]] | None, ...]:
    """:func:`type_distributions` for every seat of one finished sale round (``None``: a forced sale).

    Cached: every later decision of the game replays the same rounds, so each
    is worked out once per process instead of once per decision.
    """
    n = len(held)
    future_stats = order_stat_means(pool, n) if more_rounds else None
    out: list[dict[str, list[float]] | None] = []
    for s, hand in enumerate(held):
        if len(hand) > 1:
            others = [held[o] for o in range(n) if o != s]
            out.append(type_distributions(hand, others, table, future_stats))
        else:
            out.append(None)
    return tuple(out)


def predicted_play(
    post: dict[str, float],
    hand: Sequence[int],
    others: Sequence[Sequence[int]],
    table: Sequence[int],
    future_stats: Sequence[float] | None,
) -> list[float]:
    """A seat's chance of playing each house of ``hand``, mixing the types by ``post``."""
    dists = type_distributions(hand, others, table, future_stats)
    k = len(hand)
    return [sum(post[kind] * dists[kind][i] for kind in SALE_TYPES) for i in range(k)]


def sale_choice(
    seat: int,
    hands: Sequence[Sequence[int]],
    table: Sequence[int],
    future_pool: tuple[int, ...],
    rounds_after: int,
    posts: Sequence[dict[str, float]] | None = None,
) -> int:
    """The expert's house for ``seat`` this sale round (see the module docstring).

    ``hands`` are every seat's houses (all known by deduction), ``table`` the
    cheques of this round ascending, ``future_pool`` the unseen cheques
    (sorted), ``rounds_after`` how many sale rounds follow this one,
    ``posts`` each seat's posterior over :data:`SALE_TYPES` (the prior if
    ``None``). Maximises the cheque expected now against the predicted
    plays, minus ``FUTURE_WEIGHT`` times what the house would earn later.
    """
    mine = hands[seat]
    if len(mine) == 1:
        return mine[0]
    n = len(hands)
    future_stats = order_stat_means(future_pool, n) if rounds_after > 0 else None
    below_now: list[list[float]] = []  # per opponent, P(it plays below h) for each of our houses
    for s, hand in enumerate(hands):
        if s == seat:
            continue
        others = [hands[o] for o in range(n) if o != s]
        probs = predicted_play(posts[s] if posts is not None else SALE_TYPE_PRIOR, hand, others, table, future_stats)
        below_now.append([sum(p for x, p in zip(hand, probs) if x < h) for h in mine])
    others = [hands[o] for o in range(n) if o != seat]
    best, best_value = mine[0], float("-inf")
    for i, h in enumerate(mine):
        dist = below_distribution([row[i] for row in below_now])
        value = sum(d * c for d, c in zip(dist, table)) - FUTURE_WEIGHT * future_value(h, others, future_stats)
        if value > best_value:
            best, best_value = h, value
    return best


def view_house_values(view: View) -> list[float]:
    """:func:`auction_house_values` for the viewing seat."""
    seat = view.seat
    assert seat is not None
    others = [h for s, hand in enumerate(view.hands) if s != seat for h in hand] + list(view.table)
    return auction_house_values(view.players, view.hands[seat], others, view.unseen_houses, view.houses_to_come)


class ExpertAgent:
    """The heuristic described in the module docstring; microseconds per decision, no search."""

    def __init__(self, name: str = "expert", alpha: float = ALPHA) -> None:
        self.name = name
        self.alpha = alpha

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase == "auction":
            values = view_house_values(view)
            limit = self.alpha * (values[view.table[-1]] - values[view.table[0]])
            if view.coins[seat] > view.high and view.high + 1 <= limit:
                return bid(view.high + 1)
            return PASS
        rounds_after = view.rules.rounds - view.round - 1
        posts = sale_posteriors(
            view.players,
            view.hands,
            view.history,
            view.sale_tables[:-1],
            view.unseen_cheques + view.table,
            view.rules.rounds,
        )
        house = sale_choice(seat, view.hands, view.table, view.unseen_cheques, rounds_after, posts)
        return SELLS[house]


@register("expert", "our heuristic: expected-cheque house values, bids up to the value gap, opponent-modelled sales")
def _expert(alpha: float = ALPHA) -> ExpertAgent:
    return ExpertAgent(alpha=option_number("alpha", alpha, 0))
