"""Table leases in PostgreSQL: which node of a cluster owns each live table, and for how long.

A lease is one row of ``forsale_leases`` (:data:`forsale.server.store.schema.leases`):
the owner (a node's *incarnation*: its name plus a random part, new at every
start, so a restarted node never mistakes its dead self's leases for its own),
an ``epoch`` that grows by one at every taking, and an expiry in the
database's clock. Every function here is one statement in its own
transaction, so PostgreSQL's row locks do the distributed work:

- :func:`take` is an ``INSERT ... ON CONFLICT DO UPDATE ... WHERE expired``:
  two nodes taking the same table at once both reach the row, one waits for
  the other's lock, then finds the lease live again and gets nothing back.
  Exactly one succeeds. It first locks the row ``FOR UPDATE``, so it waits
  for the owner's append in flight, if any, to commit.
- :func:`renew` extends every unexpired lease of an owner and says which
  it still holds; one that expired in the meantime is *not* renewed (another
  node may have seen it expire), so a node that was paused longer than the
  lease learns that it lost its tables.
- The event log's append checks ``(owner, epoch)`` in its own transaction
  (:func:`forsale.server.store.database.check_fences`), reading the row ``FOR KEY
  SHARE``; so a node whose lease was taken cannot append, even if it has
  not noticed yet. :func:`renew` takes no lock that conflicts with that one:
  an owner's heartbeat never waits for its own appends (nor deadlocks with
  them), however busy it is.

A node that dies (``kill -9``, a crash, a power cut) would keep its tables
until their leases ran out. So each node also holds a *liveness lock*: a
session-level advisory lock (:func:`liveness_key` of its incarnation) on its
``LISTEN`` connection. PostgreSQL drops it the moment that connection closes,
which for a dead process is at once (its kernel closes the socket). The
other nodes watch the locks (:func:`look`): an owner they saw holding
its lock, whose lock has been missing for a grace time *and* whose heartbeat
row has not moved for as long, is gone, and they end its leases now
(:func:`expire`) instead of waiting for them to run out. A live node whose
notice connection merely broke (an idle timeout, a firewall, a terminated
backend) reconnects at once and beats every quarter second until it holds
its lock again, so it is never judged gone: the lock only speeds up the
expiry of a dead node, the lease row stays the truth. This changes only
*when* a lease expires, never the fencing: the owner's writes are checked
against the lease row in their own transaction, so an owner that is alive
after all (cut off from the database entirely) cannot write once its
leases are expired, exactly as if the clock had run them out; a pause
(``SIGSTOP``) keeps the connection and so waits for the lease time, as before.
"""

from __future__ import annotations

import secrets
import zlib
from typing import Any

from sqlalchemy import Connection, bindparam, text

from .schema import leases, nodes

__all__ = [
    "leases",
    "nodes",
    "incarnation",
    "liveness_key",
    "liveness_lock",
    "look",
    "stale_holder",
    "expire",
    "take",
    "renew",
    "release",
    "drop",
    "orphans",
    "beat",
    "live_nodes",
]

NOW = "extract(epoch from clock_timestamp())"

_TAKE = text(
    f"""
    INSERT INTO forsale_leases AS l (game_id, owner, node, epoch, expires_at)
    VALUES (:game_id, :owner, :node, 1, {NOW} + :ttl)
    ON CONFLICT (game_id) DO UPDATE
        SET owner = excluded.owner, node = excluded.node, epoch = l.epoch + 1, expires_at = excluded.expires_at
        WHERE l.expires_at < {NOW}
    RETURNING epoch
    """
)
_LOCK = text("SELECT game_id FROM forsale_leases WHERE game_id = :game_id FOR UPDATE")
_RENEW = text(
    f"""
    UPDATE forsale_leases SET expires_at = {NOW} + :ttl
    WHERE owner = :owner AND expires_at > {NOW}
    RETURNING game_id, epoch
    """
)
_RELEASE = text(
    "UPDATE forsale_leases SET expires_at = 0 WHERE game_id = :game_id AND owner = :owner AND epoch = :epoch"
)
_DROP = text("DELETE FROM forsale_leases WHERE game_id = :game_id AND owner = :owner AND epoch = :epoch")
_ORPHANS = text(
    f"""
    SELECT g.id FROM forsale_games g LEFT JOIN forsale_leases l ON l.game_id = g.id
    WHERE g.status IN ('waiting', 'playing')
      AND (l.expires_at < {NOW} OR (l.game_id IS NULL AND g.created_at < :created_before))
    ORDER BY g.created_at
    LIMIT :limit
    """
)
_BEAT = text(
    f"""
    INSERT INTO forsale_nodes AS n (name, owner, heartbeat_at, tables, online)
    VALUES (:name, :owner, {NOW}, :tables, :online)
    ON CONFLICT (name) DO UPDATE
        SET owner = excluded.owner, heartbeat_at = excluded.heartbeat_at, tables = excluded.tables,
            online = excluded.online
    """
)
_LIVE_NODES = text(f"SELECT name, owner, tables, online FROM forsale_nodes WHERE heartbeat_at > {NOW} - :within")
_OWNERS = text(
    "SELECT game_id, node FROM forsale_leases WHERE expires_at > " + NOW + " AND game_id IN :ids"
).bindparams(bindparam("ids", expanding=True))


LIVENESS = 0x66730001
"""The first key of every node's liveness lock (``pg_advisory_lock(LIVENESS, liveness_key(owner))``)."""

_LIVE_KEYS = text(
    """
    SELECT objid::bigint FROM pg_locks
    WHERE locktype = 'advisory' AND classid = :cls AND objsubid = 2 AND granted
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    """
)
_LEASE_OWNERS = text(
    f"""
    SELECT DISTINCT l.owner, l.node, {NOW} - n.heartbeat_at
    FROM forsale_leases l LEFT JOIN forsale_nodes n ON n.name = l.node AND n.owner = l.owner
    WHERE l.expires_at > {NOW}
    """
)
_STALE_HOLDER = """
    SELECT pg_terminate_backend(pid) FROM pg_locks
    WHERE locktype = 'advisory' AND classid = {cls} AND objid = {key} AND objsubid = 2 AND granted
      AND pid <> pg_backend_pid()
      AND pid IN (SELECT pid FROM pg_stat_activity WHERE application_name = current_setting('application_name'))
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    """
_EXPIRE = text(f"UPDATE forsale_leases SET expires_at = 0 WHERE owner = :owner AND expires_at > {NOW}")


def liveness_key(owner: str) -> int:
    """The second key of ``owner``'s liveness lock: 31 bits of a hash (a collision only delays a failover)."""
    return zlib.crc32(owner.encode()) & 0x7FFFFFFF


def liveness_lock(owner: str) -> str:
    """The statement that takes ``owner``'s liveness lock (on its node's ``LISTEN`` connection)."""
    return f"SELECT pg_try_advisory_lock({LIVENESS}, {liveness_key(owner)})"


def stale_holder(owner: str) -> str:
    """The statement that ends the old session still holding ``owner``'s liveness lock, if any.

    A notice connection that broke without a word (a half-open TCP
    connection: a firewall forgot it, a cable was pulled) leaves its server
    session, and so the lock, behind until the server's keepalive gives up;
    the node's new connection cannot take the lock meanwhile. That session is
    the node's own (the key is its incarnation's, and only a session of the
    same ``application_name``, the node's notice connection, is ended: two
    owners whose keys collide never end each other's), so ending it is safe.
    """
    return _STALE_HOLDER.format(cls=LIVENESS, key=liveness_key(owner))


def look(conn: Connection, owner: str, others: bool) -> tuple[bool, dict[str, tuple[str, bool, float | None]]]:
    """One look at the liveness locks: whether ``owner``'s own is held and, with ``others``, every lease owner.

    The owners are ``owner -> (node, whether its liveness lock is held, heartbeat age)`` for every owner of an
    unexpired lease (``owner`` among them). The age (seconds, database clock; None without a heartbeat row)
    tells a node whose lock is missing but which is alive (it beats while it has no lock:
    :meth:`forsale.server.lobby.cluster.ClusterLobby._watch`) from a dead one. A node looks a few times a
    second, so both answers come from one transaction (it was two, each with its own round trips).
    """
    held = {int(r[0]) for r in conn.execute(_LIVE_KEYS, {"cls": LIVENESS}).all()}
    mine = liveness_key(owner) in held
    if not others:
        return mine, {}
    return mine, {
        o: (n, liveness_key(o) in held, None if age is None else float(age))
        for o, n, age in conn.execute(_LEASE_OWNERS).all()
    }


def expire(conn: Connection, owner: str) -> int:
    """End every lease of ``owner`` now (it is gone): how many. Fencing holds as for a lease that ran out."""
    return int(conn.execute(_EXPIRE, {"owner": owner}).rowcount)


def incarnation(node: str) -> str:
    """A new owner name for this start of ``node`` (its leases are never confused with an earlier run's)."""
    return f"{node}/{secrets.token_hex(4)}"


def take(conn: Connection, game_id: str, owner: str, node: str, ttl: float) -> int | None:
    """Take ``game_id``'s lease if it is free or expired: its new epoch, or None if another node holds it."""
    conn.execute(_LOCK, {"game_id": game_id})  # waits for a fenced append in flight (FOR KEY SHARE) to end
    row = conn.execute(_TAKE, {"game_id": game_id, "owner": owner, "node": node, "ttl": ttl}).first()
    return None if row is None else int(row[0])


def renew(conn: Connection, owner: str, ttl: float) -> dict[str, int]:
    """Extend every unexpired lease ``owner`` holds by ``ttl`` seconds: ``{game_id: epoch}`` of those."""
    return {g: int(e) for g, e in conn.execute(_RENEW, {"owner": owner, "ttl": ttl}).all()}


def release(conn: Connection, game_id: str, owner: str, epoch: int) -> None:
    """Give a lease up at once (a clean stop, a handover): any node may take it now; the epoch stays."""
    conn.execute(_RELEASE, {"game_id": game_id, "owner": owner, "epoch": epoch})


def drop(conn: Connection, game_id: str, owner: str, epoch: int) -> None:
    """Forget a finished game's lease (nothing is ever appended to it again)."""
    conn.execute(_DROP, {"game_id": game_id, "owner": owner, "epoch": epoch})


def orphans(conn: Connection, created_before: float, limit: int = 500) -> list[str]:
    """Unfinished games whose lease expired (or that never had one and are older than ``created_before``)."""
    return [r[0] for r in conn.execute(_ORPHANS, {"created_before": created_before, "limit": limit}).all()]


def owners(conn: Connection, game_ids: list[str]) -> dict[str, str]:
    """The node holding each of these games' live leases (those with none are left out)."""
    if not game_ids:
        return {}
    return {g: n for g, n in conn.execute(_OWNERS, {"ids": game_ids}).all()}


def beat(conn: Connection, name: str, owner: str, tables: int, online: int) -> None:
    """A node's heartbeat row: it is alive, and serves this many tables and connected players."""
    conn.execute(_BEAT, {"name": name, "owner": owner, "tables": tables, "online": online})


def live_nodes(conn: Connection, within: float) -> list[dict[str, Any]]:
    """Nodes whose heartbeat is at most ``within`` seconds old."""
    return [dict(r._mapping) for r in conn.execute(_LIVE_NODES, {"within": within}).all()]
