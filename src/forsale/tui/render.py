"""Rich renderables for a seat's view: the table, the players, the final scores.

Each function takes a :class:`~forsale.view.View` (a seat's or a
spectator's) and the seat names, and returns something ``Console.print``
can show. Only the view is read, so the terminal shows a human exactly what
the rules let that seat know.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ..view import View
from .i18n import _, ngettext
from .text import money, short, standings, verdict


def _cards(values: Sequence[int], *, cheques: bool) -> Text:
    text = Text()
    for i, value in enumerate(values):
        if i:
            text.append("  ")
        if cheques:
            text.append(f" {money(value)} ", style="bold black on green")
        else:
            text.append(f" {value:>2} ", style="bold black on yellow")
    return text


def table_panel(v: View, names: Sequence[str]) -> Panel:
    """The cards on the table and one row per player: coins, bid, houses, cheques."""
    rules = v.rules
    seat = v.seat
    if v.phase == "auction":
        title = _("Auction round {round} of {rounds}").format(round=v.round + 1, rounds=rules.rounds)
        cards = _cards(v.table, cheques=False)
        high = _("high bid {amount}").format(amount=money(v.high)) if v.high else _("no bid yet")
        footer = _("Houses for sale: ") if v.table else ""
        to_come = ngettext("{n} house still to come", "{n} houses still to come", v.houses_to_come)
        caption = Text(f"{high} · {to_come.format(n=v.houses_to_come)}")
    elif v.phase == "sale":
        title = _("Sale round {round} of {rounds}").format(round=v.round + 1, rounds=rules.rounds)
        cards = _cards(v.table, cheques=True)
        footer = _("Cheques on offer: ")
        to_come = ngettext("{n} cheque still to come", "{n} cheques still to come", v.cheques_to_come)
        caption = Text(to_come.format(n=v.cheques_to_come))
    else:
        title = _("Game over")
        cards = Text()
        footer = ""
        caption = Text("")
    players = Table(box=None, pad_edge=False, expand=False)
    players.add_column("")
    players.add_column(_("player"))
    players.add_column(_("coins"), justify="right")
    players.add_column({"auction": _("bid"), "sale": _("sale")}.get(v.phase, ""), justify="right")
    players.add_column(_("houses"))
    players.add_column(_("cheques"))
    for s in range(v.players):
        if v.phase == "auction":
            if not v.active[s]:
                status = _("passed")
            else:
                status = money(v.bids[s]) if v.bids[s] else "—"
            marker = "▶" if s == v.turn else ""
        elif v.phase == "sale":
            status = _("chosen") if v.committed[s] else _("choosing")
            if s == seat and v.my_commit is not None:
                status = _("sells {house}").format(house=v.my_commit)
            marker = "▶" if not v.committed[s] else ""
        else:
            status = ""
            marker = ""
        name = Text(names[s], style="bold cyan" if s == seat else "")
        houses = " ".join(map(str, v.hands[s])) or "—"
        cheques = " ".join(short(c) for c in v.cheques_won[s]) or "—"
        players.add_row(marker, name, money(v.coins[s]), status, houses, cheques)
    body: list[RenderableType] = []
    if footer:
        body.append(Text.assemble(footer, cards))
        body.append(caption)
    body.append(players)
    if seat is not None and v.phase != "over":
        body.append(
            Text.assemble(
                _("Your hand: "),
                _cards(v.hand, cheques=False) if v.hand else Text(_("no houses yet")),
                "   " + _("your coins: {amount}").format(amount=money(v.coins[seat])),
            )
        )
    return Panel(Group(*body), title=title, expand=False)


def scores_panel(v: View, names: Sequence[str]) -> Panel:
    """Final scores from first to last place, and the sentence that names the winner."""
    board = Table(box=None, pad_edge=False)
    board.add_column("#", justify="right")
    board.add_column(_("player"))
    board.add_column(_("cheques"))
    board.add_column(_("cheques total"), justify="right")
    board.add_column(_("coins left"), justify="right")
    board.add_column(_("score"), justify="right", style="bold")
    for place, (s, score, coins, total) in enumerate(standings(v, names), 1):
        name = Text(names[s], style="bold cyan" if s == v.seat else "")
        board.add_row(
            str(place),
            name,
            " ".join(short(c) for c in v.cheques_won[s]),
            money(total),
            money(coins),
            money(score),
        )
    rule = Text(_("Score: cheques plus coins left; equal scores go to the most coins left."), style="dim")
    return Panel(Group(board, Text(verdict(v, names), style="bold"), rule), title=_("Final scores"), expand=False)
