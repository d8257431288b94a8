"""Profiles, resuming a seat from another device, deleting an account and the sign-up limit, over the real app.

On a SQLite file and on PostgreSQL; games are played over real WebSockets (see test_server_ratings).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.names import DELETED_NAME
from forsale.server.people.accounts import SIGN_UPS_PER_ADDRESS

from .signin import as_account, sign_up
from .social import PASSWORD, SAME, hello, next_of
from .test_server_ratings import board, duel, play_alone, play_lockstep, rated_solo

pytestmark = pytest.mark.timeout(240)

HOSTILE_NAMES = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "'; DROP TABLE forsale_games; --",
    "Bob'); DELETE FROM forsale_seats;--",
    "Z\u0351\u0363a\u036b\u0343l\u0350g\u0344o",  # combining marks
    "🂡 ♠ 😀 ❤️",  # emoji, and the selector that shows one as emoji (a zero-width joiner is refused: invisible)
    "x" * 40,
]


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


def profile(client: TestClient, name: str) -> dict:
    response = client.get(f"/api/players/{name}")
    assert response.status_code == 200, response.text
    return response.json()["player"]


def test_a_profile_counts_games_by_player_count_and_links_each(client: TestClient) -> None:
    ann = sign_up(client, "Ann")
    rng = random.Random(5)
    games = [rated_solo(client, rng, players=2), rated_solo(client, rng, players=3), rated_solo(client, rng, 3)]
    mine = profile(client, "ann")  # names are found ignoring case
    assert mine["name"] == "Ann" and mine["me"] is True
    assert {n: v["played"] for n, v in mine["by_players"].items()} == {"2": 1, "3": 2}
    for n, counts in mine["by_players"].items():
        won = sum(1 for g in mine["games"] if str(g["players"]) == n and g["seat"] in g["winners"])
        assert counts["won"] == won
    assert {g["id"] for g in mine["games"]} == set(games)
    for game in mine["games"]:
        assert game["replay"] == f"#/replay/{game['id']}" and game["rated"] is True
        assert client.get(game["record"]).status_code == 200
    assert len(mine["history"]["0"]) == 3 and len(mine["history"]["3"]) == 2
    assert [h["game"] for h in mine["history"]["0"]] == list(reversed([g["id"] for g in mine["games"]]))
    assert set(mine["ratings"]) == {"0", "2", "3"}
    as_account(client, None)
    assert profile(client, "Ann")["me"] is False
    as_account(client, ann)


def test_another_account_sees_no_private_game_and_cannot_take_a_seat_back(client: TestClient) -> None:
    ann, bob = sign_up(client, "Ann"), sign_up(client, "Bob")
    as_account(client, ann)
    rated_solo(client, random.Random(6), players=2, rated=False)  # a solo game is unlisted: Ann's own
    going = client.post("/api/solo", json={"players": 2, "bot": "random"}, headers=SAME).json()
    assert len(profile(client, "Ann")["games"]) == 1
    as_account(client, bob)
    seen = profile(client, "Ann")
    assert seen["games"] == [] and seen["by_players"] == {} and seen["me"] is False
    refused = client.post(f"/api/tables/{going['table']['id']}/resume", headers=SAME)
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "no_seat"
    assert [g["id"] for g in client.get("/api/me/games").json()["games"]] == []  # Bob's own list only
    as_account(client, None)
    assert client.post(f"/api/tables/{going['table']['id']}/resume").status_code == 401
    assert client.get("/api/me/games").status_code == 401


def test_a_signed_in_owner_takes_their_seat_back_from_another_device(client: TestClient) -> None:
    sign_up(client, "Ann")
    solo = client.post("/api/solo", json={"players": 2, "bot": "random"}, headers=SAME).json()
    table_id, old = solo["table"]["id"], solo["token"]
    client.cookies.clear()  # another device: no seat token, no session
    assert client.post("/api/signin", json={"name": "Ann", "password": PASSWORD}, headers=SAME).status_code == 200
    going = [g for g in client.get("/api/me/games").json()["games"] if g["status"] != "over"]
    assert [g["id"] for g in going] == [table_id]
    resumed = client.post(f"/api/tables/{table_id}/resume", headers=SAME)
    assert resumed.status_code == 200, resumed.text
    token = resumed.json()["token"]
    assert resumed.json()["seat"] == 0 and token != old
    assert client.get(f"/api/tables/{table_id}/view", params={"token": old}).status_code == 403  # the old one is spent
    assert client.get(f"/api/tables/{table_id}/view", params={"token": token}).json()["view"]["seat"] == 0
    assert play_alone(client, table_id, token, random.Random(7))["status"] == "over"
    elsewhere = client.post(f"/api/tables/{table_id}/resume", headers={"Origin": "http://evil.example"})
    assert elsewhere.status_code == 403 and elsewhere.json()["error"]["code"] == "cross_origin"


def test_a_replaced_token_stops_the_sockets_it_opened(client: TestClient) -> None:
    sign_up(client, "Ann")
    solo = client.post("/api/solo", json={"players": 2, "bot": "random"}, headers=SAME).json()
    table_id, old = solo["table"]["id"], solo["token"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as copied:  # whoever holds the old token
        assert hello(copied, old)["seat"] == 0
        resumed = client.post(f"/api/tables/{table_id}/resume", headers=SAME)
        assert resumed.status_code == 200, resumed.text
        notice = next_of(copied, "error", skip=("state", "table", "chat_history", "welcome"))
        assert notice["code"] == "bad_token" and "another device" in notice["message"]
        copied.send_json({"type": "act", "id": 5, "action": {"pass": True}})
        refused = next_of(copied, "error", skip=("state", "table"))
        assert refused["code"] == "not_seated" and refused["id"] == 5
    assert play_alone(client, table_id, resumed.json()["token"], random.Random(3))["status"] == "over"


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_hostile_seat_names_are_stored_and_shown_as_text(client: TestClient, name: str) -> None:
    sign_up(client, "Ann")
    made = client.post("/api/tables", json={"players": 2, "join": True}, headers=SAME).json()
    table_id = made["table"]["id"]
    as_account(client, None)
    guest = client.post(f"/api/tables/{table_id}/join", json={"name": name})
    assert guest.status_code == 200, guest.text
    play_lockstep(client, table_id, [made["token"], guest.json()["token"]], random.Random(8))
    games = profile(client, "Ann")["games"]
    assert [g["names"] for g in games] == [["Ann", name]]  # byte for byte, to be shown with textContent
    assert client.get(f"/api/tables/{table_id}/record").json()["players"] == ["Ann", name]
    assert client.get("/api/tables?status=over").json()["tables"][0]["names"] == ["Ann", name]


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("\u202eevil\u202c", "direction-override"),  # a right-to-left override: "Ann" would read "nnA"
        ("Ann\u2066", "direction-override"),
        ("\x07bell", "control characters"),
        ("two\nlines", "control characters"),
        ("tab\there", "control characters"),
        ("   ", "besides spaces"),
    ],
)
def test_names_that_would_disguise_themselves_are_refused(client: TestClient, name: str, why: str) -> None:
    made = client.post("/api/tables", json={"players": 2, "join": True, "player_name": "Ann"}).json()
    table_id = made["table"]["id"]
    for path, body in (
        (f"/api/tables/{table_id}/join", {"name": name}),
        ("/api/tables", {"players": 2, "join": True, "player_name": name}),
        ("/api/tables", {"players": 2, "name": name}),
    ):
        refused = client.post(path, json=body)
        assert refused.status_code == 400 and why in refused.text, (path, refused.text)


@pytest.mark.parametrize(
    "name", [*HOSTILE_NAMES, "\u202eevil\u202c", "x" * 10_000, "..", "bot:", "bot:<script>", "%00"]
)
def test_looking_up_hostile_names_finds_nobody_and_echoes_no_junk(client: TestClient, name: str) -> None:
    response = client.get(f"/api/players/{name}")
    assert response.status_code == 404, response.text
    assert response.json()["error"]["code"] == "not_found"
    assert response.headers["content-type"] == "application/json"  # never a page a browser would render
    assert len(response.text) < 400  # a long name is not echoed back
    signed = client.post("/api/signin", json={"name": name, "password": PASSWORD})
    assert signed.status_code in (400, 401), signed.text  # malformed, or no such account: never a 500


def test_a_deleted_account_leaves_its_games_to_the_others_under_another_name(client: TestClient) -> None:
    ann, bob = sign_up(client, "Ann"), sign_up(client, "Bob")
    rng = random.Random(9)
    played = duel(client, ann, bob, rng)
    as_account(client, ann)
    waiting = client.post("/api/tables", json={"players": 3, "join": True}, headers=SAME).json()["table"]["id"]
    bob_before = {r["name"]: r for r in board(client, 2)}["Bob"]
    wrong = client.post("/api/me/delete", json={"password": "not the password"}, headers=SAME)
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "wrong_password"
    assert profile(client, "Ann")["name"] == "Ann"  # a refusal changes nothing
    assert (
        client.post("/api/me/delete", json={"password": PASSWORD}, headers={"Origin": "http://evil"}).status_code == 403
    )
    deleted = client.post("/api/me/delete", json={"password": PASSWORD}, headers=SAME)
    assert deleted.status_code == 200 and deleted.json() == {"account": None}
    as_account(client, ann)  # the old cookie: its session has ended
    assert client.get("/api/me").json() == {"account": None}
    assert client.get("/api/players/Ann").status_code == 404
    assert client.post("/api/signin", json={"name": "Ann", "password": PASSWORD}, headers=SAME).status_code == 401
    client.cookies.clear()
    games = profile(client, "Bob")["games"]
    assert [g["id"] for g in games] == [played] and games[0]["names"] == [DELETED_NAME, "Bob"]
    assert client.get(f"/api/tables/{played}/record").json()["players"] == [DELETED_NAME, "Bob"]
    assert [r["name"] for r in board(client, 2)] == ["Bob"]  # Ann is off the board; Bob's rating stands
    assert {r["name"]: r for r in board(client, 2)}["Bob"] == {**bob_before, "rank": 1}
    assert client.get(f"/api/tables/{waiting}").json()["table"]["seats"][0]["kind"] == "open"  # freed
    assert client.post("/api/signup", json={"name": "Ann", "password": PASSWORD}, headers=SAME).status_code == 201


def test_a_deleted_account_leaves_tournaments_and_challenges_under_another_name(client: TestClient) -> None:
    """Its real name is nowhere left: not in a tournament's standings nor in a challenge's terms; it is no longer
    paired in a tournament under way, no longer entered in one to come, and its pending challenge is off."""
    org = sign_up(client, "Org")
    running = client.post("/api/tournaments", json={"name": "Now", "players": 3, "fill": "easy"}, headers=SAME)
    later = client.post("/api/tournaments", json={"name": "Later", "join": False}, headers=SAME).json()["id"]
    bot = sign_up(client, "Botty")
    assert client.post("/api/me/bot", json={"password": PASSWORD}, headers=SAME).status_code == 200
    ann = sign_up(client, "Ann")
    tid = running.json()["id"]
    for path in (f"/api/tournaments/{tid}/join", f"/api/tournaments/{later}/join"):
        assert client.post(path, headers=SAME).status_code == 200
    challenge = client.post("/api/challenges", json={"bot": "Botty"}, headers=SAME).json()["challenge"]["id"]
    as_account(client, org)
    assert client.post(f"/api/tournaments/{tid}/start", headers=SAME).json()["status"] == "running"
    as_account(client, ann)
    assert client.post("/api/me/delete", json={"password": PASSWORD}, headers=SAME).status_code == 200

    lines = {line["name"]: line for line in client.get(f"/api/tournaments/{tid}").json()["standings"]}
    assert sorted(lines) == sorted([DELETED_NAME, "Org"]) and lines[DELETED_NAME]["withdrawn"] is True
    assert client.get(f"/api/tournaments/{later}").json()["standings"] == []
    as_account(client, bot)
    seen = client.get(f"/api/challenges/{challenge}").json()["challenge"]
    assert (seen["from"], seen["status"]) == (DELETED_NAME, "cancelled")


def test_sign_ups_are_limited_per_address(client: TestClient) -> None:
    for i in range(SIGN_UPS_PER_ADDRESS):
        sign_up(client, f"User{i}")
    client.cookies.clear()
    refused = client.post("/api/signup", json={"name": "OneMore", "password": PASSWORD})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) > 0
    assert client.post("/api/signin", json={"name": "User0", "password": PASSWORD}).status_code == 200
    assert client.get("/api/players/OneMore").status_code == 404


def test_a_rated_invitation_only_game_shows_on_its_players_own_profiles_only(client: TestClient) -> None:
    ann, bob = sign_up(client, "Ann"), sign_up(client, "Bob")
    as_account(client, ann)
    made = client.post(
        "/api/tables", json={"players": 2, "join": True, "rated": True, "invite_only": True}, headers=SAME
    )
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["id"]
    as_account(client, bob)
    joined = client.post(f"/api/tables/{table_id}/join", json={"invite": made.json()["invite"]}, headers=SAME)
    assert joined.status_code == 200, joined.text
    as_account(client, None)
    play_lockstep(client, table_id, [made.json()["token"], joined.json()["token"]], random.Random(8))
    assert client.get(f"/api/tables/{table_id}/record").status_code == 403
    assert profile(client, "Ann")["games"] == []  # a stranger learns neither the names nor the scores
    as_account(client, ann)
    assert [g["id"] for g in profile(client, "Ann")["games"]] == [table_id]


def test_a_finished_unlisted_game_is_not_in_the_public_list(client: TestClient) -> None:
    solo = rated_solo(client, random.Random(9), players=2, rated=False)  # solo games are unlisted
    ids = {}
    for private in (True, False):
        made = client.post("/api/tables", json={"players": 2, "seats": ["random", "random"], "private": private})
        assert made.status_code == 201, made.text
        ids[private] = made.json()["table"]["id"]
    deadline = time.monotonic() + 120
    while any(client.get(f"/api/tables/{t}").json()["table"]["status"] != "over" for t in ids.values()):
        assert time.monotonic() < deadline, "the bots' games did not finish"
        time.sleep(0.2)
    assert client.get(f"/api/tables/{solo}").json()["table"]["status"] == "over"
    assert [t["id"] for t in client.get("/api/tables?status=over").json()["tables"]] == [ids[False]]
