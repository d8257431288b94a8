"""Hostile request bodies over a real uvicorn server: deep nesting, endless chunked bodies.

A body the JSON decoder gives up on (1,000 nested ``[`` overflow its
recursion limit) is a 400 like any other bad JSON, and the keep-alive
connection carries on. A body sent in chunks, with no ``Content-Length`` to
refuse it by, is cut off with a 413 as soon as it passes the limit.
"""

from __future__ import annotations

import select
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.http.schemas import MAX_MESSAGE_BYTES

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


def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit(serve: Any, tmp_path: Path) -> None:
    server = serve(f"sqlite:///{tmp_path / 'chunked.sqlite3'}", tmp_path).start()
    chunk = b"[" * 8192
    framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        sock.setblocking(False)
        sent, answer, pending = 0, b"", b""
        deadline = time.monotonic() + 30
        # Offer up to 4 MiB, never the final chunk: the answer must come while the body is still unfinished.
        while time.monotonic() < deadline and b"\r\n\r\n" not in answer:
            readable, writable, _ = select.select([sock], [sock] if sent < 4 << 20 else [], [], 1)
            if readable:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
            elif writable:
                pending = pending or framed
                try:
                    done = sock.send(pending)
                except (BlockingIOError, ConnectionError):
                    continue
                sent, pending = sent + done, pending[done:]
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b"connection: close" in answer.lower()  # the rest of the body is never read
        assert sent > MAX_MESSAGE_BYTES


def test_a_chunked_body_gets_the_error_envelope(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'envelope.sqlite3'}")) as client:
        typed = {"Content-Type": "application/json"}
        answer = client.post("/api/tables", content=iter([b"[" * 8192] * 100), headers=typed)  # chunks: no length
        assert answer.status_code == 413
        assert answer.json()["error"]["code"] == "too_large"
        assert client.post("/api/tables", content=iter([b'{"players": ', b"3}"]), headers=typed).status_code == 201


def test_every_answer_forbids_framing_and_sniffing(tmp_path: Path) -> None:
    from forsale.server.app import SECURITY_HEADERS

    with TestClient(create_app(f"sqlite:///{tmp_path / 'headers.sqlite3'}")) as client:
        answers = [
            client.get("/"),  # the page
            client.get("/api/health"),
            client.get("/api/tables/nope"),  # 404
            client.post("/api/tables", content="{", headers={"Content-Type": "application/json"}),  # 400
            client.post("/api/tables", content="x" * 70_000),  # 413, from the size limit
        ]
        for answer in answers:
            for name, value in SECURITY_HEADERS:
                assert answer.headers[name.decode()] == value.decode(), (answer.request.url, answer.status_code)
        assert [a.status_code for a in answers] == [200, 200, 404, 400, 413]
