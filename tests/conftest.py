"""Shared fixtures: how tests run the real ``forsale`` command, and ``forsale serve`` in a subprocess.

Starting a server is the measurement harness's (:class:`harness.serve.ServeProcess`, shared with the benchmarks;
``bench/`` is on pytest's ``pythonpath``): the fixtures here hand it out.

Under ``pytest -n N`` (pytest-xdist) the tests are handed to the workers a module at a time
(:func:`pytest_xdist_make_scheduler`), so a module's shared server, browser pages and ordered steps stay in
one process; the tests whose checks are bounds on time go to one worker, one after another (:data:`TIMED`).
Every session-wide resource is the worker's own: a PostgreSQL cluster in a temporary directory on a free port,
a browser, servers on free ports, files under ``tmp_path``.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from harness.serve import ServeProcess, checkout_env

TIMED = (
    "tests/cluster/",
    "tests/server/test_server_slowclients.py",
    "tests/bench/test_bench_soak.py",
)
"""Tests that time a cluster's failover, a slow client's cut-off or a soak: under pytest-xdist they share one worker
(the scope ``timed``), so no two of them load the machine at once. None is a browser test (see :data:`BROWSER`)."""

BROWSER = "tests/web/"
"""Browser tests: Playwright's sync API keeps an event loop running in the worker's main thread for the rest of the
session, where ``asyncio.run`` then fails, so under pytest-xdist each worker takes them after everything else (as
one process does: tests/web comes last)."""


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: without it installed, nothing calls it
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``pytest -n N``: whole modules to a worker, every test of :data:`TIMED` to one worker, and the browser
    tests after the others.

    A scheduler rather than ``xdist_group`` marks: pytest 9 builds a test's id from its structured id, so the
    ``@group`` suffix pytest-xdist 3.8 writes into ``_nodeid`` for ``--dist loadgroup`` is never seen, and the
    groups silently fall apart (a module's tests then ran on two workers, each with its own module fixtures).
    """
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "timed" if path.startswith(TIMED) else path

        def _assign_work_unit(self, node: Any) -> None:
            for scope in [s for s in self.workqueue if s.startswith(BROWSER)]:  # in place: the largest first still
                self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return ByModule(config, log)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give each Schemathesis operation its own test id (``test_x[GET /api/health]``, as its name already says).

    pytest 9 builds a test's id from its original name and its ``parametrize`` call, which Schemathesis does not
    use: every operation of ``tests/server/test_server_fuzz_rest.py`` got the same id, so the report could not say
    which one failed and pytest-xdist, which hands tests out by id, ran only the first of them.
    """
    for item in items:
        original = getattr(item, "originalname", None)
        named = original and item.name.startswith(f"{original}[") and item.name.endswith("]")
        if named and not item.nodeid.endswith("]") and item.parent is not None:
            item._id = item.parent.id.child(original).with_params(item.name[len(original) + 1 : -1])  # type: ignore[attr-defined]


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
