"""Bot accounts and their API tokens in ``forsale_accounts.bot_since`` and ``forsale_api_tokens`` (run on the
writer thread: :meth:`~forsale.server.store.database.Storage.run`).

What a bot account may do, and what a token is, are :mod:`forsale.server.people.botaccounts`'s and
:mod:`forsale.server.people.apitokens`'s; here are only the queries. A token is kept as the sha256 of its
secret (:func:`forsale.server.tokens.hash_token`), never the secret.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from .schema import accounts, api_tokens, games, pairing, rating_changes, seats, tournament_players, tournaments
from .tournaments import OPEN, RUNNING

LAST_USE_STEP = 60.0
"""A token's ``last_used_at`` is written at most once a minute: every Bot API call reads it, few need to write."""


@dataclass(frozen=True)
class TokenOwner:
    """What a token's lookup finds: the token's id and scopes, and its account (a bot account or not)."""

    token_id: str
    scopes: tuple[str, ...]
    account_id: str
    name: str
    bot: bool


def op_bot_since(account_id: str) -> Callable[[Connection], float | None]:
    """When the account became a bot account (None: a person, or no such account)."""

    def fn(conn: Connection) -> float | None:
        row = conn.execute(select(accounts.c.bot_since).where(accounts.c.id == account_id)).first()
        return None if row is None else row[0]

    return fn


def op_bot_ids(account_ids: list[str]) -> Callable[[Connection], set[str]]:
    """Which of ``account_ids`` are bot accounts (one query for a table's seats or a page of names)."""

    def fn(conn: Connection) -> set[str]:
        if not account_ids:
            return set()
        found = select(accounts.c.id).where(accounts.c.id.in_(account_ids), accounts.c.bot_since.is_not(None))
        return {row[0] for row in conn.execute(found).all()}

    return fn


def op_bot_names(names: list[str]) -> Callable[[Connection], set[str]]:
    """Which of these account names (as shown) are bot accounts' (one query for a page of the leaderboard)."""

    def fn(conn: Connection) -> set[str]:
        if not names:
            return set()
        found = select(accounts.c.name).where(accounts.c.name.in_(names), accounts.c.bot_since.is_not(None))
        return {row[0] for row in conn.execute(found).all()}

    return fn


def op_find_bot(key: str) -> Callable[[Connection], tuple[str, str] | None]:
    """``(id, name)`` of the bot account whose name key is ``key`` (None: no account, or a person's)."""

    def fn(conn: Connection) -> tuple[str, str] | None:
        if "\x00" in key:  # PostgreSQL text holds no NUL, and no account's name does
            return None
        row = conn.execute(
            select(accounts.c.id, accounts.c.name).where(accounts.c.name_key == key, accounts.c.bot_since.is_not(None))
        ).first()
        return None if row is None else (row[0], row[1])

    return fn


def op_make_bot(account_id: str, player: str) -> Callable[[Connection], str | None]:
    """Make the account a bot account, in one transaction with the checks; None if it now is one, else why not:
    ``"already"`` (it is one), ``"rated"`` (``player``, its ratings key, has a rated game), ``"playing"`` (one of
    its seats is at a table not over, or it has entered a tournament not over and not withdrawn: a person's entry,
    perhaps in a tournament without bots, would be played by a program).

    Its wait in quick pairing, if any, goes in the same transaction: it was a person's (matched with people who
    said never to bots); as a bot account it joins again through the Bot API.
    """

    def fn(conn: Connection) -> str | None:
        row = conn.execute(select(accounts.c.bot_since).where(accounts.c.id == account_id)).first()
        if row is None or row[0] is not None:
            return "already"
        rated = select(rating_changes.c.game_id).where(rating_changes.c.player == player).limit(1)
        if conn.execute(rated).first() is not None:
            return "rated"
        under_way = (
            select(seats.c.game_id)
            .join(games, games.c.id == seats.c.game_id)
            .where(seats.c.account_id == account_id, games.c.status.in_(("waiting", "playing")))
            .limit(1)
        )
        if conn.execute(under_way).first() is not None:
            return "playing"
        entered = (
            select(tournament_players.c.tournament_id)
            .join(tournaments, tournaments.c.id == tournament_players.c.tournament_id)
            .where(
                tournament_players.c.account_id == account_id,
                tournament_players.c.withdrawn_at.is_(None),
                tournaments.c.status.in_((OPEN, RUNNING)),
            )
            .limit(1)
        )
        if conn.execute(entered).first() is not None:
            return "playing"
        conn.execute(delete(pairing).where(pairing.c.account_id == account_id))
        conn.execute(update(accounts).where(accounts.c.id == account_id).values(bot_since=time.time()))
        return None

    return fn


def op_create_token(
    token_id: str, account_id: str, name: str, scopes: list[str], token_hash: str, limit: int
) -> Callable[[Connection], bool]:
    """Store a new token; False (nothing stored) if the account already holds ``limit`` tokens."""

    def fn(conn: Connection) -> bool:
        held = conn.execute(select(func.count()).where(api_tokens.c.account_id == account_id)).scalar_one()
        if held >= limit:
            return False
        conn.execute(
            insert(api_tokens).values(
                id=token_id, account_id=account_id, name=name, scopes=scopes, token_hash=token_hash,
                created_at=time.time(), last_used_at=None,
            )
        )  # fmt: skip
        return True

    return fn


def op_list_tokens(account_id: str) -> Callable[[Connection], list[dict[str, Any]]]:
    """The account's tokens, oldest first, as the owner sees them (never a hash)."""

    def fn(conn: Connection) -> list[dict[str, Any]]:
        rows = conn.execute(
            select(api_tokens.c.id, api_tokens.c.name, api_tokens.c.scopes, api_tokens.c.created_at,
                   api_tokens.c.last_used_at)
            .where(api_tokens.c.account_id == account_id)
            .order_by(api_tokens.c.created_at, api_tokens.c.id)
        ).mappings()  # fmt: skip
        return [dict(row) for row in rows.all()]

    return fn


def op_revoke(account_id: str, token_id: str) -> Callable[[Connection], bool]:
    """Delete the account's token ``token_id``; False if it holds none of that id."""

    def fn(conn: Connection) -> bool:
        done = conn.execute(
            delete(api_tokens).where(api_tokens.c.account_id == account_id, api_tokens.c.id == token_id)
        )
        return bool(done.rowcount)

    return fn


def op_lookup(token_hash: str) -> Callable[[Connection], TokenOwner | None]:
    """The token whose hash is ``token_hash`` and its account (None: no such token); marks its use."""

    def fn(conn: Connection) -> TokenOwner | None:
        row = conn.execute(
            select(api_tokens.c.id, api_tokens.c.scopes, api_tokens.c.last_used_at, accounts.c.id.label("account"),
                   accounts.c.name, accounts.c.bot_since)
            .join(accounts, accounts.c.id == api_tokens.c.account_id)
            .where(api_tokens.c.token_hash == token_hash)
        ).first()  # fmt: skip
        if row is None:
            return None
        now = time.time()
        if row.last_used_at is None or now - row.last_used_at >= LAST_USE_STEP:
            conn.execute(update(api_tokens).where(api_tokens.c.id == row.id).values(last_used_at=now))
        return TokenOwner(row.id, tuple(row.scopes), row.account, row.name, row.bot_since is not None)

    return fn
