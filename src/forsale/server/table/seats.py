"""Seats at a table and the tokens that hold them.

A seat is open, a person's (held by a secret token) or a bot's. The server
keeps only each token's hash (:func:`~forsale.server.store.database.hash_token`), and
every token it hands out - a seat's or a table creator's - comes from
:func:`new_token`, so the rule for what a token is and how one is checked
lives here once.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import Refused
from ..store.database import StoredSeat, hash_token
from .connections import Conn

TOKEN_BYTES = 24
"""Seat and creator tokens: 192 random bits from :mod:`secrets` (the issue asks for at least 128)."""


# The names the server gives what nobody named. They are English, stored and sent as they are (records keep
# them); the web page recognises these forms and says them in its own language (shownName and shownTableName
# in web/static/js/format.js, which tests/server/test_server_names.py holds to these).
SOLO_NAME = "Solo game"


def table_name(players: int) -> str:
    """A table created without a name."""
    return f"Table of {players}"


def open_seat_name(index: int) -> str:
    """A seat nobody sits at yet."""
    return f"Seat {index + 1}"


def joined_name(index: int) -> str:
    """A person who sat down without giving a name (the web page always sends one)."""
    return f"Player {index + 1}"


def bot_name(spec: str) -> str:
    """A bot's seat: the bot's name, options aside (``hard:time=0.5`` is "hard bot")."""
    return f"{spec.split(':')[0]} bot"


def left_name(name: str) -> str:
    """A person's seat after they left a game under way and a bot took it over."""
    return f"{name} (left; bot)"


def new_token() -> tuple[str, str]:
    """A fresh secret token and the hash the server keeps of it."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, hash_token(token)


def token_matches(token_hash: str, token: str) -> bool:
    """Whether ``token`` is the one ``token_hash`` was made from (in constant time)."""
    return secrets.compare_digest(token_hash, hash_token(token))


@dataclass
class Seat:
    index: int
    kind: str  # open | human | bot
    name: str
    bot: str | None = None
    token_hash: str | None = None
    account_id: str | None = None  # the signed-in account the seat belongs to (forsale.server.people.accounts)
    conns: set[Conn] = field(default_factory=set)
    away_since: float | None = None  # monotonic time the last connection dropped

    def public(self) -> dict[str, Any]:
        return {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "bot": self.bot,
            "account": self.kind == "human" and self.account_id is not None,  # under the account's name
            "connected": self.kind == "bot" or bool(self.conns),
        }

    def stored(self) -> StoredSeat:
        return StoredSeat(self.index, self.kind, self.name, self.bot, self.token_hash, self.account_id)


def seat_for_token(seats: Iterable[Seat], token: str) -> int | None:
    """The index of the seat ``token`` holds, if any."""
    digest = hash_token(token)
    for seat in seats:
        if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, digest):
            return seat.index
    return None


def free_seats_text(seats: Iterable[Seat]) -> str:
    """The open seats for a message, numbered as people count them and the page shows them ("Seat 2"):
    ``"2, 3"`` for the indices 1 and 2, or ``"none"``. (The indices themselves go as a refusal's params.)"""
    free = [str(s.index + 1) for s in seats if s.kind == "open"]
    return ", ".join(free) if free else "none"


ALREADY_SEATED = "this account already holds a seat at this rated table: one person, one seat"


def check_one_seat(table: Any, index: int | None, account_id: str | None) -> None:
    """At a rated table an account holds one seat at most (``409 already_seated``); called under the table's lock.

    Ratings count "a win if either seat won" for an account, so one person at two seats of three could feed
    one seat from the other and climb. A casual table allows it: friends pass one device round the table.
    """
    if account_id is None or not table.config.get("rated"):
        return
    if any(s.index != index and s.kind == "human" and s.account_id == account_id for s in table.seats):
        raise Refused("already_seated", ALREADY_SEATED, 409)
