"""Fixtures for the cluster tests: a PostgreSQL database of their own, and three nodes behind HAProxy.

PostgreSQL is the one the server tests start (``postgres_url``); HAProxy is
Debian's ``haproxy`` (``scripts/test`` installs it). Without it the tests
that need it are skipped, except under CI, where that is a failure.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from forsale.server.store import leases
from harness.cluster import Cluster, wait_for

from ..server import conftest as server_fixtures

postgres_url = server_fixtures.postgres_url  # the fixture: the server tests' PostgreSQL, started once

LEASE_TTL = 2.5
"""Seconds: short, so that a dead node's tables move within a few seconds; a heartbeat every third of it."""

EXPLAIN_SQL = {
    "leases": f"SELECT game_id, owner, epoch, expires_at - {leases.NOW} AS seconds_left FROM forsale_leases"
    " WHERE game_id = :table OR CAST(:table AS text) IS NULL",
    "heartbeats": f"SELECT name, owner, {leases.NOW} - heartbeat_at AS age, tables FROM forsale_nodes ORDER BY name",
    "sessions": "SELECT pid, application_name, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blocked_by,"
    " round(extract(epoch from clock_timestamp() - xact_start)::numeric, 1) AS in_transaction_s,"
    " left(query, 70) AS query FROM pg_stat_activity"
    " WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle' ORDER BY pid",
    "locks": "SELECT l.pid, a.application_name, l.locktype, l.mode, l.granted, c.relname, l.transactionid"
    " FROM pg_locks l LEFT JOIN pg_class c ON c.oid = l.relation LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
    " WHERE l.pid <> pg_backend_pid() AND l.locktype <> 'virtualxid'"
    " AND (l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) OR l.database IS NULL)"
    " ORDER BY l.pid",
}


def process_state(proc: subprocess.Popen[bytes] | None) -> str:
    """Never started, exited (how), paused (``SIGSTOP``: Linux's ``T`` state) or running."""
    if proc is None:
        return "never started"
    if proc.poll() is not None:
        return f"exited {proc.returncode}"
    with contextlib.suppress(OSError):
        if Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T":
            return "paused"
    return "running"


def explain(cluster: Any, table: str | None = None, lines: int = 30) -> str:
    """What a cluster test's failed wait needs to be diagnosed from CI's output alone.

    Each node's state and the tail of its log, then the database's side:
    the table's lease (every lease without ``table``), the nodes'
    heartbeats, the sessions that are not idle (a node paused in a
    transaction shows here, with whom it blocks) and their locks.
    """
    out = []
    for node in cluster.nodes:
        out.append(f"--- {node.name} (port {node.port}, {process_state(node.proc)}): its log's last lines")
        tail = node.log.read_text(errors="replace").splitlines()[-lines:] if node.log.exists() else []
        out.extend(tail)
    for name, query in EXPLAIN_SQL.items():
        try:
            rows = cluster.sql(query, table=table) if ":table" in query else cluster.sql(query)
        except Exception as error:  # the database itself may be what went wrong
            rows = [f"(could not be read: {error})"]
        out.append(f"--- {name}")
        out.extend(str(tuple(row)) if not isinstance(row, str) else row for row in rows)
    return "\n".join(out)


def wait_or_explain(cluster: Any, condition: Callable[[], Any], timeout: float, what: str, table: str | None) -> Any:
    """:func:`harness.cluster.wait_for`, whose failure carries :func:`explain`'s report."""
    try:
        return wait_for(condition, timeout, what)
    except TimeoutError as error:
        raise TimeoutError(f"{error}\n{explain(cluster, table)}") from None


@pytest.fixture(scope="module")
def cluster_db(postgres_url: str) -> str:
    """A new, empty database on the test PostgreSQL, for one test module."""
    name = f"forsale_cluster_{secrets.token_hex(4)}"
    engine = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return make_url(postgres_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="module")
def cluster(cluster_db: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Three started nodes (n1, n2, n3) and HAProxy in front: a :class:`harness.cluster.Cluster`."""
    if shutil.which("haproxy") is None:
        message = "HAProxy is not installed; apt-get install haproxy"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    workdir = tmp_path_factory.mktemp("cluster")
    c = Cluster(cluster_db, workdir, 3, LEASE_TTL, ("--bot-delay", "0.1", "--grace", "120"))
    try:
        yield c.start()
    finally:
        c.stop()
