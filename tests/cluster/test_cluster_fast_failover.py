"""After ``kill -9`` of a node, its tables move within about a second, not after its whole lease.

Each node holds a liveness lock on its database connection
(:mod:`forsale.server.store.leases`); PostgreSQL drops it when the dead process's
connection closes, and the other nodes end its leases and take its tables
at once. The lease here is 10 s, the default: before, the tables waited 9-10 s.
"""

from __future__ import annotations

import os
import shutil
import time
import zlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from forsale.server.store.leases import LIVENESS
from harness.cluster import Cluster, wait_for

from .conftest import cluster_db, postgres_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.timeout(240)

LEASE_TTL = 10.0
MOVED_WITHIN = 6.0
"""Seconds from the kill to the last of its tables moving again, asserted: below two thirds of the lease, the
soonest a lease could run out by itself (it is renewed every third of it), so only the liveness lock can have
moved them. On an idle machine it is under a second (the issue's target of 2 s is ``bench/cluster_load.py``'s,
printed there, not asserted here: a loaded two-core runner once took 2.7 s)."""


@pytest.fixture(scope="module")
def slow_lease_cluster(cluster_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:  # noqa: F811
    if shutil.which("haproxy") is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("HAProxy is not installed")
        pytest.skip("HAProxy is not installed; apt-get install haproxy")
    c = Cluster(cluster_db, tmp_path_factory.mktemp("fast"), 3, LEASE_TTL, ("--bot-delay", "0.1"))
    try:
        yield c.start()
    finally:
        c.stop()


@pytest.fixture()
def bot_tables(slow_lease_cluster: Any) -> list[str]:
    """Twelve new tables of three bots, spread over the nodes (round robin), all under way (each test its own)."""
    c = slow_lease_cluster
    made = []
    with httpx.Client(base_url=c.balancer.base, timeout=60) as http:
        for _ in range(12):
            created = http.post("/api/tables", json={"players": 3, "seats": ["random"] * 3, "private": True})
            assert created.status_code == 201, created.text
            made.append(created.json()["table"]["id"])
    rows = "SELECT count(DISTINCT game_id) FROM forsale_events WHERE game_id = ANY(:ids)"
    wait_for(lambda: c.sql(rows, ids=made)[0][0] == len(made), 60, "bot tables under way")
    return made


def test_a_broken_notice_connection_does_not_cost_a_live_node_its_tables(slow_lease_cluster: Any) -> None:
    """The connection holding a node's liveness lock is cut (an idle timeout, a firewall): it keeps its tables.

    Before, the node waited 1 s to reconnect while the others ended its leases after 0.5 s without its lock.
    """
    c = slow_lease_cluster
    made = []
    with httpx.Client(base_url=c.balancer.base, timeout=60) as http:
        for _ in range(9):  # waiting for a player: they hold their leases throughout (bot games end too soon)
            created = http.post(
                "/api/tables", json={"players": 3, "seats": [None, "random", "random"], "private": True}
            )
            assert created.status_code == 201, created.text
            made.append(created.json()["table"]["id"])
    time.sleep(3.5)  # the nodes have seen each other's liveness locks (they judge only nodes they saw alive)
    before = {t: o for t, o in c.owners().items() if t in made}
    victim = max(c.by_name, key=lambda name: sum(1 for o in before.values() if o[0] == name))
    theirs = {t: o for t, o in before.items() if o[0] == victim}
    assert theirs
    (owner,) = c.sql("SELECT owner FROM forsale_nodes WHERE name = :n", n=victim)[0]
    holder = (
        "SELECT a.pid, a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.classid = :cls AND l.objid = :key AND l.objsubid = 2 AND l.granted"
    )
    lock = {"cls": LIVENESS, "key": zlib.crc32(owner.encode()) & 0x7FFFFFFF}
    for _ in range(3):  # each cut outlasts the others' grace: the node must mend it at once
        (pid, _name) = wait_for(lambda: c.sql(holder, **lock), 10, f"{victim}'s liveness lock held")[0]
        assert c.sql("SELECT pg_terminate_backend(:pid)", pid=pid) == [(True,)]
        time.sleep(1.5)
    (_pid, name) = wait_for(lambda: c.sql(holder, **lock), 10, f"{victim}'s liveness lock held again")[0]
    time.sleep(2.0)  # a watcher that would end the leases has had more than twice its grace to
    now = c.owners()
    assert {t: now.get(t) for t in theirs} == theirs  # same node, same epoch: never taken over
    for node in c.nodes:
        log = node.log.read_text()
        assert "is gone" not in log, log
        assert "lost the lease" not in log and "taken by another node" not in log, log
    assert name == f"forsale-notice {victim}"  # so that an operator can tell the connection apart


def test_a_killed_nodes_tables_move_within_seconds_not_its_lease(
    slow_lease_cluster: Any, bot_tables: list[str]
) -> None:
    c = slow_lease_cluster
    made = bot_tables

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
