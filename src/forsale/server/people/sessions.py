"""Server-side sessions: a random id in a cookie, its hash in the database, and the same-origin rule.

The cookie holds only a random session id (256 bits from :mod:`secrets`); the
database keeps its SHA-256, so a copy of the database cannot be replayed as
anyone's cookie. The cookie is ``HttpOnly`` (page scripts cannot read it),
``SameSite=Lax`` (cross-site requests other than top-level navigations do not
carry it) and ``Secure`` when the request came over HTTPS (uvicorn sets the
scheme from ``X-Forwarded-Proto`` for the proxies it trusts).

SameSite does not cover sibling sites (``evil.example.com`` is the same
*site* as ``forsale.example.com``), so every state-changing request that
carries the cookie must also pass :func:`same_origin` (CSRF).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Protocol
from urllib.parse import urlsplit

from ..tokens import hash_token

COOKIE = "forsale_session"
SESSION_SECONDS = 30 * 24 * 3600
"""A session lasts 30 days from sign-in; then the cookie and the row are worth nothing."""
SESSION_BYTES = 32
MAX_COOKIE_CHARS = 100
"""A cookie longer than any id this module makes is not looked up."""


class Scheme(Protocol):
    @property
    def scheme(self) -> str: ...


class Asking(Protocol):
    """What the session rules read of a request (Starlette's ``Request`` and ``WebSocket`` are ones): its
    cookies, headers and scheme. The people's floor names no web framework; the cookie itself is set and
    cleared by the transport (:mod:`forsale.server.http.cookies`)."""

    @property
    def cookies(self) -> Mapping[str, str]: ...
    @property
    def headers(self) -> Mapping[str, str]: ...
    @property
    def url(self) -> Scheme: ...


def hash_session(session_id: str) -> str:
    """What the database keeps of a session id: its SHA-256, as for seat tokens (:func:`hash_token`)."""
    return hash_token(session_id)


def new_session() -> tuple[str, str]:
    """A fresh session id (for the cookie) and its hash (for the database)."""
    session_id = secrets.token_urlsafe(SESSION_BYTES)
    return session_id, hash_session(session_id)


def cookie_of(request: Asking) -> str | None:
    value = request.cookies.get(COOKIE)
    if not value or len(value) > MAX_COOKIE_CHARS:
        return None
    return value


_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def _host(netloc: str, scheme: str) -> str:
    netloc = netloc.lower()
    default = _DEFAULT_PORTS.get(scheme, "")
    return netloc[: -len(default)] if default and netloc.endswith(default) else netloc


def _names_host(url: str, headers: Mapping[str, str]) -> bool:
    """Whether ``url`` (an ``Origin`` or a ``Referer``) is an http(s) address of the host the request was sent to."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    return _host(parts.netloc, parts.scheme) == _host(headers.get("host", ""), parts.scheme)


def same_origin(headers: Mapping[str, str], scheme: str) -> bool:
    """Whether a request came from a page of this server (the CSRF check).

    ``Origin`` (every current browser sends it with a POST) must name the
    host the request was sent to (``Host``); ``null`` (sandboxed frames,
    some redirects) is refused. Without ``Origin``, ``Sec-Fetch-Site`` must
    say ``same-origin`` or ``none`` (typed by the user). Without either, a
    ``Referer`` must name this host too (an old browser, or a privacy tool
    that strips the other two, still tells where the page was). A request
    with none of the three comes from no browser (curl, a script), which
    holds its cookie itself and so cannot be forged by another site.
    """
    origin = headers.get("origin")
    if origin is not None:
        return _names_host(origin, headers)
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    referer = headers.get("referer")
    if referer is not None:
        return _names_host(referer, headers)
    return True
