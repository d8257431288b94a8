"""After ``kill -9`` of a node, its tables move within about a second, not after its whole lease.

Each node holds a liveness lock on its database connection
(:mod:`forsale.server.leases`); PostgreSQL drops it when the dead process's
connection closes, and the other nodes end its leases and take its tables
at once. The lease here is 10 s, the default: before, the tables waited 9-10 s.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from ..server.wire import bench_module
from .conftest import cluster_db, postgres_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(240)

LEASE_TTL = 10.0
MOVED_WITHIN = 3.0
"""Seconds from the kill to the last of its tables moving again: about 1 s plus the bots' delay on an idle
machine (the issue's target is 2 s); the test allows for a loaded two-core runner, still far below the lease."""


@pytest.fixture(scope="module")
def slow_lease_cluster(cluster_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:  # noqa: F811
    if shutil.which("haproxy") is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("HAProxy is not installed")
        pytest.skip("HAProxy is not installed; apt-get install haproxy")
    harness = bench_module("cluster_load")
    c = harness.Cluster(cluster_db, tmp_path_factory.mktemp("fast"), 3, LEASE_TTL, ("--bot-delay", "0.1"))
    try:
        yield c.start()
    finally:
        c.stop()


def test_a_killed_nodes_tables_move_within_seconds_not_its_lease(slow_lease_cluster: Any) -> None:
    c = slow_lease_cluster
    wait_for = bench_module("cluster_load").wait_for
    made = []
    with httpx.Client(base_url=c.balancer.base, timeout=60) as http:
        for _ in range(12):  # round robin: spread over the nodes
            created = http.post("/api/tables", json={"players": 3, "seats": ["random"] * 3, "private": True})
            assert created.status_code == 201, created.text
            made.append(created.json()["table"]["id"])

    def last_seqs() -> dict[str, int]:
        rows = c.sql(
            "SELECT game_id, max(seq) FROM forsale_events WHERE game_id = ANY(:ids) GROUP BY game_id", ids=made
        )
        return {g: s for g, s in rows}

    wait_for(lambda: len(last_seqs()) == len(made), 60, "every bot table under way")
    time.sleep(3.5)  # the nodes have seen each other's liveness locks (they judge only nodes they saw alive)
    owners = c.owners()
    victim = max(c.by_name, key=lambda name: sum(1 for t in made if owners.get(t, ("",))[0] == name))
    theirs = [t for t in made if owners.get(t, ("",))[0] == victim]
    assert theirs
    c.by_name[victim].kill9()
    killed = time.monotonic()
    at_kill = last_seqs()
    over = {g for (g,) in c.sql("SELECT id FROM forsale_games WHERE status = 'over' AND id = ANY(:ids)", ids=theirs)}
    waiting = [t for t in theirs if t not in over]
    moved: dict[str, float] = {}
    while len(moved) < len(waiting) and time.monotonic() - killed < LEASE_TTL + 5:
        now = last_seqs()
        for t in waiting:
            if t not in moved and now.get(t, 0) > at_kill.get(t, 0):
                moved[t] = time.monotonic() - killed
        time.sleep(0.02)
    assert len(moved) == len(waiting), f"{len(moved)} of {len(waiting)} moved within {LEASE_TTL + 5} s"
    slowest = max(moved.values(), default=0.0)
    print(
        f"\n{len(waiting)} tables of the killed node moving again after {sorted(round(v, 2) for v in moved.values())} s"
    )
    assert slowest < MOVED_WITHIN, moved
    logs = [n.log.read_text() for n in c.nodes if n.name != victim]
    assert any(f"node {victim} (" in log and "is gone" in log for log in logs)
