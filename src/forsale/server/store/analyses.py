"""Post-game analyses in ``forsale_analyses``: one per game, computed once and kept for every later viewer
(:mod:`forsale.server.http.routes.analysis` computes them in the bot workers)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, insert, select

from .schema import analyses


def op_load(game_id: str) -> Callable[[Connection], dict[str, Any] | None]:
    def fn(conn: Connection) -> dict[str, Any] | None:
        row = conn.execute(select(analyses).where(analyses.c.game_id == game_id)).mappings().first()
        return None if row is None else dict(row)

    return fn


def op_save(game_id: str, budget: int, seed: int, data: dict[str, Any]) -> Callable[[Connection], None]:
    """Keep a game's analysis unless one is kept already: the first one stored stays."""

    def fn(conn: Connection) -> None:
        if conn.execute(select(analyses.c.game_id).where(analyses.c.game_id == game_id)).first() is None:
            conn.execute(
                insert(analyses).values(game_id=game_id, budget=budget, seed=seed, data=data, created_at=time.time())
            )

    return fn
