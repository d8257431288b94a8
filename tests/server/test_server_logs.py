"""Tracebacks only for our own bugs: bad input is one short line in the log, rate-limited, never a traceback.

Every failure of the hostile-input attack used to write a full traceback, and
so did a client hanging up halfway through its request body: anyone could
fill the server's log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from forsale.server.ops.badinput import BadInputLog

pytestmark = pytest.mark.timeout(120)

JSON = {"Content-Type": "application/json"}
"""A body of another type is refused before it is read (415): these bodies are meant to reach the JSON decoder."""


def test_each_kind_logs_a_few_lines_a_minute_then_a_count(caplog: pytest.LogCaptureFixture) -> None:
    now = [1000.0]
    notes = BadInputLog(logging.getLogger("forsale.test.badinput"), per_minute=3, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="forsale.test.badinput"):
        for i in range(10):
            notes.note("bad_json", f"from 10.0.0.{i}: not JSON " + "x" * 500)
        notes.note("too_large", "a big one")
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) == 4 and all(len(line) < 200 for line in lines)
        assert lines[:3] == [
            f"bad input (bad_json): {(f'from 10.0.0.{i}: not JSON ' + 'x' * 500)[:160]}" for i in range(3)
        ]
        assert lines[3] == "bad input (too_large): a big one"
        now[0] += 60  # a new minute: first the count of what was left out, then lines again
        notes.note("bad_json", "again")
        assert [r.getMessage() for r in caplog.records][4:] == [
            "bad input (bad_json): 7 more in the minute before, not logged",
            "bad input (bad_json): again",
        ]
        assert not any(r.exc_info for r in caplog.records)


def test_a_real_server_logs_bad_input_in_short_lines_and_no_tracebacks(serve: Any, tmp_path: Path) -> None:
    server = serve(f"sqlite:///{tmp_path / 'logs.sqlite3'}", tmp_path).start()
    with httpx.Client(base_url=server.base) as http:
        table_id = http.post("/api/tables", json={"players": 3}).json()["table"]["id"]
        for path in ("/api/tables", "/api/solo", f"/api/tables/{table_id}/join"):
            for _ in range(10):
                assert http.post(path, content=b"[" * 1000, headers=JSON).status_code == 400
                assert http.post(path, json={"players": "3", "seat": "x"}).status_code == 400
        assert http.post("/api/tables", content=iter([b"[" * 8192] * 20), headers=JSON).status_code == 413
    for _ in range(5):  # hang up halfway through a request body
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            head = b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n"
            sock.sendall(head + b"\r\n" + b"{" * 10)

    async def hostile_socket() -> None:
        async with connect(f"{server.ws}/ws/tables/{table_id}") as ws:
            for i in range(15):  # within the rate limit's burst
                await ws.send(json.dumps({"type": "ping", "id": 2**64 + i}))
                await ws.send("not json")
            answers = [json.loads(await ws.recv()) for _ in range(30)]
            assert {a["code"] for a in answers} == {"bad_message", "bad_json"}

    asyncio.run(hostile_socket())
    deadline = time.monotonic() + 30  # the hang-ups are noticed by the server in its own time: wait for them
    while "bad input (disconnected)" not in server.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = server.log.read_text()
    assert "Traceback" not in log and "Exception in ASGI application" not in log, log[-3000:]
    lines = [line[line.index("bad input (") :] for line in log.splitlines() if "bad input (" in line]  # past "WARNING:"
    kinds = {line.split(")")[0] + ")" for line in lines}
    assert kinds >= {
        f"bad input ({k})" for k in ("bad_json", "bad_request", "too_large", "bad_message", "disconnected")
    }
    for kind in kinds:
        assert sum(line.startswith(kind) for line in lines) <= 10, kind  # 15 to 60 of each kind were sent
    assert all(len(line) < 250 for line in lines)
