"""Players' pages: what anyone may see of an account or a bot, and what deleting an account leaves behind.

A profile holds the player's ratings (overall and per player count), their
rating after each rated game (for the plot), their finished games with the
games played and won per player count, and links to each game's replay and
record. Which finished games a viewer sees, on an account's profile, a bot's
and in their rating histories, is :mod:`forsale.server.store.visibility`'s one
rule: public games (listed in the lobby) to everyone, any other (private,
solo, invitation-only) to its own players only; so the account's owner sees
every one of their games. Games in progress are the owner's alone (``GET
/api/me/games``).

Deleting an account (:func:`op_delete_account`) removes its name, password,
sessions and ratings. Its games stay in the history of the others, with the
seat's name replaced by :data:`DELETED_NAME`; the seat keeps the account's
opaque id, so a ratings rebuild still rates those games as they were rated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, delete, select, update

from ..names import DELETED_NAME
from ..store.database import seat_names
from ..store.schema import accounts, games, rating_changes, seats, sessions
from ..store.visibility import shown_to
from . import skill as rating_store

GAMES_SHOWN = 100


def _game_entry(conn: Connection, row: Any, seat: int | None) -> dict[str, Any]:
    result = row["result"] or {}
    return {
        "id": row["id"],
        "name": row["name"],
        "players": row["players"],
        **seat_names(conn, row["id"]),
        "seat": seat,
        "rated": bool((row["config"] or {}).get("rated")),
        "finished_at": row["finished_at"],
        "scores": result.get("scores"),
        "winners": result.get("winners"),
        "record": f"/api/tables/{row['id']}/record",
        "replay": f"#/replay/{row['id']}",
    }


def _by_count(played: list[tuple[int, bool]]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for players, won in played:
        entry = out.setdefault(str(players), {"played": 0, "won": 0})
        entry["played"] += 1
        entry["won"] += int(won)
    return dict(sorted(out.items()))


def op_account_profile(key: str, viewer_id: str | None) -> Callable[[Connection], dict[str, Any] | None]:
    """The profile of the account whose name key is ``key`` (see :func:`forsale.server.people.accounts.name_key`)."""

    def fn(conn: Connection) -> dict[str, Any] | None:
        found = conn.execute(
            select(accounts.c.id, accounts.c.name, accounts.c.created_at).where(accounts.c.name_key == key)
        ).first()
        if found is None:
            return None
        account_id, name, created_at = found
        owner = viewer_id == account_id
        rows = (
            conn.execute(
                select(
                    games.c.id,
                    games.c.name,
                    games.c.players,
                    games.c.config,
                    games.c.result,
                    games.c.finished_at,
                    seats.c.seat,
                )
                .join(seats, seats.c.game_id == games.c.id)
                .where(seats.c.account_id == account_id, games.c.status == "over", shown_to(viewer_id))
                .order_by(games.c.finished_at.desc())
            )
            .mappings()
            .all()
        )
        shown = list(rows)
        played = [(r["players"], r["seat"] in ((r["result"] or {}).get("winners") or [])) for r in shown]
        player = rating_store.account_player(account_id)
        return {
            "kind": "account",
            "name": name,
            "since": created_at,
            "me": owner,
            "by_players": _by_count(played),
            "ratings": rating_store.op_standings(player)(conn),
            "history": rating_store.op_history(player, viewer_id)(conn),
            "games": [_game_entry(conn, r, r["seat"]) for r in shown[:GAMES_SHOWN]],
        }

    return fn


def op_bot_profile(bot: str, viewer_id: str | None = None) -> Callable[[Connection], dict[str, Any] | None]:
    """A bot's profile: its ratings and the rated games of it that ``viewer_id`` may see (a bot plays far too
    many unrated games to list them)."""

    def fn(conn: Connection) -> dict[str, Any] | None:
        player = rating_store.bot_player(bot)
        standings = rating_store.op_standings(player)(conn)
        if not standings:
            return None
        rated = select(rating_changes.c.game_id).where(
            rating_changes.c.player == player, rating_changes.c.players == rating_store.OVERALL
        )
        rows = (
            conn.execute(
                select(games.c.id, games.c.name, games.c.players, games.c.config, games.c.result, games.c.finished_at)
                .where(games.c.id.in_(rated), shown_to(viewer_id))
                .order_by(games.c.finished_at.desc())
                .limit(GAMES_SHOWN)
            )
            .mappings()
            .all()
        )
        return {
            "kind": "bot",
            "name": bot,
            "since": None,
            "me": False,
            "by_players": {
                str(n): {"played": s["games"], "won": s["wins"]} for n, s in sorted(standings.items()) if n != 0
            },
            "ratings": standings,
            "history": rating_store.op_history(player, viewer_id)(conn),
            "games": [_game_entry(conn, r, None) for r in rows],
        }

    return fn


def op_delete_account(account_id: str) -> Callable[[Connection], None]:
    """Delete an account: its seats are renamed :data:`DELETED_NAME`, its sessions and ratings go, then it does."""

    def fn(conn: Connection) -> None:
        conn.execute(update(seats).where(seats.c.account_id == account_id).values(name=DELETED_NAME))
        conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
        rating_store.op_forget(rating_store.account_player(account_id))(conn)
        conn.execute(delete(accounts).where(accounts.c.id == account_id))

    return fn
