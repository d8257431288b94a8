"""A table's chat in ``forsale_chat``: a message stored, the latest read back (run on the writer thread:
:meth:`~forsale.server.store.database.Storage.run`). The rules of what may be said are the table's
(:mod:`forsale.server.table.chat`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, insert, select

from .schema import chat


def op_say(game_id: str, message: dict[str, Any]) -> Callable[[Connection], None]:
    def fn(conn: Connection) -> None:
        conn.execute(
            insert(chat).values(
                game_id=game_id,
                n=message["n"],
                seat=message["seat"],
                name=message["name"],
                body=message["text"],
                at=message["at"] / 1000,
            )
        )

    return fn


def op_history(game_id: str, limit: int) -> Callable[[Connection], list[dict[str, Any]]]:
    """The game's latest ``limit`` messages, oldest first."""

    def fn(conn: Connection) -> list[dict[str, Any]]:
        rows = conn.execute(
            select(chat.c.n, chat.c.seat, chat.c.name, chat.c.body, chat.c.at)
            .where(chat.c.game_id == game_id)
            .order_by(chat.c.n.desc())
            .limit(limit)
        ).all()
        return [
            {"n": r.n, "seat": r.seat, "name": r.name, "text": r.body, "at": int(r.at * 1000)} for r in reversed(rows)
        ]

    return fn
