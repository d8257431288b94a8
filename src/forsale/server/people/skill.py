"""Ratings of accounts and bots from rated games: openskill Plackett-Luce, per player count and overall.

A table is rated when its creator asks for it (``"rated": true``; only a
signed-in creator may). When a rated game ends, :func:`rate_finished` queues
:func:`op_rate_game` on the database's writer thread right behind the game's
last event, so games are rated in the order they ended. Each game updates two
ratings of every rated player in it: the overall one (``players = 0``) and the
one for its player count (``players = n``).

Who is rated at a seat (:func:`player_at`):

- a seat linked to an account is that account (``account:<id>``), even if the
  person left and a bot finished the game for them (leaving does not dodge a loss);
- a bot's seat is the bot's name (``bot:hard``) when it is seated at its
  default strength (a spec without options: :func:`rated_bot`), unless a
  person played it before leaving it to a bot. A bot with options
  (``hard:samples=1``, ``hard:time=0.1``) is another, weaker player: counting
  it as ``hard`` would let anyone pull ``hard``'s rating down by beating a
  crippled copy of it. A rated table refuses such a bot when it is made
  (:func:`check_rated_table`); a seat that has one all the same (an operator's
  ``--fallback-bot`` with options taking a seat in a rematch) is rated as nobody;
- anyone else (a guest) plays at the model's starting rating, and nothing is stored for them.

Two seats of one rated player (two ``hard`` bots at a table) are one player
in one game for the rating: each seat is rated as a team of its own, and the
player's new rating is the mean of its seats' updates
(:func:`forsale.arena.ratings.rate_game`). Its games and wins count each seat:
two seats are two games played, and each seat that won is a win, as the
leaderboard's and the profile's "played" and "won" are read (one game for two
seats made ``hard`` look as if it had played half its games).

A rated table never gives hints (:func:`check_rated_table`, and the hint
endpoint refuses at a rated table): asking ``hard`` before every move would be
``hard``'s rating, not the player's.

The model and the update of one game are :mod:`forsale.arena.ratings`' (the
arena's tournaments rate bots the same way); this module only stores them.
Everything here is recomputable from the games: :func:`op_rebuild` (``forsale
ratings rebuild``) forgets every rating and rates every rated game again,
ordered by the time it ended, so a change of formula loses nothing. A player
whose account was deleted is still rated there as the same (nameless) player,
so the others' ratings come out the same, but nothing is stored for them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from ...arena.ratings import model, placings, rate_game
from ...bots.registry import parse_spec
from ..errors import Refused
from ..store.database import Storage
from ..store.schema import accounts, events, games, rating_changes, ratings, seats
from ..store.visibility import shown_to

log = logging.getLogger("forsale.server")

OVERALL = 0
"""The ``players`` of a rating over every player count."""
PERSON_SOURCES = ("player", "away")
"""Event sources that mean a person held the seat (``away``: the server moved for a person who was gone)."""


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


@dataclass(frozen=True)
class RatedGame:
    """What rating a finished game needs: who sat where, their placings, and when it ended."""

    id: str
    players: int
    names: tuple[str | None, ...]
    ranks: tuple[int, ...]
    winners: tuple[int, ...]
    finished_at: float


Key = tuple[str, int]
"""``(player, players)``: one rating."""


def account_player(account_id: str) -> str:
    return f"account:{account_id}"


def bot_player(name: str) -> str:
    """The rated player of the bot called ``name`` at its default strength (``hard`` -> ``bot:hard``)."""
    return f"bot:{name}"


def rated_bot(spec: str) -> str | None:
    """The bot a seat with this spec is rated as: its name if it has no options (``" hard "`` -> ``hard``),
    else None (``hard:samples=1`` is not ``hard``, see the module docstring)."""
    try:
        name, options = parse_spec(spec)
    except ValueError:
        return None
    return name if name and not options else None


def player_at(kind: str, bot: str | None, account_id: str | None, moved_by_person: bool) -> str | None:
    """Who is rated for a seat (see the module docstring); None for a guest or a bot seated with options."""
    if account_id is not None:
        return account_player(account_id)
    if kind == "bot" and bot and not moved_by_person:
        name = rated_bot(bot)
        return None if name is None else bot_player(name)
    return None


def rate(rater: Any, game: RatedGame, standings: Mapping[Key, Standing]) -> dict[Key, Standing]:
    """The new standings of the game's players, overall and for its player count (``standings`` is not changed)."""
    out: dict[Key, Standing] = {}
    for scope in (OVERALL, game.players):
        current = {
            name: (standings[name, scope].mu, standings[name, scope].sigma)
            for name in set(game.names)
            if name is not None and (name, scope) in standings
        }
        for name, (mu, sigma) in rate_game(rater, current, game.names, game.ranks).items():
            old = standings.get((name, scope))
            played = [seat for seat, player in enumerate(game.names) if player == name]  # each seat counts
            won = sum(seat in game.winners for seat in played)
            out[name, scope] = Standing(
                mu, sigma, (old.games if old else 0) + len(played), (old.wins if old else 0) + won
            )
    return out


# -- reading games --------------------------------------------------------------------------
def _rated_games(conn: Connection, game_ids: Sequence[str] | None) -> list[RatedGame]:
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
        names = [
            player_at(s.kind, s.bot, s.account_id, s.seat in moved)
            for s in conn.execute(select(seats).where(seats.c.game_id == row["id"]).order_by(seats.c.seat))
        ]
        result = row["result"]
        out.append(
            RatedGame(
                id=row["id"],
                players=row["players"],
                names=tuple(names),
                ranks=tuple(placings(result["scores"], result["coins"])),
                winners=tuple(result["winners"]),
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
    ids = [p.removeprefix("account:") for p in players if p.startswith("account:")]
    if not ids:
        return set()
    found = conn.execute(select(accounts.c.id).where(accounts.c.id.in_(ids))).scalars()
    return {account_player(i) for i in found}


def _stored(players: Iterable[str], existing: set[str]) -> set[str]:
    """Who gets rows: bots, and accounts that still exist (a deleted account is rated, never stored)."""
    return {p for p in players if p.startswith("bot:") or p in existing}


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
def op_rate_game(game_id: str) -> Callable[[Connection], int]:
    """Rate one finished game, once: a game already rated (or not rated, or not over) changes nothing.

    Returns how many ratings changed.
    """

    def fn(conn: Connection) -> int:
        if conn.execute(select(rating_changes.c.game_id).where(rating_changes.c.game_id == game_id)).first():
            return 0
        found = _rated_games(conn, [game_id])
        if not found:
            return 0
        game = found[0]
        players = {name for name in game.names if name is not None}
        before = _standings(conn, [(p, s) for p in players for s in (OVERALL, game.players)])
        new = rate(model(), game, before)
        keep = _stored(players, _existing_accounts(conn, players))
        _write(conn, game, new, keep, set(before))
        return sum(1 for key in new if key[0] in keep)

    return fn


def op_rebuild() -> Callable[[Connection], int]:
    """Forget every rating and rate every rated game again, in the order they ended; returns how many games."""

    def fn(conn: Connection) -> int:
        conn.execute(delete(rating_changes))
        conn.execute(delete(ratings))
        rated = _rated_games(conn, None)
        every = {name for game in rated for name in game.names if name is not None}
        keep = _stored(every, _existing_accounts(conn, every))
        rater = model()
        standings: dict[Key, Standing] = {}
        for game in rated:
            new = rate(rater, game, standings)
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


def op_forget(player: str) -> Callable[[Connection], None]:
    """Drop a player's ratings and their history (a deleted account); the others' ratings stay as they are."""

    def fn(conn: Connection) -> None:
        conn.execute(delete(rating_changes).where(rating_changes.c.player == player))
        conn.execute(delete(ratings).where(ratings.c.player == player))

    return fn


def op_leaderboard(players: int, limit: int, kind: str = "all") -> Callable[[Connection], list[dict[str, Any]]]:
    """The best ``limit`` ratings of one scope, by ordinal: accounts by name, bots by bot name."""

    def fn(conn: Connection) -> list[dict[str, Any]]:
        query = select(ratings).where(ratings.c.players == players)
        if kind == "people":
            query = query.where(ratings.c.player.startswith("account:"))
        elif kind == "bots":
            query = query.where(ratings.c.player.startswith("bot:"))
        query = query.order_by((ratings.c.mu - 3 * ratings.c.sigma).desc(), ratings.c.player).limit(limit)
        rows = conn.execute(query).mappings().all()
        names = _account_names(conn, [r["player"] for r in rows])
        out = []
        for rank, row in enumerate(rows, 1):
            standing = Standing(row["mu"], row["sigma"], row["games"], row["wins"])
            out.append({"rank": rank, **describe(row["player"], names), **shown(standing)})
        return out

    return fn


def _account_names(conn: Connection, players: Iterable[str]) -> dict[str, str]:
    ids = [p.removeprefix("account:") for p in players if p.startswith("account:")]
    if not ids:
        return {}
    rows = conn.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(ids))).all()
    return {account_player(r[0]): r[1] for r in rows}


def describe(player: str, names: Mapping[str, str]) -> dict[str, Any]:
    """How a rated player is shown: ``{"kind": "account"|"bot", "name": ...}`` (never an account's id)."""
    if player.startswith("bot:"):
        return {"kind": "bot", "name": player.removeprefix("bot:")}
    return {"kind": "account", "name": names.get(player, "")}


DISPLAY_CENTRE = 1500
"""What a newcomer shows: the model's start (mu 25, sigma 25/3) has the ordinal ``mu - 3 sigma`` = 0."""
DISPLAY_SCALE = 40
"""Display points per point of ordinal: the familiar Elo-like range (a strong player some hundreds above 1500)."""


def display_rating(ordinal: float) -> int:
    """The rating as people read it: ``1500 + 40 * (mu - 3 sigma)``, a linear map of the same number.

    ``-2.76`` and a newcomer's ``0`` mean nothing to a player; every rating site they know starts people
    at about 1500. Linear, so the order (and the leaderboard) is the ordinal's.
    """
    return round(DISPLAY_CENTRE + DISPLAY_SCALE * ordinal)


def shown(standing: Standing) -> dict[str, Any]:
    return {
        "rating": round(standing.ordinal, 2),
        "display": display_rating(standing.ordinal),
        "mu": round(standing.mu, 3),
        "sigma": round(standing.sigma, 3),
        "games": standing.games,
        "wins": standing.wins,
    }


def op_standings(player: str) -> Callable[[Connection], dict[int, dict[str, Any]]]:
    """A player's ratings by scope (0: overall)."""

    def fn(conn: Connection) -> dict[int, dict[str, Any]]:
        rows = conn.execute(select(ratings).where(ratings.c.player == player)).mappings()
        return {r["players"]: shown(Standing(r["mu"], r["sigma"], r["games"], r["wins"])) for r in rows}

    return fn


def op_history(
    player: str, viewer_id: str | None, limit: int = 1000
) -> Callable[[Connection], dict[int, list[dict[str, Any]]]]:
    """A player's rating after each rated game, oldest first, by scope (the profile's plot), as ``viewer_id``
    may see it: after a game hidden from the viewer (:mod:`forsale.server.store.visibility`) the rating is
    there, the game's id and time are not (``null``)."""

    def fn(conn: Connection) -> dict[int, list[dict[str, Any]]]:
        shown = shown_to(viewer_id).label("shown")
        rows = conn.execute(
            select(rating_changes, shown)
            .join(games, games.c.id == rating_changes.c.game_id)
            .where(rating_changes.c.player == player)
            .order_by(rating_changes.c.at.desc(), rating_changes.c.game_id)
            .limit(limit)
        ).mappings()
        out: dict[int, list[dict[str, Any]]] = {}
        for r in reversed(rows.all()):
            seen = bool(r["shown"])
            out.setdefault(r["players"], []).append(
                {"game": r["game_id"] if seen else None, "at": r["at"] if seen else None,
                 "rating": round(r["mu"] - 3 * r["sigma"], 2), "display": display_rating(r["mu"] - 3 * r["sigma"]),
                 "mu": round(r["mu"], 3), "sigma": round(r["sigma"], 3)}
            )  # fmt: skip
        return out

    return fn


# -- the server's side ---------------------------------------------------------------------------
def rate_finished(storage: Storage, game_id: str) -> None:
    """Queue the rating of a game that has just ended (right behind its last event); a failure is logged."""

    def done(fut: Any) -> None:
        if not fut.cancelled() and fut.exception() is not None:
            log.error("game %s could not be rated: %r (forsale ratings rebuild repairs it)", game_id, fut.exception())

    storage.run(op_rate_game(game_id)).add_done_callback(done)


async def catch_up(storage: Storage) -> int:
    """Rate the rated games that ended while no rating was made (at start-up); returns how many."""
    pending = await storage.run(op_unrated())
    for game_id in pending:
        await storage.run(op_rate_game(game_id))
    return len(pending)


RATED_HINTS = (
    "a rated game cannot allow hints: hard's advice before every move would be hard's rating, not yours;"
    " turn hints off or play unrated"
)


def check_rated_hints(rated: bool, hints: bool | None) -> None:
    """A rated table never allows hints, at creation nor later (``/settings``): else ``400 hints_off``."""
    if rated and hints:
        raise Refused("hints_off", RATED_HINTS, 400)


def check_rated_table(rated: bool, hints: bool, bots: Iterable[str | None]) -> None:
    """What a rated table may not have, refused in words before it is made: hints, a bot with options, or no
    seat for a person (a table of bots alone would let anyone move the bots' ratings without playing).

    ``bots``: the seats' bot specs (None or ``"human"`` for a person's seat). Only a bot at its default
    strength has a rating; one with options would be rated as nobody, so beating it repeatedly would be
    a free climb up the leaderboard (it never gets better at the model's starting rating).
    """
    check_rated_hints(rated, hints)
    if not rated:
        return
    specs = list(bots)
    if specs and all(spec not in (None, "human") for spec in specs):  # nobody to rate: only bots' ratings move
        raise Refused("bad_seats", "a rated game needs a seat for a person: bots alone play unrated games")
    for i, spec in enumerate(specs):
        if spec not in (None, "human") and rated_bot(spec) is None:
            name = spec.split(":")[0].strip() or spec
            raise Refused(
                "bad_bot",
                f"seat {i}: a rated game seats bots at their default strength only ({name!r}, not {spec!r}),"
                " so that each bot's rating is that bot's; play unrated to choose its options",
            )


def check_signed_in(rated: bool, account: Any) -> None:
    """A rated table is made and played by accounts only (a guest has no rating to change): else 401."""
    if rated and account is None:
        raise Refused("not_signed_in", "rated games are for signed-in players: sign in or play unrated", 401)
