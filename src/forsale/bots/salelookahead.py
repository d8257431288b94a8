"""The best response to fitted sellers, valued by playing the sale phase out against them (issue 32).

Once ``hard`` best-responds to its opponents' fitted sale rules
(:mod:`forsale.bots.salemodels`), the solved round values what is left of
every hand by :func:`forsale.bots.valuation.seat_value`, which takes each
opponent to play a house of its hand at random in every later round. A
field of one fixed rule does not: three sellers of their lowest house will
meet each of the bot's later houses with their next-lowest, round after
round. Against them a house kept for later is worth what it will win
against *those* houses, and the static value misjudges it (against three
``cheapskate``, ``hard``'s sale earned 2.5 cheques a game fewer than
``hard-v1``'s on the same houses).

:func:`rollout_values` values each house of the bot's hand by playing the
rest of the sale phase out: each sample draws the order of the cheques
still unseen and, for each opponent, one rule from its posterior; the
opponent plays that rule's house now (its distribution, the ``equilibrium``
rule as the seat's solved strategy) and that rule's choice in every later
round (the unmodelled rules: a house at random). In the later rounds the
bot sells the house worth most once the opponents' plays are known: the
cheque it wins now plus :func:`~forsale.bots.valuation.seat_value` of the
rest. Every house of the hand is played on the same samples (common random
numbers), and a sample ends in the game's real win shares and lead, the
utility of :class:`~forsale.bots.salegame.SaleRound`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..rules import win_shares
from .expert import order_stat_means
from .salegame import pick
from .salemodels import CHOICES, Position
from .valuation import MARGIN_WEIGHT, seat_value

STAND_INS = {"searcher": "expert"}
"""Rules of a posterior that the play-outs cannot afford to run in every later round, and the rule of the library
that sells in their place there: ``hard-v1``'s sale search in the seat's chair (:mod:`forsale.bots.searchers`) is a
sampled best response to the expert's sale types, as the expert's own sale is a one-step one."""


def _rule(posterior: dict[str, float], rng: random.Random) -> str:
    """One rule drawn from a posterior."""
    names = list(posterior)
    return names[pick([posterior[name] for name in names], rng)]


def _resolve(plays: Sequence[int], table: Sequence[int]) -> list[int]:
    """The cheque each seat wins for ``plays`` against the sorted ``table``."""
    order = sorted(plays)
    return [table[order.index(h)] for h in plays]


def _own_choice(
    me: int, hands: Sequence[Sequence[int]], plays: Sequence[int], table: Sequence[int], pool: tuple[int, ...]
) -> int:
    """The bot's house in a later round of a rollout, the opponents' ``plays`` known (``plays[me]`` is not
    read): the cheque it wins plus what the rest of its hand is worth against what is left of theirs."""
    n = len(hands)
    mine = hands[me]
    if len(mine) == 1:
        return mine[0]
    stats = order_stat_means(pool, n)
    rests = [[x for x in hands[s] if x != plays[s]] for s in range(n) if s != me]
    full = list(plays)
    best, best_value = mine[0], float("-inf")
    for h in mine:
        full[me] = h
        value = _resolve(full, table)[me] + seat_value([x for x in mine if x != h], rests, stats)
        if value > best_value:
            best, best_value = h, value
    return best


def _play_out(
    pos: Position,
    me: int,
    first: Sequence[int],
    rules: Sequence[str | None],
    future: Sequence[int],
    rng: random.Random,
) -> float:
    """Play this round with ``first`` (every seat's house), then the rounds after; ``me``'s utility at the end."""
    n = len(pos.hands)
    hands = [list(h) for h in pos.hands]
    won = list(pos.won)
    sales = list(pos.sales_before)
    finished = list(pos.finished_tables)
    table = list(pos.table)
    pool = list(pos.pool)
    plays: list[int] = list(first)
    at = 0
    while True:
        for s, c in enumerate(_resolve(plays, table)):
            won[s] += c
            hands[s].remove(plays[s])
        sales.append(tuple(plays))
        finished.append(tuple(table))
        if not hands[0]:
            break
        table = sorted(future[at : at + n])
        at += n
        pool = _without(pool, table)
        here = Position(
            hands=tuple(tuple(h) for h in hands),
            table=tuple(table),
            pool=tuple(pool),
            won=tuple(won),
            coins=pos.coins,
            rounds=pos.rounds,
            sales_before=tuple(sales),
            finished_tables=tuple(finished),
        )
        for s in range(n):
            rule = rules[s]
            if s == me or len(hands[s]) == 1:
                plays[s] = hands[s][0]  # the bot's is chosen below, once the others' are known
            elif rule is None or rule not in CHOICES:
                plays[s] = hands[s][rng.randrange(len(hands[s]))]
            else:
                plays[s] = hands[s][CHOICES[rule](here, s)]
        plays[me] = _own_choice(me, hands, plays, table, tuple(pool))
    scores = [w + c for w, c in zip(won, pos.coins)]
    shares = win_shares(scores, pos.coins)
    lead = scores[me] - max(x for s, x in enumerate(scores) if s != me)
    return shares[me] + MARGIN_WEIGHT * lead


def _without(pool: Sequence[int], table: Sequence[int]) -> list[int]:
    """``pool`` less one copy of each cheque of ``table`` (cheques repeat)."""
    left = list(pool)
    for c in table:
        left.remove(c)
    return left


def rollout_values(
    pos: Position,
    me: int,
    posteriors: Sequence[dict[str, float] | None],
    now: Sequence[dict[str, list[float]] | None],
    samples: int,
    rng: random.Random,
) -> list[float]:
    """The mean utility of selling each house of ``pos.hands[me]`` (ascending), over ``samples`` play-outs.

    ``posteriors[s]``: opponent ``s``'s posterior over the rules (``None``: no choice left, or the bot);
    ``now[s]``: each rule's chances of every house of its hand this round, the ``equilibrium`` rule's being
    the seat's solved strategy (:func:`forsale.bots.salemodels.rule_distributions`).
    """
    n = len(pos.hands)
    mine = pos.hands[me]
    totals = [0.0] * len(mine)
    for _ in range(samples):
        future = list(pos.pool)
        rng.shuffle(future)
        rules: list[str | None] = [None] * n
        first = [0] * n
        for s in range(n):
            if s == me:
                continue
            post, dists = posteriors[s], now[s]
            if post is None or dists is None:
                first[s] = pos.hands[s][0]
                continue
            rule = _rule(post, rng)
            first[s] = pos.hands[s][pick(dists[rule], rng)]
            rules[s] = STAND_INS.get(rule, rule)
        seed = rng.getrandbits(64)
        for i, h in enumerate(mine):
            first[me] = h
            totals[i] += _play_out(pos, me, first, rules, future, random.Random(seed))
    return [t / samples for t in totals]
