"""Message ids at the boundary: every id the protocol does not allow is refused, on every message type.

An id the JSON encoder cannot write back (an integer beyond 64 bits, a lone
UTF-16 surrogate) used to be committed on an ``act`` and then fail to
serialise in the ``ack``: the table's ``seq`` moved on, the mover was cut
off and nobody else heard of the move. Now such ids are refused before
anything happens, with a ``bad_message`` error (its ``id`` null), and the
connection stays open.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale.actions import PASS
from forsale.server import create_app
from forsale.server.errors import Refused
from forsale.server.table.connections import Conn

from .wire import recv

pytestmark = pytest.mark.timeout(120)

BAD_IDS: list[Any] = [
    10**30,
    2**64,
    -(2**63) - 1,
    2**53,  # beyond the JSON-safe range: a browser would read it as another number
    -(2**53),
    "\ud800",  # a lone surrogate: not Unicode text at all
    "a\udfffb",
    "x" * 65,
    1.5,
    True,
    [1],
    {"n": 1},
]
GOOD_IDS: list[Any] = [0, 2**53 - 1, -(2**53 - 1), "x" * 64, "é🙂 ok", ""]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'ids.sqlite3'}", rate=1000, burst=1000)) as client:
        yield client


def humans(client: TestClient, n: int) -> tuple[str, list[str]]:
    table_id = client.post("/api/tables", json={"players": n}).json()["table"]["id"]
    return table_id, [client.post(f"/api/tables/{table_id}/join", json={}).json()["token"] for _ in range(n)]


def test_every_bad_id_on_every_message_type_gets_an_error_and_changes_nothing(client: TestClient) -> None:
    table_id, tokens = humans(client, 3)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as w0,
        client.websocket_connect(f"/ws/tables/{table_id}") as w1,
        client.websocket_connect(f"/ws/tables/{table_id}") as w2,
        client.websocket_connect(f"/ws/tables/{table_id}") as stranger,
    ):
        sockets = [w0, w1, w2]
        welcome = {}
        for seat, ws in enumerate(sockets):
            ws.send_json({"type": "hello", "token": tokens[seat]})
            welcome[seat] = recv(ws, "welcome")
        actor = welcome[0]["view"]["to_act"][0]
        mover = sockets[actor]

        def refused(ws: Any, message: dict[str, Any]) -> None:
            ws.send_json(message)
            answer = recv(ws, "error", "ack", "pong", "welcome")
            assert answer["type"] == "error" and answer["code"] == "bad_message", (message, answer)
            assert answer["id"] is None and "id" in answer["message"]

        for bad in BAD_IDS:
            refused(mover, {"type": "act", "action": {"pass": True}, "id": bad})  # a legal move, a bad id
            refused(mover, {"type": "ping", "id": bad})
            refused(mover, {"type": "leave", "id": bad})
            refused(mover, {"type": "dance", "id": bad})
            refused(stranger, {"type": "act", "action": {"pass": True}, "id": bad})  # before hello
            refused(stranger, {"type": "hello", "token": "A" * 32, "id": bad})  # a bad token as well
            refused(stranger, {"type": "hello", "id": bad})
        assert client.get(f"/api/tables/{table_id}").json()["table"]["seq"] == 0

        for good in GOOD_IDS:
            mover.send_json({"type": "ping", "id": good})
            assert recv(mover, "pong")["id"] == good
        stranger.send_json({"type": "hello", "id": GOOD_IDS[1]})
        assert recv(stranger, "welcome")["seat"] is None
        # Nothing moved while the bad ids came in: the next move is seq 1, and every seat sees it in its own view.
        mover.send_json({"type": "act", "action": {"pass": True}, "id": GOOD_IDS[2]})
        assert recv(mover, "ack") == {"type": "ack", "id": GOOD_IDS[2], "seq": 1}
        for seat, ws in enumerate(sockets):
            state = recv(ws, "state")
            assert state["seq"] == 1 and state["event"]["seat"] == actor
            snapshot = client.get(f"/api/tables/{table_id}/view", params={"token": tokens[seat]}).json()
            assert state["view"] == snapshot["view"]
        assert recv(stranger, "state")["seq"] == 1


def test_an_ack_that_cannot_be_written_is_refused_before_the_commit(client: TestClient) -> None:
    """The table's own guard, below the message boundary: an unserialisable id never commits."""
    table_id, _ = humans(client, 2)
    table = client.app.state.lobby.tables[table_id]  # type: ignore[attr-defined]
    seat = table.state.seats_to_act()[0]
    act: Callable[..., Any] = table.act
    conn = Conn(None)  # a connection nobody reads: its queue holds what it would be sent
    for bad in (10**30, "\ud800"):
        with pytest.raises(Refused) as refused:
            client.portal.call(act, seat, PASS, "player", conn, bad)  # type: ignore[union-attr]
        assert refused.value.code == "bad_message"
    assert table.seq == 0 and len(table.state.moves) == 0 and not conn.queue
    assert client.portal.call(act, seat, PASS, "player", conn, 7) == 1  # type: ignore[union-attr]
    assert list(conn.queue) == ['{"type":"ack","id":7,"seq":1}']


def test_a_message_that_cannot_be_serialised_is_dropped_for_its_connection_only(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The last guard: should one get past validation (our bug), it is logged and that message is not sent."""
    broken, fine = Conn(None), Conn(None)
    for conn, message in ((broken, {"type": "pong", "id": 10**30}), (fine, {"type": "pong", "id": 1})):
        conn.send(message)
    assert not broken.queue and not broken.closed
    assert list(fine.queue) == ['{"type":"pong","id":1}']
    assert [r.exc_info is not None for r in caplog.records if "could not be serialised" in r.message] == [True]
