"""A sale round as the simultaneous game it is: every seat's houses against every other's, solved.

In the sale phase every hand is known by deduction, so a round is a
normal-form game: each seat picks one house of its hand, the highest takes
the highest cheque, and what is left is worth a continuation value. The
payoff of a profile of plays is each seat's win chance after it
(:class:`SaleRound`): exact when one round is left after this one (every
way the last cheques can fall is weighed), otherwise the expected cheques of
the houses left (:func:`forsale.bots.valuation.seat_value`, each seat's
rest valued against the others' hands) through a softmax win share whose
width shrinks as the rounds run out.

The game is solved by **regret matching** (:func:`solve`): every
iteration updates each seat's regrets for each of its houses against the
others' current strategies, exactly over every profile in a small game
(the last rounds), against one profile sampled from them in a large one. An opponent the bot has
a confident model of (its sale type fits what it did, see
:mod:`forsale.bots.opponents`) plays the model's prediction with weight
``w`` and its regret-matching strategy with ``1 - w``; an opponent seen too
little plays the equilibrium-like strategy. Against modelled opponents the
searching seat's strategy tends to a best response; against unknown ones
to a strategy no opponent can pull far below its equilibrium value.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, product
from math import prod

from ..rules import win_shares
from .valuation import MARGIN_WEIGHT, expected_shares, seat_value

EXACT_PROFILES = 64
"""Games with at most this many profiles of plays are solved on exact expectations, without sampling."""

PURIFY = 0.05
"""Moves below this share of the bot's mixed strategy are dropped before sampling (regret-matching noise)."""


class SaleRound:
    """The payoffs of one sale round: :meth:`payoffs` of a profile of plays, cached per profile."""

    def __init__(
        self,
        hands: Sequence[Sequence[int]],
        table: Sequence[int],
        unseen: Sequence[int],
        won: Sequence[int],
        coins: Sequence[int],
        future_stats: Sequence[float] | None,
        temperature: float,
        margin: float = MARGIN_WEIGHT,
    ) -> None:
        self.n = len(hands)
        self.margin = margin
        self.hands = [tuple(sorted(h)) for h in hands]
        self.table = sorted(table)
        self.won = list(won)
        self.coins = list(coins)
        self.temperature = temperature
        self._cache: dict[tuple[int, ...], list[float]] = {}
        k = len(self.hands[0])
        self._finals: Counter[tuple[int, ...]] | None = None
        self._later: list[dict[int, float]] = []
        if k == 2:
            self._finals = Counter(tuple(sorted(c)) for c in combinations(sorted(unseen), self.n))
        elif k > 2:
            assert future_stats is not None
            # What each seat's rest is worth after playing h, against the others' whole hands (separable:
            # the house an opponent plays now barely changes what its rest does to ours later).
            for s, hand in enumerate(self.hands):
                others = [o for i, o in enumerate(self.hands) if i != s]
                row = {}
                for h in hand:
                    row[h] = seat_value([x for x in hand if x != h], others, future_stats)
                self._later.append(row)

    @staticmethod
    def _lead(scores: Sequence[float], s: int) -> float:
        return scores[s] - max(x for i, x in enumerate(scores) if i != s)

    def payoffs(self, plays: tuple[int, ...]) -> list[float]:
        """Each seat's utility after ``plays``: its win chance plus ``margin`` times its lead in points."""
        got = self._cache.get(plays)
        if got is not None:
            return got
        n = self.n
        order = sorted(plays)
        points = [w + c + self.table[order.index(h)] for w, c, h in zip(self.won, self.coins, plays)]
        if len(self.hands[0]) == 1:  # the last round: these are the final scores
            got = [
                share + self.margin * self._lead(points, s) for s, share in enumerate(win_shares(points, self.coins))
            ]
        elif self._finals is not None:
            last = [next(x for x in hand if x != h) for hand, h in zip(self.hands, plays)]
            last_order = sorted(last)
            total = sum(self._finals.values())
            out = [0.0] * n
            for cheques, count in self._finals.items():
                scores = [points[s] + cheques[last_order.index(last[s])] for s in range(n)]
                for s, share in enumerate(win_shares(scores, self.coins)):
                    out[s] += count * (share + self.margin * self._lead(scores, s))
            got = [x / total for x in out]
        else:
            now = [x + self._later[s][h] for s, (x, h) in enumerate(zip(points, plays))]
            shares = expected_shares(now, self.temperature)
            got = [share + self.margin * self._lead(now, s) for s, share in enumerate(shares)]
        self._cache[plays] = got
        return got


def _matching(regrets: Sequence[float]) -> list[float]:
    positive = [r if r > 0 else 0.0 for r in regrets]
    total = sum(positive)
    if total <= 0:
        return [1.0 / len(regrets)] * len(regrets)
    return [p / total for p in positive]


def pick(probs: Sequence[float], rng: random.Random) -> int:
    """An index drawn with the chances ``probs`` (which add up to 1)."""
    x = rng.random()
    for i, p in enumerate(probs):
        x -= p
        if x <= 0:
            return i
    return len(probs) - 1


def solve(
    game: SaleRound,
    models: Sequence[Sequence[float] | None],
    weights: Sequence[float],
    rng: random.Random,
    more: Callable[[int], bool],
) -> tuple[list[list[float]], list[list[float]], int]:
    """Regret matching on ``game``: per seat the average strategy, the average payoff of each house;
    and the number of iterations run.

    ``models[s]``: the predicted chance of each house of seat ``s`` (or
    ``None``), mixed in with weight ``weights[s]``. ``more(iterations)``
    says whether to run another iteration. The average payoff of a house
    is against the opponents' played (blended) strategies: the values
    :func:`forsale.bots.estimates.action_values` reports.
    """
    n = game.n
    hands = game.hands
    regrets = [[0.0] * len(h) for h in hands]
    sums = [[0.0] * len(h) for h in hands]
    values = [[0.0] * len(h) for h in hands]
    # A small game is solved on expectations over every profile (no sampling noise); a large one by sampling.
    exact = prod(len(h) for h in hands) <= EXACT_PROFILES
    profiles = list(product(*(range(len(h)) for h in hands))) if exact else []
    table = [game.payoffs(tuple(hands[o][i] for o, i in enumerate(indices))) for indices in profiles]
    t = 0
    while more(t):
        t += 1
        played = []
        for s in range(n):
            sigma = _matching(regrets[s])
            for i, p in enumerate(sigma):
                sums[s][i] += t * p  # linear averaging: later, better iterates count more
            played.append(blend(models[s], weights[s], sigma))
        profile = None if exact else [hands[s][pick(played[s], rng)] for s in range(n)]
        chances = [prod(played[o][i] for o, i in enumerate(indices)) for indices in profiles]
        for s in range(n):
            hand = hands[s]
            if len(hand) == 1:
                continue
            if profile is None:
                u = [0.0] * len(hand)
                mine = played[s]
                for indices, pays, whole in zip(profiles, table, chances):
                    q = mine[indices[s]]
                    if q > 1e-9:
                        p = whole / q  # the others' chance of this profile
                    else:
                        p = prod(played[o][i] for o, i in enumerate(indices) if o != s)
                    u[indices[s]] += p * pays[s]
            else:
                u = []
                for h in hand:
                    profile_s = profile[:]
                    profile_s[s] = h
                    u.append(game.payoffs(tuple(profile_s))[s])
            sigma = _matching(regrets[s])
            mean = sum(p * x for p, x in zip(sigma, u))
            row, vals = regrets[s], values[s]
            for i, x in enumerate(u):
                row[i] += x - mean
                vals[i] += x
    strategies = []
    for row in sums:
        total = sum(row)
        strategies.append([x / total for x in row] if total > 0 else [1.0 / len(row)] * len(row))
    return strategies, [[v / max(1, t) for v in row] for row in values], t


GUARD_PROFILES = 256
"""At most this many profiles of the others' plays weigh a house in :func:`expected_payoffs`."""


def expected_payoffs(game: SaleRound, seat: int, plays: Sequence[Sequence[float]], floor: float = 0.03) -> list[float]:
    """``seat``'s expected utility from each house of its hand when every other seat ``o`` plays its houses with
    the chances ``plays[o]``: exact over the profiles, but a chance under ``floor`` is dropped (and the rest
    renormalised), so that a seat who sells one house but for a little noise costs one branch, not its hand's;
    and past :data:`GUARD_PROFILES` profiles the least likely plays are dropped too (at 6 players five spread
    predictions would cost thousands of payoffs)."""
    branches: list[list[tuple[int, float]]] = []
    for o, hand in enumerate(game.hands):
        if o == seat:
            branches.append([(0, 1.0)])
            continue
        ranked = sorted(zip(hand, plays[o]), key=lambda hp: -hp[1])
        branches.append([hp for hp in ranked if hp[1] >= floor] or ranked[:1])
    while prod(len(b) for b in branches) > GUARD_PROFILES:
        least = min((b for b in branches if len(b) > 1), key=lambda b: b[-1][1])
        least.pop()
    branches = [[(h, p / sum(q for _, q in b)) for h, p in b] for b in branches]
    out = []
    for mine in game.hands[seat]:
        value = 0.0
        for combo in product(*branches):
            chance = prod(p for _, p in combo)
            profile = tuple(mine if o == seat else h for o, (h, _) in enumerate(combo))
            value += chance * game.payoffs(profile)[seat]
        out.append(value)
    return out


def blend(model: Sequence[float] | None, weight: float, strategy: Sequence[float]) -> list[float]:
    """How a seat is taken to play: its model's prediction with ``weight``, ``strategy`` with the rest."""
    if model is None or weight <= 0:
        return list(strategy)
    return [weight * m + (1 - weight) * p for m, p in zip(model, strategy)]


def choose(strategy: Sequence[float], rng: random.Random) -> int:
    """An index drawn from ``strategy`` once the moves below :data:`PURIFY` are dropped."""
    kept = [p if p >= PURIFY else 0.0 for p in strategy]
    total = sum(kept)
    if total <= 0:
        return max(range(len(strategy)), key=strategy.__getitem__)
    return pick([p / total for p in kept], rng)
