"""Fair shares of the server between clients: whose table is whose, and how many tables one client may hold.

One client (an account when signed in, else an address: :func:`client_key`)
must not be able to crowd everyone else out by opening many tables. So:

- every table created here remembers its **owner** (in memory only: a table
  brought back after a restart or taken over by another node of a cluster is
  its own owner, and no client's address is written to the database);
- the bot workers share their time per owner first and per table second,
  and work where no person waits (a table of bots only, an analysis) comes
  after work where someone does (:class:`~forsale.server.botrunner.Share`,
  :class:`~forsale.server.botrunner.BotRunner`);
- an owner may have at most :attr:`Limits.open_tables` tables waiting for
  players and :attr:`Limits.bot_tables` tables of bots only playing at once
  (``429 too_many_tables`` / ``429 too_many_bot_tables``), so the lobby
  cannot be flooded and the workers not queued up from one client, and at
  most :attr:`Limits.games` games with bots under way (``429 too_many_games``:
  a solo game whose player went away goes on, the clock playing for them, so
  starting solo games without end would fill the server's memory);
- a waiting table nobody has been connected to, and whose seats nobody
  has taken or left, for :attr:`Limits.expiry` seconds (at a table with a
  long clock, at least its ``turn_limit``) is closed
  (:meth:`forsale.server.lobby.Lobby.expire`): it leaves the lobby and no
  longer counts against its owner.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .botrunner import Share
from .refused import Refused

if TYPE_CHECKING:
    from .tables import LiveTable

OPEN_TABLES = 5
"""Tables one client may have waiting for players at once, unless ``forsale serve --tables-per-client`` says otherwise."""
BOT_TABLES = 3
"""Tables of bots only one client may have playing at once (``forsale serve --bot-tables-per-client``)."""
GAMES = 20
"""Games with bots (solo games among them) one client may have under way at once (``--games-per-client``)."""
WAITING_EXPIRY = 1800.0
"""Seconds a waiting table with nobody connected stays open (``forsale serve --waiting-expiry``)."""


def client_key(address: str, account: dict[str, Any] | None) -> str:
    """Who a request is, for the shares: the signed-in account, else the client's address."""
    return f"account:{account['id']}" if account is not None else f"address:{address}"


def has_people(table: LiveTable) -> bool:
    """Someone is seated (connected or not): their table's bots go before bots playing only each other."""
    return any(seat.kind == "human" for seat in table.seats)


@dataclass
class Limits:
    """``None``: no limit (the default of :func:`~forsale.server.app.create_app`; ``forsale serve`` sets them)."""

    open_tables: int | None = None
    bot_tables: int | None = None
    games: int | None = None
    expiry: float | None = WAITING_EXPIRY


@dataclass
class Shares:
    """The owner of each table created here, and the limits on how many one owner may hold."""

    limits: Limits = field(default_factory=Limits)
    owners: dict[str, str] = field(default_factory=dict)  # table id -> owner key
    by_owner: dict[str, dict[str, str]] = field(default_factory=dict)  # owner -> {table id: kind while created}
    quiet_since: dict[str, float] = field(default_factory=dict)  # waiting table id -> when it was last seen empty

    def owner_of(self, table_id: str) -> str:
        return self.owners.get(table_id) or f"table:{table_id}"

    def share(self, table: LiveTable) -> Share:
        """Whose turn a bot decision of ``table`` is, and whether a person waits on it."""
        return Share(self.owner_of(table.id), background=not has_people(table))

    def claim(
        self, tables: dict[str, LiveTable], owner: str, table_id: str, waiting: bool, bots: int, seats: int
    ) -> None:
        """Count ``table_id`` (about to be created, ``bots`` of its ``seats`` bots) as ``owner``'s, or refuse it
        with ``429``.

        Claimed before the table is stored, so concurrent requests cannot both slip under a limit.
        """
        mine = self.by_owner.setdefault(owner, {})
        open_now = bots_now = games_now = 0
        for tid, kind in list(mine.items()):
            table = tables.get(tid)
            if table is None and kind == "creating":
                games_now += 1  # counted as the most it may be
                continue
            if table is None or table.closed or table.status not in ("waiting", "playing"):
                del mine[tid]
                self.owners.pop(tid, None)
            elif table.status == "waiting":
                open_now += 1
            elif any(seat.kind == "bot" for seat in table.seats):
                games_now += 1
                bots_now += not has_people(table)
        limits = self.limits
        bots_only = bots == seats
        if waiting and limits.open_tables is not None and open_now >= limits.open_tables:
            raise Refused(
                "too_many_tables",
                f"you already have {open_now} tables waiting for players, the most this server allows; "
                "start or leave one of them first (a table nobody is connected to closes on its own)",
                429,
            )
        if bots_only and limits.bot_tables is not None and bots_now >= limits.bot_tables:
            raise Refused(
                "too_many_bot_tables",
                f"you already have {bots_now} tables of bots only playing, the most this server allows; "
                "wait for one of them to finish",
                429,
            )
        if not waiting and bots and limits.games is not None and games_now >= limits.games:
            raise Refused(
                "too_many_games",
                f"you already have {games_now} games with bots under way, the most this server allows; "
                "finish one of them first (a game you left goes on, the clock playing for you, until it ends)",
                429,
            )
        mine[table_id] = "creating"
        self.owners[table_id] = owner

    def created(self, table_id: str, ok: bool) -> None:
        """The claimed table is live (``ok``) or was not created after all (its claim goes)."""
        owner = self.owners.get(table_id)
        if owner is None:
            return
        mine = self.by_owner.get(owner, {})
        if ok:
            mine[table_id] = "live"
        else:
            mine.pop(table_id, None)
            self.owners.pop(table_id, None)
        if not mine:
            self.by_owner.pop(owner, None)

    def abandoned(self, tables: dict[str, LiveTable], now: float | None = None) -> list[LiveTable]:
        """Waiting tables nobody has been connected to for the expiry time; forgets tables that are gone."""
        expiry = self.limits.expiry
        now = time.monotonic() if now is None else now
        out: list[LiveTable] = []
        seen: set[str] = set()
        for table in tables.values():
            if table.status != "waiting" or table.closed:
                continue
            seen.add(table.id)
            if table.connections():
                self.quiet_since.pop(table.id, None)
                continue
            since = self.quiet_since.setdefault(table.id, now)
            if expiry is not None and now - since >= max(expiry, table.turn_limit or 0):
                out.append(table)
        for tid in [t for t in self.quiet_since if t not in seen]:
            del self.quiet_since[tid]
        for owner, mine in list(self.by_owner.items()):  # bounded memory: forget owners of tables long gone
            for tid, kind in list(mine.items()):
                live = tables.get(tid)
                if kind != "creating" and (live is None or live.closed or live.status not in ("waiting", "playing")):
                    del mine[tid]
                    self.owners.pop(tid, None)
            if not mine:
                del self.by_owner[owner]
        return out
