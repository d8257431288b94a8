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

Deleting an account (:func:`delete_account`) removes its name, password,
sessions and ratings. Its games stay in the history of the others, with the
seat's name replaced by :data:`DELETED_NAME`; the seat keeps the account's
opaque id, so a ratings rebuild still rates those games as they were rated.
"""

from __future__ import annotations

from typing import Any

from ..names import DELETED_NAME
from ..store import profiles as rows
from ..store.database import Storage
from ..store.ratings import OVERALL
from .skill import shown_history, shown_standings

GAMES_SHOWN = 100


def _game_entry(row: dict[str, Any], seat: int | None) -> dict[str, Any]:
    result = row["result"] or {}
    return {
        "id": row["id"],
        "name": row["name"],
        "players": row["players"],
        "names": row["names"],
        "bots": row["bots"],
        "open": row["open"],
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


async def account_profile(storage: Storage, key: str, viewer_id: str | None) -> dict[str, Any] | None:
    """The profile of the account whose name key is ``key`` (see :func:`forsale.server.people.accounts.name_key`)."""
    found = await storage.run(rows.op_account(key, viewer_id, GAMES_SHOWN))
    if found is None:
        return None
    played = [(r["players"], r["seat"] in ((r["result"] or {}).get("winners") or [])) for r in found.games]
    return {
        "kind": "account",
        "name": found.name,
        "since": found.since,
        "me": viewer_id == found.account_id,
        "by_players": _by_count(played),
        "ratings": shown_standings(found.standings),
        "history": shown_history(found.history),
        "games": [_game_entry(r, r["seat"]) for r in found.games[:GAMES_SHOWN]],
    }


async def bot_profile(storage: Storage, bot: str, viewer_id: str | None = None) -> dict[str, Any] | None:
    """A bot's profile: its ratings and the rated games of it that ``viewer_id`` may see (a bot plays far too
    many unrated games to list them)."""
    found = await storage.run(rows.op_bot(bot, viewer_id, GAMES_SHOWN))
    if found is None:
        return None
    return {
        "kind": "bot",
        "name": bot,
        "since": None,
        "me": False,
        "by_players": {
            str(n): {"played": s.games, "won": s.wins} for n, s in sorted(found.standings.items()) if n != OVERALL
        },
        "ratings": shown_standings(found.standings),
        "history": shown_history(found.history),
        "games": [_game_entry(r, None) for r in found.games],
    }


async def delete_account(storage: Storage, account_id: str) -> None:
    """Delete an account: its seats are renamed :data:`DELETED_NAME`, its sessions and ratings go, then it does."""
    await storage.run(rows.op_delete_account(account_id, DELETED_NAME))
