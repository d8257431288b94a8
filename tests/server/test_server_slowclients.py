"""Slow clients (slowloris) against a real ``forsale serve``: cut off after seconds, while others are served.

One test, about 11 s: every slow kind at once, with a WebSocket that must
outlive the same deadline and a quick client served all along.
"""

from __future__ import annotations

import json
import socket
import time

import httpx
from websockets.sync.client import connect

from forsale.server.app import BODY_PAUSE_SECONDS
from forsale.server.ops.slowclients import HEAD_SECONDS


def closed_within(sock: socket.socket, seconds: float, until: bytes | None = None) -> tuple[bool, bytes]:
    """Whether the server closed ``sock`` within ``seconds`` (or said ``until``), and what it said before that."""
    sock.settimeout(0.5)
    said = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except TimeoutError:
            continue
        except ConnectionResetError:
            return True, said
        if not chunk:
            return True, said
        said += chunk
        if until is not None and until in said:
            return False, said
    return False, said


def test_slow_clients_are_cut_off_and_nobody_else_waits(serve, tmp_path):
    server = serve(f"sqlite:///{tmp_path / 'slow.sqlite3'}", tmp_path).start()
    table = httpx.post(server.base + "/api/tables", json={"players": 2}).json()["table"]["id"]
    with connect(f"{server.ws}/ws/tables/{table}") as watcher:
        watcher.send(json.dumps({"type": "hello"}))
        silent = socket.create_connection(("127.0.0.1", server.port))
        trickle = socket.create_connection(("127.0.0.1", server.port))
        trickle.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        stalled = socket.create_connection(("127.0.0.1", server.port))
        stalled.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b'Content-Length: 100\r\n\r\n{"players": '
        )
        assert httpx.get(server.base + "/api/health", timeout=5).status_code == 200  # meanwhile, others are served
        wait = max(HEAD_SECONDS, BODY_PAUSE_SECONDS) + 5
        results = {name: closed_within(sock, wait) for name, sock in [("silent", silent), ("trickle", trickle)]}
        assert results == {"silent": (True, b""), "trickle": (True, b"")}
        answer = closed_within(stalled, 5, until=b"too_slow")[1]
        assert answer.startswith(b"HTTP/1.1 408") and b"too_slow" in answer, answer
        watcher.send(json.dumps({"type": "ping", "id": 1}))  # an upgraded WebSocket is not a slow request
        deadline = time.monotonic() + 10
        while (message := json.loads(watcher.recv(timeout=10)))["type"] != "pong":
            assert time.monotonic() < deadline
        assert message["id"] == 1
    for sock in (silent, trickle, stalled):
        sock.close()
