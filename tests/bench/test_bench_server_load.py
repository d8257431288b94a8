"""The server load generator runs end to end on a tiny load and keeps its output contract (no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "server_load.py"


@pytest.mark.timeout(180)
def test_server_load_plays_whole_games_and_reports_latency(forsale_env: dict[str, str], tmp_path: Path) -> None:
    plot = tmp_path / "load.png"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--tables", "3", "--think", "0", "--stagger", "0", "--duration", "4",
         "--plot", str(plot), "--server-arg=--full-gc-every=1"],
        capture_output=True, text=True, env=forsale_env, timeout=170,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    *_, report, summary = proc.stdout.strip().splitlines()
    out = json.loads(report)
    assert out["tables"] == 3 and out["server_args"] == ["--full-gc-every=1"]
    assert out["all_seated_s"] is not None and out["window_opened_s"] >= out["all_seated_s"]  # seating is not measured
    assert out["actions"] > 0 and out["games_finished"] > 0  # each finished game was checked to be over on the server
    assert 0 < out["p50_ms"] <= out["p99_ms"] <= out["max_ms"]
    assert out["server_cpu_ms_per_action"] > 0
    assert summary.startswith("server_load db=sqlite tables=3 ")
    assert plot.stat().st_size > 10_000
