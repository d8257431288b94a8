"""The lobby's and the tables' REST endpoints: list, create, join, claim, leave, settings, view, record, replay."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ...errors import Refused
from ...lobby.fairshare import client_key
from ...lobby.lobby import SoloRequest, TableRequest
from ...people.skill import check_rated_hints, check_rated_table, check_signed_in
from ...table.invites import check_join
from ...table.seats import check_owner, link_seat
from ..common import address, body, body_of, errors, readable, seat_held, table_of
from ..deps import TheAccounts, TheLobby
from ..schemas import CreateTable, Join, Settings, Solo, TokenBody

router = APIRouter()


@router.get("/api/tables", responses=errors(400))
async def list_tables(
    request: Request, lobby: TheLobby, status: Literal["open", "all", "over"] = "open", limit: int = 50
) -> dict[str, Any]:
    """``limit`` is clamped to 1-500; newest first (a flood of old tables does not hide a new one)."""
    if status == "over":
        return {"tables": await lobby.finished_games(max(1, min(limit, 500)))}
    tables = sorted(lobby.listing(), key=lambda t: t.get("created_at") or 0, reverse=True)
    if status == "open":
        tables = [t for t in tables if t["status"] == "waiting"]
    return {"tables": tables[: max(1, min(limit, 500))]}


@router.post("/api/tables", status_code=201, responses=errors(400, 401, 413, 429), openapi_extra=body(CreateTable))
async def create_table(request: Request, lobby: TheLobby, accounts: TheAccounts) -> dict[str, Any]:
    account = await accounts.current(request, changing=True)
    body = await body_of(request, CreateTable)
    check_rated_table(body.rated, body.hints, body.seats or ())
    check_signed_in(body.rated, account)
    body = body.model_copy(update={"player_name": await accounts.seat_name(account, body.player_name)})
    out = await lobby.create(
        TableRequest(**body.model_dump()),
        client_key(address(request), account),
        account["id"] if account is not None else None,
    )
    if account is not None and "seat" in out:
        await link_seat(await table_of(request, out["table"]["id"]), out["seat"], account)
    return out


@router.post("/api/solo", status_code=201, responses=errors(400, 401, 413, 429), openapi_extra=body(Solo))
async def solo(request: Request, lobby: TheLobby, accounts: TheAccounts) -> dict[str, Any]:
    account = await accounts.current(request, changing=True)
    body = await body_of(request, Solo)
    check_rated_table(body.rated, body.hints, [None, *(body.bots if body.bots is not None else [body.bot])])
    check_signed_in(body.rated, account)
    body = body.model_copy(update={"player_name": await accounts.seat_name(account, body.player_name)})
    out = await lobby.solo(
        SoloRequest(**body.model_dump()),
        client_key(address(request), account),
        account["id"] if account is not None else None,
    )
    if account is not None:
        await link_seat(await table_of(request, out["table"]["id"]), out["seat"], account)
    return out


@router.get("/api/tables/{table_id}", responses=errors(403, 404))
async def get_table(
    request: Request, table_id: str, invite: str | None = None, token: str | None = None
) -> dict[str, Any]:
    """An invitation-only table needs its ``invite`` code, a seat ``token`` or a seated account's session."""
    table = await readable(request, table_id, token=token, invite=invite)
    return {"table": table.info(), "result": table.result()}


@router.post(
    "/api/tables/{table_id}/join", responses=errors(400, 401, 403, 404, 409, 413, 429), openapi_extra=body(Join)
)
async def join(request: Request, accounts: TheAccounts, table_id: str) -> dict[str, Any]:
    account = await accounts.current(request, changing=True)
    body = await body_of(request, Join)
    table = await table_of(request, table_id)
    check_join(table, body.invite)
    check_signed_in(table.config.rated, account)
    name = await accounts.seat_name(account, body.name)
    seat, token = await table.join(body.seat, name, account["id"] if account is not None else None)
    if account is not None:
        await link_seat(table, seat, account)
    return {"table": table.info(), "seat": seat, "token": token}


@router.post(
    "/api/tables/{table_id}/claim",
    responses=errors(400, 401, 403, 404, 409, 413, 429),
    openapi_extra=body(TokenBody, required=True),
)
async def claim(request: Request, accounts: TheAccounts, table_id: str) -> dict[str, Any]:
    """Link the seat a (guest's) token holds to the signed-in account (409 ``already_seated``: at a rated table
    the account holds another seat)."""
    account = await accounts.required(request, changing=True)
    body = await body_of(request, TokenBody)
    table = await table_of(request, table_id)
    seat = seat_held(table, body.token)
    await link_seat(table, seat, account)
    return {"table": table.info(), "seat": seat}


@router.post(
    "/api/tables/{table_id}/leave",
    responses=errors(400, 403, 404, 409, 413, 429),
    openapi_extra=body(TokenBody, required=True),
)
async def leave(request: Request, accounts: TheAccounts, table_id: str) -> dict[str, Any]:
    account = await accounts.current(request, changing=True)
    body = await body_of(request, TokenBody)
    table = await table_of(request, table_id)
    seat = seat_held(table, body.token)
    check_owner(account, table.seats[seat])
    await table.leave(seat)
    return {"table": table.info()}


@router.post(
    "/api/tables/{table_id}/settings",
    responses=errors(400, 403, 404, 413, 429),
    openapi_extra=body(Settings, required=True),
)
async def settings(request: Request, table_id: str) -> dict[str, Any]:
    body = await body_of(request, Settings)
    table = await table_of(request, table_id)
    if not table.is_creator(body.creator_token):
        raise Refused("bad_token", "only the table's creator may change its settings", 403)
    check_rated_hints(table.config.rated, body.hints)  # before any setting changes
    changes = body.model_dump(exclude={"creator_token"}, exclude_none=True)
    if changes:
        await table.set_options(**changes)
    return {"table": table.info()}


@router.get("/api/tables/{table_id}/view", responses=errors(400, 403, 404))
async def seat_view(
    request: Request, accounts: TheAccounts, table_id: str, token: str | None = None, invite: str | None = None
) -> Response:
    """A snapshot over HTTP (no WebSocket): the seat's view with its token, else the public one."""
    table = await readable(request, table_id, token=token, invite=invite)
    seat = None
    if token is not None:
        seat = seat_held(table, token)
        check_owner(await accounts.current(request), table.seats[seat])
    return Response(table.snapshot("state", seat), media_type="application/json")


@router.get("/api/tables/{table_id}/record", responses=errors(403, 404, 409))
async def record(request: Request, table_id: str, token: str | None = None, invite: str | None = None) -> JSONResponse:
    table = await readable(request, table_id, token=token, invite=invite)
    return JSONResponse(
        table.record(),
        headers={"Content-Disposition": f'attachment; filename="forsale-{table.id}.json"'},
    )


@router.get("/api/tables/{table_id}/replay", responses=errors(403, 404, 409))
async def replay(
    request: Request, table_id: str, token: str | None = None, invite: str | None = None
) -> dict[str, Any]:
    table = await readable(request, table_id, token=token, invite=invite)
    return table.replay()
