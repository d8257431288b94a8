"""What a player or a stranger may learn, against a real ``forsale serve`` over real HTTP and WebSockets.

- A sale choice before the reveal says only that the seat has chosen: the choice the server makes for
  an absent seat looks exactly like a person's (issue 36, point 8).
- A finished game that is not public (invitation-only, private, solo) shows to its own players only,
  in every listing, profile, rating history and record (issue 36, point 9; the rule is
  :mod:`forsale.server.store.visibility`).

One server (SQLite) for the whole module: starting one costs seconds on a loaded machine.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from forsale.actions import PASS
from forsale.rules import Ruleset
from forsale.server.table.scheduling import safe_action
from forsale.state import Deal, State
from forsale.view import view

pytestmark = pytest.mark.timeout(180)

PASSWORD = "correct horse battery staple"
WAIT = 60.0
"""Seconds any one message may take to come (a deadline, never a sleep: the machine may be loaded)."""


@pytest.fixture(scope="module")
def server(serve_process: type[Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    workdir: Path = tmp_path_factory.mktemp("visibility")
    proc = serve_process(
        f"sqlite:///{workdir / 'visibility.sqlite3'}", workdir, "--grace", "0.2", "--rest-rate", "1000000"
    ).start()
    try:
        yield proc
    finally:
        proc.stop()


def receive(ws: ClientConnection, *types: str) -> dict[str, Any]:
    """The next message of one of ``types`` (others skipped; an error fails the test)."""
    deadline = time.monotonic() + WAIT
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"no {types} message within {WAIT} s"
        message = json.loads(ws.recv(timeout=left))
        assert message["type"] != "error", message
        if message["type"] in types:
            return message


def account(server: Any, name: str) -> httpx.Client:
    """A client signed in as a new account ``name`` (its cookie kept; same-origin, as the page's requests)."""
    client = httpx.Client(base_url=server.base, headers={"Origin": server.base}, timeout=30)
    made = client.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert made.status_code == 201, made.text
    return client


# -- point 8: an absent seat's sale choice ---------------------------------------------------------
def test_a_sale_choice_made_for_an_absent_seat_looks_like_anyone_elses(server: Any) -> None:
    """Three seats; seat 2 joined and went away, so the server chooses for it after its (0.2 s) grace.

    In each sale round seat 0 chooses once it has seen seat 2's choice, and seat 1 (and a spectator)
    record every choice told before the reveal: the server's choice for the absent seat and seat 0's
    own must be told the same way, or everyone still choosing learns which house the server sold.
    """
    base = server.base
    table = httpx.post(base + "/api/tables", json={"players": 3}).json()["table"]["id"]
    tokens = [httpx.post(f"{base}/api/tables/{table}/join", json={"seat": s}).json()["token"] for s in range(3)]
    url = f"{server.ws}/ws/tables/{table}"
    told: dict[str, list[dict[str, Any]]] = {"seat 1": [], "spectator": []}
    with connect(url) as first, connect(url) as second, connect(url) as watcher:
        for ws, token in ((first, tokens[0]), (second, tokens[1]), (watcher, None)):
            ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
        views = [receive(first, "welcome")["view"], receive(second, "welcome")["view"]]
        receive(watcher, "welcome")
        rounds = 0
        while views[0]["phase"] != "over" and rounds < 2:
            if views[0]["phase"] == "auction":
                actor = views[0]["to_act"][0]
                if actor in (0, 1):
                    (first, second)[actor].send(json.dumps({"type": "act", "action": {"pass": True}}))
                    receive((first, second)[actor], "ack")
                states = [receive(first, "state"), receive(second, "state"), receive(watcher, "state")]
                views = [states[0]["view"], states[1]["view"]]
                continue
            # A sale round: the absent seat 2 is chosen for first (its grace is long over), then seat 0.
            rounds += 1
            pending = set(views[0]["to_act"])
            assert pending == {0, 1, 2}, views[0]
            while pending - {0, 1}:
                states = [receive(first, "state"), receive(second, "state"), receive(watcher, "state")]
                events = [s["event"] for s in states]
                assert events[0] == events[1] == events[2] and events[0]["seat"] == 2, events
                told["seat 1"].append(states[1]["event"])
                told["spectator"].append(states[2]["event"])
                pending.discard(2)
            first.send(json.dumps({"type": "act", "action": states[0]["view"]["legal"][0]}))
            receive(first, "ack")
            states = [receive(first, "state"), receive(second, "state"), receive(watcher, "state")]
            assert states[1]["event"]["seat"] == 0 and "reveal" not in states[1]["event"], states[1]["event"]
            told["seat 1"].append(states[1]["event"])
            told["spectator"].append(states[2]["event"])
            second.send(json.dumps({"type": "act", "action": states[1]["view"]["legal"][-1]}))
            receive(second, "ack")
            states = [receive(first, "state"), receive(second, "state"), receive(watcher, "state")]
            assert "reveal" in states[1]["event"]  # the last choice reveals the round
            views = [states[0]["view"], states[1]["view"]]
    assert rounds == 2
    for who, events in told.items():
        away = [{k: v for k, v in e.items() if k not in ("seq", "seat")} for e in events if e["seat"] == 2]
        person = [{k: v for k, v in e.items() if k not in ("seq", "seat")} for e in events if e["seat"] == 0]
        assert len(away) == len(person) == 2, (who, events)
        assert away == person == [{"kind": "commit", "source": None}] * 2, (who, events)


def test_the_clock_sells_a_house_drawn_at_random_not_one_the_others_can_name() -> None:
    """Hands are public and so is a seat's absence (``connected``, ``clock.deadlines``): a fixed rule such as
    "the lowest house" would name the house the server sold for it. Every house of the hand comes up."""
    state = State(Ruleset.parse(None, 3), Deal.random(Ruleset.parse(None, 3), random.Random(3)))
    while state.phase == "auction":
        state.push(state.seats_to_act()[0], PASS)
    hand = {action.house for action in view(state, 0).legal_actions()}  # type: ignore[union-attr]
    assert len(hand) >= 3
    drawn = {safe_action(view(state, 0)).house for _ in range(300)}  # type: ignore[union-attr]
    assert drawn == hand  # each of 300 draws misses a given house with odds (1 - 1/|hand|): never in practice


# -- point 9: games hidden from everyone but their players -------------------------------------------
def play_seat(server: Any, table: str, token: str) -> str:
    """Play one seat to the end over a real WebSocket (the first legal move, on the newest state only)."""
    with connect(f"{server.ws}/ws/tables/{table}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        latest = receive(ws, "welcome")
        seat, acked, pending = latest["seat"], 0, False
        while latest["status"] != "over":
            if not pending and latest["seq"] >= acked and seat in latest["view"]["to_act"]:
                ws.send(json.dumps({"type": "act", "action": latest["view"]["legal"][0]}))
                pending = True
            message = receive(ws, "state", "ack")
            if message["type"] == "ack":
                acked, pending = message["seq"], False
            else:
                latest = message
        return str(latest["status"])


def play_seats(server: Any, table: str, tokens: list[str]) -> None:
    """Play several people's seats at once (one thread each: each waits on its own socket)."""
    with ThreadPoolExecutor(len(tokens)) as pool:
        assert list(pool.map(lambda token: play_seat(server, table, token), tokens)) == ["over"] * len(tokens)


def everything_about(client: httpx.Client, names: list[str]) -> dict[str, httpx.Response]:
    """Every listing a viewer can ask for that names finished games or ratings."""
    paths = ["/api/tables?status=over&limit=500", "/api/tables?status=all", "/api/leaderboard"]
    paths += ["/api/leaderboard?kind=bots", "/api/leaderboard?players=3", "/api/leaderboard?players=2"]
    paths += [f"/api/players/{name}" for name in names]
    out = {path: client.get(path) for path in paths}
    for path, response in out.items():
        assert response.status_code == 200, (path, response.text)
    return out


def test_a_hidden_game_shows_to_its_players_only_in_every_listing_profile_and_history(server: Any) -> None:
    """Ann and Bob play a rated invitation-only game with the ``random`` bot, Ann a rated solo game; Ann
    also plays a rated public game. Eve (another account) and an anonymous visitor see the public game
    and nothing of the other two, wherever they look; Ann and Bob see what they played."""
    ann, bob, eve = account(server, "Ann"), account(server, "Bob"), account(server, "Eve")
    anonymous = httpx.Client(base_url=server.base, timeout=30)
    secret_name = "Hush table 7f3"
    made = ann.post(
        "/api/tables",
        json={"name": secret_name, "players": 3, "join": True, "rated": True, "invite_only": True,
              "seats": [None, None, "random"]},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    secret = made.json()["table"]["id"]
    joined = bob.post(f"/api/tables/{secret}/join", json={"invite": made.json()["invite"]})
    assert joined.status_code == 200, joined.text
    play_seats(server, secret, [made.json()["token"], joined.json()["token"]])
    solo = ann.post("/api/solo", json={"name": "Hush solo 7f3", "players": 2, "bot": "random", "rated": True})
    assert solo.status_code == 201, solo.text
    play_seats(server, solo.json()["table"]["id"], [solo.json()["token"]])
    listed = ann.post("/api/tables", json={"players": 2, "join": True, "rated": True, "seats": [None, "random"]})
    assert listed.status_code == 201, listed.text
    public = listed.json()["table"]["id"]
    play_seats(server, public, [listed.json()["token"]])
    hidden = {secret, solo.json()["table"]["id"]}
    deadline = time.monotonic() + WAIT  # each game is rated right after it ends, on the writer thread
    while ann.get("/api/players/Ann").json()["player"]["ratings"].get("0", {}).get("games") != 3:
        assert time.monotonic() < deadline, "the three rated games were not rated"
        time.sleep(0.05)

    names = ["Ann", "Bob", "bot:random"]
    for viewer in (anonymous, eve):
        seen = everything_about(viewer, names)
        for path, response in seen.items():
            for game in hidden:
                assert game not in response.text, (path, response.text)
            assert "Hush" not in response.text and "7f3" not in response.text, (path, response.text)
        assert public in seen["/api/tables?status=over&limit=500"].text
        for name in names:
            player = seen[f"/api/players/{name}"].json()["player"]
            assert {g["id"] for g in player["games"]} == ({public} if name != "Bob" else set()), (name, player)
            history = player["history"]["0"]
            # The rating after each game stays (the leaderboard shows ratings anyway); a hidden game's id and
            # time go.
            shown_ids = [point["game"] for point in history if point["game"] is not None]
            assert shown_ids == ([public] if name != "Bob" else []), (name, history)
            assert all(point["at"] is None for point in history if point["game"] is None), history
            assert len(history) == player["ratings"]["0"]["games"]
        for path in ("", "/record", "/replay", "/analysis", "/view"):
            response = viewer.get(f"/api/tables/{secret}{path}")
            assert response.status_code == 403 and response.json()["error"]["code"] == "private_table", path

    for viewer, own in ((ann, hidden | {public}), (bob, {secret})):
        seen = everything_about(viewer, names)
        assert {g["id"] for g in seen["/api/players/Ann"].json()["player"]["games"]} == own | ({public})
        assert {g["id"] for g in seen["/api/players/Bob"].json()["player"]["games"]} == {secret}
        bot = seen["/api/players/bot:random"].json()["player"]
        assert {g["id"] for g in bot["games"]} == own | {public}
        assert {p["game"] for p in bot["history"]["0"]} - {None} == own | {public}
        assert secret_name in seen["/api/players/Bob"].text  # its own players see its name
        assert viewer.get(f"/api/tables/{secret}/record").status_code == 200
    assert secret not in anonymous.get("/api/tables?status=over&limit=500").text  # still not listed


def test_the_server_logged_no_traceback(server: Any) -> None:
    """Runs last (file order): nothing above was a bug of the server's."""
    assert server.proc.poll() is None
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
