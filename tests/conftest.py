"""Shared fixtures: how tests run the real ``forsale`` command."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"


@pytest.fixture
def forsale_cmd() -> list[str]:
    """The argv prefix that runs this checkout's ``forsale`` command."""
    return [sys.executable, "-m", "forsale"]


@pytest.fixture
def forsale_env() -> dict[str, str]:
    """An environment in which ``forsale_cmd`` imports this checkout's package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env
