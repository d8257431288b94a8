"""The soak benchmark runs end to end on a tiny load, kill -9 included, and its own checks pass (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


@pytest.mark.timeout(240)
def test_soak_survives_a_kill_and_loses_no_acknowledged_action(forsale_env: dict[str, str], tmp_path: Path) -> None:
    plot = tmp_path / "soak.png"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--tables", "5", "--minutes", "0.25", "--think", "0.1", "--hostile", "2",
         "--churn", "0.05", "--plot", str(plot)],
        capture_output=True, text=True, env=forsale_env, timeout=230,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.splitlines()[0])
    assert report["kill_at_s"] is not None and report["restart_s"] > 0  # the server was killed and came back
    assert report["games_created"] >= 5 and report["records_refereed"] == report["games_created"]
    assert report["acks_checked"] > 0 and report["cli_replays"] > 0
    assert report["hostile_messages"] + report.get("hostile_requests", 0) > 0
    assert proc.stdout.strip().splitlines()[-1].endswith("PASS")
    assert plot.stat().st_size > 10_000
