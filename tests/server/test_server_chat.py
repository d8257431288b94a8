"""Chat at the table over real WebSockets, on a SQLite file and on PostgreSQL.

Hostile text (HTML, script, SQL-like, odd Unicode) is stored and sent back
exactly as text; over-long, empty and control-character messages are refused
and change nothing; each seat has a rate limit; spectators read and write
only when the creator allows; chat is never in the record or the event log,
and never reaches a connection that is not at the table.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, select
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.store.database import normalize_url
from forsale.server.store.schema import chat, events
from forsale.server.table import chat as chat_module

from .social import code_of, hello, next_of, play_out, two_seat_table

pytestmark = pytest.mark.timeout(180)

HOSTILE = [
    "<script>alert('x')</script>",
    '<img src=x onerror="alert(1)">',
    "'; DROP TABLE forsale_chat; --",
    "Robert'); DELETE FROM forsale_games WHERE ('1'='1",
    "ZW\u200bJ\u200d 👨‍👩‍👧 é (e\u0301) 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 李小龍 مرحبا",
    "two\nlines\tand a tab",
    "&lt;not an entity&gt; &amp; {{template}} ${x} %s %n",
    "x" * 300,
]


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


def say(ws: object, text: str, msg_id: int) -> dict:
    ws.send_json({"type": "chat", "text": text, "id": msg_id})  # type: ignore[attr-defined]
    return next_of(ws, "chat", "error")


def test_hostile_text_is_stored_and_sent_back_as_text(client: TestClient, db_url: str) -> None:
    table_id, token0, token1, _ = two_seat_table(client)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as a,
        client.websocket_connect(f"/ws/tables/{table_id}") as b,
    ):
        hello(a, token0)
        hello(b, token1)
        for i, text in enumerate(HOSTILE[:5]):
            mine = say(a, text, i)
            assert mine["type"] == "chat" and mine["id"] == i and mine["message"]["text"] == text
            assert mine["message"]["seat"] == 0 and mine["message"]["n"] == i + 1
            theirs = next_of(b, "chat")
            assert theirs["message"] == mine["message"] and theirs["id"] is None
        for i, text in enumerate(HOSTILE[5:], start=5):
            assert say(b, text, i)["message"]["text"] == text
            next_of(a, "chat")
    with client.websocket_connect(f"/ws/tables/{table_id}") as again:  # a reconnection gets the history
        again.send_json({"type": "hello", "token": token0})
        next_of(again, "welcome")
        history = next_of(again, "chat_history")["messages"]
    assert [m["text"] for m in history] == HOSTILE and [m["n"] for m in history] == list(range(1, 9))
    assert [m["text"] for m in client.get(f"/api/tables/{table_id}/chat").json()["messages"]] == HOSTILE
    engine = create_engine(normalize_url(db_url))
    with engine.connect() as conn:
        stored = conn.execute(select(chat.c.body).where(chat.c.game_id == table_id).order_by(chat.c.n)).scalars().all()
    engine.dispose()
    assert stored == HOSTILE  # the SQL-like ones were parameters, not statements: the tables are all there


@pytest.mark.parametrize(
    "text",
    [
        "x" * 301,
        "y" * 10_240,
        "",
        "   \n\t ",
        "nul\x00byte",
        "bell\x07",
        "escape\x1b[31m",
        "\u202ereversed",
        42,
        None,
        ["list"],
    ],
)
def test_bad_messages_are_refused_and_change_nothing(client: TestClient, text: object) -> None:
    table_id, token0, _, _ = two_seat_table(client)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        hello(ws, token0)
        ws.send_json({"type": "chat", "text": text, "id": 7})
        refused = next_of(ws, "error")
        assert refused["code"] == "bad_message" and refused["id"] == 7
        assert "text" in refused["message"]
        assert say(ws, "fine", 8)["message"]["n"] == 1  # nothing was stored before it
    over = client.get(f"/api/tables/{table_id}/chat").json()["messages"]
    assert [m["text"] for m in over] == ["fine"]


def test_a_seat_may_send_five_in_a_row_then_waits(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chat_module, "RATE", 1e-9)  # no refill during the test: the burst alone counts
    table_id, token0, token1, _ = two_seat_table(client)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as tab1,
        client.websocket_connect(f"/ws/tables/{table_id}") as tab2,
    ):
        hello(tab1, token0)
        hello(tab2, token0)  # the same seat in a second tab: one allowance between them
        for i in range(3):
            assert say(tab1, f"one {i}", i)["type"] == "chat"
            next_of(tab2, "chat")
        for i in range(3, 5):
            assert say(tab2, f"two {i}", i)["type"] == "chat"
            next_of(tab1, "chat")
        limited = say(tab1, "one too many", 5)
        assert limited["type"] == "error" and limited["code"] == "rate_limited" and limited["id"] == 5
        assert say(tab2, "me neither", 6)["code"] == "rate_limited"
        with client.websocket_connect(f"/ws/tables/{table_id}") as other:
            hello(other, token1)  # another seat has its own allowance
            assert say(other, "my turn to talk", 7)["type"] == "chat"
    assert len(client.get(f"/api/tables/{table_id}/chat").json()["messages"]) == 6


def test_spectators_read_and_write_only_when_the_creator_allows(client: TestClient) -> None:
    table_id, token0, _, created = two_seat_table(client)
    assert created["table"]["spectator_chat"] is False
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as player,
        client.websocket_connect(f"/ws/tables/{table_id}") as watcher,
    ):
        hello(player, token0)
        assert hello(watcher)["seat"] is None
        say(player, "hello, audience", 1)
        assert next_of(watcher, "chat")["message"]["text"] == "hello, audience"
        closed = say(watcher, "may I?", 2)
        assert closed["type"] == "error" and closed["code"] == "chat_closed"
        setting = {"creator_token": "wrong", "spectator_chat": True}
        assert code_of(client.post(f"/api/tables/{table_id}/settings", json=setting)) == "bad_token"
        setting["creator_token"] = created["creator_token"]
        answer = client.post(f"/api/tables/{table_id}/settings", json=setting)
        assert answer.status_code == 200 and answer.json()["table"]["spectator_chat"] is True
        assert next_of(watcher, "table", skip=("chat",))["info"]["spectator_chat"] is True
        spoken = say(watcher, "thank you", 3)["message"]
        assert spoken["seat"] is None and spoken["name"] == "Spectator" and spoken["text"] == "thank you"
        assert next_of(player, "chat")["message"] == spoken


def test_chat_is_in_neither_the_record_nor_the_event_log(client: TestClient, db_url: str) -> None:
    table_id, token0, token1, _ = two_seat_table(client)
    secret = "chat-marker-8c1f: never in a record"
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as a,
        client.websocket_connect(f"/ws/tables/{table_id}") as b,
    ):
        views = {0: hello(a, token0)["view"], 1: hello(b, token1)["view"]}
        say(a, secret, 1)
        next_of(b, "chat")
        last = play_out({0: a, 1: b}, views)
        assert secret not in json.dumps(last)
        assert say(b, "good game", 2)["type"] == "chat"  # talking after the game is fine
    record = client.get(f"/api/tables/{table_id}/record")
    assert record.status_code == 200 and secret not in record.text and "good game" not in record.text
    assert secret not in client.get(f"/api/tables/{table_id}/replay").text
    engine = create_engine(normalize_url(db_url))
    with engine.connect() as conn:
        logged = conn.execute(select(events.c.action).where(events.c.game_id == table_id)).scalars().all()
    engine.dispose()
    assert logged and secret not in json.dumps(logged)


def test_chat_reaches_only_the_connections_at_its_table(client: TestClient) -> None:
    table_id, token0, _, _ = two_seat_table(client)
    other_id, other_token, _, _ = two_seat_table(client)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as speaker,
        client.websocket_connect(f"/ws/tables/{other_id}") as elsewhere,
        client.websocket_connect(f"/ws/tables/{table_id}") as silent,
    ):
        hello(speaker, token0)
        hello(elsewhere, other_token)
        say(speaker, "for this table only", 1)
        for ws in (elsewhere, silent):  # another table's player; a connection that never said hello
            ws.send_json({"type": "ping", "id": 9})
            while (message := ws.receive_json())["type"] == "table":  # seat and connection notices
                pass
            assert message["type"] == "pong"  # a chat sent to it would have come first
