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
        title = f"Auction round {v.round + 1} of {rules.rounds}"
        cards = _cards(v.table, cheques=False)
        label = "Houses for sale"
        high = f"high bid {money(v.high)}" if v.high else "no bid yet"
        footer = f"{label}: " if v.table else ""
        caption = Text(f"{high} · {v.houses_to_come} houses still to come")
    elif v.phase == "sale":
        title = f"Sale round {v.round + 1} of {rules.rounds}"
        cards = _cards(v.table, cheques=True)
        footer = "Cheques on offer: "
        caption = Text(f"{v.cheques_to_come} cheques still to come")
    else:
        title = "Game over"
        cards = Text()
        footer = ""
        caption = Text("")
    players = Table(box=None, pad_edge=False, expand=False)
    players.add_column("")
    players.add_column("player")
    players.add_column("coins", justify="right")
    players.add_column({"auction": "bid", "sale": "sale"}.get(v.phase, ""), justify="right")
    players.add_column("houses")
    players.add_column("cheques")
    for s in range(v.players):
        if v.phase == "auction":
            if not v.active[s]:
                status = "passed"
            else:
                status = money(v.bids[s]) if v.bids[s] else "—"
            marker = "▶" if s == v.turn else ""
        elif v.phase == "sale":
            status = "chosen" if v.committed[s] else "choosing"
            if s == seat and v.my_commit is not None:
                status = f"sells {v.my_commit}"
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
                "Your hand: ",
                _cards(v.hand, cheques=False) if v.hand else Text("no houses yet"),
                f"   your coins: {money(v.coins[seat])}",
            )
        )
    return Panel(Group(*body), title=title, expand=False)


def scores_panel(v: View, names: Sequence[str]) -> Panel:
    """Final scores from first to last place, and the sentence that names the winner."""
    board = Table(box=None, pad_edge=False)
    board.add_column("#", justify="right")
    board.add_column("player")
    board.add_column("cheques")
    board.add_column("cheques total", justify="right")
    board.add_column("coins left", justify="right")
    board.add_column("score", justify="right", style="bold")
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
    rule = Text("Score: cheques plus coins left; equal scores go to the most coins left.", style="dim")
    return Panel(Group(board, Text(verdict(v, names), style="bold"), rule), title="Final scores", expand=False)
