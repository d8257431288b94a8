"""Baseline bots (``shared/BASELINES.md``): the yardstick, not the goal.

Each one is restated exactly from its description, in coins. "coins" is what
the bot holds when it decides (its open bid is not yet paid), "high" the
highest bid of this auction round, and "raise" always means ``high + 1``.
They read only their :class:`~forsale.view.View`.
"""

from __future__ import annotations

import random

from ..actions import PASS, SELLS, Action, bid
from ..view import View
from .registry import register

# ``value``: the mean house of a round against which it compares B (N = 2 uses 18.5).
_VALUE_AVG = {2: 18.5, 3: 18.5, 4: 16.5, 5: 15.5, 6: 15.5}


def _raise_or_pass(view: View, wants: bool) -> Action:
    """Raise by one if the bot wants to and holds more coins than the high bid, else pass."""
    seat = view.seat
    assert seat is not None
    if wants and view.coins[seat] > view.high:
        return bid(view.high + 1)
    return PASS


def _closest(hand: tuple[int, ...], target: float) -> int:
    """The house of ``hand`` closest to ``target``; the lower one on a tie (``hand`` is ascending)."""
    return min(hand, key=lambda h: (abs(h - target), h))


class RandomAgent:
    """Raise by one with probability 1/2 when able, else pass; sell a uniformly random house."""

    name = "random"

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        legal = view.legal_actions()
        if view.phase == "auction":
            return bid(view.high + 1) if len(legal) > 1 and rng.random() < 0.5 else PASS
        return legal[int(rng.random() * len(legal))]


class ValueAgent:
    """After a gym project's "value agent": a value from the round's top house, cheque-matched sales."""

    name = "value"

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        if view.phase == "auction":
            revealed = view.auction_tables[-1]
            top = max(revealed)
            mean = sum(revealed) / len(revealed)
            avg = _VALUE_AVG[view.players]
            v = top / 2 - 7 + (1 if mean <= avg else -1)
            return _raise_or_pass(view, v > view.high)
        m = sum(view.table) / len(view.table)
        return SELLS[min(view.hand, key=lambda p: (abs(p / 2 - m), p))]


class SmartAgent:
    """After "SmartBot": raise while the raise is under half its coins; sell the middle house."""

    name = "smart"

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase == "auction":
            return _raise_or_pass(view, view.high + 1 < 0.5 * view.coins[seat])
        hand = sorted(view.hand)
        return SELLS[hand[len(hand) // 2]]


class PrudentAgent:
    """Spend up to 60% of its coins on a round with a house above 15, else 40%; sell the house nearest its hand's mean."""

    name = "prudent"

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase == "auction":
            coins = view.coins[seat]
            cap = (0.6 if max(view.auction_tables[-1]) > 15 else 0.4) * coins
            return _raise_or_pass(view, view.high + 1 < cap)
        hand = view.hand
        return SELLS[_closest(hand, sum(hand) / len(hand))]


class CapAgent:
    """Raise while the raise is under ``max(share x coins, 2)``; sell its lowest or highest house."""

    def __init__(self, name: str, share: float, sell_high: bool) -> None:
        self.name = name
        self.share = share
        self.sell_high = sell_high

    def act(self, view: View, rng: random.Random, budget: float | None = None) -> Action:
        seat = view.seat
        assert seat is not None
        if view.phase == "auction":
            cap = max(self.share * view.coins[seat], 2)
            return _raise_or_pass(view, view.high + 1 < cap)
        return SELLS[max(view.hand) if self.sell_high else min(view.hand)]


@register("random", "raises by one half the time, sells a random house (the limit.c policy)")
def _random() -> RandomAgent:
    return RandomAgent()


@register("value", "baseline: bids up to top/2 - 7 +-1, sells the house nearest twice the mean cheque")
def _value() -> ValueAgent:
    return ValueAgent()


@register("smart", "baseline: bids while under half its coins, sells its middle house")
def _smart() -> SmartAgent:
    return SmartAgent()


@register("prudent", "baseline: bids up to 60% (top house > 15) or 40% of its coins, sells the house nearest its mean")
def _prudent() -> PrudentAgent:
    return PrudentAgent()


@register("cheapskate", "baseline: bids up to max(25% of its coins, 2), sells its lowest house")
def _cheapskate() -> CapAgent:
    return CapAgent("cheapskate", 0.25, sell_high=False)


@register("bigspender", "baseline: bids up to max(75% of its coins, 2), sells its highest house")
def _bigspender() -> CapAgent:
    return CapAgent("bigspender", 0.75, sell_high=True)
