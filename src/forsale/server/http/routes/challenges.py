"""A person's challenges to bot accounts: ``POST /api/challenges``, ``GET`` and ``DELETE /api/challenges/{id}``.

The rules of a challenge are :mod:`forsale.server.lobby.challenges`'s; the bot answers on the Bot API
(:mod:`forsale.server.http.routes.botapi`). The challenger learns the answer from ``GET /api/challenges/{id}``
or from a ``challenge`` notice (``GET /api/me/notices``), and its seat from the ``seated`` one.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from ...lobby import challenges
from ..common import body, body_of, errors
from ..deps import TheAccounts, TheLobby
from ..schemas import AccountName, BotSpec, Players, RulesSpec, TimeLimit, _Strict

router = APIRouter()


class NewChallenge(_Strict):
    """``POST /api/challenges``: the bot account (by name) and the table: ``players`` (2 to 6; the two of you and
    ``bots``, server bots, at the other seats: the server's default bot when left out), rules, the move clock
    in seconds (null: none), rated or not."""

    bot: AccountName
    players: Players = 2
    rules: RulesSpec = None
    time_limit: TimeLimit = 60.0
    rated: bool = False
    bots: Annotated[list[BotSpec], Field(max_length=4)] | None = None


@router.post(
    "/api/challenges",
    status_code=201,
    responses=errors(400, 401, 403, 404, 413, 429),
    openapi_extra=body(NewChallenge, True),
)
async def create(request: Request, lobby: TheLobby, accounts: TheAccounts) -> JSONResponse:
    """Challenge a bot account: ``201 {"challenge": {...}}``, pending until the bot answers (60 s at most)."""
    account = await accounts.required(request, changing=True)
    sent = await body_of(request, NewChallenge)
    rules = sent.rules.model_dump() if sent.rules is not None and not isinstance(sent.rules, str) else sent.rules
    terms = challenges.Terms(
        sent.players, rules, sent.time_limit, sent.rated, tuple(sent.bots) if sent.bots is not None else None
    )
    challenge = await challenges.create(lobby, account, sent.bot, terms)
    return JSONResponse({"challenge": challenge}, status_code=201)


@router.get("/api/challenges/{challenge_id}", responses=errors(401, 404))
async def read(request: Request, lobby: TheLobby, accounts: TheAccounts, challenge_id: str) -> dict[str, Any]:
    """The challenge as it stands: ``status`` pending, accepted (``table``: where to resume your seat), declined
    (``reason``), expired, cancelled or failed. Only its challenger and its bot see it."""
    account = await accounts.required(request)
    return {"challenge": await challenges.get(lobby, account, challenge_id)}


@router.delete("/api/challenges/{challenge_id}", responses=errors(401, 403, 404, 409))
async def cancel(request: Request, lobby: TheLobby, accounts: TheAccounts, challenge_id: str) -> dict[str, Any]:
    """Take a pending challenge back (``409 challenge_over`` once the bot has answered or it expired)."""
    account = await accounts.required(request, changing=True)
    return {"challenge": await challenges.cancel(lobby, account, challenge_id)}
