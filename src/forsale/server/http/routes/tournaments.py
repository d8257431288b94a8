"""Tournaments' endpoints: create, list, read (standings, rounds, games), join, withdraw, start, cancel.

The tournaments themselves, and the runner that plays their rounds, are :mod:`forsale.server.lobby.tournaments`;
a seated player learns of its table through its notices (``GET /api/me/notices``, ``source.tournament``) or from
``you.table`` here, and takes its seat with ``POST /api/tables/{id}/resume``. Every change needs a signed-in
account (a page's session; a bot account joins and withdraws through the Bot API, ``/api/bot/tournaments/...``
with its token); the per-address rate limit of every request applies, and an account may have at most
:data:`forsale.server.lobby.tournaments.OPEN_PER_ACCOUNT` tournaments not over (not yet started or under way).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ...lobby.tournaments import Settings, Tournaments
from ..common import body, body_of, errors
from ..deps import TheAccounts
from ..schemas import CreateTournament, NoFields
from .botapi import Bearer, bot_of

router = APIRouter()


def tournaments_of(request: Request) -> Tournaments:
    tournaments: Tournaments = request.app.state.tournaments
    return tournaments


@router.post(
    "/api/tournaments",
    status_code=201,
    responses=errors(400, 401, 403, 413, 429),
    openapi_extra=body(CreateTournament, True),
)
async def create(request: Request, accounts: TheAccounts) -> JSONResponse:
    """Create a tournament (the creator enters it too unless ``join`` is false): ``201`` and its view."""
    account = await accounts.required(request, changing=True)
    b = await body_of(request, CreateTournament)
    settings = Settings(
        name=b.name,
        kind=b.kind,
        players=b.players,
        rules=b.model_dump()["rules"],  # knobs as a plain dict, as a table's request has them
        time_limit=b.time_limit,
        rated=b.rated,
        bots=b.bots,
        fill=b.fill,
        rounds=b.rounds,
        minutes=b.minutes,
        starts_at=None if b.starts_at is None else b.starts_at / 1000,
        start_players=b.start_players,
        max_players=b.max_players,
        bot_delay=b.bot_delay,
        join=b.join,
    )
    view = await tournaments_of(request).create(account, settings)
    return JSONResponse(view, status_code=201)


@router.get("/api/tournaments")
async def listing(request: Request) -> dict[str, Any]:
    """``{"upcoming": [...], "running": [...], "finished": [...]}``, newest first, 50 of each at most."""
    return await tournaments_of(request).listing()


@router.get("/api/tournaments/{tournament_id}", responses=errors(404))
async def get(request: Request, tournament_id: str, accounts: TheAccounts) -> dict[str, Any]:
    """A tournament: settings, ``standings`` (best first), ``schedule`` (each round's tables: seats, points and
    game, with ``replay``/``record`` links), and ``you`` (the signed-in account's entry and the table it should be
    at)."""
    account = await accounts.current(request)
    return await tournaments_of(request).view(tournament_id, None if account is None else account["id"])


async def _act(request: Request, accounts: TheAccounts, tournament_id: str, what: str) -> dict[str, Any]:
    account = await accounts.required(request, changing=True)
    await body_of(request, NoFields)
    t = tournaments_of(request)
    if what == "join":
        return await t.join(tournament_id, account)
    if what == "withdraw":
        return await t.withdraw(tournament_id, account["id"])
    if what == "start":
        return await t.start(tournament_id, account["id"])
    return await t.cancel(tournament_id, account["id"])


REFUSALS = errors(400, 401, 403, 404, 409, 413, 429)


@router.post("/api/tournaments/{tournament_id}/join", responses=REFUSALS, openapi_extra=body(NoFields))
async def join(request: Request, tournament_id: str, accounts: TheAccounts) -> dict[str, Any]:
    """Enter the tournament before it starts: its view (409 ``tournament_closed``, ``already_entered``,
    ``tournament_full``; 403 ``bots_excluded`` for a bot account where bots are not allowed)."""
    return await _act(request, accounts, tournament_id, "join")


@router.post("/api/tournaments/{tournament_id}/withdraw", responses=REFUSALS, openapi_extra=body(NoFields))
async def withdraw(request: Request, tournament_id: str, accounts: TheAccounts) -> dict[str, Any]:
    """Leave the tournament: before its start the entry goes; later the account is not paired again, and a game it
    plays now plays on (409 ``not_entered``, ``tournament_closed``)."""
    return await _act(request, accounts, tournament_id, "withdraw")


@router.post("/api/tournaments/{tournament_id}/start", responses=REFUSALS, openapi_extra=body(NoFields))
async def start(request: Request, tournament_id: str, accounts: TheAccounts) -> dict[str, Any]:
    """Start now (the creator, before it has started; 403 ``not_creator``, 409 ``too_few_players``)."""
    return await _act(request, accounts, tournament_id, "start")


@router.post("/api/tournaments/{tournament_id}/cancel", responses=REFUSALS, openapi_extra=body(NoFields))
async def cancel(request: Request, tournament_id: str, accounts: TheAccounts) -> dict[str, Any]:
    """Call it off (the creator, before it has started; 403 ``not_creator``, 409 ``tournament_closed``)."""
    return await _act(request, accounts, tournament_id, "cancel")


# -- bot accounts (the Bot API: Authorization: Bearer <token>, docs/bot-api.md) -------------------------------
BOT_REFUSALS = errors(400, 401, 403, 404, 409, 413, 429)


@router.post("/api/bot/tournaments/{tournament_id}/join", responses=BOT_REFUSALS, openapi_extra=body(NoFields))
async def bot_join(request: Request, tournament_id: str, authorization: Bearer = None) -> dict[str, Any]:
    """A bot account enters a tournament (scope ``bot:play``); its tables come as ``seated`` notices on its event
    stream (``GET /api/bot/notices``), as quick pairing's and challenges' do. 403 ``bots_excluded`` where the
    tournament allows no bots."""
    owner = await bot_of(request, authorization, "bot:play")
    await body_of(request, NoFields)
    account = {"id": owner.account_id, "name": owner.name, "bot_account": True}
    return await tournaments_of(request).join(tournament_id, account)


@router.post("/api/bot/tournaments/{tournament_id}/withdraw", responses=BOT_REFUSALS, openapi_extra=body(NoFields))
async def bot_withdraw(request: Request, tournament_id: str, authorization: Bearer = None) -> dict[str, Any]:
    """A bot account leaves a tournament (scope ``bot:play``), as ``/api/tournaments/{id}/withdraw``."""
    owner = await bot_of(request, authorization, "bot:play")
    await body_of(request, NoFields)
    return await tournaments_of(request).withdraw(tournament_id, owner.account_id)
