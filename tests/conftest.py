"""Shared fixtures: how tests run the real ``forsale`` command, and ``forsale serve`` in a subprocess.

Starting a server is the measurement harness's (:class:`harness.serve.ServeProcess`, shared with the benchmarks;
``bench/`` is on pytest's ``pythonpath``): the fixtures here hand it out.
"""

from __future__ import annotations

import sys

import pytest

from harness.serve import ServeProcess, checkout_env


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
