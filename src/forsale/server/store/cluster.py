"""A cluster node's own connections to the shared PostgreSQL database, and the statements of its lobby.

A node's leases, heartbeats and notices go through an engine of its own
(:class:`NodeEngine`), off the event loop but not behind the writer thread's
queue of game writes: a heartbeat that waited behind a burst of appends would
let the node's leases run out while it is alive. The leases' statements are
:mod:`forsale.server.store.leases`'; what the node does with them is
:mod:`forsale.server.lobby.cluster`'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Connection, create_engine, event, select, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError

from . import leases
from .database import RECYCLE, Storage, StoredGame, normalize_url, transaction
from .outage import Unavailable, is_outage
from .schema import games

T = TypeVar("T")

CHANNEL = "forsale"
"""The ``LISTEN/NOTIFY`` channel the nodes of a cluster talk on."""

LockWaitEnded = OperationalError
"""A statement that gave up (a row it needed stayed locked past ``lock_timeout``): worth trying again."""


def libpq_url(url: str) -> str:
    """The database URL as psycopg's own connect() takes it (no SQLAlchemy driver name)."""
    parsed = make_url(normalize_url(url))
    if parsed.get_backend_name() != "postgresql":
        raise ValueError("a cluster needs PostgreSQL (--db postgresql://...): its nodes share it and its NOTIFY")
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def session_settings(engine: Engine, lease_ttl: float, node: str) -> None:
    """Settings of every connection a node opens: bounded waits for locks, no transaction left hanging.

    A node paused in the middle of a transaction (``SIGSTOP``, a long GC, a
    VM frozen) would hold its lease rows locked ``FOR SHARE`` and keep the
    other nodes from taking its tables; PostgreSQL ends such a session after
    half a lease time, so its transaction never commits (provided the node
    never pipelines: :meth:`forsale.server.store.database.Storage._insert_events`
    says why). Each session is named ``forsale <node>`` in ``pg_stat_activity``,
    so an operator (or a failed test) sees which node holds what.
    """
    idle_ms = max(500, int(lease_ttl * 500))

    @event.listens_for(engine, "connect")
    def _settings(dbapi_connection: Any, _record: Any) -> None:
        with dbapi_connection.cursor() as cursor:
            cursor.execute(f"SET application_name = 'forsale {node}'")  # a node's name is letters, digits, . _ -
            cursor.execute(f"SET idle_in_transaction_session_timeout = {idle_ms}")
            cursor.execute(f"SET lock_timeout = {max(1000, idle_ms)}")
        dbapi_connection.commit()


class NodeEngine:
    """A node's own engine, and the storage's, both with the node's :func:`session_settings`."""

    def __init__(self, storage: Storage, lease_ttl: float, node: str) -> None:
        session_settings(storage.engine, lease_ttl, node)
        storage.engine.dispose()  # connections made before the settings were added go
        # No ``pool_pre_ping`` (a node looks at the locks four times a second: its ``SELECT 1`` was one round trip
        # of three); a connection found dead is replaced as the storage's are (:func:`transaction`).
        self.engine = create_engine(storage.url, pool_size=3, max_overflow=4, pool_recycle=RECYCLE)
        session_settings(self.engine, lease_ttl, node)
        self.outage = storage.outage

    def run(self, fn: Callable[[Connection], T]) -> T:
        """One transaction; the database out of reach is :class:`Unavailable`."""
        try:
            value = transaction(self.engine, fn)
        except Exception as error:
            if not is_outage(error):
                raise
            self.outage.failed(error)  # logged once per outage, with the storage's own failures
            raise Unavailable() from error
        self.outage.recovered()
        return value

    async def call(self, fn: Callable[[Connection], T]) -> T:
        """:meth:`run` on a worker thread, off the event loop."""
        return await asyncio.to_thread(self.run, fn)

    async def close(self) -> None:
        await asyncio.to_thread(self.engine.dispose)


def op_notify(payloads: list[str]) -> Callable[[Connection], None]:
    """Send each payload to every node listening on :data:`CHANNEL` (delivered when the transaction commits)."""

    def fn(conn: Connection) -> None:
        for payload in payloads:
            conn.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": payload})

    return fn


def op_claim(game_id: str, owner: str, node: str, ttl: float) -> Callable[[Connection], tuple[str | None, int | None]]:
    """A game's status as stored (None: no such game) and, unless it is over, expired or missing, its lease taken
    if it was free or expired (:func:`~forsale.server.store.leases.take`): ``(status, new epoch or None)``, in
    one transaction (a table moving between nodes is asked for several times; each ask was two transactions)."""

    def fn(conn: Connection) -> tuple[str | None, int | None]:
        status = conn.execute(select(games.c.status).where(games.c.id == game_id)).scalar()
        if status in (None, "expired", "over"):  # nothing to take (ClusterLobby._taking_over says what it does)
            return status, None
        return status, leases.take(conn, game_id, owner, node, ttl)

    return fn


def op_create_leased(game: StoredGame, owner: str, node: str, ttl: float) -> Callable[[Connection], int | None]:
    """Store a new game and take its lease in one transaction (no node can adopt it in between); the epoch."""

    def fn(conn: Connection) -> int | None:
        Storage.op_create_game(game)(conn)
        return leases.take(conn, game.id, owner, node, ttl)

    return fn
