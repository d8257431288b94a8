"""Who bids how: a library of bidding rules, a posterior over them per opponent, and when to search against it.

Issue 32's auction half. Every decision an opponent made in this game's
auctions is a labelled example: what it saw (the houses on the table, its
coins, the round, the price the top house fetched in the earlier rounds)
and what it did (pass, raise by one, or jump to a higher bid). Today's
auction search models every opponent with the grid of
:mod:`forsale.bots.opponents` ("raise by one while ``high + 1 <= a * value
gap + b * coins``"), which holds the expert's rule and the share-of-coins
rules but not players who pace their coins over the auctions left, pay
what the table has been paying, skip flat tables or jump.

**The library** (:data:`LIBRARY`): each rule is a *limit*, the highest bid
the seat will make this round, from what it sees (:class:`BidRule`): the
coins paced over the auctions left (frugal pacers), a multiple of the going
price (those who pay what the table has been paying), the value gap or the
pacing with a pass at once on flat tables (houses spanning at most a few
numbers: savers), jump bidders, which bid straight to their limit, and
today's whole grid (the value-gap and share-of-coins rules, ``grid_1_0``
being the expert's own). A rule's move is pass (limit reached), raise by
one, or for a jump bidder a bid of its limit; it keeps a chance
:data:`~forsale.bots.opponents.BIDDER_ERROR` of any other move, so one odd
bid lowers a rule's weight without refuting it. The search's own bidding
is no rule of this kind: a search bot at the table is predicted by
whichever rule it resembles, or keeps the grid.

**The posterior** (:func:`fit_bidding`) starts from :data:`PRIOR` (half on the grid) and
is updated by Bayes' rule at every decision the seat made with a choice
(coins above the high bid). Before each update the mixture's chance of the
move actually made is scored, and so is the chance today's grid posterior
gave it: the **predictive log-loss** of both (:class:`BidFit`).

**When to search against it** (:attr:`BidFit.trusted`): a seat is searched
against the library when the library has predicted its moves better than
the grid by more than :data:`SWITCH_NATS` (a Bayes factor whose prior odds
favour today's model by that much); its rule is then drawn from the
posterior on every sampled deal, so a mixture that predicts well is played
as a mixture. Every other seat keeps today's grid, so an opponent unlike
every rule here cannot pull the search off the model it had, and a table
where only some opponents are well modelled is exploited at those seats.

Reads only the view's public history, never the true state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import exp, log

from ..actions import Bid
from ..view import View
from .opponents import BIDDER_ERROR, BIDDER_GRID, flat_prior
from .valuation import round_values

SWITCH_NATS = 1.0
"""How many nats better than the grid the library must have predicted a seat before the search draws from it."""


@dataclass(frozen=True, slots=True)
class BidRule:
    """One bidding rule: its limit is ``gap * value gap + coins * coins held + pace * coins / auctions left
    + paid * going price``, and 0 when the round's houses span at most ``flat`` (a saver skips flat tables).

    ``jump``: the seat bids its limit at once rather than one coin over the high bid.
    """

    name: str
    gap: float = 0.0
    coins: float = 0.0
    pace: float = 0.0
    paid: float = 0.0
    flat: int = -1
    jump: bool = False

    def limit(self, gap: float, coins: int, left: int, paid: float, spread: int) -> float:
        """The highest bid this rule makes, from the value gap, its coins, the auctions left (this one
        included), the going price and the span of the round's houses."""
        if spread <= self.flat:
            return 0.0
        return self.gap * gap + self.coins * coins + self.pace * coins / left + self.paid * paid

    def move(self, high: int, gap: float, coins: int, left: int, paid: float, spread: int) -> int:
        """The bid this rule makes over ``high`` (0: pass), for a seat with more than ``high`` coins."""
        limit = self.limit(gap, coins, left, paid, spread)
        if high + 1 > limit:
            return 0
        return max(high + 1, min(coins, int(limit))) if self.jump else high + 1


def _library() -> tuple[BidRule, ...]:
    rules = [BidRule(f"pace_{f:g}", pace=f) for f in (0.5, 0.75, 1.0, 1.5, 2.0)]
    rules += [BidRule(f"paid_{m:g}", paid=m) for m in (0.75, 1.0, 1.25, 1.5)]
    for t in (3, 6, 9):
        rules += [BidRule(f"flat{t}_gap_1", gap=1.0, flat=t), BidRule(f"flat{t}_pace_1", pace=1.0, flat=t)]
    rules += [
        BidRule("jump_gap_1", gap=1.0, jump=True),
        BidRule("jump_share_0.3", coins=0.3, jump=True),
        BidRule("jump_share_0.5", coins=0.5, jump=True),
        BidRule("jump_pace_1", pace=1.0, jump=True),
        BidRule("jump_pace_1.5", pace=1.5, jump=True),
        BidRule("jump_paid_1", paid=1.0, jump=True),
    ]
    return tuple(rules) + tuple(BidRule(f"grid_{a:g}_{b:g}", gap=a, coins=b) for a, b in BIDDER_GRID)


LIBRARY: tuple[BidRule, ...] = _library()
"""The bidding rules an opponent is fitted to: the new families, then today's grid
(:data:`~forsale.bots.opponents.BIDDER_GRID`, whose ``grid_1_0`` is the expert's own rule)."""

GRID_START = len(LIBRARY) - len(BIDDER_GRID)
"""Where the grid's rules start in :data:`LIBRARY`."""


def _prior() -> list[float]:
    """Half on the new families, half on the grid weighed as the grid's own posterior starts (the expert's
    rule with its head start of 2 nats): a seat that bids by a grid rule is predicted nearly as the grid does."""
    grid = [exp(x) for x in flat_prior(head_start=True)]
    return [0.5 / GRID_START] * GRID_START + [0.5 * w / sum(grid) for w in grid]


PRIOR: tuple[float, ...] = tuple(_prior())
"""The starting posterior over :data:`LIBRARY`."""


@dataclass(frozen=True, slots=True)
class Decision:
    """One auction decision of ``seat`` with a choice (it held more than ``high`` coins), as it was seen.

    ``bid``: what it did (0: pass, else its new bid). ``paid``: the going price (the mean price of the
    top house in the earlier rounds; before any, the coins at the start spread over the rounds).
    """

    seat: int
    high: int
    gap: float
    coins: int
    left: int
    paid: float
    spread: int
    bid: int


def going_price(prices: Sequence[int], start: int, rounds: int) -> float:
    """The price the table has been paying for the top house: the mean of ``prices``, or ``start / rounds``."""
    return sum(prices) / len(prices) if prices else start / rounds


def auction_prices(view: View) -> list[int]:
    """The price each finished auction round's top house was bought for, in order."""
    return [price for _, price in _replay(view)[1]]


def _replay(view: View) -> tuple[list[Decision], list[tuple[int, int]]]:
    """Every decision with a choice in the view's auctions, and each finished round's (winner, price)."""
    n = view.players
    rules = view.rules
    cards, refund, rounds = rules.cards, rules.refund_of, rules.rounds
    coins = [rules.starting_coins] * n
    tables = view.auction_tables
    decisions: list[Decision] = []
    finished: list[tuple[int, int]] = []
    if not tables:
        return decisions, finished
    r = 0
    table = list(tables[0])
    seen = sorted(table)
    values = round_values(seen, table, n, cards)
    bids, active, left, lo, high = [0] * n, [True] * n, n, 0, 0
    for seat, action in view.history:
        if seat is None:
            break
        raised = action.__class__ is Bid
        if coins[seat] > high:
            paid = going_price([p for _, p in finished], rules.starting_coins, rounds)
            gap = values[table[-1]] - values[table[lo]]
            amount = action.amount if raised else 0
            decisions.append(Decision(seat, high, gap, coins[seat], rounds - r, paid, table[-1] - table[0], amount))
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
            finished.append((last, bids[last]))
            r += 1
            if r == len(tables):
                break
            table = list(tables[r])
            seen = sorted(seen + table)
            values = round_values(seen, table, n, cards)
            bids, active, left, lo, high = [0] * n, [True] * n, n, 0, 0
    return decisions, finished


def decisions(view: View) -> list[Decision]:
    """Every auction decision with a choice in ``view``'s game so far, in order (:class:`Decision`)."""
    return _replay(view)[0]


def rule_chance(rule: BidRule, d: Decision) -> float:
    """The chance ``rule`` gives the move made at decision ``d`` (its own move, or the error spread)."""
    return 1.0 - BIDDER_ERROR if rule.move(d.high, d.gap, d.coins, d.left, d.paid, d.spread) == d.bid else BIDDER_ERROR


def _grid_chance(a: float, b: float, d: Decision) -> float:
    """The chance the grid's rule ``(a, b)`` gives the move made (it raises by one, never jumps)."""
    raises = d.high + 1 <= a * d.gap + b * d.coins
    agrees = d.bid == d.high + 1 if raises else d.bid == 0
    return 1.0 - BIDDER_ERROR if agrees else BIDDER_ERROR


@dataclass
class BidFit:
    """One seat's posterior over :data:`LIBRARY` and how well it, and today's grid, predicted (nats)."""

    posterior: list[float] = field(default_factory=lambda: list(PRIOR))
    observed: int = 0
    log_loss: float = 0.0
    grid_loss: float = 0.0
    rule_loss: list[float] = field(default_factory=lambda: [0.0] * len(LIBRARY))

    @property
    def trusted(self) -> bool:
        """Whether the library has out-predicted the grid by more than :data:`SWITCH_NATS` on this seat."""
        return self.log_loss + SWITCH_NATS < self.grid_loss

    def best(self) -> BidRule:
        """The likeliest rule."""
        return LIBRARY[max(range(len(LIBRARY)), key=self.posterior.__getitem__)]

    def sample(self, rng: random.Random) -> BidRule:
        """A rule drawn from the posterior."""
        x = rng.random()
        for rule, p in zip(LIBRARY, self.posterior):
            x -= p
            if x <= 0:
                return rule
        return LIBRARY[-1]


def fit_bidding(view: View, prior: Sequence[float] | None = None) -> list[BidFit]:
    """Per seat, its :class:`BidFit` from every auction decision it made with a choice this game.

    The grid's predictive loss is that of :func:`forsale.bots.opponents.bidder_posteriors`'s posterior
    as it stood before each decision, from the same ``prior`` (by default the expert's head start), so
    the two are scored alike.
    """
    n = view.players
    fits = [BidFit() for _ in range(n)]
    start = flat_prior(head_start=True) if prior is None else list(prior)
    grid = [list(start) for _ in range(n)]
    for d in decisions(view):
        fit, logs = fits[d.seat], grid[d.seat]
        chances = [rule_chance(rule, d) for rule in LIBRARY]
        predicted = sum(p * c for p, c in zip(fit.posterior, chances))
        fit.log_loss -= log(predicted)
        top = max(logs)
        weights = [exp(x - top) for x in logs]
        grid_chances = [_grid_chance(a, b, d) for a, b in BIDDER_GRID]
        fit.grid_loss -= log(sum(w * c for w, c in zip(weights, grid_chances)) / sum(weights))
        for i, c in enumerate(grid_chances):
            logs[i] += log(c)
        for i, c in enumerate(chances):
            fit.rule_loss[i] -= log(c)
        post = [p * c for p, c in zip(fit.posterior, chances)]
        total = sum(post)
        fit.posterior = [p / total for p in post]
        fit.observed += 1
    return fits
