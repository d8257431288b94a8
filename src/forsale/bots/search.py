"""``hard`` (and the ``easy`` / ``medium`` levels): search over deals consistent with the view.

**Auction decisions** are chosen by determinized Monte Carlo: draw a full
state consistent with the seat's view (:func:`forsale.view.sample_state`
shuffles the houses and cheques still to come and, at 3-4 players, which
cards were removed) and play the rest of the auction phase out once per
*plan* for this round: pass now, or raise by one up to ``high + k`` coins
(``k`` in :data:`PLAN_STEPS`; the finer set 1, 2, 3, 5, 8, 12 won 39.6% of
400 games against three experts where 1, 2, 4, 7 won 37.1%). Every other seat bids by the rule fitted to
its own raises and passes so far (:func:`fit_bidders`: a grid of "raise
while ``high + 1 <= a * value gap + b * coins``", so both the expert's
value-gap rule and the baselines' share-of-coins rules are recognised),
and later rounds are bid by the expert's rule. At the end of the auction
phase every hand is known, so it is valued rather than played: each house
earns the expected cheque of its rank against the others' hands
(:func:`hand_values`), and the utility is a softmax win share of the
expected final scores plus a hundredth of the margin. Every plan sees the
same sampled deals (common random numbers), so their difference is
measured, not drowned in the luck of the deal. The bot then plays the
first step of the best plan, and plans again at its next turn.

**Sale decisions** are simultaneous: nobody sees the others' houses. Every
hand is known by deduction, so the search samples what the opponents play
this round from the expert's prediction of each of them (a posterior over
sale types learnt from the sales they have made, which keeps a uniformly
random component, so an opponent never seen before is not mispredicted
with certainty), resolves the round for each of its own houses, and values
the hands left against the cheques still unseen. With two houses left per
hand the last round is forced, so the choice is solved **exactly**: every
combination of the opponents' plays and of the last round's cheques is
enumerated and weighed.

The time budget (``time=``, seconds of wall clock per decision) is spent
in full unless there is only one legal action; ``samples=N`` fixes the
number of sampled deals instead, which makes the bot deterministic for a
given seed and view (tests and reproducible tournaments use it).
"""

from __future__ import annotations

import random
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, product
from math import exp
from typing import Any

from ..actions import PASS, SELLS, Action, Bid, bid
from ..rules import CHEQUES, win_shares
from ..view import View, sample_state
from .expert import (
    ALPHA,
    SALE_TYPES,
    ExpertAgent,
    below_distribution,
    binomial_distribution,
    order_stat_means,
    predicted_play,
    sale_posteriors,
)
from .registry import register

DEFAULT_TIME = 0.2
"""Seconds of wall clock per decision when neither ``time=`` nor a budget is given."""

MARGIN_WEIGHT = 0.01

PLAN_STEPS = (1, 2, 3, 5, 8, 12)
"""The auction plans compared: raise by one up to ``high + k`` coins this round (and pass now)."""


def _utility(scores: Sequence[int], coins: Sequence[int], me: int) -> float:
    """The rules' win share (:func:`forsale.rules.win_shares`) plus a small score margin over the best other seat."""
    others = max(s for i, s in enumerate(scores) if i != me)
    return win_shares(scores, coins)[me] + MARGIN_WEIGHT * (scores[me] - others)


def _sample_kinds(posts: Sequence[dict[str, float]], me: int, rng: random.Random) -> list[str]:
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


_GRID = 100


@lru_cache(maxsize=16)
def _binomials(n: int) -> tuple[tuple[float, ...], ...]:
    """``[i][j]``: P(j of n-1 opponents are below) when each is below with chance ``i / _GRID``."""
    return tuple(tuple(binomial_distribution(n - 1, i / _GRID)) for i in range(_GRID + 1))


@lru_cache(maxsize=16)
def _house_value_curve(n: int) -> tuple[float, ...]:
    """``[i]``: the expected cheque, before any is seen, of a house above a share ``i / _GRID`` of the others."""
    stats = order_stat_means(CHEQUES, n)
    return tuple(sum(b * s for b, s in zip(row, stats)) for row in _binomials(n))


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
    rows = _binomials(n)
    if kind == "greedy" and future_stats is not None:
        gain = [c - f for c, f in zip(table, future_stats)]
    else:
        gain = list(table)
    best, best_value = hand[0], float("-inf")
    for h in hand:
        p = sum(bisect_left(o, h) / len(o) for o in others) / (n - 1)
        row = rows[int(p * _GRID + 0.5)]
        value = sum(b * g for b, g in zip(row, gain))
        if value > best_value:
            best, best_value = h, value
    return best


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


def hand_values(hands: Sequence[Sequence[int]], stats: Sequence[float] | None = None) -> list[float]:
    """What each seat's houses should fetch in the sale phase, against the houses the others hold.

    A house earns the cheque of its rank among the houses played with it;
    each opponent is taken to play a uniformly random house of its hand, and
    the cheques of a round are ``n`` of the 30 at random (the order
    statistics are exact). This is the auction-phase evaluation of the
    search: it replaces playing the sale phase out, which costs several
    times more and adds the noise of the cheque order to every sample.
    """
    n = len(hands)
    if stats is None:
        stats = order_stat_means(CHEQUES, n)
    sorted_hands = [sorted(h) for h in hands]
    out = []
    for s, hand in enumerate(sorted_hands):
        others = [o for i, o in enumerate(sorted_hands) if i != s and o]
        total = 0.0
        for h in hand:
            dist = below_distribution([bisect_left(o, h) / len(o) for o in others])
            total += sum(d * x for d, x in zip(dist, stats))
        out.append(total)
    return out


def expected_share(scores: Sequence[float], me: int, temperature: float) -> float:
    """A smooth win share from expected final scores: a softmax over seats at ``temperature`` points."""
    top = max(scores)
    weights = [exp((x - top) / temperature) for x in scores]
    return weights[me] / sum(weights)


def round_values(seen: Sequence[int], table: Sequence[int], n: int, cards: int) -> dict[int, float]:
    """Expected cheque of each house of this round's ``table``, given the houses ``seen`` so far (sorted).

    Another house is below ``h`` if it is a seen house below ``h`` or an
    unseen one below ``h`` that is in play (chance: houses still to come
    over houses unseen); the chance then goes through
    :func:`_house_value_curve`. Every seat uses the same values, which is
    what makes this cheap enough for rollouts and for reading the
    opponents' bids.
    """
    curve = _house_value_curve(n)
    seen_count = len(seen)
    unseen_total = 30 - seen_count
    w = (cards - seen_count) / unseen_total if unseen_total else 0.0
    denom = seen_count - 1 + w * unseen_total
    value: dict[int, float] = {}
    for h in table:
        below_seen = bisect_left(seen, h)
        p = (below_seen + w * (h - 1 - below_seen)) / denom if denom > 0 else 0.0
        value[h] = curve[int(min(1.0, p) * _GRID + 0.5)]
    return value


Bidder = tuple[float, float]
"""A seat's bidding rule in rollouts: raise by one while ``high + 1 <= a * gap + b * coins``."""

EXPERT_BIDDER: Bidder = (ALPHA, 0.0)
_BIDDER_GRID: tuple[Bidder, ...] = tuple(
    (a, b) for a in (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0) for b in (0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.75)
)
_BIDDER_ERROR = 0.1


def fit_bidders(view: View) -> list[Bidder]:
    """Each seat's most likely :data:`Bidder` given every raise and pass it made this game.

    The auction history is replayed; each decision of a seat that could
    raise is a vote for the rules under which it would have done the same
    (a rule that disagrees keeps a 10% chance, so one odd move is not fatal).
    The expert's own rule has a head start, so a seat seen only a few times
    is modelled like the expert.
    """
    n = view.players
    cards = view.rules.cards
    refund = view.rules.refund_of
    logs = [[0.0] * len(_BIDDER_GRID) for _ in range(n)]
    expert_index = _BIDDER_GRID.index(EXPERT_BIDDER)
    for s in range(n):
        logs[s][expert_index] += 2.0
    from math import log

    agree, disagree = log(1 - _BIDDER_ERROR), log(_BIDDER_ERROR)
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
            for i, (a, b) in enumerate(_BIDDER_GRID):
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
    return [_BIDDER_GRID[max(range(len(row)), key=row.__getitem__)] for row in logs]


def play_auctions(
    state: Any, bidders: Sequence[Bidder], plan: tuple[int, int] | None = None
) -> tuple[list[int], list[list[int]]]:
    """Finish the auction phase of a sampled state with the expert's limit rule; ``(coins, hands)``.

    Works on plain lists (not :meth:`State.push`): rollouts spend most of
    their time here. Every seat values the houses on the table by their
    expected cheque given the houses seen so far (:func:`_house_value_curve`)
    and raises by one while the raise is within ``alphas[seat]`` times the
    gap between the top house and the lowest house left on the table.
    ``plan = (seat, limit)`` makes ``seat`` raise up to ``limit`` coins in the
    current round instead (``limit <= high``: it passes at once).
    """
    n = state.n
    rules = state.rules
    rounds = rules.rounds
    cards = rules.cards
    refund_down = rules.refund == "down"
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
    while True:
        # Values of this round's houses (the whole round's table, including any already taken).
        value = round_values(sorted(houses[: n * (r + 1)]), houses[r * n : r * n + n], n, cards)
        top = value[table[-1]]
        lo = 0
        gap = top - value[table[0]]
        while True:
            seat = turn
            if seat == plan_seat:
                limit = plan_limit
            else:
                a, b = bidders[seat]
                limit = a * gap + b * coins[seat]
            if coins[seat] > high and high + 1 <= limit:
                high += 1
                bids[seat] = high
            else:
                paid = bids[seat]
                if paid:
                    coins[seat] -= (paid + 1) // 2 if refund_down else paid // 2
                hands[seat].append(table[lo])
                lo += 1
                active[seat] = False
                n_active -= 1
                if n_active == 1:
                    last = active.index(True)
                    coins[last] -= bids[last]
                    hands[last].append(table[-1])
                    turn = last
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


class SearchAgent:
    """Determinized search with expert rollouts (see the module docstring)."""

    def __init__(
        self,
        name: str = "hard",
        time: float = DEFAULT_TIME,
        alpha: float = ALPHA,
        phases: str = "auction,sale",
        samples: int | None = None,
        temperature: float = 3.0,
        sale_rollouts: bool = False,
        model_bidders: bool = True,
        steps: Sequence[int] = PLAN_STEPS,
    ) -> None:
        if not time > 0:
            raise ValueError(f"time must be a positive number of seconds, not {time!r}")
        self.name = name
        self.time = float(time)
        self.alpha = alpha
        self._expert = ExpertAgent(alpha=alpha)
        self.phases = tuple(phases.split(","))
        if samples is not None and (type(samples) is not int or samples < 1):
            raise ValueError(f"samples must be a whole number of at least 1, not {samples!r}")
        self.samples = samples
        self.temperature = temperature
        self.sale_rollouts = sale_rollouts
        self.model_bidders = model_bidders
        self.steps = tuple(steps)
        self.samples_drawn = 0
        """How many deals the last decision sampled (0 when it had nothing to search); read-only."""

    # -- entry point ---------------------------------------------------
    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        self.samples_drawn = 0
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        seconds = self.time if budget is None else budget
        deadline = time.perf_counter() + seconds
        if view.phase not in self.phases:
            return self._expert.act(view, rng, budget)
        if view.phase == "auction":
            return self._auction(view, rng, deadline)
        return self._sale(view, rng, deadline)

    def _more(self, samples: int, deadline: float) -> bool:
        """Whether to draw another sample: until the deadline, or exactly ``self.samples`` if set."""
        if self.samples is not None:
            return samples < self.samples
        return samples == 0 or time.perf_counter() < deadline

    # -- auctions ------------------------------------------------------
    def _auction(self, view: View, rng: random.Random, deadline: float) -> Action:
        seat = view.seat
        assert seat is not None
        high = view.high
        coins = view.coins[seat]
        # Plans for this round: pass now (limit = high), or raise by one up to a limit, then bid as the expert.
        limits = sorted({high} | {min(coins, high + k) for k in self.steps})
        posts = sale_posteriors(view.players, view.hands, view.history, (), view.unseen_cheques, view.rules.rounds)
        bidders = fit_bidders(view) if self.model_bidders else [EXPERT_BIDDER] * view.players
        bidders[seat] = (self.alpha, 0.0)
        totals = [0.0] * len(limits)
        samples = 0
        while self._more(samples, deadline):
            state = sample_state(view, rng)
            seed = rng.getrandbits(64)
            for i, limit in enumerate(limits):
                totals[i] += self._rollout(state, seat, posts, bidders, random.Random(seed), (seat, limit))
            samples += 1
        self.samples_drawn = samples
        best = limits[max(range(len(limits)), key=lambda i: totals[i])]
        return PASS if best == high else bid(high + 1)

    def _rollout(
        self,
        state: Any,
        me: int,
        posts: Sequence[dict[str, float]],
        bidders: Sequence[Bidder],
        rng: random.Random,
        plan: tuple[int, int] | None = None,
    ) -> float:
        """Finish a sampled game (``state`` is not changed) with the expert policy for every seat
        but ``me``, which follows ``plan`` this round; the utility for ``me``."""
        n = state.n
        if state.phase == "auction":
            coins, hands = play_auctions(state, bidders, plan)
            if not self.sale_rollouts:
                expected = [c + v for c, v in zip(coins, hand_values(hands))]
                top_other = max(x for i, x in enumerate(expected) if i != me)
                return expected_share(expected, me, self.temperature) + MARGIN_WEIGHT * (expected[me] - top_other)
            start = 0
        else:
            coins, hands = list(state.coins), [list(h) for h in state.hands]
            start = n * state.round
        for h in hands:
            h.sort()
        totals = [sum(c) for c in state.cheques_won]
        cheques = state.deal.cheques
        rest = Counter(CHEQUES)
        rest.subtract(cheques)
        future = list(cheques[start:]) + sorted(rest.elements())
        play_sales(hands, totals, future, _sample_kinds(posts, me, rng), rng)
        scores = [t + c for t, c in zip(totals, coins)]
        return _utility(scores, coins, me)

    # -- sales ---------------------------------------------------------
    def _sale(self, view: View, rng: random.Random, deadline: float) -> Action:
        seat = view.seat
        assert seat is not None
        n = view.players
        hands = [list(h) for h in view.hands]
        mine = hands[seat]
        table = list(view.table)
        unseen = list(view.unseen_cheques)
        to_come = view.cheques_to_come
        posts = sale_posteriors(
            n, view.hands, view.history, view.sale_tables[:-1], view.unseen_cheques + view.table, view.rules.rounds
        )
        rounds_after = len(mine) - 1
        future_stats = order_stat_means(tuple(unseen), n) if rounds_after else None
        predictions: list[list[float]] = []
        for s in range(n):
            others = [hands[o] for o in range(n) if o != s]
            predictions.append(predicted_play(posts[s], hands[s], others, table, future_stats))
        base = [sum(c) for c in view.cheques_won]
        coins = list(view.coins)
        # The sale rounds after this one are valued, not played: the fewer, the surer the values.
        temperature = self.temperature * (len(mine) - 1) / max(1, view.rules.rounds - 1) + 1.0
        if len(mine) == 2:
            return SELLS[self._sale_exact(seat, hands, table, unseen, to_come, predictions, base, coins)]
        totals = [0.0] * len(mine)
        samples = 0
        while self._more(samples, deadline):
            future = unseen[:]
            rng.shuffle(future)
            future = future[:to_come] + sorted(future[to_come:])
            plays = [
                h if s != seat else 0 for s, h in enumerate(_draw(hands[s], predictions[s], rng) for s in range(n))
            ]
            if self.sale_rollouts:
                kinds = _sample_kinds(posts, seat, rng)
                seed = rng.getrandbits(64)
                for i, h in enumerate(mine):
                    plays[seat] = h
                    totals[i] += self._continue(
                        plays, hands, table, future, base, coins, kinds, seat, random.Random(seed)
                    )
            else:
                for i, h in enumerate(mine):
                    plays[seat] = h
                    totals[i] += self._static(plays, hands, table, future_stats, base, coins, seat, temperature)
            samples += 1
        self.samples_drawn = samples
        best = max(range(len(mine)), key=lambda i: totals[i])
        return SELLS[mine[best]]

    @staticmethod
    def _continue(
        plays: Sequence[int],
        hands: Sequence[Sequence[int]],
        table: Sequence[int],
        future: Sequence[int],
        base: Sequence[int],
        coins: Sequence[int],
        kinds: Sequence[str],
        me: int,
        rng: random.Random,
    ) -> float:
        """Resolve this sale round with ``plays``, play the rest out, return ``me``'s utility."""
        order = sorted(plays)
        totals = list(base)
        rest: list[list[int]] = []
        for s, h in enumerate(plays):
            totals[s] += table[order.index(h)]
            rest.append([x for x in hands[s] if x != h])
        if rest[0]:
            play_sales(rest, totals, future, kinds, rng)
        scores = [t + c for t, c in zip(totals, coins)]
        return _utility(scores, coins, me)

    def _static(
        self,
        plays: Sequence[int],
        hands: Sequence[Sequence[int]],
        table: Sequence[int],
        future_stats: Sequence[float] | None,
        base: Sequence[int],
        coins: Sequence[int],
        me: int,
        temperature: float,
    ) -> float:
        """Resolve this sale round with ``plays``; value the hands left with :func:`hand_values`."""
        order = sorted(plays)
        expected: list[float] = [b + table[order.index(h)] + c for b, h, c in zip(base, plays, coins)]
        if future_stats is not None:
            rest = [[x for x in hand if x != h] for hand, h in zip(hands, plays)]
            expected = [e + v for e, v in zip(expected, hand_values(rest, future_stats))]
        top_other = max(x for i, x in enumerate(expected) if i != me)
        return expected_share(expected, me, temperature) + MARGIN_WEIGHT * (expected[me] - top_other)

    @staticmethod
    def _sale_exact(
        me: int,
        hands: Sequence[Sequence[int]],
        table: Sequence[int],
        unseen: Sequence[int],
        to_come: int,
        predictions: Sequence[Sequence[float]],
        base: Sequence[int],
        coins: Sequence[int],
    ) -> int:
        """Two houses each: enumerate the opponents' plays and the last round's cheques exactly."""
        n = len(hands)
        finals = Counter(tuple(sorted(c)) for c in combinations(sorted(unseen), to_come))
        weight_total = sum(finals.values())
        opponents = [s for s in range(n) if s != me]
        mine = hands[me]
        values = [0.0] * len(mine)
        for choice in product(*(range(len(hands[s])) for s in opponents)):
            p = 1.0
            for s, i in zip(opponents, choice):
                p *= predictions[s][i]
            if p < 1e-9:
                continue
            plays = [0] * n
            for s, i in zip(opponents, choice):
                plays[s] = hands[s][i]
            for k, h in enumerate(mine):
                plays[me] = h
                order = sorted(plays)
                now = [base[s] + table[order.index(plays[s])] for s in range(n)]
                last = [next(x for x in hands[s] if x != plays[s]) for s in range(n)]
                last_order = sorted(last)
                expected = 0.0
                for cheques, count in finals.items():
                    scores = [now[s] + cheques[last_order.index(last[s])] + coins[s] for s in range(n)]
                    expected += count * _utility(scores, coins, me)
                values[k] += p * expected / weight_total
        return mine[max(range(len(mine)), key=lambda k: values[k])]


def _draw(hand: Sequence[int], probs: Sequence[float], rng: random.Random) -> int:
    x = rng.random() * sum(probs)
    for h, p in zip(hand, probs):
        x -= p
        if x <= 0:
            return h
    return hand[-1]


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
def _hard(
    time: float = DEFAULT_TIME,
    alpha: float = ALPHA,
    phases: str = "auction+sale",
    samples: int | None = None,
    temperature: float = 3.0,
    sale_rollouts: int = 0,
    model_bidders: int = 1,
    steps: str | int = "1+2+3+5+8+12",
) -> SearchAgent:
    return SearchAgent(
        "hard",
        time=time,
        alpha=alpha,
        phases=phases.replace("+", ","),
        samples=samples,
        temperature=float(temperature),
        sale_rollouts=bool(sale_rollouts),
        model_bidders=bool(model_bidders),
        steps=[int(k) for k in str(steps).split("+")],
    )


@register("medium", "the expert heuristic (a level for people to play against)")
def _medium() -> ExpertAgent:
    return ExpertAgent(name="medium")


@register("easy", "the expert with one careless move in four (a level for people to play against)")
def _easy(blunder: float = 0.25) -> EasyAgent:
    return EasyAgent(blunder=float(blunder))
