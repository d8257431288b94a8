"""Sessions in ``forsale_sessions``: started, looked up, ended (run on the writer thread). What a session is,
its cookie and its lifetime, are :mod:`forsale.server.people.sessions`'s."""

from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import Connection, delete, insert, select

from .schema import accounts, sessions


def op_start(account_id: str, id_hash: str, lifetime: float, ended: str | None = None) -> Callable[[Connection], None]:
    """Store a new session for ``lifetime`` seconds; end the one it replaces (``ended``: sign-in rotates) and the
    account's expired ones."""

    def fn(conn: Connection) -> None:
        now = time.time()
        if ended is not None:
            conn.execute(delete(sessions).where(sessions.c.id_hash == ended))
        conn.execute(delete(sessions).where(sessions.c.account_id == account_id, sessions.c.expires_at <= now))
        conn.execute(
            insert(sessions).values(id_hash=id_hash, account_id=account_id, created_at=now, expires_at=now + lifetime)
        )

    return fn


def op_lookup(id_hash: str) -> Callable[[Connection], tuple[str, str, bool] | None]:
    """``(account id, name, whether it is a bot account)`` of an unexpired session, else None."""

    def fn(conn: Connection) -> tuple[str, str, bool] | None:
        row = conn.execute(
            select(accounts.c.id, accounts.c.name, accounts.c.bot_since)
            .join(sessions, sessions.c.account_id == accounts.c.id)
            .where(sessions.c.id_hash == id_hash, sessions.c.expires_at > time.time())
        ).first()
        return None if row is None else (row[0], row[1], row[2] is not None)

    return fn


def op_end(id_hash: str) -> Callable[[Connection], None]:
    def fn(conn: Connection) -> None:
        conn.execute(delete(sessions).where(sessions.c.id_hash == id_hash))

    return fn


def op_end_all(account_id: str) -> Callable[[Connection], None]:
    """Every session of an account (a changed password signs out every other device)."""

    def fn(conn: Connection) -> None:
        conn.execute(delete(sessions).where(sessions.c.account_id == account_id))

    return fn
