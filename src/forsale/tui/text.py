"""Plain-text pieces of the terminal front end: money, the public log, prompt answers, tie-breaks.

Nothing here touches rich or a terminal, so every sentence the player reads
can be tested as a string. Everything is built from a :class:`~forsale.view.View`
(the public history and tables), never from the game state. Every sentence is
a gettext message (:mod:`forsale.tui.i18n`), shown in the language in use.

In the box, coins and cheques are thousands of dollars: a coin is $1,000.

>>> money(14), short(14), money(0)
('$14,000', '14k', '$0')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import refusals
from ..actions import PASS, SELLS, Action, Bid, Sell, bid
from ..rules import Ruleset
from ..view import View
from .i18n import MONEY, _, language, money, ngettext, pgettext

__all__ = [
    "BadAnswer", "LogEntry", "bid_choices", "by", "choices", "describe", "explain", "join_and", "money",
    "parse_bid", "parse_sale", "public_log", "short", "standings", "verdict", "you",
]  # fmt: skip


def short(thousands: int) -> str:
    """The compact form used in tight columns: ``14k`` (``0`` stays ``0``)."""
    return _("{amount}k").format(amount=thousands) if thousands else "0"


def join_and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> join_and(["Ann"]), join_and(["Ann", "Bob"]), join_and(["Ann", "Bob", "Cy"])
    ('Ann', 'Ann and Bob', 'Ann, Bob and Cy')
    """
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return _("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


def you(name: str) -> bool:
    """Whether ``name`` is the default name of the human (``You``, ``Vous``...), whom the log addresses directly."""
    return name == _("You")


def by(name: str, yours: str, theirs: str, **fields: object) -> str:
    """``yours`` (``You bid``) if ``name`` is the human's default name, else ``theirs`` (``Ann bids``), filled in.

    Each language conjugates its own way, so both sentences are whole messages.

    >>> by("Ann", "You pass.", "{name} passes."), by("You", "You pass.", "{name} passes.")
    ('Ann passes.', 'You pass.')
    """
    return (yours if you(name) else theirs).format(name=name, **fields)


def describe(rules: Ruleset) -> str:
    """The ruleset in one line: ``official, 4 players: 18 coins, 2 cards removed from each deck, refund rounded down``."""
    label = rules.name or _("custom")
    refund = _("refund rounded down") if rules.refund == "down" else _("refund rounded up")
    return _("{label}, {players}: {coins}, {removed}, {refund}").format(
        label=label,
        players=ngettext("{n} player", "{n} players", rules.players).format(n=rules.players),
        coins=ngettext("{n} coin", "{n} coins", rules.starting_coins).format(n=rules.starting_coins),
        removed=ngettext("{n} card removed from each deck", "{n} cards removed from each deck", rules.removed).format(
            n=rules.removed
        ),
        refund=refund,
    )


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


def _sale_opens(sale: int, cheques: list[int]) -> LogEntry:
    text = _("Sale round {round}: cheques {cheques} are on offer.").format(
        round=sale + 1, cheques=", ".join(map(money, cheques))
    )
    return LogEntry("sale", sale, "open", text)


def _passes(name: str, house: int, bid_: int, paid: int) -> str:
    """The sentence for a pass: who takes which house, and what the bid cost."""
    if not bid_:
        return by(
            name, _("You pass and take house {house} for nothing."), _("{name} passes and takes house {house} for nothing."),
            house=house,
        )  # fmt: skip
    if paid == bid_:
        yours, theirs = (
            _("You pass and take house {house} (paying the whole {paid} bid)."),
            _("{name} passes and takes house {house} (paying the whole {paid} bid)."),
        )
    elif paid:
        yours, theirs = (
            _("You pass and take house {house} (paying {paid} of a {bid} bid)."),
            _("{name} passes and takes house {house} (paying {paid} of a {bid} bid)."),
        )
    else:
        yours, theirs = (
            _("You pass and take house {house} (getting the whole {bid} bid back)."),
            _("{name} passes and takes house {house} (getting the whole {bid} bid back)."),
        )
    return by(name, yours, theirs, house=house, paid=money(paid), bid=money(bid_))


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
        text = _("Auction round {round}: houses {houses} are for sale.").format(
            round=r + 1, houses=", ".join(map(str, houses))
        )
        log.append(LogEntry("auction", r, "open", text))
        return houses

    if v.auction_tables:
        table = open_auction(0)
    for seat, action in v.history:
        if seat is None:
            cheques = sorted(v.sale_tables[sale])
            log.append(_sale_opens(sale, cheques))
            order = sorted(action)
            for s, house in sorted(enumerate(action), key=lambda sh: -sh[1]):
                got = cheques[order.index(house)]
                text = by(
                    names[s],
                    _("You sell house {house} for the {cheque} cheque."),
                    _("{name} sells house {house} for the {cheque} cheque."),
                    house=house,
                    cheque=money(got),
                )
                log.append(LogEntry("sale", sale, "sell", text))
            sale += 1
            continue
        if action.__class__ is Bid:
            bids[seat] = action.amount
            text = by(names[seat], _("You bid {amount}."), _("{name} bids {amount}."), amount=money(action.amount))
            log.append(LogEntry("auction", r, "bid", text))
            continue
        house = table.pop(0)
        paid = bids[seat] - refund(bids[seat])
        log.append(LogEntry("auction", r, "pass", _passes(names[seat], house, bids[seat], paid)))
        bids[seat] = -1
        left -= 1
        if left == 1:
            last = next(s for s in range(n) if bids[s] >= 0)
            top = table.pop()
            if bids[last]:
                text = by(
                    names[last],
                    _("You take house {house} for {price}, the last one left."),
                    _("{name} takes house {house} for {price}, the last one left."),
                    house=top,
                    price=money(bids[last]),
                )
            else:
                text = by(
                    names[last],
                    _("You take house {house} for nothing, the last one left."),
                    _("{name} takes house {house} for nothing, the last one left."),
                    house=top,
                )
            log.append(LogEntry("auction", r, "take", text))
            r += 1
            bids = [0] * n
            left = n
            if r < len(v.auction_tables):
                table = open_auction(r)
    if v.phase == "sale" and sale < len(v.sale_tables):
        log.append(_sale_opens(sale, sorted(v.sale_tables[sale])))
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
        winner = names[won[0]]
        if len(rows) > 1:
            return by(
                winner,
                _("You win with {score}; next best {next}."),
                _("{name} wins with {score}; next best {next}."),
                score=money(best_score),
                next=money(rows[1][1]),
            )
        return by(winner, _("You win with {score}."), _("{name} wins with {score}."), score=money(best_score))
    tied_names = join_and([names[row[0]] for row in tied])
    coins = join_and([f"{names[row[0]]} {money(row[2])}" for row in tied])
    if len(won) == 1:
        return by(
            names[won[0]],
            _("{tied} tie on {score}; the tie goes to the most coins left ({coins}), so you win."),
            _("{tied} tie on {score}; the tie goes to the most coins left ({coins}), so {name} wins."),
            tied=tied_names,
            score=money(best_score),
            coins=coins,
        )
    return _(
        "{tied} tie on {score}, and the tie-break (most coins left: {coins}) cannot split {winners}: they share the win."
    ).format(tied=tied_names, score=money(best_score), coins=coins, winners=join_and([names[s] for s in won]))


# -- the engine's explanations, in the language in use --------------------------


def choices(high: int, coins: int) -> str:
    """What a seat to bid may do (:func:`forsale.refusals.bid_choices`), in the language in use."""
    bids = refusals.bid_range(high, coins)
    if bids is None:
        return _("pass")
    low, top = bids
    if low == top:
        return _("bid {low} or pass").format(low=low)
    return _("bid {low}–{high} or pass").format(low=low, high=top)


def _coins(n: int) -> str:
    return ngettext("{n} coin", "{n} coins", n).format(n=n)


def _n(params: refusals.Params, key: str) -> int:
    value = params[key]
    assert isinstance(value, int)
    return value


def _held(params: refusals.Params) -> str:
    held = params["held"]
    assert isinstance(held, list)
    return ", ".join(map(str, held))


def _choices_of(params: refusals.Params) -> str:
    return choices(_n(params, "high"), _n(params, "coins"))


_WORDS: dict[str, Callable[[refusals.Params], str]] = {
    "only_pass": lambda p: _("you hold {coins} and the high bid is {high}; you can only pass").format(
        coins=_coins(_n(p, "coins")), high=p["high"]
    ),
    "above_coins": lambda p: _("you hold {coins}; {choices}").format(
        coins=_coins(_n(p, "coins")), choices=_choices_of(p)
    ),
    "at_least_one": lambda p: _("a bid must be at least 1 coin; {choices}").format(choices=_choices_of(p)),
    "too_low": lambda p: _("the high bid is {high}; {choices}").format(high=p["high"], choices=_choices_of(p)),
    "no_such_house": lambda p: _("there is no such house; choose one of {held}").format(held=_held(p)),
    "not_held": lambda p: _("you do not hold house {house}; choose one of {held}").format(
        house=p["house"], held=_held(p)
    ),
}
"""The refusals a prompt can meet, worded from their ``params`` (:func:`forsale.refusals.refusal`, ``you=True``).

The engine decides whether a move is legal and why (the one statement of the
rules) and names the explanation and its facts; the terminal only words them,
as the web page does from its catalogues. tests/tui/test_tui_i18n.py makes
every refusal a prompt can produce have words here, so a new explanation in
the engine fails a test instead of showing English.
"""


def explain(reason: refusals.Refusal) -> str:
    """The engine's refusal for the seat, in the language in use (its English message if it names no known ``why``)."""
    params = reason.params or {}
    words = _WORDS.get(str(params.get("why")))
    return words(params) if words is not None else reason.message


# -- answers to prompts ------------------------------------------------------


class BadAnswer(ValueError):
    """An answer a prompt cannot take; the message says what to type instead."""


def _amount(text: str) -> int | None:
    """``"4"``, ``"4k"``, ``"$4,000"``, ``"4000"`` -> 4 (coins); ``None`` if it is no amount.

    The language's own way of writing money (``4.000``, ``4 000 $``) is read too.
    """
    t = text.strip().lower()
    for word in ("bid", pgettext("the verb typed before an amount", "bid").lower()):
        t = t.removeprefix(word).strip()
    for mark in (",", "$", "_", " ", "\u00a0", "\u202f", MONEY[language()][1]):
        t = t.replace(mark, "")
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
    return choices(v.high, v.coins[v.seat])


def _checked(action: Action, v: View) -> Action:
    """``action`` if the rules allow it, else :class:`BadAnswer` with the engine's reason, worded for the seat."""
    reason = v.why_illegal(action)
    if reason is not None:
        raise BadAnswer(explain(reason))
    return action


def parse_bid(text: str, v: View) -> Action:
    """The action meant by an answer to the bid prompt, or :class:`BadAnswer` saying why not.

    Bids are totals in coins (``4``, ``4k`` and ``$4,000`` all mean 4 coins);
    ``p`` or ``pass`` (or the language's word for it) passes. What is not a
    bid is explained here; a bid the rules refuse is explained by the engine
    (:meth:`View.why_illegal`).
    """
    choices = bid_choices(v)
    t = text.strip().lower()
    if t in ("p", "pass", "0", _("pass").lower()):
        return _checked(PASS, v)
    if not t:
        raise BadAnswer(_("type a bid or p to pass; {choices}").format(choices=choices))
    amount = _amount(t)
    if amount is None:
        raise BadAnswer(_("{answer} is not a bid; {choices} (p)").format(answer=repr(text.strip()), choices=choices))
    return _checked(bid(amount), v)


def parse_sale(text: str, v: View) -> Action:
    """The ``Sell`` meant by an answer to the sale prompt, or :class:`BadAnswer` saying why not."""
    t = text.strip().lower()
    for word in ("sell", _("sell").lower(), "house", _("house").lower()):
        t = t.removeprefix(word).strip()
    if not t.isdigit():
        held = ", ".join(map(str, v.hand))
        raise BadAnswer(
            _("{answer} is not a house number; choose one of {held}").format(answer=repr(text.strip()), held=held)
        )
    house = int(t)
    return _checked(SELLS[house] if house < len(SELLS) else Sell(house), v)
