"""Plain-text pieces of the terminal front end: money, the public log, prompt answers, tie-breaks.

Nothing here touches rich or a terminal, so every sentence the player reads
can be tested as a string. Everything is built from a :class:`~forsale.view.View`
(the public history and tables), never from the game state.

In the box, coins and cheques are thousands of dollars: a coin is $1,000.

>>> money(14), short(14), money(0)
('$14,000', '14k', '$0')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .. import refusals
from ..actions import PASS, SELLS, Action, Bid, Sell, bid
from ..view import View


def money(thousands: int) -> str:
    """Coins or a cheque in dollars, the way the cards print them: ``$14,000``."""
    return f"${thousands * 1000:,}"


def short(thousands: int) -> str:
    """The compact form used in tight columns: ``14k`` (``0`` stays ``0``)."""
    return f"{thousands}k" if thousands else "0"


def join_and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> join_and(["Ann"]), join_and(["Ann", "Bob"]), join_and(["Ann", "Bob", "Cy"])
    ('Ann', 'Ann and Bob', 'Ann, Bob and Cy')
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One line of the public game log.

    ``phase`` is ``"auction"`` or ``"sale"``; ``round`` is 0-based within it.
    ``kind`` is ``"open"`` (a round's cards are revealed), ``"bid"``,
    ``"pass"``, ``"take"`` (the last bidder takes the top house) or ``"sell"``.
    """

    phase: str
    round: int
    kind: str
    text: str


def does(name: str, verb: str) -> str:
    """``Ann bids`` but ``You bid``: the log addresses the human as "You".

    >>> does("Ann", "passes"), does("You", "passes"), does("You", "takes")
    ('Ann passes', 'You pass', 'You take')
    """
    if name != "You":
        return f"{name} {verb}"
    return f"You {verb[:-2] if verb.endswith('sses') else verb[:-1]}"


def public_log(v: View, names: Sequence[str]) -> list[LogEntry]:
    """The readable log of everything public in ``v``, one entry per event, in order.

    Replays ``v.history`` against the revealed tables of the view only, so a
    seat's log never contains anything its view does not.
    """
    n = v.players
    refund = v.rules.refund_of
    log: list[LogEntry] = []
    r = 0
    sale = 0
    table: list[int] = []
    bids = [0] * n
    left = n

    def open_auction(r: int) -> list[int]:
        houses = sorted(v.auction_tables[r])
        log.append(
            LogEntry("auction", r, "open", f"Auction round {r + 1}: houses {', '.join(map(str, houses))} are for sale.")
        )
        return houses

    if v.auction_tables:
        table = open_auction(0)
    for seat, action in v.history:
        if seat is None:
            cheques = sorted(v.sale_tables[sale])
            log.append(
                LogEntry(
                    "sale",
                    sale,
                    "open",
                    f"Sale round {sale + 1}: cheques {', '.join(map(money, cheques))} are on offer.",
                )
            )
            order = sorted(action)
            for s, house in sorted(enumerate(action), key=lambda sh: -sh[1]):
                got = cheques[order.index(house)]
                log.append(
                    LogEntry(
                        "sale", sale, "sell", f"{does(names[s], 'sells')} house {house} for the {money(got)} cheque."
                    )
                )
            sale += 1
            continue
        if action.__class__ is Bid:
            bids[seat] = action.amount
            log.append(LogEntry("auction", r, "bid", f"{does(names[seat], 'bids')} {money(action.amount)}."))
            continue
        house = table.pop(0)
        paid = bids[seat] - refund(bids[seat])
        if bids[seat]:
            detail = (
                f"paying the whole {money(paid)} bid"
                if paid == bids[seat]
                else f"paying {money(paid)} of a {money(bids[seat])} bid"
                if paid
                else f"getting the whole {money(bids[seat])} bid back"
            )
            log.append(
                LogEntry(
                    "auction",
                    r,
                    "pass",
                    f"{does(names[seat], 'passes')} and take{'' if names[seat] == 'You' else 's'} house {house} ({detail}).",
                )
            )
        else:
            log.append(
                LogEntry(
                    "auction",
                    r,
                    "pass",
                    f"{does(names[seat], 'passes')} and take{'' if names[seat] == 'You' else 's'} house {house} for nothing.",
                )
            )
        bids[seat] = -1
        left -= 1
        if left == 1:
            last = next(s for s in range(n) if bids[s] >= 0)
            top = table.pop()
            price = f"for {money(bids[last])}" if bids[last] else "for nothing"
            log.append(
                LogEntry("auction", r, "take", f"{does(names[last], 'takes')} house {top} {price}, the last one left.")
            )
            r += 1
            bids = [0] * n
            left = n
            if r < len(v.auction_tables):
                table = open_auction(r)
    if v.phase == "sale" and sale < len(v.sale_tables):
        cheques = sorted(v.sale_tables[sale])
        log.append(
            LogEntry(
                "sale", sale, "open", f"Sale round {sale + 1}: cheques {', '.join(map(money, cheques))} are on offer."
            )
        )
    return log


def standings(v: View, names: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """``(seat, score, coins, cheques total)`` from first to last place (score, then coins left)."""
    rows = [(s, sc, v.coins[s], sum(v.cheques_won[s])) for s, sc in enumerate(v.scores())]
    return sorted(rows, key=lambda row: (-row[1], -row[2], row[0]))


def verdict(v: View, names: Sequence[str]) -> str:
    """Who won (the engine's :meth:`~forsale.view.View.winners`), and how the tie-break decided it if scores were level."""
    rows = standings(v, names)
    won = v.winners()
    best_score = rows[0][1]
    tied = [row for row in rows if row[1] == best_score]
    if len(tied) == 1:
        runner = f"; next best {money(rows[1][1])}" if len(rows) > 1 else ""
        return f"{does(names[won[0]], 'wins')} with {money(best_score)}{runner}."
    tied_names = join_and([names[row[0]] for row in tied])
    coins = join_and([f"{names[row[0]]} {money(row[2])}" for row in tied])
    if len(won) == 1:
        return (
            f"{tied_names} tie on {money(best_score)}; the tie goes to the most coins left "
            f"({coins}), so {does(names[won[0]], 'wins')}."
        )
    return (
        f"{tied_names} tie on {money(best_score)}, and the tie-break (most coins left: {coins}) "
        f"cannot split {join_and([names[s] for s in won])}: they share the win."
    )


# -- answers to prompts ------------------------------------------------------


class BadAnswer(ValueError):
    """An answer a prompt cannot take; the message says what to type instead."""


def _amount(text: str) -> int | None:
    """``"4"``, ``"4k"``, ``"$4,000"``, ``"4000"`` -> 4 (coins); ``None`` if it is no amount."""
    t = text.strip().lower().replace(",", "").replace("$", "").replace("_", "")
    if t.startswith("bid"):
        t = t[3:].strip()
    thousand = t.endswith("k")
    if thousand:
        t = t[:-1].strip()
    if not t.isdigit():
        return None
    value = int(t)
    if not thousand and value >= 1000:
        if value % 1000:
            return None
        value //= 1000
    return value


def bid_choices(v: View) -> str:
    """What the seat to bid may answer: ``bid 4–7 or pass`` (or ``pass`` when it cannot raise)."""
    assert v.seat is not None
    return refusals.bid_choices(v.high, v.coins[v.seat])


def _checked(action: Action, v: View) -> Action:
    """``action`` if the rules allow it, else :class:`BadAnswer` with the engine's reason, worded for the seat."""
    reason = v.why_illegal(action)
    if reason is not None:
        raise BadAnswer(reason.message)
    return action


def parse_bid(text: str, v: View) -> Action:
    """The action meant by an answer to the bid prompt, or :class:`BadAnswer` saying why not.

    Bids are totals in coins (``4``, ``4k`` and ``$4,000`` all mean 4 coins);
    ``p`` or ``pass`` passes. What is not a bid is explained here; a bid the
    rules refuse is explained by the engine (:meth:`View.why_illegal`).
    """
    choices = bid_choices(v)
    t = text.strip().lower()
    if t in ("p", "pass", "0"):
        return _checked(PASS, v)
    if not t:
        raise BadAnswer(f"type a bid or p to pass; {choices}")
    amount = _amount(t)
    if amount is None:
        raise BadAnswer(f"{text.strip()!r} is not a bid; {choices} (p)")
    return _checked(bid(amount), v)


def parse_sale(text: str, v: View) -> Action:
    """The ``Sell`` meant by an answer to the sale prompt, or :class:`BadAnswer` saying why not."""
    t = text.strip().lower().removeprefix("sell").strip().removeprefix("house").strip()
    if not t.isdigit():
        held = ", ".join(map(str, v.hand))
        raise BadAnswer(f"{text.strip()!r} is not a house number; choose one of {held}")
    house = int(t)
    return _checked(SELLS[house] if house < len(SELLS) else Sell(house), v)
