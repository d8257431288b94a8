"""The server's HTTP protocol: uvicorn's, with a deadline for a connection's first request head, freed on upgrade.

uvicorn gives a connection that never completes its request head no
deadline at all (its keep-alive timer starts after a first answer), so a
client that connects and trickles a header a minute, or says nothing, holds
its socket for ever; a few thousand of them use up the process's file
descriptors, and then nobody can connect (slowloris). The protocol class
from :func:`with_head_deadline` closes a connection whose first request head
has not arrived within :data:`HEAD_SECONDS`. A request body that stalls is
cut off by :func:`forsale.server.app.capped` instead, and a WebSocket, once
upgraded, answers to its own pings and hello timeout.

The same class frees itself when its connection becomes a WebSocket.
uvicorn's httptools protocol and its parser refer to each other (the parser
calls the protocol's bound methods), a reference cycle that uvicorn breaks
in ``connection_lost``; but once a connection is upgraded, its HTTP protocol
never hears ``connection_lost`` (the WebSocket protocol does), so the cycle,
with the transport, the parser and the request's headers (about 7 KB), was
left to the cyclic garbage collector. ``forsale serve`` runs a full
collection only every ten minutes (:mod:`forsale.server.ops.gctuning`), so every
WebSocket ever opened, refused or not, stayed in memory that long: a client
reconnecting in a loop grew the server by megabytes a second. The protocol
now drops its parser (and its deadline timer) as it hands the connection
over, and reference counting frees it at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEAD_SECONDS = 10.0
"""Seconds a new connection has to send a whole request head (HAProxy's ``timeout http-request`` alike)."""


def with_head_deadline(seconds: float = HEAD_SECONDS) -> type[Any]:
    """uvicorn's HTTP protocol (httptools if installed, else h11), closing a connection slow with its first head."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as Base
    except ImportError:  # uvicorn without its "standard" extras
        from uvicorn.protocols.http.h11_impl import H11Protocol as Base  # type: ignore[assignment]

    class HeadDeadline(Base):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._deadline = self.loop.call_later(seconds, self._head_deadline, transport)

        def _head_deadline(self, transport: asyncio.Transport) -> None:
            self._deadline = None
            # Still this protocol's (not upgraded to a WebSocket) and no request begun: a client that says nothing.
            if transport.get_protocol() is self and self.cycle is None and not transport.is_closing():
                transport.close()

        def _forget_deadline(self) -> None:
            """Cancel the deadline: its timer holds this protocol (and so its transport) until it fires."""
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def connection_lost(self, exc: Exception | None) -> None:
            self._forget_deadline()
            super().connection_lost(exc)
            # uvicorn cancels its keep-alive timer only on a clean close; after a reset it would hold us until it fired.
            self._unset_keepalive_if_required()

        def handle_websocket_upgrade(self, *args: Any) -> None:
            super().handle_websocket_upgrade(*args)
            # The WebSocket protocol has the connection now; this one hears nothing more (not even connection_lost).
            # Break the protocol <-> parser cycle (the parser holds our bound methods) that connection_lost breaks.
            self._forget_deadline()
            self._unset_keepalive_if_required()
            if hasattr(self, "parser"):  # httptools (h11's Connection holds no reference back)
                self.parser = None  # type: ignore[assignment]  # as uvicorn's own connection_lost does

    return HeadDeadline
