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
arena's tournaments rate bots the same way); their rows are
:mod:`forsale.server.store.ratings`', which runs this module's rules
(:func:`rated_game`, :func:`rate`) inside the transaction that rates.
Everything here is recomputable from the games: :func:`op_rebuild` (``forsale
ratings rebuild``) forgets every rating and rates every rated game again,
ordered by the time it ended, so a change of formula loses nothing. A player
whose account was deleted is still rated there as the same (nameless) player,
so the others' ratings come out the same, but nothing is stored for them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from ...arena.ratings import model, placings, rate_game
from ...bots.registry import parse_spec
from ..errors import Refused
from ..store import ratings as rows
from ..store.database import Op, Storage
from ..store.ratings import (
    OVERALL,
    Change,
    FinishedGame,
    Key,
    RatedGame,
    Standing,
    account_player,
    bot_player,
)

log = logging.getLogger("forsale.server")


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


def rated_game(game: FinishedGame) -> RatedGame:
    """Who is rated at each seat of a finished game (:func:`player_at`), and the seats' placings."""
    return RatedGame(
        id=game.id,
        players=game.players,
        names=tuple(player_at(s.kind, s.bot, s.account_id, s.moved_by_person) for s in game.seats),
        ranks=tuple(placings(game.result["scores"], game.result["coins"])),
        winners=tuple(game.result["winners"]),
        finished_at=game.finished_at,
    )


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


# -- operations (Storage.run) ------------------------------------------------------------------
def op_rate_game(game_id: str) -> Op[int]:
    """Rate one finished game, once (see :func:`forsale.server.store.ratings.op_rate_game`); how many ratings
    changed. The model is made on the writer thread, where the update runs."""
    return rows.op_rate_game(game_id, rated_game, lambda game, before: rate(model(), game, before))


def op_rebuild() -> Op[int]:
    """Forget every rating and rate every rated game again, in the order they ended; returns how many games."""
    rater = model()
    return rows.op_rebuild(rated_game, lambda game, before: rate(rater, game, before))


# -- how ratings are shown -----------------------------------------------------------------------
def describe(player: str, name: str | None) -> dict[str, Any]:
    """How a rated player is shown: ``{"kind": "account"|"bot", "name": ...}`` (never an account's id;
    ``name``: the account's, "" once it is deleted)."""
    if player.startswith(rows.BOT):
        return {"kind": "bot", "name": player.removeprefix(rows.BOT)}
    return {"kind": "account", "name": name or ""}


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


def shown_standings(standings: Mapping[int, Standing]) -> dict[int, dict[str, Any]]:
    """A player's ratings by scope (0: overall), as a profile shows them."""
    return {scope: shown(standing) for scope, standing in standings.items()}


def shown_history(changes: Iterable[Change]) -> dict[int, list[dict[str, Any]]]:
    """A player's rating after each rated game, oldest first, by scope (the profile's plot); a game the viewer
    may not see keeps its point without its id and time (``null``)."""
    out: dict[int, list[dict[str, Any]]] = {}
    for c in changes:
        out.setdefault(c.players, []).append(
            {"game": c.game, "at": c.at, "rating": round(c.mu - 3 * c.sigma, 2),
             "display": display_rating(c.mu - 3 * c.sigma), "mu": round(c.mu, 3), "sigma": round(c.sigma, 3)}
        )  # fmt: skip
    return out


async def leaderboard(storage: Storage, players: int, limit: int, kind: str = "all") -> list[dict[str, Any]]:
    """The best ``limit`` ratings of one scope, by ordinal: accounts by name, bots by bot name."""
    best = await storage.run(rows.op_leaderboard(players, limit, kind))
    return [{"rank": rank, **describe(player, name), **shown(s)} for rank, (player, name, s) in enumerate(best, 1)]


# -- the server's side ---------------------------------------------------------------------------
def rate_finished(storage: Storage, game_id: str) -> None:
    """Queue the rating of a game that has just ended (right behind its last event); a failure is logged."""

    def done(fut: Any) -> None:
        if not fut.cancelled() and fut.exception() is not None:
            log.error("game %s could not be rated: %r (forsale ratings rebuild repairs it)", game_id, fut.exception())

    storage.run(op_rate_game(game_id)).add_done_callback(done)


async def catch_up(storage: Storage) -> int:
    """Rate the rated games that ended while no rating was made (at start-up); returns how many."""
    pending = await storage.run(rows.op_unrated())
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
