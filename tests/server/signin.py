"""Accounts on one TestClient: a new account signed in, and the switch between accounts by their session
cookies (a helper module, not a test file): one client plays several people in turn, as the turn-email and
rating tests need.
"""

from __future__ import annotations

from starlette.testclient import TestClient

from forsale.server.people.sessions import COOKIE

from .social import PASSWORD, SAME


def sign_up(client: TestClient, name: str) -> str:
    """Make an account and sign the client in as it; returns its session cookie (to switch back later)."""
    client.cookies.clear()
    response = client.post("/api/signup", json={"name": name, "password": PASSWORD}, headers=SAME)
    assert response.status_code == 201, response.text
    return str(client.cookies[COOKIE])


def as_account(client: TestClient, session: str | None) -> None:
    """Sign the client in with ``session`` (a cookie :func:`sign_up` returned), or out with None: a guest."""
    client.cookies.clear()
    if session is not None:
        client.cookies.set(COOKIE, session, domain="testserver.local")
