"""Chat at a table: plain text from its players (and its spectators, when the creator allows), stored with the game.

A message is at most 300 characters of plain text (no control characters but
newlines and tabs; nothing is interpreted: the page shows it with
``textContent``). It is stored in ``forsale_chat``, beside the game and
never in its event log or its ``forsale-record/1`` record, and only then
sent, as a ``chat`` message, to the connections attached to the table:
those that said hello there, which at an invitation-only table means only
the admitted (:mod:`forsale.server.table.invites`). A (re)connection gets the
latest messages as one ``chat_history`` message right after its welcome.

Each seat may send 5 messages in a row, then one every 2 seconds (shared by
all of that seat's connections: a second tab is not a second allowance);
each spectator connection has an allowance of its own.
"""

from __future__ import annotations

import time
import unicodedata
import weakref
from collections.abc import Sequence
from typing import Any, Protocol

from ..errors import Refused
from ..names import BIDI_CONTROLS, SPECTATOR
from ..ops.ratelimit import RateLimit
from ..store.chat import op_history, op_say
from ..store.database import Storage
from .config import TableConfig
from .connections import Conn, dumps
from .seats import Seat


class ChatTable(Protocol):
    """What a chat reads of its table (:class:`forsale.server.table.live.LiveTable` is one)."""

    @property
    def id(self) -> str: ...
    @property
    def storage(self) -> Storage: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    @property
    def config(self) -> TableConfig: ...
    def connections(self) -> list[Conn]: ...


HISTORY = 200
"""Messages a (re)connection is sent, the latest ones."""
BURST = 5
RATE = 0.5
"""Chat messages per second per seat (or spectator connection) on average, after a burst of :data:`BURST`."""
ALLOWED_CONTROLS = frozenset("\n\t")


def check_text(text: str) -> str:
    """The message as it is stored (unchanged), or :class:`Refused` saying why it cannot be."""
    if not text.strip():
        raise Refused("bad_message", "text: say something (the message is empty)")
    if any(unicodedata.category(ch) == "Cc" and ch not in ALLOWED_CONTROLS for ch in text):
        raise Refused("bad_message", "text: control characters other than newlines and tabs are not allowed")
    if any(ch in BIDI_CONTROLS for ch in text):
        raise Refused("bad_message", "text: direction-override characters are not allowed (they reverse the text)")
    return text


class ChatLog:
    """One table's chat: the latest messages in memory (loaded once from the database), the senders' allowances."""

    def __init__(self, table: ChatTable) -> None:
        self.table = table
        self.messages: list[dict[str, Any]] | None = None  # None until loaded
        self.count = 0  # the number of the last message stored
        self._seats: dict[int, RateLimit] = {}
        self._spectators: weakref.WeakKeyDictionary[Conn, RateLimit] = weakref.WeakKeyDictionary()

    async def load(self) -> list[dict[str, Any]]:
        if self.messages is None:
            rows = await self.table.storage.run(op_history(self.table.id, HISTORY))
            if self.messages is None:  # another connection may have loaded it meanwhile
                self.messages = rows
                self.count = max(self.count, rows[-1]["n"] if rows else 0)
        return self.messages

    def history(self) -> dict[str, Any]:
        """The ``chat_history`` message (after :meth:`load`)."""
        return {"type": "chat_history", "table": self.table.id, "messages": list(self.messages or [])}

    def _allowance(self, conn: Conn) -> RateLimit:

        if conn.seat is not None:
            limit = self._seats.get(conn.seat)
            if limit is None:
                limit = self._seats[conn.seat] = RateLimit(RATE, BURST)
            return limit
        limit = self._spectators.get(conn)
        if limit is None:
            limit = self._spectators[conn] = RateLimit(RATE, BURST)
        return limit

    def _author(self, conn: Conn) -> tuple[int | None, str]:
        table = self.table
        if conn.seat is not None:
            return conn.seat, table.seats[conn.seat].name
        if not table.config.spectator_chat:
            raise Refused("chat_closed", "spectators may read this table's chat; its creator has not let them write")
        account = getattr(conn, "account", None)
        return None, account["name"] if account else SPECTATOR

    async def say(self, conn: Conn, text: str, msg_id: Any = None) -> dict[str, Any]:
        """Store a message from ``conn`` and send it to everyone at the table; returns the stored message."""
        check_text(text)
        seat, name = self._author(conn)
        if not self._allowance(conn).allow():
            raise Refused(
                "rate_limited", f"too many chat messages: {BURST} in a row, then one every {1 / RATE:g} seconds"
            )
        await self.load()
        self.count += 1
        message = {"n": self.count, "seat": seat, "name": name, "text": text, "at": int(time.time() * 1000)}
        await self.table.storage.run(op_say(self.table.id, message))  # stored before anyone sees it
        assert self.messages is not None
        self.messages.append(message)
        del self.messages[:-HISTORY]
        self.broadcast(message, conn, msg_id)
        return message

    def broadcast(self, message: dict[str, Any], sender: Conn | None = None, msg_id: Any = None) -> None:
        """Send ``message`` to every connection attached to the table (the sender's copy carries its id)."""
        table = self.table
        text = dumps({"type": "chat", "table": table.id, "message": message, "id": None})
        for conn in table.connections():
            if conn is sender and msg_id is not None:
                conn.send({"type": "chat", "table": table.id, "message": message, "id": msg_id})
            else:
                conn.send(text)
