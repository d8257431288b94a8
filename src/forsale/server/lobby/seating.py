"""Tables made for known players: every seat given to an account or a bot, the game under way at once.

Quick pairing (:mod:`forsale.server.lobby.pairing`), a tournament's rounds and a bot account's accepted challenge
all end the same way: the server, not a person, makes a table for players it has chosen. :func:`seat_entrants`
is that one path.

- **An account's seat** is a person's seat (``kind="human"``) linked to the account, with *no token yet*: nobody
  holds it until the account takes it with ``POST /api/tables/{id}/resume`` (:mod:`forsale.server.http.routes.players`),
  from whichever device and node it is on, which hands it a fresh seat token. Until then the seat counts as taken
  (the game starts; nobody else can join it) and as an *absent* player: after the grace period the clock plays for
  it, as for a person who closed the page (:mod:`forsale.server.table.scheduling`).
- **The seating order** is shuffled with the OS's secret randomness, as deals are: the order of a queue or of
  a standings list never decides who opens.
- **Each account is told**: one ``seated`` notice, ``{"kind": "seated", "table": id, "seat": i, "source": {...}}``
  (:mod:`forsale.server.people.notices`), written in the game's own transaction: no table without its notices,
  no notice of a table that was not stored. ``source`` says who made the table (``{"pairing": ...}``,
  ``{"tournament": id, "round": r}``, ``{"challenge": id}``), for the page to say so.
- **Whose table it is**, for the fair shares (:mod:`forsale.server.lobby.fairshare`): a table with the server's
  bots is its first account's (``account:<id>``, the key of its own requests), so its bots share the workers
  with that account's other tables and it counts against that account's games under way, refused with ``429
  too_many_games`` past the limit, as a table it created would be (quick pairing, a challenge: no way around the
  limit). A tournament's table is counted but never refused (its round needs it; a tournament is one table
  at a time per entrant). A table of accounts only is its own owner, as before.
- **On a cluster** the table is made on whichever node runs this and moves to the node its requests are routed to,
  as any table does (:mod:`forsale.server.lobby.cluster`, ``docs/deploy.md``).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import ForSaleError
from ...rules import Ruleset
from ..errors import Refused
from ..names import bot_name, table_name
from ..ops.botrunner import validate_spec
from ..people.skill import check_rated_table
from ..store.database import Op, StoredSeat
from ..store.notices import Notice, op_post
from ..table.live import LiveTable
from ..table.newgame import new_game
from ..tokens import new_token
from .lobby import Lobby, TableRequest, both

SEATED = "seated"
"""The notice's kind: an account was given a seat at a new table."""


@dataclass(frozen=True)
class Entrant:
    """One seat of a table made for known players.

    ``account_id``: an account's seat (a person's or a bot account's), which the account takes with ``resume``;
    None: a server bot playing ``bot`` (a :mod:`forsale.bots` registry spec). ``name``: the name shown (the
    account's name; a bot's, "" for the server's usual one, such as "hard bot").
    """

    account_id: str | None
    name: str
    bot: str | None = None

    def __post_init__(self) -> None:
        if (self.account_id is None) == (self.bot is None):
            raise ValueError("an entrant is an account (account_id) or a server bot (bot), not both or neither")


async def seat_entrants(
    lobby: Lobby,
    request: TableRequest,
    entrants: Sequence[Entrant],
    source: dict[str, Any],
    also: Op[Any] | None = None,
) -> LiveTable:
    """Make a table of ``request.players`` seats for ``entrants`` (one each, in a shuffled order), playing at once.

    From ``request`` are read the table's settings (name, rules, clocks, memory aid, hints, privacy, spectator chat,
    rated, bot delay); its ``seats``, ``join`` and ``player_name`` are not (the entrants are the seats). Refused
    (:class:`~forsale.server.errors.Refused`) before anything is stored: a count of entrants other than the table's,
    an account listed twice, bad rules or clocks, a bot the server would not seat, a rated table a person could not
    be rated at (:func:`~forsale.server.people.skill.check_rated_table`), a table with the server's bots whose first
    account holds the most games under way (``429 too_many_games``; see the module docstring). The table is nobody's to manage: no
    creator token exists. ``source`` (JSON) goes into every ``seated`` notice. ``also``: more to write in the
    table's transaction, which it may fail (quick pairing's claim of its members in the queue:
    :func:`forsale.server.store.pairing.op_claim`); its exception is raised here, and nothing is stored.
    """
    n = request.players
    if len(entrants) != n:
        raise Refused("bad_seats", f"{len(entrants)} entrants for a table of {n}")
    accounts = [e.account_id for e in entrants if e.account_id is not None]
    if len(set(accounts)) != len(accounts):
        raise Refused("already_seated", "an account is listed twice: one account, one seat", 409)
    try:
        rules = Ruleset.parse(request.rules, n)
    except ForSaleError as error:
        raise Refused("bad_rules", str(error)) from None
    if request.turn_limit is not None and request.time_limit is not None:
        raise Refused("bad_clock", "choose one clock: time_limit (seconds, played live) or turn_limit (over days)")
    for entrant in entrants:
        if entrant.bot is not None:
            try:
                validate_spec(entrant.bot, lobby.options.max_bot_time, rules, research_bots=lobby.options.research_bots)
            except ValueError as error:
                raise Refused("bad_bot", f"{entrant.bot}: {error}") from None
    check_rated_table(request.rated, request.hints, [e.bot for e in entrants])
    order = list(entrants)
    random.SystemRandom().shuffle(order)  # from the OS's secret source, as deals are (made here, not at import)
    game_id = secrets.token_urlsafe(6)
    seats: list[StoredSeat] = []
    told: list[Notice] = []
    for i, entrant in enumerate(order):
        if entrant.account_id is not None:
            seats.append(StoredSeat(i, "human", entrant.name, None, None, entrant.account_id))  # no token: resume
            told.append((entrant.account_id, SEATED, {"table": game_id, "seat": i, "source": source}))
        else:
            assert entrant.bot is not None
            seats.append(StoredSeat(i, "bot", entrant.name or bot_name(entrant.bot), entrant.bot, None))
    owner = f"account:{accounts[0]}" if accounts and len(accounts) < n else None  # see the module docstring
    if owner is not None:
        if "tournament" in source:
            lobby.shares.record(owner, game_id)
        else:
            lobby.shares.claim(lobby.tables, owner, game_id, False, n - len(accounts), n)
    _, creator_hash = new_token()  # the token itself is dropped: nobody manages a table the server made
    name = request.name or table_name(n)
    game = new_game(game_id, name, rules, request.config(rules, None), seats, creator_hash)
    with lobby.shares.creating(game_id):
        table = await lobby.add(game, both(op_post(told), also))
    await lobby.notices.posted(accounts)
    return table
