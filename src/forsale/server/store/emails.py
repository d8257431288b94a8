"""Accounts' addresses and the mail counts in ``forsale_mails`` (run on the writer thread). What an address may
be sent, and when, is :mod:`forsale.server.people.emails`'s: its limits come in as arguments."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from sqlalchemy import Connection, delete, func, insert, select, text, update

from .schema import accounts, mails

MAILS_LOCK = 0x666F7273616C6D  # "forsalm": the PostgreSQL advisory lock that serialises the mail counts
"""On PostgreSQL (a cluster's nodes each have their own writer thread), every check-and-count of a limit takes
this transaction-level advisory lock first, so two nodes cannot both pass a check before either counts.
Mail is rare: one lock for all of it costs nothing, and one lock cannot deadlock with another."""
KEPT_SECONDS = 86400.0
"""How long a message is counted: no limit looks further back, so the table stays small."""

Scope = Literal["address", "account", "domain"]
"""What a limit counts the messages of: one address (its key), one account, or one domain."""
Limit = tuple[Scope, int, float]
"""``(scope, messages, seconds)``: at most that many messages of the scope in any such span."""

_STATE = (accounts.c.email, accounts.c.language, accounts.c.email_confirmed_at)
_CURRENT = (*_STATE, accounts.c.email_token_expires)


def _shown(row: Any) -> dict[str, Any]:
    return {"email": row.email, "language": row.language, "email_confirmed": row.email_confirmed_at is not None}


def op_state(account_id: str) -> Callable[[Connection], dict[str, Any] | None]:
    """The account's address, language, confirmation time and link's expiry (None: no such account)."""

    def fn(conn: Connection) -> dict[str, Any] | None:
        row = conn.execute(select(*_CURRENT).where(accounts.c.id == account_id)).first()
        return None if row is None else dict(row._mapping)

    return fn


def op_shown(account_id: str) -> Callable[[Connection], dict[str, Any]]:
    """What ``/api/me`` shows of the account's address: it, its language, and whether it is confirmed."""

    def fn(conn: Connection) -> dict[str, Any]:
        row = conn.execute(select(*_STATE).where(accounts.c.id == account_id)).first()
        return {"email": None, "language": None, "email_confirmed": False} if row is None else _shown(row)

    return fn


def op_store(account_id: str, values: dict[str, Any]) -> Callable[[Connection], dict[str, Any]]:
    """Set the account's address columns (``values``), and read back what ``/api/me`` shows of them."""

    def fn(conn: Connection) -> dict[str, Any]:
        conn.execute(update(accounts).where(accounts.c.id == account_id).values(**values))
        return op_shown(account_id)(conn)

    return fn


def _count(conn: Connection, since: float, *where: Any) -> tuple[int, float | None]:
    row = conn.execute(select(func.count(), func.min(mails.c.at)).where(mails.c.at > since, *where)).first()
    return (int(row[0]), row[1]) if row is not None else (0, None)


def _lock(conn: Connection) -> None:
    """Serialise the mail counts across a cluster's nodes (one node's writer thread serialises its own)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MAILS_LOCK})


def _sent(conn: Connection, key: str, kind: str, account_id: str | None, now: float) -> None:
    conn.execute(delete(mails).where(mails.c.at < now - KEPT_SECONDS))
    conn.execute(insert(mails).values(address=key, kind=kind, account_id=account_id, at=now))


def op_claim(
    key: str, domain: str, account_id: str, now: float, limits: Sequence[Limit], *, count: bool
) -> Callable[[Connection], float]:
    """Seconds until one more confirmation message may go to address ``key`` for ``account_id`` under ``limits``
    (0: now, and it is counted unless ``count`` is false).

    The check and the count are one transaction, so no two requests both take the last message of a limit.
    """

    def fn(conn: Connection) -> float:
        _lock(conn)
        where = {
            "address": mails.c.address == key,
            "account": mails.c.account_id == account_id,
            "domain": mails.c.address.endswith("@" + domain, autoescape=True),
        }
        wait = 0.0
        for scope, limit, span in limits:
            sent, oldest = _count(conn, now - span, mails.c.kind == "confirm", where[scope])
            if sent >= limit and oldest is not None:
                wait = max(wait, oldest + span - now)
        if wait == 0 and count:
            _sent(conn, key, "confirm", account_id, now)
        return wait

    return fn


def op_turn_allowed(key: str, now: float, limit: int, span: float) -> Callable[[Connection], bool]:
    """Whether address ``key`` was sent fewer than ``limit`` "your turn" messages in the last ``span`` seconds;
    counts one more if so (checked and counted in one transaction)."""

    def fn(conn: Connection) -> bool:
        _lock(conn)
        sent, _ = _count(conn, now - span, mails.c.kind == "turn", mails.c.address == key)
        if sent >= limit:
            return False
        _sent(conn, key, "turn", None, now)
        return True

    return fn


def op_confirm(token_hash: str, now: float) -> Callable[[Connection], dict[str, Any] | None]:
    """Confirm the address whose unexpired link token hashes to ``token_hash`` (None: no such link)."""

    def fn(conn: Connection) -> dict[str, Any] | None:
        row = conn.execute(
            select(accounts.c.id, accounts.c.email_token_expires).where(accounts.c.email_token_hash == token_hash)
        ).first()
        if row is None or row.email_token_expires is None or row.email_token_expires < now:
            return None
        conn.execute(
            update(accounts)
            .where(accounts.c.id == row.id)
            .values(email_confirmed_at=now, email_token_hash=None, email_token_expires=None)
        )
        return op_shown(row.id)(conn)

    return fn


def op_confirmed(account_ids: list[str]) -> Callable[[Connection], dict[str, tuple[str, str | None]]]:
    """The confirmed addresses (and languages) of those of ``account_ids`` that have one: turn emails go there."""

    def fn(conn: Connection) -> dict[str, tuple[str, str | None]]:
        rows = conn.execute(
            select(accounts.c.id, accounts.c.email, accounts.c.language).where(
                accounts.c.id.in_(account_ids),
                accounts.c.email.is_not(None),
                accounts.c.email_confirmed_at.is_not(None),
            )
        )
        return {row.id: (row.email, row.language) for row in rows}

    return fn
