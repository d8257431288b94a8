"""Accounts over the real app, on a SQLite file and on PostgreSQL: sign-up/in/out, passwords, sessions, CSRF, seats.

Everything goes through HTTP (Starlette's TestClient runs the ASGI app in-process, with a real cookie jar);
the database is inspected directly only to check what it holds (hashes, never passwords).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, select, text
from starlette.testclient import TestClient

from forsale.server import create_app
from forsale.server.people.sessions import COOKIE, same_origin
from forsale.server.store.database import normalize_url
from forsale.server.store.schema import seats

from .oldschema import create_old_database

pytestmark = pytest.mark.timeout(180)

PASSWORD = "correct horse battery staple"
SAME = {"Origin": "http://testserver"}


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        yield c


def sign_up(client: TestClient, name: str = "Ann", password: str = PASSWORD) -> dict[str, Any]:
    response = client.post("/api/signup", json={"name": name, "password": password}, headers=SAME)
    assert response.status_code == 201, response.text
    return response.json()["account"]


def plant(client: TestClient, session_id: str) -> None:
    """Make ``session_id`` the client's (only) session cookie."""
    client.cookies.clear()
    client.cookies.set(COOKIE, session_id, domain="testserver.local")


def error_of(response: Any) -> str:
    return response.json()["error"]["code"]


def test_sign_up_in_out(client: TestClient) -> None:
    assert client.get("/api/me").json() == {"account": None}
    account = sign_up(client)
    assert account["name"] == "Ann"
    cookie = client.cookies[COOKIE]
    assert client.get("/api/me").json()["account"] == account
    header = client.post("/api/signout", headers=SAME).headers["set-cookie"]
    assert COOKIE in header and "httponly" in header.lower()
    assert client.get("/api/me").json() == {"account": None}
    plant(client, cookie)  # the old cookie, kept by someone: the session ended on the server
    assert client.get("/api/me").json() == {"account": None}
    client.cookies.clear()
    signed = client.post("/api/signin", json={"name": "ann", "password": PASSWORD}, headers=SAME)
    assert signed.status_code == 200 and signed.json()["account"] == account
    assert client.get("/api/me").json()["account"] == account


def test_the_cookie_is_httponly_samesite_and_secure_over_https(db_url: str) -> None:
    with TestClient(create_app(db_url, static_dir="/nonexistent"), base_url="https://testserver") as c:
        response = c.post("/api/signup", json={"name": "Sec", "password": PASSWORD})
        header = response.headers["set-cookie"].lower()
        assert "httponly" in header and "samesite=lax" in header and "secure" in header
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        header = c.post("/api/signin", json={"name": "Sec", "password": PASSWORD}).headers["set-cookie"].lower()
        assert "httponly" in header and "secure" not in header  # plain http: a Secure cookie would never come back


def test_sign_in_rotates_the_session(client: TestClient) -> None:
    sign_up(client)
    planted = "a" * 43  # an id an attacker set in the victim's browser before sign-in
    plant(client, planted)
    client.post("/api/signin", json={"name": "Ann", "password": PASSWORD}, headers=SAME)
    first = client.cookies[COOKIE]
    assert first != planted
    client.post("/api/signin", json={"name": "Ann", "password": PASSWORD}, headers=SAME)
    second = client.cookies[COOKIE]
    assert second != first
    plant(client, first)  # the session before the last sign-in is over
    assert client.get("/api/me").json() == {"account": None}


@pytest.mark.parametrize("variant", ["ANN", "ann", "Ａnn", "ＡＮＮ"])
def test_names_are_unique_ignoring_case_and_width(client: TestClient, variant: str) -> None:
    sign_up(client)
    response = client.post("/api/signup", json={"name": variant, "password": PASSWORD})
    assert response.status_code == 409 and error_of(response) == "name_taken"
    signed = client.post("/api/signin", json={"name": variant, "password": PASSWORD})
    assert signed.status_code == 200 and signed.json()["account"]["name"] == "Ann"


@pytest.mark.parametrize(
    "name",
    [
        "",
        " ",
        "x" * 25,
        "x" * 10_000,
        "a\x00b",
        "tab\there",
        "new\nline",
        "<script>",
        "Ann  Lee",
        " Ann",
        "a;b",
        "\u0301a",
    ],
)
def test_bad_names_are_refused(client: TestClient, name: str) -> None:
    response = client.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 400 and error_of(response) in ("bad_name", "bad_request"), response.text
    assert client.get("/api/me").json() == {"account": None}


def test_names_in_other_scripts_and_with_marks_are_fine(client: TestClient) -> None:
    for name in ("José", "Zoë_1", "Ольга", "李小龍", "a.b-c d"):
        assert sign_up(client, name)["name"] == name


def test_a_lone_surrogate_is_refused(client: TestClient) -> None:
    for body in ('{"name": "\\ud800x", "password": "longenough"}', '{"name": "Bob", "password": "longenough\\udc00"}'):
        response = client.post("/api/signup", content=body, headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and error_of(response) == "bad_request"


@pytest.mark.parametrize("password", ["", "short", "x" * 257, "x" * 10_000, "good pass\x00word", "new\nline password"])
def test_bad_passwords_are_refused(client: TestClient, password: str) -> None:
    response = client.post("/api/signup", json={"name": "Bob", "password": password})
    assert response.status_code in (400, 413), response.text
    assert error_of(response) in ("bad_password", "bad_request", "too_large")
    assert response.status_code != 413 or len(password) > 1000
    assert client.post("/api/signin", json={"name": "Bob", "password": PASSWORD}).status_code == 401


def test_wrong_passwords_are_limited_per_account(client: TestClient) -> None:
    sign_up(client)
    for _ in range(5):
        response = client.post("/api/signin", json={"name": "Ann", "password": "wrong password"})
        assert response.status_code == 401 and error_of(response) == "wrong_password"
    limited = client.post("/api/signin", json={"name": "Ann", "password": PASSWORD})  # even the right one waits
    assert limited.status_code == 429 and error_of(limited) == "rate_limited"
    assert 1 <= int(limited.headers["Retry-After"]) <= 60


def test_a_strangers_guesses_do_not_lock_the_owner_out_elsewhere(db_url: str) -> None:
    app = create_app(db_url, static_dir="/nonexistent")
    with (
        TestClient(app, client=("203.0.113.9", 4000)) as stranger,
        TestClient(app, client=("198.51.100.7", 4000)) as owner,
    ):
        sign_up(owner)
        owner.cookies.clear()
        for _ in range(5):
            assert stranger.post("/api/signin", json={"name": "Ann", "password": "wrong password"}).status_code == 401
        assert stranger.post("/api/signin", json={"name": "Ann", "password": PASSWORD}).status_code == 429
        assert owner.post("/api/signin", json={"name": "Ann", "password": PASSWORD}).status_code == 200


def test_a_taken_name_costs_no_password_hashing(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from forsale.server.people import accounts

    sign_up(client)
    hashed: list[str] = []
    real = accounts.HASHER

    class Counting:
        def hash(self, password: str) -> str:
            hashed.append(password)
            return real.hash(password)

    monkeypatch.setattr(accounts, "HASHER", Counting())
    for name in ("Ann", "ANN", "Ａnn"):
        taken = client.post("/api/signup", json={"name": name, "password": "another password"})
        assert taken.status_code == 409 and error_of(taken) == "name_taken"
    assert hashed == []


def test_a_flood_of_addresses_does_not_wipe_the_limits() -> None:
    from forsale.server.people.accounts import MAX_KEYS, Attempts

    attempts = Attempts(5)
    for i in range(MAX_KEYS - 1):
        attempts.failed(f"long ago {i}")
    for _ in range(5):
        attempts.failed("watched")
    assert attempts.wait("watched") > 0
    for i in range(1000):  # a flood of new addresses forgets the oldest, not every one
        attempts.failed(f"flood {i}")
    assert len(attempts.failures) == MAX_KEYS
    assert attempts.wait("watched") > 0 and "long ago 0" not in attempts.failures


def test_wrong_passwords_are_limited_per_address(client: TestClient) -> None:
    sign_up(client)
    for i in range(20):  # twenty names, four tries each at most: no account's limit is reached
        response = client.post("/api/signin", json={"name": f"user{i // 4}", "password": "guessing"})
        assert response.status_code == 401  # unknown names fail as wrong passwords do
    limited = client.post("/api/signin", json={"name": "Ann", "password": PASSWORD})
    assert limited.status_code == 429 and "Retry-After" in limited.headers


def test_change_password_ends_every_other_session(client: TestClient) -> None:
    sign_up(client)
    here = client.cookies[COOKIE]
    client.cookies.clear()  # another device signs in as well
    client.post("/api/signin", json={"name": "Ann", "password": PASSWORD})
    other = client.cookies[COOKIE]
    plant(client, here)
    new = "a new password entirely"
    wrong = client.post("/api/me/password", json={"old_password": "not it at all", "new_password": new}, headers=SAME)
    assert wrong.status_code == 403 and error_of(wrong) == "wrong_password"
    changed = client.post("/api/me/password", json={"old_password": PASSWORD, "new_password": new}, headers=SAME)
    assert changed.status_code == 200, changed.text
    assert client.get("/api/me").json()["account"]["name"] == "Ann"  # this client got a new session
    assert client.cookies[COOKIE] != here
    for old in (here, other):
        plant(client, old)
        assert client.get("/api/me").json() == {"account": None}
    assert client.post("/api/signin", json={"name": "Ann", "password": PASSWORD}).status_code == 401
    assert client.post("/api/signin", json={"name": "Ann", "password": new}).status_code == 200


def test_changing_a_password_needs_a_session(client: TestClient) -> None:
    response = client.post("/api/me/password", json={"old_password": PASSWORD, "new_password": "whatever it is"})
    assert response.status_code == 401 and error_of(response) == "not_signed_in"
    assert error_of(client.get("/api/me/games")) == "not_signed_in"


def test_a_signed_in_request_from_another_origin_is_refused(client: TestClient) -> None:
    sign_up(client)
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Sec-Fetch-Site": "cross-site"}):
        for path, body in (("/api/signout", None), ("/api/tables", {"players": 2, "join": True})):
            response = client.post(path, json=body, headers=headers)
            assert response.status_code == 403 and error_of(response) == "cross_origin", (headers, path)
    assert client.get("/api/me").json()["account"] is not None  # nothing changed: still signed in
    assert client.get("/api/tables").json()["tables"] == []
    ok = client.post("/api/tables", json={"players": 2}, headers={"Sec-Fetch-Site": "same-origin"})
    assert ok.status_code == 201


def test_guests_play_as_before_but_not_from_another_sites_page(client: TestClient) -> None:
    """No cookie is no pass: a guest's POST from another site's page is refused too (it acts from the visitor's
    address, and signing in is a guest's POST: login CSRF); a guest with no browser (no Origin) plays as before."""
    response = client.post("/api/tables", json={"players": 2, "join": True}, headers={"Origin": "http://elsewhere"})
    assert response.status_code == 403 and error_of(response) == "cross_origin"
    response = client.post("/api/tables", json={"players": 2, "join": True})
    assert response.status_code == 201
    table_id = response.json()["table"]["id"]
    refused = client.post(f"/api/tables/{table_id}/join", json={}, headers={"Origin": "null"})
    assert refused.status_code == 403 and error_of(refused) == "cross_origin"
    joined = client.post(f"/api/tables/{table_id}/join", json={}, headers={"Origin": "http://testserver"})
    assert joined.status_code == 200


def test_same_origin_rule() -> None:
    assert same_origin({"origin": "http://a.example:8000", "host": "a.example:8000"}, "http")
    assert same_origin({"origin": "https://a.example", "host": "a.example:443"}, "https")
    assert not same_origin({"origin": "http://a.example.evil", "host": "a.example"}, "http")
    assert not same_origin({"origin": "javascript://a.example", "host": "a.example"}, "http")
    assert same_origin({"sec-fetch-site": "same-origin"}, "http")
    assert not same_origin({"sec-fetch-site": "same-site"}, "http")
    assert not same_origin({"referer": "http://evil.example/x", "host": "a.example"}, "http")  # the last witness
    assert same_origin({"referer": "http://a.example/#/table/x", "host": "a.example"}, "http")
    assert same_origin({"sec-fetch-site": "same-origin", "referer": "http://evil.example/"}, "http")  # not asked
    assert same_origin({}, "http")  # no browser: nothing another site could forge


def test_a_guest_seat_is_claimed_and_listed_in_my_games(client: TestClient) -> None:
    guest = client.post("/api/tables", json={"players": 2, "join": True}).json()  # played as a guest first
    table_id = guest["table"]["id"]
    assert client.post(f"/api/tables/{table_id}/claim", json={"token": guest["token"]}).status_code == 401
    sign_up(client)
    bad = client.post(f"/api/tables/{table_id}/claim", json={"token": "not a token"}, headers=SAME)
    assert bad.status_code == 403 and error_of(bad) == "bad_token"
    claimed = client.post(f"/api/tables/{table_id}/claim", json={"token": guest["token"]}, headers=SAME)
    assert claimed.status_code == 200 and claimed.json()["seat"] == 0
    joined = client.post(f"/api/tables/{table_id}/join", json={}, headers=SAME).json()  # signed in: linked too
    assert joined["table"]["seats"][1]["name"] == "Ann"
    solo = client.post("/api/solo", json={"players": 2, "bot": "random"}, headers=SAME).json()
    games = client.get("/api/me/games").json()["games"]
    assert {(g["id"], g["seat"]) for g in games} == {(table_id, 0), (table_id, 1), (solo["table"]["id"], 0)}
    mine = next(g for g in games if g["id"] == solo["table"]["id"])
    assert mine["status"] == "playing" and mine["names"][0] == "Ann" and mine["players"] == 2


def test_one_account_cannot_take_or_use_anothers_seat(client: TestClient) -> None:
    sign_up(client, "Ann")
    table = client.post("/api/tables", json={"players": 3, "join": True}, headers=SAME).json()
    table_id, token = table["table"]["id"], table["token"]
    ann = client.cookies[COOKIE]
    client.cookies.clear()  # Bob, in another browser, has learnt Ann's seat token
    sign_up(client, "Bob")
    stolen = client.post(f"/api/tables/{table_id}/claim", json={"token": token}, headers=SAME)
    assert stolen.status_code == 403 and error_of(stolen) == "not_your_seat"
    view = client.get(f"/api/tables/{table_id}/view", params={"token": token})
    assert view.status_code == 403 and error_of(view) == "not_your_seat"
    left = client.post(f"/api/tables/{table_id}/leave", json={"token": token}, headers=SAME)
    assert left.status_code == 403 and error_of(left) == "not_your_seat"
    assert client.get("/api/me/games").json() == {"games": []}
    plant(client, ann)
    assert client.get(f"/api/tables/{table_id}").json()["table"]["seats"][0]["kind"] == "human"
    assert [g["seat"] for g in client.get("/api/me/games").json()["games"]] == [0]
    assert client.get(f"/api/tables/{table_id}/view", params={"token": token}).status_code == 200


def test_leaving_before_the_game_unlinks_the_seat(client: TestClient) -> None:
    sign_up(client)
    table = client.post("/api/tables", json={"players": 3, "join": True}, headers=SAME).json()
    client.post(f"/api/tables/{table['table']['id']}/leave", json={"token": table["token"]}, headers=SAME)
    assert client.get("/api/me/games").json() == {"games": []}


def test_passwords_are_neither_stored_nor_logged(db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    secret = "unmistakable-secret-4711"
    caplog.set_level(logging.DEBUG)
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
        c.post("/api/signup", json={"name": "Carol", "password": secret})
        c.post("/api/signin", json={"name": "Carol", "password": secret + "x"})
        c.post("/api/signup", json={"name": "Dan", "password": secret + "\x00"})  # refused: the refusal is logged
        c.post("/api/me/password", json={"old_password": secret, "new_password": secret + "2"})
        session = c.cookies[COOKIE]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert secret not in logged and session not in logged
    engine = create_engine(normalize_url(db_url))
    with engine.connect() as conn:
        dump = "\n".join(
            repr(row)
            for name in ("forsale_accounts", "forsale_sessions")
            for row in conn.execute(text(f"SELECT * FROM {name}"))
        )
    engine.dispose()
    assert "argon2id" in dump and secret not in dump and session not in dump
    if db_url.startswith("sqlite"):
        files = list(tmp_path.glob("forsale.sqlite3*"))  # the database, its WAL and shared memory
        assert files and all(secret.encode() not in f.read_bytes() for f in files)


@pytest.mark.parametrize("with_accounts", [False, True], ids=["before accounts", "before emails"])
def test_an_old_database_gains_the_new_columns_and_keeps_its_games(db_url: str, with_accounts: bool) -> None:
    """A database made before accounts (forsale_seats without account_id, no accounts tables), or before
    emails (an accounts table without email and language)."""
    create_old_database(db_url, with_accounts=with_accounts)
    for _ in range(2):  # the upgrade runs at every start; the second finds nothing to do
        with TestClient(create_app(db_url, static_dir="/nonexistent")) as c:
            table = c.post("/api/tables", json={"players": 2, "join": True}).json()
            sign_up(c, f"U{table['table']['id'][:4]}".replace("-", "_"))
            claim = c.post(f"/api/tables/{table['table']['id']}/claim", json={"token": table["token"]}, headers=SAME)
            assert claim.status_code == 200
            assert [g["id"] for g in c.get("/api/me/games").json()["games"]] == [table["table"]["id"]]
            mail = c.post("/api/me/email", json={"email": "u@example.org", "language": "fr"}, headers=SAME)
            assert mail.status_code == 200, mail.text
            me = c.get("/api/me").json()
            assert (me["email"], me["language"]) == ("u@example.org", "fr")
    engine = create_engine(normalize_url(db_url))
    assert "account_id" in {c["name"] for c in inspect(engine).get_columns("forsale_seats")}
    assert {"email", "language"} <= {c["name"] for c in inspect(engine).get_columns("forsale_accounts")}
    with engine.connect() as conn:
        assert conn.execute(select(seats.c.account_id).where(seats.c.account_id.is_not(None))).all()
    engine.dispose()
