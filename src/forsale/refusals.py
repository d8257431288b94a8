"""Why an action is illegal: one rule check, worded for the referee or for the seat itself.

Three front ends used to explain a refused move, each restating the rules
it explained: the engine (for records and ``forsale replay``), the server
(to the player, from the player's view) and the terminal (at the bid
prompt). They could drift from the rules and from each other. Now
:func:`refusal` is the only place that says why, and its callers pick the
audience:

- ``you=False``: the referee's words, about a seat (``seat 2 bid 5 but holds
  4 coins``). :meth:`forsale.state.State.why_illegal` uses them, and so every
  :class:`~forsale.errors.IllegalActionError` and every ``forsale replay``
  message (a contract: ``shared/RECORD-FORMAT.md``).
- ``you=True``: the seat's own words, with what it may do instead (``you hold
  4 coins; bid 3–4 or pass``). :meth:`forsale.view.View.why_illegal` uses them,
  and through it the server's error messages and the terminal's prompts.

It takes plain facts rather than a state or a view, so that both can call
it: everything it reads (the phase, whose turn, the seat's coins and hand, the
high bid, whether the seat has chosen its sale) is known to the seat itself,
so an explanation built from a view leaks nothing.

>>> refusal("auction", seat=1, turn=1, coins=4, high=2, committed=False, hand=(), action=Bid(5))
Refusal(code='illegal', message='seat 1 bid 5 but holds 4 coins', params=None)
>>> refusal("auction", seat=1, turn=1, coins=4, high=2, committed=False, hand=(), action=Bid(5), you=True)
Refusal(code='illegal', message='you hold 4 coins; bid 3–4 or pass', params={'why': 'above_coins', 'coins': 4, 'high': 2})

The seat's own words come with ``params``: which explanation it is (``why``)
and the facts it names, so that a client can say the same in its player's
language (the web page's catalogues key them ``error.<code>.<why>``) instead
of parsing the English.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from .actions import Bid, Pass, Sell

GAME_OVER, ILLEGAL, NOT_YOUR_TURN = "game_over", "illegal", "not_your_turn"
"""The codes of :class:`Refusal` (the server sends them as they are; see ``docs/protocol.md``)."""


Params = dict[str, str | int | list[int]]
"""A refusal's facts: ``why`` (which explanation) and the numbers it names (coins, high bid, houses held)."""


class Refusal(NamedTuple):
    """Why an action is illegal: a machine-readable ``code``, a ``message`` for people, and (for the seat) its ``params``."""

    code: str
    message: str
    params: Params | None = None


def bid_range(high: int, coins: int) -> tuple[int, int] | None:
    """The bids a seat to bid may make, ``(lowest, highest)``, or ``None`` when it can only pass.

    >>> bid_range(3, 7), bid_range(5, 5)
    ((4, 7), None)
    """
    return (high + 1, coins) if coins > high else None


def bid_choices(high: int, coins: int) -> str:
    """What a seat to bid may do: ``bid 4–7 or pass``, ``bid 4 or pass``, or ``pass`` when it cannot raise.

    >>> bid_choices(3, 7), bid_choices(3, 4), bid_choices(5, 5)
    ('bid 4–7 or pass', 'bid 4 or pass', 'pass')
    """
    bids = bid_range(high, coins)
    if bids is None:
        return "pass"
    low, top = bids
    return f"bid {low} or pass" if low == top else f"bid {low}–{top} or pass"


def refusal(
    phase: str,
    seat: int,
    turn: int | None,
    coins: int,
    high: int,
    committed: bool,
    hand: Sequence[int],
    action: object,
    *,
    you: bool = False,
) -> Refusal | None:
    """Why ``seat`` may not take ``action``, or ``None`` if the rules allow it.

    ``phase`` is ``"auction"``, ``"sale"`` or ``"over"``; ``turn`` the seat to
    bid (auction phase only); ``coins``, ``hand`` and ``committed`` are the
    acting seat's own; ``high`` is the high bid of this auction round.
    """
    if phase == "over":
        if you:
            return Refusal(GAME_OVER, "the game is over", {"why": "over"})
        return Refusal(GAME_OVER, f"the game is over; seat {seat} cannot {action}")
    if isinstance(action, Sell):
        return _sale_refusal(phase, seat, committed, hand, action.house, you)
    if not isinstance(action, Bid | Pass):
        return Refusal(
            ILLEGAL,
            f"{action!r} is not a For Sale action (bid, pass or sell)",
            {"why": "not_an_action"} if you else None,
        )
    if phase != "auction":
        if you:
            return Refusal(
                ILLEGAL, "the auctions are over: choose a house from your hand to sell", {"why": "auctions_over"}
            )
        return Refusal(
            ILLEGAL, f"seat {seat} cannot {'bid' if isinstance(action, Bid) else 'pass'} during the sale phase"
        )
    if seat != turn:
        whose = "yours" if you else f"seat {seat}'s"
        facts: Params | None = {"why": "turn", "turn": turn} if you and turn is not None else None
        return Refusal(NOT_YOUR_TURN, f"it is seat {turn}'s turn to bid or pass, not {whose}", facts)
    if isinstance(action, Pass):
        return None
    amount = action.amount
    if amount <= coins and amount > high:
        return None
    if you:
        choices = bid_choices(high, coins)
        if coins <= high:
            why = "only_pass"
            message = f"you hold {coins} coins and the high bid is {high}; you can only pass"
        elif amount > coins:
            why, message = "above_coins", f"you hold {coins} coins; {choices}"
        elif high == 0:
            why, message = "at_least_one", f"a bid must be at least 1 coin; {choices}"
        else:
            why, message = "too_low", f"the high bid is {high}; {choices}"
        return Refusal(ILLEGAL, message, {"why": why, "coins": coins, "high": high})
    if amount > coins:
        return Refusal(ILLEGAL, f"seat {seat} bid {amount} but holds {coins} coins")
    if high == 0:
        return Refusal(ILLEGAL, f"seat {seat} bid {amount} but a bid must be at least 1 coin")
    return Refusal(ILLEGAL, f"seat {seat} bid {amount} but the high bid is already {high}")


def _sale_refusal(phase: str, seat: int, committed: bool, hand: Sequence[int], house: int, you: bool) -> Refusal | None:
    if phase != "sale":
        if you:
            return Refusal(
                ILLEGAL, "houses are sold in the sale phase; now is an auction: bid or pass", {"why": "sale_in_auction"}
            )
        return Refusal(ILLEGAL, f"seat {seat} cannot sell a house during the auction phase")
    if committed:
        if you:
            return Refusal(
                NOT_YOUR_TURN, "you have already chosen a house this sale round; wait for the others", {"why": "chosen"}
            )
        return Refusal(NOT_YOUR_TURN, f"seat {seat} has already chosen a house this sale round")
    if house in hand:
        return None
    held = ", ".join(map(str, sorted(hand)))
    if not you:
        return Refusal(ILLEGAL, f"seat {seat} sold house {house} but holds {held}")
    holding = sorted(hand)
    if not 1 <= house <= 30:
        return Refusal(
            ILLEGAL, f"there is no such house; choose one of {held}", {"why": "no_such_house", "held": holding}
        )
    return Refusal(
        ILLEGAL,
        f"you do not hold house {house}; choose one of {held}",
        {"why": "not_held", "house": house, "held": holding},
    )
