"""Every ``/api/`` error has the documented envelope, ``HEAD`` works, and odd table ids get the not-found close.

Unknown paths and wrong methods used to answer FastAPI's ``{"detail": ...}``,
``HEAD /api/health`` was a 404, and a table id holding an encoded slash
(``%2F``) missed the WebSocket endpoint and was refused with a bare 403.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from forsale.server import create_app

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'envelope.sqlite3'}")) as client:
        yield client


def envelope(response: object, status: int, code: str) -> None:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    body = response.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code and body["error"]["message"], body


def test_unknown_paths_and_wrong_methods_under_api_get_the_envelope(client: TestClient) -> None:
    table_id = client.post("/api/tables", json={"players": 3}).json()["table"]["id"]
    for path in ("/api/nope", "/api/", "/api/tables/x/y/z", f"/api/tables/{table_id}/nope"):
        envelope(client.get(path), 404, "not_found")
        envelope(client.post(path, json={}), 404, "not_found")
    for method, path in (
        ("POST", "/api/health"),
        ("DELETE", "/api/tables"),
        ("PUT", f"/api/tables/{table_id}/join"),
        ("PATCH", f"/api/tables/{table_id}"),
        ("GET", f"/api/tables/{table_id}/join"),
    ):
        answer = client.request(method, path)
        envelope(answer, 405, "method_not_allowed")
        assert answer.headers["allow"]
    # the web page's own 404s are not the API's business
    assert client.get("/no-such-page.html").status_code == 404


def test_head_answers_like_get_without_a_body(client: TestClient) -> None:
    for path in ("/api/health", "/api/bots", "/api/tables"):
        head, get = client.head(path), client.get(path)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["content-type"] == get.headers["content-type"] == "application/json"
    envelope(client.get("/api/tables/nope"), 404, "not_found")
    assert client.head("/api/tables/nope").status_code == 404


def test_an_encoded_slash_in_a_table_id_is_a_table_not_found(client: TestClient) -> None:
    for path in ("/ws/tables/a%2Fb", "/ws/tables/a/b", "/ws/tables/", "/ws/tables/" + "x" * 500):
        with client.websocket_connect(path) as ws:
            message = ws.receive_json()
            assert (message["type"], message["code"]) == ("error", "not_found"), (path, message)
            assert len(message["message"]) < 100
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404
