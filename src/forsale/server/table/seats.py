"""Seats at a table and the tokens that hold them.

A seat is open, a person's (held by a secret token) or a bot's. The server
keeps only each token's hash (:func:`~forsale.server.store.database.hash_token`), and
every token it hands out - a seat's or a table creator's - comes from
:func:`new_token`, so the rule for what a token is and how one is checked
lives here once.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ...refusals import Params
from ..errors import Refused
from ..people.accounts import Account, refuse_bot_account
from ..store.database import Storage, StoredSeat
from ..tokens import hash_token, new_token
from .connections import Conn, error

"""Seat and creator tokens: 192 random bits from :mod:`secrets` (the issue asks for at least 128)."""


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
    # A bot account's seat (forsale.server.people.botaccounts), marked from when the table is made for it (a
    # challenge) or it takes the seat through the Bot API; kept in memory only: after a restart, from its next seat.
    bot_account: bool = False

    def public(self) -> dict[str, Any]:
        shown = {
            "seat": self.index,
            "kind": self.kind,
            "name": self.name,
            "bot": self.bot,
            "account": self.kind == "human" and self.account_id is not None,  # under the account's name
            "connected": self.kind == "bot" or bool(self.conns),
        }
        if self.bot_account:  # only then: every other seat's info reads as it always did
            shown["bot_account"] = True
        return shown

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
    if account_id is None or not table.config.rated:
        return
    if any(s.index != index and s.kind == "human" and s.account_id == account_id for s in table.seats):
        raise Refused("already_seated", ALREADY_SEATED, 409)


def check_owner(account: Account | None, seat: Any) -> None:
    """A seat that belongs to an account is not used by a request signed in as another."""
    if account is not None and seat.account_id is not None and seat.account_id != account["id"]:
        raise Refused("not_your_seat", "this seat belongs to another account", 403)


async def link_seat(table: Any, index: int, account: Account) -> None:
    """Make seat ``index`` of ``table`` (a live table) ``account``'s; 403 if it is another account's already,
    409 if it is a rated table where the account holds another seat (:func:`check_one_seat`); 403
    ``bot_account`` for a bot account's session, which sits only through the Bot API (a claim of a guest's seat
    would otherwise make it a person's)."""
    refuse_bot_account(account)
    async with table.lock:
        seat = table.seats[index]
        check_owner(account, seat)
        check_one_seat(table, index, account["id"])
        if (seat.account_id == account["id"] and seat.name == account["name"]) or seat.kind != "human":
            return
        # An account's seat shows the account's name: a seat claimed under a guest's name takes it too.
        seat.account_id, seat.name = account["id"], account["name"]
        await table.write(Storage.op_update_seat(table.id, seat.stored()))  # fenced: on a cluster, owner only
        table.snapshots.broadcast_info()


async def end_seat_tokens(tables: Iterable[Any], account_id: str) -> list[Conn]:
    """Replace the token of each seat of ``account_id`` in a game not over by one nobody is told.

    A changed password ends every session, and with them every seat credential those sessions could have
    minted (a thief's copy of the session took the seat with ``resume``, or sat down as the account): seat
    tokens are bearer secrets that outlive the session that fetched them. Sockets seated with the old tokens
    watch from now on; they are returned, for the caller to tell them (``bad_token``) once its own answer, with
    the new session's cookie, is on its way: a page told first would resume with the old cookie, and fail.

    The creator token of each table not over that the account created goes the same way (a thief's copy would keep
    the creator's rights: new invitation codes, the settings); the account's new session gets a fresh one
    with ``resume`` (:func:`forsale.server.http.routes.players.resume`).
    """
    unseated: list[Conn] = []
    for table in list(tables):
        if table.status == "over":
            continue
        if table.config.creator_account == account_id:
            async with table.lock:
                _, creator_hash = new_token()
                with contextlib.suppress(Refused):  # moved to another node meanwhile (a cluster): its own copy
                    await table.write(Storage.op_update_game(table.id, creator_hash=creator_hash))
                table.creator_hash = creator_hash
        if not any(s.account_id == account_id and s.kind == "human" for s in table.seats):
            continue
        async with table.lock:
            changed = False
            for seat in table.seats:
                if seat.account_id == account_id and seat.kind == "human" and seat.token_hash is not None:
                    _, seat.token_hash = new_token()
                    with contextlib.suppress(Refused):  # moved to another node meanwhile (a cluster): its own copy
                        await table.write(Storage.op_update_seat(table.id, seat.stored()))
                    unseated.extend(seat.conns)
                    table.unseat_connections(seat.index)
                    changed = True
            if changed:
                table.snapshots.broadcast_info()
    return unseated


PASSWORD_CHANGED = "the account's password was changed, which ends its seat tokens; sign in again to take the seat back"


ENDED: Params = {"why": "password_changed"}
"""What tells a page its seat token ended with the password (it then resumes the seat, if still signed in)."""


SIGNED_OUT = "the account signed out everywhere, which ends its seat tokens; sign in again to take the seat back"


SIGNED_OUT_WHY: Params = {"why": "signed_out"}


TOKEN_REVOKED = "the bot's API token was revoked, which ends its seat tokens; the bot takes its seats back with another"


TOKEN_REVOKED_WHY: Params = {"why": "token_revoked"}


ENDED_BY = {
    "password_changed": error("bad_token", PASSWORD_CHANGED, params=ENDED),
    "signed_out": error("bad_token", SIGNED_OUT, params=SIGNED_OUT_WHY),
    "token_revoked": error("bad_token", TOKEN_REVOKED, params=TOKEN_REVOKED_WHY),
}
"""What the sockets seated with an ended token are told, by why it ended (also on a cluster's other nodes)."""


async def tell(conns: list[Conn], notice: dict[str, Any]) -> None:
    for conn in conns:
        conn.send(notice)
