"""People's challenges to bot accounts in ``forsale_challenges`` (run on the writer thread). What a challenge is
and how it ends are :mod:`forsale.server.lobby.challenges`'s; here are only the queries, each answer a check
and a change in one transaction, so that two nodes (or a bot's accept racing the challenger's cancel) never both
win."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from .schema import challenges

PENDING = "pending"

WINDOW = 60.0
"""Seconds over which a challenger's new challenges are counted against the limit per minute (:func:`op_create`)."""


def op_create(row: dict[str, Any], pending_limit: int, per_minute: int) -> Callable[[Connection], str | float]:
    """Store a new challenge: ``"created"``; or, nothing stored, ``"pending"`` if its challenger already has
    ``pending_limit`` pending, or the seconds to wait (a float) if it made ``per_minute`` in the last
    :data:`WINDOW` seconds, whatever became of them (a create-and-cancel loop would flood the bot's notices)."""

    def fn(conn: Connection) -> str | float:
        now = time.time()
        mine = challenges.c.challenger_id == row["challenger_id"]
        pending = conn.execute(
            select(func.count()).where(mine, challenges.c.status == PENDING, challenges.c.expires_at > now)
        ).scalar_one()
        if pending >= pending_limit:
            return "pending"
        recent = (
            conn.execute(
                select(challenges.c.created_at)
                .where(mine, challenges.c.created_at > now - WINDOW)
                .order_by(challenges.c.created_at.desc())
                .limit(per_minute)
            )
            .scalars()
            .all()
        )
        if len(recent) >= per_minute:
            return max(0.0, recent[-1] + WINDOW - now)  # when the oldest of them leaves the window
        conn.execute(insert(challenges).values(**row))
        return "created"

    return fn


def op_prune(before: float) -> Callable[[Connection], int]:
    """Delete the challenges that expired before ``before`` (epoch seconds), answered or not: how many went. A
    challenge is read for a minute (its bot's answer), then only by a page that shows its end: a day is ample."""

    def fn(conn: Connection) -> int:
        return conn.execute(delete(challenges).where(challenges.c.expires_at < before)).rowcount or 0

    return fn


def op_get(challenge_id: str) -> Callable[[Connection], dict[str, Any] | None]:
    def fn(conn: Connection) -> dict[str, Any] | None:
        row = conn.execute(select(challenges).where(challenges.c.id == challenge_id)).mappings().first()
        return None if row is None else dict(row)

    return fn


def op_settle(challenge_id: str, status: str, reason: str | None = None) -> Callable[[Connection], bool]:
    """Move a pending, unexpired challenge to ``status``; False if it was no longer pending (or had expired)."""

    def fn(conn: Connection) -> bool:
        done = conn.execute(
            update(challenges)
            .where(
                challenges.c.id == challenge_id, challenges.c.status == PENDING, challenges.c.expires_at > time.time()
            )
            .values(status=status, reason=reason)
        )
        return bool(done.rowcount)

    return fn


def op_set_table(challenge_id: str, table_id: str | None, status: str | None = None) -> Callable[[Connection], None]:
    """The table an accepted challenge made (or, with ``status``, why it made none)."""

    def fn(conn: Connection) -> None:
        values: dict[str, Any] = {"table_id": table_id}
        if status is not None:
            values["status"] = status
        conn.execute(update(challenges).where(challenges.c.id == challenge_id).values(**values))

    return fn


def op_pending_for(bot_id: str) -> Callable[[Connection], list[dict[str, Any]]]:
    """The bot account's pending, unexpired challenges, oldest first (a bot that starts reads them)."""

    def fn(conn: Connection) -> list[dict[str, Any]]:
        rows = conn.execute(
            select(challenges)
            .where(challenges.c.bot_id == bot_id, challenges.c.status == PENDING, challenges.c.expires_at > time.time())
            .order_by(challenges.c.created_at)
        ).mappings()
        return [dict(r) for r in rows.all()]

    return fn
