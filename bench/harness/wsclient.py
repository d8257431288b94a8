"""One WebSocket client of a table that records everything it receives, for the fuzzer and its tests.

A :class:`Client` reads its connection in a task of its own, so a test can
send, then wait for a reply (:meth:`Client.reply`, skipping broadcasts) or
for any condition on what has arrived (:meth:`Client.wait`), and afterwards
check every message it was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .probes import BROADCASTS


class Client:
    """One WebSocket: everything it received, in order, read by a task of its own."""

    def __init__(self, ws: ClientConnection, label: str) -> None:
        self.ws, self.label = ws, label
        self.messages: list[dict[str, Any]] = []
        self.cursor = 0  # messages before it have been matched as replies (or skipped as broadcasts)
        self.status = "new"  # new (no hello yet), spectator, seated
        self.seat: int | None = None
        self.closed = False
        self.close_code: int | None = None
        self.changed = asyncio.Event()
        self.reader = asyncio.create_task(self.read())

    @classmethod
    async def open(cls, ws_base: str, table_id: str, label: str) -> Client:
        return cls(await connect(f"{ws_base}/ws/tables/{table_id}", max_size=None, open_timeout=30), label)

    async def read(self) -> None:
        try:
            async for frame in self.ws:
                try:
                    message = json.loads(frame)
                except ValueError:
                    message = {"type": "<not JSON>", "frame": repr(frame)[:200]}
                self.messages.append(message)
                self.changed.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed = True
            self.close_code = self.ws.close_code
            self.changed.set()

    async def wait(self, found: Callable[[], Any], timeout: float = 15.0) -> Any:
        """The first non-None ``found()``, re-evaluated on every message; None if the connection closes first
        or ``timeout`` seconds pass."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    self.changed.clear()
                    result = found()
                    if result is not None or self.closed:
                        return result
                    await self.changed.wait()
        except TimeoutError:
            return None

    async def reply(self, timeout: float = 15.0) -> dict[str, Any] | None:
        """The next answer to something this client sent (None: the connection closed without one)."""

        def scan() -> dict[str, Any] | None:
            while self.cursor < len(self.messages):
                message = self.messages[self.cursor]
                self.cursor += 1
                kind = message.get("type")
                if kind not in BROADCASTS and not (kind in ("chat", "rematch") and message.get("id") is None):
                    return message
            return None

        answer = await self.wait(scan, timeout)
        if answer is None and not self.closed:
            return {"type": f"<no reply within {timeout:g} s, the connection still open>"}
        return answer  # type: ignore[no-any-return]

    def seq(self) -> int:
        return max((m["seq"] for m in self.messages if m.get("type") in ("welcome", "state")), default=-1)

    def latest_view(self) -> dict[str, Any]:
        return next(m for m in reversed(self.messages) if m.get("type") in ("welcome", "state"))["view"]

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        with contextlib.suppress(Exception):
            await self.reader
