"""A ``welcome`` holds every action the table has taken, even one still being stored when the hello came.

A seat whose connection dies after it sends an action, but before the ack,
reconnects and decides from the new welcome (docs/protocol.md). The table
changes its state only once the action is stored, so a hello served while
that commit was under way got the state before it: the seat was asked again
for the move it had made, and its answer was refused (``not_your_turn``):
the honest-move refusals of the soak (issue 36). The hello now waits for the
table's lock, which the action holds until the game has moved on.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from forsale.actions import action_from_json
from forsale.server.http.schemas import Hello
from forsale.server.http.ws import TableSockets
from forsale.server.lobby.lobby import Lobby, Options, TableRequest
from forsale.server.ops.badinput import BadInputLog
from forsale.server.ops.botrunner import BotRunner
from forsale.server.store.database import Storage
from forsale.server.table.connections import Conn


def messages(conn: Conn) -> list[dict[str, Any]]:
    return [json.loads(text) for text in conn.queue if text is not None]


def test_a_hello_during_a_commit_is_welcomed_with_the_action_taken(tmp_path: Path) -> None:
    async def main() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 'welcome.sqlite3'}")
        lobby = Lobby(storage, BotRunner(), Options())
        sockets = TableSockets(None, 20, 40, 30, BadInputLog(logging.getLogger("test")))  # type: ignore[arg-type]
        try:
            created = await lobby.create(TableRequest(players=3))
            table = lobby.tables[created["table"]["id"]]
            tokens = [(await table.join(None, f"P{i}"))[1] for i in range(3)]
            await table.chat.load()  # loaded already, as at any table someone has joined over a socket
            seat = table.state.seats_to_act()[0]
            first = Conn(None)
            table.attach(first, seat)
            move = asyncio.create_task(table.act(seat, action_from_json({"pass": True}), "player", first, 1))
            await asyncio.sleep(0)  # the action holds the lock and is being stored
            assert table.seq == 0 and table.lock.locked()
            table.detach(first)  # its connection died before the ack
            again = Conn(None)
            await sockets.hello(again, table, Hello(type="hello", token=tokens[seat]))
            assert await move == 1
            welcome = messages(again)[0]
            assert welcome["type"] == "welcome" and welcome["seq"] == 1  # the pass is in it
            assert seat not in welcome["view"]["to_act"]  # nobody asks this seat for the move it made
        finally:
            lobby.close()
            storage.close()

    asyncio.run(main())


def test_a_token_ended_while_its_hello_waited_seats_nobody(tmp_path: Path) -> None:
    """A hello that waits for the lock checks its token again: one ended meanwhile (a password change) is refused."""

    async def main() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 'ended.sqlite3'}")
        lobby = Lobby(storage, BotRunner(), Options())
        sockets = TableSockets(None, 20, 40, 30, BadInputLog(logging.getLogger("test")))  # type: ignore[arg-type]
        try:
            created = await lobby.create(TableRequest(players=2))
            table = lobby.tables[created["table"]["id"]]
            tokens = [(await table.join(None, f"P{i}"))[1] for i in range(2)]
            await table.chat.load()
            conn = Conn(None)
            async with table.lock:  # as end_seat_tokens holds it while it replaces the seat's token
                hello = asyncio.create_task(sockets.hello(conn, table, Hello(type="hello", token=tokens[0], id=5)))
                await asyncio.sleep(0.05)
                assert not hello.done()  # waiting for the lock, its token checked once already
                table.seats[0].token_hash = "ended"
            await hello
            assert conn.seat is None and not conn.hello
            assert [(m["type"], m["code"], m["id"]) for m in messages(conn)] == [("error", "bad_token", 5)]
        finally:
            lobby.close()
            storage.close()

    asyncio.run(main())
