"""bench/hints.py on a tiny run: a hint timed at every decision of seat 0 with a choice, one seat analysed."""

from __future__ import annotations

import json
from pathlib import Path

from harness.scripts import load_script

BENCH = Path(__file__).resolve().parents[2] / "bench" / "hints.py"


def test_every_decision_with_a_choice_is_timed_and_the_analysis_too(tmp_path: Path) -> None:
    module = load_script(BENCH)
    out = tmp_path / "hints.json"
    args = ["--games", "1", "--players", "3", "--budget", "1", "--analysis-budget", "1", "--json", str(out)]
    assert module.main(args) == 0
    report = json.loads(out.read_text())
    assert set(report["hint"]) == {"auction", "sale"}
    for row in report["hint"].values():
        assert row["count"] > 0 and 0 <= row["p50"] <= row["p95"] <= row["max"]
    assert report["analysis_seat_seconds"] > 0 and report["config"]["players"] == 3
    assert module.quantile([3.0, 1.0, 2.0], 0.5) == 2.0
