"""Quick pairing's queue in ``forsale_pairing`` (run on the writer thread): join, leave, heartbeat, read, claim.

The queue is in the database so that every node of a cluster pairs the same people. Two rules keep it honest
whatever the nodes do at once (:mod:`forsale.server.lobby.pairing`):

- **A seat is claimed in the table's own transaction.** :func:`op_claim` deletes the members' rows and fails
  (:class:`Claimed`) unless it deleted every one of them, and it runs in the transaction that stores the new
  game and its ``seated`` notices (:func:`forsale.server.lobby.seating.seat_entrants`'s ``also``). Someone who left
  meanwhile, or was seated by another node's matcher first, makes the whole table roll back: nobody is seated
  twice, nobody at a table made after they left. (On PostgreSQL the second of two such deletes waits for the first
  transaction and then finds no row; SQLite has one writer.)
- **One matcher at a time reads the queue.** :func:`op_queue` takes PostgreSQL's transaction-level advisory lock
  :data:`PAIRING_LOCK` without waiting, and answers None if another node holds it: that node is matching now, and
  this one would only find the same tables and lose the claims.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, and_, bindparam, delete, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.elements import BindParameter

from .database import db_now
from .notices import op_last_id
from .ratings import OVERALL, account_player
from .schema import accounts, games, pairing, ratings, seats

PAIRING_LOCK = (
    0x70616972696E67  # "pairing": the advisory lock of the queue's reader (any constant, the same everywhere)
)


class Claimed(Exception):
    """Some of a table's members are no longer in the queue (they left, or another matcher seated them)."""


@dataclass(frozen=True)
class Entry:
    """One row of the queue."""

    account_id: str
    name: str
    mu: float
    counts: tuple[int, ...]
    rated: bool
    bots_after: float | None
    joined_at: float
    seen_at: float
    bot_account: bool = False  # read by op_queue only (the matcher's rule), from the account's bot_since


def _entry(row: Any, bot_account: bool = False) -> Entry:
    return Entry(
        row.account_id,
        row.name,
        row.mu,
        tuple(row.counts),
        bool(row.rated),
        row.bots_after,
        row.joined_at,
        row.seen_at,
        bot_account,
    )


# The statements of a join and of the heartbeat, built once (bound parameters): a storm of joins is hundreds, and
# SQLAlchemy's building of a statement costs more than the database's answer (see forsale.server.store.notices).
_RATING = select(ratings.c.mu).where(ratings.c.player == bindparam("player"), ratings.c.players == OVERALL)
_JOIN = {
    "postgresql": postgresql.insert(pairing).on_conflict_do_nothing().returning(pairing.c.account_id),
    "sqlite": sqlite.insert(pairing).on_conflict_do_nothing().returning(pairing.c.account_id),
}
_IDS: BindParameter[list[str]] = bindparam("ids", expanding=True)
_TOUCH = update(pairing).where(pairing.c.account_id.in_(_IDS)).values(seen_at=bindparam("now"))


def database_time(conn: Connection) -> float:
    """The database's clock (seconds since the epoch): an entry's renewal time (``seen_at``), written and compared by
    every node, so that the nodes' own clocks never decide who is still there (as leases: ``store/leases.py``)."""
    return float(conn.execute(select(db_now(conn))).scalar_one())


_QUEUE = select(pairing, accounts.c.bot_since).outerjoin(accounts, accounts.c.id == pairing.c.account_id)
_PRESENT = select(pairing.c.account_id).where(pairing.c.account_id.in_(_IDS))


def rated_game_under_way(conn: Connection, account_id: str) -> bool:
    """Whether the account holds a person's seat at a rated game still being played."""
    rows = conn.execute(
        select(games.c.config)
        .join(seats, seats.c.game_id == games.c.id)
        .where(seats.c.account_id == account_id, seats.c.kind == "human", games.c.status == "playing")
    ).scalars()
    return any(bool((config or {}).get("rated")) for config in rows)


def games_under_way(conn: Connection, account_id: str) -> int:
    """How many games still being played the account holds a person's seat at (any table: paired, made, solo)."""
    held = (
        select(func.count(func.distinct(seats.c.game_id)))
        .join(games, games.c.id == seats.c.game_id)
        .where(seats.c.account_id == account_id, seats.c.kind == "human", games.c.status == "playing")
    )
    return int(conn.execute(held).scalar() or 0)


@dataclass(frozen=True)
class Joined:
    """What joining did: ``status`` (``"queued"``, or why not: ``"queued_already"``, ``"playing_rated"``,
    ``"too_many_games"``), the entry
    as stored (its rating read), and the id of the account's latest notice before it (0: none)."""

    status: str
    entry: Entry
    last_notice: int


def op_join(entry: Entry, refuse_if_playing_rated: bool, games_limit: int) -> Callable[[Connection], Joined]:
    """Put ``entry`` in the queue, in one transaction with everything the answer needs (a join storm is many).

    ``refuse_if_playing_rated``: refuse an account that holds a seat at a rated game under way (one rated game
    at a time through quick pairing). ``games_limit``: refuse an account that holds a person's seat at that many
    games under way already (each join is one more table, perhaps with the server's bots: without a limit one
    account could have any number of them). The account's rating is read here too: ``entry.mu`` is its fallback.
    """

    def fn(conn: Connection) -> Joined:
        last_notice = op_last_id(entry.account_id)(conn)
        if refuse_if_playing_rated and rated_game_under_way(conn, entry.account_id):
            return Joined("playing_rated", entry, last_notice)
        if games_under_way(conn, entry.account_id) >= games_limit:
            return Joined("too_many_games", entry, last_notice)
        mu = conn.execute(_RATING, {"player": account_player(entry.account_id)}).scalar()
        rating = entry.mu if mu is None else float(mu)
        values = {
            "account_id": entry.account_id,
            "name": entry.name,
            "mu": rating,
            "counts": list(entry.counts),
            "rated": int(entry.rated),
            "bots_after": entry.bots_after,
            "joined_at": entry.joined_at,
            "seen_at": database_time(conn),
        }
        stored = replace(entry, mu=rating)
        if conn.execute(_JOIN[conn.dialect.name], values).first() is None:
            return Joined("queued_already", entry, last_notice)
        return Joined("queued", stored, last_notice)

    return fn


def op_leave(account_id: str) -> Callable[[Connection], bool]:
    """Take the account out of the queue; whether it was in."""

    def fn(conn: Connection) -> bool:
        return bool(conn.execute(delete(pairing).where(pairing.c.account_id == account_id)).rowcount)

    return fn


def op_touch(account_ids: Sequence[str]) -> Callable[[Connection], set[str]]:
    """The heartbeat: these accounts are still there (``seen_at``: now); which of them are in the queue."""

    def fn(conn: Connection) -> set[str]:
        conn.execute(_TOUCH, {"ids": list(account_ids), "now": database_time(conn)})
        return set(conn.execute(_PRESENT, {"ids": list(account_ids)}).scalars())

    return fn


def op_entry(account_id: str) -> Callable[[Connection], Entry | None]:
    def fn(conn: Connection) -> Entry | None:
        row = conn.execute(select(pairing).where(pairing.c.account_id == account_id)).first()
        return None if row is None else _entry(row)

    return fn


def op_counts(ttl: float) -> Callable[[Connection], dict[str, int]]:
    """How many wait (renewed in the last ``ttl`` seconds), rated and casual, and how many people are at games under
    way."""

    def fn(conn: Connection) -> dict[str, int]:
        rows = conn.execute(
            select(pairing.c.rated, func.count())
            .where(pairing.c.seen_at >= database_time(conn) - ttl)
            .group_by(pairing.c.rated)
        ).all()
        waiting = {int(rated): int(n) for rated, n in rows}
        playing = conn.execute(
            select(func.count())
            .select_from(seats.join(games, and_(seats.c.game_id == games.c.id, games.c.status == "playing")))
            .where(seats.c.kind == "human")
        ).scalar()
        return {"waiting": sum(waiting.values()), "waiting_rated": int(waiting.get(1, 0)), "playing": int(playing or 0)}

    return fn


def op_queue(ttl: float) -> Callable[[Connection], list[Entry] | None]:
    """The queue, for one matcher: the entries renewed in the last ``ttl`` seconds, after deleting the others (their
    owners are gone); None when another node's matcher holds :data:`PAIRING_LOCK` (it is matching now).

    Each entry's ``bot_account`` is read here, joined from the account's ``bot_since`` (a primary-key lookup per
    row): an account can become a bot account while it waits, and the matcher must know it then."""

    def fn(conn: Connection) -> list[Entry] | None:
        locked = text("SELECT pg_try_advisory_xact_lock(:key)")
        if conn.dialect.name == "postgresql" and not conn.execute(locked, {"key": PAIRING_LOCK}).scalar():
            return None
        conn.execute(delete(pairing).where(pairing.c.seen_at < database_time(conn) - ttl))
        return [_entry(row, row.bot_since is not None) for row in conn.execute(_QUEUE).all()]

    return fn


def op_claim(account_ids: Sequence[str]) -> Callable[[Connection], None]:
    """Take these accounts out of the queue, all or none: :class:`Claimed` (and the transaction rolls back) if
    any is missing. Run in the new table's transaction (see the module docstring)."""

    def fn(conn: Connection) -> None:
        gone = conn.execute(delete(pairing).where(pairing.c.account_id.in_(list(account_ids)))).rowcount
        if gone != len(set(account_ids)):
            raise Claimed(f"{len(set(account_ids)) - gone} of the table's members left the queue")

    return fn
