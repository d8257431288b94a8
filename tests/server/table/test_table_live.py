"""A live table without a network: actions fed through the table's own methods, frames read from its queues.

The table is held by a real :class:`~forsale.server.lobby.lobby.Lobby` (its :class:`Host`) over a real
SQLite file, and each connection is a :class:`~forsale.server.table.connections.Conn` with no socket: what
the table sends it waits in its queue, as text, where the test reads it. No server, no WebSocket, no HTTP:
what is tested is the table's logic (the order of store and broadcast, refusals, settings, the bots'
delay); the same paths over the wire stay covered end to end by tests/server/test_server_protocol.py and
tests/server/test_server_golden.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from forsale.actions import action_from_json
from forsale.server.errors import Refused
from forsale.server.lobby.lobby import Lobby, Options, TableRequest
from forsale.server.ops.botrunner import BotRunner
from forsale.server.store.database import Storage
from forsale.server.table.connections import Conn
from forsale.server.table.live import LiveTable

pytestmark = pytest.mark.timeout(60)


def frames(conn: Conn) -> list[dict[str, Any]]:
    """What the table queued for ``conn`` since the last call (the queue is emptied)."""
    out = [json.loads(text) for text in conn.queue if text is not None]
    conn.queue.clear()
    return out


def run(tmp_path: Path, test: Callable[[Lobby], Awaitable[None]], **options: Any) -> None:
    """``test(lobby)`` in an event loop, with a lobby over a fresh SQLite file, closed afterwards."""

    async def main() -> None:
        storage = Storage(f"sqlite:///{tmp_path / 'table.sqlite3'}")
        lobby = Lobby(storage, BotRunner(), Options(**options))
        try:
            await test(lobby)
        finally:
            lobby.close()
            storage.close()

    asyncio.run(main())


async def table_of_people(lobby: Lobby, n: int = 3) -> tuple[LiveTable, list[Conn]]:
    created = await lobby.create(TableRequest(players=n))
    table = lobby.tables[created["table"]["id"]]
    for i in range(n):
        await table.join(i, f"P{i}")
    conns = [Conn(None) for _ in range(n)]
    for i, conn in enumerate(conns):
        table.attach(conn, i)
    return table, conns


def test_each_action_is_stored_before_every_connection_gets_its_own_state(tmp_path: Path) -> None:
    async def game(lobby: Lobby) -> None:
        table, conns = await table_of_people(lobby)
        watcher = Conn(None)
        table.attach(watcher, None)
        for conn in (*conns, watcher):
            frames(conn)
        while table.status != "over":
            seat = table.state.seats_to_act()[0]
            legal = table.snapshots.view_of(seat).legal_actions()
            seq = await table.act(seat, legal[0], "player")
            assert seq == table.seq
            stored = await lobby.storage.run(Storage.op_load(table.id))
            assert stored is not None and len(stored.events) == seq  # stored before anyone was told
            for i, conn in enumerate(conns):
                (state,) = frames(conn)
                assert state["type"] == "state" and state["seq"] == seq and state["seat"] == i
            (public,) = frames(watcher)
            assert public["seat"] is None and public["seq"] == seq
        assert table.info()["status"] == "over" and table.result() is not None

    run(tmp_path, game)


def test_a_refused_action_changes_nothing_and_tells_nobody(tmp_path: Path) -> None:
    async def refusals(lobby: Lobby) -> None:
        table, conns = await table_of_people(lobby)
        for conn in conns:
            frames(conn)
        idle = next(s for s in range(3) if s not in table.state.seats_to_act())
        with pytest.raises(Refused) as refused:
            await table.act(idle, action_from_json({"pass": True}), "player")
        assert refused.value.code == "not_your_turn"
        assert table.seq == 0 and all(frames(conn) == [] for conn in conns)
        stored = await lobby.storage.run(Storage.op_load(table.id))
        assert stored is not None and stored.events == []

    run(tmp_path, refusals)


def test_set_options_stores_the_settings_and_tells_every_connection_once(tmp_path: Path) -> None:
    async def settings(lobby: Lobby) -> None:
        table, conns = await table_of_people(lobby)
        for conn in conns:
            frames(conn)
        await table.set_options(spectator_chat=True, hints=True, bot_delay=1.5)
        assert table.config.spectator_chat and table.config.hints and table.bot_delay == 1.5
        info = table.info()
        assert info["spectator_chat"] and info["hints"] and info["bot_delay"] == 1.5
        for conn in conns:
            (notice,) = frames(conn)  # one notice for the three settings
            assert notice["type"] == "table" and notice["info"]["bot_delay"] == 1.5
        stored = await lobby.storage.run(Storage.op_load(table.id))
        assert stored is not None
        assert {k: stored.config[k] for k in ("spectator_chat", "hints", "bot_delay")} == {
            "spectator_chat": True,
            "hints": True,
            "bot_delay": 1.5,
        }
        with pytest.raises(ValueError, match="rated cannot change"):  # only the creator's settings change
            await table.set_options(rated=True, hints=False)
        assert not table.config.rated and table.config.hints and all(frames(conn) == [] for conn in conns)

    run(tmp_path, settings)


def test_a_table_without_a_bot_delay_of_its_own_takes_the_servers(tmp_path: Path) -> None:
    async def default(lobby: Lobby) -> None:
        table, _ = await table_of_people(lobby)
        assert table.bot_delay == 0.25 and "bot_delay" not in table.info()
        assert "bot_delay" not in table.config.stored()  # a table made without it is stored as before

    run(tmp_path, default, bot_delay=0.25)


def test_the_bots_of_a_table_wait_its_bot_delay_before_each_move(tmp_path: Path) -> None:
    """The server's bots act at once (``bot_delay=0``); this table's wait 0.3 s before each move."""

    async def delayed(lobby: Lobby) -> None:
        started = time.monotonic()
        created = await lobby.create(TableRequest(players=3, seats=["random"] * 3, bot_delay=0.3))
        table = lobby.tables[created["table"]["id"]]
        watcher = Conn(None)
        table.attach(watcher, None)
        while table.seq < 2:
            await asyncio.sleep(0.01)
        assert time.monotonic() - started >= 2 * 0.3  # a lower bound: a loaded machine only makes it later
        assert table.info()["bot_delay"] == 0.3

    run(tmp_path, delayed, bot_delay=0.0)
