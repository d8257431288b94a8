"""A whole game in the terminal: one human seat against bots, and the replay of a record.

The loop asks the engine whose turn it is, gives each bot the view of its
own seat, and shows the human :func:`forsale.view.view` of theirs and
nothing else. Prompts re-ask until the answer is legal and say what was
wrong with it. Leaving early (``q``, Ctrl-C, end of input) is not an error
the player should see a traceback for: the game is abandoned with a
sentence, and saved as an unfinished record if ``--save`` was given.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from ..actions import Action
from ..bots import DEFAULT_BOT, make_agent
from ..bots.protocol import Agent
from ..record import to_record
from ..rules import Ruleset
from ..state import State, new_game
from ..view import View, spectator_view, view
from .i18n import _
from .prompt import ConsoleAsk
from .render import scores_panel, table_panel
from .text import BadAnswer, LogEntry, bid_choices, by, describe, parse_bid, parse_sale, public_log

EXIT_DONE = 0
EXIT_EOF = 1
EXIT_INTERRUPTED = 130


def help_text() -> str:
    """The rules in brief, shown at ``?``: the terminal's "How to play", in the language in use."""
    return _(
        "Auction: type a bid as a number of coins (4, 4k and $4,000 all mean 4 coins), or p to pass.\n"
        "A bid is your total for this round and must beat the high bid. Passing takes the cheapest house\n"
        "on the table and returns half your bid; the last bidder pays in full for the best house.\n"
        "Sale: type the number of a house you hold; everyone reveals together, the highest house\n"
        "takes the highest cheque. Score: cheques plus coins left; ties go to the most coins.\n"
        "Type q to quit (the game is saved unfinished if --save was given)."
    )


def default_bot() -> str:
    """The opponents' bot when ``--bots`` names none: the registry's :data:`~forsale.bots.DEFAULT_BOT`."""
    return DEFAULT_BOT


class Quit(Exception):
    """The human typed ``q``: leave the game on purpose."""


@dataclass
class Options:
    """What ``forsale play`` was asked for (already checked by :func:`check_options`)."""

    rules: Ruleset
    bots: list[str]
    seat: int = 0
    seed: int = 0
    save: Path | None = None
    name: str = "You"
    names: list[str] = field(default_factory=list)


def check_options(
    players: int,
    bots: str | None,
    rules: str,
    seed: int | None,
    seat: int | None,
    save: str | None,
    name: str | None = None,
) -> Options:
    """Turn command-line values into :class:`Options`, or raise ``ValueError`` with a sentence.

    Without a ``name`` the human is "You" in the language in use, whom the log addresses directly.
    """
    if name is None:
        name = _("You")
    ruleset = Ruleset.preset(rules, players) if rules else Ruleset.default(players)
    n = ruleset.players
    specs = [s.strip() for s in bots.split(",")] if bots else [default_bot()]
    if any(not s for s in specs):
        raise ValueError(f"--bots {bots!r} has an empty entry; give bot names separated by commas")
    if len(specs) == 1:
        specs = specs * (n - 1)
    if len(specs) != n - 1:
        raise ValueError(f"a {n}-player game has {n - 1} bots; --bots named {len(specs)} ({', '.join(specs)})")
    for spec in specs:
        make_agent(spec)  # a clear ValueError for an unknown name or option, before the game starts
    if seat is None:
        seat = 0
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be from 0 to {n - 1} at a {n}-player table, not {seat}")
    if seed is None:
        seed = random.SystemRandom().randrange(10**9)
    names: list[str] = []
    bot_iter = iter(specs)
    for s in range(n):
        names.append(name if s == seat else f"{next(bot_iter)} {s}")
    return Options(ruleset, specs, seat, seed, Path(save) if save else None, name, names)


class Session:
    """One game between a human at ``options.seat`` and bots everywhere else."""

    def __init__(self, options: Options, console: Console, ask: Callable[[str], str] | None = None) -> None:
        self.options = options
        self.console = console
        self.ask = ask or ConsoleAsk(console)
        self.state: State = new_game(options.rules, options.seed)
        self.agents: dict[int, Agent] = {}
        self.rngs: dict[int, random.Random] = {}
        bot_iter = iter(options.bots)
        for s in range(options.rules.players):
            if s != options.seat:
                self.agents[s] = make_agent(next(bot_iter))
                self.rngs[s] = random.Random(f"{options.seed}/{s}")
        self.shown = 0

    # -- output ------------------------------------------------------------
    def my_view(self) -> View:
        return view(self.state, self.options.seat)

    def show_log(self) -> None:
        """Print the log entries the human has not seen yet (all public)."""
        log = public_log(self.my_view(), self.options.names)
        for entry in log[self.shown :]:
            self.console.print(_log_line(entry))
        self.shown = len(log)

    # -- the loop ------------------------------------------------------------
    def run(self) -> int:
        o = self.options
        c = self.console
        c.print(
            Text.assemble(
                ("For Sale", "bold"),
                " — "
                + _("{rules}. You are {name} (seat {seat}); seed {seed}. Type ? for help.").format(
                    rules=describe(o.rules), name=o.names[o.seat], seat=o.seat, seed=o.seed
                ),
            )
        )
        try:
            while not self.state.is_over:
                self.step()
        except Quit:
            return self.abandon(_("you left the game"), EXIT_DONE)
        except EOFError:
            return self.abandon(_("end of input"), EXIT_EOF)
        except KeyboardInterrupt:
            return self.abandon(_("interrupted"), EXIT_INTERRUPTED)
        self.show_log()
        final = self.my_view()
        c.print(table_panel(final, o.names))
        c.print(scores_panel(final, o.names))
        self.save(finished=True)
        return EXIT_DONE

    def step(self) -> None:
        state = self.state
        me = self.options.seat
        if state.phase == "auction":
            seat = state.current_seat
            assert seat is not None
            action = self.ask_bid() if seat == me else self.bot_action(seat)
            state.push(seat, action)
        else:
            if not state.has_committed(me):
                state.push(me, self.ask_sale())
            for seat in state.seats_to_act():
                state.push(seat, self.bot_action(seat))
        self.show_log()

    def bot_action(self, seat: int) -> Action:
        return self.agents[seat].act(view(self.state, seat), self.rngs[seat], None)

    def ask_bid(self) -> Action:
        self.show_log()
        v = self.my_view()
        self.console.print(table_panel(v, self.options.names))
        prompt = _("Your bid ({choices}): ").format(choices=bid_choices(v))
        return self._ask(prompt, lambda text: parse_bid(text, v))

    def ask_sale(self) -> Action:
        self.show_log()
        v = self.my_view()
        self.console.print(table_panel(v, self.options.names))
        prompt = _("Sell which house ({houses})? ").format(houses=", ".join(map(str, v.hand)))
        return self._ask(prompt, lambda text: parse_sale(text, v))

    def _ask(self, prompt: str, parse: Callable[[str], Action]) -> Action:
        while True:
            answer = self.ask(prompt)
            word = answer.strip().lower()
            if word in ("q", "quit", "exit"):
                raise Quit
            if word in ("?", "h", "help"):
                self.console.print(help_text())
                continue
            try:
                return parse(answer)
            except BadAnswer as error:
                self.console.print(Text(f"  ✗ {error}", style="bold red"))

    # -- leaving -------------------------------------------------------------
    def abandon(self, why: str, status: int) -> int:
        s = self.state
        self.console.print("\n" + _("Game abandoned ({why}) in {where}.").format(why=why, where=where(s)))
        self.save(finished=False)
        return status

    def save(self, *, finished: bool) -> None:
        path = self.options.save
        if path is None:
            return
        o = self.options
        bots: list[str | None] = []
        bot_iter = iter(o.bots)
        for s in range(o.rules.players):
            bots.append(None if s == o.seat else next(bot_iter))
        record = to_record(self.state, o.names, seed=o.seed, bots=bots, human_seat=o.seat)
        if not finished:
            record["abandoned"] = True
        try:
            path.write_text(json.dumps(record, indent=1) + "\n")
        except OSError as error:
            failed = _("could not save the record to {path}: {why}").format(path=path, why=error.strerror)
            self.console.print(Text(failed, style="bold red"))
            return
        if finished:
            saved = _("The record is saved in {path} (check it with: forsale replay {path}).")
        else:
            saved = _("The unfinished record is saved in {path} (check it with: forsale replay {path}).")
        self.console.print(saved.format(path=path))


def where(state: State) -> str:
    """The round a game stopped in: ``auction round 3``, ``sale round 1``."""
    if state.phase == "auction":
        return _("auction round {round}").format(round=state.round + 1)
    return _("sale round {round}").format(round=state.round + 1)


def _log_line(entry: LogEntry) -> Any:
    if entry.kind == "open":
        return Rule(Text(entry.text, style="bold"), align="left")
    style = {"take": "green", "pass": "", "bid": "", "sell": "magenta"}.get(entry.kind, "")
    return Text("  " + entry.text, style=style)


def show_record(state: State, names: Sequence[str], console: Console) -> None:
    """Print a game round by round from its record, as a spectator sees it.

    The auction rounds' log, then the table as the sale phase starts (who
    holds which houses, coins left), then the sale rounds' log, then the final
    table and scores, or where an unfinished record stops.
    """
    final = spectator_view(state)
    console.print(Text.assemble(("For Sale", "bold"), " — " + describe(state.rules)))
    seated = ", ".join(_("{name} (seat {seat})").format(name=n, seat=s) for s, n in enumerate(names))
    opener = names[state.deal.first]
    console.print(
        by(opener, _("Players: {players}; you open."), _("Players: {players}; {name} opens."), players=seated)
    )
    log = public_log(final, names)
    auctions = [e for e in log if e.phase == "auction"]
    for entry in auctions:
        console.print(_log_line(entry))
    if state.phase != "auction":
        console.print(table_panel(spectator_view(_after_auctions(state)), names))
    for entry in log[len(auctions) :]:
        console.print(_log_line(entry))
    if state.is_over:
        console.print(table_panel(final, names))
        console.print(scores_panel(final, names))
    else:
        console.print(table_panel(final, names))
        to_act = ", ".join(names[s] for s in state.seats_to_act())
        console.print(_("The record stops here: {where}, {to_act} to move.").format(where=where(state), to_act=to_act))


def _after_auctions(state: State) -> State:
    """The game as the sale phase begins, replayed from ``state``'s deal and its auction moves."""
    replay = State(state.rules, state.deal)
    for seat, action in state.moves:
        if seat is None:
            break
        replay.push(seat, action)
    return replay
