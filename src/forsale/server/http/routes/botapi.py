"""Bot accounts and the Bot API: becoming a bot account, its API tokens, and what a bot does with one.

The account's owner manages it with its session (``/api/me/bot``, ``/api/me/tokens``); the bot itself speaks
with ``Authorization: Bearer <token>`` on ``/api/bot/...`` only, and no endpoint here reads the session cookie
on those paths (docs/bot-api.md). What a token is and its limits are :mod:`forsale.server.people.apitokens`'s;
what a bot account may not do, :mod:`forsale.server.people.botaccounts`'s.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from ...errors import Refused
from ...lobby import challenges
from ...people import botaccounts
from ...people.apitokens import SCOPES, ApiTokens
from ...store.apitokens import TokenOwner
from ...store.database import Storage
from ...table.connections import error
from ...table.seats import end_seat_tokens
from ...tokens import new_token
from ..common import address, body, body_of, errors, table_of
from ..deps import TheAccounts, TheLobby, TheStorage
from ..schemas import DeleteAccount, JoinPairing, Name, NoFields, Password, _Strict
from .accounts import ended
from .pairing import pairing_of, wish_of

router = APIRouter()

SEAT_TAKEN_BY_BOT = "the bot took this seat up again with a fresh token; you are watching now"


class NewToken(_Strict):
    """``POST /api/me/tokens``: a name to tell tokens apart by, its scopes (both by default), and the account's
    password: a token outlives a password change, so a stolen session must not be able to mint one."""

    name: Name
    password: Password
    scopes: Annotated[list[str], Field(min_length=1, max_length=len(SCOPES))] = list(SCOPES)


def tokens_of(request: Request) -> ApiTokens:
    tokens: ApiTokens = request.app.state.api_tokens
    return tokens


async def bot_of(request: Request, authorization: str | None, scope: str) -> TokenOwner:
    """The bot account a Bot API request speaks for (see :meth:`ApiTokens.owner` for the refusals)."""
    return await tokens_of(request).owner(authorization, scope, address(request))


Bearer = Annotated[str | None, Header(description="Bearer fsb_...: an API token of a bot account")]


# -- the owner's side (a session) ----------------------------------------------------------------------------
@router.post("/api/me/bot", responses=errors(400, 401, 403, 409, 413, 429), openapi_extra=body(DeleteAccount, True))
async def become_bot(request: Request, accounts: TheAccounts, storage: TheStorage) -> dict[str, Any]:
    """Make the signed-in account a bot account, for good (its password again).

    ``409 played_rated`` for an account that has played a rated game, ``409 playing`` while one of its seats is
    at a table not over, ``409 already_bot``. From then on it plays only through the Bot API.
    """
    account = await accounts.required(request, changing=True)
    password = (await body_of(request, DeleteAccount)).password
    await accounts.verify(account, password, address(request))
    return {"account": dict(await botaccounts.upgrade(storage, account))}


@router.get("/api/me/tokens", responses=errors(401))
async def list_tokens(request: Request, accounts: TheAccounts) -> dict[str, Any]:
    """The account's API tokens: id, name, scopes, when made and last used (epoch seconds); never the secret."""
    account = await accounts.required(request)
    return {"tokens": await tokens_of(request).listed(account)}


@router.post(
    "/api/me/tokens",
    status_code=201,
    responses=errors(400, 401, 403, 409, 413, 429),
    openapi_extra=body(NewToken, True),
)
async def create_token(request: Request, accounts: TheAccounts) -> dict[str, Any]:
    """A new API token for the signed-in bot account: the answer holds the secret, shown this once (``403
    wrong_password`` without the account's password)."""
    account = await accounts.required(request, changing=True)
    sent = await body_of(request, NewToken)
    await accounts.verify(account, sent.password, address(request))
    unknown = [s for s in sent.scopes if s not in SCOPES]
    if unknown:
        raise Refused("bad_request", f"scopes: {unknown[0][:40]!r} is none; the scopes are {', '.join(SCOPES)}")
    token_id, token = await tokens_of(request).create(account, sent.name, sent.scopes)
    return {"id": token_id, "name": sent.name, "scopes": sorted(set(sent.scopes), key=SCOPES.index), "token": token}


@router.delete("/api/me/tokens/{token_id}", responses=errors(401, 403, 404))
async def revoke_token(request: Request, lobby: TheLobby, accounts: TheAccounts, token_id: str) -> dict[str, Any]:
    """Revoke a token at once. The seat tokens of the account's games under way end too (a thief holding the
    API token could have taken them); the bot takes its seats back with another token."""
    account = await accounts.required(request, changing=True)
    await tokens_of(request).revoke(account, token_id[:40])
    unseated = await end_seat_tokens(lobby.tables.values(), account["id"])
    await ended(lobby, unseated, account["id"], "token_revoked")  # and on a cluster's other nodes
    return {"revoked": token_id}


# -- the bot's side (a token) ------------------------------------------------------------------------------------
@router.get("/api/bot/account", responses=errors(401, 403, 429))
async def bot_account(request: Request, authorization: Bearer = None) -> dict[str, Any]:
    """Whom the token speaks for, and its scopes: a bot's first call, to check its token."""
    owner = await bot_of(request, authorization, "bot:read")
    return {"account": {"id": owner.account_id, "name": owner.name, "bot_account": True}, "scopes": list(owner.scopes)}


@router.get("/api/bot/games", responses=errors(401, 403, 429))
async def bot_games(request: Request, accounts: TheAccounts, authorization: Bearer = None) -> dict[str, Any]:
    """The bot's games not over (``waiting``, ``playing``), latest first: after a restart, the tables to sit at
    again (``POST /api/bot/tables/{id}/seat``)."""
    owner = await bot_of(request, authorization, "bot:read")
    games = await accounts.games(owner.account_id)
    return {"games": [g for g in games if g["status"] in ("waiting", "playing")]}


@router.post(
    "/api/bot/tables/{table_id}/seat",
    responses=errors(400, 401, 403, 404, 413, 429),
    openapi_extra=body(NoFields),
)
async def bot_seat(request: Request, table_id: str, authorization: Bearer = None) -> dict[str, Any]:
    """A fresh seat token for the bot's seat at this table, to play it over ``/ws/tables/{id}``.

    As a person's ``resume``: the seat's previous token stops working (a second copy of the bot, or an old
    connection, watches from then on).
    """
    owner = await bot_of(request, authorization, "bot:play")
    await body_of(request, NoFields)
    table = await table_of(request, table_id)
    async with table.lock:
        held = [s for s in table.seats if s.account_id == owner.account_id and s.kind == "human"]
        if not held:
            raise Refused("no_seat", "no seat at this table is this bot's", 404)
        seat = held[0]
        seat.bot_account = True  # the page marks the seat a bot account's
        token, seat.token_hash = new_token()
        await table.write(Storage.op_update_seat(table.id, seat.stored()))  # fenced: on a cluster, owner only
        table.unseat_connections(seat.index, error("bad_token", SEAT_TAKEN_BY_BOT))
        table.snapshots.broadcast_info()
    return {"table": table.info(), "seat": seat.index, "token": token}


# -- the bot's events: its notices, a long poll ---------------------------------------------------------------
MAX_WAIT = 25.0
"""Seconds a poll waits at most (under the usual 30 s idle timeouts of proxies)."""
MAX_POLLS = 4
"""Polls one bot account may hold open at once on one server."""


@router.get("/api/bot/notices", responses=errors(400, 401, 403, 429))
async def bot_notices(
    request: Request,
    lobby: TheLobby,
    authorization: Bearer = None,
    after: Annotated[int, Query(ge=-1, le=2**62)] = -1,
    wait: Annotated[float, Query(ge=0, le=MAX_WAIT)] = 0,
) -> dict[str, Any]:
    """The bot's event stream, as ``GET /api/me/notices`` is a person's: its notices after id ``after``, waiting
    up to ``wait`` seconds for one; ``after=-1`` (the default) answers none but the latest id (``last``).

    The kinds a bot reads: ``challenge`` (a new one, or cancelled by its challenger: ``challenge.status``) and
    ``seated`` (a table made for it by a challenge it accepted, quick pairing or a tournament: take the seat
    with ``POST /api/bot/tables/{id}/seat``). The answer is ``{"notices": [...], "last": id}``.
    """
    owner = await bot_of(request, authorization, "bot:read")
    board = lobby.notices
    if after < 0:
        return {"notices": [], "last": await board.last_id(owner.account_id)}
    if board.waiting(owner.account_id) >= MAX_POLLS:
        raise Refused("rate_limited", f"at most {MAX_POLLS} notice polls at once per bot", 429)

    async def still() -> bool:
        return not await request.is_disconnected()

    found = await board.wait(owner.account_id, after, wait, still)
    return {"notices": found, "last": found[-1]["id"] if found else after}


# -- challenges ---------------------------------------------------------------------------------------------------
class Decline(_Strict):
    """Why the bot declines (:data:`forsale.server.lobby.challenges.DECLINE_REASONS`)."""

    reason: Literal["generic", "later", "players", "rules", "clock", "rated", "casual"] = "generic"


@router.get("/api/bot/challenges", responses=errors(401, 403, 429))
async def bot_challenges(request: Request, lobby: TheLobby, authorization: Bearer = None) -> dict[str, Any]:
    """The challenges waiting for the bot's answer, oldest first (a bot that starts answers these first)."""
    owner = await bot_of(request, authorization, "bot:read")
    return {"challenges": await challenges.pending(lobby, owner.account_id)}


@router.post(
    "/api/bot/challenges/{challenge_id}/accept",
    responses=errors(400, 401, 403, 404, 409, 413, 429),
    openapi_extra=body(NoFields),
)
async def accept_challenge(
    request: Request, lobby: TheLobby, challenge_id: str, authorization: Bearer = None
) -> dict[str, Any]:
    """Accept: the table is made at once; the answer's ``challenge.table`` is it (a ``seated`` notice follows).
    ``409 challenge_over`` if it was cancelled, expired or answered already."""
    owner = await bot_of(request, authorization, "bot:play")
    await body_of(request, NoFields)
    return {"challenge": await challenges.accept(lobby, owner.account_id, challenge_id)}


@router.post(
    "/api/bot/challenges/{challenge_id}/decline",
    responses=errors(400, 401, 403, 404, 409, 413, 429),
    openapi_extra=body(Decline),
)
async def decline_challenge(
    request: Request, lobby: TheLobby, challenge_id: str, authorization: Bearer = None
) -> dict[str, Any]:
    """Decline, with a reason the challenger's page shows."""
    owner = await bot_of(request, authorization, "bot:play")
    reason = (await body_of(request, Decline)).reason
    return {"challenge": await challenges.decline(lobby, owner.account_id, challenge_id, reason)}


# -- quick pairing ------------------------------------------------------------------------------------------------
@router.post(
    "/api/bot/pairing", status_code=201, responses=errors(400, 401, 403, 409, 413, 429), openapi_extra=body(JoinPairing)
)
async def bot_join_pairing(request: Request, authorization: Bearer = None) -> JSONResponse:
    """Wait in quick pairing as a person does (``POST /api/pairing``'s body and answer); keep the place with
    ``GET /api/bot/pairing`` every 2 seconds (an entry not asked about for 6 s leaves the queue)."""
    owner = await bot_of(request, authorization, "bot:play")
    wish = wish_of(await body_of(request, JoinPairing))
    return JSONResponse(await pairing_of(request).join(owner.account_id, owner.name, wish), status_code=201)


@router.get("/api/bot/pairing", responses=errors(401, 403, 429))
async def bot_pairing(request: Request, authorization: Bearer = None) -> dict[str, Any]:
    """The bot's place in the queue (``pairing``: null when not waiting) and the counts; its heartbeat."""
    owner = await bot_of(request, authorization, "bot:read")
    pairing = pairing_of(request)
    if not await pairing.touch(owner.account_id):
        return {"pairing": None, "counts": await pairing.counts()}
    return await pairing.state(owner.account_id)


@router.delete("/api/bot/pairing", responses=errors(401, 403, 429))
async def bot_leave_pairing(request: Request, authorization: Bearer = None) -> dict[str, Any]:
    """Leave the queue: ``{"left": true}`` if the bot was waiting."""
    owner = await bot_of(request, authorization, "bot:play")
    return {"left": await pairing_of(request).leave(owner.account_id)}
