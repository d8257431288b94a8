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
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from ..errors import Refused
from ..tokens import hash_token

COOKIE = "forsale_session"
SESSION_SECONDS = 30 * 24 * 3600
"""A session lasts 30 days from sign-in; then the cookie and the row are worth nothing."""
SESSION_BYTES = 32
MAX_COOKIE_CHARS = 100
"""A cookie longer than any id this module makes is not looked up."""


def hash_session(session_id: str) -> str:
    """What the database keeps of a session id: its SHA-256, as for seat tokens (:func:`hash_token`)."""
    return hash_token(session_id)


def new_session() -> tuple[str, str]:
    """A fresh session id (for the cookie) and its hash (for the database)."""
    session_id = secrets.token_urlsafe(SESSION_BYTES)
    return session_id, hash_session(session_id)


def cookie_of(request: Request) -> str | None:
    value = request.cookies.get(COOKIE)
    if not value or len(value) > MAX_COOKIE_CHARS:
        return None
    return value


def set_cookie(response: Response, request: Request, session_id: str) -> None:
    response.set_cookie(
        COOKIE,
        session_id,
        max_age=SESSION_SECONDS,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def clear_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https")


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


JSON_TYPE = "application/json"
CHECKED_HEADERS = frozenset({b"origin", b"sec-fetch-site", b"referer", b"content-type", b"host"})


def post_refusal(scope: Scope) -> Refused | None:
    """Why a ``POST`` is refused before any endpoint sees it (None: it may go on): the CSRF rule for every POST.

    Every POST passes :func:`same_origin`, with or without the session cookie:
    without one, another site's page could still sign its visitor in as the
    attacker (login CSRF: ``/api/signin`` with the attacker's name) or act
    from the visitor's address. And a body is JSON sent as
    ``Content-Type: application/json``: a browser sends that type across
    sites only after a CORS preflight, which this server never grants, so no
    other site's form (``enctype="text/plain"`` carries a JSON-looking body)
    or ``fetch`` can deliver a body at all. A POST with no body needs no
    type. Clients that are no browser send neither ``Origin`` nor the other
    headers, and pass as before with their JSON.
    """
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        if name in CHECKED_HEADERS:
            key = name.decode("latin-1")
            if key in headers:  # two of them: which one a browser meant is anyone's guess
                return Refused("bad_request", f"the {key} header is given twice")
            headers[key] = value.decode("latin-1")
    if not same_origin(headers, scope.get("scheme", "http")):
        return Refused("cross_origin", "a POST must come from this server's own pages", 403)
    kind = headers.get("content-type")
    if kind is None:
        if _has_body(scope):
            return Refused("unsupported_media_type", f"a request body must be sent as Content-Type: {JSON_TYPE}", 415)
        return None
    if kind.split(";", 1)[0].strip().lower() != JSON_TYPE:
        return Refused("unsupported_media_type", f"request bodies are JSON: Content-Type: {JSON_TYPE}", 415)
    return None


def _has_body(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"transfer-encoding" or (name == b"content-length" and value.strip() not in (b"", b"0")):
            return True
    return False
