"""Actions: a bid, a pass, a sale choice. Small immutable values, and their JSON.

The engine hands out shared instances (``PASS``, ``bid(b)``, ``SELLS[h]``)
so that generating legal actions allocates nothing on the hot path; equal
actions built by hand compare and hash the same:

>>> Bid(3) == bid(3), Bid(3) == Sell(3), PASS == Pass()
(True, False, True)

An action is a well-formed value or it does not exist: a bid is a whole
number of coins from 0 up and a house is a whole number, so ``bid(-1)``,
``Bid(2.5)`` or ``Sell(True)`` raise :class:`~forsale.errors.IllegalActionError`
instead of reaching the rules (where ``True`` would pass for house 1).

The action JSON (``{"bid": 3}``, ``{"pass": true}``, ``{"sell": 17}``) and the
move JSON of records live here too, so the record, the views, the server and
its database all read and write one form.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import IllegalActionError


@dataclass(frozen=True, slots=True)
class Pass:
    """Leave this auction round: take the lowest house left, get part of the bid back."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Bid:
    """Raise one's own total bid in this auction round to ``amount`` coins (not an increment)."""

    amount: int

    def __post_init__(self) -> None:
        if type(self.amount) is not int or self.amount < 0:
            raise IllegalActionError(f"a bid is a whole number of coins, 0 or more, not {self.amount!r}")

    def __str__(self) -> str:
        return f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class Sell:
    """Commit ``house`` from one's hand to this sale round."""

    house: int

    def __post_init__(self) -> None:
        if type(self.house) is not int:
            raise IllegalActionError(f"a house is a whole number, not {self.house!r}")

    def __str__(self) -> str:
        return f"sell {self.house}"


Action = Pass | Bid | Sell

PASS = Pass()
SELLS: tuple[Sell, ...] = tuple(Sell(h) for h in range(31))
"""``SELLS[h]`` is the shared ``Sell(h)`` (``SELLS[0]`` is never legal)."""

_BIDS: tuple[Bid, ...] = tuple(Bid(b) for b in range(64))
"""Shared bids up to 63 coins: more than any preset deals (28), so a game's bids allocate nothing."""


def bid(amount: int) -> Bid:
    """The shared ``Bid(amount)`` (a fresh one above 63 coins, possible only under custom rules).

    >>> bid(5) is bid(5), bid(100)
    (True, Bid(amount=100))
    >>> bid(-1)
    Traceback (most recent call last):
    ...
    forsale.errors.IllegalActionError: a bid is a whole number of coins, 0 or more, not -1
    """
    if type(amount) is int and 0 <= amount < 64:
        return _BIDS[amount]
    return Bid(amount)


def action_to_json(action: Action) -> dict[str, Any]:
    """``{"bid": 3}``, ``{"pass": true}`` or ``{"sell": 17}``."""
    if isinstance(action, Bid):
        return {"bid": action.amount}
    if isinstance(action, Sell):
        return {"sell": action.house}
    return {"pass": True}


def action_from_json(data: Any) -> Action:
    """The action of :func:`action_to_json`'s form; :class:`IllegalActionError` for anything else.

    >>> action_from_json({"bid": 3}), action_from_json({"pass": True}), action_from_json({"sell": 17})
    (Bid(amount=3), Pass(), Sell(house=17))
    >>> action_from_json({"bid": True})
    Traceback (most recent call last):
    ...
    forsale.errors.IllegalActionError: an action is {"bid": b}, {"pass": true} or {"sell": h}, not {'bid': True}
    """
    if isinstance(data, dict) and len(data) == 1:
        ((key, value),) = data.items()
        if key == "bid" and type(value) is int and value >= 0:
            return bid(value)
        if key == "pass" and value is True:
            return PASS
        if key == "sell" and type(value) is int:
            return SELLS[value] if 0 <= value < len(SELLS) else Sell(value)
    raise IllegalActionError(f'an action is {{"bid": b}}, {{"pass": true}} or {{"sell": h}}, not {data!r}')


def move_to_json(seat: int | None, action: Action | Sequence[int]) -> dict[str, Any]:
    """A move as a record stores it: ``{"seat": s, "bid": b}``, ``{"seat": s, "pass": true}``, ``{"sell": [...]}``.

    ``seat`` is ``None`` for a whole sale round, whose ``action`` is the
    houses sold, seat by seat (the shape of :attr:`forsale.state.State.moves`).
    """
    if isinstance(action, Pass | Bid | Sell):
        return {"seat": seat, **action_to_json(action)}
    return {"sell": list(action)}
