"""The social endpoints: a new invitation code, a table's chat history, and rematches.

Invitation-only tables are :mod:`forsale.server.table.invites`; chat is
:mod:`forsale.server.table.chat`; rematches are :mod:`forsale.server.table.rematch`.
Sending chat messages is WebSocket only (``{"type": "chat"}``): a chat
message goes to the connections at the table.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ...errors import Refused
from ...table import rematch
from ...table.invites import invite_link, new_invite
from ...table.seats import check_owner
from ..common import body, body_of, errors, readable, seat_held, table_of
from ..deps import TheAccounts
from ..schemas import CreatorBody, RematchBody

router = APIRouter()


@router.post(
    "/api/tables/{table_id}/invite",
    responses=errors(400, 403, 404, 409, 413, 429),
    openapi_extra=body(CreatorBody, required=True),
)
async def invite(request: Request, table_id: str) -> dict[str, Any]:
    """A new invitation code for an invitation-only table (its creator only); the old code stops working."""
    body = await body_of(request, CreatorBody)
    table = await table_of(request, table_id)
    if not table.is_creator(body.creator_token):
        raise Refused("bad_token", "only the table's creator may invite people", 403)
    if not table.invite_only:
        raise Refused("not_private", "this table is public: anyone may join it by its id", 409)
    code = await new_invite(table)
    return {"invite": code, "invite_link": invite_link(table.id, code)}


@router.get("/api/tables/{table_id}/chat", responses=errors(403, 404))
async def chat_history(
    request: Request, table_id: str, token: str | None = None, invite: str | None = None
) -> dict[str, Any]:
    """The latest chat messages (oldest first), for whoever may see the table."""
    table = await readable(request, table_id, token=token, invite=invite)
    return {"messages": list(await table.chat.load()), "spectator_chat": table.config.spectator_chat}


@router.get("/api/tables/{table_id}/rematch", responses=errors(403, 404))
async def rematch_state(
    request: Request, accounts: TheAccounts, table_id: str, token: str | None = None, invite: str | None = None
) -> dict[str, Any]:
    """Where the rematch stands (null: none offered); with a seat token, that seat's new seat and token once started."""
    table = await readable(request, table_id, token=token, invite=invite)
    seat = None
    if token is not None:
        seat = seat_held(table, token)
        check_owner(await accounts.current(request), table.seats[seat])
    return {"rematch": rematch.state_of(table, seat)}


@router.post(
    "/api/tables/{table_id}/rematch",
    responses=errors(400, 403, 404, 409, 413, 429),
    openapi_extra=body(RematchBody, required=True),
)
async def rematch_answer(request: Request, accounts: TheAccounts, table_id: str) -> dict[str, Any]:
    """Offer or accept (``accept: true``) or decline a rematch for the seat the token holds."""
    account = await accounts.current(request, changing=True)
    body = await body_of(request, RematchBody)
    table = await table_of(request, table_id)
    seat = seat_held(table, body.token)
    check_owner(account, table.seats[seat])
    return {"rematch": await rematch.answer(table, seat, body.accept)}
