"""What a player's page is made of, read in one transaction, and an account's deletion (run on the writer
thread). What a profile shows of these rows is :mod:`forsale.server.people.profiles`'s; which games a viewer
may see, :mod:`forsale.server.store.visibility`'s."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, or_, select, update

from . import ratings as rating_rows
from .database import seat_names
from .schema import (
    accounts,
    api_tokens,
    challenges,
    games,
    pairing,
    rating_changes,
    seats,
    sessions,
    tournament_players,
    tournaments,
)
from .tournaments import OPEN, RUNNING
from .visibility import shown_to

_GAME = (games.c.id, games.c.name, games.c.players, games.c.config, games.c.result, games.c.finished_at)


@dataclass(frozen=True)
class PlayerRows:
    """A player's rows as ``viewer_id`` may see them: the finished games shown, the latest first (each a dict of
    the game's columns, its ``seat`` for an account's, and its :func:`~forsale.server.store.database.seat_names`
    for the first ``listed`` of them), its ratings by scope and its rating history."""

    account_id: str | None
    name: str
    since: float | None
    games: list[dict[str, Any]]
    standings: dict[int, rating_rows.Standing]
    history: list[rating_rows.Change]


def _with_names(conn: Connection, rows: list[Any], listed: int) -> list[dict[str, Any]]:
    return [dict(row) | (seat_names(conn, row["id"]) if i < listed else {}) for i, row in enumerate(rows)]


def op_account(key: str, viewer_id: str | None, listed: int) -> Callable[[Connection], PlayerRows | None]:
    """The rows of the account whose name key is ``key`` (see :func:`forsale.server.people.accounts.name_key`):
    every finished game of it the viewer may see."""

    def fn(conn: Connection) -> PlayerRows | None:
        found = conn.execute(
            select(accounts.c.id, accounts.c.name, accounts.c.created_at).where(accounts.c.name_key == key)
        ).first()
        if found is None:
            return None
        account_id, name, created_at = found
        rows = (
            conn.execute(
                select(*_GAME, seats.c.seat)
                .join(seats, seats.c.game_id == games.c.id)
                .where(seats.c.account_id == account_id, games.c.status == "over", shown_to(viewer_id))
                .order_by(games.c.finished_at.desc())
            )
            .mappings()
            .all()
        )
        player = rating_rows.account_player(account_id)
        return PlayerRows(
            account_id,
            name,
            created_at,
            _with_names(conn, list(rows), listed),
            rating_rows.standings(conn, player),
            rating_rows.history(conn, player, viewer_id),
        )

    return fn


def op_bot(bot: str, viewer_id: str | None, listed: int) -> Callable[[Connection], PlayerRows | None]:
    """The rows of a bot that has a rating (None if none): its latest ``listed`` rated games the viewer may see
    (a bot plays far too many unrated games to list them)."""

    def fn(conn: Connection) -> PlayerRows | None:
        player = rating_rows.bot_player(bot)
        standings = rating_rows.standings(conn, player)
        if not standings:
            return None
        rated = select(rating_changes.c.game_id).where(
            rating_changes.c.player == player, rating_changes.c.players == rating_rows.OVERALL
        )
        rows = (
            conn.execute(
                select(*_GAME)
                .where(games.c.id.in_(rated), shown_to(viewer_id))
                .order_by(games.c.finished_at.desc())
                .limit(listed)
            )
            .mappings()
            .all()
        )
        history = rating_rows.history(conn, player, viewer_id)
        return PlayerRows(None, bot, None, _with_names(conn, list(rows), listed), standings, history)

    return fn


def op_delete_account(account_id: str, deleted_name: str) -> Callable[[Connection], None]:
    """Delete an account: its seats, tournament entries and challenges' names are renamed ``deleted_name``, its
    sessions, API tokens and ratings go, then it does.

    Its entries in tournaments not over are withdrawn as :func:`~forsale.server.store.tournaments.op_withdraw`
    does (before the start deleted, later marked: no longer paired, past games still counting), and its pending
    challenges, made or received, are cancelled and its wait in quick pairing ends: nobody is left to play them.
    """

    def fn(conn: Connection) -> None:
        conn.execute(update(seats).where(seats.c.account_id == account_id).values(name=deleted_name))
        mine = tournament_players.c.account_id == account_id
        status_of = select(tournaments.c.status).where(tournaments.c.id == tournament_players.c.tournament_id)
        conn.execute(delete(tournament_players).where(mine, status_of.scalar_subquery() == OPEN))
        still = and_(mine, tournament_players.c.withdrawn_at.is_(None), status_of.scalar_subquery() == RUNNING)
        conn.execute(update(tournament_players).where(still).values(withdrawn_at=time.time()))
        conn.execute(update(tournament_players).where(mine).values(name=deleted_name))
        sides = or_(challenges.c.challenger_id == account_id, challenges.c.bot_id == account_id)
        named = select(challenges.c.id, challenges.c.challenger_id, challenges.c.terms).where(sides)
        for row in conn.execute(named).all():
            side = "from" if row.challenger_id == account_id else "to"
            conn.execute(
                update(challenges).where(challenges.c.id == row.id).values(terms={**row.terms, side: deleted_name})
            )
        conn.execute(update(challenges).where(sides, challenges.c.status == "pending").values(status="cancelled"))
        conn.execute(delete(pairing).where(pairing.c.account_id == account_id))
        conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
        conn.execute(delete(api_tokens).where(api_tokens.c.account_id == account_id))  # a bot account: its tokens
        rating_rows.forget(conn, rating_rows.account_player(account_id))
        conn.execute(delete(accounts).where(accounts.c.id == account_id))

    return fn
