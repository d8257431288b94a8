"""Rematch: after a game, the same seats play a new one, each moved one seat on, once everyone accepts.

Any player of a finished game may offer a rematch (which is also their
acceptance); the others accept or decline. Bots accept at once, and so do the
seats that bots took over when their players left. When every seat has
accepted, the new table is made: the same name, ruleset and settings (clock,
memory aid, spectator chat, privacy: an invitation-only table stays one, with
the same invitation code and the same creator token), a fresh deal, and the
seats rotated (the player at seat *s* sits at seat *s* + 1, the last at seat
0), so another seat opens the first auction. Each player gets a new seat
token for it, over their WebSocket (and ``GET /api/tables/{id}/rematch``
with their old token); seats linked to an account stay linked.

An offer that is declined ends at once, and one that nobody completes within
:attr:`~forsale.server.lobby.lobby.Options.rematch_timeout` seconds expires; either
way everyone at the table is told, and a new offer may be made. Offers live
in memory: a server restart forgets an open one (as if it had expired), and
the players of a rematch that started keep its tokens from the message they
were sent (signed-in players also find the new game in their games).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...state import State
from ..errors import Refused
from ..names import bot_name
from ..store.database import StoredGame, StoredSeat
from ..tokens import new_token
from .config import TableConfig
from .connections import Conn, dumps
from .newgame import new_game
from .seats import Seat


@dataclass
class Offer:
    """A rematch offered at one finished table."""

    by: int
    accepted: set[int]
    expires_at: float  # epoch seconds
    status: str = "offered"  # offered | started | declined | expired
    declined_by: int | None = None
    table: str | None = None  # the new table, once started
    seats: dict[int, int] = field(default_factory=dict)  # old seat -> new seat
    tokens: dict[int, str] = field(default_factory=dict)  # old seat -> its new token (people's seats only)
    timer: asyncio.TimerHandle | None = None

    def public(self, players: list[int]) -> dict[str, Any]:
        """What everyone at the table may know: who offered, who accepted, who is awaited, where it went."""
        return {
            "status": self.status,
            "by": self.by,
            "accepted": sorted(self.accepted),
            "waiting": [s for s in players if s not in self.accepted] if self.status == "offered" else [],
            "declined_by": self.declined_by,
            "expires_at": int(self.expires_at * 1000),
            "table": self.table,
        }


class Owned(Protocol):
    owner: str


class Shares(Protocol):
    """The lobby's per-client limits (:class:`forsale.server.lobby.fairshare.Shares`), as a rematch meets them."""

    def claim(self, tables: Any, owner: str, table_id: str, waiting: bool, bots: int, seats: int) -> None: ...
    def creating(self, table_id: str) -> AbstractContextManager[None]: ...


class Maker(Protocol):
    """What a rematch asks of the table's lobby: the limits it meets, a bot for an empty seat, the new table."""

    @property
    def shares(self) -> Shares: ...
    @property
    def tables(self) -> Any: ...
    def fallback_bot(self) -> str: ...
    async def add(self, game: StoredGame) -> Owned: ...


class Timeout(Protocol):
    @property
    def rematch_timeout(self) -> float: ...


class RematchTable(Protocol):
    """What a rematch reads of the finished table (:class:`forsale.server.table.live.LiveTable` is one), and
    its offer, which it keeps there."""

    rematch: Offer | None
    owner: str

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def closed(self) -> bool: ...
    @property
    def lock(self) -> asyncio.Lock: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def state(self) -> State: ...
    @property
    def config(self) -> TableConfig: ...
    @property
    def creator_hash(self) -> str: ...
    @property
    def invite_hash(self) -> str | None: ...
    @property
    def options(self) -> Timeout: ...
    @property
    def lobby(self) -> Maker: ...
    def connections(self) -> list[Conn]: ...


def people(table: RematchTable) -> list[int]:
    """The seats whose acceptance a rematch waits for: those people still hold (bots accept at once)."""
    return [s.index for s in table.seats if s.kind == "human"]


def state_of(table: RematchTable, seat: int | None) -> dict[str, Any] | None:
    """The rematch as ``seat`` may see it: the public state, plus its new seat and token once started."""
    offer: Offer | None = table.rematch
    if offer is None:
        return None
    out = offer.public(people(table))
    if seat is not None and offer.status == "started" and seat in offer.tokens:
        out.update(seat=offer.seats[seat], token=offer.tokens[seat])
    return out


def _message(table: RematchTable, seat: int | None, msg_id: Any = None) -> dict[str, Any]:
    return {"type": "rematch", "table": table.id, "rematch": state_of(table, seat), "id": msg_id}


def announce(table: RematchTable, sender: Conn | None = None, msg_id: Any = None) -> None:
    """Tell every connection of the table where the rematch stands (each seat its own new token)."""
    shared = dumps(_message(table, None))
    for conn in table.connections():
        personal = table.rematch is not None and table.rematch.status == "started" and conn.seat is not None
        if personal or (conn is sender and msg_id is not None):
            conn.send(_message(table, conn.seat, msg_id if conn is sender else None))
        else:
            conn.send(shared)


def on_attach(table: RematchTable, conn: Conn) -> None:
    """A connection said hello: if a rematch is on offer or under way, tell it (after its welcome)."""
    if table.rematch is not None and table.rematch.status in ("offered", "started"):
        conn.send(_message(table, conn.seat))


async def answer(
    table: RematchTable, seat: int, accept: bool, sender: Conn | None = None, msg_id: Any = None
) -> dict[str, Any]:
    """Seat ``seat`` offers or accepts (``accept``) or declines a rematch; returns the rematch as it sees it."""
    async with table.lock:
        if table.status != "over":
            raise Refused("not_finished", "a rematch is offered once the game is over", 409)
        if table.seats[seat].kind != "human":
            raise Refused("not_seated", "this seat is a bot's now; it has no say in a rematch", 409)
        offer: Offer | None = table.rematch
        if offer is not None and offer.status == "started":
            if not accept:
                raise Refused("rematch_started", "the rematch has started already; see its table", 409)
        elif not accept:
            if offer is None or offer.status != "offered":
                raise Refused("no_rematch", "no rematch is on offer at this table", 409)
            offer.status, offer.declined_by = "declined", seat
            _stop_timer(offer)
        else:
            if offer is None or offer.status != "offered":
                timeout = table.options.rematch_timeout
                bots = {s.index for s in table.seats if s.kind != "human"}
                offer = table.rematch = Offer(by=seat, accepted=bots, expires_at=time.time() + timeout)
                offer.timer = asyncio.get_running_loop().call_later(timeout, _expire, table, offer)
            offer.accepted.add(seat)
            if all(s in offer.accepted for s in people(table)):
                await _start(table, offer)
        announce(table, sender, msg_id)
        out = state_of(table, seat)
        assert out is not None
        return out


def _stop_timer(offer: Offer) -> None:
    if offer.timer is not None:
        offer.timer.cancel()
        offer.timer = None


def _expire(table: RematchTable, offer: Offer) -> None:
    if table.rematch is offer and offer.status == "offered" and not table.closed:
        offer.status = "expired"
        offer.timer = None
        announce(table)


async def _start(table: RematchTable, offer: Offer) -> None:
    """Make the new table: the same settings, a new deal, every seat moved one on (see the module docstring)."""
    n = len(table.seats)
    # The new game is the old one's owner's, and meets the owner's limits (forsale.server.lobby.fairshare): a
    # rematch is a way to a new game like any other. Refused (429), the offer stays open (and may expire).
    game_id, shares = secrets.token_urlsafe(6), table.lobby.shares
    shares.claim(table.lobby.tables, table.owner, game_id, False, sum(s.kind != "human" for s in table.seats), n)
    _stop_timer(offer)
    new_seats: list[StoredSeat | None] = [None] * n
    for seat in table.seats:
        index = (seat.index + 1) % n
        offer.seats[seat.index] = index
        if seat.kind == "human":
            token, token_hash = new_token()
            offer.tokens[seat.index] = token
            new_seats[index] = StoredSeat(index, "human", seat.name, None, token_hash, seat.account_id)
        else:
            bot = seat.bot or table.lobby.fallback_bot()
            new_seats[index] = StoredSeat(index, "bot", bot_name(bot), bot, None)
    seated = [s for s in new_seats if s is not None]
    game = new_game(
        game_id, table.name, table.state.rules, table.config.stored(), seated, table.creator_hash,
        invite_hash=table.invite_hash,
    )  # fmt: skip
    with shares.creating(game.id):
        new = await table.lobby.add(game)
    new.owner = table.owner
    offer.status, offer.table = "started", game.id
