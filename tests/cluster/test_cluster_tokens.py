"""A password change handled by one node ends the account's seat and creator tokens at every node's tables.

Each node holds its tables' token hashes in memory; the node that handles the change tells the others
(``NOTIFY``), which end the account's tokens at the tables they hold and tell the sockets seated with them.
Before, only the handling node's tables were swept: a thief's token at another node's table kept playing.
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx
from websockets.sync.client import connect

from ..server.realws import hello, recv_until

PASSWORD = "correct horse battery staple"


def test_a_password_change_on_one_node_ends_the_tokens_at_another_nodes_tables(cluster: Any) -> None:
    n1, n2 = cluster.by_name["n1"], cluster.by_name["n2"]
    with httpx.Client(base_url=n1.base, timeout=30) as owner:
        signed = owner.post("/api/signup", json={"name": f"Tok{secrets.token_hex(3)}", "password": PASSWORD})
        assert signed.status_code == 201, signed.text
        # A thief's copy of the session makes a table on n2 (which holds it) and sits there.
        with httpx.Client(base_url=n2.base, cookies=dict(owner.cookies), timeout=30) as thief:
            made = thief.post("/api/tables", json={"players": 2, "join": True, "invite_only": True}).json()
            table_id, token, creator = made["table"]["id"], made["token"], made["creator_token"]
            assert cluster.owners()[table_id][0] == "n2"
            with connect(f"ws://127.0.0.1:{n2.port}/ws/tables/{table_id}", open_timeout=30) as ws:
                assert hello(ws, token)["seat"] == 0
                changed = owner.post("/api/me/password", json={"old_password": PASSWORD, "new_password": "new one!"})
                assert changed.status_code == 200, changed.text
                cut = recv_until(ws, lambda m: m["type"] == "error")
                assert cut["code"] == "bad_token" and cut["params"]["why"] == "password_changed", cut
            with connect(f"ws://127.0.0.1:{n2.port}/ws/tables/{table_id}", open_timeout=30) as again:
                assert hello(again, token)["code"] == "bad_token"
            refused = thief.post(f"/api/tables/{table_id}/invite", json={"creator_token": creator})
            assert refused.status_code == 403, refused.text
        # The owner's new session (from n1's answer) takes the seat and the creator's rights back on n2.
        with httpx.Client(base_url=n2.base, cookies=dict(owner.cookies), timeout=30) as back:
            resumed = back.post(f"/api/tables/{table_id}/resume", json={})
            assert resumed.status_code == 200, resumed.text
            fresh = resumed.json()
            assert back.post(
                f"/api/tables/{table_id}/invite", json={"creator_token": fresh["creator_token"]}
            ).is_success
            with connect(f"ws://127.0.0.1:{n2.port}/ws/tables/{table_id}", open_timeout=30) as ws:
                assert hello(ws, fresh["token"])["seat"] == 0


def test_revoking_an_api_token_on_one_node_ends_the_bots_seat_tokens_at_another_nodes_tables(cluster: Any) -> None:
    """A revoked API token could have taken the bot's seats: its seat tokens end at every node's tables, and the
    socket seated with one is told why (``token_revoked``)."""
    n1, n2 = cluster.by_name["n1"], cluster.by_name["n2"]
    with httpx.Client(base_url=n1.base, timeout=30) as bot, httpx.Client(base_url=n2.base, timeout=30) as bob:
        bot_name = f"Bot{secrets.token_hex(3)}"
        assert bot.post("/api/signup", json={"name": bot_name, "password": PASSWORD}).status_code == 201
        assert bot.post("/api/me/bot", json={"password": PASSWORD}).status_code == 200
        made = bot.post("/api/me/tokens", json={"name": "laptop", "password": PASSWORD}).json()
        assert bob.post("/api/signup", json={"name": f"Bob{secrets.token_hex(3)}", "password": PASSWORD}).is_success
        challenge = bob.post("/api/challenges", json={"bot": bot_name, "players": 2}).json()["challenge"]
        api = {"Authorization": f"Bearer {made['token']}"}
        accepted = httpx.post(f"{n2.base}/api/bot/challenges/{challenge['id']}/accept", json={}, headers=api)
        table_id = accepted.json()["challenge"]["table"]
        holder = cluster.by_name[cluster.owners()[table_id][0]]
        other = n1 if holder is n2 else n2  # the revocation is handled by a node that does not hold the table
        seat = httpx.post(f"{holder.base}/api/bot/tables/{table_id}/seat", json={}, headers=api).json()
        with connect(f"ws://127.0.0.1:{holder.port}/ws/tables/{table_id}", open_timeout=30) as ws:
            assert hello(ws, seat["token"])["seat"] == seat["seat"]
            with httpx.Client(base_url=other.base, cookies=dict(bot.cookies), timeout=30) as owner:
                assert owner.delete(f"/api/me/tokens/{made['id']}").json() == {"revoked": made["id"]}
            cut = recv_until(ws, lambda m: m["type"] == "error")
            assert cut["code"] == "bad_token" and cut["params"]["why"] == "token_revoked", cut
        with connect(f"ws://127.0.0.1:{holder.port}/ws/tables/{table_id}", open_timeout=30) as again:
            assert hello(again, seat["token"])["code"] == "bad_token"
