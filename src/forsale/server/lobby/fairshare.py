"""Fair shares of the server between clients: whose table is whose, and how many tables one client may hold.

One client (an account when signed in, else an address: :func:`client_key`)
must not be able to crowd everyone else out by opening many tables. So:

- every table created here remembers its **owner** (in memory only: a table
  brought back after a restart or taken over by another node of a cluster is
  its own owner, and no client's address is written to the database);
- the bot workers share their time per owner first and per table second,
  and work where no person waits (a table of bots only, an analysis) comes
  after work where someone does (:class:`~forsale.server.ops.botrunner.Share`,
  :class:`~forsale.server.ops.botrunner.BotRunner`);
- an owner may have at most :attr:`Limits.open_tables` tables waiting for
  players (``429 too_many_tables``), at most :attr:`Limits.games` games under
  way (``429 too_many_games``: every playing table counts, people only or with
  bots, solo games too: a game whose people went away goes on, the absence
  clock playing for them, so games started without end would fill the
  server's memory), and at most :attr:`Limits.bot_tables` of those with bots
  only (``429 too_many_bot_tables``), so the lobby cannot be flooded and the
  workers not queued up from one client. Every way a table gets there is
  checked, not only creating it: a **join** that starts a game counts against
  the table's owner (:meth:`Shares.starting`; refused with ``429
  too_many_games`` if the owner has the most already: filling one's own
  seats is how the limit was bypassed), and a **leave** that turns a playing
  table into bots only counts against its owner too (:meth:`Shares.left_to_bots`):
  leaving always works, but if the owner already had the most tables of bots
  only, an unrated table is ended there and then (status ``expired``: nobody
  plays it any more; a rated one plays on and counts, since its leaver is
  still rated and ending it would let a loser escape the rating);
- a table nobody has been connected to (socket, seated or watching), and whose
  seats nobody has taken or left, for :attr:`Limits.expiry` seconds is closed
  (:meth:`forsale.server.lobby.lobby.Lobby.expire`, status ``expired``): a waiting
  table (at a table with a long clock, after at least its ``turn_limit``),
  and a playing unrated table with a person's seat and no long clock (its
  people went away; a game over days, where nobody is connected most of the
  time, and a rated game, which its absence clock finishes, are never
  closed); it leaves the lobby and no longer counts against its owner;
- "people before bots" counts a seat as a person only while someone is
  connected to it, or for the grace period after they went (:func:`has_people`):
  a guest who sat down and went away does not put their bots ahead of
  everyone else's.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import Refused
from ..ops.botrunner import Share

if TYPE_CHECKING:
    from ..table.live import LiveTable

OPEN_TABLES = 5
"""Tables one client may have waiting for players at once, unless ``forsale serve --tables-per-client`` says otherwise."""
BOT_TABLES = 3
"""Tables of bots only one client may have playing at once (``forsale serve --bot-tables-per-client``)."""
GAMES = 20
"""Games (people only or with bots, solo games among them) one client may have under way at once (``--games-per-client``)."""
WAITING_EXPIRY = 1800.0
"""Seconds a waiting table with nobody connected stays open (``forsale serve --waiting-expiry``)."""


def client_key(address: str, account: dict[str, Any] | None) -> str:
    """Who a request is, for the shares: the signed-in account, else the client's address (IPv6: its /64, as given)."""
    return f"account:{account['id']}" if account is not None else f"address:{address}"


def has_people(table: LiveTable) -> bool:
    """Someone is seated and here: their table's bots go before bots playing only each other.

    Here: connected, or away for less than the grace period (a page that is loading or reconnecting; a
    table just made, before its creator's page connects). A seat away for longer does not count: a guest
    who sat down at each of their tables of bots and went away would otherwise put all of them ahead of
    everyone else's background work (and the clock plays for them by then anyway).
    """
    now = time.monotonic()
    grace = table.options.grace
    return any(
        seat.kind == "human" and (seat.conns or (seat.away_since is not None and now - seat.away_since < grace))
        for seat in table.seats
    )


def bots_only(table: LiveTable) -> bool:
    """No seat is a person's (taken or open): nobody will ever play at this table."""
    return all(seat.kind == "bot" for seat in table.seats)


def closes_when_quiet(table: LiveTable) -> bool:
    """Whether a table nobody is connected to is closed after the expiry time (see the module docstring)."""
    if table.status == "waiting":
        return True
    return (
        table.status == "playing"
        and not table.turn_limit
        and not table.config.rated
        and any(seat.kind == "human" for seat in table.seats)
    )


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

    def counts(self, tables: dict[str, LiveTable], owner: str, leaving_out: str | None = None) -> tuple[int, int, int]:
        """``owner``'s tables waiting, games under way, and games of bots only (``leaving_out`` not counted).

        Forgets tables that are gone; a table still being created counts as a game (the most it may be).
        """
        mine = self.by_owner.setdefault(owner, {})
        open_now = bots_now = games_now = 0
        for tid, kind in list(mine.items()):
            table = tables.get(tid)
            if tid == leaving_out:
                continue
            if table is None and kind == "creating":
                games_now += 1
                continue
            if table is None or table.closed or table.status not in ("waiting", "playing"):
                del mine[tid]
                self.owners.pop(tid, None)
            elif table.status == "waiting":
                open_now += 1
            else:
                games_now += 1
                bots_now += bots_only(table)
        if not mine:
            self.by_owner.pop(owner, None)
        return open_now, games_now, bots_now

    def _check_games(self, games_now: int, whose: str = "you already have") -> None:
        if self.limits.games is not None and games_now >= self.limits.games:
            raise Refused(
                "too_many_games",
                f"{whose} {games_now} games under way, the most this server allows; "
                "finish one of them first (a game left goes on, the clock playing for absent seats, until it ends)",
                429,
            )

    def claim(
        self, tables: dict[str, LiveTable], owner: str, table_id: str, waiting: bool, bots: int, seats: int
    ) -> None:
        """Count ``table_id`` (about to be created, ``bots`` of its ``seats`` bots) as ``owner``'s, or refuse it
        with ``429``.

        Claimed before the table is stored, so concurrent requests cannot both slip under a limit.
        """
        open_now, games_now, bots_now = self.counts(tables, owner)
        limits = self.limits
        if waiting and limits.open_tables is not None and open_now >= limits.open_tables:
            raise Refused(
                "too_many_tables",
                f"you already have {open_now} tables waiting for players, the most this server allows; "
                "start or leave one of them first (a table nobody is connected to closes on its own)",
                429,
            )
        if bots == seats and limits.bot_tables is not None and bots_now >= limits.bot_tables:
            raise Refused(
                "too_many_bot_tables",
                f"you already have {bots_now} tables of bots only playing, the most this server allows; "
                "wait for one of them to finish",
                429,
            )
        if not waiting:
            self._check_games(games_now)
        self.record(owner, table_id)

    def record(self, owner: str, table_id: str) -> None:
        """Count ``table_id`` (about to be created) as ``owner``'s with no check of the limits (:meth:`claim`'s
        end; a tournament's table, which its round must have: :func:`forsale.server.lobby.seating.seat_entrants`)."""
        self.by_owner.setdefault(owner, {})[table_id] = "creating"
        self.owners[table_id] = owner

    def starting(self, tables: dict[str, LiveTable], table: LiveTable) -> None:
        """A join is about to start ``table``'s game: it counts against its owner's games, or ``429``.

        Called under the table's lock, before the seat is stored: creating a table with its seats open and
        filling them oneself must meet the same limit as creating it full.
        """
        owner = self.owners.get(table.id)
        if owner is not None:
            self._check_games(self.counts(tables, owner, leaving_out=table.id)[1], "this table's creator has")

    def left_to_bots(self, tables: dict[str, LiveTable], table: LiveTable) -> bool:
        """A leave made playing ``table`` one of bots only: whether it must end (its owner has the most already).

        Leaving always works; a rated table plays on (see the module docstring).
        """
        owner = self.owners.get(table.id)
        limit = self.limits.bot_tables
        if owner is None or limit is None or table.config.rated or not bots_only(table):
            return False
        return self.counts(tables, owner, leaving_out=table.id)[2] >= limit

    @contextlib.contextmanager
    def creating(self, table_id: str) -> Iterator[None]:
        """Around storing a claimed table: live if the block ends well, its claim gone if it raises (then
        re-raised), so a failed store cannot leave a claim that counts against its owner for ever."""
        try:
            yield
        except BaseException:
            self.created(table_id, ok=False)
            raise
        self.created(table_id, ok=True)

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
        """Tables nobody has been connected to for the expiry time (:func:`closes_when_quiet`); forgets tables gone."""
        expiry = self.limits.expiry
        now = time.monotonic() if now is None else now
        out: list[LiveTable] = []
        seen: set[str] = set()
        for table in tables.values():
            if table.closed or not closes_when_quiet(table):
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
