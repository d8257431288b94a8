"""The protocol over real WebSockets (Starlette's TestClient runs the ASGI app in-process).

Whole games of four clients, bots, spectators, reconnection, clocks, and
every kind of bad input, each answered with an error to its sender only.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from forsale import from_record, new_game, view
from forsale.server import create_app

from .wire import recv

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def make_client(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def make(**options: Any) -> TestClient:
        db = options.pop("db", f"sqlite:///{tmp_path / 'server.sqlite3'}")
        client = TestClient(create_app(db, **options))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def play_seat(ws: Any, seat: int, choose: Callable[[dict[str, Any]], Any]) -> list[dict[str, Any]]:
    """Play one seat to the end of the game, acting only on the newest state; returns every state seen."""
    latest = recv(ws, "welcome")
    states = []
    acked, pending = 0, False
    while latest["status"] != "over":
        if not pending and latest["seq"] >= acked and seat in latest["view"]["to_act"]:
            ws.send_json({"type": "act", "action": choose(latest["view"])})
            pending = True
        message = ws.receive_json()
        if message["type"] == "ack":
            acked, pending = message["seq"], False
        elif message["type"] == "state":
            assert message["seq"] > latest["seq"]
            latest = message
            states.append(message)
        else:
            assert message["type"] in ("table", "chat_history"), message  # a chat history may follow a welcome
    return states


def table_of_humans(client: TestClient, n: int = 4, **body: Any) -> tuple[str, list[str], str]:
    created = client.post("/api/tables", json={"players": n, **body})
    assert created.status_code == 201, created.text
    table_id = created.json()["table"]["id"]
    tokens = []
    for seat in range(n):
        joined = client.post(f"/api/tables/{table_id}/join", json={"seat": seat, "name": f"P{seat}"})
        assert joined.status_code == 200, joined.text
        assert joined.json()["seat"] == seat
        tokens.append(joined.json()["token"])
    return table_id, tokens, created.json()["creator_token"]


def play_lockstep(sockets: dict[int, Any], views: dict[int, dict[str, Any]], rng: random.Random, spectators=()):
    """Drive a game of all-human seats to the end: each action, one ack, then one state per connection."""
    messages = 0
    while views[0]["phase"] != "over":
        seat = views[0]["to_act"][0]
        legal = views[seat]["legal"]
        action = rng.choice(legal[:4]) if views[seat]["phase"] == "auction" else rng.choice(legal)
        sockets[seat].send_json({"type": "act", "action": action, "id": messages})
        ack = recv(sockets[seat], "ack", "error")
        assert ack["type"] == "ack", ack
        assert ack["id"] == messages
        for s, ws in sockets.items():
            state = recv(ws, "state")
            assert state["seq"] == ack["seq"]
            views[s] = state["view"]
        for ws in spectators:
            assert recv(ws, "state")["seq"] == ack["seq"]
        messages += 1
    return messages


def test_health_and_lobby_endpoints(client: TestClient) -> None:
    health = client.get("/api/health")
    assert health.status_code == 200
    assert health.json()["status"] == "ok" and health.json()["database"] == "sqlite"
    assert "random" in client.get("/api/bots").json()["names"]
    assert "official" in client.get("/api/rulesets").json()["presets"]
    assert client.get("/").status_code == 200  # the web page (or its placeholder)


def test_rulesets_give_each_presets_knobs_at_each_player_count(client: TestClient) -> None:
    answer = client.get("/api/rulesets").json()
    # JSON keys are strings; the page's ledger reads a record's starting coins and refund from here.
    assert answer["preset_knobs"]["first-edition"]["3"] == {"starting_coins": 28, "removed": 0, "refund": "up"}
    assert answer["preset_knobs"]["official"]["5"] == {"starting_coins": 14, "removed": 0, "refund": "down"}
    assert list(answer["preset_knobs"]["two-player"]) == ["2"]
    assert answer["defaults"]["2"] == answer["preset_knobs"]["two-player"]["2"]


def test_a_whole_game_of_four_clients_and_a_spectator(client: TestClient) -> None:
    table_id, tokens, _ = table_of_humans(client)
    info = client.get(f"/api/tables/{table_id}").json()["table"]
    assert info["status"] == "playing" and info["open_seats"] == []
    sockets: dict[int, Any] = {}
    views: dict[int, dict[str, Any]] = {}
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as w0,
        client.websocket_connect(f"/ws/tables/{table_id}") as w1,
        client.websocket_connect(f"/ws/tables/{table_id}") as w2,
        client.websocket_connect(f"/ws/tables/{table_id}") as w3,
        client.websocket_connect(f"/ws/tables/{table_id}") as spectator,
    ):
        for seat, ws in enumerate((w0, w1, w2, w3)):
            ws.send_json({"type": "hello", "token": tokens[seat]})
            welcome = recv(ws, "welcome")
            assert welcome["seat"] == seat and welcome["seq"] == 0
            assert welcome["view"]["seat"] == seat
            sockets[seat], views[seat] = ws, welcome["view"]
        spectator.send_json({"type": "hello"})
        watched = recv(spectator, "welcome")
        assert watched["seat"] is None and watched["view"]["seat"] is None and watched["view"]["legal"] == []
        actions = play_lockstep(sockets, views, random.Random(1), [spectator])
        assert actions > 28
        final = views[0]
    record = client.get(f"/api/tables/{table_id}/record")
    assert record.status_code == 200 and "attachment" in record.headers["content-disposition"]
    state = from_record(record.json())
    assert state.is_over and state.scores() == final["scores"]
    assert record.json()["players"] == ["P0", "P1", "P2", "P3"]
    result = client.get(f"/api/tables/{table_id}").json()["result"]
    assert result["winners"] == state.winners() and result["scores"] == state.scores()
    replay = client.get(f"/api/tables/{table_id}/replay").json()
    assert len(replay["frames"]) == len(record.json()["moves"]) + 1
    assert replay["frames"][-1]["phase"] == "over" and replay["frames"][0]["history"] == []
    finished = client.get("/api/tables?status=over").json()["tables"]
    assert [t["id"] for t in finished] == [table_id]


def test_solo_game_in_one_request_with_bots_filling_the_seats(client: TestClient) -> None:
    solo = client.post("/api/solo", json={"players": 5, "bot": "random", "player_name": "Ann"})
    assert solo.status_code == 201, solo.text
    body = solo.json()
    assert body["seat"] == 0 and len(body["token"]) >= 32
    assert [s["kind"] for s in body["table"]["seats"]] == ["human"] + ["bot"] * 4
    assert body["table"]["status"] == "playing"
    with client.websocket_connect(f"/ws/tables/{body['table']['id']}") as ws:
        ws.send_json({"type": "hello", "token": body["token"]})
        states = play_seat(ws, 0, lambda v: v["legal"][0])
        sources = {m["event"]["source"] for m in states}
    assert sources == {"bot", "player", None}  # None: a sale choice before the reveal (whoever made it)
    assert states[-1]["result"]["record"].endswith("/record")


def test_bots_play_a_table_of_bots_to_the_end_while_a_spectator_watches(client: TestClient) -> None:
    created = client.post("/api/tables", json={"players": 3, "seats": ["random", "random", "medium"]})
    table_id = created.json()["table"]["id"]
    assert created.json()["table"]["name"] == "Table of 3"  # the default, in English: pages say it in their language
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": None})
        message = recv(ws, "welcome")
        while message["status"] != "over":
            message = recv(ws, "state")
            assert message["view"]["seat"] is None and message["view"]["my_commit"] is None
    assert from_record(client.get(f"/api/tables/{table_id}/record").json()).is_over
    # The listing of finished games names each seat's bot, so that a page can name the bots in its language.
    (listed,) = client.get("/api/tables?status=over").json()["tables"]
    assert listed["names"] == ["random bot", "random bot", "medium bot"]
    assert listed["bots"] == ["random", "random", "medium"]


def test_a_solo_game_takes_a_name_if_given_one(client: TestClient) -> None:
    named = client.post("/api/solo", json={"players": 3, "bot": "random", "name": "Partie en solo"})
    assert named.status_code == 201, named.text
    assert named.json()["table"]["name"] == "Partie en solo"
    unnamed = client.post("/api/solo", json={"players": 3, "bot": "random"})
    assert unnamed.json()["table"]["name"] == "Solo game"
    refused = client.post("/api/solo", json={"players": 3, "name": "bad\u202ename"})
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "bad_request", refused.text


def test_reconnection_with_the_seat_token(client: TestClient) -> None:
    table_id, tokens, _ = table_of_humans(client, 3)
    seq = 0
    for _attempt in range(6):
        # Every seat connects, the seat to act acts once, everyone hangs up; then again.
        with (
            client.websocket_connect(f"/ws/tables/{table_id}") as w0,
            client.websocket_connect(f"/ws/tables/{table_id}") as w1,
            client.websocket_connect(f"/ws/tables/{table_id}") as w2,
        ):
            sockets = {0: w0, 1: w1, 2: w2}
            views = {}
            for seat, ws in sockets.items():
                ws.send_json({"type": "hello", "token": tokens[seat]})
                welcome = recv(ws, "welcome")
                assert welcome["seq"] == seq  # the picture is the same as before the hang-up
                views[seat] = welcome["view"]
            actor = views[0]["to_act"][0]
            sockets[actor].send_json({"type": "act", "action": {"pass": True}})
            seq = recv(sockets[actor], "ack")["seq"]
    assert seq == 6
    listed = {t["id"]: t for t in client.get("/api/tables?status=all").json()["tables"]}
    assert listed[table_id]["seq"] == 6


def test_a_disconnected_seat_is_played_safely_after_its_grace(make_client: Callable[..., TestClient]) -> None:
    client = make_client(grace=0.2)
    table_id, tokens, _ = table_of_humans(client, 2, rules="two-player")
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        # Seat 1 never connects: whenever it is to act, the server passes (or sells a house) for it.
        states = play_seat(ws, 0, lambda v: v["legal"][-1 if v["phase"] == "auction" else 0])
        away = 0
        for message in states:
            event = message["event"]
            if event["seat"] == 1:
                hidden = event["kind"] == "commit" and "reveal" not in event  # told only "seat 1 has chosen"
                assert event["source"] == (None if hidden else "away"), event
                assert event["kind"] in ("pass", "commit")
                away += 1
    assert away > 10


def test_the_move_clock_passes_for_a_slow_seat(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    table_id, tokens, _ = table_of_humans(client, 3, time_limit=1)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        welcome = recv(ws, "welcome")
        first = welcome["view"]["to_act"][0]
        assert welcome["clock"]["time_limit"] == 1
        deadline = welcome["clock"]["deadlines"][str(first)]
        assert 0 < deadline - welcome["clock"]["now"] <= 1000
        state = recv(ws, "state")
        # The server's own clock, not the test's: a test that reads the welcome late must not fail.
        assert state["clock"]["now"] - welcome["clock"]["now"] >= 500
        assert state["event"] == {"seq": 1, "seat": first, "source": "clock", "kind": "pass"}


def test_every_kind_of_bad_input_gets_an_error_to_its_sender_only(make_client: Callable[..., TestClient]) -> None:
    client = make_client(rate=1000, burst=1000)
    table_id, tokens, _ = table_of_humans(client, 3)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as w0,
        client.websocket_connect(f"/ws/tables/{table_id}") as w1,
        client.websocket_connect(f"/ws/tables/{table_id}") as w2,
        client.websocket_connect(f"/ws/tables/{table_id}") as rogue,
    ):
        sockets = {0: w0, 1: w1, 2: w2}
        views = {}
        # Before hello: acting is refused.
        rogue.send_json({"type": "act", "action": {"pass": True}, "id": "x"})
        early = recv(rogue, "error")
        assert (early["code"], early["id"]) == ("hello_first", "x")
        for seat, ws in sockets.items():
            ws.send_json({"type": "hello", "token": tokens[seat]})
            views[seat] = recv(ws, "welcome")["view"]
        actor = views[0]["to_act"][0]
        other = (actor + 1) % 3
        ws = sockets[actor]
        coins = views[actor]["coins"][actor]

        def refused(frame: Any, code: str, sender: Any = ws, binary: bool = False) -> str:
            if binary:
                sender.send_bytes(frame)
            elif isinstance(frame, str):
                sender.send_text(frame)
            else:
                sender.send_json(frame)
            message = recv(sender, "error")
            assert message["code"] == code, message
            assert message["message"]
            return str(message["message"])

        refused("this is not JSON", "bad_json")
        refused("[1, 2, 3]", "bad_message")
        refused({"type": "dance"}, "bad_message")
        refused({"action": {"pass": True}}, "bad_message")
        assert "action.bid" in refused({"type": "act", "action": {"bid": "3"}}, "bad_message")
        refused({"type": "act", "action": {"bid": 3.0}}, "bad_message")
        refused({"type": "act", "action": {"bid": True}}, "bad_message")
        refused({"type": "act", "action": {"bid": 3, "pass": True}}, "bad_message")
        refused({"type": "act", "action": {"pass": False}}, "bad_message")
        refused({"type": "act", "action": {"fold": True}}, "bad_message")
        refused({"type": "act"}, "bad_message")
        refused({"type": "act", "action": {"pass": True}, "extra": 1}, "bad_message")
        refused(b'{"type": "ping"}', "bad_message", binary=True)
        refused(json.dumps({"type": "ping", "pad": "x" * 70_000}), "too_large")
        refused({"type": "hello", "token": tokens[actor]}, "bad_message")  # a second hello
        assert f"hold {coins} coins" in refused({"type": "act", "action": {"bid": coins + 1}}, "illegal")
        refused({"type": "act", "action": {"sell": 5}}, "illegal")
        refused({"type": "act", "action": {"pass": True}}, "not_your_turn", sockets[other])
        refused({"type": "hello", "token": "A" * 32}, "bad_token", rogue)
        refused({"type": "hello", "token": tokens[actor] + "x"}, "bad_token", rogue)
        rogue.send_json({"type": "hello"})
        recv(rogue, "welcome")
        refused({"type": "act", "action": {"pass": True}}, "not_seated", rogue)
        # Nothing changed, and nobody else heard anything: the next message everyone gets is this bid.
        ws.send_json({"type": "act", "action": {"bid": 1}, "id": 7})
        assert recv(ws, "ack", "error") == {"type": "ack", "id": 7, "seq": 1}
        for sock in (*sockets.values(), rogue):
            state = recv(sock, "state", "error")
            assert state["type"] == "state" and state["seq"] == 1, state
            assert state["event"] == {"seq": 1, "seat": actor, "source": "player", "kind": "bid", "amount": 1}


def test_message_floods_are_rate_limited(make_client: Callable[..., TestClient]) -> None:
    client = make_client(rate=5, burst=5)
    table_id, tokens, _ = table_of_humans(client, 3)
    with (
        client.websocket_connect(f"/ws/tables/{table_id}") as ws,
        client.websocket_connect(f"/ws/tables/{table_id}") as calm,
    ):
        calm.send_json({"type": "hello", "token": tokens[1]})
        recv(calm, "welcome")
        for i in range(30):
            ws.send_json({"type": "ping", "id": i})
        answers = [ws.receive_json() for _ in range(30)]
        kinds = [a["type"] if a["type"] != "error" else a["code"] for a in answers]
        assert kinds.count("pong") <= 8 and kinds.count("rate_limited") >= 22
        calm.send_json({"type": "ping", "id": "calm"})
        assert recv(calm, "pong")["id"] == "calm"  # other connections are not slowed


def test_unknown_table_over_websocket(client: TestClient) -> None:
    with client.websocket_connect("/ws/tables/nosuchtable") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and message["code"] == "not_found"


def test_rest_errors_are_clear_and_change_nothing(client: TestClient) -> None:
    assert client.post("/api/tables", json={"players": 7}).status_code == 400
    bad_rules = client.post("/api/tables", json={"players": 4, "rules": "poker"})
    assert bad_rules.status_code == 400 and "unknown ruleset" in bad_rules.json()["error"]["message"]
    knobs = client.post("/api/tables", json={"players": 4, "rules": {"starting_coins": 18, "removed": 3}})
    assert knobs.status_code == 400 and "divide" in knobs.json()["error"]["message"]
    bad_bot = client.post("/api/tables", json={"players": 3, "seats": ["human", "grandmaster", "random"]})
    assert bad_bot.status_code == 400 and "unknown bot 'grandmaster'" in bad_bot.json()["error"]["message"]
    assert client.post("/api/tables", json={"players": 3, "seats": ["random"]}).status_code == 400
    assert (
        client.post("/api/tables", content=b"{not json", headers={"content-type": "application/json"}).status_code
        == 400
    )
    assert client.post("/api/tables", json={"players": 4, "colour": "red"}).status_code == 400
    assert client.post("/api/tables", content=b"[" * 70_000).status_code == 413
    assert client.get("/api/tables").json() == {"tables": []}
    listing = client.get("/api/tables", params={"limit": "many"})
    assert listing.status_code == 400 and listing.json()["error"]["code"] == "bad_request"
    assert client.get("/api/tables", params={"status": "sideways"}).status_code == 400

    created = client.post("/api/tables", json={"players": 3, "join": True, "player_name": "Ann"}).json()
    table_id = created["table"]["id"]
    assert created["seat"] == 0
    assert client.post(f"/api/tables/{table_id}/join", json={"seat": 0}).status_code == 409
    assert client.post(f"/api/tables/{table_id}/join", json={"seat": 5}).status_code == 404
    assert client.post(f"/api/tables/{table_id}/join", json={"seat": "1"}).status_code == 400
    assert client.post("/api/tables/nope/join", json={}).status_code == 404
    assert client.post(f"/api/tables/{table_id}/leave", json={"token": "wrong"}).status_code == 403
    assert client.post(f"/api/tables/{table_id}/settings", json={"creator_token": created["token"]}).status_code == 403
    assert client.get(f"/api/tables/{table_id}/record").status_code == 409
    assert client.get(f"/api/tables/{table_id}/view", params={"token": "wrong"}).status_code == 403
    listed = client.get("/api/tables").json()["tables"]
    assert [t["id"] for t in listed] == [table_id] and listed[0]["open_seats"] == [1, 2]


def test_refusals_before_the_start_number_the_free_seats_as_people_do(client: TestClient) -> None:
    """The page says "Seat 2" and "Seat 3": a refusal's words count the same way, and its params give the
    indices as data (a page words them itself), never "free: 1, 2" for the second and third seats."""
    created = client.post("/api/tables", json={"players": 3, "join": True, "player_name": "Ann"}).json()
    table_id = created["table"]["id"]
    taken = client.post(f"/api/tables/{table_id}/join", json={"seat": 0}).json()["error"]
    assert taken["message"] == "seat 1 is taken; free seats: 2, 3"
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": created["token"]})
        recv(ws, "welcome")
        ws.send_json({"type": "act", "id": 1, "action": {"pass": True}})
        refused = recv(ws, "error")
    assert refused["code"] == "not_started" and refused["params"] == {"free": [1, 2]}
    assert refused["message"].endswith("(free seats: 2, 3)")


def test_leaving_frees_a_seat_before_the_game_and_hands_it_to_a_bot_during_it(client: TestClient) -> None:
    created = client.post("/api/tables", json={"players": 3, "join": True, "seats": [None, None, "random"]}).json()
    table_id = created["table"]["id"]
    assert client.post(f"/api/tables/{table_id}/leave", json={"token": created["token"]}).status_code == 200
    assert client.get(f"/api/tables/{table_id}").json()["table"]["open_seats"] == [0, 1]
    a = client.post(f"/api/tables/{table_id}/join", json={"name": "A"}).json()
    b = client.post(f"/api/tables/{table_id}/join", json={"name": "B"}).json()
    assert (a["seat"], b["seat"]) == (0, 1) and b["table"]["status"] == "playing"
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": a["token"]})
        recv(ws, "welcome")
        ws.send_json({"type": "leave", "id": 1})
        assert recv(ws, "left")["id"] == 1
        # B leaves by REST: now bots hold every seat and finish the game; we still watch.
        assert client.post(f"/api/tables/{table_id}/leave", json={"token": b["token"]}).status_code == 200
        message = recv(ws, "state")
        while message["status"] != "over":
            message = recv(ws, "state")
            assert message["seat"] is None
    seats = client.get(f"/api/tables/{table_id}").json()["table"]["seats"]
    assert [s["kind"] for s in seats] == ["bot", "bot", "bot"]
    assert client.post(f"/api/tables/{table_id}/leave", json={"token": a["token"]}).status_code == 403


def test_the_creator_decides_whether_the_memory_aid_is_allowed(client: TestClient) -> None:
    created = client.post("/api/tables", json={"players": 3, "join": True, "memory_aid": False}).json()
    table_id = created["table"]["id"]
    assert created["table"]["memory_aid"] is False
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": created["token"]})
        assert recv(ws, "welcome")["info"]["memory_aid"] is False
        changed = client.post(
            f"/api/tables/{table_id}/settings", json={"creator_token": created["creator_token"], "memory_aid": True}
        )
        assert changed.status_code == 200 and changed.json()["table"]["memory_aid"] is True
        notice = ws.receive_json()
        while notice["type"] != "table" or not notice["info"]["memory_aid"]:
            notice = ws.receive_json()


def test_a_view_over_http_is_the_seat_view(client: TestClient) -> None:
    table_id, tokens, _ = table_of_humans(client, 3)
    snapshot = client.get(f"/api/tables/{table_id}/view", params={"token": tokens[2]}).json()
    assert snapshot["seat"] == 2 and snapshot["view"]["seat"] == 2
    public = client.get(f"/api/tables/{table_id}/view").json()
    assert public["seat"] is None and public["view"]["legal"] == []
    # the deal is never in it: only the first auction round's houses are
    game = new_game(3, seed=0)
    assert set(public["view"]) == set(view(game, None).to_json())


def test_a_bot_thinking_in_a_worker_never_holds_up_other_tables(
    make_client: Callable[..., TestClient], waiting_bot: Path
) -> None:
    client = make_client(bot_modules=("forsale_test_waiting_bot",), max_bot_time=30)  # no overrun here
    slow = client.post("/api/tables", json={"players": 3, "seats": ["waiting"] * 3})
    assert slow.status_code == 201, slow.text
    slow_id = slow.json()["table"]["id"]
    solo = client.post("/api/solo", json={"players": 3, "bot": "random"}).json()
    with client.websocket_connect(f"/ws/tables/{solo['table']['id']}") as ws:
        ws.send_json({"type": "hello", "token": solo["token"]})
        states = play_seat(ws, 0, lambda v: v["legal"][0])
    # A whole game was played next door while the slow table's first bot was still thinking.
    assert states[-1]["status"] == "over"
    assert client.get(f"/api/tables/{slow_id}").json()["table"]["seq"] == 0
    waiting_bot.touch()  # the search ends: the slow table plays on, to the end
    with client.websocket_connect(f"/ws/tables/{slow_id}") as ws:
        ws.send_json({"type": "hello"})
        message = recv(ws, "welcome")
        while message["status"] != "over":
            message = recv(ws, "state")
    assert message["result"]["winners"]


def test_request_floods_are_rate_limited(make_client: Callable[..., TestClient]) -> None:
    client = make_client(rest_rate=0.01, rest_burst=3)
    codes = [client.post("/api/tables", json={"players": 3}).status_code for _ in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    assert client.get("/api/health").status_code == 200  # reading is not limited
