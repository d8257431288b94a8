"""What every REST endpoint shares: the error envelope, reading a body, finding a table, a seat or the lobby.

The routes live in modules of their own (``http/routes/*.py``, one per concern,
each an :class:`fastapi.APIRouter` that :func:`forsale.server.app.create_app`
includes); they reach the server's state only through these functions and the
dependencies of :mod:`forsale.server.http.deps`, so a new concern adds a module
and one ``include_router`` line, nothing more.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.requests import ClientDisconnect, HTTPConnection
from starlette.types import Scope

from ..errors import Refused
from ..lobby.lobby import Lobby
from ..people import sessions as session_store
from ..people.accounts import Account, Accounts
from ..store import sessions as session_rows
from ..store.database import Storage
from ..table.invites import admitted, refuse_private
from ..table.live import LiveTable
from .schemas import describe_validation

M = TypeVar("M", bound=BaseModel)


def client_host(scope: Scope) -> str:
    """The client's address (``?`` where the server was not told it), as logged; limits use :func:`client_net`."""
    return scope["client"][0] if scope.get("client") else "?"


def network_of(host: str) -> str:
    """The key of every per-address limit: an IPv4 address as it is, an IPv6 address by its /64.

    One IPv6 subscriber gets a whole /64 (often more) and may use a fresh address of it for each
    request, so keyed on the full /128 a rate limit, a socket count, sign-ups, password guesses or
    tables per client would be no limit at all. An IPv4 address mapped into IPv6 is its IPv4 address.
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:  # "?" or a name a test client made up: a key of its own
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((int(ip) >> 64 << 64, 64)))
    return host


def client_net(scope: Scope) -> str:
    """Whom the per-address limits count a request (or socket) against: :func:`network_of` its address."""
    return network_of(client_host(scope))


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorEnvelope(BaseModel):
    """Every ``/api/`` error: ``{"error": {"code": "...", "message": "..."}}``."""

    error: ErrorDetail


ERROR_STATUSES = {
    400: "malformed: not JSON, wrong types, unknown keys, or unknown rules, bots, seats, names or passwords",
    401: "not signed in, or no account has that name and password",
    403: "a token that holds no seat here, or not the creator's; another account's seat; a POST from another site's page",
    404: "no such table, seat or endpoint",
    409: "not now: the seat is taken, the table full, the game over or still running",
    413: "a body over 64 KiB",
    415: "a body sent without Content-Type: application/json",
    429: "too many requests from this address, too many wrong passwords (see Retry-After), or too many tables "
    "waiting, of bots only or under way for one client (too_many_tables, too_many_bot_tables, too_many_games)",
}
BODY_MODELS: list[type[BaseModel]] = []
"""Every model an endpoint reads with :func:`body_of`, in the order :func:`body` saw them (for the OpenAPI schema)."""


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The error answers an endpoint documents in the OpenAPI schema."""
    return {status: {"model": ErrorEnvelope, "description": ERROR_STATUSES[status]} for status in statuses}


def body(model: type[BaseModel], required: bool = False) -> dict[str, Any]:
    """The JSON body an endpoint reads (with :func:`body_of`), for the OpenAPI schema.

    Every POST may also be refused before it reaches the endpoint, by the CSRF rule
    (:func:`forsale.server.http.cookies.post_refusal`): 403 from another site's page, 415 for a body not sent as JSON.
    """
    if model not in BODY_MODELS:
        BODY_MODELS.append(model)
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    envelope = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}
    refusals = {str(status): {"description": ERROR_STATUSES[status], "content": envelope} for status in (403, 415)}
    return {
        "requestBody": {"required": required, "content": {"application/json": {"schema": ref}}},
        "responses": refusals,
    }


def rest_error(code: str, message: str, status: int) -> JSONResponse:
    """The error envelope of every ``/api/`` error; a 413 also closes the connection (the rest of its body is unread)."""
    headers = {"Connection": "close"} if status == 413 else None
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status, headers=headers)


def lobby_of(request: Request) -> Lobby:
    return request.app.state.lobby


def accounts_of(request: Request) -> Accounts:
    return request.app.state.accounts


def address(request: Request) -> str:
    """The request's address as the limits key it (an IPv6 address by its /64: :func:`network_of`)."""
    return client_net(request.scope)


async def body_of(request: Request, model: type[M]) -> M:
    try:
        raw = await request.body()  # at most MAX_MESSAGE_BYTES: see capped()
    except ClientDisconnect:  # the client hung up mid-body: nobody is left to answer
        raise Refused("disconnected", "the client went away before sending the whole body") from None
    try:
        data = json.loads(raw) if raw.strip() else {}
    except RecursionError:  # nesting deeper than the decoder's recursion limit
        raise Refused("bad_json", "the request body is not valid JSON: it is nested too deeply") from None
    except ValueError as err:
        raise Refused("bad_json", f"the request body is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise Refused("bad_request", "the request body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise Refused("bad_request", describe_validation(err)) from None


async def table_of(request: Request, table_id: str) -> Any:
    table = await lobby_of(request).get(table_id)
    if table is None:
        shown = repr(table_id) if len(table_id) <= 32 else "with this id"  # echo no junk
        raise Refused("not_found", f"there is no table {shown}", 404)
    return table


def seat_held(table: Any, token: str) -> int:
    """The seat ``token`` holds at ``table``, or ``403 bad_token``."""
    seat = table.seat_for_token(token)
    if seat is None:
        raise Refused("bad_token", "this token holds no seat at this table", 403)
    return seat


async def readable(request: Any, table_id: str, *, token: str | None = None, invite: str | None = None) -> LiveTable:
    """``table_of(request, table_id)`` for a request that reads the game: ``403 private_table`` unless admitted.

    The session is looked up only at an invitation-only table, so public
    tables cost what they always did.
    """
    table: LiveTable = await table_of(request, table_id)
    if table.invite_only and not admitted(table, token=token, invite=invite):
        account = await accounts_of(request).current(request)
        if not admitted(table, account=account):
            raise refuse_private()
    return table


async def socket_account(conn: HTTPConnection, storage: Storage) -> Account | None:
    """The account a WebSocket handshake's session cookie signs in (None without one).

    ``cross_origin`` (:class:`Refused`) when the cookie comes with another
    site's ``Origin``: the browser attaches the cookie to any site's
    WebSocket, so the cookie may only count from this server's own pages.
    """
    session_id = session_store.cookie_of(conn)  # a Request or a WebSocket: both are Asking
    if session_id is None:
        return None
    if not session_store.same_origin(conn.headers, conn.url.scheme):
        raise Refused("cross_origin", "a signed-in WebSocket must come from this server's own pages", 403)
    found = await storage.run(session_rows.op_lookup(session_store.hash_session(session_id)))
    # A bot account's session only watches: it plays its seats with the Bot API's seat tokens, not as a person.
    return None if found is None or found[2] else Account(id=found[0], name=found[1])
