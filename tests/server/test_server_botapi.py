"""Bot accounts, API tokens, challenges and ``forsale connect``, over real HTTP against a real ``forsale serve``.

- **Tokens**: only a bot account makes them; shown once, listed with their last use and never their secret,
  stored as the secret's sha256, revoked at once; a token is no session and a session is no token; a
  ``bot:read`` token cannot play; the secret is in no log line.
- **Bot accounts**: the upgrade needs the password and no game under way; a bot account's session cannot sit
  (``bot_account``) and its table sockets only watch.
- **Challenges**: a person challenges a bot account, the bot reads the notice, declines with a reason or
  accepts; both are seated and play a whole game through the table sockets (the bot with ``forsale.client``);
  a pending challenge past its time is expired and no answer counts.
- **forsale connect**, a real subprocess, accepts a person's challenge and plays the game to its end.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from forsale.client import BotClient, run_bot
from forsale.client.bot import GameOver
from forsale.view import View
from harness.serve import checkout_env

from .realws import hello, recv_until

pytestmark = pytest.mark.timeout(120)

PASSWORD = "correct horse battery staple"
_names = iter(range(10**6))


@pytest.fixture(scope="module")
def server(serve_process: type[Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One real server for the module, logging at info, REST rate limit off."""
    workdir: Path = tmp_path_factory.mktemp("botapi")
    proc = serve_process(
        f"sqlite:///{workdir / 'server.sqlite3'}", workdir, "--rest-rate", "1000000", "--log-level", "info"
    ).start()
    try:
        yield proc
    finally:
        proc.stop()


def person(server: Any, prefix: str = "Ann") -> tuple[httpx.Client, str]:
    """A new account, signed in on its own client (a session cookie); the client and the name."""
    http = httpx.Client(base_url=server.base, timeout=30)
    name = f"{prefix}{next(_names)}"
    answer = http.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return http, name


def bot_account(server: Any, scopes: list[str] | None = None) -> tuple[httpx.Client, str, str]:
    """A new bot account and one API token of it: its session's client, its name, the token."""
    http, name = person(server, "Botty")
    assert http.post("/api/me/bot", json={"password": PASSWORD}).json()["account"]["bot_account"] is True
    body: dict[str, Any] = {"name": "laptop", "password": PASSWORD}
    if scopes is not None:
        body["scopes"] = scopes
    made = http.post("/api/me/tokens", json=body)
    assert made.status_code == 201, made.text
    return http, name, made.json()["token"]


def random_policy(view: View) -> Any:
    return random.choice(view.legal_actions())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def code_of(answer: httpx.Response) -> str:
    return str(answer.json()["error"]["code"])


def test_tokens_are_a_bot_accounts_own_hashed_listed_revocable_and_no_session(server: Any) -> None:
    http, _ = person(server)
    assert code_of(http.post("/api/me/tokens", json={"name": "x", "password": PASSWORD})) == "not_bot_account"
    assert code_of(http.post("/api/me/bot", json={"password": "wrong password!"})) == "wrong_password"
    upgraded = http.post("/api/me/bot", json={"password": PASSWORD})
    assert upgraded.status_code == 200 and upgraded.json()["account"]["bot_account"] is True
    assert http.get("/api/me").json()["account"]["bot_account"] is True
    assert code_of(http.post("/api/me/bot", json={"password": PASSWORD})) == "already_bot"
    assert (
        code_of(http.post("/api/me/tokens", json={"name": "x", "password": PASSWORD, "scopes": ["admin"]}))
        == "bad_request"
    )
    # A session alone mints no token (a stolen one would outlive a password change): the password again.
    assert code_of(http.post("/api/me/tokens", json={"name": "x"})) == "bad_request"
    assert code_of(http.post("/api/me/tokens", json={"name": "x", "password": "wrong password!"})) == "wrong_password"
    assert http.get("/api/me/tokens").json()["tokens"] == []

    made = http.post("/api/me/tokens", json={"name": "laptop", "password": PASSWORD}).json()
    token = made["token"]
    assert token.startswith("fsb_") and made["scopes"] == ["bot:read", "bot:play"]
    listed = http.get("/api/me/tokens").json()["tokens"]
    assert [(t["id"], t["name"], t["last_used_at"]) for t in listed] == [(made["id"], "laptop", None)]
    assert token not in json.dumps(listed)

    me = httpx.get(server.base + "/api/bot/account", headers=bearer(token)).json()
    assert me["account"]["bot_account"] is True and me["scopes"] == ["bot:read", "bot:play"]
    assert http.get("/api/me/tokens").json()["tokens"][0]["last_used_at"] is not None
    # A session is no token, a token is no session.
    assert code_of(http.get("/api/bot/account")) == "no_token"
    assert httpx.get(server.base + "/api/me", headers=bearer(token)).json() == {"account": None}
    assert code_of(httpx.get(server.base + "/api/bot/account", headers=bearer("fsb_" + "A" * 32))) == "bad_token"
    assert code_of(httpx.get(server.base + "/api/bot/account", headers={"Authorization": token})) == "bad_token"

    # At rest: the sha256 of the secret, and the secret nowhere in the database.
    db = server.workdir / "server.sqlite3"
    with sqlite3.connect(db) as conn:
        hashes = [row[0] for row in conn.execute("SELECT token_hash FROM forsale_api_tokens")]
    assert hashlib.sha256(token.encode()).hexdigest() in hashes
    assert token.encode() not in b"".join(p.read_bytes() for p in server.workdir.glob("server.sqlite3*"))

    # Bad input from a token's holder is logged (the bad-input log) without the token.
    bad = httpx.post(server.base + "/api/bot/challenges/x/decline", content=b"{", headers={
        **bearer(token), "Content-Type": "application/json"})  # fmt: skip
    assert code_of(bad) == "bad_json"
    assert http.delete(f"/api/me/tokens/{made['id']}").json() == {"revoked": made["id"]}
    assert code_of(httpx.get(server.base + "/api/bot/account", headers=bearer(token))) == "bad_token"
    assert code_of(http.delete(f"/api/me/tokens/{made['id']}")) == "not_found"
    log = server.log.read_text(errors="replace")
    assert "bad_json" in log and "/api/bot/challenges/x/decline" in log
    assert token not in log and token[4:] not in log


def test_a_read_token_cannot_play_and_a_deleted_bots_tokens_go_with_it(server: Any) -> None:
    bot, _, reader = bot_account(server, ["bot:read"])
    assert httpx.get(server.base + "/api/bot/games", headers=bearer(reader)).json() == {"games": []}
    seat = httpx.post(server.base + "/api/bot/tables/nosuch/seat", json={}, headers=bearer(reader))
    assert (seat.status_code, code_of(seat)) == (403, "missing_scope")
    assert bot.post("/api/me/delete", json={"password": PASSWORD}).json() == {"account": None}
    assert code_of(httpx.get(server.base + "/api/bot/account", headers=bearer(reader))) == "bad_token"
    with sqlite3.connect(server.workdir / "server.sqlite3") as conn:
        held = conn.execute("SELECT token_hash FROM forsale_api_tokens").fetchall()
    assert hashlib.sha256(reader.encode()).hexdigest() not in [row[0] for row in held]


def test_the_upgrade_waits_for_games_under_way_and_a_bot_account_cannot_sit_as_a_person(server: Any) -> None:
    http, _ = person(server)
    assert http.post("/api/tables", json={"players": 3, "join": True}).status_code == 201  # sitting at seat 0
    refused = http.post("/api/me/bot", json={"password": PASSWORD})
    assert (refused.status_code, code_of(refused)) == (409, "playing")

    bot, _, _ = bot_account(server)
    for path, body in (("/api/solo", {"players": 3}), ("/api/tables", {"players": 3})):
        answer = bot.post(path, json=body)
        assert (answer.status_code, code_of(answer)) == (403, "bot_account"), path
    other, _ = person(server, "Cy")
    open_table = other.post("/api/tables", json={"players": 3}).json()["table"]["id"]
    assert code_of(bot.post(f"/api/tables/{open_table}/join", json={})) == "bot_account"
    assert code_of(bot.post(f"/api/tables/{open_table}/resume", json={})) == "bot_account"
    # Nor by claiming a guest's seat with its token.
    guest = httpx.post(server.base + f"/api/tables/{open_table}/join", json={}).json()["token"]
    claimed = bot.post(f"/api/tables/{open_table}/claim", json={"token": guest})
    assert (claimed.status_code, code_of(claimed)) == (403, "bot_account")


def test_the_upgrade_waits_for_tournaments_entered_and_ends_a_wait_in_quick_pairing(server: Any) -> None:
    """A person's entry in a tournament without bots would be played by a program: refused until withdrawn. A
    person's wait in quick pairing (matched with people who said never to bots) goes with the upgrade."""
    http, name = person(server)
    tid = http.post("/api/tournaments", json={"name": "No bots", "bots": False}).json()["id"]
    refused = http.post("/api/me/bot", json={"password": PASSWORD})
    assert (refused.status_code, code_of(refused)) == (409, "playing")
    assert http.post(f"/api/tournaments/{tid}/withdraw").status_code == 200
    assert http.post("/api/pairing", json={"players": 6}).status_code == 201  # waits for five people: none come
    assert http.post("/api/me/bot", json={"password": PASSWORD}).status_code == 200
    with sqlite3.connect(server.workdir / "server.sqlite3") as conn:
        waiting = conn.execute("SELECT name FROM forsale_pairing").fetchall()
    assert (name,) not in waiting


def first_legal_until_over(ws: Any, welcome: dict[str, Any]) -> dict[str, Any]:
    """Play a welcomed seat with its first legal action (a pass, or the lowest house) to the game's end; the last
    state."""
    acted, msg = -1, welcome
    while True:
        if msg["status"] == "over":
            return msg
        if msg["view"]["legal"] and msg["seq"] > acted:
            acted = msg["seq"]
            ws.send(json.dumps({"type": "act", "action": msg["view"]["legal"][0], "id": acted}))
        msg = recv_until(ws, lambda m: m["type"] == "state", 60)


def take_seat(http: httpx.Client, table: str) -> dict[str, Any]:
    resumed = http.post(f"/api/tables/{table}/resume", json={})
    assert resumed.status_code == 200, resumed.text
    return dict(resumed.json())


def test_a_challenge_declined_then_accepted_and_played_to_the_end_by_the_client(server: Any) -> None:
    _, bot_name, token = bot_account(server)
    bob, bob_name = person(server, "Bob")
    stream = httpx.Client(base_url=server.base, headers=bearer(token), timeout=40)
    last = stream.get("/api/bot/notices").json()["last"]

    assert code_of(bob.post("/api/challenges", json={"bot": "Nobody here"})) == "no_such_bot"
    assert code_of(bob.post("/api/challenges", json={"bot": bot_name, "players": 3, "bots": []})) == "bad_seats"
    first = bob.post("/api/challenges", json={"bot": bot_name, "players": 2, "time_limit": 30}).json()["challenge"]
    assert first["status"] == "pending" and first["to"] == bot_name
    got = stream.get("/api/bot/notices", params={"after": last, "wait": 10}).json()
    assert [(n["kind"], n["challenge"]["id"]) for n in got["notices"]] == [("challenge", first["id"])]
    declined = stream.post(f"/api/bot/challenges/{first['id']}/decline", json={"reason": "later"}).json()
    assert (declined["challenge"]["status"], declined["challenge"]["reason"]) == ("declined", "later")
    assert bob.get(f"/api/challenges/{first['id']}").json()["challenge"]["status"] == "declined"
    assert code_of(stream.post(f"/api/bot/challenges/{first['id']}/accept", json={})) == "challenge_over"

    terms = {"bot": bot_name, "players": 3, "bots": ["random"], "rated": True}
    second = bob.post("/api/challenges", json=terms).json()
    table = stream.post(f"/api/bot/challenges/{second['challenge']['id']}/accept", json={}).json()["challenge"]["table"]
    assert table is not None
    seated = stream.get("/api/bot/notices", params={"after": got["last"], "wait": 10}).json()["notices"]
    assert {"kind": "seated", "table": table} in [{"kind": n["kind"], "table": n.get("table")} for n in seated]

    over: list[GameOver] = []

    async def bot_plays() -> None:
        async with BotClient(server.base, token) as client:
            over.append(await client.play(table, lambda view: view.legal_actions()[-1]))

    playing = threading.Thread(target=asyncio.run, args=(bot_plays(),))
    playing.start()
    sat = take_seat(bob, table)
    with connect(f"{server.ws}/ws/tables/{table}") as ws:
        welcome = hello(ws, sat["token"])
        last_state = first_legal_until_over(ws, welcome)
    playing.join(60)
    assert over and over[0].result == last_state["result"]
    assert over[0].names == [s["name"] for s in welcome["info"]["seats"]] and bot_name in over[0].names
    marked = [s["name"] for s in welcome["info"]["seats"] if s.get("bot_account")]
    assert marked == [bot_name]  # the bot account's seat, and no other (the server bot's neither)
    assert bob.get(f"/api/players/{bot_name}").json()["player"]["bot_account"] is True
    assert "bot_account" not in bob.get(f"/api/players/{bob_name}").json()["player"]
    deadline = time.monotonic() + 10  # the game is rated right behind its last event: the bot on the people's scale
    while not (rows := [r for r in bob.get("/api/leaderboard?kind=people").json()["ratings"] if r["name"] == bot_name]):
        assert time.monotonic() < deadline, "the bot account's rating never came"
        time.sleep(0.1)
    assert rows[0]["bot_account"] is True
    assert all("bot_account" not in r for r in bob.get("/api/leaderboard").json()["ratings"] if r["name"] == bob_name)


def test_an_expired_challenge_takes_no_answer(server: Any) -> None:
    _, bot_name, token = bot_account(server)
    bob, _ = person(server, "Bob")
    made = bob.post("/api/challenges", json={"bot": bot_name}).json()["challenge"]
    db = server.workdir / "server.sqlite3"
    with sqlite3.connect(db) as conn:  # its 60 seconds are up
        conn.execute("UPDATE forsale_challenges SET expires_at = ? WHERE id = ?", (time.time() - 1, made["id"]))
    assert bob.get(f"/api/challenges/{made['id']}").json()["challenge"]["status"] == "expired"
    accepted = httpx.post(f"{server.base}/api/bot/challenges/{made['id']}/accept", json={}, headers=bearer(token))
    assert (accepted.status_code, code_of(accepted)) == (409, "challenge_over")
    assert httpx.get(server.base + "/api/bot/challenges", headers=bearer(token)).json() == {"challenges": []}


def test_forsale_connect_accepts_a_challenge_and_plays_the_game_to_its_end(server: Any) -> None:
    _, bot_name, token = bot_account(server)
    command = [sys.executable, "-m", "forsale", "connect", "--server", server.base, "--bot", "random", "--games", "1",
               "--players", "2"]  # fmt: skip
    env = {**checkout_env(), "FORSALE_TOKEN": token}
    bot = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        bob, _ = person(server, "Bob")
        deadline = time.monotonic() + 30
        refused = bob.post("/api/challenges", json={"bot": bot_name, "players": 3, "bots": ["random"]}).json()
        while True:  # the bot declines 3 players (--players 2), then accepts 2
            if bob.get(f"/api/challenges/{refused['challenge']['id']}").json()["challenge"]["status"] == "declined":
                break
            assert time.monotonic() < deadline, "the bot never answered"
            time.sleep(0.1)
        made = bob.post("/api/challenges", json={"bot": bot_name, "players": 2}).json()["challenge"]
        while (challenge := bob.get(f"/api/challenges/{made['id']}").json()["challenge"])["table"] is None:
            assert time.monotonic() < deadline, "the bot never accepted"
            time.sleep(0.1)
        sat = take_seat(bob, challenge["table"])
        with connect(f"{server.ws}/ws/tables/{challenge['table']}") as ws:
            first_legal_until_over(ws, hello(ws, sat["token"]))
        out, _ = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
    assert bot.returncode == 0, out
    assert f"as {bot_name}" in out and "declined" in out and f"table {challenge['table']}: " in out
    assert token not in out


def test_forsale_connect_says_what_is_wrong_with_its_server_or_token(server: Any) -> None:
    def connect_with(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "forsale", "connect", "--bot", "random", *args]
        return subprocess.run(command, env=checkout_env(), capture_output=True, text=True, timeout=60)

    bad_url = connect_with("--server", "ftp://example", "--token", "fsb_x")
    assert bad_url.returncode == 2 and "http:// or https://" in bad_url.stderr
    bad_token = connect_with("--server", server.base, "--token", "fsb_" + "B" * 32)
    assert bad_token.returncode == 2 and "refused the token" in bad_token.stderr


def test_three_bots_meet_in_quick_pairing_and_play_a_game_through_the_runner(server: Any) -> None:
    """``run_bot`` with ``pairing``: the bots join the queue through the Bot API, stay in it while their event
    streams wait, are seated together by the matcher, play the game and leave; nobody stays queued."""
    tokens = [bot_account(server)[2] for _ in range(3)]
    ended: list[GameOver] = []

    async def all_three() -> list[int]:
        clients = [BotClient(server.base, token) for token in tokens]
        try:
            runs = [run_bot(c, random_policy, pairing={"players": 3}, games=1, on_game=ended.append) for c in clients]
            return list(await asyncio.wait_for(asyncio.gather(*runs), 60))
        finally:
            for client in clients:
                await client.aclose()

    assert asyncio.run(all_three()) == [1, 1, 1]
    assert len({over.table for over in ended}) == 1 and {over.seat for over in ended} == {0, 1, 2}
    for token in tokens:
        state = httpx.get(server.base + "/api/bot/pairing", headers=bearer(token)).json()
        assert state["pairing"] is None


def test_forsale_connect_bots_play_a_whole_tournament(server: Any) -> None:
    """Two ``forsale connect`` bots enter a two-round Swiss tournament (tables of three, a server bot filling the
    third seat) with ``--tournament``, play both rounds' games and stop; the tournament ends with both ranked."""
    creator, _ = person(server, "Tess")
    made = creator.post("/api/tournaments", json={
        "name": "Bots cup", "players": 3, "rounds": 2, "fill": "random", "start_players": 2, "time_limit": 30,
        "join": False,
    })  # fmt: skip
    assert made.status_code == 201, made.text
    cup = made.json()["id"]
    bots = [bot_account(server) for _ in range(2)]
    command = [sys.executable, "-m", "forsale", "connect", "--server", server.base, "--bot", "random",
               "--tournament", cup, "--games", "2"]  # fmt: skip
    processes = [
        subprocess.Popen(command, env={**checkout_env(), "FORSALE_TOKEN": token}, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
        for _, _, token in bots
    ]  # fmt: skip
    try:
        outs = [p.communicate(timeout=90)[0] for p in processes]
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
    for p, out in zip(processes, outs):
        assert p.returncode == 0, out
        assert f"entered tournament {cup}" in out and len(re.findall(r"table [\w-]+: (?:won|lost) at seat", out)) == 2
    deadline = time.monotonic() + 15
    while (shown := creator.get(f"/api/tournaments/{cup}").json())["status"] != "over":
        assert time.monotonic() < deadline, shown["status"]
        time.sleep(0.2)
    assert sorted(line["name"] for line in shown["standings"]) == sorted(name for _, name, _ in bots)
    assert shown["rounds"] == 2 and [len(r["tables"]) for r in shown["schedule"]] == [1, 1]
    assert [line["games"] for line in shown["standings"]] == [2, 2]


def test_each_token_is_rate_limited_on_its_own(server: Any) -> None:
    tokens = [bot_account(server)[2] for _ in range(2)]
    with httpx.Client(base_url=server.base, headers=bearer(tokens[0])) as http:
        answers = [http.get("/api/bot/account") for _ in range(100)]
    codes = [a.status_code for a in answers]
    assert codes[:60] == [200] * 60 and 429 in codes  # a burst of 60, then 10 a second
    refused = answers[codes.index(429)]
    assert code_of(refused) == "rate_limited" and refused.headers["retry-after"] == "1"
    assert httpx.get(server.base + "/api/bot/account", headers=bearer(tokens[1])).status_code == 200


def test_revoking_the_api_token_ends_the_bots_seat_tokens(server: Any) -> None:
    bot, bot_name, token = bot_account(server)
    bob, _ = person(server, "Bob")
    challenge = bob.post("/api/challenges", json={"bot": bot_name}).json()["challenge"]
    accepted = httpx.post(f"{server.base}/api/bot/challenges/{challenge['id']}/accept", json={}, headers=bearer(token))
    table = accepted.json()["challenge"]["table"]
    sat = httpx.post(f"{server.base}/api/bot/tables/{table}/seat", json={}, headers=bearer(token)).json()
    with connect(f"{server.ws}/ws/tables/{table}") as ws:
        assert hello(ws, sat["token"])["seat"] == sat["seat"]
        token_id = bot.get("/api/me/tokens").json()["tokens"][0]["id"]
        assert bot.delete(f"/api/me/tokens/{token_id}").status_code == 200
        told = recv_until(ws, lambda m: m["type"] == "error")
        assert told["code"] == "bad_token"
    with connect(f"{server.ws}/ws/tables/{table}") as ws:
        assert hello(ws, sat["token"])["code"] == "bad_token"


def test_challenges_made_and_cancelled_in_a_loop_are_limited_a_minute(server: Any) -> None:
    from forsale.server.lobby.challenges import PER_MINUTE

    _, bot_name, _ = bot_account(server)
    bob, _ = person(server, "Bob")
    for _ in range(PER_MINUTE):  # never more than one pending, so the pending limit never says no
        made = bob.post("/api/challenges", json={"bot": bot_name})
        assert made.status_code == 201, made.text
        assert bob.delete(f"/api/challenges/{made.json()['challenge']['id']}").status_code == 200
    refused = bob.post("/api/challenges", json={"bot": bot_name})
    assert (refused.status_code, code_of(refused)) == (429, "rate_limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
