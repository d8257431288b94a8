"""What the private-table, chat, rematch and WebSocket-security tests share (a helper module, not a test file).

Everything goes through the real app over HTTP and WebSockets (Starlette's
TestClient runs it in-process, with a real cookie jar and a real database).
"""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient

PASSWORD = "correct horse battery staple"
SAME = {"Origin": "http://testserver"}
QUIET = ("table", "chat_history", "rematch", "chat")
"""Messages a game-playing helper skips while it waits for acknowledgements and states."""


def sign_up(client: TestClient, name: str) -> dict[str, Any]:
    response = client.post("/api/signup", json={"name": name, "password": PASSWORD}, headers=SAME)
    assert response.status_code == 201, response.text
    return response.json()["account"]


def code_of(response: Any) -> str:
    return response.json()["error"]["code"]


def next_of(ws: Any, *types: str, skip: tuple[str, ...] = QUIET) -> dict[str, Any]:
    """The next message of one of ``types``; the ``skip`` kinds are passed over, anything else fails."""
    while True:
        message = ws.receive_json()
        if message["type"] in types:
            return message
        assert message["type"] in skip, message


def hello(ws: Any, token: str | None = None, invite: str | None = None) -> dict[str, Any]:
    """Say hello; returns the welcome (a chat history, sent where someone wrote, is left for next_of to skip)."""
    ws.send_json({"type": "hello", "token": token, "invite": invite})
    return next_of(ws, "welcome")


def safe_move(view: dict[str, Any]) -> dict[str, Any]:
    """Pass in an auction, sell the lowest house in a sale: the quickest way to the end."""
    if view["phase"] == "auction":
        return {"pass": True}
    return {"sell": min(view["hands"][view["seat"]])}


def play_out(wss: dict[int, Any], views: dict[int, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Play a game of people only (one connection per seat, each welcomed) to its end; the last views.

    Every action is sent to every connection, in order, so each connection is
    read exactly once per action: no waiting on time.
    """
    latest = dict(views)
    n = 0
    while next(iter(latest.values()))["phase"] != "over":
        seat = next(s for s in wss if latest[s]["legal"])
        n += 1
        wss[seat].send_json({"type": "act", "action": safe_move(latest[seat]), "id": n})
        assert next_of(wss[seat], "ack")["id"] == n
        for s, ws in wss.items():
            latest[s] = next_of(ws, "state")["view"]
    return latest


def two_seat_table(client: TestClient, **options: Any) -> tuple[str, str, str, dict[str, Any]]:
    """A table of two people, both seats taken (the game has started): ``(id, token 0, token 1, creation answer)``."""
    created = client.post("/api/tables", json={"players": 2, "join": True, **options}, headers=SAME).json()
    table_id = created["table"]["id"]
    join: dict[str, Any] = {"invite": created["invite"]} if "invite" in created else {}
    joined = client.post(f"/api/tables/{table_id}/join", json=join, headers=SAME)
    assert joined.status_code == 200, joined.text
    return table_id, created["token"], joined.json()["token"], created
