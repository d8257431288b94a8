"""Whose address a request comes from: the connection's, unless ``--trusted-proxy`` names the proxy in front.

uvicorn on its own believes ``X-Forwarded-For`` from 127.0.0.1, so a client
on the server's own machine could claim a new address with every request
and never meet a per-address limit (wrong passwords, sign-ups, POST rates).
"""

from __future__ import annotations

import httpx


def wrong_sign_ins(base: str, count: int) -> list[int]:
    with httpx.Client(base_url=base, timeout=30) as http:
        return [
            http.post(
                "/api/signin",
                json={"name": f"nobody{i // 4}", "password": "guessing"},
                headers={"X-Forwarded-For": f"10.0.{i // 250}.{i % 250}"},
            ).status_code
            for i in range(count)
        ]


def test_a_forwarded_for_header_is_not_believed_by_default(serve, tmp_path):
    server = serve(f"sqlite:///{tmp_path / 'proxy.sqlite3'}", tmp_path).start()
    codes = wrong_sign_ins(server.base, 22)
    assert codes[:20] == [401] * 20 and codes[20:] == [429, 429]  # 20 a minute from one address, whatever it says


def test_a_trusted_proxy_names_the_client(serve, tmp_path):
    server = serve(f"sqlite:///{tmp_path / 'proxy.sqlite3'}", tmp_path, "--trusted-proxy", "127.0.0.1").start()
    assert wrong_sign_ins(server.base, 22) == [401] * 22  # each request from the address the proxy reports


def test_one_address_holds_a_bounded_number_of_websockets(serve, tmp_path):
    import contextlib
    import json

    from websockets.sync.client import connect

    server = serve(f"sqlite:///{tmp_path / 'proxy.sqlite3'}", tmp_path, "--sockets-per-address", "3").start()
    table = httpx.post(server.base + "/api/tables", json={"players": 2}).json()["table"]["id"]
    url = f"{server.ws}/ws/tables/{table}"
    with contextlib.ExitStack() as stack:
        held = [stack.enter_context(connect(url)) for _ in range(2)]
        with connect(url), connect(url) as fourth:
            refused = json.loads(fourth.recv(timeout=10))
            assert refused["type"] == "error" and refused["code"] == "too_many_connections"
        with connect(url) as again:  # one gone, one may come
            again.send(json.dumps({"type": "hello"}))
            assert json.loads(again.recv(timeout=10))["type"] == "welcome"
        assert len(held) == 2
