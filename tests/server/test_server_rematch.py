"""Rematches over real WebSockets and REST, on a SQLite file and on PostgreSQL.

After a game, an offer starts a new table once every person has accepted
(bots at once): the same settings, privacy and creator, a new deal, each seat
moved one on, and each player's new token delivered to that player only.
A declined or expired offer says so to everyone at the table.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale.server import create_app

from .social import SAME, code_of, hello, next_of, play_out, sign_up, two_seat_table

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


def finished_pair(client: TestClient, **options: Any) -> tuple[str, str, str, dict[str, Any]]:
    table_id, token0, token1, created = two_seat_table(client, **options)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as a,
        client.websocket_connect(f"/ws/tables/{table_id}") as b,
    ):
        play_out({0: a, 1: b}, {0: hello(a, token0)["view"], 1: hello(b, token1)["view"]})
    return table_id, token0, token1, created


def test_a_rematch_starts_when_both_accept_with_the_seats_rotated(client: TestClient) -> None:
    sign_up(client, "Ann")
    options = {"invite_only": True, "time_limit": 45, "memory_aid": False, "spectator_chat": True, "name": "Friday"}
    table_id, token0, token1, created = finished_pair(client, **options)
    ann = dict(client.cookies)
    client.cookies.clear()  # the connections below are guests (a signed-in hello would take Ann's seat)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as a,
        client.websocket_connect(f"/ws/tables/{table_id}") as b,
        client.websocket_connect(f"/ws/tables/{table_id}") as watcher,
    ):
        hello(a, token0)
        hello(b, token1)
        hello(watcher, invite=created["invite"])
        a.send_json({"type": "rematch", "id": "r1"})
        offered = next_of(a, "rematch", skip=("table",))
        assert offered["id"] == "r1" and offered["rematch"]["status"] == "offered"
        assert offered["rematch"]["by"] == 0 and offered["rematch"]["waiting"] == [1]
        for ws in (b, watcher):
            assert next_of(ws, "rematch", skip=("table",))["rematch"]["waiting"] == [1]
        accepted = client.post(f"/api/tables/{table_id}/rematch", json={"token": token1}, headers=SAME)
        assert accepted.status_code == 200, accepted.text
        started = {
            name: next_of(ws, "rematch", skip=("table",))["rematch"]
            for name, ws in (("a", a), ("b", b), ("w", watcher))
        }
    assert started["a"]["status"] == "started" and started["a"]["table"] == started["w"]["table"]
    assert (started["a"]["seat"], started["b"]["seat"]) == (1, 0)  # seat 0 moved to 1, seat 1 to 0
    assert "token" not in started["w"] and started["a"]["token"] != started["b"]["token"]
    assert accepted.json()["rematch"]["token"] == started["b"]["token"]  # the REST answer carries it too
    new_id = started["a"]["table"]
    assert new_id != table_id
    client.cookies.update(ann)
    assert client.get(f"/api/tables/{new_id}").status_code == 200  # Ann's session holds a seat there
    client.cookies.clear()
    assert code_of(client.get(f"/api/tables/{new_id}")) == "private_table"  # still invitation-only ...
    info = client.get(f"/api/tables/{new_id}", params={"invite": created["invite"]}).json()["table"]  # ... same code
    assert info["status"] == "playing" and info["name"] == "Friday" and info["time_limit"] == 45
    assert info["memory_aid"] is False and info["spectator_chat"] is True
    assert [s["kind"] for s in info["seats"]] == ["human", "human"]
    again = client.get(f"/api/tables/{table_id}/rematch", params={"token": token0}).json()["rematch"]
    assert again["seat"] == 1 and again["token"] == started["a"]["token"]
    settings = {"creator_token": created["creator_token"], "memory_aid": True}
    assert client.post(f"/api/tables/{new_id}/settings", json=settings).status_code == 200  # the same creator
    with client.websocket_connect(f"/ws/tables/{new_id}") as ws:
        assert hello(ws, started["a"]["token"])["seat"] == 1
    old_token = client.get(f"/api/tables/{new_id}/view", params={"token": token0})
    assert code_of(old_token) in ("bad_token", "private_table")


def test_bots_accept_at_once(client: TestClient) -> None:
    solo = client.post("/api/solo", json={"players": 3, "bot": "random"}).json()
    table_id, token = solo["table"]["id"], solo["token"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        view = hello(ws, token)["view"]
        while view["phase"] != "over":
            if view["legal"]:
                move = {"pass": True} if view["phase"] == "auction" else {"sell": min(view["hands"][0])}
                ws.send_json({"type": "act", "action": move, "id": 1})
                answer = next_of(ws, "ack", "state")
                while answer["type"] == "state":  # the bots' moves may come before the answer
                    answer = next_of(ws, "ack", "state")
            view = next_of(ws, "state")["view"]
        ws.send_json({"type": "rematch", "id": 2})
        started = next_of(ws, "rematch")["rematch"]
    assert started["status"] == "started" and started["seat"] == 1
    info = client.get(f"/api/tables/{started['table']}").json()["table"]
    assert [s["kind"] for s in info["seats"]] == ["bot", "human", "bot"] and info["private"] is True


def test_a_declined_offer_says_so_and_a_new_one_may_follow(client: TestClient) -> None:
    table_id, token0, token1, _ = finished_pair(client)
    with client.websocket_connect(f"/ws/tables/{table_id}") as a:
        hello(a, token0)
        no = client.post(f"/api/tables/{table_id}/rematch", json={"token": token1, "accept": False})
        assert no.status_code == 409 and code_of(no) == "no_rematch"  # nothing to decline yet
        client.post(f"/api/tables/{table_id}/rematch", json={"token": token0})
        assert next_of(a, "rematch")["rematch"]["status"] == "offered"
        declined = client.post(f"/api/tables/{table_id}/rematch", json={"token": token1, "accept": False})
        assert declined.status_code == 200 and declined.json()["rematch"]["status"] == "declined"
        told = next_of(a, "rematch")["rematch"]
        assert told["status"] == "declined" and told["declined_by"] == 1 and told["table"] is None
        client.post(f"/api/tables/{table_id}/rematch", json={"token": token1})  # Bob changes his mind
        fresh = next_of(a, "rematch")["rematch"]
        assert fresh["status"] == "offered" and fresh["by"] == 1 and fresh["waiting"] == [0]


def test_an_offer_nobody_completes_expires(client: TestClient) -> None:
    table_id, token0, token1, _ = finished_pair(client)
    client.app.state.lobby.options.rematch_timeout = 0.2  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/tables/{table_id}") as b:
        hello(b, token1)
        client.post(f"/api/tables/{table_id}/rematch", json={"token": token0})
        assert next_of(b, "rematch")["rematch"]["status"] == "offered"
        expired = next_of(b, "rematch")["rematch"]  # the event the timer sends: no sleeping here
        assert expired["status"] == "expired" and expired["waiting"] == []
    late = client.post(f"/api/tables/{table_id}/rematch", json={"token": token1, "accept": False})
    assert code_of(late) == "no_rematch"


def test_no_rematch_before_the_end_nor_for_spectators_or_strangers(client: TestClient) -> None:
    table_id, token0, _, _ = two_seat_table(client)
    early = client.post(f"/api/tables/{table_id}/rematch", json={"token": token0})
    assert early.status_code == 409 and code_of(early) == "not_finished"
    assert code_of(client.post(f"/api/tables/{table_id}/rematch", json={"token": "x" * 32})) == "bad_token"
    with client.websocket_connect(f"/ws/tables/{table_id}") as watcher:
        hello(watcher)
        watcher.send_json({"type": "rematch", "id": 5})
        refused = next_of(watcher, "error")
        assert refused["code"] == "not_seated" and refused["id"] == 5
        watcher.send_json({"type": "rematch", "accept": "yes", "id": 6})
        assert next_of(watcher, "error")["code"] == "bad_message"


def test_another_accounts_session_cannot_answer_for_a_seat(client: TestClient) -> None:
    sign_up(client, "Ann")
    table_id, token0, _token1, _ = finished_pair(client)
    client.cookies.clear()
    sign_up(client, "Bob")
    stolen = client.post(f"/api/tables/{table_id}/rematch", json={"token": token0}, headers=SAME)
    assert stolen.status_code == 403 and code_of(stolen) == "not_your_seat"
    assert client.get(f"/api/tables/{table_id}/rematch", params={"token": token0}).status_code == 403


def test_a_rematch_counts_against_its_creators_games(db_url: str) -> None:
    """A rematch was made with no owner: it escaped the per-client limits (here one game under way)."""
    with TestClient(create_app(db_url, static_dir="/nonexistent", games_per_client=1)) as client:
        table_id, token0, token1, _ = finished_pair(client)
        busy, _, _, _ = two_seat_table(client)  # the one game its creator may have under way
        assert client.post(f"/api/tables/{table_id}/rematch", json={"token": token0}, headers=SAME).status_code == 200
        refused = client.post(f"/api/tables/{table_id}/rematch", json={"token": token1}, headers=SAME)
        assert refused.status_code == 429 and code_of(refused) == "too_many_games", refused.text
        assert client.get(f"/api/tables/{table_id}/rematch", params={"token": token0}).json()["rematch"]["status"] == (
            "offered"
        )
        assert client.get(f"/api/tables/{busy}").json()["table"]["status"] == "playing"
