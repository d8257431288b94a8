"""Rated play that can be trusted, against a real ``forsale serve`` over real HTTP (issue 36, points 10 and 11).

- A rated game gives no hints: refused when the table is made, when its creator switches them on later,
  and at the hint endpoint.
- A bot is rated as itself only at its default strength: a rated table refuses ``hard:samples=1`` (beating
  a crippled ``hard`` must not pull the real one's rating down), and a seat that has such a bot all the
  same is rated as nobody.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from forsale.server.people.skill import player_at, rated_bot

from .test_server_visibility import account

pytestmark = pytest.mark.timeout(120)


def refused(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code, error
    return str(error["message"])


def test_a_rated_table_refuses_hints_when_it_is_made(server: Any) -> None:
    rita = account(server, "Rita")
    for path, body in (
        ("/api/tables", {"players": 2, "join": True, "rated": True, "hints": True}),
        ("/api/solo", {"players": 2, "bot": "random", "rated": True, "hints": True}),
    ):
        message = refused(rita.post(path, json=body), 400, "hints_off")
        assert "rated" in message and "hints off" in message, message
    assert rita.get("/api/me/games").json()["games"] == []  # nothing was made
    unrated = rita.post("/api/solo", json={"players": 2, "bot": "random", "hints": True})
    assert unrated.status_code == 201 and unrated.json()["table"]["hints"] is True  # unrated games may have them


def test_a_rated_table_refuses_hints_switched_on_later_and_at_the_hint_endpoint(server: Any) -> None:
    rex = account(server, "Rex")
    made = rex.post("/api/solo", json={"players": 2, "bot": "random", "rated": True, "memory_aid": True})
    assert made.status_code == 201, made.text
    table, creator, token = made.json()["table"]["id"], made.json()["creator_token"], made.json()["token"]
    settings = rex.post(
        f"/api/tables/{table}/settings", json={"creator_token": creator, "hints": True, "memory_aid": False}
    )
    refused(settings, 400, "hints_off")
    info = rex.get(f"/api/tables/{table}").json()["table"]
    assert info["hints"] is False and info["memory_aid"] is True  # refused whole: no setting changed
    message = refused(rex.post(f"/api/tables/{table}/hint", json={"token": token}), 403, "hints_off")
    assert "rated" in message
    off = rex.post(f"/api/tables/{table}/settings", json={"creator_token": creator, "hints": False})
    assert off.status_code == 200, off.text  # switching them off is always fine


@pytest.mark.parametrize("spec", ["hard:samples=1", "hard:time=0.1", "easy:blunder=1"])
def test_a_rated_table_seats_bots_at_their_default_strength_only(server: Any, spec: str) -> None:
    mallory = account(server, f"Mallory{abs(hash(spec)) % 10_000}")
    for path, body in (
        ("/api/tables", {"players": 2, "join": True, "rated": True, "seats": [None, spec]}),
        ("/api/solo", {"players": 2, "bot": spec, "rated": True}),
        ("/api/solo", {"players": 3, "bots": ["random", spec], "rated": True}),
    ):
        message = refused(mallory.post(path, json=body), 400, "bad_bot")
        assert "default strength" in message and spec in message, message
    assert mallory.get("/api/me/games").json()["games"] == []
    unrated = {"players": 3, "join": True, "seats": [None, None, spec]}  # waits for a friend: no bot thinks yet
    assert mallory.post("/api/tables", json=unrated).status_code == 201  # unrated, a bot may have any options


def test_a_rated_table_needs_a_person(server: Any) -> None:
    """A table of bots alone, rated, would move the bots' ratings (and every player's standing against them)
    at the asking of whoever made it, without anyone playing."""
    oscar = account(server, "Oscar")
    bots_only = {"players": 3, "rated": True, "seats": ["hard", "random", "random"]}
    message = refused(oscar.post("/api/tables", json=bots_only), 400, "bad_seats")
    assert "person" in message
    assert oscar.get("/api/me/games").json()["games"] == []
    mixed = oscar.post("/api/tables", json={"players": 2, "rated": True, "seats": [None, "random"]})
    assert mixed.status_code == 201, mixed.text  # a seat left open for a person to take: fine


def test_one_account_holds_one_seat_at_a_rated_table(server: Any) -> None:
    """Ratings count a win if any of an account's seats won: two seats of three would let one feed the other.

    Refused on join (after create+join; a guest cannot sit at a rated table, so claim has no guest's seat to
    take there), and casual tables still allow it (one device passed round the table).
    """
    sam = account(server, "Sam")
    made = sam.post("/api/tables", json={"players": 3, "rated": True, "join": True})
    assert made.status_code == 201, made.text
    table = made.json()["table"]["id"]
    assert "one seat" in refused(sam.post(f"/api/tables/{table}/join", json={}), 409, "already_seated")
    info = sam.get(f"/api/tables/{table}").json()["table"]
    assert info["open_seats"] == [1, 2] and info["status"] == "waiting"
    # Another account takes seat 1; Sam cannot claim it with its token (another's seat) nor take seat 2.
    tess = account(server, "Tess")
    joined = tess.post(f"/api/tables/{table}/join", json={})
    assert joined.status_code == 200, joined.text
    refused(sam.post(f"/api/tables/{table}/claim", json={"token": joined.json()["token"]}), 403, "not_your_seat")
    refused(sam.post(f"/api/tables/{table}/join", json={"seat": 2}), 409, "already_seated")
    # Sam's one seat is still Sam's to resume.
    assert sam.post(f"/api/tables/{table}/resume", json={}).json()["seat"] == 0
    # A casual table: one account may sit twice.
    casual = sam.post("/api/tables", json={"players": 2, "join": True}).json()["table"]["id"]
    assert sam.post(f"/api/tables/{casual}/join", json={}).status_code == 200


def test_only_a_bot_without_options_is_rated_as_that_bot() -> None:
    assert rated_bot("hard") == rated_bot(" hard ") == "hard"
    assert player_at("bot", "hard", None, False) == "bot:hard"
    for spec in ("hard:samples=1", "hard:time=0.1", "medium:temperature=2", "hard:"):
        assert rated_bot(spec) is None
        assert player_at("bot", spec, None, False) is None  # rated as nobody: never as the real bot
    assert player_at("bot", "hard:samples=1", "acc", True) == "account:acc"  # a person who left is still rated


def test_the_server_logged_no_traceback(server: Any) -> None:
    """Runs last (file order): every refusal above was an answer, not a crash."""
    assert server.proc.poll() is None
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
