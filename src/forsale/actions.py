"""Actions: a bid, a pass, a sale choice. Small immutable values.

The engine hands out shared instances (``PASS``, ``bid(b)``, ``SELLS[h]``)
so that generating legal actions allocates nothing on the hot path; equal
actions built by hand compare and hash the same:

>>> Bid(3) == bid(3), Bid(3) == Sell(3), PASS == Pass()
(True, False, True)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pass:
    """Leave this auction round: take the lowest house left, get part of the bid back."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    """Raise one's own total bid in this auction round to ``amount`` coins (not an increment)."""

    amount: int

    def __str__(self) -> str:
        return f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class Sell:
    """Commit ``house`` from one's hand to this sale round."""

    house: int

    def __str__(self) -> str:
        return f"sell {self.house}"


Action = Pass | Bid | Sell

PASS = Pass()
SELLS: tuple[Sell, ...] = tuple(Sell(h) for h in range(31))
"""``SELLS[h]`` is the shared ``Sell(h)`` (``SELLS[0]`` is never legal)."""

_BIDS: list[Bid] = [Bid(b) for b in range(64)]


def bid(amount: int) -> Bid:
    """The shared ``Bid(amount)``."""
    try:
        return _BIDS[amount]
    except IndexError:
        _BIDS.extend(Bid(b) for b in range(len(_BIDS), amount + 1))
        return _BIDS[amount]
