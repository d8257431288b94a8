"""Hostile request bodies over a real uvicorn server: deep nesting, endless chunked bodies.

A body the JSON decoder gives up on (1,000 nested ``[`` overflow its
recursion limit) is a 400 like any other bad JSON, and the keep-alive
connection carries on. A body sent in chunks, with no ``Content-Length`` to
refuse it by, is cut off with a 413 as soon as it passes the limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.timeout(120)


def local_port(response: httpx.Response) -> int:
    """The client-side port of the connection that carried ``response`` (the same port: the same connection)."""
    return int(response.extensions["network_stream"].get_extra_info("client_addr")[1])


def test_deeply_nested_json_is_a_400_and_the_connection_lives_on(serve: Any, tmp_path: Path) -> None:
    server = serve(f"sqlite:///{tmp_path / 'nested.sqlite3'}", tmp_path).start()
    nested = b"[" * 1000 + b"]" * 1000  # 2 KB
    with httpx.Client(base_url=server.base, limits=httpx.Limits(max_connections=1)) as http:
        table_id = http.post("/api/tables", json={"players": 3}).json()["table"]["id"]
        first = http.get("/api/health")
        for path in ("/api/tables", "/api/solo", f"/api/tables/{table_id}/join"):
            for body in (nested, b"[" * 1000, b'{"a":' * 1000):
                answer = http.post(path, content=body, headers={"content-type": "application/json"})
                assert answer.status_code == 400, (path, answer.text)
                assert answer.json()["error"]["code"] == "bad_json"
                assert local_port(answer) == local_port(first)  # kept alive
        last = http.get("/api/health")
        assert last.status_code == 200 and local_port(last) == local_port(first)
