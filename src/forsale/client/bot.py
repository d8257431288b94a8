"""A bot account's connection to a forsale server: the Bot API's REST calls and the play of its tables.

:class:`BotClient` holds the account's API token and speaks the protocol of ``docs/bot-api.md``: REST calls
with ``Authorization: Bearer``, the event stream (a long poll of the account's notices), and one table
WebSocket per game, whose views it decodes into the engine's :class:`~forsale.view.View`
(:func:`forsale.client.views.view_from_json`) for a :data:`Policy` to answer. A dropped connection is tried
again with exponential backoff and jitter; the seat stays the bot's, and the server's clock plays the safe
action for it only if it stays away past the table's grace period.

Needs the ``client`` extra (``pip install 'forsale[client]'``: httpx and websockets).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import websockets
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from ..actions import Action, action_to_json
from ..view import View
from .views import view_from_json

log = logging.getLogger("forsale.client")

Policy = Callable[[View], Action | Awaitable[Action]]
"""What plays a seat: the seat's view in, an action out (a coroutine function is awaited; a plain one runs in a
thread, so a slow search does not stop the connection from answering the server's pings)."""

BACKOFF = (0.5, 15.0)
"""A retry's first and longest wait in seconds: doubled after each failure, with jitter, reset by a success."""

TAKEN_LIMIT = 3
"""Times in a row another copy of the bot may take a table's seat before this copy stops playing that table."""

STEADY_S = 60.0
"""Seconds a seat held ends a run of losses: a copy that kept the seat that long was not in a fight."""


class ClientError(Exception):
    """The server refused a call: its error ``code`` (docs/protocol.md), ``message`` and HTTP ``status``."""

    def __init__(self, code: str, message: str, status: int = 0) -> None:
        super().__init__(f"{code}: {message}" + (f" (HTTP {status})" if status else ""))
        self.code, self.message, self.status = code, message, status


@dataclass
class GameOver:
    """How a game the client played ended, for its one log line: the table, the bot's seat, the result."""

    table: str
    seat: int
    result: dict[str, Any] = field(default_factory=dict)
    names: list[str] = field(default_factory=list)

    @property
    def won(self) -> bool:
        return self.seat in self.result.get("winners", [])

    def line(self) -> str:
        scores = self.result.get("scores", [])
        shown = ", ".join(f"{name} {score}" for name, score in zip(self.names, scores)) or "no result"
        return f"table {self.table}: {'won' if self.won else 'lost'} at seat {self.seat + 1} ({shown})"


def check_server(server: str) -> str:
    """The server's base URL without a trailing slash, or ``ValueError`` saying why it is none."""
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"--server must be an http:// or https:// address, not {server!r}")
    return server.rstrip("/")


class Backoff:
    """Waits between retries: :data:`BACKOFF`'s doubling, with full jitter (clients do not retry in step)."""

    def __init__(self, first: float = BACKOFF[0], longest: float = BACKOFF[1]) -> None:
        self.first, self.longest = first, longest
        self.failures = 0

    async def wait(self) -> None:
        ceiling = min(self.longest, self.first * 2**self.failures)
        self.failures += 1
        await asyncio.sleep(random.uniform(ceiling / 2, ceiling))

    def reset(self) -> None:
        self.failures = 0


async def decide(policy: Policy, view: View) -> Action:
    """The policy's action for ``view`` (a plain function in a thread, a coroutine function awaited)."""
    if inspect.iscoroutinefunction(policy):
        return await policy(view)
    out = await asyncio.to_thread(policy, view)
    if inspect.isawaitable(out):
        return await out
    return out


class BotClient:
    """One bot account on one server: ``async with BotClient(url, token) as bot: ...``.

    ``server``: the site's address (``https://forsale.example``); ``token``: an API token of a bot account
    (``POST /api/me/tokens``). Every REST call raises :class:`ClientError` when the server refuses it; a
    ``429`` is waited out (``Retry-After``) and tried again.
    """

    retake_backoff: tuple[float, float] = BACKOFF
    """The first and longest wait before a table's seat is taken again after its token ended (:meth:`play`)."""

    def __init__(self, server: str, token: str, *, timeout: float = 40.0) -> None:
        self.base = check_server(server)
        self.ws_base = "ws" + self.base.removeprefix("http")
        self._sent = 0  # ids of the actions sent, on every table
        self.http = httpx.AsyncClient(
            base_url=self.base, headers={"Authorization": f"Bearer {token}"}, timeout=timeout, follow_redirects=False
        )

    async def __aenter__(self) -> BotClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    # -- REST ---------------------------------------------------------------------------------------------------
    async def call(
        self, method: str, path: str, body: Mapping[str, Any] | None = None, params: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """One Bot API call; its JSON answer, or :class:`ClientError`."""
        for _ in range(5):
            kwargs: dict[str, Any] = {"params": params}
            if body is not None:
                kwargs["json"] = dict(body)
            answer = await self.http.request(method, path, **kwargs)
            if answer.status_code == 429 and "retry-after" in answer.headers:
                await asyncio.sleep(min(30.0, float(answer.headers["retry-after"])))
                continue
            break
        try:
            data = answer.json()
        except ValueError:
            raise ClientError(
                "bad_answer", f"{method} {path} answered {answer.status_code}, not JSON", answer.status_code
            ) from None
        if answer.status_code >= 400:
            error = data.get("error", {}) if isinstance(data, dict) else {}
            raise ClientError(
                str(error.get("code", "error")), str(error.get("message", answer.text[:200])), answer.status_code
            )
        return data if isinstance(data, dict) else {"answer": data}

    async def account(self) -> dict[str, Any]:
        """``{"account": {"id", "name", "bot_account"}, "scopes": [...]}``: whom the token speaks for."""
        return await self.call("GET", "/api/bot/account")

    async def games(self) -> list[dict[str, Any]]:
        """The bot's games not over (after a restart: the tables to sit at again)."""
        return list((await self.call("GET", "/api/bot/games"))["games"])

    async def notices(self, after: int = -1, wait: float = 0.0) -> dict[str, Any]:
        """``{"notices": [...], "last": id}`` after id ``after``, waiting up to ``wait`` seconds for one."""
        return await self.call("GET", "/api/bot/notices", params={"after": after, "wait": wait})

    async def challenges(self) -> list[dict[str, Any]]:
        return list((await self.call("GET", "/api/bot/challenges"))["challenges"])

    async def accept(self, challenge_id: str) -> dict[str, Any]:
        return dict((await self.call("POST", f"/api/bot/challenges/{challenge_id}/accept", {}))["challenge"])

    async def decline(self, challenge_id: str, reason: str = "generic") -> dict[str, Any]:
        answer = await self.call("POST", f"/api/bot/challenges/{challenge_id}/decline", {"reason": reason})
        return dict(answer["challenge"])

    async def join_pairing(
        self, players: int | list[int] | str = "any", rated: bool = False, bots_after: float | None = None
    ) -> dict[str, Any]:
        body = {"players": players, "rated": rated, "bots_after": bots_after}
        return await self.call("POST", "/api/bot/pairing", body)

    async def pairing(self) -> dict[str, Any]:
        """The bot's place in quick pairing (and the heartbeat that keeps it there)."""
        return await self.call("GET", "/api/bot/pairing")

    async def leave_pairing(self) -> bool:
        return bool((await self.call("DELETE", "/api/bot/pairing"))["left"])

    async def join_tournament(self, tournament_id: str) -> dict[str, Any]:
        """Enter a tournament; its rounds' tables come as ``seated`` notices."""
        return await self.call("POST", f"/api/bot/tournaments/{tournament_id}/join", {})

    async def withdraw_tournament(self, tournament_id: str) -> dict[str, Any]:
        return await self.call("POST", f"/api/bot/tournaments/{tournament_id}/withdraw", {})

    async def seat(self, table_id: str) -> dict[str, Any]:
        """``{"table", "seat", "token"}``: a fresh seat token for the bot's seat at ``table_id``."""
        return await self.call("POST", f"/api/bot/tables/{table_id}/seat", {})

    # -- a table --------------------------------------------------------------------------------------------------
    async def play(self, table_id: str, policy: Policy) -> GameOver:
        """Play the bot's seat at ``table_id`` to the end of the game with ``policy``; how it ended.

        Acts on the newest snapshot only (highest ``seq``), once per decision, one action in flight at a time;
        an action the server refuses as ``illegal`` is replaced by the view's first legal one, so the seat is
        never left to the clock by a bug. Reconnects with backoff when the connection drops, and asks for the seat
        again when that request's connection fails (a kept-alive connection the server closed as it was reused);
        takes a fresh seat token when told its token ended (``bad_token``), after a backoff of its own.

        Two copies of one bot would take the seat from each other for ever, each seat request ending the other's
        token: a loss with no ``why`` is another copy's seat request, and after :data:`TAKEN_LIMIT` of them in a
        row (none after a seat held :data:`STEADY_S`) this copy gives the table up, raising
        :class:`ClientError` ``seat_taken`` (the runner's one log line). A token ended by the account's owner
        (``why``: a password change, a sign-out everywhere, a revoked API token) is taken up again.
        """
        backoff, retake = Backoff(), Backoff(*self.retake_backoff)
        taken = 0
        sat = await self._seat_again(table_id, backoff)
        while True:
            started = time.monotonic()
            try:
                over = await self._session(table_id, sat, policy, backoff)
            except (OSError, ConnectionClosed, InvalidHandshake, TimeoutError) as failure:
                log.info("table %s: connection lost (%s); trying again", table_id, failure)
                await backoff.wait()
                continue
            if isinstance(over, GameOver):
                return over
            if (over.get("params") or {}).get("why") is None:
                taken = 1 if time.monotonic() - started >= STEADY_S else taken + 1
                if taken >= TAKEN_LIMIT:
                    raise ClientError(
                        "seat_taken",
                        f"another copy of this bot is playing table {table_id} (it took the seat {taken} times in a"
                        " row); this copy stops playing it",
                    )
            await retake.wait()
            sat = await self._seat_again(table_id, backoff)

    async def _seat_again(self, table_id: str, backoff: Backoff) -> dict[str, Any]:
        """:meth:`seat`, tried again with backoff while the request fails on the way (not when the server refuses:
        :class:`ClientError`)."""
        while True:
            try:
                return await self.seat(table_id)
            except httpx.TransportError as failure:
                log.info("table %s: asking for the seat failed (%r); trying again", table_id, failure)
                await backoff.wait()

    async def _session(
        self, table_id: str, sat: dict[str, Any], policy: Policy, backoff: Backoff
    ) -> GameOver | dict[str, Any]:
        """One WebSocket at the table: the game's end, or the ``bad_token`` error when the seat token no longer
        holds the seat (its ``params.why`` says who ended it)."""
        seat = int(sat["seat"])
        names = [s["name"] for s in sat["table"]["seats"]]
        try:
            socket = websockets.connect(f"{self.ws_base}/ws/tables/{table_id}", open_timeout=20, max_size=2**20)
        except InvalidURI as err:
            raise ClientError("bad_server", str(err)) from None
        async with socket as ws:
            await ws.send(json.dumps({"type": "hello", "token": sat["token"], "id": "hello"}))
            # One action in flight at a time: snapshots that come while it is (another seat's move, in a sale
            # round) do not show it yet, and acting on them again would send a second choice.
            newest, pending, floor, decided = -1, None, -1, -1
            current: View | None = None
            async for raw in ws:
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "ack" and pending is not None and msg.get("id") == pending:
                    pending, floor = None, int(msg["seq"])  # snapshots from this seq on show our action
                    continue
                if kind == "error":
                    code = msg.get("code")
                    if code == "bad_token":
                        return dict(msg)
                    log.warning("table %s: %s: %s", table_id, code, msg.get("message"))
                    if pending is not None and msg.get("id") == pending:
                        pending = None
                        if code == "illegal" and current is not None and current.legal_actions():
                            pending = await self._act(ws, table_id, view=current)  # a legal move, not the clock's
                    continue
                if kind == "table":
                    names = [s["name"] for s in msg["info"]["seats"]]
                    continue
                if kind not in ("welcome", "state") or msg.get("seq", -1) < newest:
                    continue
                backoff.reset()
                newest = msg["seq"]
                if kind == "welcome":
                    names = [s["name"] for s in msg["info"]["seats"]]
                if msg.get("status") == "over":
                    return GameOver(table_id, seat, msg.get("result") or {}, names)
                current = view_from_json(msg["view"])
                if pending is None and newest >= floor and newest != decided and current.legal_actions():
                    decided = newest
                    pending = await self._act(ws, table_id, view=current, policy=policy)
        raise ConnectionError("the server closed the table's connection")

    async def _act(self, ws: Any, table_id: str, *, view: View, policy: Policy | None = None) -> int:
        """Send the policy's action for ``view`` (without a policy, or when it fails or is not legal here: the
        view's first legal action, so the seat is never left to the clock by a bug); the message's id."""
        action: Action | None = None
        if policy is not None:
            try:
                action = await decide(policy, view)
            except Exception:  # the policy's bug: the game goes on with a legal move, and the log says why
                log.exception("table %s: the policy failed; playing its first legal action instead", table_id)
        legal = view.legal_actions()
        if action is None or action not in legal:
            if action is not None:
                log.warning("table %s: the policy chose %s, not legal here; playing %s", table_id, action, legal[0])
            action = legal[0]
        self._sent += 1
        await ws.send(json.dumps({"type": "act", "action": action_to_json(action), "id": self._sent}))
        return self._sent
