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
import hashlib
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
    JSON,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.pool import StaticPool

from ..metrics import BATCHES
from ..names import skeleton
from .outage import Outage, Unavailable, is_outage

log = logging.getLogger("forsale.server")

T = TypeVar("T")

metadata = MetaData()

games = Table(
    "forsale_games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),
    Column("status", String(16), nullable=False, index=True),  # waiting | playing | over | expired
    Column("players", Integer, nullable=False),
    Column("config", JSON, nullable=False),  # rules, time_limit, memory_aid, private
    Column("deal", JSON, nullable=False),  # Deal.to_json() plus "removed": Deal.removed_to_json()
    Column("creator_hash", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("finished_at", Float, nullable=True),
    Column("result", JSON, nullable=True),  # scores, winners (finished games)
    # sha256 of an invitation-only table's invitation code (forsale.server.table.invites), null for every other
    # table. Added after the first release (see upgrade_schema).
    Column("invite_hash", String(64), nullable=True),
)

seats = Table(
    "forsale_seats",
    metadata,
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),  # open | human | bot
    Column("name", String(100), nullable=False),
    Column("bot", String(100), nullable=True),
    Column("token_hash", String(64), nullable=True),
    # The account the seat belongs to (null for guests and bots). Added after the first release, so
    # :func:`upgrade_schema` adds it to older databases; no foreign key, so that both forms are the same.
    Column("account_id", String(32), nullable=True, index=True),
)

accounts = Table(
    "forsale_accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(100), nullable=False),  # as shown: NFKC-normalised (forsale.server.people.accounts)
    Column("name_key", String(200), nullable=False, unique=True),  # NFKC + casefold: unique per person
    Column("password_hash", String(200), nullable=False),  # argon2id, never the password
    Column("created_at", Float, nullable=False),
    # Where "your turn" emails go (forsale.server.people.turnmail); set by the account, never shown to others.
    # Added after the first release, like forsale_seats.account_id (see upgrade_schema).
    Column("email", String(254), nullable=True),
    # The language of those emails (one of forsale.catalogues.LANGUAGES; null: English), added after email.
    Column("language", String(8), nullable=True),
    # The name's look-alike skeleton (forsale.server.names): no two accounts share one, no guest takes one.
    # Added later (see upgrade_schema, which fills it for the accounts made before).
    Column("name_skeleton", String(200), nullable=True, index=True),
    # The address is mailed only once confirmed (forsale.server.people.emails): when, and the hash of the one-time
    # token of the confirmation link last mailed, with its expiry. Added with name_skeleton.
    Column("email_confirmed_at", Float, nullable=True),
    Column("email_token_hash", String(64), nullable=True, index=True),  # looked up by the confirmation
    Column("email_token_expires", Float, nullable=True),
)

mails = Table(
    "forsale_mails",
    metadata,
    # One row per email sent (forsale.server.people.emails), by casefolded address and kind ("confirm", "turn"): the
    # limits per address count these, so that they hold across restarts and across the nodes of a cluster.
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("address", String(254), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("account_id", String(32), nullable=True),
    Column("at", Float, nullable=False),
)

sessions = Table(
    "forsale_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),  # sha256 of the cookie's session id, never the id
    Column("account_id", String(32), ForeignKey("forsale_accounts.id"), nullable=False, index=True),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)


chat = Table(
    "forsale_chat",
    metadata,
    # A table's chat (forsale.server.table.chat): stored with the game, never part of its record or event log.
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("n", Integer, primary_key=True),  # 1, 2, 3, ... per game
    Column("seat", Integer, nullable=True),  # null: a spectator
    Column("name", String(100), nullable=False),
    Column("body", String(1200), nullable=False),  # plain text, at most 300 characters
    Column("at", Float, nullable=False),
)


ratings = Table(
    "forsale_ratings",
    metadata,
    # "account:<id>" or "bot:<name>" (forsale.server.people.skill): no foreign key, a bot has no row anywhere.
    Column("player", String(140), primary_key=True),
    Column("players", Integer, primary_key=True),  # 0: over every game; 2-6: over the games of that many players
    Column("mu", Float, nullable=False),  # openskill Plackett-Luce (forsale.arena.ratings.model)
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
)


analyses = Table(
    "forsale_analyses",
    metadata,
    # A finished game's post-game analysis (forsale.server.http.routes.analysis), computed once in a bot worker
    # and kept with the game. A table of its own, so create_all adds it to an older database as it is.
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("budget", Integer, nullable=False),  # sampled deals per evaluation (forsale.bots.analysis)
    Column("seed", Integer, nullable=False),
    Column("data", JSON, nullable=False),  # Analysis.to_json() of the human seats, with the chart
    Column("created_at", Float, nullable=False),
)

rating_changes = Table(
    "forsale_rating_changes",
    metadata,
    # One row per rated game, player and scope: the rating after the game (the profile's plot), and the
    # mark that the game was rated. forsale.server.people.skill can rebuild both tables from the games alone.
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("player", String(140), primary_key=True, index=True),
    Column("players", Integer, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("at", Float, nullable=False),
)


def upgrade_schema(conn: Connection) -> None:
    """Bring a database made by an older release up to :data:`metadata` (new tables are made by ``create_all``).

    Only additive changes, each idempotent: a column that is missing is added, nullable, so the rows
    already there keep their meaning (a seat with no account is a guest's seat, as it always was).
    """
    present = {c["name"] for c in inspect(conn).get_columns("forsale_seats")}
    if "account_id" not in present:
        conn.execute(text("ALTER TABLE forsale_seats ADD COLUMN account_id VARCHAR(32)"))
    present = {c["name"] for c in inspect(conn).get_columns("forsale_accounts")}
    if "email" not in present:
        conn.execute(text("ALTER TABLE forsale_accounts ADD COLUMN email VARCHAR(254)"))
    if "language" not in present:
        conn.execute(text("ALTER TABLE forsale_accounts ADD COLUMN language VARCHAR(8)"))
    for column, kind in (("name_skeleton", "VARCHAR(200)"), ("email_confirmed_at", "FLOAT"),
                         ("email_token_hash", "VARCHAR(64)"), ("email_token_expires", "FLOAT")):  # fmt: skip
        if column not in present:
            conn.execute(text(f"ALTER TABLE forsale_accounts ADD COLUMN {column} {kind}"))
    for index in accounts.indexes:
        index.create(conn, checkfirst=True)
    for row in conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.name_skeleton.is_(None))).all():
        conn.execute(update(accounts).where(accounts.c.id == row.id).values(name_skeleton=skeleton(row.name)))
    if "invite_hash" not in {c["name"] for c in inspect(conn).get_columns("forsale_games")}:
        conn.execute(text("ALTER TABLE forsale_games ADD COLUMN invite_hash VARCHAR(64)"))
    for index in seats.indexes:
        index.create(conn, checkfirst=True)


SCHEMA_LOCK = 0x666F7273616C65  # "forsale" as a number: the advisory lock that serialises schema changes
"""The key of the PostgreSQL transaction-level advisory lock :func:`migrate` holds (any constant will do, as
long as every release uses the same one)."""


def migrate(engine: Engine) -> None:
    """Create a new database's tables, or bring an older one up to :data:`metadata`: safe with many at once.

    This is the one migration path: every server and every node runs it at
    start-up, and nodes of a cluster often start together on an empty
    database. Without a lock, two of them both see no ``forsale_games`` and
    both create it; the second fails (``UniqueViolation`` on ``pg_type``).

    Why a lock around :func:`upgrade_schema` rather than Alembic: every change
    so far is additive and idempotent (a missing table or nullable column is
    added, nothing is renamed or dropped), so the migration needs no version
    history, only mutual exclusion. It is provably safe because:

    - **PostgreSQL**: the whole check-and-create runs in one transaction that
      first takes ``pg_advisory_xact_lock(SCHEMA_LOCK)``. A second node blocks
      on that statement until the first commits (or rolls back: the lock goes
      with the transaction, also when the process dies). Under READ COMMITTED
      each later statement takes a new snapshot, so everything the second node
      inspects afterwards (``create_all``'s ``checkfirst``, the column lists)
      includes the first node's committed DDL: it finds the tables there and
      creates nothing. PostgreSQL's DDL is transactional, so a failed
      migration leaves nothing half made.
    - **SQLite**: the same transaction starts with ``BEGIN IMMEDIATE``, which
      takes the database's write lock at once (SQLite's DDL is transactional
      too); a second process waits for it (the driver's busy timeout) and then
      reads the committed schema. Without it the driver would run each
      ``CREATE TABLE`` outside any transaction, after an unlocked check.

    A future change that is not additive (a rename, a new constraint over old
    rows) needs versioned steps: that is when Alembic, run under this same
    lock, becomes worth its weight.
    """
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        elif conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK})
        metadata.create_all(conn)
        upgrade_schema(conn)
        conn.commit()


events = Table(
    "forsale_events",
    metadata,
    Column("game_id", String(32), ForeignKey("forsale_games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),  # 1, 2, 3, ... per game, no gaps
    Column("seat", Integer, nullable=False),
    Column("action", JSON, nullable=False),  # {"bid": b} | {"pass": true} | {"sell": h}
    Column("source", String(16), nullable=False),  # player | bot | clock | away
    Column("at", Float, nullable=False),
)

leases = Table(
    "forsale_leases",
    metadata,
    # Who may write a live table's events in a cluster (forsale.server.lobby.cluster): one row per table,
    # taken by one node at a time. ``owner`` is a node's incarnation (name plus a random part, new at
    # every start), ``epoch`` grows at every taking (the fencing token), ``expires_at`` is in the
    # database's clock (seconds since the epoch), so that the nodes' clocks never matter.
    Column("game_id", String(32), primary_key=True),
    Column("owner", String(100), nullable=False),
    Column("node", String(64), nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("expires_at", Float, nullable=False, index=True),
)


nodes = Table(
    "forsale_nodes",
    metadata,
    # One row per node name (forsale.server.store.leases): its latest heartbeat (database clock) and what it
    # serves, for the lobby's players online and the cluster page; a node is live while its heartbeat is
    # recent. Defined here with the others, so that migrate() makes it whichever modules were imported.
    Column("name", String(64), primary_key=True),
    Column("owner", String(100), nullable=False),
    Column("heartbeat_at", Float, nullable=False),
    Column("tables", Integer, nullable=False),
    Column("online", Integer, nullable=False),
)


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


def hash_token(token: str) -> str:
    """Tokens are stored hashed: a copy of the database does not let anyone act for a seat."""
    return hashlib.sha256(token.encode()).hexdigest()


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
    return create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=2)


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
        try:
            with self.engine.begin() as conn:
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
                        check_fences(conn, [(a.row["game_id"], a.fence) for a in group if a.fence is not None])
                        self._insert_events(conn, [a.row for a in group])
                        for a in group:
                            a.finish(conn)
                        results.extend([None] * (j - i))
                        i = j
                    else:
                        results.append(fn(conn))
                        i += 1
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
            with self.engine.begin() as conn:
                value = call.fn(conn)
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

    def _insert_events(self, conn: Connection, rows: list[dict[str, Any]]) -> None:
        """The hot path: one ``executemany`` on the driver's own cursor, inside the same transaction.

        SQLAlchemy's statement machinery costs more than the insert itself on
        SQLite; the JSON column is written as the same JSON text SQLAlchemy
        would write (it reads it back through its JSON type).
        """
        values = [(r["game_id"], r["seq"], r["seat"], json.dumps(r["action"]), r["source"], r["at"]) for r in rows]
        if self.backend == "sqlite":
            sql = "INSERT INTO forsale_events (game_id, seq, seat, action, source, at) VALUES (?, ?, ?, ?, ?, ?)"
        elif self.backend == "postgresql" and make_url(self.url).get_driver_name() == "psycopg":
            sql = "INSERT INTO forsale_events (game_id, seq, seat, action, source, at) VALUES (%s, %s, %s, %s::json, %s, %s)"
        else:  # any other database: the portable way
            conn.execute(_INSERT_EVENT, rows)
            return
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cursor.executemany(sql, values)
        finally:
            cursor.close()

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
            conn.execute(
                insert(seats),
                [
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
                ],
            )

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
        from .visibility import shown_to  # visibility reads this module's tables

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
