"""Clients too slow to be anything but an attack: a deadline for a connection's first request head.

uvicorn gives a connection that never completes its request head no
deadline at all (its keep-alive timer starts after a first answer), so a
client that connects and trickles a header a minute, or says nothing, holds
its socket for ever; a few thousand of them use up the process's file
descriptors, and then nobody can connect (slowloris). The protocol class
from :func:`with_head_deadline` closes a connection whose first request head
has not arrived within :data:`HEAD_SECONDS`. A request body that stalls is
cut off by :func:`forsale.server.app.capped` instead, and a WebSocket, once
upgraded, answers to its own pings and hello timeout.
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
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.loop.call_later(seconds, self._head_deadline, transport)

        def _head_deadline(self, transport: asyncio.Transport) -> None:
            # Still this protocol's (not upgraded to a WebSocket) and no request begun: a client that says nothing.
            if transport.get_protocol() is self and self.cycle is None and not transport.is_closing():
                transport.close()

    return HeadDeadline
