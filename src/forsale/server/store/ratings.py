"""Ratings in ``forsale_ratings`` and their history in ``forsale_rating_changes`` (run on the writer thread).

Who is rated at a seat, and how one game moves the ratings, are :mod:`forsale.server.people.skill`'s: the
operations that rate take them as two functions (:data:`Judge`, :data:`Update`), so that reading the game,
computing and writing the new ratings stay one transaction, as the order of rated games needs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from .schema import accounts, events, games, rating_changes, ratings, seats
from .visibility import shown_to

OVERALL = 0
"""The ``players`` of a rating over every player count."""
PERSON_SOURCES = ("player", "away")
"""Event sources that mean a person held the seat (``away``: the server moved for a person who was gone)."""
ACCOUNT, BOT = "account:", "bot:"
"""How a rated player is named in the tables: ``account:<id>`` or ``bot:<name>`` (a bot has no row elsewhere)."""


def account_player(account_id: str) -> str:
    return f"{ACCOUNT}{account_id}"


def bot_player(name: str) -> str:
    """The rated player of the bot called ``name`` at its default strength (``hard`` -> ``bot:hard``)."""
    return f"{BOT}{name}"


@dataclass(frozen=True)
class Standing:
    mu: float
    sigma: float
    games: int
    wins: int

    @property
    def ordinal(self) -> float:
        """The conservative estimate ``mu - 3 sigma`` that the leaderboard sorts by (as the arena's reports do)."""
        return self.mu - 3 * self.sigma


Key = tuple[str, int]
"""``(player, players)``: one rating."""


@dataclass(frozen=True)
class RatedSeat:
    """A seat of a finished rated game as stored: who held it, and whether a person moved there."""

    kind: str
    bot: str | None
    account_id: str | None
    moved_by_person: bool


@dataclass(frozen=True)
class FinishedGame:
    """A rated game that ended, as stored: its seats in order and its result."""

    id: str
    players: int
    seats: tuple[RatedSeat, ...]
    result: dict[str, Any]
    finished_at: float


@dataclass(frozen=True)
class RatedGame:
    """What rating a finished game needs: who sat where, their placings, and when it ended."""

    id: str
    players: int
    names: tuple[str | None, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    finished_at: float


Judge = Callable[[FinishedGame], RatedGame]
"""Who is rated at each seat of a finished game, and their placings."""
Update = Callable[[RatedGame, Mapping[Key, Standing]], dict[Key, Standing]]
"""The new standings of a game's players, from their standings before it."""


@dataclass(frozen=True)
class Change:
    """A player's rating after one rated game; ``game`` and ``at`` are None where the viewer may not see it."""

    players: int
    game: str | None
    at: float | None
    mu: float
    sigma: float


# -- reading --------------------------------------------------------------------------------------
def _finished_games(conn: Connection, game_ids: Sequence[str] | None) -> list[FinishedGame]:
    """The rated, finished games among ``game_ids`` (None: all of them), in the order they ended."""
    query = select(games.c.id, games.c.players, games.c.config, games.c.result, games.c.finished_at).where(
        games.c.status == "over"
    )
    if game_ids is not None:
        query = query.where(games.c.id.in_(game_ids))
    rows = [r for r in conn.execute(query).mappings() if (r["config"] or {}).get("rated") and r["result"]]
    rows.sort(key=lambda r: (r["finished_at"] or 0.0, r["id"]))
    out = []
    for row in rows:
        moved = set(
            conn.execute(
                select(events.c.seat)
                .where(events.c.game_id == row["id"], events.c.source.in_(PERSON_SOURCES))
                .distinct()
            ).scalars()
        )
        held = conn.execute(select(seats).where(seats.c.game_id == row["id"]).order_by(seats.c.seat))
        out.append(
            FinishedGame(
                id=row["id"],
                players=row["players"],
                seats=tuple(RatedSeat(s.kind, s.bot, s.account_id, s.seat in moved) for s in held),
                result=row["result"],
                finished_at=row["finished_at"] or 0.0,
            )
        )
    return out


def _standings(conn: Connection, keys: Iterable[Key]) -> dict[Key, Standing]:
    out = {}
    for player, scope in keys:
        row = conn.execute(
            select(ratings.c.mu, ratings.c.sigma, ratings.c.games, ratings.c.wins).where(
                ratings.c.player == player, ratings.c.players == scope
            )
        ).first()
        if row is not None:
            out[player, scope] = Standing(row[0], row[1], row[2], row[3])
    return out


def _existing_accounts(conn: Connection, players: Iterable[str]) -> set[str]:
    """The ``account:`` players among ``players`` whose account still exists."""
    ids = [p.removeprefix(ACCOUNT) for p in players if p.startswith(ACCOUNT)]
    if not ids:
        return set()
    found = conn.execute(select(accounts.c.id).where(accounts.c.id.in_(ids))).scalars()
    return {account_player(i) for i in found}


def _stored(players: Iterable[str], existing: set[str]) -> set[str]:
    """Who gets rows: bots, and accounts that still exist (a deleted account is rated, never stored)."""
    return {p for p in players if p.startswith(BOT) or p in existing}


def _write(conn: Connection, game: RatedGame, new: Mapping[Key, Standing], keep: set[str], known: set[Key]) -> None:
    """Store the game's new standings (``known``: the keys that have a row already) and their history rows."""
    now = time.time()
    for (player, scope), standing in new.items():
        if player not in keep:
            continue
        values = {
            "mu": standing.mu,
            "sigma": standing.sigma,
            "games": standing.games,
            "wins": standing.wins,
            "updated_at": now,
        }
        if (player, scope) not in known:
            conn.execute(insert(ratings).values(player=player, players=scope, **values))
        else:
            conn.execute(update(ratings).where(ratings.c.player == player, ratings.c.players == scope).values(**values))
        conn.execute(
            insert(rating_changes).values(
                game_id=game.id, player=player, players=scope, mu=standing.mu, sigma=standing.sigma, at=game.finished_at
            )
        )


# -- operations (Storage.run) ------------------------------------------------------------------
def op_rate_game(game_id: str, judge: Judge, update: Update) -> Callable[[Connection], int]:
    """Rate one finished game, once: a game already rated (or not rated, or not over) changes nothing.

    Returns how many ratings changed.
    """

    def fn(conn: Connection) -> int:
        if conn.execute(select(rating_changes.c.game_id).where(rating_changes.c.game_id == game_id)).first():
            return 0
        found = _finished_games(conn, [game_id])
        if not found:
            return 0
        game = judge(found[0])
        players = {name for name in game.names if name is not None}
        before = _standings(conn, [(p, s) for p in players for s in (OVERALL, game.players)])
        new = update(game, before)
        keep = _stored(players, _existing_accounts(conn, players))
        _write(conn, game, new, keep, set(before))
        return sum(1 for key in new if key[0] in keep)

    return fn


def op_rebuild(judge: Judge, update: Update) -> Callable[[Connection], int]:
    """Forget every rating and rate every rated game again, in the order they ended; returns how many games."""

    def fn(conn: Connection) -> int:
        conn.execute(delete(rating_changes))
        conn.execute(delete(ratings))
        rated = [judge(game) for game in _finished_games(conn, None)]
        every = {name for game in rated for name in game.names if name is not None}
        keep = _stored(every, _existing_accounts(conn, every))
        standings: dict[Key, Standing] = {}
        for game in rated:
            new = update(game, standings)
            _write(conn, game, new, keep, {key for key in new if key in standings})
            standings.update(new)
        return len(rated)

    return fn


def op_unrated() -> Callable[[Connection], list[str]]:
    """Rated, finished games with no rating yet (the server stopped between a game's end and its rating)."""

    def fn(conn: Connection) -> list[str]:
        done = select(rating_changes.c.game_id)
        rows = conn.execute(
            select(games.c.id, games.c.config, games.c.finished_at)
            .where(games.c.status == "over", games.c.id.not_in(done))
            .order_by(games.c.finished_at)
        ).all()
        return [row[0] for row in rows if (row[1] or {}).get("rated")]

    return fn


def op_rating_count() -> Callable[[Connection], tuple[int, int]]:
    """How many players are rated, and how many ratings they hold (per player count and overall): a rebuild's summary."""

    def fn(conn: Connection) -> tuple[int, int]:
        players = [row[0] for row in conn.execute(select(ratings.c.player)).all()]
        return len(set(players)), len(players)

    return fn


def forget(conn: Connection, player: str) -> None:
    """Drop a player's ratings and their history (a deleted account); the others' ratings stay as they are."""
    conn.execute(delete(rating_changes).where(rating_changes.c.player == player))
    conn.execute(delete(ratings).where(ratings.c.player == player))


def op_leaderboard(
    players: int, limit: int, kind: str = "all"
) -> Callable[[Connection], list[tuple[str, str | None, Standing]]]:
    """The best ``limit`` ratings of one scope, by ordinal: ``(player, its account's name or None, standing)``."""

    def fn(conn: Connection) -> list[tuple[str, str | None, Standing]]:
        query = select(ratings).where(ratings.c.players == players)
        if kind == "people":
            query = query.where(ratings.c.player.startswith(ACCOUNT))
        elif kind == "bots":
            query = query.where(ratings.c.player.startswith(BOT))
        query = query.order_by((ratings.c.mu - 3 * ratings.c.sigma).desc(), ratings.c.player).limit(limit)
        rows = conn.execute(query).mappings().all()
        names = _account_names(conn, [r["player"] for r in rows])
        return [
            (row["player"], names.get(row["player"]), Standing(row["mu"], row["sigma"], row["games"], row["wins"]))
            for row in rows
        ]

    return fn


def _account_names(conn: Connection, players: Iterable[str]) -> dict[str, str]:
    ids = [p.removeprefix(ACCOUNT) for p in players if p.startswith(ACCOUNT)]
    if not ids:
        return {}
    rows = conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(ids))).all()
    return {account_player(r[0]): r[1] for r in rows}


def standings(conn: Connection, player: str) -> dict[int, Standing]:
    """A player's ratings by scope (0: overall)."""
    rows = conn.execute(select(ratings).where(ratings.c.player == player)).mappings()
    return {r["players"]: Standing(r["mu"], r["sigma"], r["games"], r["wins"]) for r in rows}


def history(conn: Connection, player: str, viewer_id: str | None, limit: int = 1000) -> list[Change]:
    """A player's rating after each rated game, oldest first (the profile's plot), as ``viewer_id`` may see it:
    after a game hidden from the viewer (:mod:`forsale.server.store.visibility`) the rating is there, the game's
    id and time are not."""
    seen = shown_to(viewer_id).label("shown")
    rows = conn.execute(
        select(rating_changes, seen)
        .join(games, games.c.id == rating_changes.c.game_id)
        .where(rating_changes.c.player == player)
        .order_by(rating_changes.c.at.desc(), rating_changes.c.game_id)
        .limit(limit)
    ).mappings()
    return [
        Change(r["players"], r["game_id"] if r["shown"] else None, r["at"] if r["shown"] else None, r["mu"], r["sigma"])
        for r in reversed(rows.all())
    ]
