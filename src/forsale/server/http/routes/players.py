"""Players' endpoints: profiles, the leaderboard, taking one's seat back from another device, deleting an account.

Profiles and ratings are :mod:`forsale.server.people.profiles` and :mod:`forsale.server.people.skill`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from ....rules import MAX_PLAYERS, MIN_PLAYERS
from ...errors import Refused
from ...names import DELETED_NAME
from ...people import profiles, skill
from ...people.accounts import name_key, normal_name, refuse_bot_account
from ...people.skill import OVERALL
from ...store.apitokens import op_bot_names, op_find_bot
from ...store.database import Storage
from ...table.connections import error
from ...table.seats import ALREADY_SEATED
from ...tokens import new_token
from ..common import address, body, body_of, errors, table_of
from ..cookies import clear_cookie
from ..deps import TheAccounts, TheLobby, TheStorage
from ..schemas import DeleteAccount, NoFields

router = APIRouter()

BOT_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
"""What a bot's name may look like (the registry's names); anything else is no bot's."""

BOT_PREFIX = "bot:"
SEAT_MOVED = "this seat was taken up on another device (its token was replaced); you are watching now"
"""``/api/players/bot:hard`` is the bot ``hard`` (no account's name holds a colon)."""


@router.get("/api/players/{name}", responses=errors(404))
async def profile(request: Request, accounts: TheAccounts, storage: TheStorage, name: str) -> dict[str, Any]:
    """A player's page: ratings, rating after each rated game, games played and won per player count, games."""
    viewer = await accounts.current(request)
    viewer_id = viewer["id"] if viewer else None  # which games it may see: forsale.server.store.visibility
    if name.startswith(BOT_PREFIX):
        bot = name.removeprefix(BOT_PREFIX)
        found = await profiles.bot_profile(storage, bot, viewer_id) if BOT_NAME.fullmatch(bot) else None
    else:
        try:
            normal_name(name)  # what no account can be called (a NUL, say) is looked up nowhere
        except Refused:
            raise Refused("not_found", "there is no player with this name", 404) from None
        found = await profiles.account_profile(storage, name_key(name), viewer_id)
        if found is not None and await storage.run(op_find_bot(name_key(name))) is not None:
            found["bot_account"] = True  # the page marks it, and offers a signed-in person to challenge it
    if found is None:
        shown = repr(name) if len(name) <= 24 else "with this name"
        raise Refused("not_found", f"there is no player {shown} (bots have ratings once they play a rated game)", 404)
    return {"player": found}


PLAYER_FILTERS = (OVERALL, *range(MIN_PLAYERS, MAX_PLAYERS + 1))
"""A leaderboard's player counts: 0 for every game (an enum in the schema, so clients know the choices)."""


@router.get("/api/leaderboard", responses=errors(400))
async def leaderboard(
    request: Request,
    storage: TheStorage,
    players: Annotated[int, Query(json_schema_extra={"enum": list(PLAYER_FILTERS)})] = OVERALL,
    kind: Literal["all", "people", "bots"] = "all",
    limit: int = 50,
) -> dict[str, Any]:
    """The best ratings (``mu - 3 sigma``): ``players`` 0 over every game, or 2-6 over games of that many."""
    if players not in PLAYER_FILTERS:
        raise Refused("bad_request", f"players: 0 (every game) or {MIN_PLAYERS} to {MAX_PLAYERS}")
    rows = await skill.leaderboard(storage, players, max(1, min(limit, 200)), kind)
    bots = await storage.run(op_bot_names([r["name"] for r in rows if r["kind"] == "account" and r["name"]]))
    for row in rows:
        if row["kind"] == "account" and row["name"] in bots:
            row["bot_account"] = True  # rated on the people's scale, marked as a program
    return {"players": players, "kind": kind, "ratings": rows}


@router.post(
    "/api/tables/{table_id}/resume", responses=errors(400, 401, 403, 404, 409, 413, 429), openapi_extra=body(NoFields)
)
async def resume(request: Request, accounts: TheAccounts, table_id: str) -> dict[str, Any]:
    """A fresh token for the signed-in account's seat at this table (from any device).

    The seat's old token stops working: a device still holding it asks again. At a table the account
    created (signed in), the answer carries a fresh ``creator_token`` too, and the old one stops working: a
    password change ends it (a stolen session's copy), and this is how the owner's new session gets it back.
    """
    mark = accounts.revocation_mark()  # before the session is looked up (see Accounts.revocation_mark)
    account = await accounts.required(request, changing=True)
    refuse_bot_account(account)  # its seats are taken with the Bot API's seat endpoint, by token
    await body_of(request, NoFields)
    table = await table_of(request, table_id)
    async with table.lock:
        if accounts.revoked_since(account, mark):  # the password changed meanwhile: this session has ended
            raise Refused("not_signed_in", "the password changed meanwhile: sign in again", 401)
        held = [s for s in table.seats if s.account_id == account["id"] and s.kind == "human"]
        creator: dict[str, str] = {}
        if table.config.creator_account == account["id"] and table.status != "over":
            creator_token, creator_hash = new_token()
            await table.write(Storage.op_update_game(table.id, creator_hash=creator_hash))  # fenced: owner only
            table.creator_hash = creator_hash
            creator = {"creator_token": creator_token}
        if not held:
            if creator:  # the creator did not sit down: the creator's rights are all there is to take back
                return {"table": table.info(), **creator}
            raise Refused("no_seat", "no seat at this table is this account's (a seat a bot took over is not)", 404)
        if len(held) > 1 and table.config.rated:  # seated twice before one seat a person was the rule
            raise Refused("already_seated", ALREADY_SEATED, 409)
        seat = held[0]
        token, seat.token_hash = new_token()
        await table.write(Storage.op_update_seat(table.id, seat.stored()))  # fenced: on a cluster, owner only
        # Sockets opened with the old token (another device, or whoever copied it) stop playing the seat.
        table.unseat_connections(seat.index, error("bad_token", SEAT_MOVED))
        table.snapshots.broadcast_info()
    return {"table": table.info(), "seat": seat.index, "token": token, **creator}


@router.post("/api/me/delete", responses=errors(400, 401, 403, 413, 429), openapi_extra=body(DeleteAccount, True))
async def delete_account(request: Request, lobby: TheLobby, accounts: TheAccounts, storage: TheStorage) -> JSONResponse:
    """Delete the signed-in account (its password again): its seats are renamed, its sessions and ratings end."""
    account = await accounts.required(request, changing=True)
    password = (await body_of(request, DeleteAccount)).password
    await accounts.verify(account, password, address(request))
    for table in list(lobby.tables.values()):
        for seat in table.seats:
            if seat.account_id == account["id"] and seat.kind == "human" and table.status != "over":
                await table.leave(seat.index)  # before the game: the seat is free again; during it: a bot's
    await profiles.delete_account(storage, account["id"])
    for table in list(lobby.tables.values()):
        for seat in table.seats:
            if seat.account_id == account["id"]:
                seat.name = DELETED_NAME  # the tables in memory show what the database now holds
    response = JSONResponse({"account": None})
    clear_cookie(response, request)
    return response
