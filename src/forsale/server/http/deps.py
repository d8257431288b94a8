"""What routes are given rather than look up: the server's lobby, accounts and storage, as FastAPI dependencies.

A route names what it needs in its signature (``lobby: TheLobby``), so what it reaches of the server's state
is read there, and a test or another server can give a route other ones (``app.dependency_overrides``).
These only hand over objects made at start-up: they never fail, so they change no answer nor the order in
which a request's mistakes are refused (the body, the session and the table stay in the routes, in order).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..lobby.lobby import Lobby
from ..people.accounts import Accounts
from ..store.database import Storage
from .common import accounts_of, lobby_of


async def _lobby(request: Request) -> Lobby:  # async: FastAPI runs a plain function's dependency in a thread
    return lobby_of(request)


async def _accounts(request: Request) -> Accounts:
    return accounts_of(request)


async def _storage(request: Request) -> Storage:
    storage: Storage = request.app.state.storage
    return storage


TheLobby = Annotated[Lobby, Depends(_lobby)]
"""Every table of this server (or cluster node)."""
TheAccounts = Annotated[Accounts, Depends(_accounts)]
"""The server's accounts and sessions."""
TheStorage = Annotated[Storage, Depends(_storage)]
"""The server's database."""
