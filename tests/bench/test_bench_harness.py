"""The measurement harness's own parts: a server started means answering, a failed start says why, percentiles."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from harness.db import database
from harness.serve import ServeProcess
from harness.stats import percentile


def test_a_started_server_answers_and_a_stopped_one_is_gone(tmp_path: Path) -> None:
    with database("sqlite", tmp_path) as url:
        server = ServeProcess(url, tmp_path, log_name="server.log").start()
        try:
            assert httpx.get(server.base + "/api/health", timeout=10).json()["database"] == "sqlite"
            assert (tmp_path / "bench.sqlite3").exists()  # the database the harness chose is the one served
        finally:
            server.stop()
    assert server.proc is not None and server.proc.poll() is not None
    assert server.tracebacks() == 0


def test_a_server_that_exits_fails_its_start_with_its_log(tmp_path: Path) -> None:
    """A server that cannot start is reported at once with what it said, not after the minute of polling."""
    server = ServeProcess(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path, "--max-bot-time", "nan")
    with pytest.raises(RuntimeError, match=r"(?s)the server exited: .*argument --max-bot-time: 'nan'"):
        server.start(timeout=60)


def test_percentiles_of_sorted_values() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert (percentile(values, 0), percentile(values, 0.5), percentile(values, 0.99), percentile(values, 1)) == (
        1.0,
        3.0,
        4.0,
        4.0,
    )
