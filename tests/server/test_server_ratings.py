"""Ratings over the real app, on a SQLite file and on PostgreSQL: rated games, bots' ratings, the leaderboard, rebuild.

Games are played to the end over real WebSockets (Starlette's TestClient runs the app in-process); the
rebuild is the real ``forsale ratings rebuild`` command in a subprocess, on the same database.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, delete
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.store.database import normalize_url
from forsale.server.store.schema import rating_changes, ratings

from .signin import as_account, sign_up
from .social import SAME

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


def recv(ws: Any, *types: str) -> dict[str, Any]:
    """The next message of one of ``types``, skipping the others (table notices, chat); an error fails the test."""
    while True:
        message = ws.receive_json()
        if message["type"] in types:
            return message
        assert message["type"] != "error", message


def play_alone(client: TestClient, table_id: str, token: str, rng: random.Random) -> dict[str, Any]:
    """Play one seat against bots to the end, acting only on the newest state; the last state."""
    with client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) as ws:
        ws.send_json({"type": "hello", "token": token})
        latest = recv(ws, "welcome")
        seat = latest["view"]["seat"]
        acked, pending = 0, False
        while latest["status"] != "over":
            if not pending and latest["seq"] >= acked and seat in latest["view"]["to_act"]:
                ws.send_json({"type": "act", "action": rng.choice(latest["view"]["legal"][:3])})
                pending = True
            message = ws.receive_json()
            if message["type"] == "ack":
                acked, pending = message["seq"], False
            elif message["type"] == "state":
                latest = message
            else:  # table notices, chat: not what this test is about
                assert message["type"] != "error", message
        return latest


def play_lockstep(client: TestClient, table_id: str, tokens: list[str], rng: random.Random) -> None:
    """Play a table of people only to the end: one move, its ack, then one state on every seat's socket."""
    sockets = [client.websocket_connect(f"/ws/tables/{table_id}", headers=SAME) for _ in tokens]
    opened = [ws.__enter__() for ws in sockets]
    try:
        views = []
        for ws, token in zip(opened, tokens):
            ws.send_json({"type": "hello", "token": token})
            views.append(recv(ws, "welcome")["view"])
        while views[0]["phase"] != "over":
            seat = views[0]["to_act"][0]
            opened[seat].send_json({"type": "act", "action": rng.choice(views[seat]["legal"][:3])})
            assert recv(opened[seat], "ack", "error")["type"] == "ack"
            views = [recv(ws, "state")["view"] for ws in opened]
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)


def rated_solo(client: TestClient, rng: random.Random, players: int = 3, rated: bool = True) -> str:
    solo = client.post("/api/solo", json={"players": players, "bot": "random", "rated": rated}, headers=SAME)
    assert solo.status_code == 201, solo.text
    table_id = solo.json()["table"]["id"]
    assert solo.json()["table"]["rated"] is rated
    assert play_alone(client, table_id, solo.json()["token"], rng)["status"] == "over"
    return table_id


def duel(client: TestClient, first: str, second: str, rng: random.Random, rated: bool = True) -> str:
    """A two-player table of two accounts (sessions ``first`` and ``second``), played to the end."""
    as_account(client, first)
    made = client.post("/api/tables", json={"players": 2, "join": True, "rated": rated}, headers=SAME)
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["id"]
    as_account(client, second)
    joined = client.post(f"/api/tables/{table_id}/join", json={}, headers=SAME)
    assert joined.status_code == 200, joined.text
    as_account(client, None)
    play_lockstep(client, table_id, [made.json()["token"], joined.json()["token"]], rng)
    return table_id


def board(client: TestClient, players: int = 0, kind: str = "all") -> list[dict[str, Any]]:
    response = client.get(f"/api/leaderboard?players={players}&kind={kind}")
    assert response.status_code == 200, response.text
    return response.json()["ratings"]


def everything(client: TestClient, names: list[str]) -> dict[str, Any]:
    """Every rating the API shows: the boards of each scope and each player's history."""
    out: dict[str, Any] = {f"board {n}": board(client, n) for n in (0, 2, 3, 4, 5, 6)}
    for name in names:
        out[name] = client.get(f"/api/players/{name}").json()["player"]
        out[name].pop("me")
    return out


def test_a_rated_solo_game_rates_the_account_and_the_bot(client: TestClient) -> None:
    sign_up(client, "Ann")
    assert board(client) == []
    table_id = rated_solo(client, random.Random(1))  # Ann against two random bots
    rows = board(client)
    assert {(r["kind"], r["name"]) for r in rows} == {("account", "Ann"), ("bot", "random")}
    winners = client.get(f"/api/tables/{table_id}").json()["result"]["winners"]
    # Each seat counts: the bot played two seats, so two games, and a win for each of its seats that won.
    played = {"Ann": (1, int(0 in winners)), "random": (2, sum(seat in winners for seat in (1, 2)))}
    assert {r["name"]: (r["games"], r["wins"]) for r in rows} == played
    for row in rows:
        assert row["sigma"] < 25 / 3  # rated: less uncertain than a newcomer
        assert row["rating"] == pytest.approx(row["mu"] - 3 * row["sigma"], abs=0.01)
        # What people read: 1500-centred, 40 points per point of mu - 3 sigma (a newcomer's 0 shows as 1500).
        assert row["display"] == round(1500 + 40 * (row["mu"] - 3 * row["sigma"]))
    assert board(client, 3) == rows  # a 3-player game: its own scope holds the same
    assert board(client, 4) == [] and board(client, 2) == []
    assert [r["name"] for r in board(client, 0, "bots")] == ["random"]
    assert [r["name"] for r in board(client, 0, "people")] == ["Ann"]
    history = client.get("/api/players/Ann").json()["player"]["history"]
    assert [h["game"] for h in history["0"]] == [table_id] and [h["game"] for h in history["3"]] == [table_id]
    assert [h["display"] for h in history["0"]] == [round(1500 + 40 * h["rating"]) for h in history["0"]]
    bot = client.get("/api/players/bot:random").json()["player"]
    assert bot["kind"] == "bot" and bot["ratings"]["0"]["games"] == 2
    assert [g["id"] for g in bot["games"]] == [table_id]


def test_an_unrated_game_changes_no_rating(client: TestClient) -> None:
    sign_up(client, "Ann")
    rated_solo(client, random.Random(2), rated=False)
    assert board(client) == [] and board(client, 3) == []
    assert client.get("/api/players/Ann").json()["player"]["history"] == {}


def test_rated_tables_are_for_accounts(client: TestClient) -> None:
    client.cookies.clear()
    for path, body in [("/api/solo", {"rated": True}), ("/api/tables", {"rated": True, "join": True})]:
        refused = client.post(path, json=body)
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "not_signed_in"
    sign_up(client, "Ann")
    table = client.post("/api/tables", json={"players": 2, "rated": True}, headers=SAME).json()["table"]
    client.cookies.clear()
    guest = client.post(f"/api/tables/{table['id']}/join", json={"name": "Guest"})
    assert guest.status_code == 401 and guest.json()["error"]["code"] == "not_signed_in"
    assert client.get(f"/api/tables/{table['id']}").json()["table"]["seats"][0]["kind"] == "open"  # unchanged
    for bad in ("1", "yes", 1):
        assert client.post("/api/solo", json={"rated": bad}).status_code == 400
    assert client.get("/api/leaderboard?players=7").status_code == 400
    assert client.get("/api/leaderboard?kind=robots").status_code == 400


def test_the_winner_of_a_duel_gains_and_rebuild_gives_the_same_ratings(client: TestClient, db_url: str) -> None:
    ann, bob = sign_up(client, "Ann"), sign_up(client, "Bob")
    rng = random.Random(3)
    duel(client, ann, bob, rng)
    duel(client, bob, ann, rng)  # Bob at seat 0 this time
    as_account(client, ann)
    rated_solo(client, rng, players=2)
    duel(client, ann, bob, rng, rated=False)
    rows = {r["name"]: r for r in board(client, 2)}
    assert set(rows) == {"Ann", "Bob", "random"}
    assert rows["Ann"]["games"] == 3 and rows["Bob"]["games"] == 2 and rows["random"]["games"] == 1
    as_account(client, None)
    before = everything(client, ["Ann", "Bob", "bot:random"])
    engine = create_engine(normalize_url(db_url))
    with engine.begin() as conn:  # a formula change, say: the stored ratings are wrong or gone
        conn.execute(delete(rating_changes))
        conn.execute(ratings.update().values(mu=1.0, sigma=1.0))
    engine.dispose()
    assert everything(client, ["Ann", "Bob", "bot:random"]) != before
    rebuilt = subprocess.run(
        [sys.executable, "-m", "forsale", "ratings", "rebuild", "--db", db_url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stdout.startswith("rated 3 games again: 3 players")
    assert everything(client, ["Ann", "Bob", "bot:random"]) == before


def test_a_rated_game_that_ended_unrated_is_rated_at_the_next_start(db_url: str) -> None:
    """The server stopped between a game's last event and its rating: the next start rates it."""
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        sign_up(c, "Ann")
        rated_solo(c, random.Random(4), players=2)
        expected = board(c)
    engine = create_engine(normalize_url(db_url))
    with engine.begin() as conn:
        conn.execute(delete(rating_changes))
        conn.execute(delete(ratings))
    engine.dispose()
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        assert board(c) == expected
