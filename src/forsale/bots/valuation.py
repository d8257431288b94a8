"""How the search bots value a position they do not play out: expected cheques, then a smooth win share.

The auction search stops at the end of the auction phase and the sale
search after the current round; what is left is *valued* here. A house
earns the cheque of its rank among the houses played with it, so its value
is the expected order statistic of the cheques for its chance of being
above each opponent's house (:func:`hand_values`, :func:`round_values`).
Expected final scores become a win share through a softmax
(:func:`expected_share`), since the rules reward winning, not points; a
hundredth of the margin (:data:`MARGIN_WEIGHT`) breaks ties between lines
that win equally often. Kept apart from the rollout rules and the agent
so that a learned value model can stand in for it (see
:mod:`forsale.bots.search`'s leaf evaluators).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache
from math import exp

from ..rules import CHEQUES, win_shares
from .expert import below_distribution, binomial_distribution, order_stat_means

MARGIN_WEIGHT = 0.01
"""Weight of the score margin over the best other seat, beside the win share."""

GRID = 100
"""Resolution of the tabulated binomials: a chance of being above is rounded to a hundredth."""


def utility(scores: Sequence[int], coins: Sequence[int], me: int) -> float:
    """The rules' win share (:func:`forsale.rules.win_shares`) plus a small score margin over the best other seat."""
    others = max(s for i, s in enumerate(scores) if i != me)
    return win_shares(scores, coins)[me] + MARGIN_WEIGHT * (scores[me] - others)


@lru_cache(maxsize=16)
def binomials(n: int) -> tuple[tuple[float, ...], ...]:
    """``[i][j]``: P(j of n-1 opponents are below) when each is below with chance ``i / GRID``."""
    return tuple(tuple(binomial_distribution(n - 1, i / GRID)) for i in range(GRID + 1))


@lru_cache(maxsize=16)
def house_value_curve(n: int) -> tuple[float, ...]:
    """``[i]``: the expected cheque, before any is seen, of a house above a share ``i / GRID`` of the others."""
    stats = order_stat_means(CHEQUES, n)
    return tuple(sum(b * s for b, s in zip(row, stats)) for row in binomials(n))


def quantile_stats(pool: Sequence[int], n: int) -> list[float]:
    """A fast stand-in for :func:`order_stat_means` on a sorted ``pool``: the k-th of ``n`` draws sits
    near the ``(k+1)/(n+1)`` quantile of the pool (exact in the mean for a uniform pool)."""
    m = len(pool)
    out = []
    for k in range(n):
        x = (k + 1) * (m + 1) / (n + 1) - 1
        i = int(x)
        if i >= m - 1:
            out.append(float(pool[-1]))
        else:
            f = x - i
            out.append(pool[i] * (1 - f) + pool[i + 1] * f)
    return out


def hand_values(hands: Sequence[Sequence[int]], stats: Sequence[float] | None = None) -> list[float]:
    """What each seat's houses should fetch in the sale phase, against the houses the others hold.

    A house earns the cheque of its rank among the houses played with it;
    each opponent is taken to play a uniformly random house of its hand, and
    the cheques of a round are ``n`` of the 30 at random (the order
    statistics are exact). This is the auction-phase evaluation of the
    search: it replaces playing the sale phase out, which costs several
    times more and adds the noise of the cheque order to every sample.

    The same as :func:`seat_value` for every seat, computed in one sweep over
    all the houses in ascending order (each seat's count of houses below
    the current one is a running counter, not a search), with the expected
    cheque of each pattern of counts looked up (:func:`_rank_value`): the
    search calls this at every leaf.
    """
    n = len(hands)
    stats = order_stat_means(CHEQUES, n) if stats is None else tuple(stats)
    sizes = tuple(len(h) for h in hands)
    below = [0] * n
    values = [0.0] * n
    table = _rank_values((stats, sizes))
    for _, s in sorted((h, s) for s, hand in enumerate(hands) for h in hand):
        key = (s, *below)
        value = table.get(key)
        if value is None:
            pairs = tuple((below[o], sizes[o]) for o in range(n) if o != s and sizes[o])
            value = table[key] = _rank_value(pairs, stats)
        values[s] += value
        below[s] += 1
    return values


def seat_value(hand: Sequence[int], others: Sequence[Sequence[int]], stats: Sequence[float]) -> float:
    """:func:`hand_values` for one seat: its ``hand`` against the ``others``' sorted hands."""
    others = [o for o in others if o]
    return sum(_rank_value(tuple((bisect_left(o, h), len(o)) for o in others), stats) for h in hand)


Situation = tuple[tuple[float, ...], tuple[int, ...]]
"""The order statistics of the cheques and each seat's hand size: what the memo of :func:`hand_values` is for."""

_RANK_VALUES: dict[Situation, dict[tuple[int, ...], float]] = {}


def _rank_values(situation: Situation) -> dict[tuple[int, ...], float]:
    """The memo of :func:`_rank_value` for one situation (the order statistics and the hand sizes);
    bounded, since the statistics change with the cheques seen."""
    table = _RANK_VALUES.get(situation)
    if table is None:
        if len(_RANK_VALUES) >= 4096:
            _RANK_VALUES.clear()
        table = _RANK_VALUES[situation] = {}
    return table


def _rank_value(key: tuple[tuple[int, int], ...], stats: Sequence[float]) -> float:
    """The expected cheque of a house above ``below`` of ``size`` houses of each opponent, ``key = ((below, size), ...)``."""
    dist = below_distribution([below / size for below, size in key])
    return sum(d * x for d, x in zip(dist, stats))


def sale_temperature(houses_left: int) -> float:
    """The softmax temperature (points) of expected scores with ``houses_left`` houses in each hand still to sell.

    The more sale rounds are left, the less sure a lead: ``1 + houses_left / 2``,
    a line through the temperatures that best predict who won games between
    ``expert`` and the population's tuning half, fitted for each number of
    houses left at 3 to 6 players (``bench/calibration.py``: 4.5 at the start
    of a 4-player sale phase, 1.5 before its last round).

    >>> sale_temperature(7), sale_temperature(1)
    (4.5, 1.5)
    """
    return 1.0 + houses_left / 2


def expected_share(scores: Sequence[float], me: int, temperature: float) -> float:
    """A smooth win share from expected final scores: a softmax over seats at ``temperature`` points."""
    top = max(scores)
    weights = [exp((x - top) / temperature) for x in scores]
    return weights[me] / sum(weights)


def expected_shares(scores: Sequence[float], temperature: float) -> list[float]:
    """:func:`expected_share` for every seat at once (they add up to 1)."""
    top = max(scores)
    weights = [exp((x - top) / temperature) for x in scores]
    total = sum(weights)
    return [w / total for w in weights]


def round_values(seen: Sequence[int], table: Sequence[int], n: int, cards: int) -> dict[int, float]:
    """Expected cheque of each house of this round's ``table``, given the houses ``seen`` so far (sorted).

    Another house is below ``h`` if it is a seen house below ``h`` or an
    unseen one below ``h`` that is in play (chance: houses still to come
    over houses unseen); the chance then goes through
    :func:`house_value_curve`. Every seat uses the same values, which is
    what makes this cheap enough for rollouts and for reading the
    opponents' bids.
    """
    curve = house_value_curve(n)
    seen_count = len(seen)
    unseen_total = 30 - seen_count
    w = (cards - seen_count) / unseen_total if unseen_total else 0.0
    denom = seen_count - 1 + w * unseen_total
    value: dict[int, float] = {}
    for h in table:
        below_seen = bisect_left(seen, h)
        p = (below_seen + w * (h - 1 - below_seen)) / denom if denom > 0 else 0.0
        value[h] = curve[int(min(1.0, p) * GRID + 0.5)]
    return value
