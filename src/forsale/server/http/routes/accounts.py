"""Account endpoints (optional: guests need none of this): sign up, sign in, sign out, me, password, my games.

The accounts themselves are :mod:`forsale.server.people.accounts`; sessions are :mod:`forsale.server.people.sessions`.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.background import BackgroundTask

from ...lobby.cluster import ClusterLobby
from ...people.accounts import KEEP, Account, Accounts
from ...store.emails import op_shown
from ...table.connections import Conn
from ...table.seats import ENDED_BY, end_seat_tokens, tell
from ..common import address, body, body_of, errors
from ..cookies import clear_cookie, set_cookie
from ..deps import TheAccounts, TheLobby
from ..schemas import ChangePassword, Credentials, EmailBody, SignOut, TokenBody

router = APIRouter()
log = logging.getLogger("forsale.server")


async def ended(lobby: Any, unseated: list[Conn], account_id: str, why: str) -> None:
    """After the answer (and its new cookie) went out: tell the sockets whose seat token ended, here and on a
    cluster's other nodes, which end the account's tokens at their own tables first
    (:meth:`forsale.server.lobby.cluster.ClusterLobby._end_tokens`)."""
    await tell(unseated, ENDED_BY[why])
    if isinstance(lobby, ClusterLobby):
        try:
            await lobby.end_tokens_elsewhere(account_id, why)
        except Exception as failure:  # the database away: the other nodes' copies of the tokens live on
            log.warning("the other nodes were not told to end account %s's seat tokens: %s", account_id, failure)


async def signed_in(request: Request, accounts: Accounts, account: Account) -> JSONResponse:
    response = JSONResponse({"account": dict(account)})
    session_id = await accounts.start_session(request, account)
    set_cookie(response, request, session_id)
    return response


@router.post(
    "/api/signup", status_code=201, responses=errors(400, 403, 409, 413, 429), openapi_extra=body(Credentials, True)
)
async def sign_up(request: Request, accounts: TheAccounts) -> JSONResponse:
    """Make an account and sign in: the answer sets the session cookie."""
    await accounts.current(request, changing=True)  # a cookie from another origin is refused here too
    credentials = await body_of(request, Credentials)
    response = await signed_in(
        request, accounts, await accounts.sign_up(credentials.name, credentials.password, address(request))
    )
    response.status_code = 201
    return response


@router.post("/api/signin", responses=errors(400, 401, 403, 413, 429), openapi_extra=body(Credentials, True))
async def sign_in(request: Request, accounts: TheAccounts) -> JSONResponse:
    """Sign in: a new session cookie (any session the request carried ends)."""
    await accounts.current(request, changing=True)
    credentials = await body_of(request, Credentials)
    return await signed_in(
        request, accounts, await accounts.sign_in(credentials.name, credentials.password, address(request))
    )


@router.post("/api/signout", responses=errors(400, 403, 413, 429), openapi_extra=body(SignOut))
async def sign_out(request: Request, lobby: TheLobby, accounts: TheAccounts) -> JSONResponse:
    """End this session (signed out already is fine); ``{"everywhere": true}``: every session of the account.

    Everywhere also ends the seat tokens of the account's games under way, as a password change does: a
    stolen copy of a session may have fetched some (``resume``). The sockets seated with them get
    ``bad_token`` (``why: signed_out``) and watch; signing in again, ``resume`` gives fresh ones.
    """
    account = await accounts.current(request, changing=True)
    sent = await body_of(request, SignOut)
    response = JSONResponse({"account": None})
    if sent.everywhere and account is not None:
        await accounts.end_all_sessions(account)
        unseated = await end_seat_tokens(lobby.tables.values(), account["id"])
        response.background = BackgroundTask(ended, lobby, unseated, account["id"], "signed_out")
    else:
        await accounts.end_session(request)
    clear_cookie(response, request)
    return response


@router.get("/api/me")
async def me(request: Request, accounts: TheAccounts) -> dict[str, Any]:
    """The signed-in account, or ``{"account": null}``."""
    account = await accounts.current(request)
    if account is None:
        return {"account": None}
    return {"account": dict(account), **await accounts.storage.run(op_shown(account["id"]))}


@router.post("/api/me/email", responses=errors(400, 401, 403, 413, 429), openapi_extra=body(EmailBody, True))
async def set_email(request: Request, lobby: TheLobby, accounts: TheAccounts) -> dict[str, Any]:
    """Where "your turn" emails of games with a long clock go, and in which language; ``null`` stops them.

    Only this account sees them. A body without ``language`` keeps the language stored. A new address is
    stored unconfirmed (``email_confirmed: false``) and sent one link to confirm it (``confirmation_sent``);
    it gets no other email until then (forsale.server.people.emails). 429 past the confirmation emails' limits.
    """
    account = await accounts.required(request, changing=True)
    sent = await body_of(request, EmailBody)
    language = sent.language if "language" in sent.model_fields_set else KEEP
    return {"account": dict(account), **await lobby.turns.addresses.set(account, sent.email, language)}


@router.post("/api/email/confirm", responses=errors(400, 403, 404, 413, 429), openapi_extra=body(TokenBody, True))
async def confirm_email(request: Request, lobby: TheLobby) -> dict[str, Any]:
    """Confirm an address with the token of the link mailed to it (the page the link opens sends it).

    Needs no session: the link may be opened on another device. ``404 bad_confirmation`` for a token that is
    wrong, used, replaced by a newer link, or too old.
    """
    sent = await body_of(request, TokenBody)
    confirmed = await lobby.turns.addresses.confirm(sent.token)
    return {"email": confirmed["email"], "email_confirmed": confirmed["email_confirmed"]}


@router.post("/api/me/password", responses=errors(400, 401, 403, 413, 429), openapi_extra=body(ChangePassword, True))
async def change_password(request: Request, lobby: TheLobby, accounts: TheAccounts) -> JSONResponse:
    """Change the password: every session of the account ends, and this client gets a new one.

    The seat tokens of the account's games under way are replaced too (sockets seated with them get
    ``bad_token``): the new session takes its seats back with ``POST /api/tables/{id}/resume``.
    """
    account = await accounts.required(request, changing=True)
    change = await body_of(request, ChangePassword)
    await accounts.change_password(account, change.old_password, change.new_password, address(request))
    # Every seat token the old sessions could have fetched ends too; this client's new session resumes its seats.
    unseated = await end_seat_tokens(lobby.tables.values(), account["id"])
    response = await signed_in(request, accounts, account)
    # The sockets are told after this answer (and its new cookie) went out, so that a page resuming at once has it.
    response.background = BackgroundTask(ended, lobby, unseated, account["id"], "password_changed")
    return response


@router.get("/api/me/games", responses=errors(401))
async def my_games(request: Request, accounts: TheAccounts) -> dict[str, Any]:
    """The signed-in account's games, latest first: waiting, playing and over (not tables that expired waiting)."""
    account = await accounts.required(request)
    return {"games": [g for g in await accounts.games(account["id"]) if g["status"] != "expired"]}
