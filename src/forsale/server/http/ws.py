"""The WebSocket endpoint ``/ws/tables/{id}``: one session per seat or spectator.

Every frame is size-checked, rate-limited, decoded and validated
(:mod:`forsale.server.http.schemas`) before it is looked at; each problem is
answered with an ``error`` message to that connection only, and nothing
changes. Accepted messages go to the table (:class:`~forsale.server.table.live.LiveTable`).

The endpoint is plain ASGI middleware in front of the FastAPI routes rather
than a FastAPI route: a session lasts a whole game, and a route keeps a dozen
framework coroutines and objects suspended under it for that long, and passes
every outgoing frame through them. With thousands of sessions, those objects
were much of what the garbage collector scanned.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Any

from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from ...refusals import Params
from ..errors import Refused
from ..lobby.lobby import Lobby
from ..ops.badinput import BadInputLog
from ..ops.ratelimit import RateLimit
from ..table import rematch
from ..table.connections import Conn, dumps, error
from ..table.invites import PRIVATE, account_seat, admitted
from ..table.live import LiveTable
from ..table.seats import check_owner
from .common import client_host, client_net, socket_account
from .schemas import (
    MAX_MESSAGE_BYTES,
    Act,
    AnyClientMessage,
    Chat,
    Hello,
    Leave,
    Ping,
    RematchMessage,
    client_message,
    echo_id,
    parse_client_message,
    to_action,
)

PREFIX = "/ws/tables/"

log = logging.getLogger("forsale.server")


def id_in(text: str) -> Any:
    """The ``id`` of a message that failed after it was parsed, to echo (None if it has none it may echo)."""
    try:
        return echo_id(json.loads(text))
    except (ValueError, RecursionError):
        return None


SOCKETS_PER_ADDRESS = 256
"""``forsale serve``'s default: enough for a classroom behind one address with a few tabs each."""

RETRY_AFTER = 10
"""Seconds a client refused for too many sockets is told to wait (``params.retry_after``) before it tries again:
long enough that a page in a reconnect loop costs the server next to nothing, short enough for a closed tab's
slot to be taken up by the next try (``forsale serve --sockets-retry-after``)."""


class TableSockets:
    """ASGI middleware that serves ``/ws/tables/{id}`` and passes everything else on.

    ``rate``/``burst``: the per-connection message rate limit (a flood past
    200 refusals closes the connection); ``hello_timeout``: seconds a new
    connection has to say hello; ``per_address``: WebSockets one client
    address may hold open at once (``None``: no limit), since every spectator
    who comes or goes is news to every connection at the table; ``retry_after``:
    seconds a client refused for holding as many is told to wait (:data:`RETRY_AFTER`).
    """

    def __init__(
        self,
        app: ASGIApp,
        rate: float,
        burst: float,
        hello_timeout: float,
        bad_input: BadInputLog,
        per_address: int | None = None,
        retry_after: int = RETRY_AFTER,
    ) -> None:
        self.app = app
        self.bad_input = bad_input
        self.rate, self.burst = rate, burst
        self.hello_timeout = hello_timeout
        self.per_address = per_address
        self.retry_after = retry_after
        self.open: dict[str, int] = {}  # client address -> WebSockets open

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if not (scope["type"] == "websocket" and path.startswith(PREFIX)):  # a/b (from a%2Fb) is no such table
            await self.app(scope, receive, send)
            return
        ws, host = WebSocket(scope, receive, send), client_net(scope)  # an IPv6 client by its /64
        if self.per_address is not None and self.open.get(host, 0) >= self.per_address:
            self.bad_input.note("too_many_sockets", f"{client_host(scope)} WS {path[:60]}")
            await ws.accept()
            refusal = f"at most {self.per_address} open at once; try again in {self.retry_after} seconds"
            facts: Params = {"limit": self.per_address, "retry_after": self.retry_after}
            await ws.send_text(dumps(error("too_many_connections", refusal, params=facts)))
            await ws.close(code=1008, reason=f"too_many_connections; retry_after={self.retry_after}")
            return
        self.open[host] = self.open.get(host, 0) + 1
        try:
            await self.session(ws, path[len(PREFIX) :])
        finally:
            self.open[host] -= 1
            if not self.open[host]:
                del self.open[host]

    async def session(self, ws: WebSocket, table_id: str) -> None:
        lobby: Lobby = ws.app.state.lobby
        await ws.accept()
        conn = Conn(ws)
        sender = asyncio.create_task(conn.pump())
        try:
            table = await lobby.get(table_id) if 0 < len(table_id) <= 32 and "/" not in table_id else None
        except Refused as refused:  # a cluster's table between two nodes (forsale.server.lobby.cluster): try again
            conn.send(error(refused.code, str(refused)))
            conn.close()
            await sender
            await ws.close(code=1013)
            return
        limit = RateLimit(self.rate, self.burst)
        strikes = 0
        try:
            if table is None:
                shown = repr(table_id) if len(table_id) <= 32 else "with this id"  # echo no junk
                conn.send(error("not_found", f"there is no table {shown}"))
                conn.close()
                await sender
                await ws.close(code=4404)
                return
            try:  # a session cookie counts only from this server's own pages (forsale.server.table.invites)
                conn.account = await socket_account(ws, lobby.storage)
            except Refused as refused:
                conn.send(error(refused.code, str(refused)))
                conn.close()
                await sender
                await ws.close(code=4403)
                return
            while not conn.closed:
                try:
                    if conn.hello:
                        frame = await ws.receive()
                    else:
                        frame = await asyncio.wait_for(ws.receive(), self.hello_timeout)
                except TimeoutError:
                    conn.send(error("timeout", f"say hello within {self.hello_timeout:g} seconds"))
                    break
                if frame["type"] == "websocket.disconnect":
                    break
                if not limit.allow():
                    strikes += 1
                    if strikes > 200:
                        self.refuse(conn, "rate_limited", "too many messages; closing the connection")
                        break
                    self.refuse(conn, "rate_limited", f"too many messages: at most {self.rate:g} a second")
                    continue
                text = frame.get("text")
                if text is None:
                    self.refuse(conn, "bad_message", "send JSON text frames, not binary ones")
                    continue
                if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
                    self.refuse(conn, "too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
                    continue
                try:
                    await self.handle(conn, table, text)
                except Refused as refused:  # e.g. the database unavailable while saying hello or leaving
                    conn.send(error(refused.code, str(refused), id_in(text)))
                except Exception:  # our bug, not the client's: say so, keep the connection
                    log.exception("handling a message at table %s failed", table.id)
                    message = "the server failed to handle this message; it was not applied"
                    conn.send(error("internal", message, id_in(text)))
        except WebSocketDisconnect:
            pass
        finally:
            if table is not None:
                table.detach(conn)
            conn.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(sender, 5)
            sender.cancel()
            with contextlib.suppress(Exception):
                await ws.close()

    async def handle(self, conn: Conn, table: LiveTable, text: str) -> None:
        msg: AnyClientMessage | None
        try:  # the usual case, a valid message, is parsed and validated in one step
            msg = client_message.validate_json(text)
        except ValidationError:  # find out what is wrong, and the id to answer to
            msg = self.invalid(conn, text)
            if msg is None:
                return
        if isinstance(msg, Ping):
            conn.send({"type": "pong", "id": msg.id, "time": int(time.time() * 1000)})
            return
        if isinstance(msg, Hello):
            if conn.hello:
                conn.send(error("bad_message", "this connection has already said hello", msg.id))
                return
            await self.hello(conn, table, msg)
            return
        if not conn.hello:
            conn.send(error("hello_first", 'say {"type": "hello", "token": ...} first', msg.id))
            return
        if isinstance(msg, Chat):
            try:
                await table.chat.say(conn, msg.text, msg.id)
            except Refused as refused:
                conn.send(error(refused.code, str(refused), msg.id))
            return
        if isinstance(msg, RematchMessage):
            if conn.seat is None:
                conn.send(error("not_seated", "spectators have no seat to play a rematch with", msg.id))
                return
            try:
                await rematch.answer(table, conn.seat, msg.accept, conn, msg.id)
            except Refused as refused:
                conn.send(error(refused.code, str(refused), msg.id))
            return
        if isinstance(msg, Leave):
            if conn.seat is None:
                conn.send(error("not_seated", "spectators hold no seat to leave", msg.id))
                return
            await table.leave(conn.seat)
            conn.send({"type": "left", "id": msg.id})
            return
        assert isinstance(msg, Act)
        if conn.seat is None:
            conn.send(error("not_seated", "spectators cannot act; join a seat to play", msg.id))
            return
        try:
            await table.act(conn.seat, to_action(msg.action), "player", conn, msg.id)
        except Refused as refused:
            conn.send(error(refused.code, str(refused), msg.id, refused.params))

    async def hello(self, conn: Conn, table: LiveTable, msg: Hello) -> None:
        """Seat the connection (a token; or the session's account's seat), or let it watch if it may."""
        seat = None
        if msg.token is not None:
            seat = table.seat_for_token(msg.token)
            if seat is None:
                refusal = "this token holds no seat at this table; say hello without a token to watch"
                conn.send(error("bad_token", refusal, msg.id))
                return
            try:  # a seat linked to an account is not played by a session of another (as REST's check_owner)
                check_owner(conn.account, table.seats[seat])  # type: ignore[arg-type]
            except Refused as refused:
                conn.send(error(refused.code, str(refused), msg.id))
                return
        else:
            seat = account_seat(table, conn.account)  # type: ignore[arg-type]  # signed in: their seat, on any device
        if seat is None and not admitted(table, invite=msg.invite):
            conn.send(error("private_table", PRIVATE, msg.id))
            return
        await table.chat.load()
        # Under the table's lock, after any action being stored (LiveTable.act holds it until the game has
        # moved on): a seat reconnecting while its last action, sent on a connection that died, is still
        # being committed would otherwise be welcomed with the state before it, asked again for the move it
        # has made, and refused (not_your_turn) when it answered: the welcome must hold every action taken.
        async with table.lock:
            if conn.closed or table.closed:
                return
            if msg.token is not None and table.seat_for_token(msg.token) != seat:  # ended while we waited
                conn.send(error("bad_token", "this token no longer holds a seat at this table", msg.id))
                return
            table.attach(conn, seat)
        if table.chat.messages:  # only a table where someone spoke: a client that never chats sees no new message
            conn.send(table.chat.history())
        rematch.on_attach(table, conn)

    def refuse(self, conn: Conn, code: str, message: str, msg_id: Any = None) -> None:
        """Answer bad input with an error, and note it in the log (a short line, rate-limited: no traceback)."""
        client = conn.ws.client if isinstance(conn.ws, WebSocket) else None
        self.bad_input.note(code, f"{client.host if client else '?'} WebSocket: {message}")
        conn.send(error(code, message, msg_id))

    def invalid(self, conn: Conn, text: str) -> AnyClientMessage | None:
        """A message the fast path refused: send the error it deserves (None), or return it if it is valid."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:
            self.refuse(conn, "bad_json", f"not valid JSON: {err}")
            return None
        try:
            return parse_client_message(data)
        except ValueError as err:
            self.refuse(conn, "bad_message", str(err), echo_id(data))
            return None
