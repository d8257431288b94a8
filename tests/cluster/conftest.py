"""Fixtures for the cluster tests: a PostgreSQL database of their own, and three nodes behind HAProxy.

PostgreSQL is the one the server tests start (``postgres_url``); HAProxy is
Debian's ``haproxy`` (``scripts/test`` installs it). Without it the tests
that need it are skipped, except under CI, where that is a failure.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from harness.cluster import Cluster

from ..server import conftest as server_fixtures

postgres_url = server_fixtures.postgres_url  # the fixture: the server tests' PostgreSQL, started once

LEASE_TTL = 2.5
"""Seconds: short, so that a dead node's tables move within a few seconds; a heartbeat every third of it."""


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
