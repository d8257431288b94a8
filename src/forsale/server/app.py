"""The ASGI application: REST lobby, one WebSocket per seat or spectator, the web page.

``create_app(db_url=...)`` builds a FastAPI app; ``forsale serve`` runs it
under uvicorn. The protocol is documented in ``docs/protocol.md``.

Bad input never changes anything and never reaches another client: request
bodies are size-checked, rate-limited and validated
(:mod:`forsale.server.http.schemas`), and so is every WebSocket frame
(:mod:`forsale.server.http.ws`); each problem is answered to its sender only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.routing import Match
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import PRESETS, Ruleset, __version__
from ..bots import agent_names, describe_agents
from ..bots.analysis import DEFAULT_BUDGET as DEFAULT_ANALYSIS_BUDGET
from ..bots.registry import PLAYER_BOTS, research_bot
from ..rules import KNOBS, MAX_PLAYERS, MIN_PLAYERS, preset_rulesets
from .errors import Refused
from .http.apidocs import add_docs
from .http.common import BODY_MODELS, client_host, client_net, lobby_of, rest_error
from .http.cookies import post_refusal
from .http.routes import accounts as routes_accounts
from .http.routes import analysis as routes_analysis
from .http.routes import botapi as routes_botapi
from .http.routes import challenges as routes_challenges
from .http.routes import cluster as routes_cluster
from .http.routes import metrics as routes_metrics
from .http.routes import notices as routes_notices
from .http.routes import pairing as routes_pairing
from .http.routes import players as routes_players
from .http.routes import social as routes_social
from .http.routes import tables as routes_tables
from .http.routes import tournaments as routes_tournaments
from .http.schemas import MAX_MESSAGE_BYTES
from .http.ws import RETRY_AFTER, TableSockets
from .lobby.cluster import ClusterConfig, ClusterLobby
from .lobby.fairshare import WAITING_EXPIRY, Limits
from .lobby.lobby import Lobby, Options
from .lobby.pairing import Pairing
from .lobby.tournaments import Tournaments
from .ops import gctuning as collector
from .ops.badinput import BadInputLog
from .ops.botrunner import DEFAULT_MAX_TIME, BotRunner, default_bot, load_bot_modules
from .ops.ratelimit import RateLimit
from .people import skill as ratings
from .people.accounts import Accounts
from .people.apitokens import ApiTokens
from .people.mailer import Mailer, SmtpSettings
from .people.turnmail import TurnNotices
from .store.database import Storage

log = logging.getLogger("forsale.server")

M = TypeVar("M", bound=BaseModel)

BAD_INPUT = frozenset({"bad_json", "bad_request", "too_large", "disconnected"})
"""Refusals logged (one rate-limited line each): malformed requests, not a game's ordinary no."""

ALL_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
DEFAULT_DB = "sqlite:///forsale.sqlite3"
ROUTERS = (
    routes_tables.router,
    routes_accounts.router,
    routes_social.router,
    routes_players.router,
    routes_cluster.router,
    routes_analysis.router,
    routes_metrics.router,
    routes_notices.router,
    routes_pairing.router,
    routes_botapi.router,
    routes_challenges.router,
    routes_tournaments.router,
)
"""The REST endpoints, one router per concern (``http/routes/*.py``); a new concern adds its router here."""


class HttpLimits:
    """Size and rate limits on requests (POST rates per client address), the CSRF rule, and ``HEAD`` for the API.

    Plain ASGI middleware, because Starlette's ``BaseHTTPMiddleware`` runs
    every request in an extra task group whose cancelled scopes leave
    reference cycles behind: under load they were most of what the garbage
    collector had to find.
    """

    def __init__(self, app: ASGIApp, rate: float, burst: float, bad_input: BadInputLog) -> None:
        self.app = app
        self.rate, self.burst = rate, burst
        self.bad_input = bad_input
        self.buckets: dict[str, RateLimit] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] == "POST":
            refusal = self.refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        elif scope["method"] == "HEAD" and scope["path"].startswith("/api/"):
            # FastAPI routes answer GET only; HEAD is GET without the body (the server still knows it was HEAD).
            await self.app({**scope, "method": "GET"}, capped(receive), without_body(send))
            return
        await self.app(scope, capped(receive), send)

    def refusal(self, scope: Scope) -> JSONResponse | None:
        for name, value in scope["headers"]:
            if name == b"content-length" and (not value.isdigit() or int(value) > MAX_MESSAGE_BYTES):
                self.bad_input.note("too_large", f"{where(scope)}: Content-Length {value[:20]!r}")
                return rest_error("too_large", TOO_LARGE, 413)
        # Before the rate limit: another site's page must not spend its visitor's POST budget.
        forged = post_refusal(scope)
        if forged is not None:
            self.bad_input.note(forged.code, f"{where(scope)}: {forged}")
            return rest_error(forged.code, str(forged), forged.status)
        host = client_net(scope)  # an IPv6 client by its /64: each of its addresses is not a bucket of its own
        bucket = self.buckets.get(host)
        if bucket is None:
            if len(self.buckets) >= 10000:  # bounded memory: forget the address seen first, not every address
                del self.buckets[next(iter(self.buckets))]
            bucket = self.buckets[host] = RateLimit(self.rate, self.burst)
        if not bucket.allow():
            self.bad_input.note("rate_limited", where(scope))
            return rest_error("rate_limited", "too many requests; slow down", 429)
        return None


CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",  # everything the page and the API docs load comes from this server
        "script-src 'self'",  # no inline script, no eval: an injected <script> or onclick= never runs
        "style-src 'self'",  # no inline <style> or style="" (the page sets styles through the CSSOM)
        "img-src 'self' data:",  # the favicon and the CSS's little drawings are data: URIs
        "connect-src 'self'",  # fetch and the table's WebSocket (ws:/wss: to this host count as 'self')
        "object-src 'none'",
        "base-uri 'none'",  # no injected <base> can move the page's relative addresses elsewhere
        "form-action 'self'",
        "frame-ancestors 'none'",  # no other site may frame the page (with X-Frame-Options for old browsers)
    )
)
"""The page's Content-Security-Policy, on every answer (an error page or a JSON body runs nothing either)."""

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),  # a record or an avatar is never run as a script or page
    (b"x-frame-options", b"DENY"),  # no other site may frame the table and trick a click (clickjacking)
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"referrer-policy", b"same-origin"),  # links out of the page do not carry a table's address
]
"""Added to every HTTP answer."""


def with_security_headers(app: ASGIApp) -> ASGIApp:
    """``app``, each of its HTTP answers carrying :data:`SECURITY_HEADERS`."""

    async def secured(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        await app(scope, receive, send_secured)

    return secured


def where(scope: Scope) -> str:
    """``10.0.0.1 POST /api/tables`` for a log line (the path cut short: it is the client's text)."""
    return f"{client_host(scope)} {scope.get('method', 'WS')} {scope.get('path', '')[:60]}"


TOO_LARGE = f"request bodies are limited to {MAX_MESSAGE_BYTES} bytes"


BODY_PAUSE_SECONDS = 10.0
"""The longest a request body may stop arriving before the request is answered ``408 too_slow``."""


def capped(receive: Receive) -> Receive:
    """``receive``, refusing the body the moment it passes the limit, before any more of it is read,
    or when it stops arriving for :data:`BODY_PAUSE_SECONDS` (a slow client holding a handler).

    The ``Content-Length`` check in :class:`HttpLimits` cannot see a body sent
    in chunks: without this, such a body was read to its end (megabytes)
    before anything looked at its size.
    """
    received, done = 0, False

    async def receive_capped() -> Message:
        nonlocal received, done
        if done:  # the body is whole: what follows is the client's going away, which may come at any time
            return await receive()
        try:
            message = await asyncio.wait_for(receive(), BODY_PAUSE_SECONDS)
        except TimeoutError:
            raise Refused("too_slow", f"the request body stopped for {BODY_PAUSE_SECONDS:g} s", 408) from None
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > MAX_MESSAGE_BYTES:
                raise Refused("too_large", TOO_LARGE, 413)
            done = not message.get("more_body", False)
        return message

    return receive_capped


def without_body(send: Send) -> Send:
    """``send`` for a ``HEAD`` request: the headers of the ``GET`` answer (its length too), none of its body."""

    async def send_head(message: Message) -> None:
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return send_head


def create_app(
    db_url: str = DEFAULT_DB,
    *,
    grace: float = 60.0,
    bot_delay: float = 0.0,
    bot_budget: float | None = None,
    max_bot_time: float = DEFAULT_MAX_TIME,
    bot_workers: int = 1,
    inline_bots: tuple[str, ...] = ("random",),
    bot_modules: tuple[str, ...] = (),
    fallback_bot: str | None = None,
    rate: float = 20.0,
    burst: float = 40.0,
    rest_rate: float = 50.0,
    rest_burst: float = 500.0,
    hello_timeout: float = 30.0,
    static_dir: Path | str | None = None,
    full_gc_every: float | None = None,
    smtp_url: str | None = None,
    mail_from: str = "forsale@localhost",
    public_url: str | None = None,
    cluster: ClusterConfig | None = None,
    analysis_budget: int = DEFAULT_ANALYSIS_BUDGET,
    sockets_per_address: int | None = None,
    sockets_retry_after: int = RETRY_AFTER,
    tables_per_client: int | None = None,
    bot_tables_per_client: int | None = None,
    games_per_client: int | None = None,
    waiting_expiry: float | None = WAITING_EXPIRY,
    metrics_from: str = routes_metrics.LOOPBACK,
    research_bots: bool = False,
) -> FastAPI:
    """The server application.

    ``db_url``: any SQLAlchemy URL (``sqlite:///file``, ``postgresql://...``).
    ``grace``: seconds a disconnected seat keeps its turn before the server
    plays the safe action for it. ``bot_delay``: seconds a server-side bot
    waits before it acts (so people can follow the game). ``bot_workers``:
    worker processes for searching bots; ``inline_bots`` are cheap enough to
    run on the event loop; ``bot_modules`` are imported (here and in every
    worker) to register more bots. ``max_bot_time``: the most seconds a bot may
    think per decision: bot specs asking for more are refused, and a worker
    decision still running well past it is stopped (the clock's safe move is
    played; see :mod:`forsale.server.ops.botrunner`); ``bot_budget`` (at most
    ``max_bot_time``) is passed to every bot as its budget.
    ``rate``/``burst``: per-connection message rate
    limit; ``rest_rate``/``rest_burst``: POST requests per client address. ``static_dir``: the web page (default: ``forsale/web/static``).
    ``full_gc_every``: seconds between full garbage collections, for a process
    tuned by :func:`forsale.server.ops.gctuning.tune` (``forsale serve`` is).
    ``smtp_url``: an SMTP server for "your turn" emails (:mod:`forsale.server.people.mailer`), sent from
    ``mail_from`` with links to ``public_url``; without it nobody is emailed.
    ``cluster``: run as one node of a cluster on a shared PostgreSQL database
    (:mod:`forsale.server.lobby.cluster`; ``docs/deploy.md``).
    ``analysis_budget``: sampled deals per evaluation of the post-game analysis (:mod:`forsale.server.http.routes.analysis`).
    ``sockets_per_address``: WebSockets one client address may hold open at once (``None``: any number;
    ``forsale serve`` sets :data:`~forsale.server.http.ws.SOCKETS_PER_ADDRESS` unless told otherwise);
    ``sockets_retry_after``: seconds a client refused for holding as many is told to wait.
    ``tables_per_client``/``bot_tables_per_client``: tables one client (account, else address) may have
    waiting for players / of bots only playing at once (``None``: any number; ``forsale serve`` sets
    :data:`~forsale.server.lobby.fairshare.OPEN_TABLES` and :data:`~forsale.server.lobby.fairshare.BOT_TABLES`);
    ``games_per_client``: games with bots (solo games too) one client may have under way at once
    (``None``: any number; ``forsale serve``: :data:`~forsale.server.lobby.fairshare.GAMES`);
    ``waiting_expiry``: seconds a waiting table nobody is connected to stays open (``None``: for ever).
    See :mod:`forsale.server.lobby.fairshare`. ``metrics_from``: the client addresses or networks ``/metrics``
    answers (comma-separated; loopback by default: :mod:`forsale.server.http.routes.metrics`).
    ``research_bots``: list and seat this package's research bots too (``expert``, ``hard-v1``, ``ppo``, the
    baselines: :func:`forsale.bots.registry.research_bot`); a public server offers people's levels only
    (:data:`~forsale.bots.registry.PLAYER_BOTS`, and any bot a ``bot_modules`` module registers).
    """
    metrics_networks = routes_metrics.networks(metrics_from)  # a malformed address fails now
    load_bot_modules(tuple(bot_modules))  # unknown modules fail now, not at the first bot move
    if not (0 < max_bot_time < math.inf) or (bot_budget is not None and not 0 < bot_budget <= max_bot_time):
        raise ValueError(f"need 0 < bot_budget <= max_bot_time < inf, not {bot_budget!r} and {max_bot_time!r}")
    mailer = Mailer(SmtpSettings.parse(smtp_url), mail_from) if smtp_url else None  # a bad URL fails now
    per_client = {"tables_per_client": tables_per_client, "bot_tables_per_client": bot_tables_per_client}
    for name, limit in {**per_client, "games_per_client": games_per_client}.items():
        if limit is not None and limit < 1:
            raise ValueError(f"{name} must be at least 1 (or None: no limit), not {limit!r}")
    if waiting_expiry is not None and not 0 < waiting_expiry < math.inf:
        raise ValueError(f"waiting_expiry must be a positive number of seconds (or None), not {waiting_expiry!r}")
    options = Options(
        grace=grace,
        bot_delay=bot_delay,
        bot_budget=bot_budget,
        fallback_bot=fallback_bot,
        max_bot_time=max_bot_time,
        research_bots=research_bots,
        limits=Limits(tables_per_client, bot_tables_per_client, games_per_client, waiting_expiry),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        storage = await asyncio.to_thread(Storage, db_url)
        runner = BotRunner(bot_workers, inline_bots, tuple(bot_modules), max_bot_time)
        turns = TurnNotices(storage, mailer, public_url)
        lobby = Lobby(storage, runner, options, turns)
        if cluster is not None:  # one node of several (forsale.server.lobby.cluster)
            lobby = ClusterLobby(storage, runner, options, turns, cluster)
        app.state.storage, app.state.lobby = storage, lobby
        app.state.accounts = Accounts(storage)
        app.state.api_tokens = ApiTokens(storage)  # the Bot API's tokens and their rate limits
        app.state.analysis_budget = analysis_budget
        app.state.metrics_from = metrics_networks
        await lobby.start()
        app.state.pairing = pairing = Pairing(lobby)  # quick pairing's queue and matcher
        pairing.start()
        app.state.tournaments = tournaments = Tournaments(lobby)  # tournaments and the runner of their rounds
        tournaments.start_runner()
        await ratings.catch_up(storage)  # rated games that ended while the server was stopping
        collecting = asyncio.create_task(collector.full_collections(full_gc_every)) if full_gc_every else None
        try:
            yield
        finally:
            if collecting is not None:
                collecting.cancel()
            await pairing.close()
            await tournaments.close()
            if isinstance(lobby, ClusterLobby):
                await lobby.stop()  # hand its tables over first
            lobby.close()
            await turns.drain()
            runner.close()
            await asyncio.to_thread(storage.close)

    app = FastAPI(
        title="forsale server",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,  # FastAPI's would load Swagger UI from a CDN: forsale.server.http.apidocs serves it from here
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', 'invalid')}" for e in exc.errors()[:5]
        )
        bad_input.note("bad_request", f"{where(request.scope)}: {problems}")
        return rest_error("bad_request", problems or "invalid request", 400)

    @app.exception_handler(Refused)
    async def _refused(request: Request, exc: Refused) -> JSONResponse:
        if exc.code in BAD_INPUT:
            bad_input.note(exc.code, f"{where(request.scope)}: {exc}")
        response = rest_error(exc.code, str(exc), exc.status)
        response.headers.update(exc.headers or {})
        return response

    bad_input = BadInputLog(log)
    app.add_middleware(HttpLimits, rate=rest_rate, burst=rest_burst, bad_input=bad_input)
    app.add_middleware(with_security_headers)
    app.add_middleware(
        TableSockets,
        rate=rate,
        burst=burst,
        hello_timeout=hello_timeout,
        bad_input=bad_input,
        per_address=sockets_per_address,
        retry_after=sockets_retry_after,
    )

    # -- REST -----------------------------------------------------------------
    @app.get("/api/health")
    async def health(request: Request) -> dict[str, Any]:
        lobby = lobby_of(request)
        storage: Storage = request.app.state.storage
        return {
            "status": "ok",
            "version": __version__,
            "database": storage.backend,
            "tables": sum(1 for t in lobby.tables.values() if t.status != "over"),
            "bot_workers": lobby.runner.stats(),  # a backlog shows as "waiting" (forsale.server.ops.botrunner)
        }

    # Bots that can play at least one table here: a bot whose extra is missing (ppo without numpy) plays none.
    # Research bots only where the operator asked for them (create_app's research_bots).
    playable = sorted(
        name
        for name in {name for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) for name in agent_names(Ruleset.default(n))}
        if research_bots or not research_bot(name)
    )

    # The page's bot menus read these, so the levels and which bots are research bots are said here only:
    # people's levels in their registry order (easy to hard), then any other bot meant to be played (a
    # --bot-module's); the research bots apart, which the page offers only when asked for.
    research = [name for name in playable if research_bot(name)]
    offered = [name for name in PLAYER_BOTS if name in playable]
    offered += [name for name in playable if name not in offered and name not in research]

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        described = describe_agents()
        return {
            "bots": {name: described[name] for name in playable},
            "default": default_bot(),
            "names": playable,
            "players": offered,
            "research": research,
            "max_time": max_bot_time,
        }

    # Each player count's default knobs, so a custom-rules form can start from a game that deals.
    defaults = {n: Ruleset.default(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}

    def knobs_of(rules: Ruleset) -> dict[str, Any]:
        return {knob: getattr(rules, knob) for knob in KNOBS}

    default_knobs = {n: knobs_of(r) for n, r in defaults.items()}
    # Each preset's knobs at each player count it is for: the page's ledger takes a record's coins from here.
    preset_knobs = {name: {n: knobs_of(r) for n, r in by_count.items()} for name, by_count in preset_rulesets().items()}

    @app.get("/api/rulesets")
    async def rulesets() -> dict[str, Any]:
        return {
            "presets": PRESETS,
            "knobs": list(KNOBS),
            "defaults": default_knobs,
            "preset_knobs": preset_knobs,
        }

    for router in ROUTERS:
        app.include_router(router)
    # Every endpoint, for the 405s below; read from the routers, as newer FastAPIs include them lazily.
    api_routes = [
        r for r in (*app.routes, *(r for router in ROUTERS for r in router.routes)) if isinstance(r, APIRoute)
    ]

    def openapi() -> dict[str, Any]:
        """FastAPI's schema, plus the body models (bodies are read by :func:`body_of`, which FastAPI cannot see).

        Every ``/api/`` error is a 4xx with the envelope (:func:`errors`), never
        FastAPI's 422, so its 422 entries go.
        """
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
            _, defs = models_json_schema(
                [(m, "validation") for m in BODY_MODELS], ref_template="#/components/schemas/{model}"
            )
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(defs.get("$defs", {}))
            for name in ("HTTPValidationError", "ValidationError"):
                components.pop(name, None)
            for operations in schema["paths"].values():
                for operation in operations.values():
                    operation.get("responses", {}).pop("422", None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    if not add_docs(app):  # before the catch-all below
        log.info("the API docs (/api/docs) are off: install the server extra's fastapi-offline to serve them")

    @app.api_route("/api/{path:path}", methods=[*ALL_METHODS], include_in_schema=False)
    async def no_such_endpoint(request: Request, path: str) -> JSONResponse:
        """Anything under ``/api/`` no endpoint answers: 405 if the path exists for other methods, else 404.

        Without it these fell through to the web page's static files, whose
        errors are not the API's envelope (``{"detail": ...}``).
        """
        scope = {"type": "http", "path": request.url.path, "method": request.method}
        allowed = sorted({m for r in api_routes if r.matches(scope)[0] == Match.PARTIAL for m in r.methods or ()})
        if allowed:
            refusal = f"{request.method} is not allowed here; use {', '.join(allowed)}"
            response = rest_error("method_not_allowed", refusal, 405)
            response.headers["Allow"] = ", ".join(allowed)
            return response
        return rest_error("not_found", f"there is no endpoint /api/{path[:60]}; see /api/docs", 404)

    static = Path(static_dir) if static_dir is not None else STATIC_DIR
    if static.is_dir():
        app.mount("/", StaticFiles(directory=static, html=True), name="web")
    return app
