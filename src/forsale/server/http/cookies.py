"""The session cookie on the wire and the CSRF rule every POST meets: what HTTP adds to a session
(:mod:`forsale.server.people.sessions` says what a session is and how a request's origin is judged)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from ..errors import Refused
from ..people.sessions import COOKIE, SESSION_SECONDS, same_origin


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
