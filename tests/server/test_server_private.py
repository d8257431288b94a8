"""Invitation-only tables over the real app, on a SQLite file and on PostgreSQL.

Knowing an invitation-only table's id gets nothing: no listing, no seat, no
view, no chat, no record or replay, and a WebSocket hello without the code is
refused and then sent nothing at all, while the game goes on. The code, a
seat token, or a seated account's session opens it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, inspect
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.store.database import normalize_url

from .oldschema import create_old_database
from .social import code_of, hello, next_of, play_out, sign_up, two_seat_table

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


def reads(client: TestClient, table_id: str, **params: str) -> dict[str, int]:
    """The status of every endpoint that reads a table, with these query parameters."""
    paths = ("", "/view", "/chat", "/rematch", "/record", "/replay")
    return {p: client.get(f"/api/tables/{table_id}{p}", params=params).status_code for p in paths}


def test_an_invitation_only_table_is_listed_nowhere_and_its_seats_need_the_code(client: TestClient) -> None:
    created = client.post("/api/tables", json={"players": 3, "join": True, "invite_only": True, "name": "Ours"}).json()
    table_id, code = created["table"]["id"], created["invite"]
    assert created["invite_link"] == f"/#/table/{table_id}?invite={code}"
    assert created["table"]["invite_only"] is True and created["table"]["private"] is True
    assert len(code) >= 32  # 192 random bits
    for status in ("open", "all"):
        assert table_id not in [t["id"] for t in client.get("/api/tables", params={"status": status}).json()["tables"]]
    for body in ({}, {"seat": 1}, {"invite": "guess"}, {"invite": code[:-1]}, {"invite": created["token"]}):
        refused = client.post(f"/api/tables/{table_id}/join", json=body)
        assert refused.status_code == 403 and code_of(refused) == "private_table", body
        assert "invitation" in refused.json()["error"]["message"]
    assert client.get(f"/api/tables/{table_id}", params={"invite": code}).json()["table"]["open_seats"] == [1, 2]
    joined = client.post(f"/api/tables/{table_id}/join", json={"invite": code, "name": "Bob"})
    assert joined.status_code == 200 and joined.json()["seat"] == 1
    taken = client.post(f"/api/tables/{table_id}/join", json={"invite": code, "seat": 1})
    assert taken.status_code == 409 and code_of(taken) == "seat_taken"  # the code opens free seats only


def test_knowing_the_id_reads_nothing(client: TestClient) -> None:
    table_id, token0, token1, created = two_seat_table(client, invite_only=True)
    assert set(reads(client, table_id).values()) == {403}
    assert set(reads(client, table_id, invite="not the code").values()) == {403}
    assert set(reads(client, table_id, token="not a token").values()) == {403}
    opened = reads(client, table_id, invite=created["invite"])
    assert opened["/record"] == opened["/replay"] == 409 and {
        opened[p] for p in ("", "/view", "/chat", "/rematch")
    } == {200}
    with client.websocket_connect(f"/ws/tables/{table_id}") as stranger:
        stranger.send_json({"type": "hello", "id": 1})
        refused = stranger.receive_json()
        assert refused["type"] == "error" and refused["code"] == "private_table" and refused["id"] == 1
        for probe in ({"type": "act", "action": {"pass": True}}, {"type": "chat", "text": "hi"}, {"type": "rematch"}):
            stranger.send_json(probe)
            assert next_of(stranger, "error", skip=())["code"] == "hello_first"
        with (
            client.websocket_connect(f"/ws/tables/{table_id}") as a,
            client.websocket_connect(f"/ws/tables/{table_id}") as b,
        ):
            views = {0: hello(a, token0)["view"], 1: hello(b, token1)["view"]}
            a.send_json({"type": "chat", "text": "only for us"})
            assert next_of(a, "chat")["message"]["text"] == "only for us"
            play_out({0: a, 1: b}, views)
        stranger.send_json({"type": "ping", "id": 2})
        # Everything the table sent meanwhile would have been queued before this answer: there was none.
        pong = stranger.receive_json()
        assert pong["type"] == "pong" and pong["id"] == 2, pong


def test_a_finished_private_game_shows_its_record_to_its_players_and_guests_only(client: TestClient) -> None:
    sign_up(client, "Ann")
    table_id, token0, token1, created = two_seat_table(client, invite_only=True)  # Ann (signed in) takes both
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as a,
        client.websocket_connect(f"/ws/tables/{table_id}") as b,
    ):
        play_out({0: a, 1: b}, {0: hello(a, token0)["view"], 1: hello(b, token1)["view"]})
    assert table_id not in [t["id"] for t in client.get("/api/tables", params={"status": "over"}).json()["tables"]]
    assert set(reads(client, table_id).values()) == {200}  # Ann's session holds a seat: she needs no code
    client.cookies.clear()
    assert set(reads(client, table_id).values()) == {403}
    assert set(reads(client, table_id, token=token1).values()) == {200}
    assert set(reads(client, table_id, invite=created["invite"]).values()) == {200}
    record = client.get(f"/api/tables/{table_id}/record", params={"token": token0}).json()
    assert record["format"] == "forsale-record/1" and record["table"] == table_id
    sign_up(client, "Eve")  # another account, without a seat there
    assert set(reads(client, table_id).values()) == {403}


def test_the_creator_makes_a_new_code_and_the_old_one_stops_working(client: TestClient) -> None:
    created = client.post("/api/tables", json={"players": 3, "invite_only": True}).json()
    table_id, old = created["table"]["id"], created["invite"]
    wrong = client.post(f"/api/tables/{table_id}/invite", json={"creator_token": old})
    assert wrong.status_code == 403 and code_of(wrong) == "bad_token"
    fresh = client.post(f"/api/tables/{table_id}/invite", json={"creator_token": created["creator_token"]}).json()
    assert fresh["invite"] != old and fresh["invite_link"].endswith(fresh["invite"])
    assert code_of(client.post(f"/api/tables/{table_id}/join", json={"invite": old})) == "private_table"
    assert client.post(f"/api/tables/{table_id}/join", json={"invite": fresh["invite"]}).status_code == 200
    public = client.post("/api/tables", json={"players": 2}).json()
    answer = client.post(f"/api/tables/{public['table']['id']}/invite", json={"creator_token": public["creator_token"]})
    assert answer.status_code == 409 and code_of(answer) == "not_private"


def test_a_public_or_merely_unlisted_table_is_open_to_anyone_with_its_id(client: TestClient) -> None:
    for options in ({}, {"private": True}):
        created = client.post("/api/tables", json={"players": 2, **options}).json()
        assert "invite" not in created and created["table"]["invite_only"] is False
        table_id = created["table"]["id"]
        assert set(reads(client, table_id).values()) == {200, 409}  # the record waits for the end, nothing else
        with client.websocket_connect(f"/ws/tables/{table_id}") as watcher:
            assert hello(watcher)["seat"] is None
        assert client.post(f"/api/tables/{table_id}/join", json={}).status_code == 200


def test_an_old_database_gains_the_invitation_column_and_the_chat_table(db_url: str) -> None:
    """A database from before invitations: forsale_games without invite_hash, no forsale_chat."""
    create_old_database(db_url, with_accounts=True)
    for _ in range(2):  # the upgrade runs at every start; the second finds nothing to do
        with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
            table_id, token0, _token1, created = two_seat_table(c, invite_only=True)
            with c.websocket_connect(f"/ws/tables/{table_id}") as ws:
                hello(ws, token0)
                ws.send_json({"type": "chat", "text": "still here"})
                assert next_of(ws, "chat")["message"]["text"] == "still here"
            assert c.get(f"/api/tables/{table_id}", params={"invite": created["invite"]}).status_code == 200
    engine = create_engine(normalize_url(db_url))
    assert "invite_hash" in {c["name"] for c in inspect(engine).get_columns("forsale_games")}
    assert "forsale_chat" in inspect(engine).get_table_names()
    engine.dispose()
