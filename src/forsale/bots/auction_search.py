"""The determinized auction search that ``hard`` and ``hard-v1`` share, with ``hard-v1``'s sale search.

:class:`AuctionSearchAgent` is ``hard-v1``, the search bot as it was before
issue 14, and the base class of today's ``hard``
(:class:`forsale.bots.search.HardAgent`), which inherits its auction search
and solves the sale rounds its own way. It is therefore not a frozen copy: a
change to the auction search here changes both bots (``hard-v1``'s pinned
moves, below, tell when it does).

**Auction decisions** are chosen by determinized Monte Carlo: draw a full
state consistent with the seat's view (:func:`forsale.view.sample_state`
shuffles the houses and cheques still to come and, at 3-4 players, which
cards were removed) and play the rest of the auction phase out once per
*plan* for this round: pass now, or raise by one up to ``high + k`` coins
(``k`` in :data:`PLAN_STEPS`; the finer set 1, 2, 3, 5, 8, 12 won 39.6% of
400 games against three experts where 1, 2, 4, 7 won 37.1%). Every other
seat bids by the rule fitted to its own raises and passes so far
(:func:`forsale.bots.opponents.fit_bidders`), and the rollout itself runs
on plain lists (:mod:`forsale.bots.rollout`). At the end of the auction
phase every hand is known, so it is valued rather than played
(:mod:`forsale.bots.valuation`): each house earns the expected cheque of
its rank against the others' hands, and the utility is a softmax win share
of the expected final scores plus a hundredth of the margin. Every plan
sees the same sampled deals (common random numbers), so their difference
is measured, not drowned in the luck of the deal. The bot then plays the
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

``tests/bots/test_bots_auction_search.py`` pins some of ``hard-v1``'s moves
from before the search bot was split by concern. It is registered (as
``hard-v1``) by :mod:`forsale.bots.search`, whose ``hard`` builds on its
auction search.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, product
from typing import Any

from ..actions import PASS, SELLS, Action, bid
from ..rules import CHEQUES
from ..view import View, sample_state
from .bidmodels import BidRule
from .expert import ALPHA, ExpertAgent, order_stat_means, predicted_play, sale_posteriors
from .opponents import EXPERT_BIDDER, Bidder, draw, fit_bidders, sample_kinds
from .registry import option_number
from .rollout import play_auctions, play_sales
from .valuation import MARGIN_WEIGHT, expected_share, hand_values, utility

DEFAULT_TIME = 0.2
"""Seconds of wall clock per decision when neither ``time=`` nor a budget is given."""

PLAN_STEPS = (1, 2, 3, 5, 8, 12)
"""The auction plans compared: raise by one up to ``high + k`` coins this round (and pass now)."""

MAX_PLAN_STEPS = 12
"""The most plans a spec's ``steps=`` may list: each one is searched on every sampled deal."""


class AuctionSearchAgent:
    """Determinized auction search with fitted-bidder rollouts, and ``hard-v1``'s sale search (see the module
    docstring); ``hard`` is a subclass."""

    def __init__(
        self,
        name: str = "hard-v1",
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
        deadline = self._deadline(budget)
        if view.phase not in self.phases:
            return self._expert.act(view, rng, budget)
        if view.phase == "auction":
            return self._auction(view, rng, deadline)
        return self._sale(view, rng, deadline)

    def sale_search(self, view: View, rng: random.Random) -> Action:
        """The sale decision alone, as :meth:`act` makes it (a sale round, two houses or more in hand).

        With ``samples`` set it does not read the clock: a bot that asks what
        this one would sell in an opponent's chair spends no time budget here.
        """
        return self._sale(view, rng, self._deadline())

    def _deadline(self, budget: float | None = None) -> float:
        """When this decision stops sampling: ``budget`` (or ``time``) seconds from now; with ``samples``
        set the effort is fixed and the clock is not read (:meth:`_more` then counts samples instead)."""
        if self.samples is not None:
            return 0.0
        return time.perf_counter() + (self.time if budget is None else budget)

    def _halfway(self, deadline: float) -> float:
        """The moment halfway from now to ``deadline``: where a decision of two searches ends the first.

        Read from this module's clock, the one :meth:`_more` checks (a test's ticking clock stands in for it);
        with ``samples`` set the clock is not read, and each search draws that many."""
        if self.samples is not None:
            return deadline
        return (time.perf_counter() + deadline) / 2

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
        totals = self._plan_totals(view, rng, deadline, limits)
        best = limits[max(range(len(limits)), key=lambda i: totals[i])]
        return PASS if best == high else bid(high + 1)

    def _plan_totals(self, view: View, rng: random.Random, deadline: float, limits: Sequence[int]) -> list[float]:
        """Each plan's utility summed over the sampled deals (all plans on the same deals); sets ``samples_drawn``."""
        seat = view.seat
        assert seat is not None
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
        return totals

    def _rollout(
        self,
        state: Any,
        me: int,
        posts: Sequence[dict[str, float]],
        bidders: Sequence[Bidder | BidRule],
        rng: random.Random,
        plan: tuple[int, int] | None = None,
        prices: Sequence[int] = (),
    ) -> float:
        """Finish a sampled game (``state`` is not changed) with the expert policy for every seat
        but ``me``, which follows ``plan`` this round; the utility for ``me``. ``prices``: the top
        houses' prices of the finished auction rounds (what a :class:`BidRule` bidder reads)."""
        n = state.n
        if state.phase == "auction":
            coins, hands = play_auctions(state, bidders, plan, prices)
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
        play_sales(hands, totals, future, sample_kinds(posts, me, rng), rng)
        scores = [t + c for t, c in zip(totals, coins)]
        return utility(scores, coins, me)

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
            plays = [h if s != seat else 0 for s, h in enumerate(draw(hands[s], predictions[s], rng) for s in range(n))]
            if self.sale_rollouts:
                kinds = sample_kinds(posts, seat, rng)
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
        return utility(scores, coins, me)

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
                    expected += count * utility(scores, coins, me)
                values[k] += p * expected / weight_total
        return mine[max(range(len(mine)), key=lambda k: values[k])]


def build_auction_search(
    name: str = "hard-v1",
    time: float = DEFAULT_TIME,
    alpha: float = ALPHA,
    phases: str = "auction+sale",
    samples: int | None = None,
    temperature: float = 3.0,
    sale_rollouts: int = 0,
    model_bidders: int = 1,
    steps: str | int = "1+2+3+5+8+12",
) -> AuctionSearchAgent:
    """An :class:`AuctionSearchAgent` from registry options (``+`` separates list items in a spec), each checked."""
    chosen = str(phases).split("+")
    if not chosen or not set(chosen) <= {"auction", "sale"}:
        raise ValueError(f"phases must be auction, sale or auction+sale, not {phases!r}")
    try:
        plan_steps = [int(k) for k in str(steps).split("+")]
    except ValueError:
        plan_steps = []
    if not 1 <= len(plan_steps) <= MAX_PLAN_STEPS or min(plan_steps) < 1:
        raise ValueError(f"steps must be 1 to {MAX_PLAN_STEPS} raises of at least 1 joined by '+', not {steps!r}")
    return AuctionSearchAgent(
        name,
        time=option_number("time", time, 0, above=True),
        alpha=option_number("alpha", alpha, 0),
        phases=",".join(chosen),
        samples=samples,
        temperature=option_number("temperature", temperature, 0, above=True),
        sale_rollouts=bool(sale_rollouts),
        model_bidders=bool(model_bidders),
        steps=plan_steps,
    )
