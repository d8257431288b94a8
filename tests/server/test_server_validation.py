"""Strict validation at the boundary, exactly as docs/protocol.md states it.

Booleans are ``true``/``false`` only (``1`` is not a pass), numbers are not
strings, strings are valid Unicode, and a bid the rules forbid is
``illegal`` with the engine's reason, not ``bad_message``: only a bid beyond
any game's coins (10^6) is malformed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.http.schemas import MAX_BID, NAME_PATTERN, Name

from .wire import recv

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'strict.sqlite3'}", rate=1000, burst=1000)) as client:
        yield client


def test_actions_are_strictly_typed_and_illegal_bids_are_illegal(client: TestClient) -> None:
    table_id = client.post("/api/tables", json={"players": 3}).json()["table"]["id"]
    tokens = [client.post(f"/api/tables/{table_id}/join", json={}).json()["token"] for _ in range(3)]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        first = None
        for token in tokens:  # find the seat to act
            ws.send_json({"type": "hello", "token": token})
            welcome = recv(ws, "welcome", "error")
            if welcome["type"] == "welcome":
                first = welcome
                break
        assert first is not None
        actor = first["view"]["to_act"][0]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": tokens[actor]})
        coins = recv(ws, "welcome")["view"]["coins"][actor]

        def answer(action: Any) -> dict[str, Any]:
            ws.send_json({"type": "act", "action": action, "id": 1})
            return recv(ws, "error", "ack")

        for bad in ({"pass": 1}, {"pass": 1.0}, {"pass": "true"}, {"pass": 0}, {"pass": None}, {"pass": False}):
            got = answer(bad)
            assert (got["type"], got.get("code")) == ("error", "bad_message"), (bad, got)
        for bad in ({"bid": 5.0}, {"bid": True}, {"bid": "5"}, {"bid": 0}, {"bid": MAX_BID + 1}, {"sell": 31}):
            assert answer(bad)["code"] == "bad_message", bad
        for too_much in (coins + 1, 1001, MAX_BID):
            got = answer({"bid": too_much})
            assert got["code"] == "illegal" and f"hold {coins} coins" in got["message"], got  # the engine's reason
        assert client.get(f"/api/tables/{table_id}").json()["table"]["seq"] == 0
        assert answer({"pass": True})["type"] == "ack"


def test_hello_tokens_must_be_text(client: TestClient) -> None:
    table_id = client.post("/api/tables", json={"players": 3}).json()["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        for token in ("\ud800", 5, True, "x" * 201):
            ws.send_json({"type": "hello", "token": token, "id": 3})
            got = recv(ws, "error", "welcome")
            assert (got["type"], got["code"], got["id"]) == ("error", "bad_message", 3), (token, got)
        ws.send_json({"type": "hello"})
        assert recv(ws, "welcome")["seat"] is None


def raw_post(client: TestClient, path: str, text: str) -> Any:
    return client.post(
        path, content=text.encode("utf-8", "surrogatepass"), headers={"content-type": "application/json"}
    )


def test_rest_numbers_are_numbers_booleans_are_booleans_strings_are_text(client: TestClient) -> None:
    for body in (
        '{"time_limit": "30"}',
        '{"time_limit": true}',
        '{"time_limit": NaN}',
        '{"time_limit": Infinity}',
        '{"time_limit": 0.5}',
        '{"players": "3"}',
        '{"players": 3.5}',
        '{"players": true}',
        '{"memory_aid": 1}',
        '{"private": "yes"}',
        '{"seats": [1, 2, 3, 4]}',
        '{"name": "\\ud800"}',
        '{"join": true, "player_name": "a\\udfffb"}',
        '{"rules": {"starting_coins": "18", "removed": 2}}',
    ):
        for path in ("/api/tables", "/api/solo"):
            if path == "/api/solo" and any(k in body for k in ("seats", "private", "join")):
                continue
            refused = raw_post(client, path, body)
            assert refused.status_code == 400, (path, body, refused.text)
            assert refused.json()["error"]["code"] == "bad_request"
    # An integral number is that integer, as the published JSON Schema's "integer" says (4.0 is 4).
    for good in ('{"time_limit": 30}', '{"time_limit": 30.5}', '{"time_limit": null}', '{"players": 3.0}'):
        assert raw_post(client, "/api/tables", good).status_code == 201, good
        assert raw_post(client, "/api/solo", good).status_code == 201, good
    table_id = client.post("/api/tables", json={"players": 3}).json()["table"]["id"]
    for body in ('{"seat": 1.5}', '{"seat": "1"}', '{"seat": true}', '{"name": "\\ud800"}'):
        assert raw_post(client, f"/api/tables/{table_id}/join", body).status_code == 400, body
    joined = raw_post(client, f"/api/tables/{table_id}/join", '{"seat": 1.0}')
    assert joined.status_code == 200 and joined.json()["seat"] == 1, joined.text
    for body in ('{"token": "\\ud800"}', '{"token": 5}'):
        assert raw_post(client, f"/api/tables/{table_id}/leave", body).status_code == 400, body
    for body in ('{"creator_token": "\\udc00"}', '{"creator_token": "x", "memory_aid": 0}'):
        assert raw_post(client, f"/api/tables/{table_id}/settings", body).status_code == 400, body
    assert client.get(f"/api/tables/{table_id}").json()["table"]["open_seats"] == [0, 2]


def test_a_refused_rules_object_is_explained_in_the_fields_own_names(client: TestClient) -> None:
    """Only the form of ``rules`` the body used is judged, and the message names fields, not validator internals."""
    for rules, expected in (
        ({"starting_coins": 5000, "removed": 2}, "rules.starting_coins: Input should be less than or equal to 100"),
        ({"starting_coins": 18, "removed": 30}, "rules.removed: Input should be less than or equal to 29"),
        ({"starting_coins": 18, "removed": 2, "extra": 1}, "rules.extra: Extra inputs are not permitted"),
        (5, "rules: Input should be a valid string"),
    ):
        for path in ("/api/tables", "/api/solo"):
            refused = client.post(path, json={"players": 4, "rules": rules})
            assert refused.status_code == 400, refused.text
            assert refused.json()["error"] == {"code": "bad_request", "message": expected}


name: TypeAdapter[str] = TypeAdapter(Name)


def _plain_accepts(text: str) -> bool:
    try:
        name.validate_python(text)
    except ValidationError:
        return False
    return True


def test_the_schemas_name_pattern_says_exactly_which_single_characters_a_name_refuses() -> None:
    """The OpenAPI pattern is what clients and fuzzers read: a name it admits must not be refused (a 400)."""
    pattern = re.compile(NAME_PATTERN)
    for code in range(0x30000):
        ch = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue  # lone surrogates are not text: refused by the type before any pattern
        assert bool(pattern.fullmatch(ch)) == _plain_accepts(ch), (hex(code), ch)


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_the_schemas_name_pattern_agrees_with_the_check_in_words(text: str) -> None:
    assume(not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text))
    assert bool(re.fullmatch(NAME_PATTERN, text)) == _plain_accepts(text)
