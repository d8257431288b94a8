"""Who is who: names that pass for another's, for a bot's or for the server's, against a real ``forsale serve``.

- **Invisible characters** (zero-width space, word joiner, Hangul fillers, braille blank...) are refused in
  every name, so ``Ann`` and ``Ann\\u200b`` cannot both sit, and no seat reads as blank in the lobby.
- **Mixed scripts** (``Раul``: a Cyrillic ``Ра`` before a Latin ``ul``) are refused in the names people go by,
  while Japanese and Korean names, which mix scripts by nature, are not.
- **Look-alikes of an account** (``PAUL``, a whole-Cyrillic ``Асе`` beside ``Ace``) cannot be another account,
  nor a guest's name.
- **The server's own names** (``hard``, ``medium bot``, ``Seat 2``, ``Spectator``...) are nobody's.
- **An account's seat** shows the account's name, whatever name its request asked for, and says it is an
  account's (``"account": true``); a guest's seat says it is not.

The rules are :mod:`forsale.server.names`; the rated-table case is issue 36's ``Rated Mallory`` sitting as
``Rated Rita``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from websockets.sync.client import connect

from forsale.server import create_app
from forsale.server.names import joined_name, person_name_problem, reserved, skeleton
from forsale.server.store.database import normalize_url

from .oldschema import create_old_database

pytestmark = pytest.mark.timeout(120)

PASSWORD = "correct horse battery staple"


@pytest.fixture
def guest(server: Any) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base, timeout=30) as http:
        yield http


@pytest.fixture(scope="module")
def table(server: Any) -> str:
    """One waiting table of six for the whole module: a client may have only a few waiting at once."""
    with httpx.Client(base_url=server.base, timeout=30) as http:
        return waiting_table(http, players=6)


def sit_and_leave(http: httpx.Client, table: str, name: str) -> dict[str, Any]:
    """Sit at ``table`` as ``name`` and get up again (the seat is free for the next test); the seat as shown."""
    joined = http.post(f"/api/tables/{table}/join", json={"name": name})
    assert joined.status_code == 200, joined.text
    answer = joined.json()
    http.post(f"/api/tables/{table}/leave", json={"token": answer["token"]}).raise_for_status()
    return dict(answer["table"]["seats"][answer["seat"]])


def signed_up(server: Any, name: str) -> httpx.Client:
    http = httpx.Client(base_url=server.base, timeout=30)
    answer = http.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return http


def waiting_table(http: httpx.Client, **body: Any) -> str:
    answer = http.post("/api/tables", json={"players": 3, **body})
    assert answer.status_code == 201, answer.text
    return str(answer.json()["table"]["id"])


def refusal(answer: httpx.Response) -> tuple[int, str]:
    return answer.status_code, str(answer.json()["error"]["code"])


INVISIBLE = ["Ann\u200b", "\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "Ann\u2060", "\u200b\u200b", "A\u2028B",
             "\ufe0f", "Bob\u00ad", "Ann\U000e0041", "Z\u034f", "\u200d", "\U0001d159", "Ann\U0001d159"]  # fmt: skip


@pytest.mark.parametrize("name", INVISIBLE, ids=[ascii(n) for n in INVISIBLE])
def test_invisible_and_blank_characters_are_in_no_name(guest: httpx.Client, table: str, name: str) -> None:
    assert guest.post(f"/api/tables/{table}/join", json={"name": name}).status_code == 400
    assert guest.post("/api/tables", json={"join": True, "player_name": name}).status_code == 400
    assert guest.post("/api/tables", json={"name": name}).status_code == 400  # a table's name too
    assert guest.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 400
    listed = guest.get("/api/tables", params={"status": "all", "limit": 500}).json()["tables"]
    assert all(name not in json.dumps(t, ensure_ascii=False) for t in listed)


def test_an_emoji_with_its_presentation_selector_is_still_a_name(guest: httpx.Client, table: str) -> None:
    assert sit_and_leave(guest, table, "Ann \u2764\ufe0f")["name"] == "Ann \u2764\ufe0f"


@pytest.mark.parametrize("name", ["Раul", "Ραul", "Pаul", "Рaul", "Ann Ωmega", "Z\u0351\u0363\u036b\u0343ed"])
def test_names_that_mix_scripts_or_stack_accents_are_refused(guest: httpx.Client, table: str, name: str) -> None:
    assert person_name_problem(name) is not None
    assert refusal(guest.post(f"/api/tables/{table}/join", json={"name": name})) == (400, "bad_name")
    assert refusal(guest.post("/api/solo", json={"players": 2, "bot": "random", "player_name": name})) == (
        400,
        "bad_name",
    )
    assert refusal(guest.post("/api/signup", json={"name": name, "password": PASSWORD})) == (400, "bad_name")


@pytest.mark.parametrize(
    "name", ["山田たろう", "ヤマダ太郎", "김철수", "Ψάρης", "Пётр", "José-María", "Nguyễn Thị Ánh"]
)
def test_names_in_one_script_or_its_usual_combinations_are_welcome(guest: httpx.Client, table: str, name: str) -> None:
    assert sit_and_leave(guest, table, name) | {"seat": 0} == {
        "seat": 0, "kind": "human", "name": name, "bot": None, "account": False, "connected": False
    }  # fmt: skip


def test_no_account_and_no_guest_reads_as_an_existing_account(server: Any, guest: httpx.Client, table: str) -> None:
    signed_up(server, "Paulo").close()
    signed_up(server, "Ace").close()
    assert skeleton("Асе") == skeleton("Ace")  # whole Cyrillic: one script, and still reads "Ace"
    for other in ("PAULO", "paulo", "Pau1o", "Асе", "ACE"):
        answer = guest.post("/api/signup", json={"name": other, "password": PASSWORD})
        assert refusal(answer) == (409, "name_taken"), other
    for other in ("Paulo", "PAULO", "Pau1o", "Асе", "ace"):
        answer = guest.post(f"/api/tables/{table}/join", json={"name": other})
        assert refusal(answer) == (400, "bad_name"), other
        assert refusal(guest.post("/api/tables", json={"join": True, "player_name": other})) == (400, "bad_name")
    seats = guest.get(f"/api/tables/{table}").json()["table"]["seats"]
    assert all(s["kind"] == "open" for s in seats)


SERVERS_NAMES = ["hard", "Medium", "medium bot", "random bot", "RANDOM  BOT", "hard (robot)", "deleted player",
                 "Spectator", "Seat 2", "seat 10", "Player 3", "Ann (left; bot)", "Table of 4", "Solo game", "You"]  # fmt: skip


@pytest.mark.parametrize("name", SERVERS_NAMES)
def test_the_servers_own_names_are_nobodys(guest: httpx.Client, table: str, name: str) -> None:
    assert reserved(name)
    assert refusal(guest.post(f"/api/tables/{table}/join", json={"name": name})) == (400, "bad_name")
    assert refusal(guest.post("/api/signup", json={"name": name, "password": PASSWORD}))[0] == 400


def test_a_maker_who_gives_no_name_goes_by_the_seats_player_name(guest: httpx.Client) -> None:
    """Not "You", which the page would show to everybody else as somebody called You ("You passe..."): the
    seat's own server-made name, which the page says in its language and as "you" to that person only."""
    made = guest.post("/api/tables", json={"players": 3, "join": True})
    assert made.status_code == 201, made.text
    answer = made.json()
    seat = answer["seat"]
    assert answer["table"]["seats"][seat]["name"] == joined_name(seat) == f"Player {seat + 1}"
    guest.post(f"/api/tables/{answer['table']['id']}/leave", json={"token": answer["token"]}).raise_for_status()


def test_ordinary_names_are_not_taken_for_the_servers() -> None:
    ordinary = ("Abbot", "Robbie", "Seaton", "Player One Two", "Harding", "Ann", "Talbot", "Anh Tu", "Du Fu",
                "Jean du Pont", "Placebo", "Tafelberg", "Accountant", "Platzhirsch")  # fmt: skip
    assert [n for n in ordinary if reserved(n)] == []


TRANSLATED = ["Platz 2", "Place 3", "Posto 2", "Plaats 4", "hard (Bot)", "medium (bot)", "Anna (gegangen; Bot)",
              "Ann (parti ; robot)", "Ann (uscito; bot)", "Zuschauer", "Spectateur", "Spettatore", "Vous", "Du",
              "Jij", "Tu", "Ann (you)", "Ann (du)", "Bot: Ann", "Bot : Ann", "Tisch 3", "Ann [Bot]", "Joueur 3",
              "Spieler 2", "Giocatore 4", "Speler 5", "joueur supprimé", "gelöschter Spieler"]  # fmt: skip
"""The page shows the server's names in its reader's language: in every one of them they are nobody's."""
SPELLED_APART = ["Seat2", "Seat #2", "SEAT-2", "hardbot", "hard-bot", "Rita account", "Rita (account)", "Ann Konto"]
"""Spaces, ``#`` and punctuation are no disguise; nor is a badge's word after a name."""


@pytest.mark.parametrize("name", TRANSLATED + SPELLED_APART)
def test_the_servers_names_are_nobodys_in_every_language_and_spelling(name: str) -> None:
    assert reserved(name)
    assert person_name_problem(name) is not None


@pytest.mark.parametrize("name", ["Platz 2", "hard (Bot)", "Zuschauer", "Vous", "Seat #2", "hardbot", "Rita account"])
def test_the_server_refuses_its_names_in_every_language(guest: httpx.Client, table: str, name: str) -> None:
    assert refusal(guest.post(f"/api/tables/{table}/join", json={"name": name})) == (400, "bad_name")
    assert refusal(guest.post("/api/signup", json={"name": name, "password": PASSWORD})) == (400, "bad_name")


UNASSIGNED = ["Paul\u0378", "\u0fff", "Ann\U0002fffd"]


@pytest.mark.parametrize("name", UNASSIGNED, ids=[ascii(n) for n in UNASSIGNED])
def test_unassigned_code_points_are_in_no_persons_name(guest: httpx.Client, table: str, name: str) -> None:
    """A font draws nothing or a box for them, and a later Unicode may make them letters: no name to read."""
    assert person_name_problem(name) is not None
    assert refusal(guest.post(f"/api/tables/{table}/join", json={"name": name})) == (400, "bad_name")
    assert guest.post("/api/signup", json={"name": name, "password": PASSWORD}).status_code == 400


def test_small_capitals_read_as_the_letters_they_are_drawn_as(server: Any, guest: httpx.Client, table: str) -> None:
    assert skeleton("\u1d18aul") == skeleton("Paul") == skeleton("\u1d18\u1d00\u1d1c\u029f")
    signed_up(server, "Smallcaps").close()
    look_alike = "\ua731\u1d0d\u1d00\u029f\u029fcaps"  # ꜱᴍᴀʟʟcaps
    assert refusal(guest.post(f"/api/tables/{table}/join", json={"name": look_alike})) == (400, "bad_name")
    assert refusal(guest.post("/api/signup", json={"name": look_alike, "password": PASSWORD})) == (409, "name_taken")


def test_an_account_sits_under_its_own_name_and_its_seat_says_so(server: Any, guest: httpx.Client) -> None:
    rita, mallory = signed_up(server, "Rated Rita"), signed_up(server, "Rated Mallory")
    try:
        table = waiting_table(rita, rated=True, join=True, player_name="Somebody Else")
        joined = mallory.post(f"/api/tables/{table}/join", json={"name": "Rated Rita"})
        assert joined.status_code == 200, joined.text
        seats = joined.json()["table"]["seats"]
        assert [(s["name"], s["account"]) for s in seats[:2]] == [("Rated Rita", True), ("Rated Mallory", True)]
        # A casual table: the same. A guest's seat says it is no account's.
        casual = waiting_table(guest, join=True, player_name="Gus")
        mallory.post(f"/api/tables/{casual}/join", json={"name": "Rated Rita"}).raise_for_status()
        seats = guest.get(f"/api/tables/{casual}").json()["table"]["seats"]
        assert [(s["name"], s["account"]) for s in seats[:2]] == [("Gus", False), ("Rated Mallory", True)]
        # What a WebSocket is sent says the same.
        with connect(f"{server.ws}/ws/tables/{casual}", open_timeout=30) as ws:
            ws.send(json.dumps({"type": "hello"}))
            while (message := json.loads(ws.recv(timeout=30)))["type"] not in ("table", "snapshot", "state"):
                pass
            shown = json.dumps(message)
        assert '"account": true' in shown and '"account": false' in shown
    finally:
        rita.close()
        mallory.close()


def test_a_guest_seat_claimed_by_an_account_takes_the_accounts_name(server: Any, guest: httpx.Client) -> None:
    made = guest.post("/api/tables", json={"players": 3, "join": True, "player_name": "Just Guessing"}).json()
    owner = signed_up(server, "Claimer")
    try:
        claimed = owner.post(f"/api/tables/{made['table']['id']}/claim", json={"token": made["token"]})
        assert claimed.status_code == 200, claimed.text
        seat = claimed.json()["table"]["seats"][made["seat"]]
        assert (seat["name"], seat["account"]) == ("Claimer", True)
    finally:
        owner.close()


def test_an_old_databases_accounts_get_their_skeletons_so_no_new_account_reads_as_one(db_url: str) -> None:
    """Accounts made before the skeleton column are given theirs at the upgrade (SQLite and PostgreSQL)."""
    create_old_database(db_url, with_accounts=True)
    engine = create_engine(normalize_url(db_url))
    with engine.begin() as conn:
        conn.execute(
            text("INSERT INTO forsale_accounts (id, name, name_key, password_hash, created_at) "
                 "VALUES ('old1', 'Ace', 'ace', 'x', 0)")
        )  # fmt: skip
    engine.dispose()
    with TestClient(create_app(db_url, static_dir="/nonexistent")) as client:
        answer = client.post("/api/signup", json={"name": "Асе", "password": PASSWORD})  # whole Cyrillic
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "name_taken")
        guest = client.post("/api/tables", json={"players": 3, "join": True, "player_name": "ACE"})
        assert (guest.status_code, guest.json()["error"]["code"]) == (400, "bad_name")


def test_look_alikes_signing_up_at_once_get_one_account(server: Any) -> None:
    """The check for a look-alike and the new account are one transaction: of ``Raoul``, ``RaouI``, ``Ra0ul``
    and ``RAOUL`` signing up together (their password hashing in between), exactly one gets the name."""

    async def at_once() -> list[int]:
        async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
            answers = await asyncio.gather(
                *(
                    http.post("/api/signup", json={"name": n, "password": PASSWORD})
                    for n in ("Raoul", "RaouI", "Ra0ul", "RAOUL")
                )
            )
        return [a.status_code for a in answers]

    assert sorted(at_once_codes := asyncio.run(at_once())) == [201, 409, 409, 409], at_once_codes
