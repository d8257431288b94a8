"""``GET /metrics``: Prometheus' text format, with the numbers an operator watches moving as the server works."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from forsale.server import create_app

from .wire import recv

pytestmark = pytest.mark.timeout(120)


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``: ``(name, sorted labels) -> value`` (parsed as Prometheus would)."""
    response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'metrics.sqlite3'}")) as c:
        yield c


def test_metrics_count_actions_tables_connections_and_the_writer(client: TestClient) -> None:
    before = scrape(client)
    solo = client.post("/api/solo", json={"players": 3, "bot": "random"}).json()
    table = solo["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table}") as ws:
        ws.send_json({"type": "hello", "token": solo["token"]})
        view = recv(ws, "welcome")["view"]
        while 0 not in view["to_act"]:
            view = recv(ws, "state")["view"]
        during = scrape(client)
        ws.send_json({"type": "act", "action": view["legal"][0], "id": 1})
        assert recv(ws, "ack", "error")["type"] == "ack"
        after = scrape(client)

    def grew(name: str, labels: tuple[tuple[str, str], ...] = ()) -> float:
        return after.get((name, labels), 0.0) - before.get((name, labels), 0.0)

    player = (("source", "player"),)
    assert grew("forsale_actions_total", player) == 1
    assert grew("forsale_action_seconds_count", player) == 1
    assert after[("forsale_action_seconds_bucket", (("le", "+Inf"), ("source", "player")))] >= 1
    assert grew("forsale_actions_total", (("source", "bot"),)) >= 0  # the bots may have moved first
    assert during[("forsale_tables", (("status", "playing"),))] == 1
    assert during[("forsale_connections", ())] == 1 and during[("forsale_people_online", ())] == 1
    assert grew("forsale_db_commits_total") >= 2 and grew("forsale_db_batch_size_count") >= 2
    assert after[("forsale_db_unavailable", ())] == 0 and after[("forsale_db_errors_total", ())] == 0
    assert ("forsale_bot_queue", ()) in after and ("forsale_bot_workers_busy", ()) in after
    assert ("forsale_leases_held", (("node", "n1"),)) not in after  # a single server has no leases
