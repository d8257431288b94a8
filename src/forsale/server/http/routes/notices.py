"""An account's notices over HTTP: ``GET /api/me/notices``, a long poll (:mod:`forsale.server.people.notices`).

A page signed in to an account keeps one such request open: it learns at once that it was seated at a table made
for it (quick pairing, a tournament's round) and goes there. The request ends as soon as there is something to say,
or after ``wait`` seconds with an empty list; the page asks again with the last id it got.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ...errors import Refused
from ..common import errors, lobby_of
from ..deps import TheAccounts

router = APIRouter()

MAX_WAIT = 25.0
"""Seconds a poll waits at most: under the usual 30 s idle timeouts of proxies and load balancers."""

MAX_POLLS = 4
"""Polls one account may have open at once on one server (a few tabs); more are refused (429), so that a
script cannot hold thousands of requests open under one session."""


@router.get("/api/me/notices", responses=errors(400, 401, 429))
async def notices(
    request: Request,
    accounts: TheAccounts,
    after: Annotated[int, Query(ge=-1, le=2**62)] = 0,
    wait: Annotated[float, Query(ge=0, le=MAX_WAIT)] = 0,
) -> dict[str, Any]:
    """The signed-in account's notices with an id above ``after``, oldest first (at most 100), waiting up to
    ``wait`` seconds for one. ``after=-1`` answers none but the latest id (``last``), where to start.

    Each notice is ``{"id", "kind", "at", ...}``: ``seated`` (``table``, ``seat``, ``source``) and the kinds of
    ``docs/protocol.md``. The answer is ``{"notices": [...], "last": id}``, ``last`` the id to ask after next.
    """
    account = await accounts.required(request)
    board = lobby_of(request).notices
    if after < 0:
        return {"notices": [], "last": await board.last_id(account["id"])}
    if board.waiting(account["id"]) >= MAX_POLLS:
        raise Refused("rate_limited", f"at most {MAX_POLLS} notice polls at once per account", 429)

    async def still() -> bool:
        return not await request.is_disconnected()

    found = await board.wait(account["id"], after, wait, still)
    return {"notices": found, "last": found[-1]["id"] if found else after}
