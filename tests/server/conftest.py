"""Fixtures for the server tests: databases (SQLite files and a real PostgreSQL), apps, subprocesses."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.db import PostgresMissing, postgres


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A throw-away PostgreSQL cluster (:func:`harness.db.postgres`, without fsync), its URL.

    Without the binaries the tests that need it are skipped, except under CI
    (``CI=true``), where that is a failure: CI installs them.
    """
    try:
        with postgres("forsale_test", fast=True) as url:
            yield url
    except PostgresMissing as missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(str(missing))
        pytest.skip(str(missing))


@pytest.fixture
def fresh_postgres(postgres_url: str) -> str:
    """The PostgreSQL URL with the server's tables dropped, so each test starts empty."""
    from sqlalchemy import create_engine

    from forsale.server.store.database import normalize_url
    from forsale.server.store.schema import metadata

    engine = create_engine(normalize_url(postgres_url))
    metadata.drop_all(engine)
    engine.dispose()
    return postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Each storage test runs on a SQLite file and on the PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'forsale.sqlite3'}"
    return str(request.getfixturevalue("fresh_postgres"))


@pytest.fixture
def serve(serve_process: type[Any]) -> Iterator[type[Any]]:
    """Start ``forsale serve`` subprocesses: ``serve(db_url, tmp_path).start()``; all stopped at the end."""
    started: list[Any] = []

    class Tracked(serve_process):  # type: ignore[misc,valid-type]
        def start(self) -> Any:
            started.append(self)
            return super().start()

    yield Tracked
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def server(
    serve_process: type[Any], tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """One real ``forsale serve`` for all the tests of a module, on its own SQLite file, REST rate limit off.

    The modules that attack a server over real HTTP (cross-site requests, look-alike names, rated fairness) make
    more requests from one address than a person would; each test takes fresh names, so sharing the server
    within a module leaks nothing between tests. A module with other needs defines its own ``server``.
    """
    name = request.module.__name__.rsplit(".", 1)[-1]
    workdir: Path = tmp_path_factory.mktemp(name)
    proc = serve_process(f"sqlite:///{workdir / 'server.sqlite3'}", workdir, "--rest-rate", "1000000").start()
    try:
        yield proc
    finally:
        proc.stop()


WAITING_BOT = '''
"""A bot that thinks until a file appears (a stand-in for a long search), for the server tests."""
import os
import time
from pathlib import Path

from forsale.bots import register
from forsale.bots.baselines import RandomAgent


class Waiting(RandomAgent):
    name = "waiting"

    def act(self, view, rng, budget=None):
        gate = Path(os.environ["FORSALE_TEST_GATE"])
        deadline = time.monotonic() + 60
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return super().act(view, rng, budget)


@register("waiting", "thinks until a file appears (server tests only)")
def _waiting():
    return Waiting()
'''


@pytest.fixture
def waiting_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Register the ``waiting`` bot from a module workers can import; unregister it afterwards."""
    import sys

    from forsale.bots import registry

    (tmp_path / "forsale_test_waiting_bot.py").write_text(WAITING_BOT)
    monkeypatch.syspath_prepend(str(tmp_path))  # spawned workers inherit sys.path
    gate = tmp_path / "gate"
    monkeypatch.setenv("FORSALE_TEST_GATE", str(gate))
    yield gate
    gate.touch()
    registry._FACTORIES.pop("waiting", None)
    sys.modules.pop("forsale_test_waiting_bot", None)
