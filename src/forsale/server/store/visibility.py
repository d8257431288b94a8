"""Who may see a finished game where games are listed: one rule, used by every listing.

A finished game is **public** when its table was listed in the lobby: neither
private (``"private": true``, which every solo game and every
invitation-only table is too) nor invitation-only (an ``invite_hash``). A
public game shows to everyone. Any other game shows only to **its own
players**: the accounts that held one of its seats (also a seat they left to
a bot during the game: they played it). Being rated does not make a game
public: an invitation-only rated game is its players' business, and so is a
rated solo game; its ratings still move, and the leaderboard shows them.

Every place that names finished games applies :func:`shown_to`, so none can
give away what another hides:

- ``GET /api/tables?status=over`` (:meth:`forsale.server.store.database.Storage.op_list_finished`): public games only;
- an account's profile and a bot's (:mod:`forsale.server.people.profiles`): their games shown to the viewer;
- a player's rating history (:func:`forsale.server.store.ratings.history`): the rating after a game the viewer
  may not see keeps its point (so the plot is the player's whole curve, and the rating itself is public
  on the leaderboard anyway) but loses its game id and time (``"game": null, "at": null``);
- ``GET /api/me/games`` lists only the signed-in account's own games, which the rule always shows it;
- the leaderboard names players and ratings, never a game.

Reading one game by its id (its record, replay, analysis, view, WebSocket) is
:func:`forsale.server.http.common.readable`: an invitation-only game needs its
invitation code, a seat token or a seated account; an unlisted private game
is open to whoever has its id, as its link was shared (the id is 48 random
bits, and no listing gives it away: this rule is what keeps it so).
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, and_, func, or_, select

from .schema import games, seats


def public() -> ColumnElement[bool]:
    """SQL: the ``games`` row was a listed table (neither private nor invitation-only)."""
    return and_(
        games.c.invite_hash.is_(None),
        func.coalesce(games.c.config["private"].as_boolean(), False).is_(False),
    )


def shown_to(viewer_id: str | None) -> ColumnElement[bool]:
    """SQL: the ``games`` row shows to the account ``viewer_id`` (None: anyone, signed in or not).

    Public, or one of the viewer's own games (an account seated in it).
    """
    if viewer_id is None:
        return public()
    mine = seats.alias("viewers_seat")  # an alias: the query around may join ``seats`` for another account
    played = select(mine.c.game_id).where(mine.c.game_id == games.c.id, mine.c.account_id == viewer_id).exists()
    return or_(public(), played)
