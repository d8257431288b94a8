"""One WebSocket session's outgoing side: its identity at a table and its queue of text frames.

A table never awaits a client: it queues text on each :class:`Conn` and one
task per connection sends it, so a slow client cannot slow its table. This
module also holds :func:`dumps`, the JSON serialiser every outgoing message
goes through.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from typing import Any, Protocol

from ...refusals import Params


class TextSocket(Protocol):
    """The one thing a connection asks of its transport (Starlette's ``WebSocket`` is one): send a text frame.
    The table's floor names no web framework; its unit tests give a connection no socket at all."""

    async def send_text(self, data: str) -> None: ...


log = logging.getLogger("forsale.server")


try:  # orjson serialises snapshots several times faster; the standard library is the fallback
    import orjson

    def dumps(message: dict[str, Any]) -> str:
        return orjson.dumps(message).decode()

except ImportError:  # pragma: no cover - orjson is part of the server extra

    def dumps(message: dict[str, Any]) -> str:
        return json.dumps(message, separators=(",", ":"))


class Conn:
    """One WebSocket session: who it is and its outgoing text frames.

    Messages are queued, not awaited, so one slow client never slows its
    table; a client that lets more than ``max_queue`` messages pile up is cut
    off. One task per connection (:meth:`pump`) sends them in order; it
    sends everything queued each time it wakes (an ``ack`` and the snapshot
    that follows it cost one wake-up, not two).
    """

    def __init__(self, ws: TextSocket | None, max_queue: int = 2000) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.table: object | None = None  # the table attached to (only that table reads it: is it me?)
        self.hello = False
        self.account: dict[str, Any] | None = None  # the account the handshake's session cookie signs in
        self.max_queue = max_queue
        self.queue: deque[str | None] = deque()
        self._wake: asyncio.Future[None] | None = None
        self.closed = False

    def _push(self, item: str | None) -> None:
        self.queue.append(item)
        wake = self._wake
        if wake is not None:
            self._wake = None
            if not wake.done():
                wake.set_result(None)

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        if len(self.queue) >= self.max_queue:
            log.warning("closing a connection that does not read its messages")
            self.close()
            return
        if not isinstance(message, str):
            try:
                message = dumps(message)
            except (TypeError, ValueError):  # our bug (input is validated before it gets here): this client only
                log.exception("a message to one connection could not be serialised; it was not sent")
                return
        self._push(message)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._push(None)

    async def pump(self) -> None:
        """Send queued frames until closed (one task per connection)."""
        assert self.ws is not None
        queue = self.queue
        while True:
            while queue:
                text = queue.popleft()
                if text is None:
                    return
                try:
                    await self.ws.send_text(text)
                except Exception:  # the client went away mid-send: stop queueing for it
                    self.closed = True
                    return
            self._wake = asyncio.get_running_loop().create_future()
            await self._wake


def error(code: str, message: str, msg_id: Any = None, params: Params | None = None) -> dict[str, Any]:
    """An ``error`` message; ``params`` (a refused move's facts, see :class:`Refused`) only when there are any."""
    out = {"type": "error", "code": code, "message": message, "id": msg_id}
    return out | {"params": params} if params else out
