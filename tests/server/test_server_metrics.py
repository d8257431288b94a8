"""``GET /metrics``: Prometheus' text format, with the numbers an operator watches moving as the server works."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from forsale.cli import main
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
    with TestClient(create_app(f"sqlite:///{tmp_path / 'metrics.sqlite3'}"), client=("127.0.0.1", 50000)) as c:
        yield c


def test_metrics_answer_only_the_addresses_named_and_the_proxys_clients_count_as_themselves(
    serve_process: type[Any], tmp_path: Path
) -> None:
    """``/metrics`` is the operator's: loopback by default, or ``--metrics-from``; anyone else gets 403.

    Behind a ``--trusted-proxy`` the client is the forwarded address, so a proxy on this machine does not
    make every player an operator. Before, anyone reaching the server read its numbers.
    """
    proc = serve_process(
        f"sqlite:///{tmp_path / 'm.sqlite3'}", tmp_path, "--trusted-proxy", "127.0.0.1",
        "--metrics-from", "127.0.0.1, 198.51.100.0/24",
    ).start()  # fmt: skip
    try:
        with httpx.Client(base_url=proc.base, timeout=30) as http:
            assert http.get("/metrics").status_code == 200  # this machine
            outsider = http.get("/metrics", headers={"X-Forwarded-For": "203.0.113.7"})
            assert outsider.status_code == 403 and outsider.json()["error"]["code"] == "forbidden", outsider.text
            assert "forsale_" not in outsider.text
            assert http.get("/metrics", headers={"X-Forwarded-For": "198.51.100.9"}).status_code == 200
    finally:
        proc.stop()


def test_the_default_is_this_machine_only_and_a_malformed_list_is_refused(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'd.sqlite3'}")
    for host, status in (("127.0.0.1", 200), ("::1", 200), ("::ffff:127.0.0.1", 200), ("10.0.0.5", 403)):
        with TestClient(app, client=(host, 50000)) as c:
            assert c.get("/metrics").status_code == status, host
    with TestClient(
        create_app(f"sqlite:///{tmp_path / 'e.sqlite3'}", metrics_from="10.0.0.0/24"), client=("10.0.0.5", 1)
    ) as c:
        assert c.get("/metrics").status_code == 200
    with pytest.raises(ValueError):
        create_app(f"sqlite:///{tmp_path / 'f.sqlite3'}", metrics_from="10.0.0.300")
    assert main(["serve", "--db", f"sqlite:///{tmp_path / 'g.sqlite3'}", "--metrics-from", "nowhere"]) == 2


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


def test_metrics_show_the_bot_queue_and_how_long_decisions_waited_for_a_worker(
    tmp_path: Path, waiting_bot: Path
) -> None:
    """One worker, two tables of bots that think until the gate opens: one decision thinks, one waits in the queue.

    The queue's depth is seen while it waits; once the gate opens, the wait it had (at least the pause before
    the gate opened) is in ``forsale_bot_wait_seconds``, the histogram an operator alerts on.
    """
    import time

    app = create_app(f"sqlite:///{tmp_path / 'q.sqlite3'}", bot_modules=("forsale_test_waiting_bot",), bot_workers=1)
    with TestClient(app, client=("127.0.0.1", 50000)) as client:
        before = scrape(client)
        for _ in range(2):
            made = client.post("/api/tables", json={"players": 2, "rules": "two-player", "seats": ["waiting"] * 2})
            assert made.status_code == 201, made.text
        deadline = time.monotonic() + 60
        while (now := scrape(client))[("forsale_bot_workers_busy", ())] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert now[("forsale_bot_queue", ())] == 1 and now[("forsale_bot_workers_busy", ())] == 1
        time.sleep(0.3)  # the queued decision waits at least this long
        waiting_bot.touch()
        while (after := scrape(client))[("forsale_bot_wait_seconds_count", ())] < before.get(
            ("forsale_bot_wait_seconds_count", ()), 0
        ) + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    count = ("forsale_bot_wait_seconds_count", ())
    assert after[count] - before.get(count, 0) >= 2
    assert after[("forsale_bot_wait_seconds_sum", ())] - before.get(("forsale_bot_wait_seconds_sum", ()), 0) >= 0.3
    below = ("forsale_bot_wait_seconds_bucket", (("le", "0.25"),))
    assert after[count] - after[below] > before.get(count, 0) - before.get(below, 0)  # one waited past 0.25 s
