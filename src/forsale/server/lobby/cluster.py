"""A node of a cluster of game servers sharing one PostgreSQL database (``forsale serve --cluster``).

Each live table is owned by one node at a time, through its lease
(:mod:`forsale.server.store.leases`); every write of the table is fenced by that
lease (:func:`forsale.server.store.database.fenced`), so a node that lost a table
without noticing cannot change it. :class:`ClusterLobby` is the lobby of one
node:

- **Routing.** The load balancer sends every request for a table to one node
  (HAProxy hashes the table id; see ``docs/deploy.md``). The node that gets a
  request for a table it does not own takes the table: at once if its lease
  is free or expired, else it asks the owner to hand it over (``LISTEN/NOTIFY``)
  and takes it when released. Nodes therefore never need to know the load
  balancer's hash ring: tables follow the requests.
- **Failover.** Every node sweeps for *orphans* (unfinished games whose lease
  expired: their owner died or was cut off) at each heartbeat and takes its share; a table is
  rebuilt from its event log exactly as after a restart, and its clocks and
  bots resume. A node stopped cleanly releases its leases first. A node that
  dies does not wait for its leases to run out: its liveness lock goes with
  its database connection, the others see it within a second (:meth:`ClusterLobby._watch`),
  end its leases and sweep at once (:mod:`forsale.server.store.leases` says why the fencing still holds).
- **Lobby.** Open tables live on many nodes: each owner publishes its public
  tables' lobby entries with ``NOTIFY``, every node keeps the others' entries;
  players online come from the nodes' heartbeat rows; finished games from
  the database, as on one server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import random
import re
import time
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import Refused
from ..ops.botrunner import BotRunner
from ..people.turnmail import TurnNotices
from ..store import leases
from ..store.cluster import CHANNEL, LockWaitEnded, NodeEngine, libpq_url, op_claim, op_create_leased, op_notify
from ..store.database import Fence, Op, Storage, StoredGame
from ..store.outage import Unavailable, is_outage
from ..table.config import TableConfig
from ..table.live import LiveTable
from ..table.seats import ENDED_BY, end_seat_tokens, tell
from .lobby import Lobby, Options, both

log = logging.getLogger("forsale.server")

T = TypeVar("T")

WATCH_EVERY = 0.25  # seconds between two looks at the other nodes' liveness locks
WATCH_GRACE = 0.5
"""Seconds an owner's lock, and its heartbeat, must stay still before its leases are ended.

A node whose notice connection breaks beats at once, reconnects at once
(tens of milliseconds) and, until it holds its lock again, beats at every
look (:data:`WATCH_EVERY`); so a live node's heartbeat is never older than a
quarter second plus a round trip while its lock is missing, two beats within
the grace. A dead node's tables move well within the 2 s target: a look
within 0.25 s, this grace, then the sweep, the rebuild and the bots' delay
(about 1.1 s in all, ``docs/benchmarks.md``). A grace too short for a live
node costs it its tables (they move, as for a dead one), never the fencing.
"""
WATCH_SETTLE = 3.0  # seconds after (re)connecting before this node judges others (they reconnect too)
NODE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
MAX_NOTICE = 7900  # PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more


@dataclass(frozen=True)
class ClusterConfig:
    """One node's part in a cluster: its name (unique in the cluster) and the lease time.

    ``lease_ttl``: seconds a lease lasts without renewal, so about how long a
    dead node's tables wait before another node takes them. Leases are renewed,
    and orphans looked for, every third of it.
    """

    node: str
    lease_ttl: float = 10.0

    def __post_init__(self) -> None:
        if not NODE_NAME.match(self.node):
            raise ValueError(f"a node name is 1-64 letters, digits, '.', '_' or '-', not {self.node!r}")
        if not (0.2 <= self.lease_ttl <= 3600):
            raise ValueError(f"the lease time must be 0.2 to 3,600 seconds, not {self.lease_ttl!r}")


def people_online(lobby: Lobby) -> int:
    """People connected to a seat at a lobby's tables (a node's, or a single server's)."""
    return sum(1 for t in lobby.tables.values() for s in t.seats if s.kind == "human" and s.conns)


class ClusterLobby(Lobby):
    """The lobby of one node of a cluster (see the module docstring)."""

    def __init__(
        self, storage: Storage, runner: BotRunner, options: Options, turns: TurnNotices | None, config: ClusterConfig
    ) -> None:
        super().__init__(storage, runner, options, turns)
        self.config = config
        self.node = config.node
        self.owner = leases.incarnation(config.node)
        self.listen_url = libpq_url(storage.url)
        self.database = NodeEngine(storage, config.lease_ttl, config.node)
        self.held: dict[str, int] = {}  # game id -> epoch of the leases this node holds
        self.remote: dict[str, dict[str, Any]] = {}  # game id -> {"node", "info"} of public tables elsewhere
        self.healthy = False
        self.draining = False
        self.takeovers = 0  # tables this node took whose lease another node had held
        self.leases_lost = 0  # tables it lost without releasing them (forsale.server.metrics)
        self._taking: dict[str, asyncio.Task[LiveTable | None]] = {}
        self._released: dict[str, asyncio.Event] = {}
        self._dirty: set[str] = set()
        self._gone: set[str] = set()
        self._tasks: list[asyncio.Task[Any]] = []
        self._chores: set[asyncio.Task[Any]] = set()
        self._listening = asyncio.Event()
        self._locked = False  # whether the notice connection holds this node's liveness lock
        self._relisten = asyncio.Event()  # set: the notice connection is dead though it has not said so
        self._live_since = math.inf  # when this node last took its liveness lock (monotonic)
        self._last_renewed = time.monotonic()
        self._live_nodes: list[dict[str, Any]] = []

    # -- the database, off the event loop -----------------------------------------
    async def _db(self, fn: Op[T]) -> T:
        """One transaction on the node's own engine (:class:`~forsale.server.store.cluster.NodeEngine`)."""
        return await self.database.call(fn)

    async def _notify(self, *notices: dict[str, Any]) -> None:
        payloads = [json.dumps(n, separators=(",", ":")) for n in notices]
        payloads = [p for p in payloads if len(p.encode()) < MAX_NOTICE]
        if payloads:
            await self._db(op_notify(payloads))

    def _chore(self, coro: Any) -> None:
        """Run ``coro`` in the background (kept referenced; its failure is logged)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._chores.add(task)
        task.add_done_callback(self._chore_done)

    def _chore_done(self, task: asyncio.Task[Any]) -> None:
        self._chores.discard(task)
        if not task.cancelled() and task.exception() is not None:
            if isinstance(task.exception(), Unavailable):
                return  # the outage is logged once (forsale.server.store.outage); the lease runs out on its own
            log.error("cluster node %s: a background task failed", self.node, exc_info=task.exception())

    # -- the Lobby's hooks ----------------------------------------------------------
    def fence_of(self, table_id: str) -> Fence:
        """This node's lease of the table; a table it holds no lease of gets a fence that never matches."""
        return (self.owner, self.held.get(table_id, -1))

    async def store_new(self, game: StoredGame, also: Op[Any] | None = None) -> None:
        """Store a new game and take its lease in one transaction (with ``also``): no node can adopt it in between."""
        created = op_create_leased(game, self.owner, self.node, self.config.lease_ttl)
        epoch = await self.storage.run(both(created, also))
        assert epoch is not None  # a new id has no lease yet
        self.held[game.id] = epoch
        if not TableConfig.of(game.config).private:
            self._dirty.add(game.id)  # published once it is live (see _flush)

    def changed(self, table: LiveTable) -> None:
        super().changed(table)
        if not table.private and table.id in self.held:
            self._dirty.add(table.id)

    def lost(self, table: LiveTable) -> None:
        self.leases_lost += 1
        log.warning("cluster node %s: table %s was taken by another node; letting it go", self.node, table.id)
        self._chore(self._let_go(table, release=False))

    def finished(self, table: LiveTable) -> None:
        super().finished(table)
        epoch = self.held.pop(table.id, None)
        if epoch is not None:
            if not table.private:
                self._gone.add(table.id)
            self._chore(self._db(lambda conn: leases.drop(conn, table.id, self.owner, epoch)))

    def expired(self, table: LiveTable) -> None:
        """An abandoned waiting table was closed: its lease goes, and the other nodes stop listing it."""
        epoch = self.held.pop(table.id, None)
        self._dirty.discard(table.id)
        if not table.private:
            self._gone.add(table.id)
        if epoch is not None:
            self._chore(self._db(lambda conn: leases.drop(conn, table.id, self.owner, epoch)))

    def listing(self) -> list[dict[str, Any]]:
        here = super().listing()
        mine = {t["id"] for t in here}
        return here + [r["info"] for gid, r in self.remote.items() if gid not in mine and gid not in self.tables]

    async def get(self, table_id: str) -> LiveTable | None:
        """The table, taking it over first if another node (or nobody) holds it (see the module docstring)."""
        table = self.tables.get(table_id)
        if table is not None and not table.closed:
            return table
        if len(table_id) > 32:
            return None
        if self.draining:
            raise Refused("busy", "this server is stopping; connect again", 503)
        return await self._take(table_id, wait=True)

    async def _take(self, table_id: str, wait: bool) -> LiveTable | None:
        """One taking per table at a time: every request for it waits for the same one."""
        task = self._taking.get(table_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._taking_over(table_id, wait))
            self._taking[table_id] = task
            task.add_done_callback(lambda _: self._taking.pop(table_id, None))
        return await asyncio.shield(task)

    async def _taking_over(self, table_id: str, wait: bool) -> LiveTable | None:
        ttl = self.config.lease_ttl
        deadline = time.monotonic() + 2 * ttl + 5
        asked = -math.inf
        released = self._released.setdefault(table_id, asyncio.Event())
        try:
            while True:
                try:
                    state, epoch = await self._db(op_claim(table_id, self.owner, self.node, ttl))
                except LockWaitEnded as error:  # its row stayed locked past lock_timeout: try again
                    log.warning("cluster node %s: taking table %s: %s", self.node, table_id, error)
                    state, epoch = "playing", None
                if state is None or state == "expired":  # expired: closed for good (Lobby.expire)
                    return None
                if state == "over":
                    return await super().get(table_id)  # read-only: a finished game needs no lease
                if epoch is not None:
                    return await self._adopt(table_id, epoch)
                if not wait or time.monotonic() > deadline:
                    if wait:
                        raise Refused("busy", "this table is moving between servers; try again", 503)
                    return None
                if time.monotonic() - asked > 1.0:
                    asked = time.monotonic()
                    await self._notify({"t": "handover", "id": table_id, "to": self.node})
                released.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(released.wait(), 0.25)
        finally:
            self._released.pop(table_id, None)

    async def _adopt(self, table_id: str, epoch: int) -> LiveTable | None:
        """Rebuild a table whose lease this node just took from its event log, as after a restart."""
        self.held[table_id] = epoch
        if epoch > 1:
            self.takeovers += 1
        stored = await self.storage.run(Storage.op_load(table_id))
        if stored is None or stored.status == "over":
            self.held.pop(table_id, None)
            return await super().get(table_id)
        try:
            table = LiveTable(stored, self)
        except Exception:
            log.exception("table %s could not be rebuilt from its event log; it stays offline", table_id)
            self.held.pop(table_id, None)  # its lease runs out: no node keeps a table it cannot serve
            return None
        self.tables[table_id] = table
        self.remote.pop(table_id, None)
        if table.status == "playing":
            table.scheduler.schedule()
        self.changed(table)
        log.info("cluster node %s: took table %s (epoch %d)", self.node, table_id, epoch)
        return table

    async def _let_go(self, table: LiveTable, release: bool) -> None:
        """Close this node's copy of a table; with ``release``, give its lease up so another node takes it now."""
        async with table.lock:  # no action of it is in flight past this point
            if table.closed:
                return
            table.close()
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        epoch = self.held.pop(table.id, None)
        self._dirty.discard(table.id)
        if not table.private:
            self._gone.add(table.id)
        if release and epoch is not None:
            await self._db(lambda conn: leases.release(conn, table.id, self.owner, epoch))
            await self._notify({"t": "released", "id": table.id, "node": self.node})

    # -- start, background work, stop ---------------------------------------------------
    async def start(self) -> int:
        """Join the cluster: listen, beat, adopt the orphans (a restart's unfinished games among them)."""
        self._tasks = [asyncio.create_task(self._listen())]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._listening.wait(), 30)
        await self._renew()
        adopted = await self._sweep()
        self._tasks += [asyncio.create_task(self._heartbeat()), asyncio.create_task(self._publisher())]
        self._tasks.append(asyncio.create_task(self._watch()))
        self.healthy = True
        self.start_expiry()
        log.info("cluster node %s (%s) started: %d tables taken", self.node, self.owner, adopted)
        return adopted

    async def stop(self) -> None:
        """A clean stop: release every lease (the other nodes take the tables at once), then leave."""
        self.draining = True
        self.healthy = False
        for task in self._tasks[1:]:
            task.cancel()
        tables = [t for t in self.tables.values() if t.id in self.held]
        await asyncio.gather(*(self._let_go(t, release=True) for t in tables), return_exceptions=True)
        await self._flush()
        self._tasks[0].cancel()
        for task in list(self._chores):
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5)
        await self.database.close()
        log.info("cluster node %s stopped: %d tables released", self.node, len(tables))

    async def _listen(self) -> None:
        """Receive the other nodes' notices, holding this node's liveness lock; reconnect at once after a break.

        The other nodes end this node's leases once its lock and its heartbeat
        stayed missing for :data:`WATCH_GRACE`, so a break (an idle timeout, a
        firewall, a terminated backend) is mended without waiting, and while
        the lock is not held :meth:`_watch` keeps the heartbeat moving. After
        the reconnection the node asks for the lobby again (``hello``).
        """
        import psycopg  # the server extra's PostgreSQL driver (a cluster runs on PostgreSQL only)

        failures = 0
        while True:
            conn = None
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.listen_url, autocommit=True, application_name=f"forsale-notice {self.node}"[:63]
                )
                await conn.execute(f"LISTEN {CHANNEL}")
                await self._take_liveness(conn)
                failures = 0
                self._relisten.clear()
                self._live_since = time.monotonic()
                self._listening.set()
                await self._notify({"t": "hello", "node": self.node})
                reader = asyncio.create_task(self._read_notices(conn))
                dead = asyncio.create_task(self._relisten.wait())
                try:
                    await asyncio.wait({reader, dead}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    dead.cancel()
                    reader.cancel()
                    await asyncio.wait({reader, dead})
                broke = None if reader.cancelled() else reader.exception()
                if isinstance(broke, Exception):
                    raise broke
                raise ConnectionError("its liveness lock is no longer held (the connection broke unnoticed)")
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._listening.clear()
                self._locked = False
                failures += 1
                if isinstance(error, Unavailable) or is_outage(error):
                    self.storage.outage.failed(error)  # one line per outage, not one a second
                elif failures == 1:
                    log.warning("cluster node %s: the notice connection broke (%s); reconnecting", self.node, error)
                    self._chore(self._beat())  # alive, though without its lock (see WATCH_GRACE)
                await asyncio.sleep(0 if failures == 1 else min(1.0, 0.1 * failures))
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()

    async def _take_liveness(self, conn: Any) -> None:
        """Take this node's liveness lock on the notice connection, waiting (and logging once) while it is held.

        Only a session of this node's own can hold it: an earlier notice
        connection whose break the server has not noticed yet. That session is
        ended (:func:`forsale.server.store.leases.stale_holder`) and the lock taken again.
        """
        logged = False
        while True:
            row = await (await conn.execute(leases.liveness_lock(self.owner))).fetchone()
            if row is not None and row[0]:
                self._locked = True
                if logged:
                    log.info("cluster node %s: holds its liveness lock again", self.node)
                return
            if not logged:
                log.warning(
                    "cluster node %s: its liveness lock is still held by a broken connection; ending it", self.node
                )
                logged = True
            with contextlib.suppress(Exception):
                await conn.execute(leases.stale_holder(self.owner))
            await asyncio.sleep(0.1)

    async def _read_notices(self, conn: Any) -> None:
        async for notice in conn.notifies():
            with contextlib.suppress(ValueError, KeyError, TypeError):
                self._on_notice(json.loads(notice.payload))
        raise ConnectionError("the notice connection closed")

    def _on_notice(self, notice: dict[str, Any]) -> None:
        kind, node = notice["t"], notice.get("node")
        if kind == "hello" and node != self.node:
            self._dirty.update(t.id for t in self.tables.values() if t.id in self.held and not t.private)
        elif kind == "info" and node != self.node and notice["id"] not in self.tables:
            self.remote[notice["id"]] = {"node": node, "info": notice["info"]}
        elif kind == "gone":
            if self.remote.get(notice["id"], {}).get("node") == node:
                del self.remote[notice["id"]]
        elif kind == "handover" and notice.get("to") != self.node:
            table = self.tables.get(notice["id"])
            if table is not None and table.id in self.held and not self.draining:
                self._chore(self._let_go(table, release=True))
        elif kind == "dead" and node != self.node and not self.draining:  # a node found gone by another
            self._chore(self._sweep({str(notice["dead"])}))
        elif kind == "tokens" and node != self.node and not self.draining:  # an account's credentials ended
            self._chore(self._end_tokens(str(notice["account"]), str(notice["why"])))
        elif kind == "notice":  # notices posted for these accounts (forsale.server.store.notices): readers look
            self.notices.wake(str(account) for account in notice["accounts"])
        elif kind == "released":
            waiting = self._released.get(notice["id"])
            if waiting is not None:
                waiting.set()

    async def end_tokens_elsewhere(self, account_id: str, why: str) -> None:
        """Have every other node end ``account_id``'s seat and creator tokens at the tables it holds.

        A password change, a sign-out everywhere or an API token's revocation is handled by one node, which ends
        the tokens at its own tables (:func:`forsale.server.table.seats.end_seat_tokens`); the account's other
        tables live on the other nodes, in their memory. ``why``: ``password_changed``, ``signed_out`` or
        ``token_revoked`` (a bot's API token), what their sockets are told (:data:`~forsale.server.table.seats.ENDED_BY`).
        """
        await self._notify({"t": "tokens", "node": self.node, "account": account_id, "why": why})

    async def _end_tokens(self, account_id: str, why: str) -> None:
        mine = [t for t in self.tables.values() if t.id in self.held]
        unseated = await end_seat_tokens(mine, account_id)
        if unseated and why in ENDED_BY:
            await tell(unseated, ENDED_BY[why])

    async def _heartbeat(self) -> None:
        """Every third of a lease: renew this node's leases, then look for orphans to take."""
        period = self.config.lease_ttl / 3
        while True:
            await asyncio.sleep(period * random.uniform(0.9, 1.0))
            await self._renew()
            try:
                await self._sweep()
            except Unavailable:
                pass  # logged once per outage
            except Exception as error:
                log.warning("cluster node %s: looking for orphaned tables failed: %s", self.node, error)

    async def _renew(self) -> None:
        """Renew this node's leases; let go of any it no longer holds (it was paused, or cut off, too long)."""
        held = dict(self.held)  # before the renewal: a lease taken meanwhile is not among these
        started = time.monotonic()
        ttl = self.config.lease_ttl
        try:
            renewed = await self._db(lambda conn: leases.renew(conn, self.owner, ttl))
            await self._beat()
        except Exception as error:
            if not isinstance(error, Unavailable):  # an outage is logged once (forsale.server.store.outage)
                log.warning("cluster node %s: renewing its leases failed: %s", self.node, error)
            if time.monotonic() - self._last_renewed > ttl:
                self.healthy = False
                for table in [t for t in self.tables.values() if t.id in self.held]:
                    self.leases_lost += 1
                    self._chore(self._let_go(table, release=False))
            return
        self._last_renewed = started
        self.healthy = not self.draining
        for table_id, epoch in held.items():
            if renewed.get(table_id) != epoch and self.held.get(table_id) == epoch:
                gone = self.tables.get(table_id)
                if gone is None:
                    self.held.pop(table_id, None)
                else:
                    log.warning("cluster node %s: lost the lease of table %s", self.node, table_id)
                    self.leases_lost += 1
                    self._chore(self._let_go(gone, release=False))

    async def _watch(self) -> None:
        """End the leases of a node that is gone (its liveness lock went with its connection), then sweep.

        Only an owner this node has *seen* holding its lock counts (a node of
        an older release holds none and waits for expiry, as before), and only
        once its lock stayed missing, and its heartbeat still, for :data:`WATCH_GRACE`
        (a live node without its lock beats: see below); while this node's
        own notice connection is down, or just back (after a database restart
        every node reconnects), it judges nobody.

        The same look checks this node's own lock. While it is not held, the
        node beats at every look, which keeps the others from judging it gone
        while its notice connection is being mended. A notice connection can
        also break without a word (a half-open TCP connection): then the
        server has dropped the lock while the node still waits for notices, and
        only the look at ``pg_locks`` tells; the node then reconnects.
        """
        seen: set[str] = set()
        missing: dict[str, float] = {}
        while True:
            await asyncio.sleep(WATCH_EVERY)
            if self.draining:
                missing.clear()
                continue
            began = time.monotonic()
            judging = self._listening.is_set() and began - self._live_since >= WATCH_SETTLE
            checking = self._locked and began - self._live_since > 1.0
            if not judging:
                missing.clear()
            try:
                if not self._locked:
                    await self._beat()
                if not (judging or checking):
                    continue
                mine, owners = await self._db(lambda conn, j=judging: leases.look(conn, self.owner, j))  # type: ignore[misc]
                if checking and not mine and self._locked:
                    self._locked = False
                    self._relisten.set()
                    await self._beat()
                if not judging:
                    continue
                now, gone = time.monotonic(), set()
                for owner, (node, alive, age) in owners.items():
                    if owner == self.owner:
                        continue
                    if alive:
                        seen.add(owner)
                        missing.pop(owner, None)
                    elif (
                        owner in seen
                        and now - missing.setdefault(owner, now) >= WATCH_GRACE
                        and (age is None or age >= WATCH_GRACE)  # a live node beats while it has no lock
                    ):
                        ended = await self._db(lambda conn, o=owner: leases.expire(conn, o))  # type: ignore[misc]
                        log.info(
                            "cluster node %s: node %s (%s) is gone (its database connection closed): "
                            "ended its %d leases", self.node, node, owner, ended,
                        )  # fmt: skip
                        seen.discard(owner)
                        missing.pop(owner, None)
                        gone.add(node)
                seen &= set(owners)
                missing = {o: t for o, t in missing.items() if o in owners}
                if gone:  # the others sweep too (they no longer see the owner: its leases are expired)
                    await self._notify(*({"t": "dead", "node": self.node, "dead": n} for n in gone))
                    await self._sweep(gone)
            except Unavailable:
                pass  # logged once per outage
            except Exception as error:
                log.warning("cluster node %s: watching the other nodes failed: %s", self.node, error)
                await asyncio.sleep(1.0)

    async def _beat(self) -> None:
        """This node's heartbeat row: alive, with its tables and players (:func:`~forsale.server.store.leases.beat`)."""
        await self._db(lambda conn: leases.beat(conn, self.node, self.owner, len(self.held), people_online(self)))

    async def _sweep(self, gone: set[str] | None = None) -> int:
        """Take this node's share of the orphaned tables (expired leases); returns how many it took.

        ``gone``: nodes known to be dead though their heartbeat is recent (they do not count in the shares).
        """
        ttl = self.config.lease_ttl
        found = await self._db(lambda conn: leases.orphans(conn, time.time() - ttl))
        self._live_nodes = await self._db(lambda conn: leases.live_nodes(conn, ttl))
        names = {n["name"] for n in self._live_nodes} - (gone or set())
        self.remote = {g: r for g, r in self.remote.items() if r["node"] in names}
        if not found or self.draining:
            return 0
        random.shuffle(found)  # the nodes sweeping at once mostly try different tables first
        share = math.ceil(len(found) / max(1, len(names)))
        taken = 0
        found = [t for t in found if t not in self.tables]
        while found and taken < share:  # several at once; a table another node took first is passed over
            batch, found = found[: share - taken], found[share - taken :]
            tables = await asyncio.gather(*(self._take(t, wait=False) for t in batch), return_exceptions=True)
            taken += sum(1 for t in tables if isinstance(t, LiveTable))
        return taken

    async def _publisher(self) -> None:
        """Tell the other nodes about this node's public tables that changed, a few times a second at most."""
        while True:
            await asyncio.sleep(0.2)
            with contextlib.suppress(Exception):
                await self._flush()

    async def _flush(self) -> None:
        notices: list[dict[str, Any]] = [{"t": "gone", "id": g, "node": self.node} for g in self._gone]
        self._gone.clear()
        dirty, self._dirty = self._dirty, set()
        for table_id in dirty:
            table = self.tables.get(table_id)
            if table is not None and table_id in self.held and not table.private and table.status != "over":
                notices.append({"t": "info", "id": table_id, "node": self.node, "info": table.info()})
        await self._notify(*notices)

    # -- what the cluster routes show ----------------------------------------------------
    async def nodes(self) -> list[dict[str, Any]]:
        """The live nodes (heartbeat within one lease time): name, tables, players online."""
        return await self._db(lambda conn: leases.live_nodes(conn, self.config.lease_ttl))
