"""Account notices in ``forsale_notices``: posted, read after an id, pruned (run on the writer thread).

A notice is what an account is told wherever it is signed in, on whichever node of a cluster it asks:
``seated`` at a table made for it (:mod:`forsale.server.lobby.seating`), a bot account's ``challenge``...
What they mean and who waits for them is :mod:`forsale.server.people.notices`'s; here is only their SQL.

On PostgreSQL the transaction that posts notices also sends one ``NOTIFY`` on the cluster's channel
(:data:`~forsale.server.store.cluster.CHANNEL`) naming the accounts, delivered when it commits, so that a node
where one of them waits wakes it at once (:meth:`forsale.server.lobby.cluster.ClusterLobby._on_notice`); on
one server the poster wakes its own waiters, and nobody listens to the ``NOTIFY``.

A reader moves ``after`` past the last id it saw, so an account's notices must become visible in id order: on
PostgreSQL ids come from a sequence when a row is inserted, and two transactions (two nodes, or a game's own
transaction and a plain post) may commit out of that order, the later-committed lower id then never read. So a post
first takes a transaction-level advisory lock per account (:data:`LOCK`, sorted: no deadlock between two posts),
held to its commit: the next post for that account takes its ids only after. SQLite has one writer: nothing to do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, func, insert, select, text

from .cluster import CHANNEL
from .schema import notices

KEEP = 24 * 3600.0
"""Seconds a notice is kept: its reader is long gone after a day (a page polls, a bot streams, both resume)."""

LOCK = 0x6E6F7463
"""The first key (``"notc"``) of the advisory lock ``(LOCK, hashtext(account_id))`` a post holds to its commit."""

MAX_READ = 100
"""Notices one read returns at most (the reader asks again after the last id it got)."""

Notice = tuple[str, str, dict[str, Any]]
"""``(account_id, kind, body)``: one notice to post (``body`` is JSON; its keys join ``id``, ``kind`` and ``at``)."""

# The statements of the hot paths, built once with bound parameters: a long poll reads at every start and every
# wake-up, and SQLAlchemy's building of a statement (its operators, its cache key) cost more than SQLite's answer
# (a third of the server's samples with 200 people seated at once: bench/pairing_load.py).
_POST = insert(notices).returning(notices.c.id)
_READ = (
    select(notices.c.id, notices.c.kind, notices.c.body, notices.c.at)
    .where(notices.c.account_id == bindparam("account"), notices.c.id > bindparam("after"))
    .order_by(notices.c.id)
    .limit(bindparam("limit"))
)
_LAST = select(func.max(notices.c.id)).where(notices.c.account_id == bindparam("account"))
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
_LOCK = text("SELECT pg_advisory_xact_lock(:cls, hashtext(:account))")


def op_post(posted: Sequence[Notice], now: float | None = None) -> Callable[[Connection], list[int]]:
    """Store ``posted`` (in order) and, on PostgreSQL, ``NOTIFY`` the accounts; their ids."""

    def fn(conn: Connection) -> list[int]:
        at = time.time() if now is None else now
        postgres = conn.dialect.name == "postgresql"
        if postgres:  # ids in commit order per account (the module's docstring); a hash clash only waits longer
            for account_id in sorted({account_id for account_id, _, _ in posted}):
                conn.execute(_LOCK, {"cls": LOCK, "account": account_id})
        ids = []
        for account_id, kind, body in posted:  # one by one: each id is needed, and the lists are short
            row = {"account_id": account_id, "kind": kind, "body": body, "at": at}
            ids.append(int(conn.execute(_POST, row).scalar_one()))
        if posted and postgres:
            accounts = sorted({account_id for account_id, _, _ in posted})
            payload = json.dumps({"t": "notice", "accounts": accounts}, separators=(",", ":"))
            if len(payload) < 7900:  # PostgreSQL's NOTIFY limit; past it the other nodes' fallback check finds them
                conn.execute(_NOTIFY, {"channel": CHANNEL, "payload": payload})
        return ids

    return fn


def op_read(account_id: str, after: int, limit: int = MAX_READ) -> Callable[[Connection], list[dict[str, Any]]]:
    """``account_id``'s notices with an id above ``after``, oldest first: ``{"id", "kind", "at", **body}``.

    ``at`` in epoch milliseconds, as every time the server sends.
    """

    def fn(conn: Connection) -> list[dict[str, Any]]:
        rows = conn.execute(_READ, {"account": account_id, "after": after, "limit": limit}).all()
        return [{**(r.body or {}), "id": r.id, "kind": r.kind, "at": int(r.at * 1000)} for r in rows]

    return fn


def op_last_id(account_id: str) -> Callable[[Connection], int]:
    """The id of ``account_id``'s latest notice (0: none): where a reader that wants only new ones starts."""

    def fn(conn: Connection) -> int:
        return int(conn.execute(_LAST, {"account": account_id}).scalar() or 0)

    return fn


def op_prune(before: float) -> Callable[[Connection], int]:
    """Delete the notices posted before ``before`` (epoch seconds); how many went."""

    def fn(conn: Connection) -> int:
        return conn.execute(delete(notices).where(notices.c.at < before)).rowcount or 0

    return fn
