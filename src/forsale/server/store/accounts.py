"""Accounts in ``forsale_accounts``: made (a name and its look-alikes checked in the same transaction), found, given
a new password, and their games (run on the writer thread). The rules of names and passwords are
:mod:`forsale.server.people.accounts`'s."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from .database import seat_names
from .schema import accounts, games, seats

Conflict = IntegrityError
"""A write refused by a unique index: another writer stored the same name first."""


NAMES_LOCK = 0x666F7273616C6E  # "forsaln": the PostgreSQL advisory lock that serialises new accounts' names
"""Two sign-ups of look-alikes (``Paul``, ``PauI``) at once must not both pass the check: one node's writer thread
runs one storage call at a time, and on PostgreSQL (a cluster's nodes) each creation takes this lock first."""


def op_create(account_id: str, name: str, key: str, password_hash: str, skel: str) -> Callable[[Connection], bool]:
    """Create the account unless its name, or a look-alike, is taken (False then): checked and inserted in one
    transaction, since a skeleton cannot have a unique index (an old database may hold two that collide)."""

    def fn(conn: Connection) -> bool:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": NAMES_LOCK})
        if op_taken(key, skel)(conn):
            return False
        conn.execute(
            insert(accounts).values(
                id=account_id, name=name, name_key=key, password_hash=password_hash, created_at=time.time(),
                name_skeleton=skel,
            )
        )  # fmt: skip
        return True

    return fn


def op_taken(key: str, skel: str) -> Callable[[Connection], bool]:
    """Whether an account has this name, or one that reads the same (its skeleton)."""

    def fn(conn: Connection) -> bool:
        if "\x00" in key:  # PostgreSQL text holds no NUL, and no account's name does
            return False
        found = select(accounts.c.id).where(or_(accounts.c.name_key == key, accounts.c.name_skeleton == skel))
        return conn.execute(found.limit(1)).first() is not None

    return fn


def op_find(key: str) -> Callable[[Connection], tuple[str, str, str] | None]:
    def fn(conn: Connection) -> tuple[str, str, str] | None:
        row = conn.execute(
            select(accounts.c.id, accounts.c.name, accounts.c.password_hash).where(accounts.c.name_key == key)
        ).first()
        return None if row is None else (row[0], row[1], row[2])

    return fn


def op_set_password(account_id: str, password_hash: str) -> Callable[[Connection], None]:
    def fn(conn: Connection) -> None:
        conn.execute(update(accounts).where(accounts.c.id == account_id).values(password_hash=password_hash))

    return fn


MY_GAME_COLUMNS = (games.c.id, games.c.name, games.c.status, games.c.players, games.c.result, seats.c.seat,
                   games.c.created_at, games.c.finished_at)  # fmt: skip


def op_games(account_id: str, limit: int) -> Callable[[Connection], list[dict[str, Any]]]:
    """The account's games, the latest first: in progress and finished alike."""

    def fn(conn: Connection) -> list[dict[str, Any]]:
        rows = conn.execute(
            select(*MY_GAME_COLUMNS)
            .join(seats, seats.c.game_id == games.c.id)
            .where(seats.c.account_id == account_id)
            .order_by(games.c.updated_at.desc())
            .limit(limit)
        ).mappings()
        out = []
        for row in rows.all():
            result = row["result"] or {}
            out.append(
                {
                    "id": row["id"],
                    "name": row["name"],
                    "status": row["status"],
                    "players": row["players"],
                    **seat_names(conn, row["id"]),
                    "seat": row["seat"],
                    "created_at": row["created_at"],
                    "finished_at": row["finished_at"],
                    "winners": result.get("winners"),
                }
            )
        return out

    return fn
