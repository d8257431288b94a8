"""What the server tests share about the WebSocket wire (a helper module, not a test file)."""

from __future__ import annotations

from typing import Any


def recv(ws: Any, *types: str) -> dict[str, Any]:
    """The next message of one of ``types``, skipping ``table`` notices (seat and connection changes) and the
    ``chat_history`` that follows a welcome where someone has written."""
    while True:
        message = ws.receive_json()
        if message["type"] in types:
            return message
        assert message["type"] in ("table", "chat_history"), message
