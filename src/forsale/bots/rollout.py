"""The search bots' fast restatement of the rules: finish the auctions or the sales on plain lists.

Rollouts spend most of the search's time here, so these functions do not
go through :meth:`forsale.state.State.push` (which checks every move and
records the history): they keep coins, hands and bids in local lists. That
restates the rules (who bids next, what a pass costs, who takes which house
and which cheque), so ``tests/bots/test_bots_rollout.py`` plays the same
decisions through the engine on random positions and asks for the same
coins, hands and cheques. The pass refund is the ruleset's own
(:meth:`forsale.rules.Ruleset.refund_of`), not a second statement of it.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from .bidmodels import BidRule, going_price
from .opponents import Bidder
from .valuation import GRID, binomials, quantile_stats, round_values


def fast_choice(
    kind: str,
    hand: list[int],
    others: Sequence[list[int]],
    table: Sequence[int],
    future_stats: Sequence[float] | None,
    rng: random.Random,
) -> int:
    """:func:`~forsale.bots.expert.type_choice` for rollouts: the greedy types use the mean chance
    of being below the opponents (a binomial, looked up) instead of the exact Poisson-binomial."""
    k = len(hand)
    if kind == "uniform":
        return hand[int(rng.random() * k)]
    if kind == "lowest":
        return hand[0]
    if kind == "highest":
        return hand[-1]
    if kind == "median":
        return hand[k // 2]
    if kind == "match":
        m = sum(table) / len(table)
        return min(hand, key=lambda h: (abs(h / 2 - m), h))
    n = len(others) + 1
    rows = binomials(n)
    if kind == "greedy" and future_stats is not None:
        gain = [c - f for c, f in zip(table, future_stats)]
    else:
        gain = list(table)
    best, best_value = hand[0], float("-inf")
    for h in hand:
        p = sum(bisect_left(o, h) / len(o) for o in others) / (n - 1)
        row = rows[int(p * GRID + 0.5)]
        value = sum(b * g for b, g in zip(row, gain))
        if value > best_value:
            best, best_value = h, value
    return best


def play_sales(
    hands: list[list[int]],
    totals: list[int],
    future: Sequence[int],
    kinds: Sequence[str],
    rng: random.Random,
) -> None:
    """Play the remaining sale rounds in place: ``totals[s]`` gains each cheque seat ``s`` wins.

    ``hands`` are ascending lists; ``future`` the cheques of the remaining
    rounds in the order they will be revealed, then any unseen ones out of
    play (used only for the order statistics of what is still to come).
    """
    n = len(hands)
    pos = 0
    while hands[0]:
        table = sorted(future[pos : pos + n])
        pos += n
        rounds_after = len(hands[0]) - 1
        future_stats = quantile_stats(sorted(future[pos:]), n) if rounds_after else None
        plays = []
        for s in range(n):
            hand = hands[s]
            if len(hand) == 1:
                plays.append(hand[0])
                continue
            others = [hands[o] for o in range(n) if o != s]
            plays.append(fast_choice(kinds[s], hand, others, table, future_stats, rng))
        order = sorted(plays)
        for s, h in enumerate(plays):
            totals[s] += table[order.index(h)]
            hands[s].remove(h)


_LAST: tuple[Any, int, int, dict[int, dict[int, float]]] = ((), 0, 0, {})
"""The houses of the deal last played out, and its rounds' house values (:func:`_values_of`)."""


def _values_of(houses: tuple[int, ...], r: int, n: int, cards: int) -> dict[int, float]:
    """:func:`~forsale.bots.valuation.round_values` of round ``r`` of a deal, computed once per deal.

    The search plays every plan out on the same sampled deal, one after the
    other, and a round's values depend only on the deal's houses, so they are
    kept for the deal last seen (by identity: a deal's houses are a tuple,
    never changed). The memo is one tuple, replaced whole, so threads that
    play different deals at once never read each other's values.
    """
    global _LAST
    entry = _LAST
    if entry[0] is not houses or entry[1] != n or entry[2] != cards:
        entry = _LAST = (houses, n, cards, {})
    table = entry[3]
    value = table.get(r)
    if value is None:
        value = table[r] = round_values(sorted(houses[: n * (r + 1)]), houses[r * n : r * n + n], n, cards)
    return value


def play_auctions(
    state: Any,
    bidders: Sequence[Bidder | BidRule],
    plan: tuple[int, int] | None = None,
    prices: Sequence[int] = (),
) -> tuple[list[int], list[list[int]]]:
    """Finish the auction phase of a sampled state with each seat's limit rule; ``(coins, hands)``.

    Every seat values the houses on the table by their expected cheque given
    the houses seen so far (:func:`forsale.bots.valuation.round_values`) and
    raises by one while ``high + 1 <= a * gap + b * coins`` for its
    ``bidders[seat] = (a, b)``, the gap being between the top house and the
    lowest house left on the table. ``plan = (seat, limit)`` makes ``seat``
    raise up to ``limit`` coins in the current round instead (``limit <=
    high``: it passes at once). ``state`` is read, never changed.

    A seat whose bidder is a :class:`~forsale.bots.bidmodels.BidRule` (an
    opponent fitted to the library of issue 32) bids by that rule's limit
    instead, and a jump bidder bids it at once; the going price it reads
    is the mean of ``prices`` (the top houses' prices of the finished
    rounds) and of the prices the rollout's own rounds fetch.
    """
    n = state.n
    rules = state.rules
    rounds = rules.rounds
    cards = rules.cards
    refund = rules.refund_of
    houses = state.deal.houses
    coins = list(state.coins)
    hands = [list(h) for h in state.hands]
    r = state.round
    table = list(state.table)
    bids = list(state.bids)
    active = list(state.active)
    high = state.high
    turn = state.turn
    n_active = sum(active)
    plan_seat, plan_limit = plan if plan is not None else (-1, 0)
    fetched = list(prices)
    start_coins = rules.starting_coins
    while True:
        # Values of this round's houses (the whole round's table, including any already taken).
        value = _values_of(houses, r, n, cards)
        going = going_price(fetched, start_coins, rounds)
        whole = houses[r * n : r * n + n]
        spread = max(whole) - min(whole)
        top = value[table[-1]]
        lo = 0
        gap = top - value[table[0]]
        while True:
            seat = turn
            rule = bidders[seat]
            if seat == plan_seat:
                limit = plan_limit
            elif rule.__class__ is tuple:
                a, b = rule
                limit = a * gap + b * coins[seat]
            else:
                limit = rule.limit(gap, coins[seat], rounds - r, going, spread)
            if coins[seat] > high and high + 1 <= limit:
                if seat != plan_seat and rule.__class__ is not tuple and rule.jump:
                    high = max(high + 1, min(coins[seat], int(limit)))
                else:
                    high += 1
                bids[seat] = high
            else:
                paid = bids[seat]
                if paid:
                    coins[seat] -= paid - refund(paid)
                hands[seat].append(table[lo])
                lo += 1
                active[seat] = False
                n_active -= 1
                if n_active == 1:
                    last = active.index(True)
                    coins[last] -= bids[last]
                    hands[last].append(table[-1])
                    turn = last
                    fetched.append(bids[last])
                    break
                gap = top - value[table[lo]]
            while True:
                seat += 1
                if seat == n:
                    seat = 0
                if active[seat]:
                    break
            turn = seat
        r += 1
        plan_seat = -1
        if r == rounds:
            return coins, hands
        table = sorted(houses[r * n : r * n + n])
        bids = [0] * n
        active = [True] * n
        n_active = n
        high = 0
