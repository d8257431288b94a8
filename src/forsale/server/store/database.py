"""Durable storage: tables, seats and an append-only event log per game (SQLAlchemy 2 Core).

The same code runs on SQLite and PostgreSQL. Every database call goes
through one writer thread (:class:`Storage`), for three reasons:

- the event loop never blocks on disk or network I/O;
- SQLite allows one writer at a time anyway, so one thread avoids "database
  is locked" retries;
- calls that arrive while a transaction commits are grouped into the next
  transaction (group commit), so many tables acting at once cost one commit,
  not one each. Each caller still learns whether *its* write committed: if a
  group fails, its calls are retried one transaction each.

An accepted action is acknowledged only after the transaction holding its
event has committed, so a ``kill -9`` never loses an acknowledged move. On
SQLite the database runs in WAL mode with ``synchronous=NORMAL``: a committed
transaction survives the death of the process (not necessarily a power cut).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    create_engine,
    event,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool

from ..metrics import BATCHES
from .outage import Outage, Unavailable, is_outage
from .schema import (
    events,
    games,
    leases,
    migrate,
    seats,
)
from .visibility import shown_to

log = logging.getLogger("forsale.server")

T = TypeVar("T")

Op = Callable[[Connection], T]
"""A database operation, run on the writer thread with a connection (:meth:`Storage.run`); what it returns."""


class LeaseLost(Exception):
    """A fenced write found that this node no longer holds the table's lease: nothing was written."""

    def __init__(self, game_ids: list[str]) -> None:
        super().__init__(f"the lease of {', '.join(sorted(game_ids))} is held elsewhere or expired")
        self.game_ids = game_ids


Fence = tuple[str, int]
"""``(owner, epoch)``: the lease a write needs (see :func:`check_fences`)."""


def db_now(conn: Connection) -> Any:
    """The database's clock in seconds since the epoch, as a SQL expression (the lease clock)."""
    if conn.dialect.name == "postgresql":
        return func.extract("epoch", func.clock_timestamp())
    return (func.julianday("now") - 2440587.5) * 86400.0


def check_fences(conn: Connection, fenced: list[tuple[str, Fence]]) -> None:
    """Raise :class:`LeaseLost` unless every ``(game_id, (owner, epoch))`` lease is live, in this transaction.

    The rows are read ``FOR KEY SHARE``: a node taking one of these leases
    (:func:`forsale.server.store.leases.take` locks the row ``FOR UPDATE``) waits
    for this transaction to end, so it reads every event committed here when
    it loads the table, and no write can slip in after it took the lease. The
    owner's own renewals (a plain ``UPDATE``) do not wait for it, nor it for them.
    """
    if not fenced:
        return
    wanted = dict(fenced)
    rows = conn.execute(
        select(leases.c.game_id, leases.c.owner, leases.c.epoch)
        .where(leases.c.game_id.in_(list(wanted)), leases.c.expires_at > db_now(conn))
        .with_for_update(read=True, key_share=True)
    ).all()
    live = {(g, (o, e)) for g, o, e in rows}
    lost = [g for g, fence in wanted.items() if (g, fence) not in live]
    if lost:
        raise LeaseLost(lost)


def fenced(game_id: str, fence: Fence | None, fn: Callable[[Connection], T]) -> Callable[[Connection], T]:
    """``fn``, run only while ``fence`` is ``game_id``'s live lease (unchanged when ``fence`` is None)."""
    if fence is None:
        return fn
    if isinstance(fn, Append):  # stays an Append, so that the writer still batches it
        fn.fence = fence
        return fn  # type: ignore[return-value]

    def write(conn: Connection) -> T:
        check_fences(conn, [(game_id, fence)])
        return fn(conn)

    return write


def seat_names(conn: Connection, game_id: str) -> dict[str, list[Any]]:
    """A game's seats as the listings give them: each seat's ``names``, its ``bots`` spec (null for a person)
    and the ``open`` seats, so that a page can say in its own language the names the server made."""
    rows = conn.execute(
        select(seats.c.name, seats.c.bot, seats.c.kind).where(seats.c.game_id == game_id).order_by(seats.c.seat)
    ).all()
    return {
        "names": [row.name for row in rows],
        "bots": [row.bot for row in rows],
        "open": [index for index, row in enumerate(rows) if row.kind == "open"],
    }


def normalize_url(url: str) -> str:
    """Accept plain ``postgresql://`` URLs: use psycopg 3, the driver the server extra installs."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def wal(cursor: Any, patience: float = 30.0) -> None:
    """Put an SQLite database in WAL mode, waiting while another connection holds a lock.

    Changing the journal mode needs the database to itself, and SQLite answers
    "database is locked" at once, without waiting (its busy timeout does not
    apply), when another connection holds a lock meanwhile: servers started
    together on a new file (:func:`migrate`) met it. Once the file is in WAL
    mode (a property of the file) the statement changes nothing and passes.
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


RECYCLE = 600
"""Seconds a PostgreSQL connection is kept before the pool opens a new one (see :func:`make_engine`)."""


def dead_connection(error: BaseException) -> bool:
    """True when the driver found the connection itself gone (SQLAlchemy invalidated it), not the database."""
    return isinstance(error, DBAPIError) and error.connection_invalidated


def make_engine(url: str) -> Engine:
    url = normalize_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        memory = parsed.database in (None, "", ":memory:")
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            poolclass=StaticPool if memory else None,
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            if not memory:
                wal(cursor)
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    # No ``pool_pre_ping``: its ``SELECT 1`` before every group commit was 16% of a node's samples at 500 busy
    # tables (docs/benchmarks.md). A connection found dead instead fails its transaction before the commit, and
    # the writer runs that transaction again once on a fresh connection (:func:`transaction`); the pool then
    # replaces every connection older than the failure. ``pool_recycle`` retires connections before a server's or
    # a proxy's idle timeout can cut them.
    return create_engine(url, pool_size=2, max_overflow=2, pool_recycle=RECYCLE)


@dataclass
class StoredSeat:
    seat: int
    kind: str
    name: str
    bot: str | None
    token_hash: str | None
    account_id: str | None = None


@dataclass
class StoredGame:
    """One game as the database holds it: enough to rebuild it exactly."""

    id: str
    name: str
    status: str
    players: int
    config: dict[str, Any]
    deal: dict[str, Any]
    creator_hash: str
    created_at: float
    finished_at: float | None
    result: dict[str, Any] | None
    seats: list[StoredSeat] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    invite_hash: str | None = None  # an invitation-only table's code, hashed (forsale.server.table.invites)


def unavailable(error: BaseException) -> Unavailable:
    """The refusal a caller gets for a call the database could not run (the driver's error as its cause)."""
    refusal = Unavailable()
    refusal.__cause__ = error
    return refusal


def transaction(engine: Engine, body: Callable[[Connection], T]) -> T:
    """``body`` in one transaction; once more on a fresh connection if the first was found dead before the commit.

    This is what ``pool_pre_ping`` was for (see :func:`make_engine`), paid only when a connection did die
    (the database restarted, a proxy cut it): a transaction whose connection broke before its ``COMMIT``
    was sent committed nothing, so running it again cannot apply anything twice (the calls are already
    written to be run again: a failed group is retried call by call). A connection that breaks during the
    ``COMMIT`` is not retried: whether that commit landed is unknown, and the caller is told ``unavailable``.
    """
    committing = False
    try:
        with engine.begin() as conn:
            value = body(conn)
            committing = True
        return value
    except Exception as error:
        if committing or not dead_connection(error):
            raise
    with engine.begin() as conn:  # a fresh connection: the pool dropped every one older than the failure
        return body(conn)


class _Call:
    """A queued database call and who waits for it: a thread (``loop is None``) or a coroutine on ``loop``."""

    __slots__ = ("fn", "loop", "fut")

    def __init__(
        self,
        fn: Callable[[Connection], Any],
        loop: asyncio.AbstractEventLoop | None,
        fut: asyncio.Future[Any] | concurrent.futures.Future[Any],
    ) -> None:
        self.fn = fn
        self.loop = loop
        self.fut = fut


def _settle(outcomes: list[tuple[asyncio.Future[Any], bool, Any]]) -> None:
    """On the event loop: hand a committed group's results to the coroutines awaiting them."""
    for fut, ok, value in outcomes:
        if not fut.done():
            if ok:
                fut.set_result(value)
            else:
                fut.set_exception(value)


class Storage:
    """The database behind the server; every call runs on its writer thread."""

    def __init__(self, url: str) -> None:
        self.url = normalize_url(url)
        self.backend = make_url(self.url).get_backend_name()
        self._unnest = self.backend == "postgresql" and make_url(self.url).get_driver_name() == "psycopg"
        self.engine = make_engine(self.url)
        migrate(self.engine)
        self.outage = Outage(log)  # the database out of reach: logged once, refused as "unavailable"
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="forsale-db-writer", daemon=True)
        self._thread.start()
        self.commits = 0
        self.calls = 0

    # -- the writer thread ---------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < 512:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._deliver(self._run_batch(batch))
            if stop:
                return

    def _run_batch(self, batch: list[_Call]) -> list[tuple[_Call, bool, Any]]:
        """Run a group of calls in one transaction; ``(call, ok, result or exception)`` for each."""
        live = [c for c in batch if c.loop is not None or c.fut.set_running_or_notify_cancel()]  # type: ignore[union-attr]
        if not live:
            return []

        def body(conn: Connection) -> list[Any]:
            results: list[Any] = []
            i = 0
            while i < len(live):
                fn = live[i].fn
                if isinstance(fn, Append):
                    # Consecutive appends (from many tables at once) go in as one executemany.
                    j = i
                    while j < len(live) and isinstance(live[j].fn, Append):
                        j += 1
                    group: list[Append] = [live[k].fn for k in range(i, j)]  # type: ignore[misc]
                    self._append(conn, group)
                    for a in group:
                        a.finish(conn)
                    results.extend([None] * (j - i))
                    i = j
                else:
                    results.append(fn(conn))
                    i += 1
            return results

        try:
            results = transaction(self.engine, body)
        except Exception as error:
            if is_outage(error):  # the database is out of reach: one at a time would fail the same way
                self.outage.failed(error)
                return [(c, False, unavailable(error)) for c in live]
            # One call spoiled the group (or the group failed): give each call its own transaction.
            return [self._run_one(c) for c in live]
        self.outage.recovered()
        self.commits += 1
        self.calls += len(live)
        BATCHES.observe(len(live))
        return [(c, True, value) for c, value in zip(live, results)]

    def _run_one(self, call: _Call) -> tuple[_Call, bool, Any]:
        try:
            value = transaction(self.engine, call.fn)
        except Exception as error:
            if is_outage(error):
                self.outage.failed(error)
                return call, False, unavailable(error)
            return call, False, error
        self.outage.recovered()
        self.commits += 1
        self.calls += 1
        return call, True, value

    @staticmethod
    def _deliver(outcomes: list[tuple[_Call, bool, Any]]) -> None:
        """Wake the waiters: threads one by one, each event loop once per group (not once per call)."""
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], bool, Any]]] = {}
        for call, ok, value in outcomes:
            if call.loop is None:
                fut: concurrent.futures.Future[Any] = call.fut  # type: ignore[assignment]
                if ok:
                    fut.set_result(value)
                else:
                    fut.set_exception(value)
            else:
                by_loop.setdefault(call.loop, []).append((call.fut, ok, value))  # type: ignore[arg-type]
        for loop, settled in by_loop.items():
            with contextlib.suppress(RuntimeError):  # that loop has closed: nobody is waiting any more
                loop.call_soon_threadsafe(_settle, settled)

    def _append(self, conn: Connection, group: list[Append]) -> None:
        """A group's events, each checked against its fence (if any: :func:`check_fences`), in this transaction.

        On PostgreSQL through psycopg, a group whose appends are all fenced (a cluster node's always are) is
        checked and inserted by one statement (:data:`_FENCED_UNNEST_EVENTS`): the separate ``SELECT ... FOR
        KEY SHARE`` before the insert was a round trip per group and a fifth of a node's samples under load
        (``docs/benchmarks.md``). The leases are locked exactly as :func:`check_fences` locks them.
        """
        rows = [a.row for a in group]
        fences = [a.fence for a in group if a.fence is not None]
        if self._unnest and fences and len(fences) == len(rows):
            self._insert_events(conn, rows, fences)
        else:
            check_fences(conn, [(a.row["game_id"], a.fence) for a in group if a.fence is not None])
            self._insert_events(conn, rows)

    def _insert_events(self, conn: Connection, rows: list[dict[str, Any]], fences: list[Fence] | None = None) -> None:
        """The hot path: one statement on the driver's own cursor, inside the same transaction.

        SQLAlchemy's statement machinery costs more than the insert itself on
        SQLite; the JSON column is written as the same JSON text SQLAlchemy
        would write (it reads it back through its JSON type).

        On PostgreSQL the rows go in as arrays (``unnest``), in one plain
        statement, never psycopg's ``executemany``: that one pipelines, and its
        pipeline's last message (a flush after the ``Sync``) switches the
        session's ``idle_in_transaction_session_timeout`` off until the next
        statement. A cluster node paused (``SIGSTOP``) between this insert and
        its commit would then hold its lease rows ``FOR KEY SHARE`` for as long
        as it stays paused, and no other node could take its tables
        (``tests/cluster/test_cluster_leases.py`` pauses a writer at random moments).
        """
        values = [(r["game_id"], r["seq"], r["seat"], json.dumps(r["action"]), r["source"], r["at"]) for r in rows]
        if self.backend == "sqlite":
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            sql = "INSERT INTO forsale_events (game_id, seq, seat, action, source, at) VALUES (?, ?, ?, ?, ?, ?)"
            try:
                cursor.executemany(sql, values)
            finally:
                cursor.close()
        elif self._unnest:
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            columns = [list(column) for column in zip(*values)]
            try:
                if fences is None:
                    cursor.execute(_UNNEST_EVENTS, columns)
                    return
                owners, epochs = [o for o, _ in fences], [e for _, e in fences]
                cursor.execute(_FENCED_UNNEST_EVENTS, [columns[0], *columns, owners, epochs])
                inserted = cursor.rowcount
            finally:
                cursor.close()
            if inserted != len(rows):  # some lease is no longer the append's: say which (the rows are locked now)
                game_ids = [r["game_id"] for r in rows]
                check_fences(conn, list(zip(game_ids, fences)))
                raise LeaseLost(sorted(set(game_ids)))
        else:  # any other database: the portable way
            assert fences is None
            conn.execute(_INSERT_EVENT, rows)

    # -- calling it ----------------------------------------------------------
    def submit(self, fn: Callable[[Connection], T]) -> concurrent.futures.Future[T]:
        fut: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._queue.put(_Call(fn, None, fut))
        return fut

    def run(self, fn: Callable[[Connection], T]) -> asyncio.Future[T]:
        """Queue ``fn(connection)`` for the writer thread; the future resolves once its transaction committed.

        Calls are run in the order they were queued. The future is created
        here, not when awaited, so a caller can queue a call and await it later.
        """
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Call(fn, loop, fut))
        return fut

    def call(self, fn: Callable[[Connection], T]) -> T:
        """The blocking form of :meth:`run` (start-up, tests)."""
        return self.submit(fn).result()

    def close(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout=10)
        self.engine.dispose()

    # -- operations (each returns a function of a connection) ----------------
    @staticmethod
    def op_create_game(game: StoredGame) -> Callable[[Connection], None]:
        def fn(conn: Connection) -> None:
            conn.execute(
                insert(games).values(
                    id=game.id,
                    name=game.name,
                    status=game.status,
                    players=game.players,
                    config=game.config,
                    deal=game.deal,
                    creator_hash=game.creator_hash,
                    created_at=game.created_at,
                    updated_at=game.created_at,
                    finished_at=None,
                    result=None,
                    invite_hash=game.invite_hash,
                )
            )
            seated = [
                {
                    "game_id": game.id,
                    "seat": s.seat,
                    "kind": s.kind,
                    "name": s.name,
                    "bot": s.bot,
                    "token_hash": s.token_hash,
                    "account_id": s.account_id,
                }
                for s in game.seats
            ]
            conn.execute(insert(seats).values(seated))  # one statement, not psycopg's pipeline: see _insert_events

        return fn

    @staticmethod
    def op_update_seat(game_id: str, seat: StoredSeat, status: str | None = None) -> Callable[[Connection], None]:
        def fn(conn: Connection) -> None:
            conn.execute(
                update(seats)
                .where(seats.c.game_id == game_id, seats.c.seat == seat.seat)
                .values(
                    kind=seat.kind, name=seat.name, bot=seat.bot, token_hash=seat.token_hash, account_id=seat.account_id
                )
            )
            values: dict[str, Any] = {"updated_at": time.time()}
            if status is not None:
                values["status"] = status
            conn.execute(update(games).where(games.c.id == game_id).values(**values))

        return fn

    @staticmethod
    def op_update_game(game_id: str, **values: Any) -> Callable[[Connection], None]:
        def fn(conn: Connection) -> None:
            conn.execute(update(games).where(games.c.id == game_id).values(updated_at=time.time(), **values))

        return fn

    @staticmethod
    def op_append(
        game_id: str,
        seq: int,
        seat: int,
        action: dict[str, Any],
        source: str,
        finished: dict[str, Any] | None = None,
    ) -> Append:
        """Append one event; if it ends the game, mark the game over in the same transaction."""
        return Append(
            {"game_id": game_id, "seq": seq, "seat": seat, "action": action, "source": source, "at": time.time()},
            finished,
        )

    @staticmethod
    def op_load(game_id: str) -> Callable[[Connection], StoredGame | None]:
        def fn(conn: Connection) -> StoredGame | None:
            row = conn.execute(select(games).where(games.c.id == game_id)).mappings().first()
            if row is None:
                return None
            return _load_rest(conn, row)

        return fn

    @staticmethod
    def op_load_unfinished() -> Callable[[Connection], list[StoredGame]]:
        def fn(conn: Connection) -> list[StoredGame]:
            live = games.c.status.in_(("waiting", "playing"))  # not over, nor expired (forsale.server.lobby.fairshare)
            rows = conn.execute(select(games).where(live).order_by(games.c.created_at)).mappings()
            return [_load_rest(conn, row) for row in rows.all()]

        return fn

    @staticmethod
    def op_list_finished(limit: int) -> Callable[[Connection], list[dict[str, Any]]]:
        """The latest finished public games: the lobby's list, the same for everyone (forsale.server.store.visibility)."""

        def fn(conn: Connection) -> list[dict[str, Any]]:
            rows = conn.execute(
                select(games.c.id, games.c.name, games.c.players, games.c.config, games.c.result, games.c.finished_at)
                .where(games.c.status == "over", shown_to(None))  # no private, solo or invitation-only game
                .order_by(games.c.finished_at.desc())
                .limit(limit)
            ).mappings()
            out = []
            for row in rows.all():
                out.append({**dict(row), **seat_names(conn, row["id"])})
            return out

        return fn


_INSERT_EVENT = insert(events)
_UNNEST_EVENTS = """
    INSERT INTO forsale_events (game_id, seq, seat, action, source, at)
    SELECT game_id, seq, seat, action::json, source, at
    FROM unnest(%s::text[], %s::int[], %s::int[], %s::text[], %s::text[], %s::float8[])
        AS e(game_id, seq, seat, action, source, at)
"""
_FENCED_UNNEST_EVENTS = """
    WITH fence AS MATERIALIZED (
        SELECT game_id, owner, epoch FROM forsale_leases
        WHERE game_id = ANY(%s::text[]) AND expires_at > extract(epoch from clock_timestamp())
        FOR KEY SHARE
    )
    INSERT INTO forsale_events (game_id, seq, seat, action, source, at)
    SELECT e.game_id, e.seq, e.seat, e.action::json, e.source, e.at
    FROM unnest(%s::text[], %s::int[], %s::int[], %s::text[], %s::text[], %s::float8[], %s::text[], %s::int[])
        AS e(game_id, seq, seat, action, source, at, owner, epoch)
    JOIN fence f ON f.game_id = e.game_id AND f.owner = e.owner AND f.epoch = e.epoch
"""
"""The events of a group whose appends are all fenced, each inserted only while its ``(owner, epoch)`` is its
game's live lease, the leases locked ``FOR KEY SHARE`` as :func:`check_fences` locks them; one statement."""


class Append:
    """An event to append (a callable like the other operations, but batched by the writer)."""

    __slots__ = ("row", "finished", "fence")

    def __init__(self, row: dict[str, Any], finished: dict[str, Any] | None) -> None:
        self.row = row
        self.finished = finished
        self.fence: Fence | None = None  # set by fenced(): the lease this append needs (a cluster's node)

    def finish(self, conn: Connection) -> None:
        if self.finished is not None:
            now = self.row["at"]
            conn.execute(
                update(games)
                .where(games.c.id == self.row["game_id"])
                .values(status="over", finished_at=now, updated_at=now, result=self.finished)
            )

    def __call__(self, conn: Connection) -> None:
        if self.fence is not None:
            check_fences(conn, [(self.row["game_id"], self.fence)])
        conn.execute(_INSERT_EVENT, [self.row])
        self.finish(conn)


def _load_rest(conn: Connection, row: Any) -> StoredGame:
    game = StoredGame(
        id=row["id"],
        name=row["name"],
        status=row["status"],
        players=row["players"],
        config=row["config"],
        deal=row["deal"],
        creator_hash=row["creator_hash"],
        created_at=row["created_at"],
        finished_at=row["finished_at"],
        result=row["result"],
        invite_hash=row["invite_hash"],
    )
    for s in conn.execute(select(seats).where(seats.c.game_id == game.id).order_by(seats.c.seat)).mappings():
        game.seats.append(StoredSeat(s["seat"], s["kind"], s["name"], s["bot"], s["token_hash"], s["account_id"]))
    for e in conn.execute(select(events).where(events.c.game_id == game.id).order_by(events.c.seq)).mappings():
        game.events.append(
            {"seq": e["seq"], "seat": e["seat"], "action": e["action"], "source": e["source"], "at": e["at"]}
        )
    return game
