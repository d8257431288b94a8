"""Servers starting together on an empty database all start: the schema is made once, under a lock.

Nodes of a cluster are usually started together (``docs/deploy.md`` starts
three with ``&``); before :func:`forsale.server.store.schema.migrate` took a lock,
two of them would both find no tables and both create them, and one failed
with ``UniqueViolation`` on ``pg_type``. Three threads here create a
:class:`~forsale.server.store.database.Storage` at the same instant (a barrier) on a
freshly emptied database, twenty times; the real ``forsale serve --cluster``
processes start together in the ``cluster`` fixture (``tests/cluster/conftest.py``).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from forsale.server.store.database import Storage, normalize_url
from forsale.server.store.schema import metadata

from .conftest import postgres_url  # noqa: F401  (the fixture)

ROUNDS = 20
STARTERS = 3


def start_together(url: str) -> list[BaseException]:
    """``STARTERS`` threads each make a Storage on ``url`` at once; the errors they met (none, we hope)."""
    barrier = threading.Barrier(STARTERS)
    errors: list[BaseException] = []

    def start() -> None:
        barrier.wait()
        try:
            Storage(url).close()
        except BaseException as error:  # every failure is the test's finding
            errors.append(error)

    threads = [threading.Thread(target=start) for _ in range(STARTERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return errors


@pytest.fixture
def empty_postgres(postgres_url: str) -> Iterator[str]:  # noqa: F811
    """A database of its own on the test PostgreSQL."""
    name = f"forsale_schema_{secrets.token_hex(4)}"
    admin = create_engine(normalize_url(postgres_url), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
        admin.dispose()


def test_three_servers_starting_at_once_on_an_empty_postgresql_all_start(empty_postgres: str) -> None:
    engine = create_engine(normalize_url(empty_postgres), isolation_level="AUTOCOMMIT")
    try:
        for round_ in range(ROUNDS):
            with engine.connect() as conn:  # empty again: no table, no type, nothing
                conn.execute(text("DROP SCHEMA public CASCADE"))
                conn.execute(text("CREATE SCHEMA public"))
            errors = start_together(empty_postgres)
            assert errors == [], f"round {round_ + 1}: {errors[0]!r}"
            with engine.connect() as conn:
                assert set(metadata.tables) <= set(inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_three_servers_starting_at_once_on_a_new_sqlite_file_all_start(tmp_path: Path) -> None:
    for round_ in range(ROUNDS):
        path = tmp_path / f"round{round_}.sqlite3"
        errors = start_together(f"sqlite:///{path}")
        assert errors == [], f"round {round_ + 1}: {errors[0]!r}"
        engine = create_engine(f"sqlite:///{path}")
        with engine.connect() as conn:
            assert set(metadata.tables) <= set(inspect(conn).get_table_names())
        engine.dispose()
