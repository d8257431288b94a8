"""Quick pairing's endpoints: join the queue, leave it, and its state (the heartbeat that keeps one in it).

The queue and its matcher are :mod:`forsale.server.lobby.pairing`; a seated account learns of its table through
its notices (``GET /api/me/notices``: :mod:`forsale.server.http.routes.notices`) and takes its seat with
``POST /api/tables/{id}/resume``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ...lobby.matching import PLAYER_COUNTS
from ...lobby.pairing import Pairing, Wish
from ..common import body, body_of, errors
from ..deps import TheAccounts
from ..schemas import JoinPairing

router = APIRouter()


def pairing_of(request: Request) -> Pairing:
    pairing: Pairing = request.app.state.pairing
    return pairing


def wish_of(join: JoinPairing) -> Wish:
    if join.players == "any":
        sizes: tuple[int, ...] = PLAYER_COUNTS
    elif isinstance(join.players, int):
        sizes = (join.players,)
    else:
        sizes = tuple(sorted(set(join.players)))
    return Wish(sizes, join.rated, join.bots_after)


@router.post(
    "/api/pairing", status_code=201, responses=errors(400, 401, 409, 413, 429), openapi_extra=body(JoinPairing)
)
async def join(request: Request, accounts: TheAccounts) -> JSONResponse:
    """Wait for a game with people: ``201 {"pairing": {...}, "counts": {...}, "after": id}`` (``after``: read
    ``GET /api/me/notices?after=`` from there for the ``seated`` notice). Signed in only: a rating, and a seat
    to come back to, need an account."""
    account = await accounts.required(request, changing=True)
    wish = wish_of(await body_of(request, JoinPairing))
    state = await pairing_of(request).join(account["id"], account["name"], wish)
    return JSONResponse(state, status_code=201)


@router.delete("/api/pairing", responses=errors(401, 403))
async def leave(request: Request, accounts: TheAccounts) -> dict[str, Any]:
    """Leave the queue: ``{"left": true}`` if the account was waiting (``false``: it was not, or was just seated)."""
    account = await accounts.required(request, changing=True)
    pairing = pairing_of(request)
    left = await pairing.leave(account["id"])
    return {"left": left, "counts": await pairing.counts()}


@router.get("/api/pairing")
async def state(request: Request, accounts: TheAccounts) -> dict[str, Any]:
    """The signed-in account's place in the queue (``pairing``: null when not waiting) and the counts (``waiting``,
    ``waiting_rated``, ``playing``), to anyone. For a waiting account it renews its entry, as an open
    ``GET /api/me/notices`` does every second (an entry renewed by neither for 6 seconds leaves the queue)."""
    account = await accounts.current(request)
    pairing = pairing_of(request)
    if account is None:
        return {"pairing": None, "counts": await pairing.counts()}
    if not await pairing.touch(account["id"]):
        return {"pairing": None, "counts": await pairing.counts()}
    return await pairing.state(account["id"])
