"""Shared fixtures: how tests run the real ``forsale`` command, and ``forsale serve`` in a subprocess.

Starting a server is the measurement harness's (:class:`harness.serve.ServeProcess`, shared with the benchmarks;
``bench/`` is on pytest's ``pythonpath``): the fixtures here hand it out.

Under ``pytest -n N --dist loadgroup`` (pytest-xdist) the tests are handed to the workers a module at a time
(:func:`pytest_collection_modifyitems`), so a module's shared server, browser pages and ordered steps stay in
one process; the tests whose checks are bounds on time go to one worker, one after another (:data:`TIMED`).
Every session-wide resource is the worker's own: a PostgreSQL cluster in a temporary directory on a free port,
a browser, servers on free ports, files under ``tmp_path``.
"""

from __future__ import annotations

import sys

import pytest

from harness.serve import ServeProcess, checkout_env

TIMED = (
    "tests/cluster/",
    "tests/server/test_server_slowclients.py",
    "tests/bench/test_bench_soak.py",
    "tests/web/test_web_backoff.py",
)
"""Tests that time a cluster's failover, a slow client's cut-off, a soak or a page's back-off: under pytest-xdist
they share one worker (the group ``timed``), so no two of them load the machine at once."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With pytest-xdist installed: each test's ``xdist_group`` is its module's path, or ``timed`` (:data:`TIMED`),
    unless it names one itself. ``--dist loadgroup`` then hands out whole groups; without it the mark does nothing."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            path = item.path.relative_to(config.rootpath).as_posix()
            item.add_marker(pytest.mark.xdist_group("timed" if path.startswith(TIMED) else path))


@pytest.fixture
def forsale_cmd() -> list[str]:
    """The argv prefix that runs this checkout's ``forsale`` command."""
    return [sys.executable, "-m", "forsale"]


@pytest.fixture
def forsale_env() -> dict[str, str]:
    """An environment in which ``forsale_cmd`` imports this checkout's package."""
    return checkout_env()


@pytest.fixture(scope="session")
def serve_process() -> type[ServeProcess]:
    """The :class:`~harness.serve.ServeProcess` class, for tests that start their own servers."""
    return ServeProcess
