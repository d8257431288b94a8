"""Post-game analysis and hints over the real server: computed in a worker, cached with the game, shown per seat."""

from __future__ import annotations

import random
import time
import zlib
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from forsale.bots.analysis import HINT_BUDGET, analyse, hint
from forsale.server.app import create_app
from forsale.server.store.database import normalize_url

pytestmark = pytest.mark.timeout(240)

BUDGET = 2
REASONS = {"only", "pass_close", "better", "mixed", "close"}


def until(condition: Any, timeout: float = 90.0, step: float = 0.05) -> Any:
    """Poll ``condition()`` until it returns something truthy (a condition, not a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"not within {timeout} s")


def finished_solo(base: str, players: int = 3) -> tuple[str, str]:
    """A solo game whose person never connects: the server plays it safely after the (tiny) grace, to the end."""
    solo = httpx.post(f"{base}/api/solo", json={"players": players, "bot": "random", "player_name": "Ann"})
    assert solo.status_code == 201, solo.text
    table_id, token = solo.json()["table"]["id"], solo.json()["token"]
    until(lambda: httpx.get(f"{base}/api/tables/{table_id}").json()["result"])
    return table_id, token


def ready(base: str, table_id: str, **params: str) -> dict[str, Any]:
    def answer() -> dict[str, Any] | None:
        response = httpx.get(f"{base}/api/tables/{table_id}/analysis", params=params, timeout=10)
        assert response.status_code in (200, 202), response.text
        return response.json() if response.status_code == 200 else None

    return until(answer)


def test_analysis_is_refused_before_the_end_then_computed_in_a_worker_and_cached(serve, db_url, tmp_path):
    server = serve(db_url, tmp_path, "--grace", "0.02", "--analysis-budget", str(BUDGET)).start()
    base = server.base
    waiting = httpx.post(f"{base}/api/tables", json={"players": 3, "seats": [None, "random", "random"]})
    early = httpx.get(f"{base}/api/tables/{waiting.json()['table']['id']}/analysis")
    assert early.status_code == 409 and early.json()["error"]["code"] == "not_finished"

    table_id, token = finished_solo(base)
    first = httpx.get(f"{base}/api/tables/{table_id}/analysis", params={"token": token})
    assert first.status_code == 202 and first.json() == {"status": "pending", "retry_after": 1}
    assert first.headers["retry-after"] == "1"
    assert httpx.get(f"{base}/api/health", timeout=5).status_code == 200  # the event loop is not computing it

    mine = ready(base, table_id, token=token)
    record = httpx.get(f"{base}/api/tables/{table_id}/record").json()
    expected = analyse(record, seat=0, budget=BUDGET, seed=0).to_json()
    assert mine["status"] == "ready" and mine["seat"] == 0 and mine["budget"] == BUDGET and mine["seed"] == 0
    assert mine["chances"] == expected["chances"] and len(mine["chances"]) == len(record["moves"]) + 1
    assert mine["decisions"] == expected["decisions"] and mine["decisions"]
    assert [d["move"] for d in mine["costliest"]] == expected["costliest"]["0"]

    public = ready(base, table_id)
    assert public["chances"] == mine["chances"] and public["seat"] is None
    assert public["decisions"] == [] and public["costliest"] == []
    again = ready(base, table_id, token=token)
    assert again == mine  # the stored analysis, not a second computation (computed_at unchanged)
    bad = httpx.get(f"{base}/api/tables/{table_id}/analysis", params={"token": "x" * 43})
    assert bad.status_code == 403 and bad.json()["error"]["code"] == "bad_token"
    missing = httpx.get(f"{base}/api/tables/nothing/analysis")
    assert missing.status_code == 404

    server.stop()
    restarted = serve(db_url, tmp_path, "--analysis-budget", str(BUDGET), port=server.port).start()
    kept = httpx.get(f"{restarted.base}/api/tables/{table_id}/analysis", params={"token": token})
    assert kept.status_code == 200 and kept.json() == mine  # cached with the game, across a restart


def test_an_older_database_without_the_analysis_table_is_upgraded(serve, db_url, tmp_path):
    server = serve(db_url, tmp_path, "--grace", "0.02", "--analysis-budget", "1").start()
    table_id, token = finished_solo(server.base)
    server.stop()
    engine = create_engine(normalize_url(db_url))
    with engine.begin() as conn:  # as a release before the analysis left it
        conn.execute(text("DROP TABLE IF EXISTS forsale_analyses"))
    engine.dispose()
    again = serve(db_url, tmp_path, "--analysis-budget", "1", port=server.port).start()
    assert ready(again.base, table_id, token=token)["seat"] == 0


# -- hints (in process: a person who stays at the table) ------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'hints.sqlite3'}", grace=600)) as c:
        yield c


def my_turn(client: TestClient, hints: bool) -> tuple[str, str, str]:
    created = client.post(
        "/api/tables", json={"players": 3, "seats": [None, "random", "random"], "join": True, "hints": hints}
    )
    assert created.status_code == 201, created.text
    body = created.json()
    table_id, token = body["table"]["id"], body["token"]
    assert body["table"]["hints"] is hints
    until(lambda: 0 in client.get(f"/api/tables/{table_id}/view", params={"token": token}).json()["view"]["to_act"])
    return table_id, token, body["creator_token"]


def test_a_hint_is_refused_unless_the_creator_allows_hints(client):
    table_id, token, creator = my_turn(client, hints=False)
    refused = client.post(f"/api/tables/{table_id}/hint", json={"token": token})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "hints_off"
    allowed = client.post(f"/api/tables/{table_id}/settings", json={"creator_token": creator, "hints": True})
    assert allowed.status_code == 200 and allowed.json()["table"]["hints"] is True
    answer = client.post(f"/api/tables/{table_id}/hint", json={"token": token})
    assert answer.status_code == 200, answer.text
    out = answer.json()
    assert out["seat"] == 0 and "to win" in out["hint"]["line"] and out["hint"]["reason"] in REASONS
    legal = client.get(f"/api/tables/{table_id}/view", params={"token": token}).json()["view"]["legal"]
    assert out["hint"]["action"] in legal
    # hard's own move from this seat's view, with the seed the server derives from the table, position and seat
    table = client.app.state.lobby.tables[table_id]
    assert table.seq == out["seq"]
    seed = zlib.crc32(f"{table_id}:{out['seq']}:0".encode())
    assert out["hint"] == hint(table.snapshots.view_of(0), random.Random(seed), HINT_BUDGET)


def test_hints_are_rate_limited_per_seat_and_only_for_a_seat_with_a_decision(client):
    table_id, token, _ = my_turn(client, hints=True)
    assert client.post(f"/api/tables/{table_id}/hint", json={"token": token}).status_code == 200
    again = client.post(f"/api/tables/{table_id}/hint", json={"token": token})
    assert again.status_code == 429 and again.json()["error"]["code"] == "rate_limited"
    assert int(again.headers["retry-after"]) >= 1
    stranger = client.post(f"/api/tables/{table_id}/hint", json={"token": "y" * 43})
    assert stranger.status_code == 403 and stranger.json()["error"]["code"] == "bad_token"
    # A seat's last hint is forgotten once its cooldown is over (the entries were never pruned before).
    last = client.app.state.last_hints
    last[("a table long gone", 0)] = time.monotonic() - 10
    assert client.post(f"/api/tables/{table_id}/hint", json={"token": token}).status_code == 429
    assert list(last) == [(table_id, 0)]


def test_a_finished_analysis_is_not_kept_in_memory(tmp_path: Path) -> None:
    """One running-analysis entry per game ever analysed stayed in memory: it goes once the analysis is done."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'a.sqlite3'}", grace=0.02, analysis_budget=BUDGET)) as client:
        solo = client.post("/api/solo", json={"players": 3, "bot": "random"}).json()
        table_id = solo["table"]["id"]
        until(lambda: client.get(f"/api/tables/{table_id}").json()["result"])
        until(lambda: client.get(f"/api/tables/{table_id}/analysis").status_code == 200)
        until(lambda: client.app.state.analyses_running == {}, timeout=10)


def test_a_hint_that_overruns_is_a_503_and_the_table_plays_on(client, monkeypatch, caplog):
    from forsale.server.http.routes import analysis as routes_analysis

    table_id, token, _ = my_turn(client, hints=True)
    monkeypatch.setattr(routes_analysis, "HINT_DEADLINE", 0.001)  # no worker answers that fast
    answer = client.post(f"/api/tables/{table_id}/hint", json={"token": token})
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "no_hint"
    assert "Traceback" not in caplog.text
    monkeypatch.setattr(routes_analysis, "HINT_DEADLINE", 30.0)
    until(lambda: client.post(f"/api/tables/{table_id}/hint", json={"token": token}).status_code == 200, 20)
