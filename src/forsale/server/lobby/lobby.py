"""The lobby: every table the server knows, and how tables are made, listed and brought back.

Live tables stay in memory; finished ones are kept at hand for a while
(people look at results) and otherwise loaded from the database on demand.
At start-up :meth:`Lobby.start` rebuilds every unfinished game from its
event log. :meth:`Lobby.create` checks a new table's rules and seats, deals
from the OS's secret source and stores the game before it goes live.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ...errors import ForSaleError
from ...rules import Ruleset
from ..errors import Refused
from ..names import SOLO_NAME, bot_name, joined_name, open_seat_name, table_name
from ..ops.botrunner import DEFAULT_MAX_TIME, BotRunner, Share, default_bot, validate_spec
from ..people.notices import NoticeBoard
from ..people.turnmail import TurnNotices
from ..store.database import Fence, Op, Storage, StoredGame, StoredSeat
from ..table.config import TableConfig
from ..table.invites import invite_link
from ..table.live import LiveTable
from ..table.newgame import new_game
from ..tokens import new_token
from .fairshare import Limits, Shares, closes_when_quiet

log = logging.getLogger("forsale.server")


@dataclass(frozen=True)
class TableRequest:
    """A table to make, as the lobby takes it: plain values, already checked by the transport that received
    them (over REST, :class:`forsale.server.http.schemas.CreateTable`'s bounds), so that game logic does not
    depend on the wire's schema. ``seats[i]``: ``"human"`` (or None) for a seat people join, else a bot spec."""

    name: str | None = None
    players: int = 4
    rules: str | dict[str, Any] | None = None  # a preset's name or knobs (forsale.rules.Ruleset.parse)
    seats: list[str | None] | None = None
    time_limit: float | None = None
    turn_limit: float | None = None
    memory_aid: bool = True
    hints: bool = False
    private: bool = False
    invite_only: bool = False
    spectator_chat: bool = False
    join: bool = False
    player_name: str | None = None
    rated: bool = False
    bot_delay: float | None = None

    def config(self, rules: Ruleset, creator_account: str | None) -> dict[str, Any]:
        """The table's settings as the game stores them (:meth:`TableConfig.stored`)."""
        return TableConfig(
            rules=rules.to_json(),
            time_limit=self.time_limit,
            turn_limit=self.turn_limit,
            memory_aid=self.memory_aid,
            hints=self.hints,
            private=self.private or self.invite_only,  # unlisted (an invitation-only table is too)
            spectator_chat=self.spectator_chat,
            rated=self.rated,
            creator_account=creator_account,
            bot_delay=self.bot_delay,
        ).stored()


@dataclass(frozen=True)
class SoloRequest:
    """A solo game to make: one person at seat 0 against ``bots`` (one spec per other seat) or ``bot`` in every one."""

    name: str | None = None
    players: int = 4
    bot: str | None = None
    bots: list[str] | None = None
    rules: str | dict[str, Any] | None = None
    time_limit: float | None = None
    memory_aid: bool = True
    hints: bool = False
    player_name: str | None = None
    rated: bool = False
    bot_delay: float | None = None


@dataclass
class Options:
    """Server-wide settings for tables (see :func:`forsale.server.app.create_app`)."""

    grace: float = 60.0
    bot_delay: float = 0.0
    bot_budget: float | None = None
    fallback_bot: str | None = None
    max_bot_time: float = DEFAULT_MAX_TIME
    research_bots: bool = False  # seat research bots too (forsale.bots.registry.research_bot)
    rematch_timeout: float = 300.0  # seconds a rematch offer waits for every seat (forsale.server.table.rematch)
    limits: Limits = field(default_factory=Limits)  # tables per client, expiry (forsale.server.lobby.fairshare)


def both(first: Op[Any], then: Op[Any] | None) -> Op[Any]:
    """One transaction running ``first``, then ``then`` if given; ``first``'s result."""
    if then is None:
        return first

    def fn(conn: Any) -> Any:
        out = first(conn)
        then(conn)
        return out

    return fn


class Lobby:
    """Every table this server knows: live ones in memory, finished ones loaded on demand."""

    def __init__(self, storage: Storage, runner: BotRunner, options: Options, turns: TurnNotices | None = None) -> None:
        self.storage = storage
        self.runner = runner
        self.options = options
        self.turns = turns or TurnNotices(storage)  # "your turn" emails, when the server has a mailer
        self.tables: dict[str, LiveTable] = {}
        self._finished: OrderedDict[str, LiveTable] = OrderedDict()
        self.shares = Shares(options.limits)  # whose table is whose (forsale.server.lobby.fairshare)
        self.notices = NoticeBoard(storage)  # what accounts are told, e.g. seated (forsale.server.lobby.seating)
        self._expiring: asyncio.Task[None] | None = None

    def share_of(self, table: LiveTable) -> Share:
        """Whose turn at the bot workers ``table``'s decisions are (:mod:`forsale.server.lobby.fairshare`)."""
        return self.shares.share(table)

    def start_expiry(self) -> None:
        """Start closing abandoned tables (once; :meth:`expire`)."""
        if self._expiring is None and self.options.limits.expiry is not None:
            self._expiring = asyncio.get_running_loop().create_task(self._expire_abandoned())

    async def _expire_abandoned(self) -> None:
        expiry = self.options.limits.expiry
        assert expiry is not None
        every = min(60.0, max(0.05, expiry / 4))  # a table goes between expiry and expiry + every seconds
        while True:
            await asyncio.sleep(every)
            for table in self.shares.abandoned(self.tables):
                try:
                    await self.expire(table)
                except Exception:  # one table's failure must not stop the sweeping
                    log.exception("table %s could not be expired", table.id)

    async def expire(self, table: LiveTable, bots_over_limit: bool = False) -> bool:
        """Close a table for good (status ``expired``): it leaves the lobby, and its game is not played on.

        A table nobody is connected to that :func:`~forsale.server.lobby.fairshare.closes_when_quiet` (waiting, or
        a casual game its people left); or, ``bots_over_limit``, a casual table a leave turned into bots only
        while its owner had the most tables of bots only already (:meth:`Shares.left_to_bots`).
        """
        async with table.lock:
            if table.closed:
                return False
            if bots_over_limit:
                if table.status != "playing" or not self.shares.left_to_bots(self.tables, table):
                    return False
            elif not closes_when_quiet(table) or table.connections():
                return False
            try:
                await table.write(Storage.op_update_game(table.id, status="expired"))
            except Refused:  # it moved to another node of the cluster
                return False
            table.status = "expired"
            table.close()
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        self.shares.quiet_since.pop(table.id, None)
        self.expired(table)
        why = "a leave made it bots only past its owner's limit" if bots_over_limit else "nobody was connected"
        log.info("table %s expired: %s", table.id, why)
        return True

    def expired(self, table: LiveTable) -> None:
        """A table was closed for good (a cluster lets its lease go)."""

    def fallback_bot(self) -> str:
        return self.options.fallback_bot or default_bot()

    # -- what a cluster's lobby (forsale.server.lobby.cluster.ClusterLobby) does differently; here, nothing
    def fence_of(self, table_id: str) -> Fence | None:
        """The lease a table's writes need (None: one server, nothing to fence)."""
        return None

    async def store_new(self, game: StoredGame, also: Op[Any] | None = None) -> None:
        """Store a new game before it goes live (and run ``also`` in the same transaction)."""
        await self.storage.run(both(Storage.op_create_game(game), also))

    def changed(self, table: LiveTable) -> None:
        """A table's lobby entry changed (seats, spectators, status): a waiting table's quiet time starts again."""
        self.shares.quiet_since.pop(table.id, None)

    def lost(self, table: LiveTable) -> None:
        """A write found the table's lease taken: it lives on another server now."""

    async def start(self) -> int:
        """Resume every unfinished game from the database; returns how many."""
        stored = await self.storage.run(Storage.op_load_unfinished())
        stored = [game for game in stored if game.status != "expired"]
        for game in stored:
            try:
                table = LiveTable(game, self)
            except Exception:  # a damaged game must not keep the others from resuming
                log.exception("table %s could not be rebuilt from its event log; it stays offline", game.id)
                continue
            self.tables[table.id] = table
            if table.status == "playing":
                table.scheduler.schedule()
        if stored:
            log.info("resumed %d unfinished tables", len(stored))
        self.start_expiry()
        return len(stored)

    def close(self) -> None:
        if self._expiring is not None:
            self._expiring.cancel()
        for table in list(self.tables.values()) + list(self._finished.values()):
            table.close()

    def finished(self, table: LiveTable) -> None:
        """A game ended: keep it live while people look at it; it is reloaded from the database later."""
        self._finished[table.id] = table
        while len(self._finished) > 200:
            old_id, old = self._finished.popitem(last=False)
            if not old.connections():
                self.tables.pop(old_id, None)

    def forget(self, table: LiveTable) -> None:
        """Drop a finished table nobody watches, unless it is among the recent ones kept at hand."""
        if table.id not in self._finished:
            self.tables.pop(table.id, None)

    async def get(self, table_id: str) -> LiveTable | None:
        table = self.tables.get(table_id)
        if table is not None:
            return table
        if len(table_id) > 32:
            return None
        stored = await self.storage.run(Storage.op_load(table_id))
        if stored is None or stored.status == "expired":  # an abandoned waiting table, closed for good
            return None
        table = self.tables.get(table_id)  # loaded meanwhile by another request
        if table is None:
            table = LiveTable(stored, self)
            self.tables[table_id] = table
            if table.status == "over":
                self.finished(table)
        return table

    def listing(self) -> list[dict[str, Any]]:
        return [t.info() for t in self.tables.values() if t.status != "over" and not t.private]

    async def finished_games(self, limit: int) -> list[dict[str, Any]]:
        rows = await self.storage.run(Storage.op_list_finished(limit))
        return [
            {
                "id": r["id"],
                "name": r["name"],
                "players": r["players"],
                "names": r["names"],
                "bots": r["bots"],  # each seat's bot spec at the end, or null: the page names bots in its language
                "open": r["open"],
                "rules": r["config"].get("rules"),
                "finished_at": r["finished_at"],
                **(r["result"] or {}),
                "record": f"/api/tables/{r['id']}/record",
            }
            for r in rows
        ]

    async def create(
        self, body: TableRequest, owner: str | None = None, account_id: str | None = None
    ) -> dict[str, Any]:
        """Create a table (see ``POST /api/tables``); the creator gets a token to manage it.

        ``owner``: the creating client (:func:`forsale.server.lobby.fairshare.client_key`), whose tables are counted
        against the limits and whose bots share the workers as one (``None``: the table is its own owner).
        ``account_id``: the signed-in creator, whose seat (``join``) is theirs from the moment it is stored, so
        no join of theirs can slip in before it is linked (:func:`~forsale.server.table.seats.check_one_seat`).
        """
        n = body.players
        try:
            rules = Ruleset.parse(body.rules, n)
        except ForSaleError as error:
            raise Refused("bad_rules", str(error)) from None
        if body.turn_limit is not None and body.time_limit is not None:
            raise Refused("bad_clock", "choose one clock: time_limit (seconds, played live) or turn_limit (over days)")
        specs = list(body.seats) if body.seats is not None else [None] * n
        if len(specs) != n:
            raise Refused("bad_seats", f"seats lists {len(specs)} entries for a table of {n}")
        for i, spec in enumerate(specs):
            if spec is not None and spec != "human":
                try:
                    validate_spec(spec, self.options.max_bot_time, rules, research_bots=self.options.research_bots)
                except ValueError as error:
                    raise Refused("bad_bot", f"seat {i}: {error}") from None
        humans = [i for i, spec in enumerate(specs) if spec in (None, "human")]
        if body.join and not humans:
            raise Refused("bad_seats", "join asks for a seat, but every seat is a bot")
        creator_token, creator_hash = new_token()
        seat_token: str | None = None
        seats: list[StoredSeat] = []
        for i, spec in enumerate(specs):
            if spec not in (None, "human"):
                seats.append(StoredSeat(i, "bot", bot_name(spec), spec, None))
            elif body.join and i == humans[0]:
                seat_token, seat_hash = new_token()
                seats.append(StoredSeat(i, "human", body.player_name or joined_name(i), None, seat_hash, account_id))
            else:
                seats.append(StoredSeat(i, "open", open_seat_name(i), None, None))
        status = "playing" if all(s.kind != "open" for s in seats) else "waiting"
        name = body.name or table_name(n)
        game = new_game(
            secrets.token_urlsafe(6), name, rules, body.config(rules, account_id), seats, creator_hash, status=status
        )
        if body.invite_only:
            invite, game.invite_hash = new_token()  # the code is shared in the invitation link; we keep its hash
        if owner is not None:  # refused here, before anything is stored, if the owner holds too many already
            bots = sum(1 for s in seats if s.kind == "bot")
            self.shares.claim(self.tables, owner, game.id, game.status == "waiting", bots, len(seats))
        with self.shares.creating(game.id):
            table = await self.add(game)
        if owner is not None:
            table.owner = owner  # kept after the game, for a rematch (forsale.server.table.rematch)
        self.start_expiry()
        out: dict[str, Any] = {"table": table.info(), "creator_token": creator_token}
        if seat_token is not None:
            out.update(seat=humans[0], token=seat_token)
        if body.invite_only:
            out.update(invite=invite, invite_link=invite_link(table.id, invite))
        return out

    async def add(self, game: StoredGame, also: Op[Any] | None = None) -> LiveTable:
        """Store a new game and put it live (a created table, or a rematch: :mod:`forsale.server.table.rematch`).

        ``also``: more to write in the game's own transaction, so that neither is stored without the other (the
        notices telling accounts they are seated there: :mod:`forsale.server.lobby.seating`).
        """
        await self.store_new(game, also)
        table = LiveTable(game, self)
        self.tables[table.id] = table
        if table.status == "playing":
            table.scheduler.schedule()
        return table

    async def solo(self, body: SoloRequest, owner: str | None = None, account_id: str | None = None) -> dict[str, Any]:
        """One person at seat 0, bots everywhere else, the game under way at once."""
        n = body.players
        if body.bots is not None:
            if len(body.bots) != n - 1:
                raise Refused("bad_seats", f"bots lists {len(body.bots)} bots; a table of {n} needs {n - 1}")
            bots: list[str | None] = list(body.bots)
        else:
            bots = [body.bot or default_bot()] * (n - 1)
        return await self.create(
            TableRequest(
                name=body.name or SOLO_NAME,
                players=n,
                rules=body.rules,
                seats=[None, *bots],
                time_limit=body.time_limit,
                memory_aid=body.memory_aid,
                hints=body.hints,
                private=True,
                join=True,
                player_name=body.player_name,
                rated=body.rated,
                bot_delay=body.bot_delay,
            ),
            owner,
            account_id,
        )
