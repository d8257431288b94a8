"""WebSocket sessions and accounts over the real app, on a SQLite file and on PostgreSQL.

A handshake that carries the session cookie must come from this server's own
pages (its ``Origin``, by the rule signed-in POSTs follow): another site's page
would otherwise ride the victim's cookie. A seat linked to an account is not
played through a session of another account, whatever token it shows; the
account's own session finds its seat without the token (another device).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from forsale.server import create_app

from .social import SAME, hello, next_of, sign_up, two_seat_table

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


CROSS_SITE = [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://testserver.evil"},
    {"Origin": "https://testserver:8443"},
    {"Sec-Fetch-Site": "cross-site"},
]


@pytest.mark.parametrize("headers", CROSS_SITE)
def test_a_cross_site_websocket_with_the_cookie_is_refused(client: TestClient, headers: dict[str, str]) -> None:
    sign_up(client, "Ann")
    table_id, _token0, _, _ = two_seat_table(client)
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=headers) as ws:
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "cross_origin"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4403
    assert client.get(f"/api/tables/{table_id}").json()["table"]["seats"][0]["connected"] is False  # never seated


def test_the_same_origin_is_accepted_and_finds_the_accounts_seat(client: TestClient) -> None:
    sign_up(client, "Ann")
    table_id, token0, _, _ = two_seat_table(client)  # Ann's session took both seats
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as ws:
        assert hello(ws, token0)["seat"] == 0
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as ws:
        assert hello(ws)["seat"] == 0  # no token: the session's own seat (the player on another device)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:  # no Origin: not a browser, nothing forged
        assert hello(ws)["seat"] == 0


def test_a_guest_websocket_from_anywhere_plays_as_before(client: TestClient) -> None:
    table_id, token0, _, _ = two_seat_table(client)
    with client.websocket_connect(f"/ws/tables/{table_id}", headers={"Origin": "http://elsewhere.example"}) as ws:
        welcome = hello(ws, token0)
        assert welcome["seat"] == 0
        if 0 in welcome["view"]["to_act"]:
            ws.send_json({"type": "act", "action": {"pass": True}, "id": 1})
            assert next_of(ws, "ack", "error")["type"] == "ack"
        ws.send_json({"type": "chat", "text": "hello from my own page", "id": 2})
        assert next_of(ws, "chat", "error", skip=("table", "state"))["id"] == 2


def test_one_account_cannot_play_anothers_seat(client: TestClient) -> None:
    sign_up(client, "Ann")
    table_id, token0, token1, _ = two_seat_table(client)
    ann = dict(client.cookies)
    client.cookies.clear()
    sign_up(client, "Bob")  # Bob has learnt Ann's tokens
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as ws:
        for token in (token0, token1):
            ws.send_json({"type": "hello", "token": token, "id": 3})
            refused = next_of(ws, "error")
            assert refused["code"] == "not_your_seat" and refused["id"] == 3
        ws.send_json({"type": "act", "action": {"pass": True}, "id": 4})
        assert next_of(ws, "error")["code"] == "hello_first"  # still nobody: nothing was played
        assert hello(ws)["seat"] is None  # Bob may watch this public table, as anyone may
        ws.send_json({"type": "act", "action": {"pass": True}, "id": 5})
        assert next_of(ws, "error")["code"] == "not_seated"
    assert client.get(f"/api/tables/{table_id}").json()["table"]["seq"] == 0
    client.cookies.clear()
    client.cookies.update(ann)
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as ws:
        assert hello(ws, token1)["seat"] == 1


def test_a_private_table_gives_a_spectator_without_the_code_nothing(client: TestClient) -> None:
    table_id, token0, token1, created = two_seat_table(client, invite_only=True)
    sign_up(client, "Eve")  # signed in, but no seat there
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as eve:
        for invite in (None, "", "x" * 32, token0):
            eve.send_json({"type": "hello", "invite": invite, "id": 1})
            assert next_of(eve, "error", skip=())["code"] == "private_table"
        client.cookies.clear()
        with client.websocket_connect(f"/ws/tables/{table_id}") as player:
            first = hello(player, token0)["view"]["to_act"][0]
            if first != 0:  # seat 1 opens: its player passes first
                with client.websocket_connect(f"/ws/tables/{table_id}") as other:
                    hello(other, token1)
                    other.send_json({"type": "act", "action": {"pass": True}, "id": 2})
                    next_of(other, "ack")
                next_of(player, "state")
            player.send_json({"type": "act", "action": {"pass": True}, "id": 3})
            next_of(player, "ack")
            player.send_json({"type": "chat", "text": "secret plans"})
            next_of(player, "chat", skip=("table", "state"))
        eve.send_json({"type": "ping", "id": 9})
        assert next_of(eve, "pong", skip=())["id"] == 9  # no state, table or chat message came first
        assert hello(eve, invite=created["invite"])["seat"] is None  # with the code, she may watch
