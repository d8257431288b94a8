"""A dropped connection takes a person out of quick pairing (a real ``forsale serve`` over real TCP).

The page keeps one long poll of its notices open while it waits; that open poll is what renews the person's place
(:mod:`forsale.server.lobby.pairing`). Here the poll's connection is cut (a closed tab, a lost network): the server
sees the disconnect within a second, stops renewing, and the place lapses within the 6 s a place lives unrenewed.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from forsale.server.people.sessions import COOKIE

pytestmark = pytest.mark.timeout(60)

PASSWORD = "correct horse battery staple"


def test_a_cut_connection_leaves_the_queue_within_seconds(serve: Any, tmp_path: Path) -> None:
    server = serve(f"sqlite:///{tmp_path / 'presence.sqlite3'}", tmp_path).start()
    with httpx.Client(base_url=server.base, headers={"Origin": server.base}, timeout=30) as http:
        assert http.post("/api/signup", json={"name": "Cut", "password": PASSWORD}).status_code == 201
        assert http.post("/api/pairing", json={"players": 3}).status_code == 201
        session = http.cookies[COOKIE]
    with httpx.Client(base_url=server.base, timeout=30) as guest:  # a guest's look: it renews nobody

        def waiting() -> int:
            return int(guest.get("/api/pairing").json()["counts"]["waiting"])

        with socket.create_connection(("127.0.0.1", server.port)) as poll:  # the page's long poll, by hand
            poll.sendall(
                f"GET /api/me/notices?wait=25 HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                f"Cookie: {COOKIE}={session}\r\n\r\n".encode()
            )
            time.sleep(1.0)  # the poll is read and waits (that it renews the place: test_server_pairing.py)
            assert waiting() == 1
        cut = time.monotonic()  # the tab is closed: the connection goes, with no goodbye
        while waiting() and time.monotonic() - cut < 30:
            time.sleep(0.2)
        assert waiting() == 0
        assert time.monotonic() - cut < 18  # the disconnect seen in ~1 s, the place lapsed 6 s later; not the 25 s
        # the poll would have renewed it for (and 6 more) had the server not seen its client go
