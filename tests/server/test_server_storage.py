"""Storage on SQLite and on a real PostgreSQL server: the same code, the same guarantees.

Every test here runs twice (``db_url`` is parametrised): once on a SQLite file,
once on the session's PostgreSQL cluster (see ``conftest.py``).
"""

from __future__ import annotations

import concurrent.futures
import random
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from forsale import from_record
from forsale.actions import action_from_json
from forsale.server import create_app
from forsale.server.store.database import Storage, StoredGame, StoredSeat, normalize_url
from forsale.server.store.schema import events
from forsale.server.tokens import hash_token

pytestmark = pytest.mark.timeout(180)


def a_game(game_id: str) -> StoredGame:
    return StoredGame(
        id=game_id,
        name="test",
        status="playing",
        players=3,
        config={"rules": "official", "time_limit": None, "memory_aid": True, "private": False},
        deal={"houses": list(range(1, 25)), "cheques": [0, 0] + [2, 3, 4, 5, 6, 7] * 3 + [8, 9, 10, 11], "first": 0},
        creator_hash=hash_token("creator"),
        created_at=1.0,
        finished_at=None,
        result=None,
        seats=[StoredSeat(i, "human", f"P{i}", None, hash_token(f"t{i}")) for i in range(3)],
    )


def test_postgres_urls_use_psycopg_3() -> None:
    assert normalize_url("postgresql://u:p@h:5/db") == "postgresql+psycopg://u:p@h:5/db"
    assert normalize_url("sqlite:///x.sqlite3") == "sqlite:///x.sqlite3"


def test_games_seats_and_events_round_trip(db_url: str) -> None:
    storage = Storage(db_url)
    try:
        storage.call(Storage.op_create_game(a_game("g1")))
        storage.call(Storage.op_create_game(a_game("g2")))
        storage.call(Storage.op_append("g1", 1, 0, {"bid": 1}, "player"))
        storage.call(Storage.op_append("g1", 2, 1, {"pass": True}, "clock"))
        seat = StoredSeat(2, "bot", "P2 (left; bot)", "random", None)
        storage.call(Storage.op_update_seat("g1", seat))
        loaded = storage.call(Storage.op_load("g1"))
        assert loaded is not None and loaded.deal == a_game("g1").deal and loaded.config["rules"] == "official"
        assert [(e["seq"], e["seat"], e["action"], e["source"]) for e in loaded.events] == [
            (1, 0, {"bid": 1}, "player"),
            (2, 1, {"pass": True}, "clock"),
        ]
        assert loaded.seats[2] == seat and loaded.seats[0].token_hash == hash_token("t0")
        assert {g.id for g in storage.call(Storage.op_load_unfinished())} == {"g1", "g2"}
        storage.call(Storage.op_update_seat("g2", StoredSeat(1, "bot", "expert bot", "expert", None)))
        storage.call(Storage.op_append("g2", 1, 0, {"pass": True}, "player", {"scores": [1, 2, 3], "winners": [2]}))
        assert [g.id for g in storage.call(Storage.op_load_unfinished())] == ["g1"]
        finished = storage.call(Storage.op_list_finished(10))
        assert [(f["id"], f["result"]["winners"], f["names"]) for f in finished] == [
            ("g2", [2], ["P0", "expert bot", "P2"])
        ]
        assert finished[0]["bots"] == [None, "expert", None] and finished[0]["open"] == []
        assert storage.call(Storage.op_load("nope")) is None
    finally:
        storage.close()


def test_the_event_log_refuses_a_second_event_with_the_same_number(db_url: str) -> None:
    """Appends grouped into one transaction still succeed or fail one by one."""
    storage = Storage(db_url)
    try:
        storage.call(Storage.op_create_game(a_game("g")))
        storage.call(Storage.op_append("g", 1, 0, {"bid": 1}, "player"))
        futures = [
            storage.submit(Storage.op_append("g", 2, 1, {"bid": 2}, "player")),
            storage.submit(Storage.op_append("g", 1, 9, {"bid": 9}, "player")),  # seq 1 exists: refused
            storage.submit(Storage.op_append("g", 3, 2, {"pass": True}, "player")),
        ]
        concurrent.futures.wait(futures)
        assert [f.exception() is None for f in futures] == [True, False, True]
        rows = storage.call(lambda conn: conn.execute(select(events.c.seq, events.c.seat).order_by(events.c.seq)).all())
        assert [tuple(r) for r in rows] == [(1, 0), (2, 1), (3, 2)]
    finally:
        storage.close()


def play_to_the_end(client: TestClient, table_id: str, tokens: list[str], rng: random.Random, stop: int | None = None):
    """Lock-step play of an all-human table over WebSockets; stops after ``stop`` actions if given."""
    sockets = [client.websocket_connect(f"/ws/tables/{table_id}") for _ in tokens]
    done = 0
    try:
        views: dict[int, dict[str, Any]] = {}
        for seat, ws in enumerate(sockets):
            ws.__enter__()
            ws.send_json({"type": "hello", "token": tokens[seat]})
            while (m := ws.receive_json())["type"] != "welcome":
                pass
            views[seat] = m
        while views[0]["status"] != "over" and done != stop:
            seat = views[0]["view"]["to_act"][0]
            legal = views[seat]["view"]["legal"]
            sockets[seat].send_json({"type": "act", "action": rng.choice(legal[:3])})
            for s, ws in enumerate(sockets):
                while (m := ws.receive_json())["type"] != "state":
                    assert m["type"] in ("table", "ack"), m
                views[s] = m
            done += 1
        return views
    finally:
        for ws in sockets:
            ws.__exit__(None, None, None)


def test_games_survive_a_restart_of_the_app_on_the_same_database(db_url: str) -> None:
    rng = random.Random(5)
    with TestClient(create_app(db_url)) as client:
        created = client.post("/api/tables", json={"players": 3}).json()
        table_id = created["table"]["id"]
        tokens = [client.post(f"/api/tables/{table_id}/join", json={}).json()["token"] for _ in range(3)]
        before = play_to_the_end(client, table_id, tokens, rng, stop=20)
        solo = client.post("/api/solo", json={"players": 4, "bot": "random"}).json()
    with TestClient(create_app(db_url)) as client:
        after = play_to_the_end(client, table_id, tokens, rng, stop=0)
        assert {s: m["view"] for s, m in after.items()} == {s: m["view"] for s, m in before.items()}
        assert after[0]["seq"] == 20
        final = play_to_the_end(client, table_id, tokens, rng)
        record = client.get(f"/api/tables/{table_id}/record").json()
        state = from_record(record)
        assert state.is_over and state.scores() == final[0]["view"]["scores"]
        # The event log, read back, is the game: numbered 1..N without gaps, and it replays to the same end.
        rows = client.app.state.storage.call(  # type: ignore[attr-defined]
            lambda conn: conn.execute(
                select(events.c.seq, events.c.seat, events.c.action)
                .where(events.c.game_id == table_id)
                .order_by(events.c.seq)
            ).all()
        )
        assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
        replayed = from_record({**record, "moves": []})
        for row in rows:
            replayed.push(row.seat, action_from_json(row.action))
        assert replayed.scores() == state.scores() and replayed.moves == state.moves
        # The solo game was left with nobody connected: its human seat is played after the grace period
        # (60 s here), so it is still unfinished, resumed, and listed as a table to watch.
        listed = {t["id"] for t in client.get("/api/tables?status=all").json()["tables"]}
        assert solo["table"]["id"] not in listed  # solo tables are private
        assert client.get(f"/api/tables/{solo['table']['id']}").json()["table"]["status"] == "playing"
        assert client.get("/api/health").json()["database"] in ("sqlite", "postgresql")


def test_a_game_stored_before_the_deal_codec_keeps_its_removed_cards(db_url: str) -> None:
    """Rows written before ``Deal.to_json`` held the removed cards as ``removed_houses``/``removed_cheques``.

    A database carried over from then must still give records with the removed cards.
    """
    game = a_game("old")
    deck = [0, 0] + [v for v in range(2, 16) for _ in range(2)]
    houses, cheques = list(range(1, 25)), deck[:24]
    game.deal = {
        "houses": houses,
        "cheques": cheques,
        "first": 0,
        "removed_houses": [25, 26, 27, 28, 29, 30],
        "removed_cheques": deck[24:],
    }
    storage = Storage(db_url)
    try:
        storage.call(Storage.op_create_game(game))
    finally:
        storage.close()
    with TestClient(create_app(db_url)) as client:
        play_to_the_end(client, "old", [f"t{i}" for i in range(3)], random.Random(1))
        record = client.get("/api/tables/old/record").json()
    assert record["removed"] == {"houses": [25, 26, 27, 28, 29, 30], "cheques": [13, 13, 14, 14, 15, 15]}
    assert record["deal"] == {"houses": houses, "cheques": cheques, "first": 0}


def test_a_connection_the_database_cut_is_replaced_without_failing_a_call(fresh_postgres: str) -> None:
    """The pool does not ping before each transaction (make_engine): a cut connection costs one retry, no refusal.

    PostgreSQL ends every backend of the storage (as a restart or a proxy's idle timeout would); the next
    call's transaction finds its connection dead before its commit, runs again on a new one and commits once.
    """
    import psycopg

    storage = Storage(fresh_postgres)
    try:
        storage.call(storage.op_create_game(a_game("before")))
        with psycopg.connect(fresh_postgres, autocommit=True) as admin:
            cut = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            ).fetchone()
        assert cut is not None and cut[0] >= 1
        storage.call(storage.op_create_game(a_game("after")))
        assert storage.outage.total_failures == 0
        stored = storage.call(lambda conn: [g.id for g in Storage.op_load_unfinished()(conn)])
        assert sorted(stored) == ["after", "before"]
    finally:
        storage.close()
