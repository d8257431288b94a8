"""Who may see a table: invitation-only tables, their codes, and the checks REST and WebSocket share.

An invitation-only table (``"invite_only": true`` at creation) is left out of
every listing, and knowing its id is not enough to take a seat, watch it,
read its chat, or fetch its record or replay. One of these admits a client:

- the table's **invitation code**, which its creator gets and shares in the
  invitation link (192 random bits from :mod:`secrets`; the database keeps
  only its SHA-256, like seat tokens: :func:`~forsale.server.table.seats.new_token`);
- a **seat token** of the table (its players);
- a **session** whose account holds a seat there (the player on another device).

Anything else gets ``403 private_table`` (REST) or a ``private_table`` error
(WebSocket) and nothing about the game. The code joins people to *open*
seats only; a seat already held stays its holder's.

A WebSocket whose handshake carries the session cookie is authenticated by
it (:func:`socket_account`), so it must come from this server's own pages:
its ``Origin`` passes the same rule as a signed-in POST
(:func:`forsale.server.people.sessions.same_origin`), else it is refused
(cross-site WebSocket hijacking).
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from ..errors import Refused
from ..people.accounts import Account
from ..store.database import Storage
from ..tokens import hash_token, new_token

if TYPE_CHECKING:
    from .live import LiveTable

PRIVATE = "this table is private: it is open only to its players and to people with its invitation link"


def invite_link(table_id: str, code: str) -> str:
    """The web page's invitation link (a path: the page puts its own origin in front)."""
    return f"/#/table/{table_id}?invite={code}"


def invite_matches(table: LiveTable, code: str | None) -> bool:
    """Whether ``code`` is ``table``'s invitation code (in constant time)."""
    if code is None or table.invite_hash is None:
        return False
    return secrets.compare_digest(table.invite_hash, hash_token(code))


def account_seat(table: LiveTable, account: Account | None) -> int | None:
    """The lowest seat of ``table`` that a person holds for ``account``, if any."""
    if account is None:
        return None
    for seat in table.seats:
        if seat.kind == "human" and seat.account_id == account["id"]:
            return seat.index
    return None


def admitted(
    table: LiveTable, *, token: str | None = None, invite: str | None = None, account: Account | None = None
) -> bool:
    """Whether a client with these credentials may see ``table`` (every table that is not invitation-only: yes)."""
    if not table.invite_only:
        return True
    if invite_matches(table, invite):
        return True
    if token is not None and table.seat_for_token(token) is not None:
        return True
    return account_seat(table, account) is not None


def refuse_private() -> Refused:
    return Refused("private_table", PRIVATE, 403)


def check_join(table: LiveTable, invite: str | None) -> None:
    """An open seat of an invitation-only table is taken with its code only."""
    if table.invite_only and not invite_matches(table, invite):
        raise Refused("private_table", f"{PRIVATE}; ask its creator for the invitation link", 403)


async def new_invite(table: LiveTable) -> str:
    """A new invitation code for ``table`` (the old one stops working); returns the code, never stored in clear."""
    code, code_hash = new_token()
    async with table.lock:
        await table.write(Storage.op_update_game(table.id, invite_hash=code_hash))  # fenced: owner only
        table.invite_hash = code_hash
    return code
