"""PostgreSQL stopped under a running node: clients get a retryable ``unavailable`` with their id; the log stays short.

A restart of the database used to write hundreds of tracebacks and answer
players with an ``internal`` error that carried no ``id`` (a client written
from the protocol waited for its answer forever). Here a real
``forsale serve --cluster`` node runs on a PostgreSQL of the test's own, which
is stopped (``pg_ctl stop -m fast``) while a player is at its turn and started
again: every action sent meanwhile is answered ``unavailable`` with its id,
REST answers 503 with ``Retry-After``, the game goes on afterwards, and the
node's log says the outage in two lines.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from harness.cluster import Node
from harness.db import postgres_bin
from harness.serve import free_port

from .players import choose

pytestmark = pytest.mark.timeout(180)


class Postgres:
    """A PostgreSQL cluster of this test's own, to stop and start (as ``postgres`` when run as root)."""

    def __init__(self, base: Path) -> None:
        bindir = postgres_bin()
        if bindir is None:
            pytest.skip("PostgreSQL is not installed")
        self.bindir, self.base, self.data = bindir, base, base / "data"
        self.port = free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(base, "postgres", "postgres")
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run([*self.prefix, str(self.bindir / tool), *args], check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.base / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")


@pytest.fixture
def own_postgres() -> Iterator[Postgres]:
    pg = Postgres(Path(tempfile.mkdtemp(prefix="forsale-outage-pg-")))
    pg.start()
    try:
        yield pg
    finally:
        with_error = subprocess.run([*pg.prefix, str(pg.bindir / "pg_ctl"), "-D", str(pg.data), "-m", "immediate", "stop"],
                                    capture_output=True)  # fmt: skip
        del with_error
        shutil.rmtree(pg.base, ignore_errors=True)


def answer_to(ws: ClientConnection, msg_id: str) -> dict[str, Any]:
    """Read until the ack or error that answers ``msg_id`` (snapshots and other news are passed over)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(30))
        if message["type"] in ("ack", "error") and message.get("id") == msg_id:
            return message
        assert not (message["type"] == "error" and message.get("id") is None), message  # an answer without its id
    raise AssertionError(f"no answer to {msg_id}")


def my_turn(ws: ClientConnection) -> dict[str, Any]:
    """Read until a snapshot in which seat 0 (ours) is to act: its view."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        message = json.loads(ws.recv(30))
        if message["type"] in ("welcome", "state") and 0 in message["view"]["to_act"]:
            return dict(message["view"])
    raise AssertionError("our turn never came")


def test_a_database_outage_is_answered_unavailable_with_the_id_and_logged_in_two_lines(
    own_postgres: Postgres, tmp_path: Path
) -> None:
    node = Node("n1", free_port(), own_postgres.url, tmp_path, 10.0, ["--bot-delay", "0.05"])
    try:
        node.start(90)
        base = node.base
        solo = httpx.post(f"{base}/api/solo", json={"players": 3, "bot": "random"}, timeout=30)
        assert solo.status_code == 201, solo.text
        table, token = solo.json()["table"]["id"], solo.json()["token"]
        rng = random.Random(1)
        with connect(f"ws://127.0.0.1:{node.port}/ws/tables/{table}", open_timeout=30) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            view = my_turn(ws)
            logged_before = len(node.log.read_text())
            own_postgres.stop()
            started = time.monotonic()
            for i in range(5):  # what a client retrying on its own would send, within the lease time
                ws.send(json.dumps({"type": "act", "action": choose(view, rng), "id": f"outage-{i}"}))
                answer = answer_to(ws, f"outage-{i}")
                assert answer["type"] == "error" and answer["code"] == "unavailable", answer
                ws.send(json.dumps({"type": "leave", "id": f"leave-{i}"}))  # a write outside the game's moves
                answer = answer_to(ws, f"leave-{i}")
                assert answer["type"] == "error" and answer["code"] == "unavailable", answer
                made = httpx.post(f"{base}/api/solo", json={"players": 3}, timeout=30)
                assert made.status_code == 503 and made.json()["error"]["code"] == "unavailable", made.text
                assert int(made.headers["Retry-After"]) > 0
                time.sleep(0.3)
            assert time.monotonic() - started < 8  # well within the 10 s lease: the node keeps its table
            own_postgres.start()
            deadline = time.monotonic() + 60
            attempt = 0
            while True:  # the same action again until the database answers: then it is applied, once
                attempt += 1
                ws.send(json.dumps({"type": "act", "action": choose(view, rng), "id": f"after-{attempt}"}))
                answer = answer_to(ws, f"after-{attempt}")
                if answer["type"] == "ack":
                    break
                assert answer["code"] == "unavailable" and time.monotonic() < deadline, answer
                time.sleep(0.2)
        # The node carries on: a new table can be made and played.
        again = httpx.post(f"{base}/api/solo", json={"players": 3, "bot": "random"}, timeout=30)
        assert again.status_code == 201, again.text
        log = node.log.read_text()[logged_before:]
        assert "Traceback" not in log and "Exception in ASGI" not in log, log[-3000:]
        lines = [line for line in log.splitlines() if line.strip()]
        assert sum("database unavailable" in line for line in lines) == 1, log[-3000:]
        assert sum("database available again" in line for line in lines) == 1, log[-3000:]
        assert len(lines) <= 4, log[-3000:]  # the outage in two lines (and room for a takeover's note)
    finally:
        node.stop()
