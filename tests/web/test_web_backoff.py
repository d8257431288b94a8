"""The page's reconnections back off with jitter, and a page refused for too many sockets waits as it is told.

A page whose socket was opened and then refused (``too_many_connections``:
this address holds as many as the server allows) used to try again every
300 ms for ever, since an opened socket reset its backoff. Now the backoff
resets only once the server welcomes the connection, and a refusal's
``retry_after`` is the least it waits. (The pauses themselves, a pure function, are tests/js/socket.test.mjs's.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

RETRY_AFTER = 2
"""The server's ``--sockets-retry-after`` here: long enough that a page which ignored it would retry within it
(the backoff's first pauses are well under a second), short enough not to hold the suite for the default 10 s."""


def test_a_page_refused_for_too_many_sockets_waits_as_told_then_connects(
    new_page: Any, serve_process: Any, tmp_path: Path
) -> None:
    server = serve_process(
        f"sqlite:///{tmp_path / 'backoff.sqlite3'}",
        tmp_path,
        "--sockets-per-address",
        "1",
        "--sockets-retry-after",
        str(RETRY_AFTER),
    ).start()
    try:
        table = httpx.post(server.base + "/api/tables", json={"players": 2}).json()["table"]["id"]
        with connect(f"{server.ws}/ws/tables/{table}") as held:  # the address's one socket
            held.send(json.dumps({"type": "hello"}))
            assert json.loads(held.recv(timeout=20))["type"] == "welcome"
            page = new_page()
            page.goto(f"{server.base}/")
            page.evaluate(
                """async (table) => {
                  const { Connection } = await import('/js/socket.js');
                  window.attempts = [];
                  window.heard = [];
                  window.conn = new Connection(table, null, {
                    onMessage: (m) => heard.push(m.type === 'error' ? `${m.code} ${m.params?.retry_after}` : m.type),
                    onStatus: (s) => { if (s === 'connecting') attempts.push(performance.now()); heard.push(s); },
                  });
                  conn.open();
                }""",
                table,
            )
            page.wait_for_function("() => heard.includes('lost')")
            held.close()  # the slot is free at once: a page that hammered would be back within a second
            page.wait_for_function("() => heard.includes('welcome')", timeout=60_000)
            heard, attempts = page.evaluate("() => [heard, attempts]")
            assert heard[:4] == ["connecting", "open", f"too_many_connections {RETRY_AFTER}", "lost"]
            assert heard[4:6] == ["connecting", "open"] and "welcome" in heard[6:]
            assert len(attempts) == 2 and attempts[1] - attempts[0] >= RETRY_AFTER * 1000
        page.evaluate("() => conn.close()")
        page.close()  # before the server stops: the lobby it shows would log its failed requests
    finally:
        server.stop()
