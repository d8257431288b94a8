"""What the tests that talk to a real ``forsale serve`` over a real WebSocket (websockets' sync client) share:
reading up to an awaited message within a deadline, and the hello that seats a token (a helper module, not a test
file). The server tests and the cluster tests both use it.
"""

from __future__ import annotations

import json
import time
from typing import Any

from websockets.sync.client import ClientConnection


def recv_until(ws: ClientConnection, wanted: Any, seconds: float = 15.0) -> dict[str, Any]:
    """The first message ``wanted(message)`` accepts, within a deadline (messages before it are passed over)."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("the awaited message did not come")
        try:
            message = json.loads(ws.recv(timeout=left))
        except TimeoutError:
            raise AssertionError("the awaited message did not come") from None
        if wanted(message):
            return dict(message)


def hello(ws: ClientConnection, token: str | None) -> dict[str, Any]:
    """Say hello with a seat token (None: to watch); the welcome, or the error that refused it."""
    ws.send(json.dumps({"type": "hello", "token": token}))
    return recv_until(ws, lambda m: m["type"] in ("welcome", "error"))
